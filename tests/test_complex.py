"""Complex dtypes: promotion (a table against PyTorch's), creation, repr, parts and views,
conversions, the ops that refuse complex input, and autograd on complex tensors (PyTorch's
conjugate-Wirtinger convention) against torch's ``.grad`` and finite differences. The
registry suite runs every complex-capable op's samples in complex128 and complex64."""

import itertools
import warnings

import numpy as np
import pytest
import torch

import lucid
from lucid.autograd.gradcheck import gradcheck, gradgradcheck
from lucid.errors import AutogradError, DTypeError, ShapeError

DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
# PyTorch's complex32 (float16 parts) is not provided: Lucid makes complex64 there
_NO_COMPLEX32 = {"complex32": "complex64"}


def _name(d):
    n = str(d).split(".")[-1]
    return _NO_COMPLEX32.get(n, n)


def _z(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)


@pytest.fixture
def float64_default():
    lucid.set_default_dtype(lucid.float64)
    torch.set_default_dtype(torch.float64)
    yield
    lucid.set_default_dtype(lucid.float32)
    torch.set_default_dtype(torch.float32)


# -- dtypes and promotion ---------------------------------------------------------------------


def test_promote_types_table_matches_torch():
    for a, b in itertools.product(DTYPES, DTYPES):
        got = lucid.promote_types(getattr(lucid, a), getattr(lucid, b))
        assert got.name == _name(torch.promote_types(getattr(torch, a), getattr(torch, b))), (a, b)


def _both(dt, shape):
    return (
        lucid.zeros(shape, dtype=getattr(lucid, dt)),
        torch.zeros(shape, dtype=getattr(torch, dt)),
    )


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_result_type_of_tensors_0d_and_scalars_matches_torch(default):
    lucid.set_default_dtype(getattr(lucid, default))
    torch.set_default_dtype(getattr(torch, default))
    try:
        for a, b in itertools.product(DTYPES, DTYPES):
            la, ta = _both(a, (2,))
            lb, tb = _both(b, ())
            assert lucid.result_type(la, lb).name == _name(torch.result_type(ta, tb)), (a, b)
        for a in DTYPES:
            la, ta = _both(a, (2,))
            l0, t0 = _both(a, ())
            for s in (True, 2, 2.5, 1j, 1 + 2j):
                assert lucid.result_type(la, s).name == _name(torch.result_type(ta, s)), (a, s)
                assert lucid.result_type(l0, s).name == _name(torch.result_type(t0, s)), (a, s)
    finally:
        lucid.set_default_dtype(lucid.float32)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize(
    "dt, scalar, want",
    [
        ("float32", 1j, "complex64"),
        ("float64", 1j, "complex128"),
        ("int64", 1j, "complex64"),
        ("bool", 2j, "complex64"),
        ("bfloat16", 1j, "complex64"),
        ("complex64", 2.5, "complex64"),
        ("complex128", 3, "complex128"),
    ],
)
def test_arithmetic_with_python_complex_scalars(dt, scalar, want):
    x = lucid.ones(2, dtype=getattr(lucid, dt))
    t = torch.ones(2, dtype=getattr(torch, dt))
    for lr, tr in ((x * scalar, t * scalar), (scalar + x, scalar + t), (x / scalar, t / scalar)):
        assert lr.dtype.name == want
        np.testing.assert_allclose(lr.numpy(), tr.numpy(), rtol=1e-2)


def test_int_tensor_times_1j_follows_the_default_dtype(float64_default):
    assert (lucid.arange(3) * 1j).dtype is lucid.complex128
    assert lucid.tensor([1 + 2j]).dtype is lucid.complex128


def test_mixed_tensor_promotion_of_binary_ops():
    a = lucid.tensor([1.0, 2.0], dtype=lucid.float64)
    z = lucid.tensor([1j, 2 - 1j], dtype=lucid.complex64)
    assert (a + z).dtype is lucid.complex128
    assert (lucid.tensor([1.0], dtype=lucid.float16) * z).dtype is lucid.complex64
    assert (lucid.ones(2) + lucid.tensor(1j, dtype=lucid.complex128)).dtype is lucid.complex64


def test_dtype_attributes_and_conversions():
    c64, c128 = lucid.complex64, lucid.complex128
    assert lucid.cfloat is c64 and lucid.cdouble is c128
    assert c64.is_complex and not c64.is_floating_point and c64.itemsize == 8
    assert c128.itemsize == 16 and c64.is_signed
    assert not lucid.float32.is_complex
    assert c64.to_real() is lucid.float32 and c128.to_real() is lucid.float64
    assert lucid.float32.to_real() is lucid.float32
    assert lucid.float32.to_complex() is c64 and lucid.float64.to_complex() is c128
    assert c64.to_complex() is c64
    for d in (lucid.float16, lucid.int32):
        with pytest.raises(DTypeError, match="to_complex"):
            d.to_complex()
    assert lucid.dtypes.as_dtype("cfloat") is c64 and lucid.dtypes.as_dtype(torch.cdouble) is c128
    assert lucid.dtypes.as_dtype(np.complex64) is c64
    assert repr(c64) == "lucid.complex64"
    assert not lucid.can_cast(c64, lucid.float64) and lucid.can_cast(lucid.float64, c64)


