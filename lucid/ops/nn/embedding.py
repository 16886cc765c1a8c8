"""Embedding lookup and bags of embeddings: fused ops whose backward scatter-adds into a
zero weight gradient. The wrappers (``embedding``, ``embedding_bag``, and ``one_hot``,
composed from comparisons) are in :mod:`lucid.nn.functional.sparse`.
"""

from __future__ import annotations

from ..core.base import Op
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

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
        scatter-add uses atomics; ``complex_grad="holomorphic"`` (complex weights, whose
        gradient PyTorch does not have).
    saves_input : tuple
        The indices, for the weight's gradient; never the weight.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.embedding`` (``xp.take`` along the rows), ``be.embedding_backward``
    (one flat unbuffered scatter-add, ``xp.add.at``, of every gradient element into zeros:
    faster on NumPy than a row-wise ``add.at`` or a sorted ``add.reduceat``; half
    gradients accumulate in float64 and are cast back). The wrapper checks the indices' range
    and applies ``max_norm`` (an in-place renormalisation of the looked-up rows, before the
    lookup, as PyTorch). The graph-mode gradient is ``scatter_add`` of the scaled ``g`` (linear in
    ``g``, so differentiable again).
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "embedding",
        1,
        AmpPolicy.KEEP_INPUT,
        input_arity=2,
        deterministic=False,
        nondeterministic_on=("cuda",),
        determinism_note="The weight gradient scatter-adds with atomics on CUDA.",
        complex_grad="holomorphic",
    )
    saves_input = ((1,), ())

    @staticmethod
    def dispatch(be, weight, idx, padding_idx=None, scale_grad_by_freq=False):
        return be.embedding(weight, idx)

    def grad(self, F, g, weight, idx, out):
        p = self.params
        return (
            F.embedding_backward(
                g, idx, self.in_meta[0][0][0], p["padding_idx"], p["scale_grad_by_freq"]
            ),
            None,
        )


@register
class EmbeddingBagBackward(Op):
    r"""Autograd node for bags of embeddings: row :math:`b` of the output reduces (sum,
    mean or max) the looked-up rows :math:`w_{idx_i}` of the entries of bag :math:`b`;
    keeps the indices (and the per-sample weights, or the weight for their gradient) and,
    from the forward, the bag sizes (mean) or the row of each maximum (max).

    Math
    ----
    .. math:: y_b = \sum_{i \in b} s_i\, w_{idx_i}\ \text{(sum)}, \quad
              y_b = \frac{1}{|b|} \sum_{i \in b} w_{idx_i}\ \text{(mean)}, \quad
              y_{b,d} = \max_{i \in b} w_{idx_i, d}\ \text{(max)}

    .. math:: \frac{\partial \mathcal{L}}{\partial w_r} = \sum_{i : idx_i = r}
              c_i\, g_{bag_i}, \quad c_i = s_i \text{ or } \frac{1}{|bag_i|}, \qquad
              \frac{\partial \mathcal{L}}{\partial s_i} = g_{bag_i} \cdot w_{idx_i}

    and for max each :math:`g_{b,d}` goes to the row holding the maximum.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"embedding_bag"``, ``AmpPolicy.KEEP_INPUT``, inputs ``(weight, indices)`` or
        ``(weight, indices, per_sample_weights)``; not deterministic on CUDA (atomic
        scatter-adds).
    saves_input : tuple
        For the weight's gradient the indices and the per-sample weights; for the
        per-sample weights' gradient the weight and the indices; ``saves_extra``: ``aux``
        (the bag sizes for mean, the int64 row of each maximum for max, else None).
    saves_output : bool
        False.

    Notes
    -----
    Params: ``bag`` (the int64 bag of each entry; -1 for entries left out, those equal
    to ``padding_idx``), ``num_bags``, ``mode``, ``scale_grad_by_freq`` (each entry's
    gradient divided by its index's frequency among the kept entries: the documented
    semantics; PyTorch 2.13's CPU kernel divides by another index's count,
    pytorch/pytorch#190063). Backends: ``be.embedding_bag`` (``take`` then one flat
    ``add.at`` / ``maximum.at`` into the bags; half weights accumulate in float64; of tied
    maxima the first entry wins), ``be.embedding_bag_backward`` (flat scatter-adds). The
    graph-mode gradient gathers ``g`` by bag and scatter-adds it (linear in ``g``).
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "embedding_bag",
        1,
        AmpPolicy.KEEP_INPUT,
        input_arity=-1,
        deterministic=False,
        nondeterministic_on=("cuda",),
        determinism_note="The bag sums and the weight gradient scatter-add with atomics on CUDA.",
    )
    saves_input = ((1, 2), (), (0, 1))
    saves_extra = ("aux",)

    @staticmethod
    def dispatch(be, weight, idx, *psw, bag, num_bags, mode, scale_grad_by_freq=False):
        return be.embedding_bag(weight, idx, bag, num_bags, mode, psw[0] if psw else None)

    def grad(self, F, g, weight, idx, *rest):
        p = self.params
        need = self.needs_input_grad
        psw = rest[0] if len(rest) > 1 else None
        gw, gpsw = F.embedding_bag_backward(
            g,
            weight,
            idx,
            p["bag"],
            self.in_meta[0][0][0],
            p["mode"],
            psw,
            self.extra["aux"],
            p.get("scale_grad_by_freq", False),
            (need[0], len(need) > 2 and need[2]),
        )
        return (gw, None) if len(need) == 2 else (gw, None, gpsw)
