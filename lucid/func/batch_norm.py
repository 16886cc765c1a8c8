"""``replace_all_batch_norm_modules_``: batch norm without running statistics, for vmap."""

from __future__ import annotations

from ..nn.modules.batchnorm import _BatchNorm

__all__ = ["replace_all_batch_norm_modules_"]


def replace_all_batch_norm_modules_(root):
    """``root`` updated in place so that every batch norm module in it keeps no running
    statistics (``running_mean``/``running_var`` None, ``track_running_stats`` False):
    under :func:`vmap` an in-place update of shared running statistics has no per-sample
    meaning. Returns ``root``, as PyTorch's."""
    for m in root.modules():
        if isinstance(m, _BatchNorm):
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root