def test_finfo_of_complex_is_that_of_its_parts_and_iinfo_refuses():
    for c, f in ((lucid.complex64, torch.complex64), (lucid.complex128, torch.complex128)):
        got, want = lucid.finfo(c), torch.finfo(f)
        assert (got.eps, got.max, got.min, got.tiny, got.bits, got.resolution) == (
            want.eps,
            want.max,
            want.min,
            want.tiny,
            want.bits,
            want.resolution,
        )
        assert got.dtype == str(want.dtype).split(".")[-1]
    with pytest.raises(DTypeError, match="iinfo"):
        lucid.iinfo(lucid.complex64)


# -- creation, repr, conversions --------------------------------------------------------------


def test_tensor_from_python_and_numpy_complex():
    t = lucid.tensor([1 + 2j, 3])
    assert t.dtype is lucid.complex64 and t.is_complex() and lucid.is_complex(t)
    assert t.tolist() == [1 + 2j, 3 + 0j]
    assert lucid.tensor(1j).dtype is lucid.complex64
    assert lucid.tensor(np.array([1j])).dtype is lucid.complex128
    assert lucid.tensor([np.complex128(1j)]).dtype is lucid.complex128  # as torch
    assert lucid.tensor([1, 2], dtype=lucid.complex128).tolist() == [1 + 0j, 2 + 0j]
    with pytest.raises(DTypeError, match="complex"):
        lucid.tensor([1j], dtype=lucid.float32)
    assert not lucid.tensor([1.0]).is_complex()


def test_item_complex_and_real_conversions():
    z = lucid.tensor([1.5 - 2j], dtype=lucid.complex128)
    assert z.item() == 1.5 - 2j and isinstance(z.item(), complex)
    assert complex(z) == 1.5 - 2j
    assert complex(lucid.tensor(2.0)) == 2 + 0j
    with pytest.raises(TypeError, match="complex"):
        float(z)
    with pytest.raises(TypeError):
        int(z)


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_factories_with_complex_dtypes(dt):
    ld, td = getattr(lucid, dt), getattr(torch, dt)
    pairs = [
        (lucid.zeros(2, 3, dtype=ld), torch.zeros(2, 3, dtype=td)),
        (lucid.ones(3, dtype=ld), torch.ones(3, dtype=td)),
        (lucid.full((2,), 1 - 2j, dtype=ld), torch.full((2,), 1 - 2j, dtype=td)),
        (lucid.eye(3, dtype=ld), torch.eye(3, dtype=td)),
        (lucid.zeros_like(lucid.ones(2), dtype=ld), torch.zeros(2, dtype=td)),
    ]
    for l, t in pairs:
        assert l.dtype.name == dt
        np.testing.assert_array_equal(l.numpy(), t.numpy())
    assert lucid.empty(4, dtype=ld).shape == (4,) and lucid.empty(4, dtype=ld).dtype is ld
    x = lucid.zeros(3, dtype=ld).fill_(2j)
    np.testing.assert_array_equal(x.numpy(), np.full(3, 2j))
    assert lucid.full((2,), 1 + 1j).dtype is lucid.complex64  # inferred from the value
    with pytest.raises(DTypeError, match="complex value"):
        lucid.full((2,), 1j, dtype=lucid.float32)


@pytest.mark.parametrize(
    "args, dt",
    [
        ((0, 1 + 1j, 5), None),
        ((1j, -2, 4), "complex128"),
        ((0, 2, 3), "complex64"),
        ((0, 1j, 1), None),
        ((2j, 1j, 0), None),
    ],
)
def test_linspace_and_logspace_with_complex_ends(args, dt):
    for fn in ("linspace", "logspace"):
        got = getattr(lucid, fn)(*args, **({"dtype": getattr(lucid, dt)} if dt else {}))
        want = getattr(torch, fn)(*args, **({"dtype": getattr(torch, dt)} if dt else {}))
        assert got.dtype.name == str(want.dtype).split(".")[-1]
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_randn_and_rand_with_complex_dtype():
    lucid.manual_seed(0)
    z = lucid.randn(40000, dtype=lucid.complex64)
    assert z.dtype is lucid.complex64
    # the standard complex normal: each part N(0, 1/2), E|z|^2 = 1
    for part in (z.real, z.imag):
        assert abs(part.mean().item()) < 0.02 and abs(part.var().item() - 0.5) < 0.02
    assert abs((z.abs() ** 2).mean().item() - 1) < 0.03
    u = lucid.rand(40000, dtype=lucid.complex128)
    assert u.dtype is lucid.complex128
    for part in (u.real, u.imag):
        assert 0 <= part.min().item() and part.max().item() < 1
        assert abs(part.mean().item() - 0.5) < 0.01
    assert lucid.randn_like(z[:3]).dtype is lucid.complex64
    n = lucid.normal(1.0, 2.0, (40000,), dtype=lucid.complex128)
    w = lucid.zeros(40000, dtype=lucid.complex64).normal_(1.0, 2.0)
    for x in (n, w):  # PyTorch's complex normal: each part N(mean, std^2 / 2)
        for part in (x.real, x.imag):
            assert abs(part.mean().item() - 1) < 0.03 and abs(part.var().item() - 2) < 0.06
    v = lucid.zeros(40000, dtype=lucid.complex64).uniform_(-1, 3)
    for part in (v.real, v.imag):
        assert -1 <= part.min().item() and part.max().item() < 3
        assert abs(part.mean().item() - 1) < 0.03
    with pytest.raises(DTypeError, match="randint"):
        lucid.randint(0, 3, (2,), dtype=lucid.complex64)


