"""``x[index]`` and ``x[index] = value`` against PyTorch over a seeded, generated set of index
expressions: ints (negative), slices (steps, out-of-range bounds), None, Ellipsis, bool
masks, integer tensors and lists (adjacent and separated), Python bools, 0-d integer
tensors, mixed, over 1-4-d tensors (some with empty dims). Values, gradients, views."""

import numpy as np
import pytest
import torch

import lucid

N_GET = 320
N_SET = 220


def _shape(rng):
    nd = int(rng.integers(1, 5))
    sizes = [int(rng.integers(1, 5)) for _ in range(nd)]
    if rng.random() < 0.08:
        sizes[int(rng.integers(nd))] = 0
    return tuple(sizes)


_KINDS = ["int", "slice", "none", "tensor", "list", "int0d", "mask", "bool"]
_P = [0.18, 0.2, 0.08, 0.22, 0.12, 0.06, 0.08, 0.06]
_SPAN = {"int": 1, "slice": 1, "none": 0, "tensor": 1, "list": 1, "int0d": 1, "bool": 0}


def _gen_index(rng, shape):
    """A random valid index for ``shape`` as a list of ``(kind, payload)`` entries."""
    nd = len(shape)
    kinds = []
    used = 0
    advanced = False
    for _ in range(int(rng.integers(1, 6))):
        kind = str(rng.choice(_KINDS, p=_P))
        if kind == "mask":
            if advanced or used >= nd:
                continue
            span = int(rng.integers(1, min(2, nd - used) + 1))
        else:
            span = _SPAN[kind]
            if used + span > nd or (
                kind in ("tensor", "list", "bool") and "mask" in [k for k, _ in kinds]
            ):
                continue
        if kind in ("tensor", "list", "bool") and any(k == "bool" for k, _ in kinds):
            continue
        if kind == "bool" and advanced:
            continue
        advanced |= kind in ("tensor", "list", "mask", "bool")
        kinds.append((kind, span))
        used += span
    if not kinds:
        kinds = [("slice", 1)]
        used = 1
    ell = int(rng.integers(len(kinds) + 1)) if rng.random() < 0.3 else -1
    bshape = [(2,), (3,), (2, 1), (1, 3), (2, 3)][int(rng.integers(5))]
    out = []
    d = 0
    for i, (kind, span) in enumerate(kinds):
        if i == ell:
            out.append(("ell", None))
            d += nd - used
        n = shape[d] if span else 0
        if kind in ("int", "int0d", "tensor", "list") and n == 0:
            kind = "slice"
        if kind == "int":
            out.append((kind, int(rng.integers(-n, n))))
        elif kind == "int0d":
            out.append((kind, np.array(rng.integers(-n, n))))
        elif kind == "slice":

            def bound():
                return None if rng.random() < 0.4 else int(rng.integers(-n - 2, n + 3))

            step = [None, 1, 2, 3][int(rng.integers(4))]
            out.append((kind, slice(bound(), bound(), step)))
        elif kind == "none":
            out.append((kind, None))
        elif kind == "bool":
            out.append((kind, bool(rng.random() < 0.7)))
        elif kind == "mask":
            out.append((kind, rng.random(shape[d : d + span]) < 0.5))
        else:
            sub = bshape[-1:] if rng.random() < 0.3 else bshape
            arr = rng.integers(-n, n, size=sub)
            out.append((kind, arr.tolist() if kind == "list" and arr.ndim == 1 else arr))
        d += span
    if ell == len(kinds):
        out.append(("ell", None))
    return out


def _build(entries, lib):
    items = []
    for kind, v in entries:
        if kind == "ell":
            items.append(Ellipsis)
        elif kind in ("tensor", "mask", "int0d") or (kind == "list" and isinstance(v, np.ndarray)):
            items.append(lib.tensor(v))
        else:
            items.append(v)
    return tuple(items)


def _describe(shape, entries):
    index = [(k, v.tolist() if isinstance(v, np.ndarray) else v) for k, v in entries]
    return f"shape={shape} index={index}"


def _is_basic(entries):
    return all(k in ("int", "slice", "none", "ell", "int0d") for k, _ in entries)


def _cases(seed, n):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        shape = _shape(rng)
        out.append((shape, _gen_index(rng, shape), int(rng.integers(1 << 30))))
    return out


GET_CASES = _cases(0, N_GET)


def _separated(entries):
    """Two or more integer arrays with something between them."""
    pos = [i for i, (k, _) in enumerate(entries) if k in ("tensor", "list")]
    return len(pos) >= 2 and pos[-1] - pos[0] + 1 != len(pos)


