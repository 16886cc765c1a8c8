"""Complex kernels of the Backend interface: parts, conjugate, polar form, real views.

A complex array holds ``complex64`` (float32 parts) or ``complex128`` (float64 parts)
elements :math:`z = x + iy`. ``real``/``imag``/``view_as_real``/``view_as_complex`` return
views sharing the input's memory; the others return new arrays.
"""

from abc import ABC, abstractmethod


class ComplexKernels(ABC):
    """Complex primitive kernels (arrays of one backend in and out)."""

    @abstractmethod
    def conj(self, a):
        r"""Element-wise :math:`\bar z = x - iy` (a copy; real arrays are copied as is)."""

    @abstractmethod
    def real(self, a):
        r"""The real parts :math:`x` of complex ``a``, as a strided view of its memory."""

    @abstractmethod
    def imag(self, a):
        r"""The imaginary parts :math:`y` of complex ``a``, as a strided view."""

    @abstractmethod
    def angle(self, a):
        r"""Element-wise :math:`\operatorname{atan2}(y, x)` in :math:`(-\pi, \pi]`, real
        dtype; for real ``a``: :math:`\pi` where :math:`a < 0`, else 0 (nan stays nan)."""

    @abstractmethod
    def sgn(self, a):
        r"""Element-wise :math:`z / |z|` (0 where :math:`z = 0`); for real ``a`` its sign."""

    @abstractmethod
    def make_complex(self, re, im):
        r"""The complex array :math:`re + i\,im` of two real arrays of one dtype
        (broadcasting); float32 parts give complex64, float64 complex128."""

    @abstractmethod
    def view_as_real(self, a):
        r"""Complex ``a`` of shape ``s`` viewed as real of shape ``s + (2,)`` (last axis:
        real, imaginary)."""

    @abstractmethod
    def view_as_complex(self, a):
        r"""Real ``a`` of shape ``s + (2,)`` whose last axis is contiguous, viewed as
        complex of shape ``s``; other strides must be even (in elements)."""
