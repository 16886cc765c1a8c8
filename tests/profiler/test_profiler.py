"""lucid.profiler: ranges of ops, backward nodes and annotations; tables, averages, traces,
schedules. The schedule's actions are checked against PyTorch's own."""

import gzip
import json
import os
import threading

import numpy as np
import pytest
import torch

import lucid
import lucid.nn as nn
from lucid._state import STATE
from lucid.errors import ProfilerError
from lucid.profiler import (
    ProfilerAction,
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    tensorboard_trace_handler,
)


def _names(prof):
    return [e.name for e in prof.events()]


def _avg(prof, key, **kw):
    rows = [a for a in prof.key_averages(**kw) if a.key == key]
    assert rows, f"no row {key!r} in {[a.key for a in prof.key_averages()]}"
    return rows


def test_ops_and_backward_nodes_with_sequence_numbers():
    x = lucid.randn(4, 3, requires_grad=True)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        y = x.exp()
        z = (y * y).sum()
        z.backward()
    ev = {e.name: e for e in prof.events()}
    for name in ("exp", "mul", "sum", "ExpBackward", "MulBackward", "SumBackward"):
        assert name in ev, name
    # each backward node carries the number of the forward op that made it
    assert ev["ExpBackward"].sequence_nr == ev["exp"].sequence_nr >= 0
    assert ev["SumBackward"].sequence_nr == ev["sum"].sequence_nr
    assert len({ev[n].sequence_nr for n in ("exp", "mul", "sum")}) == 3
    assert ev["ExpBackward"].fwd_thread == ev["exp"].thread
    assert "AccumulateGrad" in ev
    assert STATE.profiler is None


def test_counts_and_times_add_up():
    x = lucid.randn(8, 8)
    with profile() as prof:
        with record_function("outer"):
            for _ in range(3):
                lucid.exp(x)
            with record_function("inner"):
                lucid.matmul(x, x)
    (exp,) = _avg(prof, "exp")
    assert exp.count == 3
    assert exp.cpu_time_total > 0 and exp.cpu_time == pytest.approx(exp.cpu_time_total / 3)
    events = prof.events()
    outer = next(e for e in events if e.name == "outer")
    inner = next(e for e in events if e.name == "inner")
    assert inner.cpu_parent is outer
    assert [c.name for c in outer.cpu_children] == ["exp", "exp", "exp", "inner"]
    assert outer.self_cpu_time_total == pytest.approx(
        outer.cpu_time_total - sum(c.cpu_time_total for c in outer.cpu_children)
    )
    for e in events:
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total
        for c in e.cpu_children:
            assert e.time_range.start <= c.time_range.start <= c.time_range.end
            assert c.time_range.end <= e.time_range.end
    # the self times of all ranges add up to the time of the outermost one
    total = events.self_cpu_time_total
    assert total == pytest.approx(outer.cpu_time_total, rel=1e-9)


def test_table_columns_sorting_and_limit():
    x = lucid.randn(16, 16)
    with profile(profile_memory=True) as prof:
        for _ in range(4):
            lucid.exp(x)
        lucid.matmul(x, x)
    avgs = prof.key_averages()
    text = avgs.table(sort_by="count", row_limit=1)
    lines = text.splitlines()
    head = next(line for line in lines if "Name" in line)
    for col in ("Self CPU %", "Self CPU", "CPU total", "CPU time avg", "CPU Mem", "# of Calls"):
        assert col in head
    body = [line for line in lines if line.strip().startswith(("exp", "matmul"))]
    assert len(body) == 1 and body[0].split()[0] == "exp" and body[0].split()[-1] == "4"
    assert lines[-1].startswith("Self CPU time total:")
    by_time = [a.key for a in sorted(avgs, key=lambda a: a.self_cpu_time_total, reverse=True)]
    rows = avgs.table(sort_by="self_cpu_time_total").splitlines()
    order = [r.split()[0] for r in rows if r.strip() and r.split()[0] in by_time]
    assert order == by_time
    with pytest.raises(ProfilerError, match="cannot sort by 'no_such'"):
        avgs.table(sort_by="no_such")


def test_group_by_input_shape_and_record_shapes():
    a, b = lucid.randn(2, 3), lucid.randn(5, 3)
    with profile(record_shapes=True) as prof:
        lucid.exp(a)
        lucid.exp(b)
        lucid.exp(a)
    (one,) = _avg(prof, "exp")
    assert one.count == 3 and one.input_shapes == []
    rows = _avg(prof, "exp", group_by_input_shape=True)
    assert sorted((r.input_shapes, r.count) for r in rows) == [([[2, 3]], 2), ([[5, 3]], 1)]
    assert "Input Shapes" in prof.key_averages(group_by_input_shape=True).table()


def test_memory_counts_outputs_not_views():
    x = lucid.randn(10, 10)
    with profile(profile_memory=True) as prof:
        lucid.exp(x)
        x.view(100)
    ev = {e.name: e for e in prof.events()}
    assert ev["exp"].self_cpu_memory_usage == 10 * 10 * 4
    assert ev["view"].self_cpu_memory_usage == 0


