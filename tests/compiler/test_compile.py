"""``lucid.compile``: replays agree with eager calls bit for bit; graph breaks, guards,
recompilation, mutations, randomness and errors behave as documented."""

import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.errors import ArgumentError, AutogradError, CompileError

HERE = __file__


@pytest.fixture(autouse=True)
def _fresh():
    lucid.compiler.reset()
    yield
    lucid.compiler.reset()


def _mlp(seed=0, dropout=0.0):
    lucid.manual_seed(seed)
    layers = [nn.Linear(6, 12), nn.ReLU()]
    if dropout:
        layers.append(nn.Dropout(dropout))
    return nn.Sequential(*layers, nn.Linear(12, 3))


def _data(n, batch=5, seed=1):
    lucid.manual_seed(seed)
    return [(lucid.randn(batch, 6), lucid.randint(0, 3, (batch,))) for _ in range(n)]


def _train(compiled, *, steps=8, opt="Adam", dropout=0.0, clip=False):
    model = _mlp(dropout=dropout)
    optim = getattr(lucid.optim, opt)(model.parameters(), lr=1e-2)

    def step(x, y):
        optim.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if clip:
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optim.step()
        return loss

    if compiled:
        step = lucid.compile(step)
    data = _data(steps)
    lucid.manual_seed(7)  # dropout draws from here, in both runs
    losses = [step(x, y).item() for x, y in data]
    return losses, [p.detach().numpy().copy() for p in model.parameters()]


def _same(a, b):
    return len(a) == len(b) and all((u == v).all() for u, v in zip(a, b))


@pytest.mark.parametrize("opt", ["SGD", "Adam", "AdamW", "RMSprop"])
@pytest.mark.parametrize("dropout", [0.0, 0.3])
@pytest.mark.parametrize("clip", [False, True])
def test_whole_step_matches_eager_bitwise(opt, dropout, clip):
    la, pa = _train(False, opt=opt, dropout=dropout, clip=clip)
    lb, pb = _train(True, opt=opt, dropout=dropout, clip=clip)
    assert la == lb
    assert _same(pa, pb)
    st = lucid.compiler.stats()
    assert st["graph_breaks"] == []
    assert st["replays"] >= 5  # the first two calls record (the first sets up Adam's state)


def test_recording_takes_gradients_as_eager_does_without_copies():
    """Eager's ``.grad`` keeps the array a backward made when nothing else holds it; the
    recording's own reference to that array must not turn it into a copy unit."""
    model = _mlp()
    optim = lucid.optim.SGD(model.parameters(), lr=0.1)

    @lucid.compile
    def step(x, y):
        optim.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optim.step()

    for x, y in _data(3):
        step(x, y)
    progs = list(step.cache.values())
    assert progs and lucid.compiler.stats()["replays"] >= 1
    for prog in progs:
        names = [getattr(u[0], "__qualname__", "") for u in prog.units]
        assert "LinearBackward.dispatch" in names
        assert [n for n in names if n.endswith(".copy")] == []


def test_replays_run_no_python_of_the_function():
    seen = []
    w = lucid.randn(4, requires_grad=False)

    @lucid.compile
    def f(x):
        seen.append(lucid.compiler.is_compiling())
        return (x * w).exp().sum()

    xs = [lucid.randn(4) for _ in range(4)]
    got = [f(x).item() for x in xs]
    assert got == [(x * w).exp().sum().item() for x in xs]
    assert seen == [True]  # recorded once; replays do not run the body
    assert lucid.compiler.stats()["replays"] == 3
    assert not lucid.compiler.is_compiling()


def test_replay_reads_arguments_and_parameters_afresh():
    lin = nn.Linear(3, 2)
    f = lucid.compile(lambda x: lin(x).relu())
    x = lucid.randn(4, 3)
    f(x)
    with lucid.no_grad():
        lin.weight.mul_(2.0)  # in place: the replay reads the new values
    y = lucid.randn(4, 3)
    assert (f(y).detach().numpy() == lin(y).relu().detach().numpy()).all()


