"""Attention kernels of the Backend interface."""

from abc import ABC, abstractmethod


class AttentionKernels(ABC):
    """Attention primitive kernels (arrays of one backend in and out)."""

    @abstractmethod
    def attention_probs(self, q, k, bias, allowed, scale, causal):
        r"""The attention probabilities :math:`P = \mathrm{softmax}(S)` along the last axis,

        .. math:: S_{ij} = \text{scale}\, q_i \cdot k_j + b_{ij}
                  \quad\text{where position } (i, j) \text{ is allowed, else } -\infty

        for ``q`` of shape ``(..., L, E)`` and ``k`` of shape ``(..., S, E)`` (batch axes
        broadcast), ``bias`` ``None`` or an array broadcasting to ``(..., L, S)``,
        ``allowed`` ``None`` or a bool array broadcasting to it (True: takes part) and
        ``causal`` allowing only :math:`j \le i` (top-left aligned, as
        ``tril(ones(L, S))``). Stable: the row maximum is subtracted before exponentiating.
        A row with no finite score (fully masked) gives zeros, not nan. Half inputs
        compute in float32; the result has ``q``'s dtype and shape ``(..., L, S)``.
        """

    #: Whether :meth:`attention_probs` returns :math:`P` as the ``(..., L, S)`` view of an
    #: ``(..., S, L)`` buffer (the P-saving op's backward then computes :math:`\bar P` in
    #: that layout too, so the softmax backward reads matching buffers).
    probs_transposed = False

    def prefers_flash_attention(self, npdtype, probs):
        """Whether ``scaled_dot_product_attention`` (no weights, no dropout) should take the
        flash op (saving the output and row log-sum-exp, recomputing :math:`P` in the
        backward) rather than the op that keeps :math:`P` (``probs`` elements of
        ``npdtype``): True where a flash kernel is the faster or the only affordable
        choice. The CPU keeps :math:`P`."""
        return False

    @abstractmethod
    def attention_forward(self, q, k, v, bias, allowed, scale, causal, groups):
        r"""The attention output and the row log-sum-exp of its scores,

        .. math:: O = \mathrm{softmax}(S)\,V, \qquad
                  \ell_i = \log \textstyle\sum_j e^{S_{ij}}

        with :math:`S` as in :meth:`attention_probs` (same ``q``, ``k``, ``bias``,
        ``allowed``, ``scale``, ``causal``), ``v`` of shape ``(..., S, Ev)`` and each of
        the ``k``/``v`` heads (axis -3) serving ``groups`` consecutive query heads. A fully
        masked row gives :math:`O_i = 0` and :math:`\ell_i = +\infty` (so
        :math:`e^{S_{ij} - \ell_i} = 0` recomputes its zero probabilities). Returns
        ``(out, lse)``: ``out`` of ``q``'s dtype and shape ``(batch..., L, Ev)`` (the batch
        axes broadcast), ``lse`` float32 (float64 for float64 inputs) of shape
        ``(batch..., L)``.
        """

    @abstractmethod
    def attention_backward(self, g, q, k, v, bias, allowed, out, lse, scale, causal, groups):
        r"""The gradients ``(dq, dk, dv)`` of :meth:`attention_forward` for the output's
        gradient ``g``, from its ``out`` and ``lse``, recomputing
        :math:`P = e^{S - \ell}`:

        .. math::
            \bar V = P^\top \bar O, \quad \bar S = P \odot (\bar O V^\top - D), \quad
            D_i = \textstyle\sum_e \bar O_{ie} O_{ie}, \quad
            \bar Q = s\,\bar S K, \quad \bar K = s\,\bar S^\top Q

        (``bias`` gets none: it is a constant here). ``dq`` has the broadcast batch shape
        of the output; ``dk``, ``dv`` the same batch with ``k``'s heads (summed over each
        group of query heads); each in its input's dtype.
        """
