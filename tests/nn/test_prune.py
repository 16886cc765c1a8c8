"""lucid.nn.utils.prune against torch.nn.utils.prune: the same masks for the deterministic
methods (magnitude, norms, custom, global, and methods applied one after another), the
``weight_orig`` / ``weight_mask`` / pre-hook set-up, gradients through the mask, remove,
and the random methods' counts."""

import math

import numpy as np
import pytest

import lucid
import lucid.nn as nn
from lucid.errors import ArgumentError, ArgumentTypeError, DimError, ShapeError
from lucid.nn.utils import prune

torch = pytest.importorskip("torch")
import torch.nn.utils.prune as tprune  # noqa: E402


def _pair(make_t, make_l, seed=0):
    """A torch module and the Lucid module with the same weights."""
    torch.manual_seed(seed)
    t = make_t()
    m = make_l()
    m.load_state_dict({k: lucid.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return t, m


def linear_pair(seed=0):
    return _pair(lambda: torch.nn.Linear(6, 5), lambda: nn.Linear(6, 5), seed)


def conv_pair(seed=0):
    return _pair(lambda: torch.nn.Conv2d(3, 4, 3), lambda: nn.Conv2d(3, 4, 3), seed)


def same(a, b):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-7)


def check_pruned_like(t, m, name="weight"):
    same(getattr(m, name + "_mask"), getattr(t, name + "_mask"))
    same(getattr(m, name), getattr(t, name))
    same(getattr(m, name + "_orig"), getattr(t, name + "_orig"))
    assert set(m.state_dict()) == set(t.state_dict())


@pytest.mark.parametrize("amount", [0, 3, 0.0, 0.3, 0.5, 1.0, 30])
def test_l1_unstructured_matches_torch(amount):
    t, m = linear_pair()
    tprune.l1_unstructured(t, "weight", amount=amount)
    assert prune.l1_unstructured(m, "weight", amount=amount) is m
    check_pruned_like(t, m)
    assert "weight" not in m._parameters and isinstance(m.weight_orig, nn.Parameter)
    assert m.weight_mask.dtype == m.weight_orig.dtype


@pytest.mark.parametrize("n", [1, 2, 3, math.inf, -math.inf])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("amount", [1, 0.5, 0])
def test_ln_structured_matches_torch(n, dim, amount):
    t, m = conv_pair()
    tprune.ln_structured(t, "weight", amount=amount, n=n, dim=dim)
    prune.ln_structured(m, "weight", amount=amount, n=n, dim=dim)
    check_pruned_like(t, m)


@pytest.mark.parametrize("dim", [0, 1])
def test_ln_structured_frobenius_of_a_matrix_matches_torch(dim):
    t, m = linear_pair()
    tprune.ln_structured(t, "weight", amount=2, n="fro", dim=dim)
    prune.ln_structured(m, "weight", amount=2, n="fro", dim=dim)
    check_pruned_like(t, m)


def test_importance_scores_choose_what_is_pruned():
    t, m = linear_pair()
    scores = np.random.default_rng(1).standard_normal((5, 6)).astype(np.float32)
    tprune.l1_unstructured(t, "weight", 0.4, importance_scores=torch.tensor(scores))
    prune.l1_unstructured(m, "weight", 0.4, importance_scores=lucid.tensor(scores))
    check_pruned_like(t, m)
    t, m = conv_pair()
    sc = np.random.default_rng(2).standard_normal((4, 3, 3, 3)).astype(np.float32)
    tprune.ln_structured(t, "weight", 2, 2, 0, importance_scores=torch.tensor(sc))
    prune.ln_structured(m, "weight", 2, 2, 0, importance_scores=lucid.tensor(sc))
    check_pruned_like(t, m)


def test_custom_from_mask_and_identity_match_torch():
    mask = (np.random.default_rng(3).random(5) > 0.5).astype(np.float32)
    t, m = linear_pair()
    tprune.custom_from_mask(t, "bias", torch.tensor(mask))
    prune.custom_from_mask(m, "bias", lucid.tensor(mask))
    check_pruned_like(t, m, "bias")
    tprune.identity(t, "weight")
    prune.identity(m, "weight")
    check_pruned_like(t, m)
    assert float(m.weight_mask.sum()) == 30


def test_iterative_pruning_acts_on_what_is_left_as_torch():
    t, m = conv_pair()
    steps = [
        ("l1_unstructured", dict(amount=0.3)),
        ("ln_structured", dict(amount=1, n=2, dim=0)),
        ("l1_unstructured", dict(amount=5)),
        ("ln_structured", dict(amount=0.5, n=1, dim=1)),
    ]
    for fn, kw in steps:
        getattr(tprune, fn)(t, "weight", **kw)
        getattr(prune, fn)(m, "weight", **kw)
        check_pruned_like(t, m)
    hooks = [h for h in m._forward_pre_hooks.values() if isinstance(h, prune.BasePruningMethod)]
    assert len(hooks) == 1 and isinstance(hooks[0], prune.PruningContainer)
    assert [type(h).__name__ for h in hooks[0]] == [
        "L1Unstructured",
        "LnStructured",
        "L1Unstructured",
        "LnStructured",
    ]


def test_global_unstructured_matches_torch():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.ReLU(), torch.nn.Linear(6, 3))
    lm = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3))
    lm.load_state_dict({k: lucid.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    tprune.l1_unstructured(tm[0], "weight", 0.25)  # one already pruned: its mask counts
    prune.l1_unstructured(lm[0], "weight", 0.25)
    tpairs = [(tm[0], "weight"), (tm[2], "weight"), (tm[2], "bias")]
    lpairs = [(lm[0], "weight"), (lm[2], "weight"), (lm[2], "bias")]
    tprune.global_unstructured(tpairs, tprune.L1Unstructured, amount=0.5)
    prune.global_unstructured(lpairs, prune.L1Unstructured, amount=0.5)
    for (a, name), (b, _) in zip(tpairs, lpairs):
        check_pruned_like(a, b, name)
    with pytest.raises(ArgumentTypeError, match="expected an unstructured pruning method"):
        prune.global_unstructured(lpairs, prune.LnStructured, amount=1, n=2, dim=0)


def test_forward_uses_the_pruned_weight_and_gradients_are_masked():
    t, m = linear_pair()
    tprune.l1_unstructured(t, "weight", 0.5)
    prune.l1_unstructured(m, "weight", 0.5)
    x = np.random.default_rng(4).standard_normal((3, 6)).astype(np.float32)
    with lucid.no_grad():
        m.weight_orig.mul_(2)  # the hook recomputes weight before each call
    with torch.no_grad():
        t.weight_orig.mul_(2)
    ty, ly = t(torch.tensor(x)), m(lucid.tensor(x))
    same(ly, ty)
    ty.square().sum().backward()
    ly.square().sum().backward()
    same(m.weight_orig.grad, t.weight_orig.grad)
    assert float((m.weight_orig.grad * (1 - m.weight_mask)).abs().sum()) == 0


def test_remove_makes_pruning_permanent_as_torch():
    t, m = conv_pair()
    tprune.l1_unstructured(t, "weight", 0.5)
    prune.l1_unstructured(m, "weight", 0.5)
    assert prune.is_pruned(m) and prune.is_pruned(nn.Sequential(m))
    tprune.remove(t, "weight")
    assert prune.remove(m, "weight") is m
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    same(m.weight, t.weight)
    assert set(m.state_dict()) == set(t.state_dict()) == {"weight", "bias"}
    assert not prune.is_pruned(m) and not m._forward_pre_hooks
    with pytest.raises(ArgumentError, match="has to be pruned before"):
        prune.remove(m, "weight")
    with pytest.raises(ValueError):
        tprune.remove(t, "weight")


def test_random_unstructured_prunes_the_asked_count_and_keeps_earlier_zeros():
    lucid.manual_seed(0)
    m = nn.Linear(10, 10)
    prune.l1_unstructured(m, "weight", 20)
    first = m.weight_mask.clone()
    prune.random_unstructured(m, "weight", 0.5)  # half of the 80 left
    assert float(m.weight_mask.sum()) == 40
    assert float((m.weight_mask * (1 - first)).sum()) == 0
    lucid.manual_seed(1)
    a = prune.RandomUnstructured(0.3).compute_mask(lucid.ones(50), lucid.ones(50))
    lucid.manual_seed(1)
    b = prune.RandomUnstructured(0.3).compute_mask(lucid.ones(50), lucid.ones(50))
    assert lucid.equal(a, b) and float(a.sum()) == 35


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_random_structured_prunes_whole_slices(dim):
    lucid.manual_seed(0)
    m = nn.Conv2d(4, 6, 3)
    prune.random_structured(m, "weight", amount=0.5, dim=dim)
    mask = m.weight_mask
    size = mask.shape[dim]
    others = [d for d in range(4) if d != dim % 4]
    per_slice = mask.sum(dim=others)
    kept = int((per_slice > 0).sum())
    assert kept == size - round(0.5 * size)
    assert set(per_slice.tolist()) <= {0.0, mask.numel() / size}


def test_prune_method_on_a_tensor_matches_torch():
    w = np.random.default_rng(5).standard_normal((4, 5)).astype(np.float32)
    ref = tprune.L1Unstructured(amount=0.5).prune(torch.tensor(w))
    same(prune.L1Unstructured(amount=0.5).prune(lucid.tensor(w)), ref)
    ref = tprune.LnStructured(amount=2, n=1, dim=1).prune(torch.tensor(w))
    same(prune.LnStructured(amount=2, n=1, dim=1).prune(lucid.tensor(w)), ref)


@pytest.mark.parametrize(
    "bad, err, match",
    [
        (lambda m: prune.l1_unstructured(m, "weight", -1), ArgumentError, "non-negative"),
        (lambda m: prune.l1_unstructured(m, "weight", 1.5), ArgumentError, r"in \[0, 1\]"),
        (lambda m: prune.l1_unstructured(m, "weight", "a"), ArgumentTypeError, "int or a float"),
        (lambda m: prune.l1_unstructured(m, "weight", 31), ArgumentError, "at most"),
        (lambda m: prune.ln_structured(m, "bias", 1, 2, 0), ShapeError, "at least 2 dims"),
        (lambda m: prune.ln_structured(m, "weight", 1, 2, 2), DimError, "out of range"),
        (
            lambda m: prune.l1_unstructured(m, "weight", 1, importance_scores=lucid.ones(3)),
            ShapeError,
            "importance_scores",
        ),
        (lambda m: prune.custom_from_mask(m, "weight", lucid.ones(3)), ShapeError, "mask"),
    ],
)
def test_bad_arguments_raise_and_leave_the_module_as_it_was(bad, err, match):
    lucid.manual_seed(0)
    m = nn.Linear(6, 5)
    before = {k: v.clone() for k, v in m.state_dict().items()}
    with pytest.raises(err, match=match):
        bad(m)
    assert set(m.state_dict()) == set(before)
    assert isinstance(m.weight, nn.Parameter) and not m._forward_pre_hooks


@pytest.mark.parametrize(
    "bad",
    [
        lambda P, m: P.l1_unstructured(m, "weight", -1),
        lambda P, m: P.l1_unstructured(m, "weight", 1.5),
        lambda P, m: P.l1_unstructured(m, "weight", 31),
        lambda P, m: P.ln_structured(m, "bias", 1, 2, 0),
    ],
)
def test_errors_are_the_builtins_torch_raises(bad):
    t, m = linear_pair()
    with pytest.raises(Exception) as ti:
        bad(tprune, t)
    with pytest.raises(type(ti.value)):
        bad(prune, m)
