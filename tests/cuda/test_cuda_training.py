"""Training on the device under test against the same training on the CPU, and tensor
transfers between them.

An MLP (Adam), a CNN with batch norm (SGD with momentum) and a small GPT (AdamW; attention
written out, and through ``F.scaled_dot_product_attention``) train 20 steps on the CPU and on
``DEVICE`` from the same initial weights on the same batches: the losses agree step by step
and the final weights agree; under bfloat16 autocast the losses stay near float32's.
"""

import copy
import math

import numpy as np
import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
import lucid.optim as optim

from .conftest import DEVICE

pytestmark = pytest.mark.cuda

STEPS = 20
GPU = pytest.mark.skipif(DEVICE == "cpu", reason="a lucid.cuda API: needs a GPU")


def _type():
    return lucid.device(DEVICE).type


# -- models ------------------------------------------------------------------------------


def mlp():
    return nn.Sequential(
        nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)
    )


def cnn():
    def block(cin, cout):
        return [
            nn.Conv2d(cin, cout, 3, padding=1),
            nn.BatchNorm2d(cout),
            nn.ReLU(),
            nn.MaxPool2d(2),
        ]

    return nn.Sequential(*block(3, 8), *block(8, 16), nn.Flatten(), nn.Linear(16 * 4 * 4, 10))