def test_recompiles_on_a_new_shape_and_dtype():
    f = lucid.compile(lambda x: (x * 2 + 1).sum(0))
    for shape in [(3, 2), (5, 2), (3, 2)]:
        x = lucid.randn(*shape)
        assert (f(x).numpy() == (x * 2 + 1).sum(0).numpy()).all()
    x64 = lucid.randn(3, 2, dtype=lucid.float64)
    assert f(x64).dtype is lucid.float64
    st = lucid.compiler.stats()
    assert st["captures"] == 3 and st["recompiles"] == 2 and st["replays"] == 1


def test_cache_limit_falls_back_to_eager():
    f = lucid.compiler.CompiledFunction(lambda x: x + 1, cache_size_limit=2)
    for n in range(1, 5):
        assert f(lucid.ones(n)).sum().item() == 2 * n
    st = lucid.compiler.stats()
    assert st["captures"] == 2 and st["cache_limit_hits"] == 2


def test_training_flag_is_a_guard():
    model = _mlp(dropout=0.5)
    f = lucid.compile(model)
    x = lucid.randn(4, 6)
    f(x)
    model.eval()
    f.eval()
    a = f(x).detach().numpy()
    b = model(x).detach().numpy()
    assert (a == b).all()
    assert lucid.compiler.stats()["captures"] == 2


def _break_reason(fn, *args):
    out = fn(*args)
    st = lucid.compiler.stats()
    assert st["graph_breaks"], "expected a graph break"
    return out, st["graph_breaks"][0]


def test_graph_break_on_item_runs_eagerly_and_reports_the_line():
    def f(x):
        s = x.sum()
        if s.item() > 0:  # data-dependent control flow
            return x * 2
        return x * -1

    g = lucid.compile(f)
    x = lucid.ones(3)
    out, brk = _break_reason(g, x)
    assert (out.numpy() == 2).all()
    assert "host" in brk["reason"] and brk["where"].startswith(HERE)
    assert (g(-x).numpy() == 1).all()  # the same signature runs eagerly: right answer
    assert lucid.compiler.stats()["eager_calls"] == 1


@pytest.mark.parametrize(
    "body, words",
    [
        (lambda x: x[x > 0].sum(), "boolean mask"),
        (lambda x: lucid.nonzero(x).sum(), "nonzero"),
        (lambda x: x.masked_select(x > 0).sum(), "nonzero_index"),
        (lambda x: print(x) or x.sum(), "host"),
        (lambda x: lucid.unique(x).sum(), "unique"),
    ],
)
def test_graph_break_kinds(body, words, capsys):
    x = lucid.tensor([1.0, -2.0, 3.0])
    out, brk = _break_reason(lucid.compile(body), x)
    assert words in brk["reason"]
    assert out.item() == body(x).item()


def test_fullgraph_raises_naming_the_break():
    f = lucid.compile(lambda x: x * x.sum().item(), fullgraph=True)
    with pytest.raises(CompileError, match="graph break at .*test_compile.py.*host"):
        f(lucid.ones(2))


def test_disable_is_a_graph_break():
    @lucid.compiler.disable
    def helper(x):
        return x + 1

    out, brk = _break_reason(lucid.compile(lambda x: helper(x) * 2), lucid.zeros(2))
    assert (out.numpy() == 2).all() and "disable" in brk["reason"]
    assert (helper(lucid.zeros(1)).numpy() == 1).all()


