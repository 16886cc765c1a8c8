"""The Adam family: Adam, AdamW, Adamax, NAdam, RAdam (classes and functional updates).

Each class validates its options and holds the state; its functional update (``adam``,
``adamax``, ``nadam``, ``radam``) hands the group's arrays to one backend kernel
(``adam_step``, ... in :mod:`lucid.backend.interface.optim`, where the math is).
``foreach`` and ``fused`` are accepted for PyTorch compatibility and change nothing: there
is one implementation, the multi-tensor kernel. The step counters are host scalars, except
for Adam and AdamW with ``capturable=True`` (parameters on a GPU): there each count is a
float32 tensor on its parameter's device, read and advanced by the kernels, so that the
step can be captured in a CUDA graph (``lucid.cuda.graph``) and replayed. ``capturable``
changes nothing for the others.
"""

from __future__ import annotations

from ..dtypes import float32
from ..errors import ArgumentError
from ..ops import full, zeros_like
from .optimizer import Optimizer, check_flags, host_scalar, invalid, run_kernel

__all__ = ["Adam", "AdamW", "Adamax", "NAdam", "RAdam", "adam", "adamax", "nadam", "radam"]


def _check_adam(opt, lr, betas, eps, weight_decay):
    if not 0.0 <= lr:
        raise invalid(opt, "learning rate", lr, "lr >= 0")
    if not 0.0 <= eps:
        raise invalid(opt, "epsilon value", eps, "eps >= 0")
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise invalid(opt, f"beta parameter at index {i}", betas[i], "0 <= beta < 1")
    if not 0.0 <= weight_decay:
        raise invalid(opt, "weight_decay value", weight_decay, "weight_decay >= 0")


def adam(
    params,
    grads,
    exp_avgs,
    exp_avg_sqs,
    max_exp_avg_sqs,
    state_steps,
    *,
    amsgrad,
    beta1,
    beta2,
    lr,
    weight_decay,
    eps,
    maximize,
    decoupled_weight_decay=False,
):
    """Functional Adam / AdamW over lists of Tensors (updated in place); see
    :meth:`~lucid.backend.interface.optim.OptimKernels.adam_step`."""
    run_kernel(
        "adam_step",
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        max_exp_avg_sqs if amsgrad else None,
        state_steps,
        lr=float(lr),
        beta1=float(beta1),
        beta2=float(beta2),
        eps=float(eps),
        weight_decay=float(weight_decay),
        amsgrad=bool(amsgrad),
        maximize=bool(maximize),
        decoupled=bool(decoupled_weight_decay),
    )


def adamax(
    params, grads, exp_avgs, exp_infs, state_steps, *, eps, beta1, beta2, lr, weight_decay, maximize
):
    """Functional Adamax; see :meth:`~lucid.backend.interface.optim.OptimKernels.adamax_step`."""
    run_kernel(
        "adamax_step",
        params,
        grads,
        exp_avgs,
        exp_infs,
        state_steps,
        lr=float(lr),
        beta1=float(beta1),
        beta2=float(beta2),
        eps=float(eps),
        weight_decay=float(weight_decay),
        maximize=bool(maximize),
    )


def nadam(
    params,
    grads,
    exp_avgs,
    exp_avg_sqs,
    mu_products,
    state_steps,
    *,
    beta1,
    beta2,
    lr,
    weight_decay,
    momentum_decay,
    eps,
    maximize,
    decoupled_weight_decay=False,
):
    """Functional NAdam; see :meth:`~lucid.backend.interface.optim.OptimKernels.nadam_step`."""
    run_kernel(
        "nadam_step",
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        mu_products,
        state_steps,
        lr=float(lr),
        beta1=float(beta1),
        beta2=float(beta2),
        eps=float(eps),
        weight_decay=float(weight_decay),
        momentum_decay=float(momentum_decay),
        maximize=bool(maximize),
        decoupled=bool(decoupled_weight_decay),
    )


def radam(
    params,
    grads,
    exp_avgs,
    exp_avg_sqs,
    state_steps,
    *,
    beta1,
    beta2,
    lr,
    weight_decay,
    eps,
    maximize,
    decoupled_weight_decay=False,
):
    """Functional RAdam; see :meth:`~lucid.backend.interface.optim.OptimKernels.radam_step`."""
    run_kernel(
        "radam_step",
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        state_steps,
        lr=float(lr),
        beta1=float(beta1),
        beta2=float(beta2),
        eps=float(eps),
        weight_decay=float(weight_decay),
        maximize=bool(maximize),
        decoupled=bool(decoupled_weight_decay),
    )


