"""The AmpPolicy of each op applied under ``lucid.amp.autocast``."""

import numpy as np
import pytest

import lucid
from lucid.ops.core.schema import AmpPolicy


def _rand(*shape, dtype=lucid.float32, grad=False):
    a = np.random.default_rng(0).standard_normal(shape)
    return lucid.tensor(a, dtype=dtype, requires_grad=grad)


def test_promote_runs_in_autocast_dtype_and_grads_keep_input_dtype():
    a, b = _rand(3, 4, grad=True), _rand(4, 5, grad=True)
    with lucid.amp.autocast("cpu", dtype=lucid.bfloat16):
        y = a @ b
    assert y.dtype is lucid.bfloat16
    y.float().sum().backward()
    assert a.grad.dtype is lucid.float32 and b.grad.dtype is lucid.float32
    ref = np.ones((3, 5), np.float32) @ b.detach().numpy().T
    np.testing.assert_allclose(a.grad.numpy(), ref, rtol=2e-2, atol=2e-2)


def test_force_fp32_upcasts_half_inputs():
    x = _rand(8, dtype=lucid.float16, grad=True)
    with lucid.amp.autocast("cpu", dtype=lucid.float16):
        y = x.exp()
    assert y.dtype is lucid.float32
    y.sum().backward()
    assert x.grad.dtype is lucid.float16
    np.testing.assert_allclose(
        x.grad.numpy().astype(np.float32), np.exp(x.detach().numpy().astype(np.float32)), rtol=1e-2
    )


def test_keep_input_and_disabled_autocast():
    x = _rand(4, dtype=lucid.float16)
    with lucid.amp.autocast("cpu", dtype=lucid.bfloat16):
        assert (x + x).dtype is lucid.float16
        assert lucid.amp.is_autocast_enabled()
        with lucid.amp.autocast("cpu", enabled=False):
            assert (_rand(2, 3) @ _rand(3, 2)).dtype is lucid.float32
    assert not lucid.amp.is_autocast_enabled()


def test_every_op_declares_a_policy():
    for name, cls in lucid.ops.core.registry.all_ops().items():
        assert isinstance(cls.schema_v1.amp_policy, AmpPolicy), name


def test_bad_autocast_arguments():
    with pytest.raises(lucid.errors.DTypeError, match="autocast"):
        lucid.amp.autocast("cpu", dtype=lucid.float32)
    with pytest.raises(lucid.errors.DTypeError, match="device_type"):
        lucid.amp.autocast("tpu")


# -- state per device type -------------------------------------------------------------------


def test_defaults_and_state_per_device_type():
    assert lucid.amp.get_autocast_dtype("cpu") is lucid.bfloat16
    assert lucid.amp.get_autocast_dtype("cuda") is lucid.float16
    assert lucid._STATE.autocast is None  # the one flag the op path reads
    with lucid.amp.autocast("cuda"):
        assert lucid.amp.is_autocast_enabled("cuda") and not lucid.amp.is_autocast_enabled("cpu")
        assert (_rand(2, 3) @ _rand(3, 2)).dtype is lucid.float32  # CPU ops untouched
        assert lucid.exp(_rand(3, dtype=lucid.bfloat16)).dtype is lucid.bfloat16
        with lucid.amp.autocast("cpu"):
            assert lucid.amp.is_autocast_enabled("cpu") and lucid.amp.is_autocast_enabled("cuda")
            assert (_rand(2, 3) @ _rand(3, 2)).dtype is lucid.bfloat16
        assert not lucid.amp.is_autocast_enabled("cpu")
    assert lucid._STATE.autocast is None and not lucid.amp.is_autocast_enabled("cuda")


def test_nesting_dtype_and_disabling_restore_the_outer_state():
    a, b = _rand(2, 3), _rand(3, 2)
    with lucid.autocast("cpu"):
        assert (a @ b).dtype is lucid.bfloat16
        with lucid.autocast("cpu", dtype=lucid.float16):
            assert lucid.amp.get_autocast_dtype("cpu") is lucid.float16
            assert (a @ b).dtype is lucid.float16
            with lucid.autocast("cpu", enabled=False):
                assert not lucid.amp.is_autocast_enabled("cpu")
                assert lucid.amp.get_autocast_dtype("cpu") is lucid.float16
                assert (a @ b).dtype is lucid.float32
            assert (a @ b).dtype is lucid.float16
        assert lucid.amp.get_autocast_dtype("cpu") is lucid.bfloat16
        assert (a @ b).dtype is lucid.bfloat16
    assert lucid.amp.get_autocast_dtype("cpu") is lucid.bfloat16


