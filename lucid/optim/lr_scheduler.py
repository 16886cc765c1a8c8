r"""Learning-rate schedulers, with PyTorch's semantics step for step.

A scheduler writes ``lr`` (and, for the cyclic ones, ``momentum`` or ``betas[0]``) into its
optimizer's param groups. ``step()`` advances ``last_epoch`` and applies the *chainable*
(recursive) form of the schedule: each new lr is computed from the group's current lr, so
schedulers compose (:class:`ChainedScheduler`) — as PyTorch's, so the lr sequences agree
exactly. ``step(epoch)`` (deprecated in PyTorch, kept for compatibility) jumps to ``epoch``
and uses the closed form where the schedule has one.

Construction with ``last_epoch=-1`` stores each group's ``initial_lr`` (kept if already
there) and takes the first step (epoch 0); resuming with ``last_epoch >= 0`` needs
``initial_lr`` in every group. ``state_dict()`` holds every attribute except the optimizer
(lambdas only when they are callable objects, by their ``__dict__``).
"""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter

from ..errors import ArgumentError, ArgumentTypeError
from .optimizer import Optimizer

__all__ = [
    "LRScheduler",
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "PolynomialLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "OneCycleLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "ChainedScheduler",
    "NoamScheduler",
]

_EPOCH_WARNING = (
    "The epoch parameter in `scheduler.step()` is deprecated; call "
    "`scheduler.step()` without it. With an epoch the closed form of the "
    "schedule is used where there is one."
)


def _lrs(optimizer, key="lr"):
    return [g[key] for g in optimizer.param_groups]


def _per_group(name, optimizer, value, sched):
    """``value`` for each param group: a list of one per group, or one value for all."""
    n = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ArgumentError(
                f"{sched}: {name} must have one value per param group: got "
                f"{len(value)} values for {n} param groups"
            )
        return list(value)
    return [value] * n


def _check_optimizer(optimizer, sched):
    if not isinstance(optimizer, Optimizer):
        raise ArgumentTypeError(f"{sched}: {type(optimizer).__name__} is not an Optimizer")


def _mark_called(opt, args, kwargs):
    opt._opt_called = True


# idempotent once it has run: a replay of a compiled step need not run it again
_mark_called._compile_safe = True  # type: ignore[attr-defined]


