"""Registry-suite samples: Dropout ops."""

SAMPLES = []
