"""Registry-suite samples: Fused activation ops (GELU, ...)."""

SAMPLES = []
