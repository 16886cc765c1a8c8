"""lucid.einops against the einops package on torch tensors: values and gradients over a
generated set of patterns (groups, ellipsis, unit and anonymous axes, lists of tensors),
pack/unpack round trips, einsum, and the errors (both libraries reject the same calls;
Lucid's message names the function, the pattern and the shapes)."""

import random

import numpy as np
import pytest
import torch

import lucid
from lucid import einops as E
from lucid.einops.recipe import plan

einops = pytest.importorskip("einops")
import einops.layers.torch  # noqa: E402, F811

NAMES = ["a", "b", "c", "d", "e", "hw", "x1"]
REDUCTIONS = ["sum", "mean", "max", "min", "prod", "logsumexp"]


# -- pattern generation ------------------------------------------------------------------


def _partition(rng, axes):
    """``axes`` cut into consecutive groups of 1 to 3."""
    out, i = [], 0
    while i < len(axes):
        k = rng.choice([1, 1, 1, 2, 3])
        out.append(list(axes[i : i + k]))
        i += k
    return out


def _side(rng, axes, ellipsis, *, left):
    """Groups of ``axes`` (shuffled), the ellipsis inserted (in a group only on the right),
    unit groups sprinkled in."""
    axes = list(axes)
    rng.shuffle(axes)
    groups = _partition(rng, axes)
    if ellipsis:
        if not left and groups and rng.random() < 0.3:
            rng.choice(groups).insert(0, "...")
        else:
            groups.insert(rng.randint(0, len(groups)), "...")
    if rng.random() < 0.25:
        groups.insert(rng.randint(0, len(groups)), [])
    return groups


def _render(rng, groups):
    parts = []
    for g in groups:
        if g == "...":
            parts.append("...")
        elif not g:
            parts.append(rng.choice(["1", "()"]))
        elif len(g) == 1 and g[0] != "..." and rng.random() < 0.8:
            parts.append(g[0])
        else:
            parts.append("(" + " ".join(g + (["1"] if rng.random() < 0.1 else [])) + ")")
    return " ".join(parts)


def _shape(groups, size, ell_shape):
    shape = []
    for g in groups:
        if g == "...":
            shape.extend(ell_shape)
        else:
            shape.append(int(np.prod([size[a] for a in g])))
    return tuple(shape)


def _lengths(rng, groups, size):
    """Keyword lengths so that each left group has at most one unknown axis."""
    out = {}
    for g in groups:
        if g == "...":
            continue
        named = [a for a in g if not a.isdecimal()]
        if len(named) > 1 or (named and rng.random() < 0.15):
            for a in rng.sample(named, len(named) - (len(named) > 1)):
                out[a] = size[a]
    return out


def _case(rng, kind):
    names = rng.sample(NAMES, rng.randint(1, 4))
    size = {a: rng.randint(1, 4) for a in NAMES}
    ellipsis = rng.random() < 0.4
    ell_shape = tuple(rng.randint(1, 3) for _ in range(rng.randint(0, 2)))
    if kind == "repeat":
        new = [a for a in NAMES if a not in names][: rng.randint(1, 2)]
        anon = [str(rng.randint(2, 3)) for _ in range(rng.randint(0, 1))]
        left = _side(rng, names, ellipsis, left=True)
        right = _side(rng, names + new + anon, ellipsis, left=False)
        lengths = dict(_lengths(rng, left, size), **{a: size[a] for a in new})
    else:
        left_axes = names
        if kind == "reduce" and rng.random() < 0.3:
            left_axes = names + ["2"]
            size["2"] = 2
        kept = names if kind == "rearrange" else rng.sample(names, rng.randint(0, len(names)))
        left = _side(rng, left_axes, ellipsis, left=True)
        right = _side(
            rng, kept, ellipsis and (kind == "rearrange" or rng.random() < 0.5), left=False
        )
        lengths = _lengths(rng, left, size)
    pattern = f"{_render(rng, left)} -> {_render(rng, right)}"
    return pattern, _shape(left, size, ell_shape), lengths