@pytest.mark.parametrize(
    "values, dt",
    [
        ([1 + 2j, -3.5j, 0, 1e10 + 1j], "complex64"),
        ([[1.5 + 2j], [3 + 0j]], "complex128"),
        ([0.25 - 0.125j, -1.5 + 1j], "complex64"),
        ([1 + 1j], "complex128"),
        ([1e-5 + 1j, 2 - 3j, float("nan") + 1j, complex(1, float("inf"))], "complex64"),
    ],
)
def test_repr_matches_torch(values, dt):
    lt = lucid.tensor(values, dtype=getattr(lucid, dt))
    tt = torch.tensor(values, dtype=getattr(torch, dt))
    assert repr(lt) == repr(tt).replace("torch.", "lucid.")


def test_repr_of_0d_empty_and_grad_tensors_matches_torch():
    for lt, tt in (
        (lucid.tensor(1 + 2j), torch.tensor(1 + 2j)),
        (lucid.zeros(0, dtype=lucid.complex64), torch.zeros(0, dtype=torch.complex64)),
        (lucid.tensor([1j], requires_grad=True), torch.tensor([1j], requires_grad=True)),
        (lucid.zeros(3, dtype=lucid.complex64), torch.zeros(3, dtype=torch.complex64)),
    ):
        assert repr(lt) == repr(tt).replace("torch.", "lucid.")


def test_repr_hides_complex128_under_a_float64_default(float64_default):
    assert repr(lucid.tensor([1 + 2j])) == repr(torch.tensor([1 + 2j]))
    assert "dtype=lucid.complex64" in repr(lucid.tensor([1j], dtype=lucid.complex64))


