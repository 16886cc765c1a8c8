"""lucid.utils.GarbageCollection: the automatic collector off in the block, a scheduled
collection every ``every`` steps, the former state restored, and bad arguments refused."""

import contextlib
import gc

import pytest

import lucid
from lucid.errors import ArgumentError
from lucid.utils import GarbageCollection


class _Cycle:
    def __init__(self):
        self.me = self


@pytest.fixture
def collections():
    runs = []

    def cb(phase, info):
        if phase == "stop":
            runs.append(info["generation"])

    gc.callbacks.append(cb)
    yield runs
    gc.callbacks.remove(cb)


def test_collects_on_schedule_only(collections):
    was = gc.isenabled()
    with GarbageCollection(every=3) as collect:
        assert not gc.isenabled()
        for _ in range(7):
            for _ in range(2000):  # far past the automatic threshold
                _Cycle()
            collect.step()
    assert collections == [1, 1]  # after steps 3 and 6, generation 1 each time
    assert collect.steps == 7 and gc.isenabled() == was


def test_cycles_are_freed_by_the_scheduled_collection():
    import weakref

    with GarbageCollection(every=2, generation=0) as collect:
        ref = weakref.ref(_Cycle())
        collect.step()
        assert ref() is not None  # no automatic collection, nothing scheduled yet
        collect.step()
        assert ref() is None


def test_restores_a_disabled_collector_and_survives_errors():
    gc.disable()
    try:
        with GarbageCollection():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(RuntimeError):
        with GarbageCollection():
            raise RuntimeError("boom")
    assert gc.isenabled()


def _losses(every):
    """Five AdamW steps' losses, in a GarbageCollection block when ``every`` is given."""
    lucid.manual_seed(0)
    model = lucid.nn.Sequential(lucid.nn.Linear(4, 8), lucid.nn.GELU(), lucid.nn.Linear(8, 1))
    opt = lucid.optim.AdamW(model.parameters(), lr=0.1)
    x = lucid.randn(16, 4)
    losses = []
    with GarbageCollection(every) if every else contextlib.nullcontext() as collect:
        for _ in range(5):
            opt.zero_grad()
            loss = (model(x) ** 2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            if collect is not None:
                collect.step()
    return losses


def test_a_training_loop_in_the_block_matches_one_outside():
    assert _losses(2) == _losses(None)


@pytest.mark.parametrize(
    "kwargs", [{"every": 0}, {"every": 1.5}, {"every": True}, {"generation": 3}]
)
def test_bad_arguments(kwargs):
    with pytest.raises(ArgumentError, match="GarbageCollection"):
        GarbageCollection(**kwargs)


def test_no_reentry():
    g = GarbageCollection()
    with g:
        with pytest.raises(ArgumentError, match="already entered"):
            g.__enter__()
    assert gc.isenabled()