def _cases(kind, n, seed):
    rng = random.Random(seed)
    return [
        _case(rng, kind)
        + (rng.choice(REDUCTIONS) if kind == "reduce" else None, rng.random() < 0.15)
        for _ in range(n)
    ]


# -- running both libraries --------------------------------------------------------------


def _pair(shape, seed):
    a = np.random.default_rng(seed).standard_normal(shape)
    return lucid.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _close(x, t):
    assert tuple(x.shape) == tuple(t.shape)
    np.testing.assert_allclose(x.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)


def _backward(outs_l, outs_t, seed):
    """Backward of a random linear function of the outputs in both libraries."""
    rng = np.random.default_rng(seed)
    loss_l = loss_t = 0
    for y, t in zip(outs_l, outs_t):
        w = rng.standard_normal(tuple(t.shape))
        loss_l = loss_l + (y * lucid.tensor(w)).sum()
        loss_t = loss_t + (t * torch.tensor(w)).sum()
    loss_l.backward()
    loss_t.backward()


def _reduction(name):
    if name != "logsumexp":
        return name
    return lambda x, dims: x.logsumexp(dims)  # a callable reduction, same in both


GENERATED = (
    [("rearrange",) + c for c in _cases("rearrange", 160, 1)]
    + [("reduce",) + c for c in _cases("reduce", 160, 2)]
    + [("repeat",) + c for c in _cases("repeat", 120, 3)]
)


@pytest.mark.parametrize(
    "kind, pattern, shape, lengths, reduction, as_list",
    GENERATED,
    ids=[f"{g[0]}-{i}" for i, g in enumerate(GENERATED)],
)
def test_transform_parity(kind, pattern, shape, lengths, reduction, as_list):
    x, t = _pair(shape, len(pattern))
    ins_l, ins_t = (list(x), list(t)) if as_list and shape and shape[0] else (x, t)
    args = () if reduction is None else (reduction,)
    y = getattr(E, kind)(ins_l, pattern, *map(_reduction, args), **lengths)
    u = getattr(einops, kind)(ins_t, pattern, *map(_reduction, args), **lengths)
    _close(y, u)
    _backward([y], [u], len(pattern) + 1)
    _close(x.grad, t.grad)


def _pack_case(rng):
    before = rng.sample(["a", "b"], rng.randint(0, 2))
    after = rng.sample(["c", "d"], rng.randint(0, 2))
    fixed = [rng.randint(1, 3) for _ in before], [rng.randint(1, 3) for _ in after]
    shapes = [
        tuple(fixed[0])
        + tuple(rng.randint(1, 3) for _ in range(rng.randint(0, 2)))
        + tuple(fixed[1])
        for _ in range(rng.randint(1, 3))
    ]
    return " ".join(before + ["*"] + after), shapes, rng.random() < 0.5


PACKS = [_pack_case(random.Random(100 + i)) for i in range(60)]


@pytest.mark.parametrize(
    "pattern, shapes, infer", PACKS, ids=[f"pack-{i}" for i in range(len(PACKS))]
)
def test_pack_unpack_parity(pattern, shapes, infer):
    pairs = [_pair(s, i) for i, s in enumerate(shapes)]
    packed, ps = E.pack([p[0] for p in pairs], pattern)
    packed_t, ps_t = einops.pack([p[1] for p in pairs], pattern)
    _close(packed, packed_t)
    assert [tuple(s) for s in ps] == [tuple(s) for s in ps_t]
    if infer:  # one unknown packed shape
        ps = list(ps)
        k = len(ps) // 2
        ps[k] = (-1,) + tuple(ps[k][1:]) if ps[k] else ps[k]
    outs = E.unpack(packed, ps, pattern)
    outs_t = einops.unpack(packed_t, ps_t, pattern)
    for y, u, (x, _) in zip(outs, outs_t, pairs):
        _close(y, u)
        _close(y, x)
    _backward(outs, outs_t, 7)
    for x, t in pairs:
        _close(x.grad, t.grad)


