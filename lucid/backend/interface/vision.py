"""Vision kernels of the Backend interface: resampling (interpolate) and grid sampling.

Arrays are channel-first: ``x`` is ``(N, C, *spatial)`` with one, two or three spatial
axes. Resampling is separable: along each spatial axis the output is a fixed linear map of
the input line, :math:`y_j = \\sum_i W_{ji} x_i`, whose matrix :math:`W` (``n_out x n_in``)
depends only on the sizes, the mode, ``align_corners`` and the scale; the backward is
:math:`W^\\top` along each axis. Half-precision arrays compute in float32 and come back in
their own dtype.
"""

from abc import ABC, abstractmethod


class VisionKernels(ABC):
    """Vision primitive kernels (arrays of one backend in and out)."""

    @abstractmethod
    def interpolate(self, x, size, mode, align_corners, scales):
        r"""``x`` ``(N, C, *S)`` resampled to spatial size ``size`` (PyTorch's index rules).

        Along each spatial axis (input length :math:`n`, output :math:`m`, user scale
        :math:`s` or ``None``) with :math:`r = 1/s` if given, else :math:`n/m`:

        - ``"nearest"``: :math:`y_j = x_{\min(\lfloor j r \rfloor, n - 1)}` (in float32,
          as PyTorch; its CPU 2-d kernel alone copies when :math:`m = n` and halves when
          :math:`m = 2n` whatever the scale says: here the formula holds in every dim, as
          in PyTorch's 1-d and 3-d kernels);
        - ``"nearest-exact"``: :math:`y_j = x_{\min(\lfloor (j + 1/2) r \rfloor, n - 1)}`;
        - ``"linear"``: source :math:`u = r (j + 1/2) - 1/2` clamped at 0 (``align_corners``:
          :math:`u = j (n-1)/(m-1)`), :math:`y_j = (1-\lambda) x_{i_0} + \lambda x_{i_1}` with
          :math:`i_0 = \lfloor u \rfloor`, :math:`i_1 = \min(i_0 + 1, n - 1)`,
          :math:`\lambda = u - i_0`; an axis whose size does not change is copied
          (:math:`m = n`, whatever the scale, as PyTorch);
        - ``"cubic"``: the same :math:`u` without the clamp, four taps
          :math:`i_0 - 1 \ldots i_0 + 2` clamped to :math:`[0, n-1]`, Keys' cubic
          convolution weights with :math:`A = -0.75`;
        - ``"linear-aa"``, ``"cubic-aa"`` (antialiased, PyTorch's and PIL's rule): around
          the centre :math:`\gamma = r (j + 1/2)`, the inputs :math:`i` with
          :math:`|i + 1/2 - \gamma| < \sigma` get the filter :math:`f((i + 1/2 - \gamma)
          / \max(r, 1))` (triangle, or Keys' cubic with :math:`A = -0.5`), normalised to
          sum 1; the support :math:`\sigma` is 1 (triangle) or 2 (cubic) times
          :math:`\max(r, 1)`.

        ``scales`` holds one user scale factor (or ``None``) per spatial axis.
        """

    @abstractmethod
    def interpolate_backward(self, g, in_size, mode, align_corners, scales):
        r"""The adjoint of :meth:`interpolate`: ``g`` ``(N, C, *size)`` mapped back to
        ``(N, C, *in_size)``, :math:`\partial x = W^\top g` along each spatial axis (each
        output's gradient added onto the taps it read, times their weights)."""

    @abstractmethod
    def grid_sample(self, x, grid, mode, padding_mode, align_corners):
        r"""``x`` ``(N, C, *S)`` sampled at ``grid`` ``(N, *O, d)`` (``d`` = 2 or 3 spatial
        axes; ``grid[..., 0]`` indexes the last axis), coordinates in :math:`[-1, 1]`.

        The coordinate :math:`c` of an axis of size :math:`n` maps to
        :math:`u = (c + 1)(n - 1)/2` (``align_corners``) or :math:`u = ((c + 1) n - 1)/2`;
        ``padding_mode`` ``"border"`` clamps :math:`u` to :math:`[0, n - 1]`,
        ``"reflection"`` reflects it at the borders (at the centres of the edge cells, or at
        their outer edges without ``align_corners``) then clamps; ``"zeros"`` reads 0
        outside. ``mode``: ``"bilinear"`` (product of linear weights of the 2^d
        neighbours), ``"nearest"`` (:math:`u` rounded half to even) or ``"bicubic"``
        (2-d only: 4x4 taps, Keys' weights with :math:`A = -0.75`, padding applied to each
        tap's index). Returns ``(N, C, *O)``.
        """

    @abstractmethod
    def grid_sample_plan(self, grid, spatial, mode, padding_mode, align_corners):
        r"""The constant part of sampling an input of spatial size ``spatial`` at ``grid``
        (see :meth:`grid_sample`), flattened over the ``M = N * prod(O)`` output points:
        ``(axes, taps)``.

        ``axes[a] = (slope, offset)`` per spatial axis :math:`a` (x's order): the tap
        weights' argument is :math:`t_a = \mathrm{slope} \cdot c_a + \mathrm{offset}`,
        the fractional part of the source position (the padding map is piecewise affine;
        ``slope`` is :math:`du/dc`, 0 where clamped). ``taps`` lists each tap combination
        as ``(row, ks)``: ``row`` (``M`` ints) indexes the input's channels-last rows
        ``(N P, C)``, with :math:`N P` (one past the end) for a tap outside the input, and
        ``ks`` says which tap of each axis it is (its weight: linear :math:`(1 - t, t)`,
        cubic Keys' four, nearest 1).
        """

    @abstractmethod
    def grid_sample_backward(
        self, g, x, grid, mode, padding_mode, align_corners, input_grad, grid_grad
    ):
        r"""Gradients of :meth:`grid_sample`: ``(gx, ggrid)``, each ``None`` unless asked
        (``input_grad``, ``grid_grad``).

        .. math:: \partial x_p = \sum_{q,\,k:\ p_k(q) = p} w_k(q)\, g_q, \qquad
                  \partial c_a(q) = \frac{du_a}{dc_a} \sum_{k} \frac{\partial w_k(q)}
                  {\partial u_a} \sum_{ch} g_{ch,q}\, x_{ch, p_k(q)}

        over the taps :math:`k` of output point :math:`q`; :math:`du/dc` includes the
        unnormalisation and the padding map (0 where clamped, -1 where reflected an odd
        number of times). Nearest sampling has a zero grid gradient.
        """
