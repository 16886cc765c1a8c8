"""Linear algebra: products and einsum (:mod:`~lucid.ops.linalg.products`), and the nodes of
``lucid.linalg`` (factorisations, solves, eigendecompositions, matrix functions) with their
shared argument checks and graph-mode kernels."""