def _einsum_case(rng):
    names = ["i", "j", "k", "batch", "h2"]
    size = {a: rng.randint(1, 4) for a in names}
    ellipsis = rng.random() < 0.3
    terms = []
    for _ in range(rng.randint(1, 3)):
        term = rng.sample(names, rng.randint(1, 3))
        if rng.random() < 0.1:
            term.insert(rng.randint(0, len(term)), term[0])  # a diagonal
        terms.append(term)
    used = sorted({a for t in terms for a in t})
    out = rng.sample(used, rng.randint(0, len(used)))
    ell = ["..."] if ellipsis else []
    shapes = [tuple(size[a] for a in t) for t in terms]
    if ellipsis:
        ell_shape = tuple(rng.randint(1, 3) for _ in range(rng.randint(1, 2)))
        shapes = [ell_shape + s for s in shapes]
    pattern = ", ".join(" ".join(ell + t) for t in terms) + " -> " + " ".join(ell + out)
    return pattern, shapes


EINSUMS = [_einsum_case(random.Random(200 + i)) for i in range(80)]


@pytest.mark.parametrize(
    "pattern, shapes", EINSUMS, ids=[f"einsum-{i}" for i in range(len(EINSUMS))]
)
def test_einsum_parity(pattern, shapes):
    pairs = [_pair(s, i) for i, s in enumerate(shapes)]
    y = E.einsum(*[p[0] for p in pairs], pattern)
    u = einops.einsum(*[p[1] for p in pairs], pattern)
    _close(y, u)
    _backward([y], [u], 3)
    for x, t in pairs:
        _close(x.grad, t.grad)


# -- errors ------------------------------------------------------------------------------

ERRORS = [
    ("rearrange", (2, 3), "a b -> a", {}),
    ("rearrange", (2, 3), "a b c -> a b c", {}),
    ("rearrange", (2, 3, 4), "a b -> a b", {}),
    ("rearrange", (7, 3), "(a b) c -> a b c", {"a": 2}),
    ("rearrange", (6, 3), "(a b) c -> a b c", {}),
    ("rearrange", (2, 3), "a a -> a", {}),
    ("rearrange", (2, 3), "a b -> a c", {}),
    ("rearrange", (2, 3), "a b -> a b ...", {}),
    ("rearrange", (2, 3), "(a ...) -> a ...", {}),
    ("rearrange", (2, 3), "a b -> a b 2", {}),
    ("rearrange", (2, 3), "a (b c)) -> a b c", {}),
    ("rearrange", (2, 3), "a ((b)) -> a b", {}),
    ("rearrange", (2, 3), "a (b -> a b", {}),
    ("rearrange", (2, 3), "a b -> a b", {"c": 2}),
    ("rearrange", (2, 3), "a b", {}),
    ("rearrange", (2, 3), "a b -> a -> b", {}),
    ("rearrange", (2, 3), "a .. -> a", {}),
    ("rearrange", (2, 3), "a_ b -> a_ b", {}),
    ("rearrange", (2, 3), "a b! -> a b!", {}),
    ("rearrange", (2, 3), "a b -> b a", {"a": 3}),
    ("rearrange", (2, 3), "1 a -> a", {}),
    ("rearrange", (2, 3, 4), "a ... -> ... a ...", {}),
    ("reduce", (2, 3), "a b -> a c", {}),
    ("reduce", (2, 3), "a b -> a b ...", {}),
    ("reduce", (2,), "a b ... -> a", {}),
    ("repeat", (2, 3), "a b -> a", {}),
    ("repeat", (2, 3), "a b -> a b c", {}),
    ("repeat", (2, 3), "... b -> b", {}),
    ("repeat", (2, 3), "a 3 -> a 3", {}),
    ("repeat", (2, 3), "a b -> a b 0", {}),
    ("repeat", (2, 3), "a b -> (a c) b", {"c": 2, "d": 3}),
]