def test_custom_function_backward_is_a_graph_break():
    class Twice(lucid.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    w = lucid.ones(3, requires_grad=True)

    def step():
        w.grad = None
        Twice.apply(w).sum().backward()
        return w.grad

    g = lucid.compile(step)
    for _ in range(2):
        assert (g().numpy() == 2).all()
    assert "Function" in lucid.compiler.stats()["graph_breaks"][0]["reason"]


def test_module_hook_is_a_graph_break():
    model = _mlp()
    calls = []
    model[0].register_forward_hook(lambda m, i, o: calls.append(1))
    f = lucid.compile(model)
    x = lucid.randn(2, 6)
    f(x)
    f(x)
    assert calls == [1, 1]  # the hook ran each call: eager
    assert "hook" in lucid.compiler.stats()["graph_breaks"][0]["reason"]


def test_in_place_update_of_an_input_is_replayed():
    @lucid.compile
    def bump(x):
        x.add_(1)
        return x * 2

    x = lucid.zeros(3)
    for k in range(1, 4):
        out = bump(x)
        assert (x.numpy() == k).all() and (out.numpy() == 2 * k).all()
    assert x._version == 3
    assert lucid.compiler.stats()["replays"] == 2


def test_batchnorm_running_statistics_are_updated_by_replays():
    def build():
        lucid.manual_seed(0)
        return nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4), nn.ReLU())

    a, b = build(), build()
    f = lucid.compile(b)
    lucid.manual_seed(3)
    xs = [lucid.randn(2, 2, 5, 5) for _ in range(4)]
    for x in xs:
        ya, yb = a(x), f(x)
        assert (ya.detach().numpy() == yb.detach().numpy()).all()
    for u, v in zip(a.buffers(), b.buffers()):
        assert (u.numpy() == v.numpy()).all()
    assert b[1].num_batches_tracked.item() == 4


def test_random_ops_draw_fresh_numbers_each_replay():
    f = lucid.compile(lambda x: F.dropout(x, 0.5) + lucid.rand(x.shape))
    lucid.manual_seed(5)
    got = [f(lucid.ones(64)).numpy().copy() for _ in range(3)]
    lucid.manual_seed(5)
    want = [(F.dropout(lucid.ones(64), 0.5) + lucid.rand(64)).numpy() for _ in range(3)]
    assert all((g == w).all() for g, w in zip(got, want))
    assert not (got[1] == got[2]).all()
    gen = lucid.Generator().manual_seed(1)
    h = lucid.compile(lambda: lucid.randn(4, generator=gen))
    first = [h().numpy().copy() for _ in range(2)]
    gen.manual_seed(1)  # reseeded between calls: the replay draws from the new state
    assert (h().numpy() == first[0]).all()


def test_compiled_module_backward_outside_matches_eager():
    def run(compiled):
        model = _mlp()
        opt = lucid.optim.SGD(model.parameters(), lr=0.1)
        m = lucid.compile(model) if compiled else model
        out = []
        for x, y in _data(5):
            opt.zero_grad()
            loss = F.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
            out.append(loss.item())
        return out, [p.detach().numpy().copy() for p in model.parameters()]

    (la, pa), (lb, pb) = run(False), run(True)
    assert la == lb and _same(pa, pb)
    assert lucid.compiler.stats()["replays"] == 4


def test_gradients_flow_to_inputs_through_a_replay():
    w = lucid.randn(3, 3, requires_grad=True)
    f = lucid.compile(lambda x: (x @ w).tanh())
    for _ in range(3):
        x = lucid.randn(2, 3, requires_grad=True)
        y = f(x)
        assert y.grad_fn is not None
        w.grad = None
        (y * y).sum().backward()
        gx, gw = x.grad.numpy().copy(), w.grad.numpy().copy()
        x2 = x.detach().requires_grad_()
        w.grad = None
        ((x2 @ w).tanh() ** 2).sum().backward()
        assert (gx == x2.grad.numpy()).all() and (gw == w.grad.numpy()).all()
    y = f(lucid.randn(2, 3, requires_grad=True))
    with pytest.raises(AutogradError, match="double backward"):
        lucid.autograd.grad(y.sum(), w, create_graph=True)


def test_several_outputs_and_structures():
    @lucid.compile
    def f(x, scale=2.0):
        return {"a": x * scale, "b": (x.sum(), x)}, 7

    x = lucid.ones(2)
    for _ in range(2):
        out, seven = f(x)
        assert seven == 7 and out["b"][1] is x
        assert (out["a"].numpy() == 2).all() and out["b"][0].item() == 2
    assert (f(x, scale=3.0)[0]["a"].numpy() == 3).all()  # a Python value is in the guard
    assert lucid.compiler.stats()["captures"] == 2


