"""Module: registration, iteration, state_dict, hooks, modes, conversion, repr, vs torch."""

import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest
import torch

import lucid
from lucid import nn
from lucid.errors import ArgumentError, DTypeError


class Block(nn.Module):
    def __init__(self, lib):
        super().__init__()
        self.fc = lib.nn.Linear(4, 3)
        self.register_buffer("running", lib.zeros(3))
        self.register_buffer("scratch", lib.ones(2), persistent=False)

    def forward(self, x):
        return self.fc(x) + self.running


class TBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)
        self.register_buffer("running", torch.zeros(3))
        self.register_buffer("scratch", torch.ones(2), persistent=False)

    def forward(self, x):
        return self.fc(x) + self.running


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block(lucid)
        self.head = nn.Linear(3, 2, bias=False)
        self.scale = nn.Parameter(lucid.ones(()))

    def forward(self, x):
        return self.head(self.block(x)) * self.scale


class TNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = TBlock()
        self.head = torch.nn.Linear(3, 2, bias=False)
        self.scale = torch.nn.Parameter(torch.ones(()))

    def forward(self, x):
        return self.head(self.block(x)) * self.scale


def _untorch(text):
    """A torch model's text with the names of its classes mirrored here (TNet -> Net)."""
    return text.replace("TNet", "Net").replace("TBlock", "Block")


def _copy_from_torch(lmod, tmod):
    sd = {k: lucid.tensor(v.detach().numpy().copy()) for k, v in tmod.state_dict().items()}
    return lmod.load_state_dict(sd)


# -- Parameter and Buffer -------------------------------------------------------------------


