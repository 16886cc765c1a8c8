"""Per-coordinate adaptive methods: RMSprop, Adagrad, Adadelta (classes and functional).

The classes validate and hold the state; ``rmsprop``, ``adagrad`` and ``adadelta`` hand
the group's arrays to one backend kernel each (:mod:`lucid.backend.interface.optim`).
``foreach``, ``fused`` and ``capturable`` are accepted and change nothing.
"""

from __future__ import annotations

from ..ops import full_like, zeros_like
from .optimizer import Optimizer, check_flags, host_scalar, invalid, run_kernel

__all__ = ["RMSprop", "Adagrad", "Adadelta", "rmsprop", "adagrad", "adadelta"]


def _check(opt, **values):
    """Each keyword is a hyperparameter that must be >= 0."""
    for what, v in values.items():
        if not 0.0 <= v:
            label = "learning rate" if what == "lr" else f"{what} value"
            raise invalid(opt, label, v, f"{what} >= 0")


def rmsprop(
    params,
    grads,
    square_avgs,
    grad_avgs,
    momentum_buffer_list,
    state_steps,
    *,
    lr,
    alpha,
    eps,
    weight_decay,
    momentum,
    centered,
    maximize,
):
    """Functional RMSprop; see :meth:`~lucid.backend.interface.optim.OptimKernels.rmsprop_step`."""
    run_kernel(
        "rmsprop_step",
        params,
        grads,
        square_avgs,
        grad_avgs if centered else None,
        momentum_buffer_list if momentum > 0 else None,
        state_steps,
        lr=float(lr),
        alpha=float(alpha),
        eps=float(eps),
        weight_decay=float(weight_decay),
        momentum=float(momentum),
        centered=bool(centered),
        maximize=bool(maximize),
    )


def adagrad(params, grads, state_sums, state_steps, *, lr, weight_decay, lr_decay, eps, maximize):
    """Functional Adagrad; see :meth:`~lucid.backend.interface.optim.OptimKernels.adagrad_step`."""
    run_kernel(
        "adagrad_step",
        params,
        grads,
        state_sums,
        state_steps,
        lr=float(lr),
        lr_decay=float(lr_decay),
        eps=float(eps),
        weight_decay=float(weight_decay),
        maximize=bool(maximize),
    )


def adadelta(
    params, grads, square_avgs, acc_deltas, state_steps, *, lr, rho, eps, weight_decay, maximize
):
    """Functional Adadelta; see
    :meth:`~lucid.backend.interface.optim.OptimKernels.adadelta_step`."""
    run_kernel(
        "adadelta_step",
        params,
        grads,
        square_avgs,
        acc_deltas,
        state_steps,
        lr=float(lr),
        rho=float(rho),
        eps=float(eps),
        weight_decay=float(weight_decay),
        maximize=bool(maximize),
    )


