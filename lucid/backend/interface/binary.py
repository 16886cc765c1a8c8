"""Binary kernels of the Backend interface: arithmetic, comparison and logic.

All take arrays already promoted to one dtype (the op does PyTorch's promotion) and
broadcast like NumPy. Integer kernels that divide raise
:class:`~lucid.errors.DivisionByZeroError` on a zero divisor that divides something (a GPU
backend may check on the device); floating kernels follow IEEE 754 silently (inf, nan).
"""

from abc import ABC, abstractmethod


class BinaryKernels(ABC):
    """Binary primitive kernels (arrays of one backend in and out)."""

    # -- arithmetic ------------------------------------------------------------------

    @abstractmethod
    def add(self, a, b, alpha=1):
        r"""Element-wise :math:`a + \alpha b` with broadcasting (``alpha`` a Python number;
        half types compute in float32)."""

    @abstractmethod
    def mul(self, a, b):
        """Element-wise ``a * b`` with broadcasting."""

    @abstractmethod
    def sub(self, a, b, alpha=1):
        r"""Element-wise :math:`a - \alpha b` (``alpha`` a Python number; half types compute
        in float32)."""

    @abstractmethod
    def div(self, a, b):
        r"""Element-wise true division :math:`a / b` (floating inputs)."""

    @abstractmethod
    def div_floor(self, a, b):
        r"""Element-wise :math:`\lfloor a / b \rfloor` (Python's ``//``); floats use the
        fmod-corrected quotient, so ``5.0 // 0.1`` is 49 like PyTorch."""

    @abstractmethod
    def div_trunc(self, a, b):
        r"""Element-wise :math:`\mathrm{trunc}(a / b)` (C integer division)."""

    @abstractmethod
    def pow(self, a, b):
        r"""Element-wise :math:`a^b`. Integer :math:`a^b` with :math:`b < 0` is 1 for
        :math:`a = 1`, :math:`\pm 1` for :math:`a = -1` and 0 otherwise (PyTorch)."""

    @abstractmethod
    def pow_scalar(self, a, p):
        r"""Element-wise :math:`a^p` for a Python number :math:`p` (result in ``a``'s dtype;
        half types compute in float32 with :math:`p` unrounded; bool: ``a or not p``)."""

    @abstractmethod
    def remainder(self, a, b):
        r"""Element-wise :math:`a - b \lfloor a / b \rfloor`: the sign of the divisor."""

    @abstractmethod
    def fmod(self, a, b):
        r"""Element-wise :math:`a - b\,\mathrm{trunc}(a / b)`: the sign of the dividend."""

    @abstractmethod
    def atan2(self, a, b):
        r"""Element-wise :math:`\operatorname{atan2}(a, b)`, the angle of the point
        :math:`(b, a)`, in :math:`[-\pi, \pi]`."""

    @abstractmethod
    def hypot(self, a, b):
        r"""Element-wise :math:`\sqrt{a^2 + b^2}` without intermediate overflow."""

    @abstractmethod
    def maximum(self, a, b):
        """Element-wise maximum; nan if either is nan."""

    @abstractmethod
    def minimum(self, a, b):
        """Element-wise minimum; nan if either is nan."""

    @abstractmethod
    def fmax(self, a, b):
        """Element-wise maximum ignoring nan (nan only if both are)."""

    @abstractmethod
    def fmin(self, a, b):
        """Element-wise minimum ignoring nan (nan only if both are)."""

    @abstractmethod
    def logaddexp(self, a, b):
        r"""Element-wise :math:`\log(e^a + e^b)`, computed without overflow."""

    @abstractmethod
    def logaddexp2(self, a, b):
        r"""Element-wise :math:`\log_2(2^a + 2^b)`, computed without overflow."""

    @abstractmethod
    def xlogy(self, a, b):
        r"""Element-wise :math:`a \log b`, 0 where :math:`a = 0` unless :math:`b` is nan."""

    @abstractmethod
    def copysign(self, a, b):
        r"""Element-wise :math:`|a|` with the sign (bit) of :math:`b`."""

    @abstractmethod
    def lerp(self, a, b, w):
        r"""Element-wise :math:`a + w (b - a)`, as :math:`b - (b - a)(1 - w)` where
        :math:`|w| \ge 0.5` (exact at both ends); half types compute in float32."""

    @abstractmethod
    def addcmul(self, x, t1, t2, value):
        r"""Element-wise :math:`x + v \, t_1 t_2` for a Python scalar :math:`v` (half types
        compute in float32)."""

    @abstractmethod
    def addcdiv(self, x, t1, t2, value):
        r"""Element-wise :math:`x + v \, t_1 / t_2` for a Python scalar :math:`v` (half types
        compute in float32)."""

    @abstractmethod
    def where(self, cond, a, b):
        """Element-wise ``a`` where bool ``cond`` holds, else ``b`` (all broadcast)."""

    # -- comparison and logic (bool results) -----------------------------------------

    @abstractmethod
    def eq(self, a, b):
        """Element-wise ``a == b``."""

    @abstractmethod
    def ne(self, a, b):
        """Element-wise ``a != b``."""

    @abstractmethod
    def lt(self, a, b):
        """Element-wise ``a < b``."""

    @abstractmethod
    def le(self, a, b):
        """Element-wise ``a <= b``."""

    @abstractmethod
    def gt(self, a, b):
        """Element-wise ``a > b``."""

    @abstractmethod
    def ge(self, a, b):
        """Element-wise ``a >= b``."""

    @abstractmethod
    def logical_and(self, a, b):
        """Element-wise ``(a != 0) and (b != 0)``."""

    @abstractmethod
    def logical_or(self, a, b):
        """Element-wise ``(a != 0) or (b != 0)``."""

    @abstractmethod
    def logical_xor(self, a, b):
        """Element-wise ``(a != 0) != (b != 0)``."""

    @abstractmethod
    def logical_not(self, a):
        """Element-wise ``a == 0``."""

    @abstractmethod
    def bitwise_and(self, a, b):
        """Element-wise ``a & b`` (integer or bool)."""

    @abstractmethod
    def bitwise_or(self, a, b):
        """Element-wise ``a | b`` (integer or bool)."""

    @abstractmethod
    def bitwise_xor(self, a, b):
        """Element-wise ``a ^ b`` (integer or bool)."""

    @abstractmethod
    def bitwise_not(self, a):
        """Element-wise ``~a`` (logical not for bool)."""

    @abstractmethod
    def isclose(self, a, b, rtol, atol, equal_nan, float_dtype):
        r"""Element-wise :math:`a = b \lor |a - b| \le \mathrm{atol} + |\mathrm{rtol}\,b|`
        (finite differences only); nan pairs count as close when ``equal_nan``. Integer
        and bool operands compute the tolerance test in ``float_dtype`` (a NumPy dtype)."""

    @abstractmethod
    def isin(self, elements, test_elements, invert):
        """Whether each element of ``elements`` occurs in ``test_elements`` (negated when
        ``invert``); nan is never found."""
