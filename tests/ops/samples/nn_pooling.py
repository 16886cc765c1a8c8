"""Registry-suite samples: Pooling ops (max, average, adaptive, unpool)."""

SAMPLES = []
