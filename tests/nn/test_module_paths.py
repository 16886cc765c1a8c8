"""Torch's module paths: every public class of a ``torch.nn.modules.<file>`` that Lucid has
(anywhere in ``lucid.nn``) resolves as ``lucid.nn.modules.<file>.<Class>``, to that same
class, so ``from torch.nn.modules.activation import MultiheadAttention`` keeps working with
``import lucid as torch``; and ``torch.nn.modules.utils``' helpers behave as PyTorch's."""

import collections
import importlib
import pkgutil

import numpy as np
import pytest

import lucid
import lucid.nn

torch = pytest.importorskip("torch")
import torch.nn.modules  # noqa: E402, F811


def _classes_by_name(package):
    """name -> the set of classes of that name defined anywhere under ``package``."""
    found = collections.defaultdict(set)
    mods = [package] + [
        importlib.import_module(m.name)
        for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
    ]
    for mod in mods:
        for name, value in vars(mod).items():
            if isinstance(value, type) and not name.startswith("_"):
                found[name].add(value)
    return found


LUCID = _classes_by_name(lucid.nn)


def _torch_paths():
    for info in pkgutil.iter_modules(torch.nn.modules.__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"torch.nn.modules.{info.name}")
        for name, value in vars(mod).items():
            if (
                isinstance(value, type)
                and not name.startswith("_")
                and value.__module__ == mod.__name__
                and name in LUCID
            ):
                yield info.name, name


PATHS = sorted(set(_torch_paths()))


def test_the_walk_found_the_paths_programs_import():
    for path in [
        ("activation", "MultiheadAttention"),
        ("linear", "NonDynamicallyQuantizableLinear"),
        ("rnn", "RNN"),
        ("sparse", "Embedding"),
        ("batchnorm", "SyncBatchNorm"),
        ("channelshuffle", "ChannelShuffle"),
        ("module", "Module"),
    ]:
        assert path in PATHS
    assert len(PATHS) >= 150


@pytest.mark.parametrize("file,name", PATHS, ids=[f"{f}.{n}" for f, n in PATHS])
def test_torch_path_resolves_to_the_lucid_class(file, name):
    mod = importlib.import_module(f"lucid.nn.modules.{file}")
    cls = getattr(mod, name, None)
    assert cls is not None, f"lucid.nn.modules.{file} has no {name}"
    assert cls in LUCID[name]
    modules = {c for c in LUCID[name] if issubclass(c, lucid.nn.Module)}
    assert modules <= {cls}, f"twin classes named {name}: {modules}"
    if hasattr(lucid.nn, name):  # and it is the one lucid.nn exports
        assert cls is getattr(lucid.nn, name)
    assert getattr(lucid.nn.modules, file) is mod  # reachable as an attribute too


def test_non_dynamically_quantizable_linear_is_a_linear():
    from lucid.nn.modules.linear import NonDynamicallyQuantizableLinear

    assert type(lucid.nn.MultiheadAttention(4, 2).out_proj) is NonDynamicallyQuantizableLinear
    lucid.manual_seed(0)
    m = NonDynamicallyQuantizableLinear(3, 2)
    assert isinstance(m, lucid.nn.Linear)
    assert set(m.state_dict()) == set(
        torch.nn.modules.linear.NonDynamicallyQuantizableLinear(3, 2).state_dict()
    )
    x = lucid.randn(4, 3)
    assert lucid.allclose(m(x), x @ m.weight.T + m.bias)


@pytest.mark.parametrize("helper", ["_single", "_pair", "_triple", "_quadruple"])
@pytest.mark.parametrize("arg", [3, (1, 2), [4, 5, 6], "ab"])
def test_ntuple_helpers_match_pytorch(helper, arg):
    from lucid.nn.modules import utils as lu
    from torch.nn.modules import utils as tu

    assert getattr(lu, helper)(arg) == getattr(tu, helper)(arg)
    assert getattr(lu, helper).__name__ == helper


def test_reverse_repeat_tuple_and_list_with_default_match_pytorch():
    from lucid.nn.modules import utils as lu
    from torch.nn.modules import utils as tu

    assert lu._reverse_repeat_tuple((1, 2, 3), 2) == tu._reverse_repeat_tuple((1, 2, 3), 2)
    assert (
        lu._list_with_default([None, 4], [8, 7, 6])
        == tu._list_with_default([None, 4], [8, 7, 6])
        == [7, 4]
    )
    assert lu._list_with_default(5, [1, 2]) == 5
    with pytest.raises(ValueError, match="at least 3"):
        lu._list_with_default([None, 4], [8, 7])


def test_consume_prefix_strips_a_ddp_state_dict_as_pytorch():
    from lucid.nn.modules.utils import consume_prefix_in_state_dict_if_present as consume
    from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present as t_consume

    sd = lucid.nn.Sequential(lucid.nn.Linear(2, 2)).state_dict()
    sd = collections.OrderedDict((f"module.{k}", v) for k, v in sd.items())
    ref = collections.OrderedDict((k, 0) for k in sd)
    sd._metadata = ref._metadata = {"": {}, "module": {}, "module.0": {}}
    consume(sd, "module.")
    t_consume(ref, "module.")
    assert list(sd) == list(ref) == ["0.weight", "0.bias"]
    assert sd._metadata == ref._metadata
    lucid.nn.Sequential(lucid.nn.Linear(2, 2)).load_state_dict(sd)


def test_nll_loss_2d_is_nll_loss_as_torch():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 5))
    y = rng.integers(0, 3, (2, 4, 5))
    ref = torch.nn.NLLLoss2d(ignore_index=1)(torch.tensor(x), torch.tensor(y))
    out = lucid.nn.NLLLoss2d(ignore_index=1)(lucid.tensor(x), lucid.tensor(y))
    assert issubclass(lucid.nn.NLLLoss2d, lucid.nn.NLLLoss)
    np.testing.assert_allclose(out.item(), ref.item(), rtol=1e-12)
