"""Registry-suite samples for creation ops: tril, triu, and the zero-gradient fill node."""

from ._sample import Sample, rnd


def _same(op, fn, args, **kw):
    """A sample whose Lucid and torch calls are spelled the same."""
    return Sample(op, fn, args, torch_fn=fn, **kw)


SAMPLES = [
    _same("tril", lambda x: x.tril(), (rnd(4, 4),)),
    _same("tril", lambda x: x.tril(-1), (rnd(2, 3, 4),), name="tril[batched,-1]"),
    _same("tril", lambda x: (x * 1).tril_(1), (rnd(3, 5),), name="tril_[1]"),
    _same("triu", lambda x: x.triu(), (rnd(4, 4),)),
    _same("triu", lambda x: x.triu(2), (rnd(2, 3, 5),), name="triu[batched,2]"),
    _same("triu", lambda x: (x * 1).triu_(-1), (rnd(4, 3),), name="triu_[-1]"),
    _same("fill", lambda x: (x * 2).fill_(1.5) * x, (rnd(2, 3),), name="fill_"),
    _same("fill", lambda x: (x * 2).zero_() + x, (rnd(3),), name="zero_"),
    # the samples are random: multiplying by 0 keeps the check deterministic
    Sample(
        "fill", lambda x: (x * 1).normal_() * 0 + x, (rnd(3),), name="normal_", complex=False
    ),  # normal_ fills real tensors only
]
