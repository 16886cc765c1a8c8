"""Stochastic gradient descent: SGD (momentum, Nesterov) and ASGD (averaged SGD).

The classes validate and hold the state; ``sgd`` and ``asgd`` hand the group's arrays to
the backend kernels ``sgd_step`` / ``asgd_step`` (:mod:`lucid.backend.interface.optim`).
``foreach``, ``fused`` and ``capturable`` are accepted and change nothing (one
implementation, the multi-tensor kernel).
"""

from __future__ import annotations

from .._tensor import Tensor
from ..ops import zeros_like
from .optimizer import Optimizer, check_flags, host_scalar, invalid, run_kernel

__all__ = ["SGD", "ASGD", "sgd", "asgd"]


def sgd(
    params,
    grads,
    momentum_buffer_list,
    *,
    weight_decay,
    momentum,
    lr,
    dampening,
    nesterov,
    maximize,
):
    """Functional SGD over lists of Tensors (updated in place); ``momentum_buffer_list``
    entries that are None are filled with the new buffers. See
    :meth:`~lucid.backend.interface.optim.OptimKernels.sgd_step`."""
    bufs = run_kernel(
        "sgd_step",
        params,
        grads,
        momentum_buffer_list,
        lr=float(lr),
        momentum=float(momentum),
        dampening=float(dampening),
        weight_decay=float(weight_decay),
        nesterov=bool(nesterov),
        maximize=bool(maximize),
    )
    if momentum:
        for i, b in enumerate(bufs):
            if momentum_buffer_list[i] is None:
                p = params[i]
                momentum_buffer_list[i] = Tensor._wrap(b, p._dtype, p._device)


def asgd(
    params, grads, axs, mus, etas, state_steps, *, lambd, lr, t0, alpha, weight_decay, maximize
):
    """Functional ASGD; see :meth:`~lucid.backend.interface.optim.OptimKernels.asgd_step`."""
    run_kernel(
        "asgd_step",
        params,
        grads,
        axs,
        etas,
        mus,
        state_steps,
        lr=float(lr),
        lambd=float(lambd),
        alpha=float(alpha),
        t0=float(t0),
        weight_decay=float(weight_decay),
        maximize=bool(maximize),
    )


class SGD(Optimizer):
    r"""Stochastic gradient descent, optionally with momentum (heavy-ball or Nesterov).

    :math:`b_t = \mu b_{t-1} + (1-\tau) g_t` (:math:`b_1 = g_1`), direction
    :math:`g_t + \mu b_t` (``nesterov``) or :math:`b_t`, :math:`\theta_t = \theta_{t-1} -
    \gamma d_t`; :math:`g_t` includes ``weight_decay`` :math:`\lambda\theta` and the sign of
    ``maximize``. State: ``momentum_buffer`` (only with momentum).
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        momentum=0,
        dampening=0,
        weight_decay=0,
        nesterov=False,
        *,
        maximize=False,
        foreach=None,
        differentiable=False,
        fused=None,
    ):
        if not 0.0 <= lr:
            raise invalid("SGD", "learning rate", lr, "lr >= 0")
        if not 0.0 <= momentum:
            raise invalid("SGD", "momentum value", momentum, "momentum >= 0")
        if not 0.0 <= weight_decay:
            raise invalid("SGD", "weight_decay value", weight_decay, "weight_decay >= 0")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise invalid(
                "SGD",
                "nesterov setting",
                (momentum, dampening),
                "Nesterov momentum requires a momentum and zero dampening",
            )
        check_flags("SGD", differentiable)
        super().__init__(
            params,
            dict(
                lr=lr,
                momentum=momentum,
                dampening=dampening,
                weight_decay=weight_decay,
                nesterov=nesterov,
                maximize=maximize,
                foreach=foreach,
                differentiable=differentiable,
                fused=fused,
            ),
        )

    def step(self, closure=None):
        """One SGD step over every group; returns the closure's loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads, (bufs,) = self._gather(group, _no_init, ("momentum_buffer",))
            if not params:
                continue
            momentum = group["momentum"]
            sgd(
                params,
                grads,
                bufs,
                weight_decay=group["weight_decay"],
                momentum=momentum,
                lr=group["lr"],
                dampening=group["dampening"],
                nesterov=group["nesterov"],
                maximize=group["maximize"],
            )
            if momentum:
                for p, b in zip(params, bufs):
                    self.state[p]["momentum_buffer"] = b
        return loss


def _no_init(p, st):
    """SGD keeps no state until it has a momentum buffer."""


class ASGD(Optimizer):
    r"""Averaged SGD (Polyak & Juditsky): :math:`\theta_t = \theta_{t-1}(1-\lambda\eta_t)
    - \eta_t g_t`, the average :math:`a_t = a_{t-1} + \mu_t(\theta_t - a_{t-1})`, with
    :math:`\eta_t = \gamma/(1+\lambda\gamma t)^\alpha` and :math:`\mu_t = 1/\max(1, t -
    t_0)`. State: ``step``, ``eta``, ``mu``, ``ax`` (the average)."""

    def __init__(
        self,
        params,
        lr=1e-2,
        lambd=1e-4,
        alpha=0.75,
        t0=1e6,
        weight_decay=0,
        foreach=None,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        if not 0.0 <= lr:
            raise invalid("ASGD", "learning rate", lr, "lr >= 0")
        if not 0.0 <= weight_decay:
            raise invalid("ASGD", "weight_decay value", weight_decay, "weight_decay >= 0")
        check_flags("ASGD", differentiable)
        super().__init__(
            params,
            dict(
                lr=lr,
                lambd=lambd,
                alpha=alpha,
                t0=t0,
                weight_decay=weight_decay,
                foreach=foreach,
                maximize=maximize,
                differentiable=differentiable,
                capturable=capturable,
            ),
        )

    def step(self, closure=None):
        """One ASGD step over every group; returns the closure's loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = group["lr"]

            def init(p, st):
                st["step"] = host_scalar(0.0)
                st["eta"] = host_scalar(lr)
                st["mu"] = host_scalar(1.0)
                st["ax"] = zeros_like(p)

            params, grads, (axs, mus, etas, steps) = self._gather(
                group, init, ("ax", "mu", "eta", "step")
            )
            if params:
                asgd(
                    params,
                    grads,
                    axs,
                    mus,
                    etas,
                    steps,
                    lambd=group["lambd"],
                    lr=lr,
                    t0=group["t0"],
                    alpha=group["alpha"],
                    weight_decay=group["weight_decay"],
                    maximize=group["maximize"],
                )
        return loss
