"""Registry-suite samples: Convolution ops (N-d, transposed, groups, dilation)."""

SAMPLES = []
