"""Complex kernels over an array module (see :mod:`lucid.backend.interface.complex`)."""


class XpComplex:
    """Implements :class:`ComplexKernels` with ``self.xp``."""

    def conj(self, a):
        return self.xp.conjugate(a) if a.dtype.kind == "c" else a.copy()

    def real(self, a):
        return a.real

    def imag(self, a):
        return a.imag

    def angle(self, a):
        xp = self.xp
        if a.dtype.kind == "c":
            return xp.arctan2(a.imag, a.real)
        return xp.where(a < 0, a.dtype.type(xp.pi), xp.where(a != a, a, a.dtype.type(0)))

    def sgn(self, a):
        xp = self.xp
        if a.dtype.kind != "c":
            return self.sign(a)
        r = xp.absolute(a)
        zero = r == 0
        return xp.where(zero, a.dtype.type(0), a / xp.where(zero, r.dtype.type(1), r))

    def make_complex(self, re, im):
        xp = self.xp
        out = xp.empty(
            xp.broadcast(re, im).shape, xp.complex128 if re.dtype == xp.float64 else xp.complex64
        )
        out.real = re
        out.imag = im
        return out

    def view_as_real(self, a):
        part = a.real.dtype
        return a[..., None].view(part)

    def view_as_complex(self, a):
        cdt = self.xp.complex128 if a.dtype == self.xp.float64 else self.xp.complex64
        return a.view(cdt)[..., 0]
