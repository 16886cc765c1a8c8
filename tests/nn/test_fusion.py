"""lucid.nn.utils.fusion against torch.nn.utils.fusion: the folded weights, and the fused
layer computing what conv/linear then eval-mode batch norm compute."""

import copy

import numpy as np
import pytest

import lucid
import lucid.nn as nn
from lucid.errors import ArgumentError
from lucid.nn.utils import fusion

torch = pytest.importorskip("torch")
import torch.nn.utils.fusion as tfusion  # noqa: E402


def _copy(t_mod, l_mod):
    l_mod.load_state_dict(
        {k: lucid.tensor(v.detach().numpy()) for k, v in t_mod.state_dict().items()}
    )
    return l_mod


def _trained_bn(t_bn, rng):
    """A batch norm with non-trivial running statistics and affine parameters."""
    with torch.no_grad():
        t_bn.running_mean.copy_(torch.tensor(rng.standard_normal(t_bn.num_features)))
        t_bn.running_var.copy_(torch.tensor(rng.random(t_bn.num_features) + 0.5))
        if t_bn.affine:
            t_bn.weight.copy_(torch.tensor(rng.standard_normal(t_bn.num_features)))
            t_bn.bias.copy_(torch.tensor(rng.standard_normal(t_bn.num_features)))
    return t_bn.eval()


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


CONVS = [
    (
        lambda: torch.nn.Conv2d(3, 4, 3),
        lambda: nn.Conv2d(3, 4, 3),
        torch.nn.BatchNorm2d,
        nn.BatchNorm2d,
        4,
        (2, 3, 6, 6),
        False,
    ),
    (
        lambda: torch.nn.Conv1d(3, 4, 3, bias=False),
        lambda: nn.Conv1d(3, 4, 3, bias=False),
        torch.nn.BatchNorm1d,
        nn.BatchNorm1d,
        4,
        (2, 3, 7),
        False,
    ),
    (
        lambda: torch.nn.ConvTranspose2d(3, 4, 3),
        lambda: nn.ConvTranspose2d(3, 4, 3),
        torch.nn.BatchNorm2d,
        nn.BatchNorm2d,
        4,
        (2, 3, 5, 5),
        True,
    ),
]


@pytest.mark.parametrize("case", range(len(CONVS)))
@pytest.mark.parametrize("affine", [True, False])
def test_fuse_conv_bn_eval_matches_torch_and_the_unfused_pair(case, affine):
    mk_tc, mk_lc, TBN, LBN, c, shape, transpose = CONVS[case]
    rng = np.random.default_rng(case)
    torch.manual_seed(case)
    tc, tbn = mk_tc().eval(), _trained_bn(TBN(c, affine=affine), rng)
    lc, lbn = _copy(tc, mk_lc()).eval(), _copy(tbn, LBN(c, affine=affine)).eval()
    tf = tfusion.fuse_conv_bn_eval(tc, tbn, transpose=transpose)
    lf = fusion.fuse_conv_bn_eval(lc, lbn, transpose=transpose)
    assert lf is not lc and type(lf) is type(lc)
    close(lf.weight, tf.weight)
    close(lf.bias, tf.bias)
    assert isinstance(lf.weight, nn.Parameter) and isinstance(lf.bias, nn.Parameter)
    x = rng.standard_normal(shape).astype(np.float32)
    close(lf(lucid.tensor(x)), lbn(lc(lucid.tensor(x))))
    close(lf(lucid.tensor(x)), tf(torch.tensor(x)))


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("features", [5, 1])
def test_fuse_linear_bn_eval_matches_torch(bias, features):
    rng = np.random.default_rng(features)
    torch.manual_seed(0)
    tl, tbn = (
        torch.nn.Linear(4, 5, bias=bias).eval(),
        _trained_bn(torch.nn.BatchNorm1d(features), rng),
    )
    ll, lbn = (
        _copy(tl, nn.Linear(4, 5, bias=bias)).eval(),
        _copy(tbn, nn.BatchNorm1d(features)).eval(),
    )
    tf, lf = tfusion.fuse_linear_bn_eval(tl, tbn), fusion.fuse_linear_bn_eval(ll, lbn)
    close(lf.weight, tf.weight)
    close(lf.bias, tf.bias)
    assert tuple(lf.bias.shape) == tuple(tf.bias.shape)
    if features == 5:
        x = rng.standard_normal((3, 4)).astype(np.float32)
        close(lf(lucid.tensor(x)), lbn(ll(lucid.tensor(x))))


def test_fuse_weights_keep_dtypes_and_requires_grad_as_torch():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((4, 3, 3, 3))
    stats = [rng.standard_normal(4), rng.random(4) + 0.5]
    tw, tb = tfusion.fuse_conv_bn_weights(
        torch.tensor(w, requires_grad=True), None, *map(torch.tensor, stats), 1e-5, None, None
    )
    lw, lb = fusion.fuse_conv_bn_weights(
        lucid.tensor(w, requires_grad=True), None, *map(lucid.tensor, stats), 1e-5, None, None
    )
    close(lw, tw)
    close(lb, tb)
    assert lw.dtype == lucid.float64 and lb.dtype == lucid.float64
    assert (lw.requires_grad, lb.requires_grad) == (tw.requires_grad, tb.requires_grad)


def test_fusion_needs_eval_mode_and_running_stats():
    conv, bn = nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3)
    with pytest.raises(ArgumentError, match="fuse_conv_bn_eval: fusion is only for eval"):
        fusion.fuse_conv_bn_eval(conv, bn)
    with pytest.raises(ArgumentError, match="no running statistics"):
        fusion.fuse_conv_bn_eval(conv.eval(), nn.BatchNorm2d(3, track_running_stats=False).eval())
    with pytest.raises(ArgumentError, match="out_features \\(4\\) or 1, got 3"):
        fusion.fuse_linear_bn_eval(nn.Linear(2, 4).eval(), nn.BatchNorm1d(3).eval())
    before = copy.deepcopy(conv.state_dict())
    fusion.fuse_conv_bn_eval(conv.eval(), bn.eval())
    assert all(lucid.equal(before[k], v) for k, v in conv.state_dict().items())


def test_names_are_reachable_as_in_torch():
    for name in fusion.__all__:
        assert getattr(nn.utils, name) is getattr(fusion, name)
        assert hasattr(torch.nn.utils, name)
    assert nn.utils.pack_padded_sequence is nn.utils.rnn.pack_padded_sequence
    assert nn.utils.prune.l1_unstructured is not None
