"""PyTorch's ``torch.nn.modules.utils``: the argument helpers that layer code imports by
this path (``from torch.nn.modules.utils import _pair``), and
:func:`consume_prefix_in_state_dict_if_present`."""

from __future__ import annotations

import collections.abc
import itertools

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n, name="parse"):
    """A function turning an iterable into a tuple and anything else into ``n`` copies."""

    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(itertools.repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """``t`` reversed, each element repeated ``n`` times: a layer's per-dim padding as
    ``F.pad``'s last-dim-first pairs."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    """``out_size`` with each None replaced by the matching trailing entry of
    ``defaults`` (an adaptive pool's output size from the input's size)."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size) :])]


def consume_prefix_in_state_dict_if_present(state_dict, prefix) -> None:
    """Strip ``prefix`` (``"module."`` of a DDP model's state dict) from the keys of
    ``state_dict`` in place, and from its ``_metadata`` keys if it has any."""
    for key in list(state_dict):
        if key.startswith(prefix):
            state_dict[key[len(prefix) :]] = state_dict.pop(key)
    meta = getattr(state_dict, "_metadata", None)
    if meta is None:
        return
    for key in list(meta):
        if key and (key == prefix.replace(".", "") or key.startswith(prefix)):
            meta[key[len(prefix) :]] = meta.pop(key)
