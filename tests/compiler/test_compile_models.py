"""Every model of ``examples/`` and ``benchmarks/``: 20 training steps eagerly and through
``lucid.compile`` from the same seed give the same losses, parameters and buffers, bit for
bit (the CPU replay runs the same kernels in the same order)."""

import importlib.util
import os
import sys

import pytest

import lucid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STEPS = 20


def _load(rel):
    path = os.path.join(ROOT, rel)
    name = "_compile_" + os.path.basename(rel)[:-3]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _digits():
    ex = _load("examples/digits_cnn.py")
    model = ex.DigitsCNN()
    opt = lucid.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = lucid.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    step = ex.train_step(model, lucid.nn.CrossEntropyLoss(), opt)
    lucid.manual_seed(11)
    data = [(lucid.rand(8, 1, 8, 8), lucid.randint(0, 10, (8,))) for _ in range(STEPS)]
    return model, step, data, sched


def _char_gpt():
    ex = _load("examples/char_gpt.py")
    model = ex.CharGPT(40, 16, d=32, heads=4, layers=2)
    opt = lucid.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    sched = lucid.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 5))
    step = ex.make_step(model, lucid.nn.CrossEntropyLoss(), opt)
    lucid.manual_seed(11)
    data = [(lucid.randint(0, 40, (4, 16)), lucid.randint(0, 40, (4, 16))) for _ in range(STEPS)]
    return model, step, data, sched


def _fit_curve():
    ex = _load("examples/fit_curve.py")
    x, y, params = ex.problem()
    holder = lucid.nn.ParameterList([lucid.nn.Parameter(p.detach()) for p in params])
    return holder, ex.make_step(x, y, list(holder)), [()] * STEPS, None


def _bench(name):
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    try:
        train = _load("benchmarks/train.py")
    finally:
        sys.path.pop(0)
    build = dict(train.workloads("mlp,cnn,gpt", "both"))[name]
    model, make_opt, (x, y) = build(lucid)
    opt = make_opt(model.parameters())
    loss_fn = lucid.nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    x, y = lucid.from_numpy(x), lucid.from_numpy(y)
    return model, step, [(x, y)] * STEPS, None


MODELS = {
    "examples/digits_cnn": _digits,
    "examples/char_gpt": _char_gpt,
    "examples/fit_curve": _fit_curve,
    "benchmarks/mlp": lambda: _bench("mlp"),
    "benchmarks/cnn": lambda: _bench("cnn"),
    "benchmarks/gpt-sdpa": lambda: _bench("gpt-sdpa"),
    "benchmarks/gpt-math": lambda: _bench("gpt-math"),
}


def _run(build, compiled):
    lucid.manual_seed(0)
    model, step, data, sched = build()
    if compiled:
        step = lucid.compile(step)
    lucid.manual_seed(5)  # dropout's draws
    losses = []
    for i, batch in enumerate(data):
        losses.append(step(*batch).item())
        if sched is not None and i % 5 == 4:
            sched.step()
    state = [t.detach().numpy().copy() for t in (*model.parameters(), *model.buffers())]
    return losses, state


@pytest.mark.parametrize("name", list(MODELS))
def test_twenty_steps_compiled_match_eager(name):
    lucid.compiler.reset()
    eager = _run(MODELS[name], False)
    compiled = _run(MODELS[name], True)
    st = lucid.compiler.stats()
    assert st["graph_breaks"] == []
    assert st["replays"] >= STEPS - 3
    assert compiled[0] == eager[0]
    assert len(compiled[1]) == len(eager[1])
    for a, b in zip(eager[1], compiled[1]):
        assert a.dtype == b.dtype and (a == b).all()
    lucid.compiler.reset()
