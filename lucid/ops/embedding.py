"""Embedding lookup: one fused op whose backward scatter-adds into a zero weight gradient.

``embedding_bag`` and ``one_hot`` (in :mod:`lucid.nn.functional.sparse`) are composed
from this op and the indexing ops.
"""

from __future__ import annotations

from .base import Op
from .registry import register
from .schema import AmpPolicy, OpSchema

__all__ = []


@register
class EmbeddingBackward(Op):
    r"""Autograd node for the lookup :math:`y_{\ldots} = W_{idx_{\ldots}}` of rows of a
    ``(num_embeddings, D)`` weight; keeps only the indices, which route the gradient.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial W_r} =
              [r \ne p] \sum_{i : idx_i = r} s_i\, g_i, \qquad
              s_i = \begin{cases} 1 / \#\{j : idx_j = idx_i\} & \text{scale\_grad\_by\_freq}
              \\ 1 & \text{otherwise} \end{cases}

    with :math:`p` the ``padding_idx`` (its row gets no gradient).

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"embedding"``, ``AmpPolicy.KEEP_INPUT`` (a gather), two inputs (the weight and
        the integer indices, which get no gradient); not deterministic on CUDA, where the
        scatter-add uses atomics.
    saves_input : tuple
        The indices, for the weight's gradient; never the weight.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.embedding`` (``xp.take`` along the rows), ``be.embedding_backward``
    (one flat unbuffered scatter-add, ``xp.add.at``, of every gradient element into zeros:
    faster on NumPy than a row-wise ``add.at`` or a sorted ``add.reduceat``; half
    gradients accumulate in float64 and are cast back). The wrapper checks the indices' range and applies
    ``max_norm`` (an in-place renormalisation of the looked-up rows, before the lookup, as
    PyTorch). The graph-mode gradient is ``scatter_add`` of the scaled ``g`` (linear in
    ``g``, so differentiable again).
    """

    __slots__ = ()
    schema_v1 = OpSchema("embedding", 1, AmpPolicy.KEEP_INPUT, input_arity=2,
                         deterministic=False, nondeterministic_on=("cuda",),
                         determinism_note="The weight gradient scatter-adds with atomics "
                         "on CUDA.")
    saves_input = ((1,), ())

    @staticmethod
    def dispatch(be, weight, idx, padding_idx=None, scale_grad_by_freq=False):
        return be.embedding(weight, idx)

    def grad(self, F, g, weight, idx, out):
        p = self.params
        return (F.embedding_backward(g, idx, self.in_meta[0][0][0], p["padding_idx"],
                                     p["scale_grad_by_freq"]), None)
