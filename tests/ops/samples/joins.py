"""Registry-suite samples for this op area."""

import lucid

from ._sample import Const, Sample, pos, rnd

SAMPLES = []
