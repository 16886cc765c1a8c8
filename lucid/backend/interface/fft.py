"""Fourier-transform kernels of the Backend interface (see :mod:`lucid.ops.signal.fft`).

``axes`` are non-negative and distinct; ``norm`` is ``"backward"``, ``"forward"`` or
``"ortho"``. Single precision stays single (float32 gives complex64).
"""

from abc import ABC, abstractmethod


class FftKernels(ABC):
    """The DFT over some axes, its one-sided real form and that form's inverse."""

    @abstractmethod
    def fft_c2c(self, a, axes, norm, forward):
        r"""The forward (``forward``) or inverse DFT of real or complex ``a`` over ``axes``:
        :math:`c \sum_j a_j e^{\mp 2\pi i \sum_d j_d k_d / n_d}`, complex result."""

    @abstractmethod
    def fft_r2c(self, a, axes, norm):
        """The DFT of real ``a`` over ``axes``, the last halved to its ``n//2 + 1`` bins."""

    @abstractmethod
    def fft_c2r(self, a, axes, norm, last):
        """The real inverse of a half spectrum ``a`` over ``axes``: the output keeps the
        other axes' sizes and has ``last`` elements along the last one (``a`` has
        ``last//2 + 1`` bins there)."""

    @abstractmethod
    def hermitian_weights(self, n, m, npdtype):
        """The ``m`` weights of a length-``n`` signal's half spectrum: 1 at bin 0 (and at
        ``n/2`` for even ``n``), 2 at the bins that stand for a conjugate pair."""