class RMSprop(Optimizer):
    r"""RMSprop (Hinton): :math:`v_t = \alpha v_{t-1} + (1-\alpha) g_t^2`,
    :math:`\theta_t = \theta_{t-1} - \gamma g_t / (\sqrt{v_t} + \epsilon)`; ``centered``
    subtracts the squared running mean of the gradient from :math:`v_t`; ``momentum``
    accumulates :math:`g_t/(\sqrt{v_t}+\epsilon)` in a buffer. State: ``step``,
    ``square_avg`` (``momentum_buffer``, ``grad_avg``)."""

    def __init__(
        self,
        params,
        lr=1e-2,
        alpha=0.99,
        eps=1e-8,
        weight_decay=0,
        momentum=0,
        centered=False,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        _check("RMSprop", lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        check_flags("RMSprop", differentiable)
        super().__init__(
            params,
            dict(
                lr=lr,
                momentum=momentum,
                alpha=alpha,
                eps=eps,
                centered=centered,
                weight_decay=weight_decay,
                capturable=capturable,
                foreach=foreach,
                maximize=maximize,
                differentiable=differentiable,
            ),
        )

    def step(self, closure=None):
        """One RMSprop step over every group; returns the closure's loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            momentum, centered = group["momentum"], group["centered"]

            def init(p, st):
                st["step"] = host_scalar(0.0)
                st["square_avg"] = zeros_like(p)
                if momentum > 0:
                    st["momentum_buffer"] = zeros_like(p)
                if centered:
                    st["grad_avg"] = zeros_like(p)

            params, grads, (v, ga, bufs, steps) = self._gather(
                group, init, ("square_avg", "grad_avg", "momentum_buffer", "step")
            )
            if params:
                rmsprop(
                    params,
                    grads,
                    v,
                    ga,
                    bufs,
                    steps,
                    lr=group["lr"],
                    alpha=group["alpha"],
                    eps=group["eps"],
                    weight_decay=group["weight_decay"],
                    momentum=momentum,
                    centered=centered,
                    maximize=group["maximize"],
                )
        return loss


class Adagrad(Optimizer):
    r"""Adagrad (Duchi et al.): :math:`s_t = s_{t-1} + g_t^2`, :math:`\theta_t =
    \theta_{t-1} - \tilde\gamma_t g_t/(\sqrt{s_t} + \epsilon)` with :math:`\tilde\gamma_t =
    \gamma/(1 + (t-1)\eta)` (``lr_decay`` :math:`\eta`); :math:`s_0` is
    ``initial_accumulator_value``. The state (``step``, ``sum``) is made at construction,
    as PyTorch's."""

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        fused=None,
    ):
        _check(
            "Adagrad",
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        check_flags("Adagrad", differentiable)
        super().__init__(
            params,
            dict(
                lr=lr,
                lr_decay=lr_decay,
                eps=eps,
                weight_decay=weight_decay,
                initial_accumulator_value=initial_accumulator_value,
                foreach=foreach,
                maximize=maximize,
                differentiable=differentiable,
                fused=fused,
            ),
        )
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, self.state[p], group)

    @staticmethod
    def _init_state(p, st, group):
        st["step"] = host_scalar(0.0)
        st["sum"] = full_like(p, group["initial_accumulator_value"])

    def step(self, closure=None):
        """One Adagrad step over every group; returns the closure's loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads, (sums, steps) = self._gather(
                group, lambda p, st: self._init_state(p, st, group), ("sum", "step")
            )
            if params:
                adagrad(
                    params,
                    grads,
                    sums,
                    steps,
                    lr=group["lr"],
                    weight_decay=group["weight_decay"],
                    lr_decay=group["lr_decay"],
                    eps=group["eps"],
                    maximize=group["maximize"],
                )
        return loss


class Adadelta(Optimizer):
    r"""Adadelta (Zeiler): :math:`v_t = \rho v_{t-1} + (1-\rho) g_t^2`,
    :math:`\Delta_t = \sqrt{u_{t-1}+\epsilon}/\sqrt{v_t+\epsilon}\; g_t`,
    :math:`u_t = \rho u_{t-1} + (1-\rho)\Delta_t^2`, :math:`\theta_t = \theta_{t-1} -
    \gamma\Delta_t`. State: ``step``, ``square_avg``, ``acc_delta``."""

    def __init__(
        self,
        params,
        lr=1.0,
        rho=0.9,
        eps=1e-6,
        weight_decay=0,
        foreach=None,
        *,
        capturable=False,
        maximize=False,
        differentiable=False,
    ):
        _check("Adadelta", lr=lr, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise invalid("Adadelta", "rho value", rho, "0 <= rho <= 1")
        check_flags("Adadelta", differentiable)
        super().__init__(
            params,
            dict(
                lr=lr,
                rho=rho,
                eps=eps,
                weight_decay=weight_decay,
                maximize=maximize,
                capturable=capturable,
                foreach=foreach,
                differentiable=differentiable,
            ),
        )

    def step(self, closure=None):
        """One Adadelta step over every group; returns the closure's loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads, (v, u, steps) = self._gather(
                group, _init_adadelta, ("square_avg", "acc_delta", "step")
            )
            if params:
                adadelta(
                    params,
                    grads,
                    v,
                    u,
                    steps,
                    lr=group["lr"],
                    rho=group["rho"],
                    eps=group["eps"],
                    weight_decay=group["weight_decay"],
                    maximize=group["maximize"],
                )
        return loss


def _init_adadelta(p, st):
    st["step"] = host_scalar(0.0)
    st["square_avg"] = zeros_like(p)
    st["acc_delta"] = zeros_like(p)