class Block(nn.Module):
    """Pre-norm transformer block: x + attn(ln(x)), then x + mlp(ln(x)); causal attention
    written out (softmax(q k^T / sqrt(d_h) + mask) v) or by ``scaled_dot_product_attention``."""

    def __init__(self, d, heads, sdpa):
        super().__init__()
        self.heads, self.sdpa = heads, sdpa
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def attention(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        if self.sdpa:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            mask = lucid.triu(lucid.ones(t, t, dtype=lucid.bool, device=x.device), 1)
            s = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
            y = F.softmax(s.masked_fill(mask, float("-inf")), dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, d))

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab=64, ctx=16, d=128, heads=4, layers=2, sdpa=False):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList([Block(d, heads, sdpa) for _ in range(layers)])
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(lucid.arange(t, device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def _images(rng, shape):
    """Random images labelled by a fixed random linear teacher (so there is something to
    learn)."""
    x = rng.standard_normal(shape)
    teacher = np.random.default_rng(99).standard_normal((int(np.prod(shape[1:])), 10))
    return x, (x.reshape(shape[0], -1) @ teacher).argmax(1)


def _tokens(rng):
    """Sequences following t' = 3t + 1 (mod 64) from random starts: inputs and targets."""
    seq = (rng.integers(0, 64, (8, 1)) * 3 ** np.arange(17) + (3 ** np.arange(17) - 1) // 2) % 64
    return seq[:, :-1], seq[:, 1:]


SETUPS = {
    "mlp-adam": (mlp, lambda p: optim.Adam(p, lr=1e-3), lambda rng: _images(rng, (32, 784))),
    "cnn-sgd-momentum": (
        cnn,
        lambda p: optim.SGD(p, lr=0.01, momentum=0.9),
        lambda rng: _images(rng, (16, 3, 16, 16)),
    ),
    "gpt-adamw": (GPT, lambda p: optim.AdamW(p, lr=1e-3, weight_decay=0.1), _tokens),
    "gpt-adamw-sdpa": (
        lambda: GPT(sdpa=True),
        lambda p: optim.AdamW(p, lr=1e-3, weight_decay=0.1),
        _tokens,
    ),
}


def _batches(name):
    """STEPS batches: four fixed ones in turn (so the loss falls within 20 steps)."""
    rng = np.random.default_rng(7)
    pool = [SETUPS[name][2](rng) for _ in range(4)]
    return [pool[i % 4] for i in range(STEPS)]


def _train(model, make_opt, batches, dev, autocast_dtype=None):
    """Train ``model`` (already on ``dev``) on ``batches``; the per-step losses."""
    opt = make_opt(model.parameters())
    losses = []
    for x, y in batches:
        xt = lucid.tensor(x, dtype=lucid.float32 if x.dtype.kind == "f" else lucid.int64)
        xt, yt = xt.to(dev), lucid.tensor(y).to(dev)
        opt.zero_grad()
        if autocast_dtype is None:
            out = model(xt)
        else:
            with lucid.amp.autocast(lucid.device(dev).type, dtype=autocast_dtype):
                out = model(xt)
        loss = F.cross_entropy(out.reshape(-1, out.shape[-1]).float(), yt.reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return np.array(losses)


def _host(t):
    return t.detach().cpu().to(lucid.float64).numpy()


_REFERENCE = {}


def _reference(name):
    """(initial model, per-step CPU losses, trained CPU model) of setup ``name``, cached."""
    if name not in _REFERENCE:
        lucid.manual_seed(0)
        init = SETUPS[name][0]()
        trained = copy.deepcopy(init)
        losses = _train(trained, SETUPS[name][1], _batches(name), "cpu")
        _REFERENCE[name] = init, losses, trained
    return _REFERENCE[name]


@pytest.mark.parametrize("name", list(SETUPS))
def test_training_matches_cpu(name):
    init, want, cpu_model = _reference(name)
    model = copy.deepcopy(init).to(DEVICE)
    got = _train(model, SETUPS[name][1], _batches(name), DEVICE)
    assert np.isfinite(got).all() and got[-1] < got[0]
    allowance = 1e-3 * (1 + np.arange(STEPS) / 4)  # rounding differences compound
    np.testing.assert_array_less(np.abs(got - want), allowance * np.abs(want) + 1e-5)
    theirs = dict(cpu_model.named_parameters())
    for k, p in model.named_parameters():
        assert p.device.type == _type() and p.dtype == theirs[k].dtype
        a, b = _host(p), _host(theirs[k])
        np.testing.assert_allclose(a, b, rtol=1e-2, atol=2e-3, err_msg=k)
        assert np.abs(a - b).mean() <= 1e-4 * max(1.0, np.abs(b).mean()), k
    bufs = dict(cpu_model.named_buffers())
    for k, b in model.named_buffers():
        np.testing.assert_allclose(_host(b), _host(bufs[k]), rtol=1e-2, atol=1e-3, err_msg=k)


@pytest.mark.parametrize("name", ["mlp-adam", "cnn-sgd-momentum", "gpt-adamw-sdpa"])
def test_bfloat16_autocast_training_tracks_float32(name):
    init, want, _ = _reference(name)
    model = copy.deepcopy(init).to(DEVICE)
    got = _train(model, SETUPS[name][1], _batches(name), DEVICE, autocast_dtype=lucid.bfloat16)
    assert np.isfinite(got).all() and got[-1] < got[0]
    assert all(p.dtype == lucid.float32 for p in model.parameters())  # master weights
    np.testing.assert_allclose(got, want, rtol=5e-2, atol=1e-2)


# -- tensor transfers --------------------------------------------------------------------

_TRANSFER_DTYPES = [
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int64",
    "int32",
    "int8",
    "uint8",
    "bool",
]


def _sample(dtype_name, shape=(3, 5)):
    """Values in [-100, 100] ([0, 100] for uint8), so every dtype represents them."""
    a = np.clip(np.random.default_rng(0).standard_normal(shape) * 40, -100, 100)
    return lucid.tensor(np.abs(a) if dtype_name == "uint8" else a).to(getattr(lucid, dtype_name))


def _same(a, b):
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
    np.testing.assert_array_equal(
        _host(a) if a.is_floating_point() else a.cpu().numpy(),
        _host(b) if b.is_floating_point() else b.cpu().numpy(),
    )


@pytest.mark.parametrize("dtype_name", _TRANSFER_DTYPES)
def test_to_device_and_back_is_exact(dtype_name):
    x = _sample(dtype_name)
    for src in (x, x.T, x[:, 1::2], x[1:1], x[0, 0]):  # views, an empty and a 0-d tensor
        y = src.to(DEVICE)
        assert y.device.type == _type()
        _same(y.cpu(), src)
        _same(src.to(device=DEVICE).to("cpu"), src)
    z = lucid.tensor(np.arange(6.0)).to(DEVICE, getattr(lucid, dtype_name))
    assert z.device.type == _type() and z.dtype == getattr(lucid, dtype_name)


def test_gradient_flows_back_across_a_transfer():
    x = lucid.tensor(np.arange(6.0).reshape(2, 3), dtype=lucid.float32, requires_grad=True)
    y = x.to(DEVICE) * 2
    assert y.device.type == _type() and y.requires_grad
    (y * y.to(DEVICE)).sum().backward()
    assert x.grad.device.type == "cpu" and x.grad.dtype == lucid.float32
    np.testing.assert_allclose(x.grad.numpy(), 8 * x.detach().numpy())
    w = lucid.randn(3, 4, device=DEVICE, requires_grad=True)
    (w.cpu() ** 2).sum().backward()
    assert w.grad.device.type == _type()
    np.testing.assert_allclose(_host(w.grad), 2 * _host(w), rtol=1e-6)


@GPU
def test_cuda_and_cpu_methods():
    x = _sample("float32")
    for y in (x.cuda(), x.cuda(0), x.to("cuda"), x.to("cuda:0"), x.to(lucid.device("cuda"))):
        assert y.is_cuda and y.get_device() == 0
        _same(y.cpu(), x)
        assert y.cuda() is y and y.cpu().is_cpu
    assert x.cpu() is x


@GPU
def test_pinned_non_blocking_copies():
    x = _sample("float32", (256, 1000))
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned()
    _same(p, x)
    y = p.cuda(non_blocking=True)
    back = lucid.empty(256, 1000).pin_memory()
    back.copy_(y, non_blocking=True)  # device to pinned host
    lucid.cuda.synchronize()
    _same(y.cpu(), x)
    _same(back, x)
    z = x.to("cuda", non_blocking=True)
    lucid.cuda.synchronize()
    _same(z.cpu(), x)


@pytest.mark.parametrize("dtype_name", ["float32", "float16", "bfloat16", "int64", "bool"])
def test_dlpack_with_torch(dtype_name):
    torch = pytest.importorskip("torch")
    if DEVICE != "cpu" and not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here, so it cannot take a CUDA DLPack tensor")
    x = _sample(dtype_name).to(DEVICE)
    t = torch.from_dlpack(x)
    assert t.device.type == _type() and str(t.dtype) == f"torch.{dtype_name}"
    assert tuple(t.shape) == tuple(x.shape)
    t[0, 0] = 1  # shared memory, not a copy
    assert x[0, 0].item() == 1
    back = lucid.from_dlpack(t.clone())
    assert back.device.type == _type() and back.dtype == x.dtype
    _same(back, x)
    view = lucid.from_dlpack(t[:, 1::2])  # a strided torch view
    _same(view, x[:, 1::2])


@GPU
def test_from_dlpack_of_a_cupy_array():
    cupy = pytest.importorskip("cupy")
    a = cupy.arange(12, dtype=cupy.float32).reshape(3, 4)
    t = lucid.from_dlpack(a)
    assert t.is_cuda and t.dtype == lucid.float32
    np.testing.assert_array_equal(t.cpu().numpy(), np.arange(12).reshape(3, 4))
    a[0, 0] = 5
    lucid.cuda.synchronize()
    assert t[0, 0].item() == 5  # shares the CuPy array's memory
    u = cupy.from_dlpack(lucid.randn(2, 3, device="cuda"))
    assert u.shape == (2, 3) and u.dtype == cupy.float32