def test_parameter_basics():
    data = lucid.randn(2, 3)
    p = nn.Parameter(data)
    assert isinstance(p, lucid.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf
    assert nn.Parameter(data, requires_grad=False).requires_grad is False
    p.data.zero_()  # shares storage with data
    assert data.sum().item() == 0
    assert repr(p).startswith("Parameter containing:\ntensor(")
    assert repr(p) == "Parameter containing:\n" + repr(lucid.zeros(2, 3, requires_grad=True))
    assert type(p * 2) is lucid.Tensor and type(p.detach()) is lucid.Tensor
    assert nn.Parameter().shape == (0,)


def test_parameter_data_assignment_and_copies():
    p = nn.Parameter(lucid.ones(3))
    p.data = lucid.zeros(5, dtype=lucid.float64)
    assert type(p) is nn.Parameter and p.shape == (5,) and p.dtype is lucid.float64
    assert p.requires_grad
    p.grad = lucid.ones(5, dtype=lucid.float64)
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q.requires_grad and q.grad is not None
    q.data.fill_(7)
    assert p.sum().item() == 0
    r = pickle.loads(pickle.dumps(nn.Parameter(lucid.ones(2), requires_grad=False)))
    assert type(r) is nn.Parameter and not r.requires_grad and r.tolist() == [1, 1]


def test_parameter_grad_is_plain_tensor():
    p = nn.Parameter(lucid.ones(3))
    (p * 2).sum().backward()
    assert type(p.grad) is lucid.Tensor and p.grad.tolist() == [2, 2, 2]


def test_buffer_assignment_and_persistence():
    m = nn.Module()
    m.a = nn.Buffer(lucid.ones(2))
    m.b = nn.Buffer(lucid.zeros(1), persistent=False)
    assert [k for k, _ in m.named_buffers()] == ["a", "b"]
    assert list(m.state_dict()) == ["a"]
    m.b = lucid.ones(1)  # reassigning keeps the buffer non-persistent
    assert "b" in m._buffers and list(m.state_dict()) == ["a"]
    b = pickle.loads(pickle.dumps(nn.Buffer(lucid.ones(1), persistent=False)))
    assert type(b) is nn.Buffer and b.persistent is False


# -- registration ---------------------------------------------------------------------------


def test_registration_by_assignment_and_reassignment():
    m = nn.Module()
    m.w = nn.Parameter(lucid.ones(2))
    m.sub = nn.Linear(2, 2)
    m.plain = 3
    assert list(m._parameters) == ["w"] and list(m._modules) == ["sub"]
    assert m.plain == 3 and "plain" in m.__dict__
    m.w = None
    assert m._parameters["w"] is None and list(m.parameters(recurse=False)) == []
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'w'"):
        m.w = lucid.ones(2)
    with pytest.raises(TypeError, match="as child module 'sub'"):
        m.sub = 5
    m.sub = nn.Parameter(lucid.ones(1))  # a parameter replaces the module of that name
    assert "sub" not in m._modules and "sub" in m._parameters
    del m.sub
    assert "sub" not in m._parameters
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'sub'"):
        m.sub
    del m.plain
    assert not hasattr(m, "plain")


def test_register_errors():
    m = nn.Module()
    m.x = 1
    with pytest.raises(KeyError, match="already exists"):
        m.register_buffer("x", lucid.ones(1))
    with pytest.raises(KeyError, match="contain"):
        m.register_parameter("a.b", nn.Parameter(lucid.ones(1)))
    with pytest.raises(KeyError, match="empty string"):
        m.add_module("", nn.Identity())
    with pytest.raises(TypeError, match="parameter name should be a string"):
        m.register_parameter(1, None)
    with pytest.raises(TypeError, match="lucid.nn.Parameter or None required"):
        m.register_parameter("p", lucid.ones(1))
    with pytest.raises(TypeError, match="is not a Module subclass"):
        m.add_module("s", 3)
    with pytest.raises(TypeError, match="buffer"):
        m.register_buffer("b", 3)
    with pytest.raises(ValueError, match="non-leaf"):
        m.register_parameter("q", _nonleaf_param())

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(lucid.ones(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def _nonleaf_param():
    p = nn.Parameter(lucid.ones(1))
    q = nn.Parameter.__new__(nn.Parameter, lucid.ones(1))
    q._grad_fn = (p * 2).grad_fn
    return q


def test_get_submodule_parameter_buffer():
    net = Net()
    assert net.get_submodule("") is net
    assert net.get_submodule("block.fc") is net.block.fc
    assert net.get_parameter("block.fc.weight") is net.block.fc.weight
    assert net.get_parameter("scale") is net.scale
    assert net.get_buffer("block.running") is net.block.running
    with pytest.raises(AttributeError, match="has no attribute `nope`"):
        net.get_submodule("block.nope")
    with pytest.raises(AttributeError, match="is not an nn.Module"):
        net.get_submodule("block.running")
    with pytest.raises(AttributeError, match="is not an nn.Parameter"):
        net.get_parameter("block.running")
    with pytest.raises(AttributeError, match="is not a buffer"):
        net.get_buffer("block.fc.weight")
    m = nn.Module()
    m.register_module("x", nn.Identity())
    assert isinstance(m.x, nn.Identity)


def test_named_iteration_matches_torch():
    net, tnet = Net(), TNet()
    for fn in ("named_parameters", "named_buffers", "named_modules", "named_children"):
        assert [k for k, _ in getattr(net, fn)()] == [k for k, _ in getattr(tnet, fn)()]
    assert [k for k, _ in net.named_parameters(prefix="m", recurse=True)] == [
        k for k, _ in tnet.named_parameters(prefix="m")
    ]
    assert [k for k, _ in net.named_parameters(recurse=False)] == ["scale"]
    assert len(list(net.modules())) == 4 and len(list(net.children())) == 2
    assert len(list(net.parameters())) == 4 and len(list(net.buffers())) == 2
    assert [k for k, _ in net.named_modules(prefix="root")][1] == "root.block"


def test_shared_modules_and_parameters_deduplicated():
    lin = nn.Linear(2, 2)
    m = nn.Module()
    m.a, m.b = lin, lin
    m.c = nn.Linear(2, 2)
    m.c.weight = lin.weight
    assert [k for k, _ in m.named_modules()] == ["", "a", "c"]
    assert [k for k, _ in m.named_modules(remove_duplicate=False)] == ["", "a", "b", "c"]
    assert [k for k, _ in m.named_parameters()] == ["a.weight", "a.bias", "c.bias"]
    assert len(list(m.named_parameters(remove_duplicate=False))) == 6
    assert list(m.children()) == [lin, m.c]


# -- modes, grads, conversion ---------------------------------------------------------------


def test_train_eval_propagate():
    net = Net()
    assert all(m.training for m in net.modules())
    assert net.eval() is net and not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    with pytest.raises(ValueError, match="boolean"):
        net.train(1)


def test_zero_grad_and_requires_grad():
    net = Net()
    net(lucid.randn(5, 4)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and p.grad.abs().sum().item() == 0 for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    assert net.requires_grad_(False) is net
    assert not any(p.requires_grad for p in net.parameters())


def test_apply_order():
    seen = []
    Net().apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "Block", "Linear", "Net"]


def test_to_dtype_in_place_keeps_parameter_objects():
    net = Net()
    w = net.block.fc.weight
    net(lucid.randn(1, 4)).sum().backward()
    assert net.to(lucid.float64) is net
    assert net.block.fc.weight is w and w.dtype is lucid.float64 and w.grad.dtype is lucid.float64
    assert net.block.running.dtype is lucid.float64 and w.requires_grad
    net.float()
    assert all(p.dtype is lucid.float32 for p in net.parameters())
    net.half()
    assert all(p.dtype is lucid.float16 for p in net.parameters())
    net.bfloat16()
    assert w.dtype is lucid.bfloat16
    net.double()
    assert w.dtype is lucid.float64
    net.to(device="cpu", dtype=lucid.float32)
    assert w.dtype is lucid.float32 and net.cpu() is net
    net.to(lucid.zeros(1, dtype=lucid.float64))
    assert w.dtype is lucid.float64
    with pytest.raises(DTypeError, match="floating point"):
        net.to(lucid.int64)


def test_to_leaves_integer_buffers_dtype():
    m = nn.Module()
    m.register_buffer("count", lucid.zeros(1, dtype=lucid.int64))
    m.w = nn.Parameter(lucid.ones(1))
    m.to(lucid.float64)
    assert m.count.dtype is lucid.int64 and m.w.dtype is lucid.float64
    m.type(lucid.float32)
    assert m.count.dtype is lucid.float32


# -- state dict -----------------------------------------------------------------------------


def test_state_dict_keys_detach_keep_vars():
    net = Net()
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == list(TNet().state_dict())
    assert all(not v.requires_grad for v in sd.values())
    assert sd["scale"].data_ptr() == net.scale.data_ptr()
    kv = net.state_dict(keep_vars=True)
    assert kv["scale"] is net.scale
    assert list(net.state_dict(prefix="model.")) == ["model." + k for k in sd]
    assert sd._metadata[""]["version"] == 1 and "block.fc" in sd._metadata


def test_load_from_torch_state_dict_outputs_match():
    torch.manual_seed(0)
    net, tnet = Net(), TNet()
    with torch.no_grad():
        tnet.block.running.uniform_()
        tnet.scale.fill_(1.5)
    res = _copy_from_torch(net, tnet)
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert repr(res) == "<All keys matched successfully>"
    x = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32)
    np.testing.assert_allclose(
        net(lucid.tensor(x)).detach().numpy(),
        tnet(torch.tensor(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


def test_load_torch_tensors_and_arrays_directly_and_casts():
    torch.manual_seed(1)
    net, tnet = Net(), TNet()
    net.load_state_dict(tnet.state_dict())
    x = np.random.default_rng(3).standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_allclose(
        net(lucid.tensor(x)).detach().numpy(),
        tnet(torch.tensor(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    lin = nn.Linear(2, 3)
    lin.load_state_dict({"weight": np.ones((3, 2)), "bias": lucid.zeros(3, dtype=lucid.float64)})
    assert lin.weight.dtype is lucid.float32 and lin.weight.sum().item() == 6
    with pytest.raises(ArgumentError, match="expected lucid.Tensor"):
        lin.load_state_dict({"weight": [[1.0] * 2] * 3, "bias": lucid.zeros(3)})


def test_load_copies_in_place_and_round_trip():
    a, b = Net(), Net()
    w = b.block.fc.weight
    b.load_state_dict(a.state_dict())
    assert b.block.fc.weight is w
    for (k, v), (_, u) in zip(a.state_dict().items(), b.state_dict().items()):
        assert np.array_equal(v.numpy(), u.numpy()), k
    assert w.data_ptr() != a.block.fc.weight.data_ptr()


def test_load_strict_errors_like_torch():
    net, tnet = Net(), TNet()
    sd = net.state_dict()
    del sd["head.weight"]
    sd["extra.weight"] = lucid.ones(1)
    sd["block.fc.bias"] = lucid.ones(7)
    tsd = tnet.state_dict()
    del tsd["head.weight"]
    tsd["extra.weight"] = torch.ones(1)
    tsd["block.fc.bias"] = torch.ones(7)
    with pytest.raises(RuntimeError) as te:
        tnet.load_state_dict(tsd)
    with pytest.raises(ArgumentError) as le:
        net.load_state_dict(sd)
    assert str(le.value).replace("lucid.Size", "torch.Size") == _untorch(str(te.value))
    assert 'Missing key(s) in state_dict: "head.weight"' in str(le.value)
    assert 'Unexpected key(s) in state_dict: "extra.weight"' in str(le.value)
    assert "size mismatch for block.fc.bias" in str(le.value)


def test_load_non_strict_returns_keys_but_still_checks_shapes():
    net = Net()
    sd = net.state_dict()
    del sd["scale"]
    sd["junk"] = lucid.ones(1)
    res = net.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["scale"] and res.unexpected_keys == ["junk"]
    missing, unexpected = res
    assert missing == ["scale"]
    sd["scale"] = lucid.ones(3)
    with pytest.raises(ArgumentError, match="size mismatch for scale"):
        net.load_state_dict(sd, strict=False)
    with pytest.raises(TypeError, match="dict-like"):
        net.load_state_dict([1])


def test_load_assign():
    net = Net()
    sd = {k: v.clone() for k, v in net.state_dict().items()}
    net.scale.requires_grad_(False)
    net.load_state_dict(sd, assign=True)
    assert net.block.fc.weight.data_ptr() == sd["block.fc.weight"].data_ptr()
    assert isinstance(net.block.fc.weight, nn.Parameter) and net.block.fc.weight.requires_grad
    assert isinstance(net.scale, nn.Parameter) and not net.scale.requires_grad
    assert net.block.running.data_ptr() == sd["block.running"].data_ptr()


def test_load_one_element_into_scalar():
    net = Net()
    sd = net.state_dict()
    sd["scale"] = lucid.tensor([3.0])
    net.load_state_dict(sd)
    assert net.scale.item() == 3.0


def test_load_state_dict_hooks_and_extra_state():
    class Old(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(lucid.zeros(2))
            self.step = 0
            self._register_load_state_dict_pre_hook(self._rename)

        @staticmethod
        def _rename(sd, prefix, *args):
            if prefix + "old_w" in sd:
                sd[prefix + "w"] = sd.pop(prefix + "old_w")

        def get_extra_state(self):
            return {"step": self.step}

        def set_extra_state(self, state):
            self.step = state["step"]

    m = Old()
    post = []
    m.register_load_state_dict_post_hook(lambda mod, keys: post.append(list(keys.missing_keys)))
    m.load_state_dict({"old_w": lucid.ones(2), "_extra_state": {"step": 9}})
    assert m.w.tolist() == [1, 1] and m.step == 9 and post == [[]]
    assert m.state_dict()["_extra_state"] == {"step": 9}
    with pytest.raises(ArgumentError, match='Missing key.*"_extra_state"'):
        m.load_state_dict({"w": lucid.ones(2)})
    with pytest.raises(ArgumentError, match='Unexpected key.*"_extra_state"'):
        nn.Linear(1, 1).load_state_dict({**nn.Linear(1, 1).state_dict(), "_extra_state": 1})


def test_state_dict_hooks():
    m = nn.Linear(2, 2)
    calls = []
    m.register_state_dict_pre_hook(lambda mod, prefix, keep: calls.append(("pre", prefix)))
    h = m.register_state_dict_post_hook(
        lambda mod, sd, prefix, meta: calls.append(("post", list(sd)))
    )
    m.state_dict()
    assert calls == [("pre", ""), ("post", ["weight", "bias"])]
    h.remove()
    m.state_dict()
    assert calls[-1] == ("pre", "")


def test_pickle_module_round_trip():
    net = Net()
    back = pickle.loads(pickle.dumps(net))
    assert repr(back) == repr(net) and isinstance(back.scale, nn.Parameter)
    x = lucid.randn(2, 4)
    np.testing.assert_array_equal(back(x).detach().numpy(), net(x).detach().numpy())
    assert list(back.state_dict()) == list(net.state_dict())


def test_deepcopy_module():
    net = Net()
    c = copy.deepcopy(net)
    assert c.block.fc.weight is not net.block.fc.weight
    assert isinstance(c.block.fc.weight, nn.Parameter)
    assert np.array_equal(c.block.fc.weight.detach().numpy(), net.block.fc.weight.detach().numpy())


# -- hooks ----------------------------------------------------------------------------------


def test_forward_pre_hooks_and_hooks_order_and_effects():
    m = nn.Linear(2, 2)
    log = []
    m.register_forward_pre_hook(lambda mod, args: log.append("pre1"))
    m.register_forward_pre_hook(lambda mod, args: (log.append("pre0"), None)[1], prepend=True)
    m.register_forward_pre_hook(lambda mod, args: args[0] * 0)  # single value -> 1-tuple
    m.register_forward_hook(lambda mod, args, out: log.append("post1"))
    h = m.register_forward_hook(lambda mod, args, out: out + 1)
    out = m(lucid.ones(3, 2))
    assert log == ["pre0", "pre1", "post1"]
    np.testing.assert_allclose(
        out.detach().numpy(), (m.bias + 1).detach().numpy()[None].repeat(3, 0), rtol=1e-6
    )
    h.remove()
    np.testing.assert_allclose(
        m(lucid.ones(1, 2)).detach().numpy(), m.bias.detach().numpy()[None], rtol=1e-6
    )


def test_forward_hooks_with_kwargs():
    class K(nn.Module):
        def forward(self, x, scale=1.0):
            return x * scale

    m = K()
    m.register_forward_pre_hook(lambda mod, args, kw: (args, {"scale": 3.0}), with_kwargs=True)
    seen = []
    m.register_forward_hook(lambda mod, args, kw, out: seen.append(kw["scale"]), with_kwargs=True)
    assert m(lucid.ones(1)).item() == 3.0 and seen == [3.0]
    m2 = K()
    m2.register_forward_pre_hook(lambda mod, args, kw: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple"):
        m2(lucid.ones(1))


def test_forward_hook_always_call():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Boom()
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append("always"), always_call=True)
    m.register_forward_hook(lambda mod, args, out: seen.append("normal"))
    with pytest.raises(ValueError, match="boom"):
        m(lucid.ones(1))
    assert seen == ["always"]


def test_hook_handle_context_manager():
    m = nn.Identity()
    seen = []
    with m.register_forward_hook(lambda *a: seen.append(1)):
        m(lucid.ones(1))
    m(lucid.ones(1))
    assert seen == [1]


def _hooked_pair(lib_nn, lin):
    rec = []
    lin.register_full_backward_pre_hook(
        lambda m, go: rec.append(("pre", [g.numpy().copy() for g in go]))
    )
    lin.register_full_backward_hook(
        lambda m, gi, go: rec.append(
            (
                "full",
                [None if g is None else g.numpy().copy() for g in gi],
                [g.numpy().copy() for g in go],
            )
        )
    )
    return rec


def test_full_backward_hooks_match_torch():
    torch.manual_seed(0)
    tl = torch.nn.Linear(3, 2)
    ll = nn.Linear(3, 2)
    _copy_from_torch(ll, tl)
    trec, lrec = _hooked_pair(torch.nn, tl), _hooked_pair(nn, ll)
    x = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    tx, lx = torch.tensor(x, requires_grad=True), lucid.tensor(x, requires_grad=True)
    (tl(tx) ** 2).sum().backward()
    (ll(lx) ** 2).sum().backward()
    assert [r[0] for r in lrec] == [r[0] for r in trec] == ["pre", "full"]
    np.testing.assert_allclose(lrec[0][1][0], trec[0][1][0], rtol=1e-5)
    np.testing.assert_allclose(lrec[1][1][0], trec[1][1][0], rtol=1e-5)
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-5)


def test_full_backward_hook_replaces_grads_and_none_for_constant_inputs():
    lin = nn.Linear(3, 2)
    lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 0 + 1,))
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 2,))
    x = lucid.randn(4, 3, requires_grad=True)
    (lin(x) * 5).sum().backward()
    expect = 2 * np.ones((4, 2), np.float32) @ lin.weight.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), expect, rtol=1e-5)
    np.testing.assert_allclose(lin.bias.grad.numpy(), [4, 4])  # bias sees the pre-hook's ones

    seen = []
    lin2 = nn.Linear(3, 2)
    lin2.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go[0].shape)))
    lin2(lucid.randn(4, 3)).sum().backward()
    assert seen == [((None,), (4, 2))]


