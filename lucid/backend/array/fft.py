"""Fourier-transform kernels over an array module (``numpy.fft``; ``cupy.fft``: cuFFT)."""


class XpFft:
    """Implements :class:`FftKernels` with ``self.xp.fft``."""

    def fft_c2c(self, a, axes, norm, forward):
        f = self.xp.fft.fftn if forward else self.xp.fft.ifftn
        return f(a, axes=axes, norm=norm)

    def fft_r2c(self, a, axes, norm):
        return self.xp.fft.rfftn(a, axes=axes, norm=norm)

    def fft_c2r(self, a, axes, norm, last):
        s = [a.shape[ax] for ax in axes[:-1]] + [last]
        return self.xp.fft.irfftn(a, s=s, axes=axes, norm=norm)

    def hermitian_weights(self, n, m, npdtype):
        w = self.xp.full(m, 2, dtype=npdtype)
        w[0] = 1
        if n % 2 == 0 and m > n // 2:
            w[n // 2] = 1
        return w
