"""lucid.utils.data.collate: callable as Lucid³'s collate(batch) (default_collate's result),
still the module of default_collate / default_convert, picklable, usable as collate_fn."""

import importlib
import pickle

import numpy as np

import lucid
import lucid.utils.data as D
from lucid.utils.data.collate import collate, default_collate, default_convert


def _batch():
    return [
        {"x": lucid.tensor([1.0, 2.0]), "y": 3, "name": "a"},
        {"x": lucid.tensor([4.0, 5.0]), "y": 6, "name": "b"},
    ]


def test_module_is_callable_and_collates_as_default_collate():
    out, want = D.collate(_batch()), default_collate(_batch())
    assert out.keys() == want.keys() == {"x", "y", "name"}
    np.testing.assert_array_equal(out["x"].numpy(), [[1.0, 2.0], [4.0, 5.0]])
    assert out["y"].tolist() == [3, 6] and out["y"].dtype is lucid.int64
    assert out["name"] == ["a", "b"]
    assert collate([(1.5, 2), (2.5, 3)])[0].dtype is lucid.float64


def test_module_imports_keep_working():
    m = importlib.import_module("lucid.utils.data.collate")
    assert m is D.collate and callable(m)
    assert m.default_collate is default_collate and m.default_convert is default_convert
    assert D.default_collate is default_collate
    import lucid.utils.data.collate as m2

    assert m2 is m


def test_pickles_by_name():
    assert pickle.loads(pickle.dumps(D.collate)) is D.collate


def test_as_collate_fn():
    ds = D.TensorDataset(lucid.arange(6.0).reshape(3, 2))
    batches = list(D.DataLoader(ds, batch_size=2, collate_fn=D.collate))
    assert [b[0].shape[0] for b in batches] == [2, 1]
    np.testing.assert_array_equal(batches[0][0].numpy(), [[0.0, 1.0], [2.0, 3.0]])