def test_gradient_accumulation_without_zero_grad_matches_eager():
    def run(compiled):
        lin = nn.Linear(3, 1)

        def step(x):
            lin(x).sum().backward()

        f = lucid.compile(step) if compiled else step
        lucid.manual_seed(2)
        for _ in range(4):
            f(lucid.randn(2, 3))
        return lin.weight.grad.numpy().copy()

    lucid.manual_seed(0)
    a = run(False)
    lucid.manual_seed(0)
    b = run(True)
    assert (a == b).all()


def test_exception_inside_leaves_state_as_eager():
    p = lucid.zeros(2)

    @lucid.compile
    def f(x, fail):
        p.add_(x)
        if fail:
            raise ValueError("asked to fail")
        return p * 1

    x = lucid.ones(2)
    f(x, False)
    f(x, False)
    with pytest.raises(ValueError, match="asked to fail"):
        f(x, True)
    assert (p.numpy() == 3).all()  # the update before the raise happened, as eagerly
    assert (f(x, False).numpy() == 4).all()


def test_stale_source_records_again():
    lin = nn.Linear(2, 2)
    f = lucid.compile(lambda x: lin(x))
    f(lucid.ones(1, 2))
    lin.weight.data = lucid.ones(2, 2)  # the same shape, a new array: read afresh
    assert (f(lucid.ones(1, 2)).detach().numpy() == 2 + lin.bias.detach().numpy()).all()


def test_lr_schedule_needs_no_new_recording():
    def run(compiled):
        model = _mlp()
        opt = lucid.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        sched = lucid.optim.lr_scheduler.CosineAnnealingLR(opt, 6)

        def step(x, y):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss

        f = lucid.compile(step) if compiled else step
        out = []
        for x, y in _data(8):
            out.append(f(x, y).item())
            sched.step()
        return out

    assert run(False) == run(True)
    st = lucid.compiler.stats()
    assert st["captures"] == 2 and st["replays"] == 6


def test_api_forms():
    @lucid.compile(mode="reduce-overhead", fullgraph=True)
    def f(x):
        return x + 1

    assert isinstance(f, lucid.compiler.CompiledFunction) and f.__name__ == "f"
    assert f(lucid.zeros(1)).item() == 1
    g = lambda x: x  # noqa: E731
    assert lucid.compile(g, disable=True) is g
    with pytest.raises(ArgumentError, match="unknown mode"):
        lucid.compile(g, mode="fastest")
    lucid.compiler.cudagraph_mark_step_begin()
    m = nn.Linear(3, 2)
    om = lucid.compile(m)
    assert list(om.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
    assert om.weight is m.weight and om.in_features == 3
    m.compile()
    x = lucid.randn(2, 3)
    assert (m(x).detach().numpy() == om(x).detach().numpy()).all()
    assert (m(x).detach().numpy() == F.linear(x, m.weight, m.bias).detach().numpy()).all()
    lucid.compiler.reset()
    assert lucid.compiler.stats()["calls"] == 0


def test_autocast_step_and_no_grad_inference_match_eager():
    def run(compiled):
        lucid.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 4))
        opt = lucid.optim.AdamW(model.parameters(), lr=1e-2)

        def step(x, y):
            opt.zero_grad()
            with lucid.autocast("cpu", dtype=lucid.bfloat16):
                loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss

        f = lucid.compile(step) if compiled else step
        lucid.manual_seed(1)
        out = [f(lucid.randn(8, 8), lucid.randint(0, 4, (8,))).item() for _ in range(5)]
        m = lucid.compile(model) if compiled else model
        with lucid.no_grad():
            ys = [m(lucid.randn(3, 8)) for _ in range(3)]
        assert all(y.grad_fn is None and not y.requires_grad for y in ys)
        return out, [y.sum().item() for y in ys]

    assert run(False) == run(True)
    st = lucid.compiler.stats()
    assert st["graph_breaks"] == [] and st["replays"] == 5
