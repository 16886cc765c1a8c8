"""Tensor creation: constants, ranges, ``*_like`` and ``new_*`` factories, ``tril`` /
``triu``, ``meshgrid``."""
