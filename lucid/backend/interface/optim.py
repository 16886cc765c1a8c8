r"""Optimizer kernels of the Backend interface: multi-tensor updates.

Each kernel updates a whole param group in one call: ``params`` and the state lists are
lists of arrays of this backend, updated **in place**; ``grads`` are read only (never
written). ``steps`` (and the other per-parameter scalar states: NAdam's ``mu_products``,
ASGD's ``etas``/``mus``) are 0-d float arrays, incremented or rewritten in place; the
update reads their values as Python floats (one host read per parameter, as PyTorch's
non-capturable path). Hyperparameters are Python floats, so the arithmetic stays in the
arrays' dtype.

In every kernel the effective gradient is :math:`g_t = \pm\nabla + \lambda\theta_{t-1}`
(the sign ``-`` with ``maximize``; the term :math:`\lambda\theta` with a coupled
``weight_decay`` :math:`\lambda`). The formulas, and the order of their operations, are
PyTorch's documented algorithms, so that trajectories agree step for step.
"""

from abc import ABC, abstractmethod


class OptimKernels(ABC):
    """Optimizer update kernels (lists of arrays of one backend, updated in place)."""

    @abstractmethod
    def sgd_step(
        self, params, grads, bufs, lr, momentum, dampening, weight_decay, nesterov, maximize
    ):
        r"""SGD: with momentum :math:`\mu`, :math:`b_t = \mu b_{t-1} + (1-\tau) g_t`
        (:math:`b_1 = g_1`), the direction is :math:`g_t + \mu b_t` (nesterov) or
        :math:`b_t`; :math:`\theta_t = \theta_{t-1} - \gamma\,d_t`. ``bufs`` holds ``None``
        for buffers not made yet; returns the list of buffers (new ones filled in)."""

    @abstractmethod
    def adam_step(
        self,
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        max_exp_avg_sqs,
        steps,
        lr,
        beta1,
        beta2,
        eps,
        weight_decay,
        amsgrad,
        maximize,
        decoupled,
    ):
        r"""Adam / AdamW: :math:`m_t = m + (1-\beta_1)(g_t - m)`,
        :math:`v_t = \beta_2 v + (1-\beta_2) g_t^2`, :math:`\hat v = \max(\hat v, v_t)` with
        amsgrad, :math:`\theta_t = \theta - \frac{\gamma}{1-\beta_1^t}\,
        \frac{m_t}{\sqrt{v_t}/\sqrt{1-\beta_2^t} + \epsilon}`. ``decoupled``: the decay
        is :math:`\theta \leftarrow \theta(1 - \gamma\lambda)` instead of a gradient term.
        ``max_exp_avg_sqs`` is None unless amsgrad."""

    @abstractmethod
    def adamax_step(
        self,
        params,
        grads,
        exp_avgs,
        exp_infs,
        steps,
        lr,
        beta1,
        beta2,
        eps,
        weight_decay,
        maximize,
    ):
        r"""Adamax: :math:`m_t = m + (1-\beta_1)(g_t - m)`,
        :math:`u_t = \max(\beta_2 u, |g_t| + \epsilon)`,
        :math:`\theta_t = \theta - \frac{\gamma}{1-\beta_1^t} \frac{m_t}{u_t}`."""

    @abstractmethod
    def nadam_step(
        self,
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        mu_products,
        steps,
        lr,
        beta1,
        beta2,
        eps,
        weight_decay,
        momentum_decay,
        maximize,
        decoupled,
    ):
        r"""NAdam: :math:`\mu_t = \beta_1(1 - \frac12 0.96^{t\psi})`,
        :math:`\Pi_t = \Pi_{t-1}\mu_t` (``mu_products``, in place), Adam's moments, and
        :math:`\theta_t = \theta - \gamma\frac{1-\mu_t}{1-\Pi_t}\frac{g_t}{d}
        - \gamma\frac{\mu_{t+1}}{1-\Pi_t\mu_{t+1}}\frac{m_t}{d}` with
        :math:`d = \sqrt{v_t/(1-\beta_2^t)} + \epsilon`."""

    @abstractmethod
    def radam_step(
        self,
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        steps,
        lr,
        beta1,
        beta2,
        eps,
        weight_decay,
        maximize,
        decoupled,
    ):
        r"""RAdam: Adam's moments; :math:`\rho_\infty = 2/(1-\beta_2) - 1`,
        :math:`\rho_t = \rho_\infty - 2t\beta_2^t/(1-\beta_2^t)`; if :math:`\rho_t > 5`,
        :math:`\theta_t = \theta - \gamma \hat m_t\, r_t\,
        \frac{\sqrt{1-\beta_2^t}}{\sqrt{v_t}+\epsilon}` with the rectification
        :math:`r_t = \sqrt{\frac{(\rho_t-4)(\rho_t-2)\rho_\infty}
        {(\rho_\infty-4)(\rho_\infty-2)\rho_t}}`, else :math:`\theta - \gamma\hat m_t`."""

    @abstractmethod
    def rmsprop_step(
        self,
        params,
        grads,
        square_avgs,
        grad_avgs,
        bufs,
        steps,
        lr,
        alpha,
        eps,
        weight_decay,
        momentum,
        centered,
        maximize,
    ):
        r"""RMSprop: :math:`v_t = \alpha v + (1-\alpha) g_t^2`; centered:
        :math:`\bar g_t = \bar g + (1-\alpha)(g_t - \bar g)`,
        :math:`\tilde v = v_t - \bar g_t^2`; :math:`d = \sqrt{\tilde v} + \epsilon`;
        momentum :math:`b_t = \mu b + g_t/d`, :math:`\theta - \gamma b_t`, else
        :math:`\theta - \gamma g_t/d`. ``grad_avgs``/``bufs`` are None when unused."""

    @abstractmethod
    def adagrad_step(
        self, params, grads, state_sums, steps, lr, lr_decay, eps, weight_decay, maximize
    ):
        r"""Adagrad: :math:`\tilde\gamma = \gamma/(1 + (t-1)\eta)`,
        :math:`s_t = s + g_t^2`, :math:`\theta_t = \theta - \tilde\gamma
        \frac{g_t}{\sqrt{s_t} + \epsilon}`."""

    @abstractmethod
    def adadelta_step(
        self, params, grads, square_avgs, acc_deltas, steps, lr, rho, eps, weight_decay, maximize
    ):
        r"""Adadelta: :math:`v_t = \rho v + (1-\rho) g_t^2`,
        :math:`\Delta_t = \frac{\sqrt{u + \epsilon}}{\sqrt{v_t + \epsilon}} g_t`,
        :math:`u_t = \rho u + (1-\rho)\Delta_t^2`, :math:`\theta_t = \theta - \gamma\Delta_t`."""

    @abstractmethod
    def asgd_step(
        self, params, grads, axs, etas, mus, steps, lr, lambd, alpha, t0, weight_decay, maximize
    ):
        r"""ASGD: :math:`\theta_t = \theta(1 - \lambda\eta) - \eta g_t`; the average
        :math:`a_t = a + \mu(\theta_t - a)` (:math:`a_t = \theta_t` when :math:`\mu = 1`);
        then :math:`\eta = \gamma/(1 + \lambda\gamma t)^\alpha`,
        :math:`\mu = 1/\max(1, t - t_0)` written into ``etas`` and ``mus``."""

    @abstractmethod
    def rprop_step(
        self,
        params,
        grads,
        prevs,
        step_sizes,
        steps,
        etaminus,
        etaplus,
        step_size_min,
        step_size_max,
        maximize,
    ):
        r"""Rprop: :math:`s = \operatorname{sign}(g_t g_{t-1})`; the step sizes are
        multiplied by :math:`\eta^+` where :math:`s > 0`, :math:`\eta^-` where
        :math:`s < 0` and clipped to ``[step_size_min, step_size_max]``; where
        :math:`s < 0` the gradient is taken as 0; :math:`\theta_t = \theta -
        \operatorname{sign}(g)\,\Delta` and ``prevs`` becomes that gradient."""