def test_state_is_restored_after_an_exception_and_as_a_decorator():
    @lucid.autocast("cpu", dtype=lucid.float16)
    def f(a, b):
        return a @ b

    assert f(_rand(2, 3), _rand(3, 2)).dtype is lucid.float16
    with pytest.raises(ZeroDivisionError):
        with lucid.autocast("cpu"):
            1 / 0
    assert lucid._STATE.autocast is None


def test_set_autocast_enabled_and_dtype():
    try:
        lucid.amp.set_autocast_dtype("cpu", lucid.float16)
        lucid.amp.set_autocast_enabled("cpu", True)
        assert (_rand(2, 3) @ _rand(3, 2)).dtype is lucid.float16
        lucid.amp.set_autocast_dtype("cpu", lucid.bfloat16)
        assert (_rand(2, 3) @ _rand(3, 2)).dtype is lucid.bfloat16
    finally:
        lucid.amp.set_autocast_enabled("cpu", False)
    assert lucid._STATE.autocast is None


def test_float64_is_not_cast():
    d = _rand(3, 3, dtype=lucid.float64)
    with lucid.autocast("cpu"):
        assert (d @ d).dtype is lucid.float64
        assert lucid.exp(d).dtype is lucid.float64


# -- output dtypes against torch.autocast("cpu") -----------------------------------------------


def _pair(shape, dtype, seed):
    import torch

    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return lucid.tensor(a).to(dtype), torch.tensor(a).to(getattr(torch, dtype.name))


def _table():
    """(name, call(lib, F, *tensors), shapes, input dtype): the same call in both libraries."""
    f32, bf16 = lucid.float32, lucid.bfloat16
    return [
        ("matmul", lambda L, F, a, b: L.matmul(a, b), [(3, 4), (4, 5)], f32),
        ("mm", lambda L, F, a, b: L.mm(a, b), [(3, 4), (4, 5)], f32),
        ("bmm", lambda L, F, a, b: L.bmm(a, b), [(2, 3, 4), (2, 4, 5)], f32),
        ("addmm", lambda L, F, c, a, b: L.addmm(c, a, b), [(3, 5), (3, 4), (4, 5)], f32),
        (
            "baddbmm",
            lambda L, F, c, a, b: L.baddbmm(c, a, b),
            [(2, 3, 5), (2, 3, 4), (2, 4, 5)],
            f32,
        ),
        ("linear", lambda L, F, x, w, b: F.linear(x, w, b), [(3, 4), (5, 4), (5,)], f32),
        (
            "linear_half_input",
            lambda L, F, x, w: F.linear(x.to(L.float16), w),
            [(3, 4), (5, 4)],
            f32,
        ),
        ("conv1d", lambda L, F, x, w: F.conv1d(x, w), [(1, 2, 7), (3, 2, 3)], f32),
        (
            "conv2d",
            lambda L, F, x, w, b: F.conv2d(x, w, b, padding=1),
            [(2, 2, 5, 5), (3, 2, 3, 3), (3,)],
            f32,
        ),
        (
            "conv_transpose2d",
            lambda L, F, x, w: F.conv_transpose2d(x, w, stride=2),
            [(1, 2, 4, 4), (2, 3, 3, 3)],
            f32,
        ),
        ("mse_loss", lambda L, F, a, b: F.mse_loss(a, b), [(4, 3), (4, 3)], bf16),
        ("l1_loss", lambda L, F, a, b: F.l1_loss(a, b), [(4, 3), (4, 3)], bf16),
        ("smooth_l1_loss", lambda L, F, a, b: F.smooth_l1_loss(a, b), [(4, 3), (4, 3)], bf16),
        ("huber_loss", lambda L, F, a, b: F.huber_loss(a, b), [(4, 3), (4, 3)], bf16),
        (
            "bce_with_logits",
            lambda L, F, a, b: F.binary_cross_entropy_with_logits(a, b.sigmoid()),
            [(4, 3), (4, 3)],
            bf16,
        ),
        (
            "cross_entropy",
            lambda L, F, a: F.cross_entropy(a, L.tensor([0, 2, 1, 2])),
            [(4, 3)],
            bf16,
        ),
        ("nll_loss", lambda L, F, a: F.nll_loss(a, L.tensor([0, 2, 1, 2])), [(4, 3)], bf16),
        (
            "kl_div",
            lambda L, F, a, b: F.kl_div(a, b.softmax(-1), reduction="batchmean"),
            [(4, 3), (4, 3)],
            bf16,
        ),
        ("add", lambda L, F, a, b: a + b, [(4, 3), (4, 3)], bf16),
        ("relu", lambda L, F, a: F.relu(a), [(4, 3)], bf16),
        (
            "matmul_float64",
            lambda L, F, a, b: L.matmul(a.double(), b.double()),
            [(3, 4), (4, 5)],
            f32,
        ),
    ]


