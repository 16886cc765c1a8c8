"""``Rearrange`` and ``Reduce`` as modules, for ``nn.Sequential`` (as ``einops.layers``):
the pattern is checked when the module is built, the shapes when it runs."""

from ..errors import LucidError
from ..nn.modules.module import Module
from .parsing import check_pattern
from .recipe import sides
from .report import annotate
from .transforms import reducer, rearrange, reduce


def _check(kind, pattern, axes_lengths, reduction=None):
    try:
        sides(kind, check_pattern(pattern), tuple(axes_lengths))
        if kind == "reduce":
            reducer(reduction)
    except LucidError as e:
        annotate(e, kind.capitalize(), pattern, (), axes_lengths)
        raise


class Rearrange(Module):
    """``rearrange(input, pattern, **axes_lengths)`` as a layer:
    ``Rearrange("b c (h p) (w q) -> b (h w) (p q c)", p=16, q=16)`` makes ViT patches."""

    def __init__(self, pattern, **axes_lengths):
        super().__init__()
        _check("rearrange", pattern, axes_lengths)
        self.pattern, self.axes_lengths = pattern, axes_lengths

    def forward(self, input):
        return rearrange(input, self.pattern, **self.axes_lengths)

    def extra_repr(self):
        return ", ".join([repr(self.pattern)] + [f"{k}={v}" for k, v in self.axes_lengths.items()])


class Reduce(Module):
    """``reduce(input, pattern, reduction, **axes_lengths)`` as a layer:
    ``Reduce("b c h w -> b c", "mean")`` is global average pooling."""

    def __init__(self, pattern, reduction, **axes_lengths):
        super().__init__()
        _check("reduce", pattern, axes_lengths, reduction)
        self.pattern, self.reduction, self.axes_lengths = pattern, reduction, axes_lengths

    def forward(self, input):
        return reduce(input, self.pattern, self.reduction, **self.axes_lengths)

    def extra_repr(self):
        return ", ".join(
            [repr(self.pattern), repr(self.reduction)]
            + [f"{k}={v}" for k, v in self.axes_lengths.items()]
        )