def test_float_cast_discards_the_imaginary_part_with_a_warning():
    z = lucid.tensor([1 + 2j, -3 - 1j])
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        x = z.float()
    assert x.dtype is lucid.float32 and x.tolist() == [1.0, -3.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lucid.tensor([1.0]).to(lucid.complex64).tolist() == [1 + 0j]


def test_in_place_complex_result_into_a_real_tensor_raises():
    x = lucid.ones(2)
    with pytest.raises(DTypeError, match="can't be cast"):
        x.add_(lucid.tensor([1j, 1j]))
    for op, call in (
        ("masked_fill", lambda: x.masked_fill(x > 0, 1j)),
        ("masked_fill", lambda: x.masked_fill(x > 0, lucid.tensor(2j))),
        ("__setitem__", lambda: x.__setitem__(0, 1j)),
        ("index_fill", lambda: x.index_fill(0, lucid.tensor([0]), 1j)),
        ("full_like", lambda: lucid.full_like(x, 1j)),
        ("fill_", lambda: x.fill_(1j)),
    ):
        with pytest.raises(DTypeError, match=op):
            call()
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        x[0] = lucid.tensor(1 + 1j)  # a tensor value is cast, as PyTorch
    assert x.tolist() == [1.0, 1.0]


def test_save_and_load_round_trip(tmp_path):
    z = lucid.tensor(_z(3, 2))
    w = lucid.tensor([1 - 1j], dtype=lucid.complex64)
    lucid.save({"z": z, "w": w}, tmp_path / "c.pt")
    back = lucid.load(tmp_path / "c.pt")
    assert back["z"].dtype is lucid.complex128 and back["w"].dtype is lucid.complex64
    np.testing.assert_array_equal(back["z"].numpy(), z.numpy())
    np.testing.assert_array_equal(back["w"].numpy(), w.numpy())
    # safetensors has complex64 ("C64", PyTorch reads it) but no complex128
    from safetensors.torch import load_file, save_file

    lucid.save_safetensors({"w": w}, tmp_path / "w.safetensors")
    np.testing.assert_array_equal(load_file(tmp_path / "w.safetensors")["w"].numpy(), w.numpy())
    save_file({"t": torch.tensor([3j, 1], dtype=torch.complex64)}, tmp_path / "t.safetensors")
    t = lucid.load_safetensors(tmp_path / "t.safetensors")["t"]
    assert t.dtype is lucid.complex64 and t.tolist() == [3j, 1 + 0j]
    with pytest.raises(lucid.errors.SerializationError, match="complex128"):
        lucid.save_safetensors({"z": z}, tmp_path / "z.safetensors")


# -- parts, conjugate and views ---------------------------------------------------------------


def test_real_and_imag_are_views_sharing_storage_and_version():
    z = lucid.tensor(_z(2, 3))
    re, im = z.real, z.imag
    assert re.dtype is lucid.float64 and im.dtype is lucid.float64
    assert re.stride() == (6, 2) and im.storage_offset() == 1
    re[0, 0] = 5.0
    im.mul_(2)
    want = _z(2, 3)
    want[0, 0] = 5 + want[0, 0].imag * 1j
    want.imag *= 2
    np.testing.assert_allclose(z.numpy(), want)
    assert z._version == re._version == 2
    z.real = lucid.zeros(2, 3, dtype=lucid.float64)
    np.testing.assert_allclose(z.numpy().real, 0)
    np.testing.assert_allclose(z.numpy().imag, want.imag)


def test_real_of_real_is_itself_and_imag_of_real_raises():
    x = lucid.ones(2)
    assert x.real is x and lucid.real(x) is x
    with pytest.raises(DTypeError, match="imag is not implemented"):
        x.imag


def test_conj_copies_and_resolve_conj_is_the_identity():
    z = lucid.tensor(_z(3))
    c = z.conj()
    np.testing.assert_array_equal(c.numpy(), np.conj(_z(3)))
    assert not c.is_conj() and c.resolve_conj() is c and c.resolve_neg() is c
    x = lucid.ones(2)
    assert x.conj() is x  # real: no copy, as in PyTorch
    y = x.conj_physical()
    assert y is not x and y.tolist() == [1.0, 1.0]
    z.conj_physical_()
    np.testing.assert_array_equal(z.numpy(), np.conj(_z(3)))


def test_view_as_real_and_view_as_complex_share_memory():
    z = lucid.tensor(_z(2, 3))
    r = lucid.view_as_real(z)
    assert r.shape == (2, 3, 2) and r.stride() == (6, 2, 1)
    r[1, 2, 1] = 9.0
    assert z[1, 2].item().imag == 9.0
    back = lucid.view_as_complex(r)
    assert back.dtype is lucid.complex128 and back.shape == (2, 3)
    np.testing.assert_array_equal(back.numpy(), z.numpy())
    f = lucid.view_as_complex(lucid.ones(4, 2, dtype=lucid.float32))
    assert f.dtype is lucid.complex64


def test_view_as_another_dtype_reinterprets_the_bytes():
    v = _z(2, 3).astype(np.complex64)
    for dt in ("float32", "int32", "complex64", "float64"):
        got = lucid.tensor(v).view(getattr(lucid, dt))
        want = torch.tensor(v).view(getattr(torch, dt))
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    back = lucid.ones(2, 4).view(lucid.complex64)
    assert back.shape == (2, 2) and back.tolist()[0] == [1 + 1j, 1 + 1j]


def test_view_errors_match_torch_conditions():
    with pytest.raises(DTypeError, match="view_as_real: expected a complex tensor"):
        lucid.view_as_real(lucid.ones(3))
    with pytest.raises(ShapeError, match="last dimension of size 2"):
        lucid.view_as_complex(lucid.ones(3, 3))
    with pytest.raises(ShapeError, match="stride 1"):
        lucid.view_as_complex(lucid.ones(2, 4).T)
    with pytest.raises(ShapeError, match="divisible by 2"):
        lucid.view_as_complex(lucid.ones(3, 3)[:, 1:])
    with pytest.raises(DTypeError, match="float32 or float64"):
        lucid.view_as_complex(lucid.ones(3, 2, dtype=lucid.float16))
    for fn in (lucid.polar, lucid.complex):
        with pytest.raises(DTypeError, match="same dtype"):
            fn(lucid.ones(2), lucid.ones(2, dtype=lucid.float64))
        with pytest.raises(DTypeError, match="float32 or float64"):
            fn(lucid.ones(2, dtype=lucid.int64), lucid.ones(2, dtype=lucid.int64))


def test_angle_abs_sgn_values_at_special_points():
    v = [0j, -1 + 0j, 1j, -2 - 2j, complex(np.nan, 1)]
    for name in ("angle", "abs", "sgn"):
        got = getattr(lucid, name)(lucid.tensor(v, dtype=lucid.complex128)).numpy()
        want = getattr(torch, name)(torch.tensor(v, dtype=torch.complex128)).numpy()
        np.testing.assert_allclose(got, want, equal_nan=True)
    got = lucid.angle(lucid.tensor([-1.0, 0.0, 2.0, np.nan])).numpy()
    np.testing.assert_allclose(got, [np.pi, 0, 0, np.nan], equal_nan=True)
    assert lucid.angle(lucid.tensor([-1, 2])).dtype is lucid.float32
    assert lucid.abs(lucid.tensor([3 + 4j])).dtype is lucid.float32
    assert lucid.sgn(lucid.tensor([-2.0, 0.0])).tolist() == [-1.0, 0.0]


# -- ops: values against torch ----------------------------------------------------------------

_UNARY = [
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "sin",
    "cos",
    "tan",
    "sinh",
    "cosh",
    "tanh",
    "sigmoid",
    "expm1",
    "log1p",
    "square",
    "reciprocal",
    "neg",
    "asin",
    "acos",
    "atan",
    "asinh",
    "acosh",
    "atanh",
    "log2",
    "log10",
    "exp2",
    "abs",
    "sgn",
    "angle",
    "conj",
    "isnan",
    "isinf",
    "isfinite",
    "sinc",
    "nan_to_num",
]


@pytest.mark.parametrize("name", _UNARY)
@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_unary_values_match_torch(name, dt):
    v = _z(3, 4).T  # non-contiguous
    got = getattr(lucid, name)(lucid.tensor(v, dtype=getattr(lucid, dt)))
    want = getattr(torch, name)(torch.tensor(v, dtype=getattr(torch, dt)).T.contiguous().T)
    assert got.dtype.name == str(want.dtype).split(".")[-1]
    tol = 1e-5 if dt == "complex64" else 1e-12
    np.testing.assert_allclose(got.numpy(), want.resolve_conj().numpy(), rtol=tol, atol=tol)


def test_binary_and_pow_broadcast_with_mixed_real_and_complex():
    a, b = _z(2, 1, 3), _z(4, 1, seed=1)
    r = np.random.default_rng(2).uniform(0.5, 2, (4, 3))
    cases = [
        lambda m, x, y, w: x + y,
        lambda m, x, y, w: x - w,
        lambda m, x, y, w: w * y,
        lambda m, x, y, w: x / w,
        lambda m, x, y, w: w / x,
        lambda m, x, y, w: x**2,
        lambda m, x, y, w: x ** (1.5 - 0.5j),
        lambda m, x, y, w: (x + 2) ** y,
        lambda m, x, y, w: m.where(w > 1, x, y),
        lambda m, x, y, w: m.lerp(x, y * 1, 0.3),
        lambda m, x, y, w: m.addcmul(x, y, w, value=0.5),
    ]
    for f in cases:
        got = f(lucid, lucid.tensor(a), lucid.tensor(b), lucid.tensor(r))
        want = f(torch, torch.tensor(a), torch.tensor(b), torch.tensor(r))
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_comparisons_eq_ne_only():
    z = lucid.tensor([1 + 1j, 2j])
    assert (z == lucid.tensor([1 + 1j, 2])).tolist() == [True, False]
    assert (z != 2j).tolist() == [True, False]
    assert lucid.eq(z, z).all().item()


@pytest.mark.parametrize(
    "op, call",
    [
        ("lt", lambda z: z < z),
        ("ge", lambda z: lucid.ge(z, 1)),
        ("relu", lucid.relu),
        ("amax", lambda z: z.amax()),
        ("max", lambda z: z.max(0)),
        ("argmax", lucid.argmax),
        ("sort", lucid.sort),
        ("clamp", lambda z: z.clamp(0, 1)),
        ("floor", lucid.floor),
        ("sign", lucid.sign),
        ("maximum", lambda z: lucid.maximum(z, z)),
        ("erf", lucid.erf),
        ("cummax", lambda z: z.cummax(0)),
        ("topk", lambda z: z.topk(1)),
        ("atan2", lambda z: lucid.atan2(z, z)),
        ("remainder", lambda z: z % 2),
        ("logsumexp", lambda z: z.logsumexp(0)),
        ("softmax", lambda z: z.softmax(0)),
        ("nansum", lucid.nansum),
        ("median", lucid.median),
        ("unique", lucid.unique),
        ("log_softmax", lambda z: z.log_softmax(0)),
        ("cdist", lambda z: lucid.cdist(z[None], z[None])),
        ("abs_", lambda z: z.abs_()),
        ("linspace", lambda z: lucid.linspace(0, 1j, 3, dtype=lucid.float32)),
        ("scatter_reduce", lambda z: z.scatter_reduce(0, lucid.tensor([0, 0]), z, "amax")),
        ("cosine_similarity", lambda z: lucid.nn.functional.cosine_similarity(z[None], z[None])),
    ],
)
def test_ops_without_complex_support_raise_naming_the_op(op, call):
    z = lucid.tensor([1 + 1j, 2 - 1j])
    with pytest.raises(DTypeError, match=op):
        call(z)


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_reductions_match_torch(dt):
    v = _z(3, 4)
    lz, tz = lucid.tensor(v, dtype=getattr(lucid, dt)), torch.tensor(v, dtype=getattr(torch, dt))
    tol = 1e-5 if dt == "complex64" else 1e-12
    for f in (
        lambda x: x.sum(),
        lambda x: x.sum(1, keepdim=True),
        lambda x: x.mean(0),
        lambda x: x.prod(1),
        lambda x: x.cumsum(-1),
        lambda x: x.cumprod(0),
        lambda x: x.diff(dim=1),
        lambda x: x.count_nonzero(),
        lambda x: x.any(),
        lambda x: x.var(1),
        lambda x: x.std(),
        lambda x: x.norm(),
        lambda x: x.norm(1, 0),
        lambda x: x.dist(x * 2j, 3),
        lambda x: x.all(0),
    ):
        np.testing.assert_allclose(f(lz).numpy(), f(tz).numpy(), rtol=tol, atol=tol)
    assert lz.sum().dtype.name == dt


def test_matmul_family_matches_torch():
    a, b, c = _z(2, 3, 4), _z(2, 4, 5, seed=1), _z(4, seed=2)
    la, lb, lc = map(lucid.tensor, (a, b, c))
    ta, tb, tc = map(torch.tensor, (a, b, c))
    for f in (
        lambda m, x, y, v: x @ y,
        lambda m, x, y, v: m.bmm(x, y),
        lambda m, x, y, v: m.mm(x[0], y[1]),
        lambda m, x, y, v: m.einsum("bij,bjk->bik", x, y),
        lambda m, x, y, v: m.dot(v, v),
        lambda m, x, y, v: m.vdot(v, v * 2j),
        lambda m, x, y, v: m.mv(x[0], v),
        lambda m, x, y, v: x @ v,
    ):
        np.testing.assert_allclose(
            f(lucid, la, lb, lc).numpy(), f(torch, ta, tb, tc).numpy(), rtol=1e-12
        )
    with pytest.raises(DTypeError, match="matmul: expected all operands to have the same"):
        lucid.tensor(a) @ lucid.tensor(np.ones((4, 2)))  # as torch: no promotion


def test_shape_and_indexing_ops_keep_complex_values():
    v = _z(3, 4)
    lz, tz = lucid.tensor(v), torch.tensor(v)
    mask = np.array([[True, False, True, False]] * 3)
    for f in (
        lambda m, z: z.T.reshape(2, 6),
        lambda m, z: z[1:, ::2],
        lambda m, z: z[[0, 2]],
        lambda m, z: m.cat([z, z * 1j], 1),
        lambda m, z: m.stack([z, z], 0),
        lambda m, z: z.flip(0).roll(1, 1),
        lambda m, z: z.unsqueeze(0).expand(2, 3, 4),
        lambda m, z: z.masked_fill(m.tensor(mask), 1j),
        lambda m, z: z[m.tensor(mask)],
        lambda m, z: z.diagonal(),
        lambda m, z: z.triu(),
        lambda m, z: z.repeat(2, 1),
        lambda m, z: m.chunk(z, 2, 1)[1],
        lambda m, z: z.clone().index_put_(
            (m.tensor([0, 1]),), m.tensor([2j], dtype=m.complex128), accumulate=True
        ),
        lambda m, z: z.gather(1, m.tensor([[0], [3], [1]])),
        lambda m, z: (
            m.nn.functional.pad(z, (1, 1)) if m is torch else lucid.nn.functional.pad(z, (1, 1))
        ),
    ):
        got, want = f(lucid, lz), f(torch, tz)
        assert got.dtype is lucid.complex128
        np.testing.assert_allclose(got.numpy(), want.numpy())
    w = lz.clone()
    w[0] = 5j
    w[1:, 1] += 1
    t = tz.clone()
    t[0] = 5j
    t[1:, 1] += 1
    np.testing.assert_allclose(w.numpy(), t.numpy())


def test_conjugate_transposes_conjugate():
    v = _z(2, 3, 4)
    lz, tz = lucid.tensor(v), torch.tensor(v)
    for f in (lambda z: z.mH, lambda z: z.adjoint(), lambda z: z[0].H, lambda z: z.mT):
        np.testing.assert_array_equal(f(lz).numpy(), f(tz).resolve_conj().numpy())
    x = lucid.ones(2, 3)
    assert x.mH.shape == (3, 2) and x.mH._base is x  # real: still the view mT


def test_closeness_and_logical_ops_accept_complex():
    a = lucid.tensor([1 + 1j, 0j, 2 - 1j])
    b = a + lucid.tensor([1e-9j, 0, 1e-3])
    assert lucid.isclose(a, b).tolist() == [True, True, False]
    assert lucid.allclose(a, a * (1 + 1e-9j)) and not lucid.allclose(a, b)
    assert lucid.logical_not(a).tolist() == [False, True, False]
    assert lucid.logical_and(a, a).tolist() == [True, False, True]
    assert lucid.logical_or(a, lucid.tensor([0j, 1, 0])).tolist() == [True, True, True]
    assert lucid.logical_xor(a, a).tolist() == [False, False, False]
    assert lucid.equal(a, a.clone())
    d = lucid.zeros(3, 3, dtype=lucid.complex64).fill_diagonal_(1j)
    np.testing.assert_array_equal(d.numpy(), np.eye(3) * 1j)
    with pytest.raises(DTypeError, match="complex value"):
        lucid.zeros(2, 2).fill_diagonal_(1j)


def test_autocast_leaves_complex_alone():
    z = lucid.tensor(_z(4, 4), dtype=lucid.complex64)
    with lucid.autocast("cpu", dtype=lucid.bfloat16):
        assert (z @ z).dtype is lucid.complex64
        assert lucid.exp(z).dtype is lucid.complex64


# -- autograd ---------------------------------------------------------------------------------


def _grads(fn, arrays, lib, complex_out=False):
    """The inputs' ``.grad`` after ``fn(*inputs)`` (real: its sum; else of its abs)."""
    ts = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = fn(lib, *ts)
    loss = out.sum() if not out.dtype.is_complex else (out * out.conj()).real.sum() + out.imag.sum()
    loss.backward()
    return [t.grad for t in ts]


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, z, r: (m.exp(z) * r).abs(),
        lambda m, z, r: m.angle(z * r + 1j),
        lambda m, z, r: (z @ z.T.conj() + r[:, :3]).real,
        lambda m, z, r: m.view_as_real(m.tanh(z) / (r + 1j)).sum(-1),
        lambda m, z, r: m.polar(r, m.abs(z)),
        lambda m, z, r: m.complex(r, r * 2) * m.sgn(z),
        lambda m, z, r: (z.conj() * z).imag + z.real,
        lambda m, z, r: m.sqrt(z).prod(1),
        lambda m, z, r: m.where(r > 1, z, z * r).cumsum(0),
        lambda m, z, r: m.view_as_complex(m.stack([r, r * r], -1)) * z,
    ],
    ids=range(10),
)
def test_grads_match_torch(fn):
    z = _z(3, 4)
    r = np.random.default_rng(3).uniform(0.5, 2, (3, 4))
    for lg, tg in zip(_grads(fn, (z, r), lucid), _grads(fn, (z, r), torch)):
        assert (lg is None) == (tg is None)
        if lg is None:
            continue
        assert lg.dtype.name == str(tg.dtype).split(".")[-1]
        np.testing.assert_allclose(lg.numpy(), tg.resolve_conj().numpy(), rtol=1e-10, atol=1e-12)


