"""Special functions (the gamma family, error functions, Bessel and kin) and the fused softmax
family; the ops of :mod:`lucid.special`."""
