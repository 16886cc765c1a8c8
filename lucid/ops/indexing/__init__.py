"""Indexing and scatter / gather (``x[i]``, ``index_*``, ``masked_*``, ``take``, ``nonzero``)
and combinatorial constructions."""