@pytest.mark.parametrize("dtype", [lucid.bfloat16, lucid.float16], ids=str)
@pytest.mark.parametrize(
    "name,call,shapes,in_dtype", _table(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_output_dtype_and_value_match_torch_autocast_cpu(name, call, shapes, in_dtype, dtype):
    import torch
    import torch.nn.functional as TF

    pairs = [_pair(s, in_dtype, k) for k, s in enumerate(shapes)]
    with lucid.autocast("cpu", dtype=dtype):
        got = call(lucid, lucid.nn.functional, *[p[0] for p in pairs])
    with torch.autocast("cpu", dtype=getattr(torch, dtype.name)):
        want = call(torch, TF, *[p[1] for p in pairs])
    assert got.dtype.name == str(want.dtype).removeprefix("torch."), name
    tol = 1e-5 if want.dtype == torch.float64 else 3e-2
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.exp(),
        lambda x: x.log_softmax(-1),
        lambda x: x.softmax(-1),
        lambda x: x.sum(),
        lambda x: lucid.nn.functional.layer_norm(x, (3,)),
    ],
)
def test_force_fp32_runs_half_inputs_in_float32(fn):
    """PyTorch's CUDA list on both device types (its CPU list keeps these in bfloat16)."""
    x = _rand(4, 3, dtype=lucid.bfloat16, grad=True)
    with lucid.autocast("cpu"):
        y = fn(x)
    assert y.dtype is lucid.float32
    y.sum().backward()
    assert x.grad.dtype is lucid.bfloat16


# -- linear: the weights cast inside the op (AmpPolicy.PROMOTE_FIRST) -------------------------


@pytest.mark.parametrize("dtype", [lucid.bfloat16, lucid.float16], ids=str)
def test_linear_casts_its_weights_itself_and_writes_float32_weight_grads(dtype):
    x, w, b = _rand(6, 4, grad=True), _rand(5, 4, grad=True), _rand(5, grad=True)
    with lucid.autocast("cpu", dtype=dtype):
        y = lucid.nn.functional.linear(x, w, b)
    assert y.dtype is dtype and type(y.grad_fn).__name__ == "LinearBackward"
    # the input is cast by the pipeline (a node), the weight and bias by the op (none)
    assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == [
        "CastBackward",
        "AccumulateGrad",
        "AccumulateGrad",
    ]
    g = lucid.tensor(np.random.default_rng(2).standard_normal((6, 5))).to(dtype)
    y.backward(g)
    assert w.grad.dtype is lucid.float32 and b.grad.dtype is lucid.float32
    xh, gh = x.detach().to(dtype).float().numpy(), g.float().numpy()
    # the float32 products of the half operands, not rounded to the half type
    np.testing.assert_allclose(w.grad.numpy(), gh.T @ xh, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), gh.sum(0), rtol=1e-5, atol=1e-6)
    wh = w.detach().to(dtype).float().numpy()
    np.testing.assert_allclose(x.grad.numpy(), gh @ wh, rtol=1e-2, atol=1e-2)


def test_linear_under_autocast_matches_torch_grads_and_double_backward():
    import torch

    rng = np.random.default_rng(3)
    a = [rng.standard_normal(s).astype(np.float32) for s in ((2, 3, 8), (6, 8), (6,))]
    x, w, b = (lucid.tensor(v, requires_grad=True) for v in a)
    tx, tw, tb = (torch.tensor(v, requires_grad=True) for v in a)
    with lucid.autocast("cpu"):
        y = lucid.nn.functional.linear(x, w, b)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        ty = torch.nn.functional.linear(tx, tw, tb)
    (gx,) = lucid.autograd.grad((y.float() ** 2).sum(), x, create_graph=True)
    (tgx,) = torch.autograd.grad((ty.float() ** 2).sum(), tx, create_graph=True)
    assert gx.dtype is lucid.float32 and gx.requires_grad
    gx.sum().backward()
    tgx.sum().backward()
    for got, want in ((gx.detach(), tgx.detach()), (w.grad, tw.grad), (b.grad, tb.grad)):
        assert got.dtype is lucid.float32
        want = want.numpy()  # bfloat16 rounding, relative to the largest
        np.testing.assert_allclose(
            got.numpy(), want, rtol=3e-2, atol=2e-2 * float(np.abs(want).max())
        )