@pytest.mark.parametrize(
    "kind, shape, pattern, lengths", ERRORS, ids=[f"{e[0]}: {e[2]}" for e in ERRORS]
)
def test_errors_match_einops(kind, shape, pattern, lengths):
    x, t = _pair(shape, 0)
    args = ("sum",) if kind == "reduce" else ()
    with pytest.raises(Exception):
        getattr(einops, kind)(t, pattern, *args, **lengths)
    with pytest.raises((lucid.errors.ArgumentError, lucid.errors.ShapeError)) as info:
        getattr(E, kind)(x, pattern, *args, **lengths)
    msg = str(info.value)
    assert msg.startswith(f"{kind}: ") and repr(pattern) in msg and str(shape) in msg, msg


def test_error_messages_name_the_problem():
    x = lucid.zeros(7, 3)
    with pytest.raises(lucid.errors.ShapeError, match=r"length 7 does not divide .*a=2"):
        E.rearrange(x, "(a b) c -> a b c", a=2)
    with pytest.raises(lucid.errors.ArgumentError, match="'c' appear on one side only"):
        E.rearrange(x, "a b -> a c")
    with pytest.raises(lucid.errors.ArgumentError, match="axis 'a' appears twice"):
        E.rearrange(x, "a a -> a")
    with pytest.raises(lucid.errors.ShapeError, match=r"expected 3 dims, got a 2-dim"):
        E.rearrange(x, "a b c -> a b c")
    with pytest.raises(lucid.errors.ArgumentError, match="length of new axis 'c'"):
        E.repeat(x, "a b -> a b c")
    with pytest.raises(lucid.errors.ArgumentError, match="unknown reduction 'median'"):
        E.reduce(x, "a b -> a", "median")
    with pytest.raises(lucid.errors.ArgumentError, match="unknown reduction 'median'"):
        E.reduce(x, "a b -> a b", "median")  # checked even when nothing is reduced
    with pytest.raises(lucid.errors.ArgumentError, match="empty list"):
        E.rearrange([], "a b -> b a")
    with pytest.raises(lucid.errors.ShapeError, match=r"^rearrange: .*\(2, 3\), \(3, 2\)"):
        E.rearrange([lucid.zeros(2, 3), lucid.zeros(3, 2)], "n a b -> a b n")
    with pytest.raises(lucid.errors.ArgumentTypeError):
        E.rearrange(np.zeros((2, 3)), "a b -> b a")
    for call in (
        lambda: E.rearrange(x, ["a b -> b a"]),
        lambda: E.pack([x], ["a *"]),
        lambda: E.unpack(x, [(3,)], None),
    ):
        with pytest.raises(lucid.errors.ArgumentTypeError, match="pattern must be a string"):
            call()
    with pytest.raises(lucid.errors.ArgumentError, match="length of axis 'a' must be"):
        E.rearrange(x, "(a b) c -> a b c", a=2.0)


PACK_ERRORS = [
    lambda m, xs: m.pack(xs, "a b c *"),  # too few dims
    lambda m, xs: m.pack(xs, "a b"),  # no *
    lambda m, xs: m.pack(xs, "a * *"),
    lambda m, xs: m.pack(xs, "a * a"),
    lambda m, xs: m.pack(xs, "b * a"),  # leading dims differ
    lambda m, xs: m.unpack(xs[1], [(2,), (1,)], "a *"),  # wrong dims
    lambda m, xs: m.unpack(xs[0], [(-1,), (-1,)], "a *"),
    lambda m, xs: m.unpack(xs[0], [(2,), (2,)], "a *"),  # sizes do not add up
    lambda m, xs: m.einsum(xs[0], "i j -> i k"),
    lambda m, xs: m.einsum(xs[0], "(i j) -> i"),
    lambda m, xs: m.einsum(xs[0], "i j"),
    lambda m, xs: m.einsum(xs[0], "i, j -> i j"),
    lambda m, xs: m.einsum(xs[0], xs[0], "i j, j k -> i k"),  # 3 != 2
]