def test_generated_get_cases_cover_every_kind():
    kinds = {k for _, e, _ in GET_CASES for k, _ in e}
    assert kinds == set(_KINDS) | {"ell"}
    assert sum(not _is_basic(e) for _, e, _ in GET_CASES) > N_GET // 3
    assert sum(_separated(e) for _, e, _ in GET_CASES) >= 10
    assert sum(0 in s for s, _, _ in GET_CASES) >= 10


@pytest.mark.parametrize("chunk", range(8))
def test_getitem_matches_torch(chunk):
    for shape, entries, seed in GET_CASES[chunk::8]:
        rng = np.random.default_rng(seed)
        data = rng.standard_normal(shape)
        lx = lucid.tensor(data, requires_grad=True)
        tx = torch.tensor(data, requires_grad=True)
        what = _describe(shape, entries)
        ty = tx[_build(entries, torch)]
        ly = lx[_build(entries, lucid)]
        assert tuple(ly.shape) == tuple(ty.shape), what
        np.testing.assert_array_equal(ly.detach().numpy(), ty.detach().numpy(), err_msg=what)
        w = rng.standard_normal(tuple(ty.shape))
        (ty * torch.tensor(w)).sum().backward()
        (ly * lucid.tensor(w)).sum().backward()
        np.testing.assert_allclose(
            lx.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=0, err_msg=what
        )
        if _is_basic(entries):  # a view: same storage and version counter
            assert ly._base is lx and ly._version == lx._version, what
            if ly.numel():
                assert np.shares_memory(ly.detach().numpy(), lx.detach().numpy()), what
        elif ly.numel():
            assert not np.shares_memory(ly.detach().numpy(), lx.detach().numpy()), what


SET_CASES = _cases(1, N_SET)


def _value_shape(rng, target):
    """A shape that broadcasts to ``target``: some dims 1, leading dims dropped or a
    leading 1 added."""
    s = [1 if rng.random() < 0.3 else n for n in target]
    s = s[int(rng.integers(len(s) + 1)) :] if s else s
    if rng.random() < 0.15:
        s = [1] + s
    return tuple(s)


@pytest.mark.parametrize("chunk", range(8))
def test_setitem_matches_torch(chunk):
    for shape, entries, seed in SET_CASES[chunk::8]:
        rng = np.random.default_rng(seed)
        data = rng.standard_normal(shape)
        what = _describe(shape, entries)
        target = tuple(torch.zeros(shape)[_build(entries, torch)].shape)
        ids = torch.arange(int(np.prod(shape))).reshape(shape)[_build(entries, torch)]
        unique = ids.unique().numel() == ids.numel()
        mode = ["scalar", "0d", "tensor"][int(rng.integers(3))]
        vshape = _value_shape(rng, target) if mode == "tensor" else ()
        vdata = rng.standard_normal(vshape)
        w = rng.standard_normal(shape)
        results = []
        for lib in (torch, lucid):
            x = lib.tensor(data, requires_grad=True)
            v = float(vdata) if mode == "scalar" else lib.tensor(vdata, requires_grad=True)
            y = x * 1
            before = y._version
            y[_build(entries, lib)] = v
            assert y._version > before, what
            (y * lib.tensor(w)).sum().backward()
            results.append(
                (y.detach().numpy(), x.grad.numpy(), None if mode == "scalar" else v.grad.numpy())
            )
        (ty, tgx, tgv), (ly, lgx, lgv) = results
        if unique or mode != "tensor":
            np.testing.assert_array_equal(ly, ty, err_msg=what)
        np.testing.assert_allclose(lgx, tgx, rtol=1e-12, atol=0, err_msg=what)
        if tgv is not None:
            np.testing.assert_allclose(lgv, tgv, rtol=1e-12, atol=1e-14, err_msg=what)


@pytest.mark.parametrize("chunk", range(4))
def test_setitem_without_grad_writes_in_place_like_torch(chunk):
    for shape, entries, seed in SET_CASES[chunk::4]:
        rng = np.random.default_rng(seed + 1)
        data = rng.integers(-5, 5, size=shape)
        target = tuple(torch.zeros(shape)[_build(entries, torch)].shape)
        ids = torch.arange(int(np.prod(shape))).reshape(shape)[_build(entries, torch)]
        if ids.unique().numel() != ids.numel():
            continue
        vdata = rng.standard_normal(_value_shape(rng, target)) * 3
        outs = []
        for lib in (torch, lucid):
            x = lib.tensor(data)
            view = x[..., :]
            v = lib.tensor(vdata)  # lucid casts (truncates) to int64 itself
            view[_build(entries, lib)] = v.long() if lib is torch else v
            outs.append(x.numpy())
        np.testing.assert_array_equal(outs[1], outs[0], err_msg=_describe(shape, entries))
