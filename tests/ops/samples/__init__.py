"""All samples of the registry suite, gathered from one module per op area."""

from . import (binary, compare, core, creation, indexing, joins, linalg, random, reduction,
               shape, sort, unary)
from . import numeric, special

SAMPLES = [s for m in (binary, compare, core, creation, indexing, joins, linalg, random,
                       reduction, shape, sort, unary, special, numeric)
           for s in m.SAMPLES]
