"""Views and reshapes (reshape, permute, squeeze, narrow, flip, pad, ...) and joins and splits
(cat, stack, split, chunk, unbind)."""
