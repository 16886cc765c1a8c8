"""Registry-suite samples for random ops: none registers an op of its own (samplers with
history record ``FillBackward``, whose samples are in ``creation.py``)."""

SAMPLES = []
