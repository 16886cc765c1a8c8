"""Rprop, resilient backpropagation (class and functional update).

The class validates and holds the state; ``rprop`` hands the group's arrays to the
backend kernel ``rprop_step`` (:mod:`lucid.backend.interface.optim`). ``foreach`` and
``capturable`` are accepted and change nothing.
"""

from __future__ import annotations

from ..ops import full_like, zeros_like
from .optimizer import Optimizer, check_flags, host_scalar, invalid, run_kernel

__all__ = ["Rprop", "rprop"]


def rprop(
    params,
    grads,
    prevs,
    step_sizes,
    state_steps,
    *,
    step_size_min,
    step_size_max,
    etaminus,
    etaplus,
    maximize,
):
    """Functional Rprop; see :meth:`~lucid.backend.interface.optim.OptimKernels.rprop_step`."""
    run_kernel(
        "rprop_step",
        params,
        grads,
        prevs,
        step_sizes,
        state_steps,
        etaminus=float(etaminus),
        etaplus=float(etaplus),
        step_size_min=float(step_size_min),
        step_size_max=float(step_size_max),
        maximize=bool(maximize),
    )


class Rprop(Optimizer):
    r"""Rprop (Riedmiller & Braun): each coordinate's step size grows by
    :math:`\eta^+` while its gradient keeps its sign and shrinks by :math:`\eta^-` when
    the sign flips (that step is skipped), clipped to ``step_sizes``; the update is
    :math:`\theta_t = \theta_{t-1} - \operatorname{sign}(g_t)\,\Delta_t`, so only the
    sign of the gradient is used. State: ``step``, ``prev``, ``step_size`` (starting at
    ``lr``)."""

    def __init__(
        self,
        params,
        lr=1e-2,
        etas=(0.5, 1.2),
        step_sizes=(1e-6, 50),
        *,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        if not 0.0 <= lr:
            raise invalid("Rprop", "learning rate", lr, "lr >= 0")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise invalid("Rprop", "eta values", etas, "0 < etaminus < 1 < etaplus")
        check_flags("Rprop", differentiable)
        super().__init__(
            params,
            dict(
                lr=lr,
                etas=etas,
                step_sizes=step_sizes,
                foreach=foreach,
                maximize=maximize,
                differentiable=differentiable,
                capturable=capturable,
            ),
        )

    def step(self, closure=None):
        """One Rprop step over every group; returns the closure's loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = group["lr"]

            def init(p, st):
                st["step"] = host_scalar(0.0)
                st["prev"] = zeros_like(p)
                st["step_size"] = full_like(p, complex(lr, lr) if p._dtype.is_complex else lr)

            params, grads, (prevs, sizes, steps) = self._gather(
                group, init, ("prev", "step_size", "step")
            )
            if params:
                (etaminus, etaplus), (lo, hi) = group["etas"], group["step_sizes"]
                rprop(
                    params,
                    grads,
                    prevs,
                    sizes,
                    steps,
                    step_size_min=lo,
                    step_size_max=hi,
                    etaminus=etaminus,
                    etaplus=etaplus,
                    maximize=group["maximize"],
                )
        return loss