def test_real_input_keeps_the_real_part_of_its_gradient():
    x = lucid.tensor([1.0, 2.0], dtype=lucid.float64, requires_grad=True)
    (x * (2 + 3j)).abs().sum().backward()
    xt = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (xt * (2 + 3j)).abs().sum().backward()
    assert x.grad.dtype is lucid.float64
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy())


def test_complex_embedding_forward_as_torch_and_gradient_by_finite_differences():
    # PyTorch embeds complex weights but has no autograd for it; Lucid's is checked here
    w, idx = _z(5, 3), np.array([[0, 2, 2], [4, 0, 1]])
    got = lucid.nn.functional.embedding(lucid.tensor(idx), lucid.tensor(w))
    want = torch.nn.functional.embedding(torch.tensor(idx), torch.tensor(w))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    wt = lucid.tensor(w, requires_grad=True)
    f = lambda w: lucid.nn.functional.embedding(lucid.tensor(idx), w) * (1 + 2j)
    assert gradcheck(f, (wt,)) and gradgradcheck(f, (wt,))


def test_nan_to_num_replaces_each_part_and_passes_each_part_of_the_gradient():
    v = [complex(np.nan, 1), complex(np.inf, -np.inf), 1 + 1j, complex(-np.inf, 2)]
    for dt, kw in (("complex64", {}), ("complex128", {"nan": 2.0, "posinf": 5.0})):
        got = lucid.nan_to_num(lucid.tensor(v, dtype=getattr(lucid, dt)), **kw)
        want = torch.nan_to_num(torch.tensor(v, dtype=getattr(torch, dt)), **kw)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    z = lucid.tensor(v, dtype=lucid.complex128, requires_grad=True)
    y = lucid.nan_to_num(z)
    (y.real * 2 + y.imag * 3).sum().backward()
    np.testing.assert_array_equal(z.grad.numpy(), [3j, 0, 2 + 3j, 3j])
    assert gradcheck(lucid.nan_to_num, (lucid.tensor(_z(4), requires_grad=True),))


