"""``torch.nn.utils.stateless``: the pre-2.0 home of ``functional_call``, deprecated in
favour of :func:`lucid.func.functional_call`, which it calls."""

from __future__ import annotations

import warnings

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Deprecated: :func:`lucid.func.functional_call` (same arguments; warns, as
    PyTorch's)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch "
                  "2.0 and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    from ...func import functional_call as call    # lucid.func sits above lucid.nn
    return call(module, parameters_and_buffers, () if args is None else args, kwargs,
                tie_weights=tie_weights, strict=strict)
