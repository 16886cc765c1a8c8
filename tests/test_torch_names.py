"""Names programs written for PyTorch (or NumPy) reach for: ``lucid.i0`` and
``Tensor.i0``/``i0_``, ``Tensor.cube``/``cube_``, ``lucid.index_put_``,
``lucid.histogram2d``, ``lucid.bool_``, ``Generator(seed=...)`` and ``Tensor.type()``'s
legacy type names (``"lucid.FloatTensor"``), compared with torch (and NumPy) where they
have them."""

import numpy as np
import pytest

import lucid
from lucid.errors import ArgumentError, ArgumentTypeError, ShapeError

torch = pytest.importorskip("torch")


def close(a, b, tol=1e-6):
    np.testing.assert_allclose(
        np.asarray(a.detach().numpy() if hasattr(a, "detach") else a),
        np.asarray(b.detach().numpy() if hasattr(b, "detach") else b),
        rtol=tol,
        atol=tol,
    )


# -- i0 --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_i0_forward_and_gradient_match_torch(dtype):
    x = np.array([[-3.0, -0.5, 0.0], [0.25, 1.5, 4.0]], dtype=dtype)
    lx = lucid.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    ly, ty = lucid.i0(lx), torch.i0(tx)
    close(ly, ty, 1e-5)
    close(lx.i0(), ty, 1e-5)
    assert ly.dtype == getattr(lucid, dtype)
    ly.sum().backward()
    ty.sum().backward()
    close(lx.grad, tx.grad, 1e-5)


def test_i0_of_integers_is_the_default_float_as_torch():
    assert (
        lucid.i0(lucid.tensor([1, 2])).dtype
        == lucid.float32
        == getattr(lucid, str(torch.i0(torch.tensor([1, 2])).dtype).split(".")[1])
    )
    assert (
        lucid.i0(lucid.tensor(1.0)).item()
        == lucid.special.i0(lucid.tensor(1.0)).item()
        == pytest.approx(torch.special.i0(torch.tensor(1.0)).item())
    )


def test_i0_in_place_matches_torch_and_keeps_the_graph():
    x = np.array([0.5, -1.0, 2.0], dtype=np.float64)
    leaf = lucid.tensor(x, requires_grad=True)
    lt = leaf * 2
    assert lt.i0_() is lt
    tleaf = torch.tensor(x, requires_grad=True)
    tt = tleaf * 2
    tt.i0_()
    close(lt, tt)
    lt.sum().backward()
    tt.sum().backward()
    close(leaf.grad, tleaf.grad)
    with pytest.raises(RuntimeError):
        lucid.tensor(x, requires_grad=True).i0_()  # a leaf that requires grad


# -- cube ------------------------------------------------------------------------------


def test_cube_and_cube_in_place():
    x = lucid.tensor([-2.0, 0.5, 3.0], requires_grad=True)
    y = x.cube()
    assert lucid.allclose(y, x * x * x)
    y.sum().backward()
    assert lucid.allclose(x.grad, 3 * x.detach() ** 2)
    z = lucid.tensor([1, -2, 3])
    assert z.cube_() is z and z.tolist() == [1, -8, 27] and z.dtype == lucid.int64


# -- index_put_ ------------------------------------------------------------------------


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_function_matches_torch(accumulate):
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = ([0, 2, 0], [1, 3, 1]) if accumulate else ([0, 2], [1, 3])
    vals = np.array([10.0, 20.0, 30.0][: len(idx[0])], dtype=np.float32)
    lt, tt = lucid.tensor(base), torch.tensor(base)
    out = lucid.index_put_(lt, tuple(lucid.tensor(i) for i in idx), lucid.tensor(vals), accumulate)
    torch.index_put_(tt, tuple(torch.tensor(i) for i in idx), torch.tensor(vals), accumulate)
    assert out is lt
    close(lt, tt)
    close(
        lucid.index_put(
            lucid.tensor(base), tuple(lucid.tensor(i) for i in idx), lucid.tensor(vals), accumulate
        ),
        tt,
    )