def test_gradcheck_and_gradgradcheck_on_complex_compositions():
    z = lucid.tensor(_z(2, 3), requires_grad=True)
    w = lucid.tensor(_z(3, 2, seed=1), requires_grad=True)
    r = lucid.tensor(np.random.default_rng(4).uniform(0.5, 2, (2, 3)), requires_grad=True)
    fns = [
        lambda z, w, r: (z @ w).abs() ** 2,
        lambda z, w, r: lucid.log(z * r + 3) * z.conj(),
        lambda z, w, r: lucid.angle(z) * r + lucid.sgn(w).T,
        lambda z, w, r: lucid.view_as_real(z.exp() / (w.T + 2)),
        lambda z, w, r: z.scatter_reduce(1, lucid.tensor([[0, 0, 2]] * 2), z * r, "sum"),
    ]
    for f in fns:
        assert gradcheck(f, (z, w, r))
        assert gradgradcheck(f, (z, w, r))


def test_double_backward_matches_torch():
    def hvp(lib, z):
        z = lib.tensor(z, requires_grad=True)
        y = (lib.sin(z) * z).abs().sum()
        (g,) = lib.autograd.grad(y, z, create_graph=True)
        (h,) = lib.autograd.grad((g * g.conj()).real.sum(), z)
        return g.detach(), h

    for a, b in zip(hvp(lucid, _z(5)), hvp(torch, _z(5))):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10)


