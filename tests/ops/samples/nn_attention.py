"""Registry-suite samples: Scaled dot-product attention: one fused op."""

SAMPLES = []