class LRScheduler:
    """Base class of the epoch-indexed schedulers (see the module doc).

    Subclasses define :meth:`get_lr` (the chainable form, reading the groups' current lr,
    ``self.last_epoch`` and ``self._is_initial``) and optionally
    ``_get_closed_form_lr``."""

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        name = type(self).__name__
        _check_optimizer(optimizer, name)
        self.optimizer = optimizer
        if last_epoch == -1:
            for g in optimizer.param_groups:
                g.setdefault("initial_lr", g["lr"])
        else:
            for i, g in enumerate(optimizer.param_groups):
                if "initial_lr" not in g:
                    raise ArgumentError(
                        f"{name}: param 'initial_lr' is not specified in "
                        f"param_groups[{i}] when resuming a scheduler with "
                        f"last_epoch={last_epoch} (load the optimizer's "
                        f"state first)"
                    )
        self.base_lrs = _lrs(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        if not getattr(optimizer, "_lr_sched_hooked", False):
            optimizer.register_step_post_hook(_mark_called)
            optimizer._lr_sched_hooked = True
        self._initial_step()

    def _initial_step(self):
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        """Every attribute but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The lr of each group as last set by this scheduler."""
        return self._last_lr

    def get_lr(self):
        """The chainable form of the schedule: the new lr of each group."""
        raise NotImplementedError(f"{type(self).__name__} does not define get_lr()")

    def _warn_outside_step(self):
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, use `get_last_lr()`.",
                UserWarning,
                stacklevel=3,
            )

    def step(self, epoch=None):
        """Advance one epoch (or jump to ``epoch``) and write the new lrs."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(
                "Detected call of `lr_scheduler.step()` before "
                "`optimizer.step()`: call them in the opposite order, or the "
                "first value of the schedule is skipped.",
                UserWarning,
                stacklevel=2,
            )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(_EPOCH_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for g, lr in zip(self.optimizer.param_groups, values):
            g["lr"] = lr
        self._last_lr = _lrs(self.optimizer)


_LRScheduler = LRScheduler  # the old name, still subclassed by older scripts


class _LambdaState:
    """state_dict of the lambda schedulers: the lambdas only as callable objects'
    ``__dict__`` (plain functions are not state)."""

    def state_dict(self):
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        sd["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else dict(fn.__dict__)
            for fn in self.lr_lambdas
        ]
        return sd

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        fns = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        for fn, saved in zip(self.lr_lambdas, fns):
            if saved is not None:
                fn.__dict__.update(saved)


def _lambdas(sched, optimizer, lr_lambda):
    n = len(optimizer.param_groups)
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != n:
            raise ArgumentError(f"{sched}: expected {n} lr_lambdas, but got {len(lr_lambda)}")
        fns = list(lr_lambda)
    else:
        fns = [lr_lambda] * n
    for fn in fns:
        if not callable(fn):
            raise ArgumentTypeError(
                f"{sched}: lr_lambda should be a function, but got {type(fn).__name__}"
            )
    return fns


class LambdaLR(_LambdaState, LRScheduler):
    r""":math:`\gamma_t = \gamma_0 \cdot \lambda(t)`, one lambda per group or one for all."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas("LambdaLR", optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaState, LRScheduler):
    r""":math:`\gamma_t = \gamma_{t-1} \cdot \lambda(t)` for :math:`t > 0`."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas("MultiplicativeLR", optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial:
            return _lrs(self.optimizer)
        return [
            g["lr"] * fn(self.last_epoch)
            for fn, g in zip(self.lr_lambdas, self.optimizer.param_groups)
        ]


class StepLR(LRScheduler):
    r"""Multiply the lr by ``gamma`` every ``step_size`` epochs:
    :math:`\gamma_t = \gamma_0\,\text{gamma}^{\lfloor t/\text{step\_size}\rfloor}`."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _lrs(self.optimizer)
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    r"""Multiply the lr by ``gamma`` at each milestone (a milestone given twice applies
    twice): :math:`\gamma_t = \gamma_0\,\text{gamma}^{|\{m \le t\}|}`."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return _lrs(self.optimizer)
        k = self.milestones[self.last_epoch]
        return [g["lr"] * self.gamma**k for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        ms = sorted(self.milestones.elements())
        return [b * self.gamma ** bisect_right(ms, self.last_epoch) for b in self.base_lrs]


class ConstantLR(LRScheduler):
    r"""The lr times ``factor`` until epoch ``total_iters``, then the lr itself."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ArgumentError(
                f"ConstantLR: the constant multiplicative factor is "
                f"expected to be between 0 and 1, got {factor}"
            )
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [g["lr"] * self.factor for g in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _lrs(self.optimizer)
        return [g["lr"] * (1.0 / self.factor) for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [
            b * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
            for b in self.base_lrs
        ]


class LinearLR(LRScheduler):
    r"""The lr's factor goes linearly from ``start_factor`` to ``end_factor`` over
    ``total_iters`` epochs: :math:`\gamma_t = \gamma_0 (s + (e - s)\min(t, T)/T)`."""

    def __init__(
        self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1
    ):
        if start_factor > 1.0 or start_factor <= 0:
            raise ArgumentError(
                f"LinearLR: the starting multiplicative factor is expected "
                f"to be in (0, 1], got {start_factor}"
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ArgumentError(
                f"LinearLR: the ending multiplicative factor is expected "
                f"to be in [0, 1], got {end_factor}"
            )
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [g["lr"] * self.start_factor for g in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        delta = self.end_factor - self.start_factor
        ratio = 1.0 + delta / (self.total_iters * self.start_factor + (self.last_epoch - 1) * delta)
        return [g["lr"] * ratio for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [
            b
            * (
                self.start_factor
                + (self.end_factor - self.start_factor)
                * min(self.total_iters, self.last_epoch)
                / self.total_iters
            )
            for b in self.base_lrs
        ]


class ExponentialLR(LRScheduler):
    r""":math:`\gamma_t = \gamma_0\,\text{gamma}^t`."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial:
            return _lrs(self.optimizer)
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * self.gamma**self.last_epoch for b in self.base_lrs]


class PolynomialLR(LRScheduler):
    r""":math:`\gamma_t = \gamma_0 (1 - \min(t, T)/T)^{p}` (``total_iters`` :math:`T`,
    ``power`` :math:`p`)."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        factor = (
            (1.0 - self.last_epoch / self.total_iters)
            / (1.0 - (self.last_epoch - 1) / self.total_iters)
        ) ** self.power
        return [g["lr"] * factor for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [
            b * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
            for b in self.base_lrs
        ]


class NoamScheduler(LRScheduler):
    r"""The Transformer's schedule (Vaswani et al. 2017, eq. 3; Noam Shazeer's): a linear
    warm-up, then an inverse-square-root decay,

    .. math:: \eta_t = \text{factor}\cdot d_{\text{model}}^{-1/2}\cdot
              \min\big(t^{-1/2},\; t\cdot w^{-3/2}\big), \qquad t = \text{last\_epoch} + 1

    (``model_size`` :math:`d_{\text{model}}`, ``warmup_steps`` :math:`w`), peaking at
    :math:`t = w`. The step :math:`t` counts from 1: the lr set at construction is that
    of the first optimizer step. It sets the lr of every group outright (the optimizer's
    own lr is not a factor, as in the paper); ``get_lr`` is the closed form, so it does
    not chain with other schedulers. Lucid³'s name and signature; PyTorch has no Noam
    scheduler (its users write it as a ``LambdaLR`` over a base lr of 1, which gives the
    same values)."""

    def __init__(self, optimizer, model_size, warmup_steps, factor=1.0, last_epoch=-1):
        for name, v in (("model_size", model_size), ("warmup_steps", warmup_steps)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ArgumentError(f"NoamScheduler: {name} must be a positive int, got {v!r}")
        if factor <= 0:
            raise ArgumentError(f"NoamScheduler: factor must be positive, got {factor}")
        self.model_size = model_size
        self.warmup_steps = warmup_steps
        self.factor = factor
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        return self._get_closed_form_lr()

    def _get_closed_form_lr(self):
        t = self.last_epoch + 1
        lr = self.factor * self.model_size**-0.5 * min(t**-0.5, t * self.warmup_steps**-1.5)
        return [lr] * len(self.optimizer.param_groups)


class CosineAnnealingLR(LRScheduler):
    r"""Cosine annealing (SGDR without restarts), in PyTorch's recursive form

    .. math:: \eta_{t} = \eta_{min} + (\eta_{t-1} - \eta_{min})
       \frac{1 + \cos(\pi t/T_{max})}{1 + \cos(\pi (t-1)/T_{max})},

    which equals :math:`\eta_{min} + \frac12(\eta_0 - \eta_{min})(1 + \cos(\pi t/T_{max}))`
    when nothing else changes the lr, and keeps following the cosine past :math:`T_{max}`
    (rising back again)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        t, T, lo = self.last_epoch, self.T_max, self.eta_min
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _lrs(self.optimizer)
        if self._step_count == 1 and t > 0:
            return [lo + (b - lo) * (1 + math.cos(t * math.pi / T)) / 2 for b in self.base_lrs]
        if (t - 1 - T) % (2 * T) == 0:
            return [
                g["lr"] + (b - lo) * (1 - math.cos(math.pi / T)) / 2
                for b, g in zip(self.base_lrs, groups)
            ]
        return [
            (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T)) * (g["lr"] - lo)
            + lo
            for g in groups
        ]

    def _get_closed_form_lr(self):
        return [
            self.eta_min
            + (b - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for b in self.base_lrs
        ]


class CosineAnnealingWarmRestarts(LRScheduler):
    r"""SGDR: :math:`\eta_t = \eta_{min} + \frac12(\eta_0 - \eta_{min})(1 +
    \cos(\pi T_{cur}/T_i))`, restarting when :math:`T_{cur}` reaches :math:`T_i`; the
    period starts at ``T_0`` and is multiplied by ``T_mult`` at each restart.
    ``step(epoch)`` accepts fractional epochs (``epoch + i / iters`` within an epoch)."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ArgumentError(
                f"CosineAnnealingWarmRestarts: expected a positive integer T_0, but got {T_0!r}"
            )
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ArgumentError(
                f"CosineAnnealingWarmRestarts: expected an integer T_mult >= 1, but got {T_mult!r}"
            )
        if not isinstance(eta_min, (float, int)):
            raise ArgumentTypeError(
                f"CosineAnnealingWarmRestarts: expected a float or int "
                f"eta_min, but got {type(eta_min).__name__}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        return [
            self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
            for b in self.base_lrs
        ]

    def step(self, epoch=None):
        """Advance one epoch, or go to (possibly fractional) ``epoch``."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur %= self.T_i
                self.T_i *= self.T_mult
        else:
            if epoch < 0:
                raise ArgumentError(
                    f"CosineAnnealingWarmRestarts: expected a non-negative epoch, but got {epoch}"
                )
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for g, lr in zip(self.optimizer.param_groups, values):
            g["lr"] = lr
        self._last_lr = _lrs(self.optimizer)


def _momentum_key(sched, optimizer):
    """Whether the cyclic momentum goes into ``betas[0]`` (True) or ``momentum``."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ArgumentError(
            f"{sched}: optimizer must support momentum or beta1 with the "
            f"`cycle_momentum` option enabled"
        )
    return "betas" in optimizer.defaults


def _set_momentum(group, use_beta1, value):
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


class CyclicLR(LRScheduler):
    r"""Cyclical learning rate (Smith): the lr goes from ``base_lr`` up to ``max_lr`` in
    ``step_size_up`` iterations and back in ``step_size_down``; the amplitude is scaled per
    cycle (``triangular``: 1, ``triangular2``: halved each cycle) or per iteration
    (``exp_range``: :math:`\text{gamma}^t`), or by ``scale_fn``. With ``cycle_momentum``
    the momentum (or ``betas[0]``) moves inversely between ``max_momentum`` and
    ``base_momentum``. Stepped once per batch."""

    def __init__(
        self,
        optimizer,
        base_lr,
        max_lr,
        step_size_up=2000,
        step_size_down=None,
        mode="triangular",
        gamma=1.0,
        scale_fn=None,
        scale_mode="cycle",
        cycle_momentum=True,
        base_momentum=0.8,
        max_momentum=0.9,
        last_epoch=-1,
    ):
        _check_optimizer(optimizer, "CyclicLR")
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr, "CyclicLR")
        if last_epoch == -1:
            for lr, g in zip(base_lrs, optimizer.param_groups):
                g["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr, "CyclicLR")
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ArgumentError(f"CyclicLR: mode {mode!r} is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_key("CyclicLR", optimizer)
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum, "CyclicLR")
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum, "CyclicLR")
            if last_epoch == -1:
                for hi, lo, g in zip(
                    self.max_momentums, self.base_momentums, optimizer.param_groups
                ):
                    _set_momentum(g, self.use_beta1, hi)
                    g["max_momentum"] = hi
                    g["base_momentum"] = lo
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is None and self.mode != "exp_range":
            self.scale_mode = "cycle"
        elif self._scale_fn_custom is None:
            self.scale_mode = "iterations"

    def scale_fn(self, x):
        """The amplitude scale at cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma**x

    def get_lr(self):
        self._warn_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        amp = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [lo + (hi - lo) * scale * amp for lo, hi in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for lo, hi, g in zip(
                self.base_momentums, self.max_momentums, self.optimizer.param_groups
            ):
                _set_momentum(g, self.use_beta1, hi - (hi - lo) * scale * amp)
        return lrs

    def state_dict(self):
        sd = super().state_dict()
        fn = sd.pop("_scale_fn_custom")
        sd["_scale_fn_custom"] = (
            None if fn is None or isinstance(fn, types.FunctionType) else dict(fn.__dict__)
        )
        return sd

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class OneCycleLR(LRScheduler):
    r"""The 1cycle policy (Smith & Topin): the lr rises from ``max_lr / div_factor`` to
    ``max_lr`` over the first ``pct_start`` of ``total_steps`` and anneals (``"cos"`` or
    ``"linear"``) to ``initial_lr / final_div_factor``; ``three_phase`` comes back to the
    initial lr before the final annealing. With ``cycle_momentum`` the momentum (or
    ``betas[0]``) moves inversely. Stepped once per batch; stepping past ``total_steps``
    is an error."""

    def __init__(
        self,
        optimizer,
        max_lr,
        total_steps=None,
        epochs=None,
        steps_per_epoch=None,
        pct_start=0.3,
        anneal_strategy="cos",
        cycle_momentum=True,
        base_momentum=0.85,
        max_momentum=0.95,
        div_factor=25.0,
        final_div_factor=1e4,
        three_phase=False,
        last_epoch=-1,
    ):
        _check_optimizer(optimizer, "OneCycleLR")
        self.optimizer = optimizer
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ArgumentError(
                    f"OneCycleLR: expected a positive integer total_steps, but got {total_steps!r}"
                )
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            for what, v in (("epochs", epochs), ("steps_per_epoch", steps_per_epoch)):
                if not isinstance(v, int) or v <= 0:
                    raise ArgumentError(
                        f"OneCycleLR: expected a positive integer {what}, but got {v!r}"
                    )
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ArgumentError(
                "OneCycleLR: you must define either total_steps OR (epochs AND steps_per_epoch)"
            )
        if not isinstance(pct_start, float) or not 0 <= pct_start <= 1:
            raise ArgumentError(
                f"OneCycleLR: expected a float pct_start between 0 and 1, but got {pct_start!r}"
            )
        if anneal_strategy not in ("cos", "linear"):
            raise ArgumentError(
                f"OneCycleLR: anneal_strategy must be 'cos' or 'linear', got {anneal_strategy!r}"
            )
        self._anneal_func_type = anneal_strategy
        n = self.total_steps
        up = float(pct_start * n) - 1
        if three_phase:
            self._schedule_phases = [
                dict(
                    end_step=up,
                    start_lr="initial_lr",
                    end_lr="max_lr",
                    start_momentum="max_momentum",
                    end_momentum="base_momentum",
                ),
                dict(
                    end_step=float(2 * pct_start * n) - 2,
                    start_lr="max_lr",
                    end_lr="initial_lr",
                    start_momentum="base_momentum",
                    end_momentum="max_momentum",
                ),
                dict(
                    end_step=n - 1,
                    start_lr="initial_lr",
                    end_lr="min_lr",
                    start_momentum="max_momentum",
                    end_momentum="max_momentum",
                ),
            ]
        else:
            self._schedule_phases = [
                dict(
                    end_step=up,
                    start_lr="initial_lr",
                    end_lr="max_lr",
                    start_momentum="max_momentum",
                    end_momentum="base_momentum",
                ),
                dict(
                    end_step=n - 1,
                    start_lr="max_lr",
                    end_lr="min_lr",
                    start_momentum="base_momentum",
                    end_momentum="max_momentum",
                ),
            ]
        max_lrs = _per_group("max_lr", optimizer, max_lr, "OneCycleLR")
        if last_epoch == -1:
            for hi, g in zip(max_lrs, optimizer.param_groups):
                g["initial_lr"] = hi / div_factor
                g["max_lr"] = hi
                g["min_lr"] = g["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_key("OneCycleLR", optimizer)
            his = _per_group("max_momentum", optimizer, max_momentum, "OneCycleLR")
            los = _per_group("base_momentum", optimizer, base_momentum, "OneCycleLR")
            if last_epoch == -1:
                for hi, lo, g in zip(his, los, optimizer.param_groups):
                    _set_momentum(g, self.use_beta1, hi)
                    g["max_momentum"] = hi
                    g["base_momentum"] = lo
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        self._warn_outside_step()
        t = self.last_epoch
        if t > self.total_steps:
            raise ArgumentError(
                f"OneCycleLR: tried to step {t} times; the specified "
                f"number of total steps is {self.total_steps}"
            )
        lrs = []
        phases = self._schedule_phases
        for g in self.optimizer.param_groups:
            start = 0.0
            for i, ph in enumerate(phases):
                end = ph["end_step"]
                if t <= end or i == len(phases) - 1:
                    pct = (t - start) / (end - start)
                    lrs.append(self._anneal(g[ph["start_lr"]], g[ph["end_lr"]], pct))
                    if self.cycle_momentum:
                        _set_momentum(
                            g,
                            self.use_beta1,
                            self._anneal(g[ph["start_momentum"]], g[ph["end_momentum"]], pct),
                        )
                    break
                start = ph["end_step"]
        return lrs


class ReduceLROnPlateau(LRScheduler):
    r"""Multiply the lr by ``factor`` (not below ``min_lr``; changes smaller than ``eps``
    are skipped) once the metric given to ``step(metric)`` has not improved for more
    than ``patience`` epochs, then wait ``cooldown`` epochs. Improvement: in ``mode``
    ``"min"`` a value below :math:`\text{best}(1 - \text{threshold})` (``threshold_mode``
    ``"rel"``) or :math:`\text{best} - \text{threshold}` (``"abs"``); mirrored for
    ``"max"``."""

    def __init__(
        self,
        optimizer,
        mode="min",
        factor=0.1,
        patience=10,
        threshold=1e-4,
        threshold_mode="rel",
        cooldown=0,
        min_lr=0,
        eps=1e-8,
    ):
        if factor >= 1.0:
            raise ArgumentError(f"ReduceLROnPlateau: factor should be < 1.0, got {factor}")
        _check_optimizer(optimizer, "ReduceLROnPlateau")
        self.factor = factor
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ArgumentError(
                    f"ReduceLROnPlateau: expected "
                    f"{len(optimizer.param_groups)} min_lrs, got "
                    f"{len(min_lr)}"
                )
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _lrs(optimizer)
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        """Record this epoch's ``metrics`` (a number or a one-element tensor)."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(_EPOCH_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _lrs(self.optimizer)

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise ArgumentError(
                    f"ReduceLROnPlateau: the optimizer has {len(groups)} "
                    f"param groups but min_lrs has {len(self.min_lrs)} "
                    f"(a param group was added); update min_lrs"
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for g, lo in zip(groups, self.min_lrs):
            old = float(g["lr"])
            new = max(old * self.factor, lo)
            if old - new > self.eps:
                g["lr"] = new

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min":
            return (
                a < best * (1.0 - self.threshold)
                if self.threshold_mode == "rel"
                else a < best - self.threshold
            )
        return (
            a > best * (self.threshold + 1.0)
            if self.threshold_mode == "rel"
            else a > best + self.threshold
        )

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in ("min", "max"):
            raise ArgumentError(
                f"ReduceLROnPlateau: mode {mode!r} is unknown (expected 'min' or 'max')"
            )
        if threshold_mode not in ("rel", "abs"):
            raise ArgumentError(
                f"ReduceLROnPlateau: threshold mode {threshold_mode!r} is "
                f"unknown (expected 'rel' or 'abs')"
            )
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


def _check_children(sched, optimizer, schedulers):
    if len(schedulers) < 1:
        raise ArgumentError(f"{sched} expects at least one scheduler, but got none")
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise ArgumentTypeError(
                f"{sched}: the scheduler at index {i} should have `optimizer` as its attribute"
            )
        if isinstance(s, ReduceLROnPlateau):
            raise ArgumentError(
                f"{sched} does not support ReduceLROnPlateau (its step "
                f"needs a metric), got one at index {i}"
            )
        if s.optimizer is not optimizer:
            raise ArgumentError(
                f"{sched} expects all schedulers to belong to the same "
                f"optimizer, but the scheduler {type(s).__name__} at index "
                f"{i} has another one"
            )


class _Composite:
    """state_dict of the schedulers made of schedulers: their own state dicts nested."""

    def state_dict(self):
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        sd["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return sd

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        children = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        for s, sd in zip(self._schedulers, children):
            s.load_state_dict(sd)


class SequentialLR(_Composite, LRScheduler):
    """Run ``schedulers[i]`` between ``milestones[i-1]`` and ``milestones[i]``; at a
    milestone the next scheduler starts from its epoch 0 (closed form)."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_children("SequentialLR", optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ArgumentError(
                f"SequentialLR expects one milestone fewer than "
                f"schedulers, but got {len(schedulers)} schedulers and "
                f"{len(milestones)} milestones"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for g in optimizer.param_groups:
            g["lr"] = g["initial_lr"]
        self._undo(self)
        idx = bisect_right(milestones, 0)
        schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def _undo(self, sched):
        """Take back the initial step of every (nested) child scheduler."""
        if hasattr(sched, "_schedulers"):
            for s in sched._schedulers:
                self._undo(s)
        elif hasattr(sched, "last_epoch"):
            sched.last_epoch -= 1

    def step(self):
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        s = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            s._update_lr(0)
        else:
            s.step()
        self._last_lr = s.get_last_lr()


class ChainedScheduler(_Composite, LRScheduler):
    """Step every scheduler of the list at each ``step()``: their (chainable) effects
    multiply."""

    def __init__(self, schedulers, optimizer=None):
        optimizer = optimizer or (schedulers[0].optimizer if schedulers else None)
        _check_children("ChainedScheduler", optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _lrs(schedulers[-1].optimizer)

    def step(self):
        for s in self._schedulers:
            s.step()
        self._last_lr = _lrs(self._schedulers[-1].optimizer)
