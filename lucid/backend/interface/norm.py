"""Norm, dropout and embedding kernels of the Backend interface.

Normalisation kernels work on any layout: the statistics are taken over the tuple of
non-negative ``axes`` (kept as size-1 dims so they broadcast against the input), and the
affine ``w``, ``b`` (or ``None``) are already shaped to broadcast against the input; the
gradients of ``w`` and ``b`` are summed over ``paxes`` (the dims where they broadcast),
kept as size 1. Batch norm takes ``axes = paxes = (0, 2, 3, ...)``, layer norm the
trailing dims and ``paxes`` the leading ones, group norm the same on an
``(N, G, C/G, S)`` view. Half-precision inputs compute in float32; the statistics stay
float32 and the outputs are cast back to the input dtype.
"""

from abc import ABC, abstractmethod


class NormKernels(ABC):
    """Norm, dropout and embedding primitive kernels (arrays of one backend in and out)."""

    # -- normalisation ---------------------------------------------------------------

    @abstractmethod
    def norm_moments(self, x, axes, center):
        r"""``(mean, var)`` over ``axes`` (kept): :math:`\mu = \frac1n \sum x_i` and the
        biased :math:`\sigma^2 = \frac1n \sum (x_i - \mu)^2`; without ``center`` the mean
        is ``None`` and ``var`` the mean square :math:`\frac1n \sum x_i^2` (RMS norm)."""

    @abstractmethod
    def norm_normalize(self, x, mean, var, w, b, eps):
        r"""``(y, rstd)``: :math:`r = 1/\sqrt{\sigma^2 + \epsilon}`,
        :math:`y = (x - \mu)\, r\, w + b` (``mean`` None: no centring; ``w``/``b`` None:
        omitted). ``mean``/``var`` broadcast against ``x`` (batch or running
        statistics)."""

    @abstractmethod
    def norm_forward(self, x, axes, center, w, b, eps):
        r"""``(y, mean, rstd)``: :meth:`norm_moments` then :meth:`norm_normalize` with the
        statistics of ``x`` (one fused kernel where a backend has one); ``mean`` is None
        without ``center``."""

    @abstractmethod
    def norm_backward(self, g, x, w, mean, rstd, axes, paxes, eps, stats_grad, need):
        r"""``(gx, gw, gb)`` of :meth:`norm_normalize` (``None`` where ``need[i]`` is
        false), with :math:`\hat x = (x - \mu) r`, :math:`\hat g = g w`, means over
        ``axes``:

        .. math:: g_x = r\big(\hat g - \overline{\hat g} - \hat x\,
                  \overline{\hat g \hat x}\big), \quad
                  g_w = \textstyle\sum_{paxes} g \hat x, \quad g_b = \sum_{paxes} g

        when the statistics came from ``x`` (``stats_grad``; the :math:`\overline{\hat g}`
        term only with a mean), else :math:`g_x = r \hat g` (running statistics are
        constants). ``eps`` is the forward's: this kernel reads the saved ``mean`` and
        ``rstd``, a graph-mode form recomputes them from ``x`` with it."""

    @abstractmethod
    def norm_train(self, x, axes, w, b, eps, running_mean, running_var, momentum):
        r"""``(y, mean, rstd)`` of a norm whose statistics come from ``x`` and update
        running ones (batch and instance norm in training): :meth:`norm_moments`, then
        :meth:`running_stats_update` with the ``n`` elements of a statistic, then
        :meth:`norm_normalize` (one kernel where a backend has one)."""

    @abstractmethod
    def running_stats_update(self, running_mean, running_var, mean, var, momentum, n):
        r"""In place :math:`R \leftarrow (1 - m) R + m\,s` for the running mean (``s`` the
        batch mean) and variance (``s`` the unbiased :math:`\sigma^2 \frac{n}{n - 1}`);
        ``mean``/``var`` are reshaped to ``(-1, C)`` and averaged over their first dim
        (instance norm's per-sample statistics). Either running array may be None."""

    # -- dropout ---------------------------------------------------------------------

    @abstractmethod
    def dropout_noise(self, rng, shape, p, alpha, npdtype):
        r"""``(mask, shift)`` of shape ``shape`` drawn from ``rng``: keep
        :math:`k \sim \mathrm{Bernoulli}(1 - p)`. Plain dropout (``alpha`` False):
        :math:`mask = k / (1 - p)`, ``shift`` None. Alpha dropout, with
        :math:`\alpha' = 1.7580993408473766` and
        :math:`a = ((\alpha'^2 p + 1)(1 - p))^{-1/2}`: :math:`mask = a k`,
        :math:`shift = a \alpha' (k - 1 + p)`, so that :math:`y = x \cdot mask + shift`
        keeps zero mean and unit variance for SELU activations. ``p = 1``: a zero mask and
        no shift (the output is 0, as PyTorch)."""

    @abstractmethod
    def dropout_forward(self, rng, x, p, noise_shape):
        r"""``(y, key)`` of plain dropout :math:`y = x \cdot mask`, the mask of
        :meth:`dropout_noise` of shape ``noise_shape`` (``x``'s, or one broadcasting to it)
        drawn from ``rng``. ``key`` is what :meth:`dropout_backward` needs to apply the
        same mask again: the mask itself, or what regenerates it (a counter-based
        generator's seed and counter), so a backend need not keep the mask."""

    @abstractmethod
    def dropout_backward(self, g, key):
        r""":math:`g \cdot mask` for the mask behind ``key``: a :meth:`dropout_forward` key,
        or a mask of :meth:`dropout_noise` (alpha dropout)."""

    # -- embeddings ------------------------------------------------------------------

    @abstractmethod
    def embedding(self, weight, idx):
        """The rows ``weight[idx]``: shape ``idx.shape + weight.shape[1:]``."""

    @abstractmethod
    def embedding_backward(self, g, idx, num_weights, padding_idx, scale_grad_by_freq):
        r"""The weight gradient :math:`G_r = \sum_{i : idx_i = r} s_i\, g_i` (zeros of
        ``(num_weights, D)`` scattered into); :math:`s_i = 1 / \#\{j: idx_j = idx_i\}`
        with ``scale_grad_by_freq``, else 1; row ``padding_idx`` (non-negative, or None)
        stays 0."""

    @abstractmethod
    def embedding_bag(self, weight, idx, bag, num_bags, mode, psw):
        r"""``(out, aux)``: row :math:`b` of the ``(num_bags, D)`` ``out`` reduces the rows
        :math:`w_{idx_i}` of the entries with :math:`bag_i = b` (entries with
        :math:`bag_i = -1` are left out): ``"sum"`` :math:`\sum_i s_i w_{idx_i}` (``s`` the
        per-sample weights ``psw``, or 1), ``"mean"`` the sum over the bag's size
        (``aux`` the sizes, float), ``"max"`` the element-wise maximum (``aux`` the int64
        ``(num_bags, D)`` weight row of each maximum, -1 for an empty bag). An empty bag
        gives zeros."""

    @abstractmethod
    def embedding_bag_backward(
        self, g, weight, idx, bag, num_weights, mode, psw, aux, scale_grad_by_freq, need
    ):
        r"""``(gw, gpsw)`` of :meth:`embedding_bag` (``None`` where ``need[i]`` is false):
        :math:`G_r = \sum_{i : idx_i = r} c_i\, g_{bag_i}` with :math:`c_i` = ``psw_i``
        (sum), :math:`1/|bag_i|` (mean), times :math:`1/\#\{j : idx_j = idx_i\}` with
        ``scale_grad_by_freq``; for max each :math:`g_{b,d}` goes to the row ``aux[b, d]``;
        :math:`\partial \mathcal{L}/\partial s_i = g_{bag_i} \cdot w_{idx_i}` (0 for a left
        out entry). ``weight`` is read only for ``gpsw`` (None otherwise)."""

    @abstractmethod
    def embedding_renorm_(self, weight, idx, max_norm, norm_type):
        r"""In place: each distinct row :math:`r` of ``idx`` whose
        :math:`\|w_r\|_p > max\_norm` is scaled by :math:`max\_norm / (\|w_r\|_p + 10^{-7})`."""
