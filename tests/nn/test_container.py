"""Containers against torch: indexing, mutation, renumbering, reprs, registration."""

from collections import OrderedDict

import numpy as np
import pytest
import torch

import lucid
from lucid import nn


def _same_repr(lm, tm):
    # torch names dtypes in ParameterList/Dict reprs by tensor type, Lucid by dtype
    expect = repr(tm).replace("FloatTensor", "float32").replace("DoubleTensor", "float64")
    assert repr(lm).replace("lucid.", "torch.") == expect


def _both(fn):
    return fn(nn, lucid), fn(torch.nn, torch)


def test_sequential_forward_and_state_dict_from_torch():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Identity(), torch.nn.Linear(3, 1))
    lm = nn.Sequential(nn.Linear(2, 3), nn.Identity(), nn.Linear(3, 1))
    lm.load_state_dict({k: lucid.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((4, 2)).astype(np.float32)
    np.testing.assert_allclose(
        lm(lucid.tensor(x)).detach().numpy(),
        tm(torch.tensor(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    _same_repr(lm, tm)


def test_sequential_ordered_dict_names():
    lm, tm = _both(lambda n, t: n.Sequential(OrderedDict(a=n.Linear(1, 2), b=n.Identity())))
    assert [k for k, _ in lm.named_parameters()] == [k for k, _ in tm.named_parameters()]
    _same_repr(lm, tm)


def test_sequential_indexing_slicing_len_iter():
    a, b, c = nn.Linear(1, 1), nn.Identity(), nn.Linear(1, 2)
    s = nn.Sequential(a, b, c)
    assert len(s) == 3 and s[0] is a and s[-1] is c and list(s) == [a, b, c]
    sl = s[1:]
    assert isinstance(sl, nn.Sequential) and list(sl) == [b, c] and list(sl._modules) == ["1", "2"]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        s[3]
    with pytest.raises(IndexError):
        s[-4]
    d = nn.Linear(3, 3)
    s[1] = d
    assert s[1] is d


def test_sequential_del_renumbers_like_torch():
    def build(n, t):
        s = n.Sequential(*[n.Linear(i + 1, 1) for i in range(5)])
        del s[1]
        del s[::2]
        return s

    ls, ts = _both(build)
    assert list(ls._modules) == list(ts._modules) == ["0", "1"]
    assert [m.in_features for m in ls] == [m.in_features for m in ts] == [3, 5]


def test_sequential_append_insert_extend_pop_add_mul():
    def build(n, t):
        s = n.Sequential(n.Linear(1, 1))
        s.append(n.Linear(2, 2))
        s.insert(0, n.Linear(3, 3))
        s.insert(-1, n.Linear(4, 4))
        s.extend([n.Linear(5, 5)])
        popped = s.pop(1)
        s2 = s + n.Sequential(n.Linear(6, 6))
        s += n.Sequential(n.Linear(7, 7))
        return s, popped, s2, s2 * 2

    (ls, lp, ls2, lm2), (ts, tp, ts2, tm2) = _both(build)
    feats = lambda s: [m.in_features for m in s]  # noqa: E731
    assert feats(ls) == feats(ts) and lp.in_features == tp.in_features
    assert feats(ls2) == feats(ts2) and feats(lm2) == feats(tm2)
    assert list(ls._modules) == list(ts._modules)
    _same_repr(ls2, ts2)
    with pytest.raises(ValueError, match="only objects of Sequential"):
        ls + [nn.Identity()]
    with pytest.raises(ValueError, match="Non-positive"):
        ls * 0
    with pytest.raises(IndexError, match="Index out of range"):
        ls.insert(99, nn.Identity())
    with pytest.raises(AssertionError):
        ls.insert(0, 3)
    x = nn.Sequential(nn.Linear(1, 1))
    x *= 3
    assert len(x) == 3 and x[0] is x[2]
    assert "0" not in dir(x)


def test_module_list():
    def build(n, t):
        ml = n.ModuleList([n.Linear(1, 1), n.Linear(2, 2)])
        ml.append(n.Linear(3, 3))
        ml.extend([n.Linear(4, 4)])
        ml.insert(1, n.Linear(5, 5))
        ml += [n.Linear(6, 6)]
        del ml[0]
        popped = ml.pop(-1)
        return ml, popped, ml[1:3], ml + [n.Identity()]

    (lm, lp, lsl, ladd), (tm, tp, tsl, tadd) = _both(build)
    feats = lambda s: [getattr(m, "in_features", None) for m in s]  # noqa: E731
    assert feats(lm) == feats(tm) and lp.in_features == tp.in_features
    assert feats(lsl) == feats(tsl) and feats(ladd) == feats(tadd)
    assert list(lm._modules) == list(tm._modules)
    assert [k for k, _ in lm.named_parameters()] == [k for k, _ in tm.named_parameters()]
    _same_repr(lm, tm)
    with pytest.raises(IndexError, match="out of range"):
        lm[10]
    with pytest.raises(TypeError, match="iterable"):
        lm.extend(3)
    with pytest.raises(NotImplementedError):
        lm(1)
    lm[0] = nn.Identity()
    assert isinstance(lm[0], nn.Identity)


def test_module_list_repr_folds_repeats():
    lm, tm = _both(
        lambda n, t: n.ModuleList(
            [n.Linear(2, 2)] * 3 + [n.Identity(), n.Linear(1, 1), n.Linear(1, 1)]
        )
    )
    _same_repr(lm, tm)
    assert "(0-2): 3 x Linear" in repr(lm)
    _same_repr(nn.ModuleList(), torch.nn.ModuleList())
    nested_l, nested_t = _both(lambda n, t: n.Sequential(n.ModuleList([n.Linear(1, 1)] * 2)))
    _same_repr(nested_l, nested_t)


def test_module_dict():
    def build(n, t):
        md = n.ModuleDict({"b": n.Linear(1, 1), "a": n.Linear(2, 2)})
        md["c"] = n.Linear(3, 3)
        md.update([("d", n.Identity())])
        popped = md.pop("b")
        return md, popped

    (lm, lp), (tm, tp) = _both(build)
    assert list(lm.keys()) == list(tm.keys()) == ["a", "c", "d"]
    assert "a" in lm and "b" not in lm and len(lm) == 3 and list(lm) == list(tm)
    assert [k for k, _ in lm.items()] == ["a", "c", "d"]
    assert [k for k, _ in lm.named_parameters()] == [k for k, _ in tm.named_parameters()]
    _same_repr(lm, tm)
    del lm["a"]
    assert list(lm.keys()) == ["c", "d"]
    lm.clear()
    assert len(lm) == 0
    with pytest.raises(ValueError, match="has length 3"):
        lm.update([("a", nn.Identity(), 1)])
    with pytest.raises(TypeError, match="iterable"):
        lm.update(3)


def test_parameter_list():
    pl = nn.ParameterList([lucid.ones(2), nn.Parameter(lucid.zeros(3, 4))])
    tl = torch.nn.ParameterList([torch.ones(2), torch.nn.Parameter(torch.zeros(3, 4))])
    assert all(isinstance(p, nn.Parameter) for p in pl) and len(pl) == 2
    pl.append(lucid.ones(1, dtype=lucid.float64))
    tl.append(torch.ones(1, dtype=torch.float64))
    pl.extend([lucid.ones(5)])
    tl.extend([torch.ones(5)])
    pl.append("x")
    tl.append("x")
    _same_repr(pl, tl)
    assert [k for k, _ in pl.named_parameters()] == [k for k, _ in tl.named_parameters()]
    assert pl[-2].shape == (5,) and isinstance(pl[1:3], nn.ParameterList) and len(pl[1:3]) == 2
    pl[0] = lucid.zeros(7)
    assert isinstance(pl[0], nn.Parameter) and pl[0].shape == (7,)
    with pytest.raises(RuntimeError, match="should not be called"):
        pl()
    with pytest.raises(TypeError, match="iterable"):
        pl.extend(lucid.ones(2))
    m = nn.Module()
    m.ps = nn.ParameterList([lucid.ones(1)])
    assert [k for k, _ in m.named_parameters()] == ["ps.0"]


def test_parameter_dict():
    pd = nn.ParameterDict({"b": lucid.ones(2), "a": lucid.zeros(3)})
    td = torch.nn.ParameterDict({"b": torch.ones(2), "a": torch.zeros(3)})
    assert list(pd) == list(td) == ["a", "b"]  # a plain dict is sorted
    pd2 = nn.ParameterDict(OrderedDict(b=lucid.ones(1), a=lucid.ones(1)))
    assert list(pd2) == ["b", "a"]
    pd["c"] = nn.Parameter(lucid.ones(1, 1))
    td["c"] = torch.nn.Parameter(torch.ones(1, 1))
    _same_repr(pd, td)
    assert [k for k, _ in pd.named_parameters()] == [k for k, _ in td.named_parameters()]
    assert "a" in pd and pd.get("zz") is None and pd.setdefault("d", lucid.ones(1)).shape == (1,)
    assert pd.popitem()[0] == "d" and pd.pop("c").shape == (1, 1)
    assert list(reversed(pd)) == ["b", "a"]
    assert list((pd | {"e": lucid.ones(1)}).keys()) == ["a", "b", "e"]
    c = pd.copy()
    assert c["a"] is pd["a"]
    with pytest.raises(TypeError, match="not a string"):
        pd[1]
    with pytest.raises(RuntimeError, match="should not be called"):
        pd()
    pd.clear()
    assert len(pd) == 0 and list(pd.parameters()) == []


def test_containers_train_eval_and_to():
    s = nn.Sequential(nn.ModuleList([nn.Linear(1, 1)]), nn.ModuleDict({"x": nn.Linear(1, 1)}))
    s.eval()
    assert not any(m.training for m in s.modules())
    s.to(lucid.float64)
    assert all(p.dtype is lucid.float64 for p in s.parameters())