def test_backward_of_a_complex_scalar_needs_a_gradient():
    z = lucid.tensor([1 + 1j], requires_grad=True)
    with pytest.raises(AutogradError, match="real scalar outputs"):
        (z * 2).sum().backward()
    (z * 2).sum().backward(lucid.tensor(1 - 1j))
    np.testing.assert_allclose(z.grad.numpy(), [2 - 2j])


def test_requires_grad_on_complex_and_leaf_accumulation():
    z = lucid.zeros(2, dtype=lucid.complex64, requires_grad=True)
    assert z.requires_grad
    (z * 1j).real.sum().backward()
    (z * 1j).real.sum().backward()
    assert z.grad.dtype is lucid.complex64
    np.testing.assert_allclose(z.grad.numpy(), [-2j, -2j])


@pytest.mark.parametrize(
    "name, kw",
    [
        ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
        ("Adam", {"lr": 0.1}),
        ("AdamW", {"lr": 0.1, "amsgrad": True}),
        ("RMSprop", {"lr": 0.05, "centered": True}),
        ("Adagrad", {"lr": 0.1}),
        ("Adamax", {"lr": 0.1}),
        ("NAdam", {"lr": 0.1}),
        ("RAdam", {"lr": 0.1}),
        ("Adadelta", {}),
        ("ASGD", {"lr": 0.1}),
        ("Rprop", {"lr": 0.1}),
    ],
)
def test_optimizers_on_complex_parameters_match_torch(name, kw):
    # PyTorch updates a complex parameter as its (real, imaginary) pairs
    z0 = _z(2, 3)
    lz, tz = lucid.tensor(z0, requires_grad=True), torch.tensor(z0, requires_grad=True)
    lo, to = getattr(lucid.optim, name)([lz], **kw), getattr(torch.optim, name)([tz], **kw)
    for _ in range(4):
        for z, opt in ((lz, lo), (tz, to)):
            opt.zero_grad()
            ((z * z.conj()).real ** 2 + z.real * 3 - z.imag).sum().backward()
            opt.step()
    np.testing.assert_allclose(lz.detach().numpy(), tz.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert lz.dtype is lucid.complex128


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_on_complex_parameters_matches_torch(line_search):
    z0 = _z(2, 3)
    lz, tz = lucid.tensor(z0, requires_grad=True), torch.tensor(z0, requires_grad=True)
    opts = [
        (z, m.optim.LBFGS([z], lr=0.5, max_iter=6, line_search_fn=line_search))
        for z, m in ((lz, lucid), (tz, torch))
    ]
    for _ in range(3):
        for z, opt in opts:

            def closure(z=z, opt=opt):
                opt.zero_grad()
                loss = ((z * z.conj()).real ** 2 + z.real * 3 + (z.imag - 0.5) ** 2).sum()
                loss.backward()
                return loss

            opt.step(closure)
    np.testing.assert_allclose(lz.detach().numpy(), tz.detach().numpy(), rtol=1e-9, atol=1e-11)


def test_vmap_and_func_grad_over_complex():
    v = _z(3, 2)
    f = lambda m: lambda z: m.view_as_real(m.sgn(z) * z.conj()).sum(0) + m.angle(z)[:1]
    np.testing.assert_allclose(
        lucid.func.vmap(f(lucid))(lucid.tensor(v)).numpy(),
        torch.func.vmap(f(torch))(torch.tensor(v)).numpy(),
        rtol=1e-12,
    )
    loss = lambda m: lambda z: (m.polar(z.abs(), m.angle(z) * 2) * z).real.sum()
    np.testing.assert_allclose(
        lucid.func.grad(loss(lucid))(lucid.tensor(v)).numpy(),
        torch.func.grad(loss(torch))(torch.tensor(v)).numpy(),
        rtol=1e-10,
    )
    t = lucid.tensor([1 + 2j, 3 - 1j])
    np.testing.assert_array_equal(torch.from_dlpack(t).numpy(), t.numpy())
    back = lucid.from_dlpack(torch.tensor([1j, 2], dtype=torch.complex64))
    assert back.dtype is lucid.complex64 and back.tolist() == [1j, 2 + 0j]


def test_l1_loss_and_convolution_take_complex_as_torch():
    rng = np.random.default_rng(11)
    a, b = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4)) for _ in range(2))
    out = []
    for lib in (lucid, torch):
        x = lib.tensor(a, requires_grad=True)
        loss = lib.nn.functional.l1_loss(x, lib.tensor(b))
        loss.backward()
        out.append(
            (
                float(loss.detach()),
                x.grad.numpy() if lib is lucid else x.grad.resolve_conj().numpy(),
                str(loss.dtype).split(".")[-1],
            )
        )
    assert out[0][2] == out[1][2] == "float64"  # a real loss
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-12)
    np.testing.assert_allclose(out[0][1], out[1][1], atol=1e-14)
    with pytest.raises(DTypeError, match="mse_loss"):  # PyTorch has no complex mse
        lucid.nn.functional.mse_loss(lucid.tensor(a), lucid.tensor(b))
    x, w = rng.standard_normal((1, 2, 6)) * 1j, rng.standard_normal((3, 2, 3)) + 0.5j
    np.testing.assert_allclose(
        lucid.nn.functional.conv1d(lucid.tensor(x), lucid.tensor(w)).numpy(),
        torch.nn.functional.conv1d(torch.tensor(x), torch.tensor(w)).numpy(),
        atol=1e-12,
    )
