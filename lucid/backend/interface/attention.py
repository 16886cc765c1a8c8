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
