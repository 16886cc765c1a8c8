"""Activation and loss kernels of the Backend interface.

The fused activations (GELU, SiLU) and the class-index losses (cross-entropy, NLL) have one
kernel per direction. Class-index losses take the input with the class axis at 1
(``(N, C, d1, ...)``), the integer ``target`` of shape ``(N, d1, ...)``, an optional
per-class ``weight`` of shape ``(C,)`` (None: all ones), an ``ignore_index`` whose elements
contribute nothing, and a ``reduction`` of ``"none"``, ``"sum"`` or ``"mean"`` (the sum
divided by :math:`W = \\sum_n w_{y_n}` over the elements not ignored, as PyTorch). Half
inputs compute in float32 and round back.
"""

from abc import ABC, abstractmethod


class LossKernels(ABC):
    """Activation and loss primitive kernels (arrays of one backend in and out)."""

    # -- fused activations ---------------------------------------------------------------

    @abstractmethod
    def gelu(self, a, approximate):
        r"""Element-wise GELU. ``approximate="none"``:
        :math:`\frac{x}{2}\big(1 + \mathrm{erf}(x/\sqrt2)\big)`; ``"tanh"``:
        :math:`\frac{x}{2}\big(1 + \tanh u\big)`, :math:`u = \sqrt{2/\pi}\,(x + 0.044715
        x^3)`."""

    @abstractmethod
    def gelu_backward(self, a, g, approximate):
        r""":math:`g\,\mathrm{GELU}'(a)`: for ``"none"``, :math:`\Phi(a) + a\,\varphi(a)`
        (normal cdf and pdf); for ``"tanh"``, :math:`\frac12(1 + t) + \frac{a}{2}(1 - t^2)
        \sqrt{2/\pi}\,(1 + 3 \cdot 0.044715\, a^2)` with :math:`t = \tanh u`."""

    @abstractmethod
    def silu(self, a):
        r"""Element-wise :math:`x\,\sigma(x)`."""

    @abstractmethod
    def silu_backward(self, a, g):
        r""":math:`g\,\sigma(a)\big(1 + a\,(1 - \sigma(a))\big)`."""

    @abstractmethod
    def check_range(self, a, low, high, message):
        """Raise :class:`~lucid.errors.ArgumentError` with ``message`` unless every element
        of ``a`` lies in ``[low, high]`` (nan fails): the input checks of the losses
        (probabilities in :math:`[0, 1]`, non-negative variances), a backend concern so
        that a GPU backend can check on the device (raising at the next host read) instead
        of reading ``a`` back."""

    # -- class-index losses --------------------------------------------------------------

    @abstractmethod
    def nll_target_weights(self, target, weight, num_classes, ignore_index, npdtype):
        r"""``(w_t, t_safe)``: the weight :math:`w_{y_n}` of each target's class (1 without
        ``weight``; 0 where the target is ``ignore_index``), in ``npdtype``, and the target
        with ignored elements replaced by class 0 (safe to gather with). Raises
        :class:`~lucid.errors.IndexingError` when a target that is not ignored lies outside
        ``[0, num_classes)``."""

    @abstractmethod
    def class_onehot(self, target, num_classes, npdtype):
        r"""The one-hot encoding of the integer ``target`` ``(N, d1, ...)`` along a new axis
        1 of length ``num_classes``, in ``npdtype`` (targets outside the range give a zero
        row)."""

    @abstractmethod
    def cross_entropy(self, a, target, weight, ignore_index, reduction, label_smoothing):
        r"""``(loss, lse)``: cross-entropy of the logits ``a`` ``(N, C, ...)`` against the
        class indices ``target``, and the log-sum-exp of ``a`` over the classes
        (``(N, ...)``, kept for the backward).

        .. math:: \ell_n = -\sum_c q_{nc} \log p_{nc}, \quad
                  p = \mathrm{softmax}(a), \quad
                  q_{nc} = (1 - \varepsilon)\, w_{y_n} [c = y_n]
                  + \tfrac{\varepsilon}{C} w_c

        with :math:`\varepsilon` = ``label_smoothing`` and :math:`q_n = 0` where
        :math:`y_n` is ``ignore_index``; reduced by ``reduction`` (``"mean"`` divides by
        :math:`W = \sum_n w_{y_n}`)."""

    @abstractmethod
    def cross_entropy_backward(
        self, a, lse, g, target, weight, ignore_index, reduction, label_smoothing
    ):
        r""":math:`s_n \big(p_n \sum_c q_{nc} - q_n\big)`, the gradient to the logits, with
        :math:`p = e^{a - \mathrm{lse}}` and :math:`s_n` = ``g`` (``"none"``, per element),
        ``g`` (``"sum"``) or ``g / W`` (``"mean"``; 0 where :math:`W = 0`), without
        materialising :math:`q`."""

    @abstractmethod
    def nll_loss(self, a, target, weight, ignore_index, reduction):
        r"""Negative log-likelihood of the log-probabilities ``a`` ``(N, C, ...)``:
        :math:`\ell_n = -w_{y_n} a_{n, y_n}` (0 where ignored), reduced by
        ``reduction``."""

    @abstractmethod
    def nll_loss_backward(self, g, target, weight, ignore_index, reduction, shape):
        r"""The gradient to the input of :meth:`nll_loss` (shape ``shape``):
        :math:`-s_n w_{y_n}` at :math:`(n, y_n)`, 0 elsewhere, with :math:`s_n` as in
        :meth:`cross_entropy_backward`."""
