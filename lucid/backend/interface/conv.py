"""Conv kernels of the Backend interface: convolution, im2col/col2im and pooling.

Layout: ``x`` is ``(N, C, *S)`` with ``n = len(S)`` spatial dims (1, 2 or 3); a weight is
``(C_out, C_in / groups, *K)``. ``padding`` is one ``(lo, hi)`` pair per spatial dim (so
the asymmetric ``"same"`` padding of even kernels and ceil-mode pooling are plain
paddings); ``stride`` and ``dilation`` are tuples of ``n`` ints. A window starts at
:math:`o\\,s - lo` and reads the positions :math:`o\\,s + k\\,d - lo`, :math:`0 \\le k < K`;
the output has :math:`O = \\lfloor (S + lo + hi - d (K - 1) - 1) / s \\rfloor + 1` positions.
A column array ("col") is ``(N, C, *K, *O)``: the window element ``k`` of output position
``o``; PyTorch's ``unfold`` layout ``(N, C \\prod K, \\prod O)`` is a reshape of it.
"""

from abc import ABC, abstractmethod


class ConvKernels(ABC):
    """Conv primitive kernels (arrays of one backend in and out)."""

    @abstractmethod
    def conv_forward(self, x, w, b, stride, padding, dilation, groups):
        r"""Cross-correlation :math:`y_{n,o,p} = b_o + \sum_{c \in G(o)} \sum_k
        w_{o,c,k}\, x_{n,c,p s + k d - lo}` (zeros outside ``x``), ``b`` None for no bias;
        ``groups`` splits the channels into independent blocks."""

    @abstractmethod
    def conv_backward_input(self, g, w, in_spatial, stride, padding, dilation, groups):
        r"""The adjoint of :meth:`conv_forward` in ``x`` (a transposed convolution):
        :math:`\partial x_{n,c,i} = \sum_{o,p,k:\, p s + k d - lo = i} w_{o,c,k}\, g_{n,o,p}`,
        of spatial shape ``in_spatial``."""

    @abstractmethod
    def conv_backward_weight(self, g, x, kernel, stride, padding, dilation, groups):
        r"""The adjoint of :meth:`conv_forward` in ``w``: :math:`\partial w_{o,c,k} =
        \sum_{n,p} g_{n,o,p}\, x_{n,c,p s + k d - lo}` for a kernel of shape ``kernel``."""

    @abstractmethod
    def channel_sum(self, g):
        r"""The sum over every axis but the channel axis 1 of ``g`` ``(N, C, *S)``,
        :math:`\sum_{n,p} g_{n,c,p}`, shape ``(C,)`` in ``g``'s dtype: a convolution's bias
        gradient."""

    @abstractmethod
    def im2col(self, x, kernel, stride, padding, dilation):
        r"""The columns :math:`\mathrm{col}_{n,c,k,o} = x_{n,c,o s + k d - lo}` (zeros in
        the padding), ``(N, C, *K, *O)``, contiguous."""

    @abstractmethod
    def col2im(self, col, in_spatial, stride, padding, dilation):
        r"""The adjoint of :meth:`im2col`: every column element added at its position,
        :math:`x_{n,c,i} = \sum_{k,o:\, o s + k d - lo = i} \mathrm{col}_{n,c,k,o}`, of
        spatial shape ``in_spatial`` (the padding dropped)."""

    @abstractmethod
    def max_pool(self, x, kernel, stride, padding, dilation):
        r"""``(values, argmax)``: :math:`y_{n,c,o} = \max_k x_{n,c,o s + k d - lo}` over
        the window (padding is :math:`-\infty`; NaN wins) and the kernel element ``k``
        (row-major over ``K``) of the first maximum, or of the last NaN (PyTorch's
        choice: its scan replaces the maximum by a greater or NaN element), int8 (int32
        for kernels of 128 elements or more)."""

    @abstractmethod
    def max_pool_indices(self, argmax, in_spatial, kernel, stride, padding, dilation):
        r"""The flat spatial index (row-major over ``S``, int64) in the input of each
        window's kernel element ``argmax`` (PyTorch's ``return_indices``)."""

    @abstractmethod
    def max_pool_backward(self, g, argmax, in_spatial, kernel, stride, padding, dilation):
        r"""The max-pool gradient: each :math:`g_{n,c,o}` put at its window's element
        ``argmax``, :math:`\partial x_{n,c,i} = \sum_{o,k:\, o s + k d - lo = i}
        [\mathrm{argmax}_o = k]\, g_{n,c,o}`, of spatial shape ``in_spatial``."""

    @abstractmethod
    def pool_scatter(self, g, indices, out_spatial, accumulate):
        r"""Zeros of spatial shape ``out_spatial`` with each :math:`g_{n,c,o}` put at flat
        spatial index ``indices[n, c, o]`` of its own ``(n, c)`` plane: added where
        ``accumulate`` (the max-pool gradient), written where not (max-unpool; equal
        indices then keep one of their values)."""

    @abstractmethod
    def pool_gather(self, x, indices):
        r""":math:`y_{n,c,o} = x_{n,c,\mathrm{indices}[n,c,o]}` with flat spatial indices
        (the adjoint of :meth:`pool_scatter`)."""

    @abstractmethod
    def avg_pool(self, x, kernel, stride, padding, divisor):
        r""":math:`y_{n,c,o} = \frac{1}{D_o} \sum_k x_{n,c,o s + k - lo}` (zero padding);
        ``divisor`` is :math:`D`, an array of shape ``O`` or a number."""

    @abstractmethod
    def avg_pool_backward(self, g, in_spatial, kernel, stride, padding, divisor):
        r"""The adjoint of :meth:`avg_pool`: each :math:`g_{n,c,o} / D_o` added over its
        window, of spatial shape ``in_spatial``."""

    @abstractmethod
    def pool_divisor(self, in_spatial, out_spatial, kernel, stride, padding, limit):
        r"""Average-pooling divisors, shape ``O``: the product over dims of the window
        length clipped to ``[-lo_j, S_j + limit_j)`` (``limit`` = the padding for PyTorch's
        ``count_include_pad``, zeros to count only input elements). Float64."""

    @abstractmethod
    def adaptive_windows(self, in_size, out_size):
        r"""The windows of adaptive pooling along one dim, an ``(out_size, K)`` int64
        array: window :math:`o` covers :math:`[\lfloor o L / O \rfloor,
        \lceil (o + 1) L / O \rceil)`, padded to the longest window :math:`K` by
        repeating its last index (harmless for a maximum)."""

    @abstractmethod
    def adaptive_max_pool(self, x, out_spatial):
        r"""``(values, indices)`` of adaptive max pooling (windows of
        :meth:`adaptive_windows` per dim), indices flat spatial, int64."""

    @abstractmethod
    def adaptive_avg_matrix(self, in_size, out_size, npdtype):
        r"""The ``(out_size, in_size)`` averaging matrix of adaptive average pooling along
        one dim: :math:`A_{o,i} = 1 / |W_o|` for :math:`i` in window :math:`W_o`, in
        ``npdtype`` (float32 for half types)."""