def test_with_stack_names_the_calling_line():
    x = lucid.randn(3)

    def here():
        return lucid.exp(x)

    with profile(with_stack=True) as prof:
        here()
    (e,) = [e for e in prof.events() if e.name == "exp"]
    assert "test_profiler.py" in e.stack[0] and e.stack[0].endswith(": here")
    assert not any(os.sep + "lucid" + os.sep in s.split("(")[0] for s in e.stack)
    rows = prof.key_averages(group_by_stack_n=1)
    assert "Source Location" in rows.table()


def test_record_function_as_decorator_and_outside_a_profile():
    @record_function("my_fn")
    def f(t):
        return t * 2

    x = lucid.randn(3)
    f(x)  # no profiler: nothing happens
    with profile() as prof:
        f(x)
        f(x)
    (row,) = _avg(prof, "my_fn")
    assert row.count == 2 and row.is_user_annotation
    mul = [e for e in prof.events() if e.name == "mul_scalar"]
    assert len(mul) == 2 and all(m.cpu_parent.name == "my_fn" for m in mul)


def test_in_place_op_optimizer_and_zero_grad_ranges():
    m = nn.Linear(3, 2)
    opt = lucid.optim.SGD(m.parameters(), lr=0.1)
    x = lucid.randn(4, 3)
    with profile() as prof:
        m(x).sum().backward()
        opt.step()
        opt.zero_grad()
        x.add_(1.0)
    names = _names(prof)
    assert "Optimizer.step#SGD.step" in names
    assert "Optimizer.zero_grad#SGD.zero_grad" in names
    (add_,) = [e for e in prof.events() if e.name == "add_"]
    assert add_.cpu_children == []  # the out-of-place op it ran is part of it


def test_exception_inside_op_and_block_leaves_profiler_off():
    a, b = lucid.randn(2, 3), lucid.randn(4, 5)
    with pytest.raises(lucid.errors.ShapeError):
        with profile() as prof:
            lucid.exp(a)
            a + b
    assert STATE.profiler is None
    assert {"exp", "add"} <= set(_names(prof))
    lucid.exp(a)  # ops run normally afterwards


def test_only_one_profiler_at_a_time_and_results_after_stop():
    p = profile()
    with pytest.raises(ProfilerError, match="no recorded cycle"):
        p.key_averages()
    with profile():
        with pytest.raises(ProfilerError, match="already recording"):
            with profile():
                pass
    assert STATE.profiler is None


def test_ops_of_another_thread_carry_its_id():
    x = lucid.randn(3)
    tids = []

    def work():
        tids.append(threading.get_native_id())
        lucid.exp(x)

    with profile() as prof:
        t = threading.Thread(target=work)
        t.start()
        t.join()
        lucid.sin(x)
    ev = {e.name: e for e in prof.events()}
    assert ev["exp"].thread == tids[0] != ev["sin"].thread


def test_flops_of_matmul():
    a, b = lucid.randn(6, 4), lucid.randn(4, 5)
    with profile(with_flops=True) as prof:
        lucid.matmul(a, b)
    (e,) = [e for e in prof.events() if e.name == "matmul"]
    assert e.flops == 2 * 6 * 4 * 5
    assert "Total MFLOPs" in prof.key_averages().table()


@pytest.mark.parametrize(
    "kw",
    [
        dict(wait=1, warmup=1, active=2),
        dict(wait=0, warmup=0, active=1, repeat=3),
        dict(wait=2, warmup=1, active=3, repeat=2, skip_first=3),
        dict(wait=1, warmup=0, active=2, repeat=1),
    ],
)
@pytest.mark.filterwarnings("ignore:Profiler won't be using warmup")
def test_schedule_matches_torch(kw):
    ours, theirs = schedule(**kw), torch.profiler.schedule(**kw)
    for step in range(30):
        assert ours(step).name == theirs(step).name, step


def test_schedule_bad_arguments():
    with pytest.raises(ProfilerError, match="active=0"):
        schedule(wait=1, warmup=1, active=0)
    with pytest.raises(ProfilerError, match="step -1"):
        schedule(wait=0, warmup=0, active=1)(-1)


def test_schedule_cycles_call_on_trace_ready():
    x = lucid.randn(3)
    saved = []

    def ready(p):
        saved.append(sorted(e.name for e in p.events() if e.name.startswith("ProfilerStep")))
        assert sum(1 for e in p.events() if e.name == "exp") == 2 * 2  # 2 steps, 2 exps

    with profile(
        schedule=schedule(wait=1, warmup=1, active=2, repeat=2), on_trace_ready=ready
    ) as p:
        for _ in range(10):
            lucid.exp(x)
            lucid.exp(x)
            p.step()
    assert saved == [["ProfilerStep#2", "ProfilerStep#3"], ["ProfilerStep#6", "ProfilerStep#7"]]
    assert p.current_action == ProfilerAction.NONE
    step2 = next(e for e in p.events() if e.name == "ProfilerStep#6")
    assert [c.name for c in step2.cpu_children] == ["exp", "exp"]