@pytest.mark.parametrize("call", PACK_ERRORS, ids=[str(i) for i in range(len(PACK_ERRORS))])
def test_pack_and_einsum_errors_match_einops(call):
    xs_l, xs_t = zip(*[_pair(s, 0) for s in [(2, 3), (3, 3, 3)]])
    with pytest.raises(Exception):
        call(einops, list(xs_t))
    with pytest.raises(lucid.errors.LucidError) as info:
        call(E, list(xs_l))
    assert str(info.value).startswith(("pack: ", "unpack: ", "einsum: ")), str(info.value)


# -- the rest ----------------------------------------------------------------------------


def test_plan_is_cached():
    x = lucid.randn(4, 6)
    E.rearrange(x, "a (b c) -> c a b", b=2)
    hits = plan.cache_info().hits
    E.rearrange(x, "a (b c) -> c a b", b=2)
    assert plan.cache_info().hits == hits + 1


def test_views_and_integer_lengths():
    x = lucid.arange(24.0).reshape(4, 6)
    y = E.rearrange(x, "a (b c) -> c a b", b=np.int64(2))  # reshape + permute: a view
    x.add_(1)
    assert y[0, 0, 0].item() == 1.0


def test_second_order_gradient():
    x, t = _pair((4, 6), 0)
    y = E.reduce(E.rearrange(x, "a (b c) -> c a b", b=2) ** 3, "c a b -> a", "sum")
    u = einops.reduce(einops.rearrange(t, "a (b c) -> c a b", b=2) ** 3, "c a b -> a", "sum")
    (g,) = lucid.autograd.grad(y.sum(), x, create_graph=True)
    (gt,) = torch.autograd.grad(u.sum(), t, create_graph=True)
    _close(g, gt)
    _close(lucid.autograd.grad(g.sum(), x)[0], torch.autograd.grad(gt.sum(), t)[0])


@pytest.mark.parametrize("pattern", ["b _ h w", "b ... w", "... 1 w", "_ _ 1 w", "b c 1 w"])
def test_parse_shape(pattern):
    x, t = _pair((2, 3, 1, 5), 0)
    assert E.parse_shape(x, pattern) == einops.parse_shape(t, pattern)


def test_parse_shape_errors():
    x = lucid.zeros(2, 3)
    for pattern in ["a b c", "a 1", "(a b)"]:
        with pytest.raises(lucid.errors.LucidError, match="parse_shape: "):
            E.parse_shape(x, pattern)


def test_integer_and_bool_tensors():
    x = lucid.arange(12).reshape(3, 4)
    assert E.reduce(x, "a b -> b", "sum").tolist() == [12, 15, 18, 21]
    assert E.reduce(x > 5, "a b -> a", "any").tolist() == [False, True, True]
    assert E.reduce(x > 0, "a b -> a", "all").tolist() == [False, True, True]
    with pytest.raises(lucid.errors.DTypeError, match="^reduce: .*pattern 'a b -> b'"):
        E.reduce(x, "a b -> b", "mean")


def test_layers():
    x, t = _pair((2, 3, 4, 6), 0)
    model = lucid.nn.Sequential(
        E.layers.Rearrange("b c h (w p) -> b (h w) (p c)", p=2),
        E.layers.Reduce("b n (c 2) -> b c", "max"),
    )
    reference = torch.nn.Sequential(
        einops.layers.torch.Rearrange("b c h (w p) -> b (h w) (p c)", p=2),
        einops.layers.torch.Reduce("b n (c 2) -> b c", "max"),
    )
    y, u = model(x), reference(t)
    _close(y, u)
    _backward([y], [u], 1)
    _close(x.grad, t.grad)
    assert "Rearrange('b c h (w p) -> b (h w) (p c)', p=2)" in repr(model)
    with pytest.raises(lucid.errors.ArgumentError, match="^Rearrange: .*one side"):
        E.layers.Rearrange("a b -> a")
    with pytest.raises(lucid.errors.ArgumentError, match="^Reduce: unknown reduction"):
        E.layers.Reduce("a b -> a", "median")