# -- histogram2d -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        dict(bins=4),
        dict(bins=(3, 5)),
        dict(bins=3, range=[[-2, 2], [0, 1]]),
        dict(bins=4, density=True),
        dict(bins=[2, 3], weight=True),
    ],
)
def test_histogram2d_matches_numpy(kw):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(50), rng.random(50)
    kw = dict(kw)
    w = rng.random(50) if kw.pop("weight", False) else None
    ref = np.histogram2d(
        x, y, bins=kw["bins"], range=kw.get("range"), density=kw.get("density", False), weights=w
    )
    out = lucid.histogram2d(
        lucid.tensor(x),
        lucid.tensor(y),
        kw["bins"],
        range=kw.get("range"),
        density=kw.get("density", False),
        weight=None if w is None else lucid.tensor(w),
    )
    hist, xe, ye = out
    close(hist, ref[0], 1e-10)
    close(xe, ref[1], 1e-12)
    close(ye, ref[2], 1e-12)
    assert out.hist is hist and out.x_edges is xe and out.y_edges is ye


def test_histogram2d_matches_torch_histogramdd_of_the_pairs():
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(40).astype(np.float32), rng.standard_normal(40).astype(np.float32)
    ref = torch.histogramdd(torch.tensor(np.stack([x, y], 1)), bins=[3, 4])
    hist, xe, ye = lucid.histogram2d(lucid.tensor(x), lucid.tensor(y), bins=[3, 4])
    close(hist, ref.hist)
    close(xe, ref.bin_edges[0])
    close(ye, ref.bin_edges[1])


def test_histogram2d_rejects_mismatched_inputs():
    with pytest.raises(
        ShapeError, match="histogram2d: x and y must be 1-D tensors of the same length"
    ):
        lucid.histogram2d(lucid.ones(3), lucid.ones(4))
    with pytest.raises(ShapeError, match="histogram2d"):
        lucid.histogram2d(lucid.ones(2, 2), lucid.ones(2, 2))
    with pytest.raises(ArgumentTypeError, match="histogram2d: range must be a sequence"):
        lucid.histogram2d(lucid.ones(3), lucid.ones(3), range=3)


# -- bool_, Generator(seed=) -----------------------------------------------------------


def test_bool_is_the_bool_dtype():
    assert lucid.bool_ is lucid.bool
    assert lucid.zeros(2, dtype=lucid.bool_).dtype == lucid.bool


def test_generator_seed_argument_is_manual_seed():
    a = lucid.rand(5, generator=lucid.Generator(seed=123))
    b = lucid.rand(5, generator=lucid.Generator().manual_seed(123))
    assert lucid.equal(a, b)
    assert lucid.Generator(seed=-1).initial_seed() == 2**64 - 1
    assert lucid.Generator().initial_seed() == torch.Generator().initial_seed()
    with pytest.raises(TypeError, match="Generator: expected an int seed"):
        lucid.Generator(seed=1.5)


# -- Tensor.type -----------------------------------------------------------------------

DTYPES = [
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "bool",
    "complex64",
    "complex128",
]


@pytest.mark.parametrize("name", DTYPES)
def test_type_names_are_torchs_with_the_lucid_prefix(name):
    t = lucid.zeros(2, dtype=getattr(lucid, name))
    ref = torch.zeros(2, dtype=getattr(torch, name)).type()
    assert t.type() == ref.replace("torch.", "lucid.", 1)


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("prefix", ["lucid.", "torch."])
def test_type_with_a_type_name_casts_as_torch(name, prefix):
    tname = torch.zeros(1, dtype=getattr(torch, name)).type().split(".")[1]
    src = np.array([1.5, -2.0, 0.0], dtype=np.float32)
    out = lucid.tensor(src).type(prefix + tname)
    ref = torch.tensor(src).type("torch." + tname)
    assert out.dtype == getattr(lucid, name)
    wide = "complex128" if name.startswith("complex") else "float64"
    close(out.to(getattr(lucid, wide)), ref.to(getattr(torch, wide)))


