"""The discrete Fourier transform, the primitives of :mod:`lucid.fft`."""
