"""lucid.fft against torch.fft: values, dtypes, sizes, norms, errors and gradients.

The registry suite (tests/ops/samples/fft.py) runs gradcheck, gradgradcheck and eager ==
graph for the three ops; here the public surface is checked across its arguments."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import ArgumentError, DTypeError, ShapeError

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 6, 5))
Z = X + 1j * RNG.standard_normal(X.shape)


def _np(t):
    return t.resolve_conj().detach().numpy() if isinstance(t, torch.Tensor) else t.numpy()


def _close(a, b, tol=1e-10):
    assert tuple(a.shape) == tuple(b.shape)
    assert a.dtype.name == str(b.dtype).removeprefix("torch.")
    np.testing.assert_allclose(_np(a), _np(b), atol=tol, rtol=tol)


C2C = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn"]
R2C = ["rfft", "rfft2", "rfftn", "ihfft", "ihfft2", "ihfftn"]
C2R = ["irfft", "irfft2", "irfftn", "hfft", "hfft2", "hfftn"]


@pytest.mark.parametrize("name", C2C + R2C + C2R)
@pytest.mark.parametrize("norm", [None, "backward", "forward", "ortho"])
def test_values_match_torch(name, norm):
    data = Z if name in C2C + C2R else X
    _close(
        getattr(lucid.fft, name)(lucid.tensor(data), norm=norm),
        getattr(torch.fft, name)(torch.tensor(data), norm=norm),
    )


ONE_D = [("fft", Z), ("ifft", Z), ("rfft", X), ("ihfft", X), ("irfft", Z), ("hfft", Z)]


@pytest.mark.parametrize("name,data", ONE_D, ids=[n for n, _ in ONE_D])
@pytest.mark.parametrize("n", [1, 3, 5, 6, 12])
@pytest.mark.parametrize("dim", [0, -2, 2])
def test_one_dim_sizes_and_dims(name, data, n, dim):
    _close(
        getattr(lucid.fft, name)(lucid.tensor(data), n=n, dim=dim),
        getattr(torch.fft, name)(torch.tensor(data), n=n, dim=dim),
    )


N_D = [
    ("fftn", Z),
    ("ifftn", Z),
    ("rfftn", X),
    ("irfftn", Z),
    ("fft2", Z),
    ("irfft2", Z),
    ("rfft2", X),
    ("ifft2", Z),
    ("hfftn", Z),
    ("ihfftn", X),
    ("hfft2", Z),
    ("ihfft2", X),
]


@pytest.mark.parametrize("name,data", N_D, ids=[n for n, _ in N_D])
@pytest.mark.parametrize(
    "s,dim",
    [((3, 8), (0, 2)), ((7, 2), (2, 1)), (None, (1, 0)), ((4, 4), None), ((5, -1), (-1, 0))],
)
def test_n_dim_sizes_and_dims(name, data, s, dim):
    kw = {} if dim is None else {"dim": dim}
    if name.endswith("2") and dim is None:
        kw = {}
    _close(
        getattr(lucid.fft, name)(lucid.tensor(data), s=s, **kw),
        getattr(torch.fft, name)(torch.tensor(data), s=s, **kw),
    )


def test_dtypes_follow_torch():
    for lt, tt in (
        (lucid.float32, torch.float32),
        (lucid.float64, torch.float64),
        (lucid.int64, torch.int64),
    ):
        a, b = lucid.tensor(X).to(lt), torch.tensor(X).to(tt)
        assert lucid.fft.fft(a).dtype.name == str(torch.fft.fft(b).dtype)[6:]
        assert lucid.fft.rfft(a).dtype.name == str(torch.fft.rfft(b).dtype)[6:]
    z64 = lucid.tensor(Z).to(lucid.complex64)
    assert lucid.fft.ifft(z64).dtype is lucid.complex64
    assert lucid.fft.irfft(z64).dtype is lucid.float32
    assert lucid.fft.hfft(z64).dtype is lucid.float32
    _close(
        lucid.fft.fft(lucid.tensor(X, dtype=lucid.float32)),
        torch.fft.fft(torch.tensor(X, dtype=torch.float32)),
        tol=1e-5,
    )


def test_half_types_are_refused_outside_autocast_and_run_in_float32_under_it():
    h = lucid.tensor(X).to(lucid.bfloat16)
    with pytest.raises(DTypeError, match="fft"):
        lucid.fft.fft(h)
    with pytest.raises(DTypeError, match="rfft"):
        lucid.fft.rfft(lucid.tensor(X).half())
    with lucid.autocast("cpu", dtype=lucid.bfloat16):
        out = lucid.fft.rfft(h)
    assert out.dtype is lucid.complex64
    ref = torch.fft.rfft(torch.tensor(X).to(torch.bfloat16).float())
    np.testing.assert_allclose(_np(out), _np(ref), atol=1e-4)


def test_errors_name_the_function():
    t = lucid.tensor(X)
    with pytest.raises(ArgumentError, match="fft: invalid normalization mode 'bad'"):
        lucid.fft.fft(t, norm="bad")
    with pytest.raises(ShapeError, match=r"rfft: invalid number of data points \(0\)"):
        lucid.fft.rfft(t, n=0)
    with pytest.raises(ShapeError, match="ifft: dim 3 is out of range"):
        lucid.fft.ifft(t, dim=3)
    with pytest.raises(ShapeError, match="fftn: dims must be distinct"):
        lucid.fft.fftn(t, dim=(0, -3))
    with pytest.raises(ShapeError, match="fft2: s and dim must have the same length"):
        lucid.fft.fft2(t, s=(2, 3, 4))
    with pytest.raises(DTypeError, match="rfft: expected a float32/float64 tensor"):
        lucid.fft.rfft(lucid.tensor(Z))
    with pytest.raises(ShapeError, match="out of range"):
        lucid.fft.fft(lucid.tensor(1.0))
    with pytest.raises(ShapeError, match=r"irfft: invalid number of data points \(0\)"):
        lucid.fft.irfft(lucid.tensor(Z[..., :1]))
    with pytest.raises(ShapeError, match="invalid number of data points"):
        lucid.fft.fft(lucid.zeros(3, 0))
    with pytest.raises(ArgumentError, match="fft: expected a Tensor"):
        lucid.fft.fft(X)


def test_empty_batch_and_non_contiguous_inputs():
    e = lucid.fft.fft(lucid.zeros(0, 4))
    assert tuple(e.shape) == (0, 4) and e.dtype is lucid.complex64
    xt = lucid.tensor(X).transpose(0, 2)
    _close(lucid.fft.rfft2(xt), torch.fft.rfft2(torch.tensor(X).transpose(0, 2)))
    zs = lucid.tensor(Z)[:, ::2]
    _close(lucid.fft.irfft(zs, n=7), torch.fft.irfft(torch.tensor(Z)[:, ::2], n=7))


def test_round_trips():
    t = lucid.tensor(X)
    np.testing.assert_allclose(lucid.fft.ifftn(lucid.fft.fftn(t)).real.numpy(), X, atol=1e-12)
    np.testing.assert_allclose(
        lucid.fft.irfft(lucid.fft.rfft(t, dim=1), n=6, dim=1).numpy(), X, atol=1e-12
    )
    np.testing.assert_allclose(lucid.fft.hfft(lucid.fft.ihfft(t), n=5).numpy(), X, atol=1e-12)


def _grads(fn_l, fn_t, data, dtype=torch.float64):
    a = lucid.tensor(data, requires_grad=True)
    b = torch.tensor(data, dtype=dtype if not np.iscomplexobj(data) else None, requires_grad=True)
    lo, to = fn_l(a), fn_t(b)
    w = RNG.standard_normal(tuple(lo.shape))
    (lucid.tensor(w) * lo.abs()).sum().backward()
    (torch.tensor(w) * to.abs()).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), _np(b.grad), atol=1e-9, rtol=1e-7)


@pytest.mark.parametrize(
    "name,data,kw",
    [
        ("fft", X, {"n": 7}),
        ("ifft2", Z, {"s": (3, 4)}),
        ("rfftn", X, {"dim": (0, 2)}),
        ("irfft", Z, {"n": 8}),
        ("irfft", Z, {"n": 9}),
        ("hfft", Z, {"norm": "ortho"}),
        ("ihfft", X, {"norm": "forward"}),
        ("irfftn", Z, {"s": (5, 4, 6)}),
        ("hfftn", Z, {"dim": (0, 2), "norm": "ortho"}),
        ("ihfft2", X, {"s": (3, 7)}),
    ],
)
def test_gradients_match_torch(name, data, kw):
    _grads(
        lambda t: getattr(lucid.fft, name)(t, **kw),
        lambda t: getattr(torch.fft, name)(t, **kw),
        data,
    )


def test_second_derivative_matches_torch():
    a = lucid.tensor(X[0], requires_grad=True)
    b = torch.tensor(X[0], requires_grad=True)
    for t, lib in ((a, lucid), (b, torch)):
        y = lib.fft.rfft(t * t).abs().pow(2).sum()
        (g,) = (lucid.autograd.grad if lib is lucid else torch.autograd.grad)(
            y, t, create_graph=True
        )
        g.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-8)


def test_frequencies_and_shifts():
    for n, d in ((1, 1.0), (5, 0.1), (8, 2.0)):
        _close(
            lucid.fft.fftfreq(n, d, dtype=lucid.float64),
            torch.fft.fftfreq(n, d, dtype=torch.float64),
        )
        _close(
            lucid.fft.rfftfreq(n, d, dtype=lucid.float64),
            torch.fft.rfftfreq(n, d, dtype=torch.float64),
        )
    assert lucid.fft.fftfreq(4).dtype is lucid.get_default_dtype()
    with pytest.raises(ArgumentError, match="fftfreq: n must be positive"):
        lucid.fft.fftfreq(0)
    with pytest.raises(ArgumentError, match="rfftfreq: expected a floating dtype"):
        lucid.fft.rfftfreq(4, dtype=lucid.int64)
    t, r = lucid.tensor(X), torch.tensor(X)
    for dim in (None, 1, (0, 2), -1):
        _close(lucid.fft.fftshift(t, dim), torch.fft.fftshift(r, dim))
        _close(lucid.fft.ifftshift(t, dim), torch.fft.ifftshift(r, dim))
    np.testing.assert_array_equal(lucid.fft.ifftshift(lucid.fft.fftshift(t)).numpy(), X)