def test_chrome_trace_and_tensorboard_handler(tmp_path):
    w = lucid.randn(3, requires_grad=True)
    with profile(
        record_shapes=True, on_trace_ready=tensorboard_trace_handler(str(tmp_path), "worker0")
    ) as prof:
        with record_function("block"):
            (w.exp() * 3).sum().backward()
    (f,) = list(tmp_path.iterdir())
    assert f.name.startswith("worker0.") and f.name.endswith(".pt.trace.json")
    doc = json.loads(f.read_text())
    xs = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    assert {e["name"] for e in xs} >= {"block", "exp", "ExpBackward", "sum", "SumBackward"}
    cats = {e["name"]: e["cat"] for e in xs}
    assert cats["block"] == "user_annotation" and cats["exp"] == "cpu_op"
    exp = next(e for e in xs if e["name"] == "exp")
    assert exp["args"]["Input Dims"] == [[3]] and exp["dur"] >= 0
    flows = [e for e in doc["traceEvents"] if e.get("cat") == "fwdbwd"]
    assert {e["ph"] for e in flows} == {"s", "f"}
    assert len(flows) == 2 * 3  # exp, mul, sum: one arrow each
    out = tmp_path / "t.json.gz"
    prof.export_chrome_trace(str(out))
    with gzip.open(out, "rt") as g:
        assert json.load(g)["traceEvents"]


def test_compiled_replays_are_one_range():
    w = lucid.randn(4, requires_grad=True)

    @lucid.compile
    def step(x):
        return (x * w).exp().sum()

    x = lucid.randn(4)
    step(x)
    with profile() as prof:
        out = step(x)
    assert "Compiled Region" in _names(prof)
    assert float(out) == pytest.approx(float((x * w).exp().sum()))


def test_legacy_autograd_profiler():
    x = lucid.randn(5, requires_grad=True)
    with lucid.autograd.profiler.profile(record_shapes=True) as prof:
        with lucid.autograd.profiler.record_function("legacy"):
            x.sin().sum().backward()
    keys = {a.key for a in prof.key_averages()}
    assert {"legacy", "sin", "SinBackward"} <= keys
    assert "Self CPU time total" in prof.table(sort_by="cpu_time_total")
    assert prof.self_cpu_time_total > 0
    assert prof.total_average().count == len(prof.function_events)
    with lucid.autograd.profiler.profile(enabled=False) as off:
        x.sin()
    with pytest.raises(ProfilerError, match="not finished"):
        off.key_averages()


def test_pytorch_profiling_code_runs_on_lucid(tmp_path):
    """A PyTorch program's profiling section, with ``lucid`` in the place of ``torch``."""
    for lib in (torch, lucid):
        model = lib.nn.Sequential(lib.nn.Linear(8, 4), lib.nn.ReLU())
        inputs = lib.randn(2, 8)
        with lib.profiler.profile(
            activities=[lib.profiler.ProfilerActivity.CPU], record_shapes=True
        ) as prof:
            with lib.profiler.record_function("model_inference"):
                model(inputs)
        table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)
        assert "model_inference" in table
        prof.export_chrome_trace(str(tmp_path / f"{lib.__name__}.json"))
    ours = json.loads((tmp_path / "lucid.json").read_text())
    assert any(e.get("name") == "linear" for e in ours["traceEvents"])


def test_off_costs_nothing_observable():
    """Outside a profile, ops give the same values and leave no state behind."""
    x = np.random.default_rng(0).standard_normal(5).astype(np.float32)
    before = lucid.exp(lucid.tensor(x)).numpy()
    with profile():
        inside = lucid.exp(lucid.tensor(x)).numpy()
    np.testing.assert_array_equal(before, inside)
    assert STATE.profiler is None


def test_data_loader_batches_are_ranges():
    ds = lucid.utils.data.TensorDataset(lucid.arange(10.0))
    loader = lucid.utils.data.DataLoader(ds, batch_size=4)
    with profile() as prof:
        batches = [b for (b,) in loader]
    assert [len(b) for b in batches] == [4, 4, 2]
    rows = _avg(prof, "enumerate(DataLoader)#_SingleProcessIter.__next__")
    assert rows[0].count == 4  # three batches and the StopIteration


@pytest.mark.skipif(lucid.cuda.is_available(), reason="the CPU-only refusal")
def test_nvtx_needs_the_cuda_backend():
    with pytest.raises(ProfilerError, match="emit_nvtx: NVTX ranges need the CUDA backend"):
        with lucid.autograd.profiler.emit_nvtx():
            pass
    assert STATE.profiler is None
    with pytest.raises(lucid.errors.DeviceError, match="nvtx.range_push"):
        lucid.cuda.nvtx.range_push("x")
