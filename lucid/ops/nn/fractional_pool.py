"""Fractional max pooling (Graham, 2014): one fused node, 2-d and 3-d alike.

Parameters reach ``dispatch`` normalised by :mod:`lucid.nn.functional.fractional_pool`:
``kernel`` and ``out_spatial`` tuples of one int per spatial dim, and the samples ``(N, C,
n)`` with column ``j`` for spatial dim ``j`` (PyTorch's 2-d samples are ``(w, h)``; the
function reorders them).
"""

from __future__ import annotations

from ..core._formula import const
from ..core.base import MultiOutputOp
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = []


@register
class FractionalMaxPoolBackward(MultiOutputOp):
    r"""Autograd node for N-d fractional max pooling: ``(values, indices)``, one fused op.

    Keeps the flat spatial index of each window's maximum (``saves_extra``, also the second
    output): the gradient adds each :math:`g_o` there. Nothing else is saved.

    Math
    ----
    Per plane :math:`(n, c)` and spatial dim :math:`j` (input length :math:`L`, kernel
    :math:`K`, output length :math:`O`, sample :math:`u = u_{n,c,j} \in [0, 1)`), window
    :math:`o` covers :math:`[a_o, a_o + K)` with

    .. math:: \alpha = \frac{L - K}{O - 1}, \qquad
              a_o = \lfloor (o + u)\,\alpha \rfloor - \lfloor u\,\alpha \rfloor
              \;(o < O - 1), \qquad a_{O-1} = L - K,

    so consecutive windows start :math:`\lfloor\alpha\rfloor` or
    :math:`\lceil\alpha\rceil` apart (the pseudo-random overlapping regions of the paper),
    and

    .. math:: y_{n,c,o} = \max_{i \in W_{n,c,o}} x_{n,c,i}, \qquad
              \frac{\partial \mathcal{L}}{\partial x_{n,c,i}} =
              \sum_{o:\ \mathrm{idx}_{n,c,o} = i} g_{n,c,o}.

    The samples get no gradient (the windows are piecewise constant in them, as
    PyTorch's ``random_samples: non_differentiable``).

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"fractional_max_pool"``, ``AmpPolicy.KEEP_INPUT``; inputs ``(x, samples)``, two
        outputs, only the values differentiable; ``kernel`` and ``out_spatial`` are keyword
        params.
    saves_input, saves_output : bool
        False, False; ``saves_extra``: ``indices``.

    Notes
    -----
    Backends: ``be.fractional_max_pool`` computes the starts in the samples' dtype as
    PyTorch's CPU kernel does (float32 for float32 input, with each step rounded for half
    types; truncation toward zero), builds the flat index of every window element laid out
    ``(prod K, N, C, *O)`` by broadcasting one term per dim, gathers them with one flat
    ``take`` (a contiguous plane per kernel element) and scans the planes in kernel order
    as PyTorch does: an element replaces the running maximum, and its index, where it is
    greater or NaN (the first of equal maxima, the last NaN; half types compare in
    float32, exactly).
    Windows overlap, so the gradient is a scatter-add (``be.pool_scatter``; in graph mode
    :class:`~lucid.ops.nn.pooling.MaxUnpoolBackward`, whose own gradient is a gather).
    The scatter-add is a float64 ``bincount`` (``be.index_add_along``), as for adaptive
    max pooling: a fixed order on the CPU; on CUDA its atomic float64 adds may sum an
    input position's few gradients in any order (the float64 sum rounded once to the
    input's dtype).

    References
    ----------
    B. Graham, "Fractional Max-Pooling", arXiv:1412.6071, 2014.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "fractional_max_pool",
        1,
        AmpPolicy.KEEP_INPUT,
        input_arity=2,
        output_arity=2,
        differentiable_outputs=(0,),
    )
    saves_extra = ("indices",)

    @staticmethod
    def dispatch(be, x, samples, kernel, out_spatial):
        vals, idx = be.fractional_max_pool(x, samples, kernel, out_spatial)
        return vals, idx, idx

    def grad(self, F, g, x, samples, out):
        g = g[0]
        return (
            F.pool_scatter(g, const(self.extra["indices"], g), self.in_meta[0][0][2:], True),
            None,
        )