def _capturable(opt):
    """``lucid.compile(mode="reduce-overhead")`` on a GPU: count the steps of every group
    whose parameters are all on CUDA on the device (``capturable=True``, the counts moved
    there), so that a CUDA graph can replay the update."""
    for g in opt.param_groups:
        if g["capturable"] or not all(p._device.type == "cuda" for p in g["params"]):
            continue
        g["capturable"] = True
        for p in g["params"]:
            st = opt.state.get(p)
            if st and "step" in st and st["step"]._device.type != "cuda":
                st["step"] = full((), st["step"].item(), dtype=float32, device=p._device)


class Adam(Optimizer):
    r"""Adam (Kingma & Ba), with AMSGrad and decoupled weight decay as options.

    :math:`m_t = \beta_1 m_{t-1} + (1-\beta_1) g_t`, :math:`v_t = \beta_2 v_{t-1} +
    (1-\beta_2) g_t^2`, :math:`\theta_t = \theta_{t-1} - \gamma \hat m_t / (\sqrt{\hat v_t}
    + \epsilon)` with the bias corrections :math:`\hat m_t = m_t/(1-\beta_1^t)`,
    :math:`\hat v_t = v_t/(1-\beta_2^t)` (``amsgrad``: the running maximum of :math:`v_t`).
    State per parameter: ``step``, ``exp_avg``, ``exp_avg_sq`` (and ``max_exp_avg_sq``).
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
        decoupled_weight_decay=False,
    ):
        name = type(self).__name__
        _check_adam(name, lr, betas, eps, weight_decay)
        check_flags(name, differentiable)
        super().__init__(
            params,
            dict(
                lr=lr,
                betas=betas,
                eps=eps,
                weight_decay=weight_decay,
                amsgrad=amsgrad,
                maximize=maximize,
                foreach=foreach,
                capturable=capturable,
                differentiable=differentiable,
                fused=fused,
                decoupled_weight_decay=decoupled_weight_decay,
            ),
        )

    _compile_for_cudagraphs = _capturable

    def step(self, closure=None):
        """One Adam step over every group; returns the closure's loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            amsgrad, capturable = group["amsgrad"], group["capturable"]

            def init(p, st):
                st["step"] = _device_step(p) if capturable else host_scalar(0.0)
                st["exp_avg"] = zeros_like(p)
                st["exp_avg_sq"] = zeros_like(p)
                if amsgrad:
                    st["max_exp_avg_sq"] = zeros_like(p)

            params, grads, (m, v, vmax, steps) = self._gather(
                group, init, ("exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step")
            )
            if params:
                beta1, beta2 = group["betas"]
                adam(
                    params,
                    grads,
                    m,
                    v,
                    vmax,
                    steps,
                    amsgrad=amsgrad,
                    beta1=beta1,
                    beta2=beta2,
                    lr=group["lr"],
                    weight_decay=group["weight_decay"],
                    eps=group["eps"],
                    maximize=group["maximize"],
                    decoupled_weight_decay=group["decoupled_weight_decay"],
                )
        return loss


def _device_step(p):
    """A capturable Adam's first step count for parameter ``p``: a 0-d float32 zero on its
    device. (A loaded state dict keeps its counts where they are, and its groups their
    ``capturable``, as in PyTorch; the kernels take either.)"""
    if p._device.type != "cuda":
        raise ArgumentError(
            f"Adam: capturable=True needs parameters on a CUDA device, got one on {p._device}"
        )
    return full((), 0.0, dtype=float32, device=p._device)


class AdamW(Adam):
    r"""Adam with decoupled weight decay (Loshchilov & Hutter): the decay
    :math:`\theta \leftarrow \theta(1-\gamma\lambda)` is applied to the parameters, not
    added to the gradient; ``weight_decay`` defaults to 0.01."""

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=1e-2,
        amsgrad=False,
        *,
        maximize=False,
        foreach=None,
        capturable=False,
        differentiable=False,
        fused=None,
    ):
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )


class Adamax(Optimizer):
    r"""Adamax, Adam over the infinity norm: :math:`u_t = \max(\beta_2 u_{t-1},
    |g_t| + \epsilon)`, :math:`\theta_t = \theta_{t-1} - \frac{\gamma}{1-\beta_1^t}
    \frac{m_t}{u_t}`. State: ``step``, ``exp_avg``, ``exp_inf``."""

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        _check_adam("Adamax", lr, betas, eps, weight_decay)
        check_flags("Adamax", differentiable)
        super().__init__(
            params,
            dict(
                lr=lr,
                betas=betas,
                eps=eps,
                weight_decay=weight_decay,
                foreach=foreach,
                maximize=maximize,
                differentiable=differentiable,
                capturable=capturable,
            ),
        )

    def step(self, closure=None):
        """One Adamax step over every group; returns the closure's loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads, (m, u, steps) = self._gather(
                group, _init_moments("exp_inf"), ("exp_avg", "exp_inf", "step")
            )
            if params:
                beta1, beta2 = group["betas"]
                adamax(
                    params,
                    grads,
                    m,
                    u,
                    steps,
                    eps=group["eps"],
                    beta1=beta1,
                    beta2=beta2,
                    lr=group["lr"],
                    weight_decay=group["weight_decay"],
                    maximize=group["maximize"],
                )
        return loss


class NAdam(Optimizer):
    r"""NAdam (Dozat): Adam with Nesterov momentum, the momentum schedule
    :math:`\mu_t = \beta_1(1 - \frac12 0.96^{t\psi})` (``momentum_decay`` :math:`\psi`)
    and its running product :math:`\Pi_t` (state ``mu_product``);
    ``decoupled_weight_decay`` gives NAdamW. State: ``step``, ``mu_product``, ``exp_avg``,
    ``exp_avg_sq``."""

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        momentum_decay=4e-3,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ):
        _check_adam("NAdam", lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise invalid("NAdam", "momentum_decay value", momentum_decay, "momentum_decay >= 0")
        check_flags("NAdam", differentiable)
        super().__init__(
            params,
            dict(
                lr=lr,
                betas=betas,
                eps=eps,
                weight_decay=weight_decay,
                momentum_decay=momentum_decay,
                decoupled_weight_decay=decoupled_weight_decay,
                maximize=maximize,
                foreach=foreach,
                capturable=capturable,
                differentiable=differentiable,
            ),
        )

    def step(self, closure=None):
        """One NAdam step over every group; returns the closure's loss."""
        loss = self._closure_loss(closure)

        def init(p, st):
            st["step"] = host_scalar(0.0)
            st["mu_product"] = host_scalar(1.0)
            st["exp_avg"] = zeros_like(p)
            st["exp_avg_sq"] = zeros_like(p)

        for group in self.param_groups:
            params, grads, (m, v, mp, steps) = self._gather(
                group, init, ("exp_avg", "exp_avg_sq", "mu_product", "step")
            )
            if params:
                beta1, beta2 = group["betas"]
                nadam(
                    params,
                    grads,
                    m,
                    v,
                    mp,
                    steps,
                    beta1=beta1,
                    beta2=beta2,
                    lr=group["lr"],
                    weight_decay=group["weight_decay"],
                    momentum_decay=group["momentum_decay"],
                    eps=group["eps"],
                    maximize=group["maximize"],
                    decoupled_weight_decay=group["decoupled_weight_decay"],
                )
        return loss


class RAdam(Optimizer):
    r"""RAdam (Liu et al.): Adam whose adaptive term is switched on, rectified, once the
    variance of the adaptive learning rate is tractable (:math:`\rho_t > 5`);
    ``decoupled_weight_decay`` gives RAdamW. State: ``step``, ``exp_avg``,
    ``exp_avg_sq``."""

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ):
        _check_adam("RAdam", lr, betas, eps, weight_decay)
        check_flags("RAdam", differentiable)
        super().__init__(
            params,
            dict(
                lr=lr,
                betas=betas,
                eps=eps,
                weight_decay=weight_decay,
                maximize=maximize,
                foreach=foreach,
                capturable=capturable,
                decoupled_weight_decay=decoupled_weight_decay,
                differentiable=differentiable,
            ),
        )

    def step(self, closure=None):
        """One RAdam step over every group; returns the closure's loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads, (m, v, steps) = self._gather(
                group, _init_moments("exp_avg_sq"), ("exp_avg", "exp_avg_sq", "step")
            )
            if params:
                beta1, beta2 = group["betas"]
                radam(
                    params,
                    grads,
                    m,
                    v,
                    steps,
                    beta1=beta1,
                    beta2=beta2,
                    lr=group["lr"],
                    weight_decay=group["weight_decay"],
                    eps=group["eps"],
                    maximize=group["maximize"],
                    decoupled_weight_decay=group["decoupled_weight_decay"],
                )
        return loss


def _init_moments(second):
    """State init of ``step``, ``exp_avg`` and the second moment named ``second``."""

    def init(p, st):
        st["step"] = host_scalar(0.0)
        st["exp_avg"] = zeros_like(p)
        st[second] = zeros_like(p)

    return init