def test_type_with_a_dtype_casts_and_returns_self_when_nothing_changes():
    t = lucid.tensor([1.7, -2.2])
    assert t.type(lucid.int32).tolist() == torch.tensor([1.7, -2.2]).type(torch.int32).tolist()
    assert t.type(lucid.float32) is t
    assert t.type("lucid.FloatTensor") is t
    assert t.type("torch.FloatTensor") is t


@pytest.mark.parametrize(
    "bad",
    [
        "xyz",
        "lucid.float32",
        "torch.float32",
        "lucid.Float",
        "numpy.FloatTensor",
        "lucid.cpu.FloatTensor",
    ],
)
def test_type_rejects_what_torch_rejects(bad):
    with pytest.raises(ValueError):
        torch.zeros(1).type(bad.replace("lucid", "torch"))
    with pytest.raises(ArgumentError, match="type: invalid type"):
        lucid.zeros(1).type(bad)
    with pytest.raises(ArgumentTypeError, match="type: expected a dtype or a tensor type"):
        lucid.zeros(1).type(3)


@pytest.mark.skipif(lucid.cuda.is_available(), reason="a GPU is present")
def test_a_cuda_type_name_asks_for_cuda():
    with pytest.raises(lucid.errors.DeviceError):
        lucid.zeros(1).type("lucid.cuda.FloatTensor")


def test_module_type_and_parameter_list_repr():
    m = lucid.nn.Linear(2, 2).type(lucid.float64)
    assert m.weight.dtype == lucid.float64
    p = lucid.nn.ParameterList([lucid.nn.Parameter(lucid.ones(2))])
    tp = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2))])
    assert repr(p) == repr(tp).replace("torch.", "lucid.")


# -- legacy tensor types ---------------------------------------------------------------

LEGACY = [
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "BFloat16Tensor",
    "ByteTensor",
    "CharTensor",
    "ShortTensor",
    "IntTensor",
    "LongTensor",
    "BoolTensor",
]


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_types_construct_and_match_as_torch(name):
    L, T = getattr(lucid, name), getattr(torch, name)
    assert str(L.dtype).split(".")[1] == str(T.dtype).split(".")[1]
    assert repr(L) == repr(T).replace("torch", "lucid")
    assert repr(getattr(lucid.cuda, name)) == repr(getattr(torch.cuda, name)).replace(
        "torch", "lucid"
    )
    assert L.is_cuda is False and getattr(lucid.cuda, name).is_cuda is True
    assert issubclass(L, lucid.Tensor)
    e, te = L(2, 3), T(2, 3)  # uninitialised, by sizes
    assert tuple(e.shape) == tuple(te.shape) and e.dtype is L.dtype
    assert tuple(L().shape) == tuple(T().shape) == (0,)
    d, td = L([1, 0, 1]), T([1, 0, 1])  # from data
    assert d.tolist() == td.tolist() and d.dtype is L.dtype
    assert isinstance(d, L) and isinstance(td, T)
    other = "IntTensor" if name != "IntTensor" else "LongTensor"
    assert not isinstance(d, getattr(lucid, other)) and not isinstance(td, getattr(torch, other))
    assert not isinstance(d, getattr(lucid.cuda, name))
    assert not isinstance([1], L)
    assert lucid.ones(2).type(L).dtype is L.dtype
    assert lucid.ones(2).type(L).type() == torch.ones(2).type(T).type().replace("torch", "lucid")


def test_old_gan_code_reads_as_with_torch():
    # the pattern of many pre-1.0 programs: pick the tensor type, build and test with it
    Tensor = lucid.cuda.FloatTensor if lucid.cuda.is_available() else lucid.FloatTensor
    z = Tensor(4, 8).normal_(0, 1)
    assert isinstance(z, Tensor) and z.type() in ("lucid.FloatTensor", "lucid.cuda.FloatTensor")
    assert not isinstance(z.data, lucid.cuda.FloatTensor) or lucid.cuda.is_available()
