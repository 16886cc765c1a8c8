"""Registry-suite samples: Fused loss ops (cross-entropy, nll, ...)."""

SAMPLES = []
