"""``GradScaler``: dynamic loss scaling, so float16 gradients do not underflow.

Each iteration: ``scaler.scale(loss).backward()`` backpropagates :math:`s \\cdot L`;
``scaler.step(opt)`` unscales the gradients (:math:`g \\leftarrow g / s`, unless
``unscale_`` already did) and runs ``opt.step()`` only if every gradient is finite;
``scaler.update()`` then sets

.. math::
    s \\leftarrow \\begin{cases} s \\cdot \\text{backoff} & \\text{an inf/NaN was found} \\\\
    s \\cdot \\text{growth} & \\text{after growth\\_interval clean steps in a row} \\\\
    s & \\text{otherwise.} \\end{cases}

The scale and the growth tracker are 0-d tensors on the device of the first scaled output,
updated with Lucid ops (no host read). ``unscale_`` computes one ``found_inf`` flag per
device over all of an optimizer's gradients, with no host read per parameter; ``step`` reads
it once. Same methods, errors and ``state_dict`` keys as PyTorch's ``torch.amp.GradScaler``.
"""

from __future__ import annotations

import enum
import warnings
from collections import defaultdict

from .. import dtypes as _dt
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..errors import ArgumentError, ArgumentTypeError
from ..ops import full, isfinite, stack, where
from .. import cuda

__all__ = ["GradScaler", "OptState"]


