"""Fractional max pooling kernels of the Backend interface (Graham, 2014).

Layout as :mod:`.conv`: ``x`` is ``(N, C, *S)`` with ``n = len(S)`` spatial dims; each
``(n, c)`` plane has its own pseudo-random windows, drawn from one sample
:math:`u_{n,c,j} \\in [0, 1)` per spatial dim ``j``.
"""

from abc import ABC, abstractmethod


class FractionalPoolKernels(ABC):
    """Fractional max pooling primitive kernels (arrays of one backend in and out)."""

    @abstractmethod
    def fractional_max_pool(self, x, samples, kernel, out_spatial):
        r"""``(values, indices)`` of fractional max pooling: window :math:`o` of dim
        :math:`j` covers :math:`[a_o, a_o + K_j)` with, for :math:`L = S_j`,
        :math:`O = O_j` and :math:`\alpha = (L - K_j) / (O - 1)`,

        .. math:: a_o = \lfloor (o + u) \alpha \rfloor - \lfloor u \alpha \rfloor
                  \quad (o < O - 1), \qquad a_{O-1} = L - K_j,

        :math:`u` = ``samples[n, c, j]`` (``samples`` is ``(N, C, n)`` of ``x``'s dtype,
        the arithmetic done in that dtype as PyTorch's CPU kernel does, truncating toward
        zero). Each output is the maximum of its window, scanned in row-major kernel order
        (the first of equal maxima; the last NaN, which wins); ``indices`` are the
        row-major flat spatial indices of the maxima in ``x``, int64."""
