"""All samples of the registry suite, gathered from one module per op area."""

from . import (binary, compare, core, creation, indexing, joins, linalg, random, reduction,
               shape, sort, unary)

SAMPLES = [s for m in (binary, compare, core, creation, indexing, joins, linalg, random,
                       reduction, shape, sort, unary) for s in m.SAMPLES]