class OptState(enum.Enum):
    """Where an optimizer is in the iteration: ``unscale_`` and ``step`` move it on,
    ``update`` resets it."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Dynamic loss scaling for mixed-precision training (see the module doc).

    ``device`` is ``"cuda"`` or ``"cpu"``; a ``"cuda"`` scaler without a GPU warns and
    disables itself, as PyTorch's. Disabled, ``scale`` returns its input, ``step`` calls
    ``optimizer.step`` and the other methods do nothing.
    """

    def __init__(
        self,
        device="cuda",
        init_scale=2.0**16,
        growth_factor=2.0,
        backoff_factor=0.5,
        growth_interval=2000,
        enabled=True,
    ):
        if device not in ("cpu", "cuda"):
            raise ArgumentError(f"GradScaler: device must be 'cpu' or 'cuda', got {device!r}")
        self._device = device
        self._enabled = bool(enabled)
        if self._enabled and device == "cuda" and not cuda.is_available():
            warnings.warn(
                "GradScaler is enabled, but CUDA is not available. Disabling.", stacklevel=2
            )
            self._enabled = False
        if not self._enabled:
            return
        if growth_factor <= 1.0:
            raise ArgumentError(f"GradScaler: the growth factor must be > 1.0, got {growth_factor}")
        if backoff_factor >= 1.0:
            raise ArgumentError(
                f"GradScaler: the backoff factor must be < 1.0, got {backoff_factor}"
            )
        self._init_scale = float(init_scale)
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._init_growth_tracker = 0
        self._scale = None
        self._growth_tracker = None
        self._per_optimizer_states = defaultdict(_fresh_state)

    # -- the iteration ---------------------------------------------------------------------

    def scale(self, outputs):
        """``outputs`` (a tensor, or lists/tuples/iterables of them) times the scale."""
        if not self._enabled:
            return outputs
        per_device = {}

        def apply(v):
            if isinstance(v, Tensor):
                if self._scale is None:
                    self._scale = full((), self._init_scale, dtype=_dt.float32, device=v.device)
                    self._growth_tracker = full(
                        (), self._init_growth_tracker, dtype=_dt.int32, device=v.device
                    )
                s = per_device.get(v.device)
                if s is None:
                    s = per_device[v.device] = self._scale.to(v.device)
                return v * s
            if isinstance(v, (list, tuple)):
                return type(v)(apply(x) for x in v)
            if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
                raise ArgumentTypeError(
                    "GradScaler.scale: outputs must be a Tensor or an "
                    f"iterable of Tensors, got {type(v).__name__}"
                )
            return map(apply, v)

        return apply(outputs)

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale in place (before clipping them,
        say), recording per device whether any is inf/NaN. Once per optimizer per
        ``update``."""
        if not self._enabled:
            return
        self._check("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise ArgumentError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] is OptState.STEPPED:
            raise ArgumentError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        state["found_inf_per_device"] = _unscale_grads(optimizer, inv_scale)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscale ``optimizer``'s gradients (unless ``unscale_`` did) and run
        ``optimizer.step(*args, **kwargs)`` unless one is inf/NaN (one host read). Returns
        what ``optimizer.step`` returned, or None when skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise ArgumentError(
                "GradScaler.step: closure use is not supported while GradScaler is enabled."
            )
        self._check("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise ArgumentError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        found = state["found_inf_per_device"]
        if not found:
            raise ArgumentError(
                "GradScaler.step: no inf checks were recorded for this "
                "optimizer (none of its parameters has a gradient)."
            )
        out = None
        if not _combined(found.values(), self._scale.device).item():
            out = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return out

    def update(self, new_scale=None):
        """Back off the scale if any optimizer stepped into an inf/NaN since the last
        update, grow it after ``growth_interval`` clean updates (module doc); or set it to
        ``new_scale`` (a float or a 1-element float tensor)."""
        if not self._enabled:
            return
        self._check("update")
        if new_scale is not None:
            self._set_scale(new_scale)
        else:
            found = [
                f
                for s in self._per_optimizer_states.values()
                for f in s["found_inf_per_device"].values()
            ]
            if not found:
                raise ArgumentError(
                    "GradScaler.update: no inf checks were recorded prior to update()."
                )
            self._update_scale(_combined(found, self._scale.device))
        self._per_optimizer_states = defaultdict(_fresh_state)

    def _update_scale(self, found_inf):
        """The scale rule of the module doc, on device: no host read."""
        with no_grad():
            scale, tracker = self._scale, self._growth_tracker
            found = found_inf > 0
            clean = tracker + 1
            grow = ~found & (clean == self._growth_interval)
            grown = scale * self._growth_factor
            scale.copy_(
                where(
                    found, scale * self._backoff_factor, where(grow & isfinite(grown), grown, scale)
                )
            )
            tracker.copy_(clean * ~(found | grow))  # reset to 0 on backoff or growth

    def _set_scale(self, new_scale):
        with no_grad():
            if isinstance(new_scale, Tensor):
                if (
                    new_scale.numel() != 1
                    or not new_scale.is_floating_point()
                    or new_scale.requires_grad
                ):
                    raise ArgumentError(
                        "GradScaler.update: new_scale should be a float or a "
                        "1-element float tensor with requires_grad=False, "
                        f"got shape {tuple(new_scale.shape)} "
                        f"{new_scale.dtype}"
                    )
                self._scale.copy_(new_scale.reshape(()))
            else:
                self._scale.fill_(float(new_scale))

    def _check(self, name):
        for attr in ("_scale", "_growth_tracker"):
            if getattr(self, attr) is None:
                raise ArgumentError(
                    f"Attempted {name} but {attr} is None. This may indicate "
                    "your script did not use scaler.scale(loss or outputs) "
                    "earlier in the iteration."
                )

    # -- settings and state ------------------------------------------------------------------

    def is_enabled(self):
        return self._enabled

    def get_scale(self):
        """The current scale as a float (a host read), 1.0 when disabled."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = int(new_interval)

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return (
            self._init_growth_tracker
            if self._growth_tracker is None
            else int(self._growth_tracker.item())
        )

    def state_dict(self):
        """``{"scale", "growth_factor", "backoff_factor", "growth_interval",
        "_growth_tracker"}`` as PyTorch's (empty when disabled)."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict):
        """Load a :meth:`state_dict` (Lucid's or PyTorch's)."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise ArgumentError(
                "GradScaler.load_state_dict: the source state dict is empty, "
                "possibly because it was saved from a disabled instance of "
                "GradScaler."
            )
        self._init_scale = float(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._scale is not None:
            self._scale.fill_(self._init_scale)
            self._growth_tracker.fill_(self._init_growth_tracker)


def _unscale_grads(optimizer, inv_scale):
    """Multiply every gradient of ``optimizer`` by ``inv_scale`` in place; return
    ``{device: found_inf}`` with ``found_inf`` a 0-d float32 tensor, 1.0 where some gradient
    on that device had an inf/NaN before unscaling. Lucid ops only: no host read."""
    per_device = defaultdict(list)
    for group in optimizer.param_groups:
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            if g.dtype is _dt.float16:
                raise ArgumentError(
                    "GradScaler.unscale_: attempting to unscale float16 "
                    "gradients (keep the parameters in float32 and let "
                    "autocast cast them)"
                )
            per_device[g.device].append(g)
    found = {}
    with no_grad():
        for dev, grads in per_device.items():
            inv = inv_scale.to(dev)
            finite = []
            for g in grads:
                finite.append(isfinite(g).all())
                g.mul_(inv)
            found[dev] = (~stack(finite).all()).float()
    return found


def _combined(flags, dev):
    """The sum of the found_inf flags, on ``dev``."""
    total = None
    for f in flags:
        f = f.to(dev)
        total = f if total is None else total + f
    return total


def _cuda_available():
    return cuda.is_available()