def test_backward_hooks_two_inputs_one_constant():
    class Mul(nn.Module):
        def forward(self, a, b):
            return a * b

    m = Mul()
    seen = []
    m.register_full_backward_hook(
        lambda mod, gi, go: seen.append([None if g is None else g.tolist() for g in gi])
    )
    a = lucid.tensor([2.0, 3.0])
    b = lucid.tensor([5.0, 7.0], requires_grad=True)
    m(a, b).sum().backward()
    assert seen == [[None, [2.0, 3.0]]]
    assert b.grad.tolist() == [2.0, 3.0]


# -- repr and dir ---------------------------------------------------------------------------


def test_repr_equals_torch():
    assert repr(Net()) == _untorch(repr(TNet()))
    ls = nn.Module()
    ls.inner = Net()
    ls.register_module("none", None)
    ts = torch.nn.Module()
    ts.inner = TNet()
    ts.register_module("none", None)
    assert repr(ls) == _untorch(repr(ts))

    class WithExtra(nn.Module):
        def __init__(self):
            super().__init__()
            self.sub = nn.Linear(1, 1)

        def extra_repr(self):
            return "a=1\nb=2"

    class TWithExtra(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.sub = torch.nn.Linear(1, 1)

        def extra_repr(self):
            return "a=1\nb=2"

    assert repr(WithExtra()).replace("WithExtra", "X") == repr(TWithExtra()).replace(
        "TWithExtra", "X"
    )


def test_dir_lists_members():
    d = dir(Net())
    assert "block" in d and "scale" in d and "forward" in d and d == sorted(d)


def test_forward_missing():
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(1)


def test_share_memory():
    m = nn.Linear(2, 2)
    w = m.weight
    m.share_memory()
    assert m.weight is w and w.is_shared()


def test_hook_prepend_orders():
    m = nn.Linear(2, 2)
    log = []
    m.register_forward_hook(lambda *a: log.append("f1"))
    m.register_forward_hook(lambda *a: log.append("f0"), prepend=True)
    m.register_full_backward_hook(lambda *a: log.append("b1"))
    m.register_full_backward_hook(lambda *a: log.append("b0"), prepend=True)
    m.register_full_backward_pre_hook(lambda *a: log.append("p1"))
    m.register_full_backward_pre_hook(lambda *a: log.append("p0"), prepend=True)
    m(lucid.ones(1, 2, requires_grad=True)).sum().backward()
    assert log == ["f0", "f1", "p0", "p1", "b0", "b1"]


def test_backward_hooks_skipped_without_grad_mode():
    m = nn.Linear(2, 2)
    seen = []
    m.register_full_backward_hook(lambda *a: seen.append(1))
    with lucid.no_grad():
        out = m(lucid.ones(1, 2, requires_grad=True))
    assert not out.requires_grad and seen == []


def test_set_submodule_and_to_empty():
    net, tnet = Net(), TNet()
    net.set_submodule("block.fc", nn.Linear(4, 3, bias=False))
    assert net.block.fc.bias is None
    net.set_submodule("block.extra", nn.Identity())
    assert isinstance(net.block.extra, nn.Identity)
    with pytest.raises(AttributeError, match="has no attribute `nope`"):
        net.set_submodule("block.nope", nn.Identity(), strict=True)
    with pytest.raises(AttributeError, match="is not an nn.Module"):
        net.set_submodule("block.running", nn.Identity())
    with pytest.raises(ValueError, match="not an nn.Module"):
        net.set_submodule("head", 3)
    with pytest.raises(ValueError, match="without a target"):
        net.set_submodule("", nn.Identity())
    tnet.set_submodule("block.fc", torch.nn.Linear(4, 3, bias=False))
    tnet.set_submodule("block.extra", torch.nn.Identity())
    assert repr(net) == _untorch(repr(tnet))
    w = net.head.weight
    assert net.to_empty(device="cpu") is net
    assert net.head.weight is w and w.shape == (2, 3) and w.requires_grad
    assert net.block.running.shape == (3,)


def test_global_hooks_run_before_module_hooks():
    from lucid.nn.modules import module as M

    log = []
    m = nn.Linear(2, 2)
    m.register_forward_pre_hook(lambda *a: log.append("pre"))
    m.register_forward_hook(lambda *a: log.append("post"))
    m.register_full_backward_hook(lambda *a: log.append("bw"))
    handles = [
        M.register_module_forward_pre_hook(lambda mod, args: log.append("gpre")),
        M.register_module_forward_hook(
            lambda mod, args, kw, out: log.append(("gpost", kw)), with_kwargs=True
        ),
        M.register_module_full_backward_pre_hook(lambda mod, go: log.append("gbwpre")),
        M.register_module_full_backward_hook(lambda mod, gi, go: log.append("gbw")),
    ]
    try:
        m(lucid.ones(1, 2, requires_grad=True)).sum().backward()
        assert log == ["gpre", "pre", ("gpost", {}), "post", "gbwpre", "gbw", "bw"]
        log.clear()
        nn.Identity()(lucid.ones(1))  # global hooks see every module
        assert log == ["gpre", ("gpost", {})]
    finally:
        for h in handles:
            h.remove()
    log.clear()
    nn.Identity()(lucid.ones(1))
    assert log == []


def test_global_forward_hook_always_call():
    from lucid.nn.modules import module as M

    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    seen = []
    with M.register_module_forward_hook(lambda *a: seen.append("g"), always_call=True):
        with pytest.raises(ValueError):
            Boom()(1)
    assert seen == ["g"]


def test_global_registration_hooks_replace_values():
    from lucid.nn.modules import module as M

    seen = []

    made = []

    def on_param(mod, name, p):
        seen.append(("param", name))
        if name == "weight":
            made.append(nn.Parameter(p.detach().clone()))
            return made[-1]
        return None

    handles = [
        M.register_module_parameter_registration_hook(on_param),
        M.register_module_buffer_registration_hook(
            lambda mod, name, b: seen.append(("buffer", name))
        ),
        M.register_module_module_registration_hook(
            lambda mod, name, sub: seen.append(("module", name))
        ),
    ]
    try:
        m = nn.Module()
        m.lin = nn.Linear(2, 2)
        m.register_buffer("b", lucid.ones(1))
    finally:
        for h in handles:
            h.remove()
    assert ("param", "weight") in seen and ("param", "bias") in seen
    assert ("module", "lin") in seen and ("buffer", "b") in seen
    assert m.lin.weight is made[0]
    assert nn.Linear(2, 2).weight is not made[-1] and len(made) == 1
