"""Registry-suite samples: Normalisation ops (batch, layer, group, RMS norm): fused forward and analytic backward."""

SAMPLES = []
