"""Binary kernels over an array module (NumPy or CuPy)."""


class XpBinary:
    """Implements :class:`BinaryKernels` with ``self.xp``."""

    def add(self, a, b):
        return self.xp.add(a, b)

    def mul(self, a, b):
        return self.xp.multiply(a, b)