# -- training under autocast -------------------------------------------------------------------


def _train(autocast, steps=150):
    lucid.manual_seed(0)
    rng = np.random.default_rng(1)
    x = lucid.tensor(rng.standard_normal((128, 16)).astype(np.float32))
    y = lucid.tensor(np.tanh(x.numpy() @ rng.standard_normal((16, 4)).astype(np.float32)))
    nn = lucid.nn
    m = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))
    opt = lucid.optim.Adam(m.parameters(), lr=1e-2)
    first = None
    for _ in range(steps):
        opt.zero_grad()
        with lucid.autocast("cpu", enabled=autocast):
            out = m(x)
            loss = nn.functional.mse_loss(out, y)
        assert out.dtype is (lucid.bfloat16 if autocast else lucid.float32)
        assert loss.dtype is lucid.float32
        loss.backward()
        assert m[0].weight.grad.dtype is lucid.float32
        opt.step()
        first = loss.item() if first is None else first
    with lucid.no_grad():
        return first, nn.functional.mse_loss(m(x), y).item()


def test_training_under_bfloat16_autocast_reaches_the_float32_loss():
    first, ref = _train(False)
    _, got = _train(True)
    assert ref < first / 50
    assert abs(got - ref) < 0.25 * ref + 1e-4


# -- custom_fwd / custom_bwd -------------------------------------------------------------------


def test_custom_fwd_cast_inputs_and_custom_bwd():
    seen = {}

    class MyMM(lucid.autograd.Function):
        @staticmethod
        @lucid.amp.custom_fwd(device_type="cpu", cast_inputs=lucid.float32)
        def forward(ctx, a, b):
            seen["fwd"] = (a.dtype, b.dtype, lucid.amp.is_autocast_enabled("cpu"))
            ctx.save_for_backward(a, b)
            return a @ b

        @staticmethod
        @lucid.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["bwd"] = lucid.amp.is_autocast_enabled("cpu")
            a, b = ctx.saved_tensors
            return g @ b.t(), a.t() @ g

    a = _rand(2, 3, dtype=lucid.bfloat16, grad=True)
    b = _rand(3, 2, grad=True)
    with lucid.autocast("cpu"):
        y = MyMM.apply(a, b)
    assert seen["fwd"] == (lucid.float32, lucid.float32, False) and y.dtype is lucid.float32
    y.sum().backward()
    assert seen["bwd"] is False and b.grad.dtype is lucid.float32


def test_custom_fwd_without_cast_replays_the_autocast_state_in_backward():
    seen = {}

    class Scale(lucid.autograd.Function):
        @staticmethod
        @lucid.amp.custom_fwd(device_type="cpu")
        def forward(ctx, x):
            seen["fwd"] = lucid.amp.is_autocast_enabled("cpu")
            return x * 2

        @staticmethod
        @lucid.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["bwd"] = (
                lucid.amp.is_autocast_enabled("cpu"),
                lucid.amp.get_autocast_dtype("cpu"),
            )
            return g * 2

    x = _rand(3, grad=True)
    with lucid.autocast("cpu", dtype=lucid.float16):
        y = Scale.apply(x)
    y.sum().backward()  # outside autocast: the forward's state comes back
    assert seen == {"fwd": True, "bwd": (True, lucid.float16)}
    np.testing.assert_allclose(x.grad.numpy(), 2.0)


def test_bad_state_arguments():
    with pytest.raises(lucid.errors.ArgumentTypeError, match="device_type"):
        lucid.amp.autocast(0)
    with pytest.raises(lucid.errors.DTypeError, match="set_autocast_dtype"):
        lucid.amp.set_autocast_dtype("cuda", lucid.float64)
    with pytest.raises(lucid.errors.DTypeError, match="is_autocast_enabled"):
        lucid.amp.is_autocast_enabled("tpu")
