"""Every registry sample (tests/ops/samples: every registered op) on the device under test
against the CPU: outputs (shape, dtype, values) and gradients, in float64 and float32, and
forward in float16 and bfloat16. Random ops compare shapes and dtypes only; an input the
CPU refuses must be refused on the device with the same error class."""

import ml_dtypes
import numpy as np
import pytest

import lucid
from lucid.errors import LucidError

from ..ops.samples import SAMPLES
from ..ops.test_registry_suite import _lucid_args
from .conftest import DEVICE

pytestmark = pytest.mark.cuda

TOL = {
    "float64": (1e-9, 1e-11),
    "float32": (2e-4, 2e-5),
    "float16": (2e-2, 2e-2),
    "bfloat16": (5e-2, 5e-2),
}
NP = {
    "float64": np.float64,
    "float32": np.float32,
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
}


def _outs(r):
    if isinstance(r, lucid.Tensor):
        return [r]
    if isinstance(r, (tuple, list)):
        return [o for o in r if isinstance(o, lucid.Tensor)]
    return []


def _run(sample, dtype, device, grad):
    """``(outputs, gradients, error)`` of the sample on ``device`` (factories too), the
    outputs and gradients as host arrays."""
    prev = lucid.get_default_device()
    lucid.set_default_device(device)
    try:
        args = _lucid_args(sample, NP[dtype], grad, device)
        outs = _outs(sample.fn(*args, **sample.kwargs))
        grads = []
        wrt = [a for a in args if isinstance(a, lucid.Tensor) and a.requires_grad]
        diff = [o for o in outs if o.requires_grad]
        if grad and wrt and diff:
            rng = np.random.default_rng(5)
            gos = [
                lucid.tensor(rng.standard_normal(tuple(o.shape)), device=o.device).to(o.dtype)
                for o in diff
            ]
            grads = lucid.autograd.grad(diff, wrt, gos, allow_unused=True)
        # read back inside the try: a GPU reports its bounds checks at the next host read
        return [_host(o) for o in outs], [_host(g) for g in grads], None
    except LucidError as e:
        return None, None, e
    finally:
        lucid.set_default_device(prev)


def _host(t):
    return None if t is None else t.detach().cpu().numpy()


def _close(got, ref, rtol, atol, what):
    assert got.shape == ref.shape, f"{what}: shape {got.shape} != {ref.shape}"
    assert got.dtype == ref.dtype, f"{what}: dtype {got.dtype} != {ref.dtype}"
    if ref.dtype.kind in "biu":
        np.testing.assert_array_equal(got, ref, err_msg=what)
        return
    g, r = got.astype(np.float64), ref.astype(np.float64)
    scale = max(1.0, float(np.nanmax(np.abs(r), initial=0.0, where=np.isfinite(r))))
    np.testing.assert_allclose(g, r, rtol=rtol, atol=atol * scale, err_msg=what)


def _compare(sample, dtype, grad):
    # random draws (and dropout's mask) come from each device's own generator
    random = (
        sample.op == "dropout"
        or not lucid.ops.core.registry.get_op(sample.op).schema_v1.deterministic
    )
    ro, rg, rerr = _run(sample, dtype, "cpu", grad)
    go, gg, gerr = _run(sample, dtype, DEVICE, grad)
    if rerr is not None:
        assert gerr is not None and type(gerr) is type(rerr), (
            f"CPU raised {type(rerr).__name__}: {rerr}; {DEVICE} gave {gerr!r}"
        )
        return
    assert gerr is None, f"{DEVICE} raised {gerr!r}; the CPU did not"
    assert len(go) == len(ro)
    rtol, atol = TOL[dtype]
    for i, (gh, rh) in enumerate(zip(go, ro)):
        if random:
            assert gh.shape == rh.shape and gh.dtype == rh.dtype
        else:
            _close(gh, rh, rtol, atol, f"output {i}")
    if random or not grad:
        return
    assert len(gg) == len(rg)
    for i, (g, r) in enumerate(zip(gg, rg)):
        assert (g is None) == (r is None), f"gradient {i}: {g is None} vs {r is None}"
        if r is not None:
            _close(g, r, rtol, atol, f"gradient {i}")


def _ids(samples):
    return [s.name for s in samples]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("sample", SAMPLES, ids=_ids(SAMPLES))
def test_forward_and_backward_match_cpu(sample, dtype):
    _compare(sample, dtype, grad=True)


HALF = [
    s for s in SAMPLES if any(isinstance(a, np.ndarray) and a.dtype.kind == "f" for a in s.args)
]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("sample", HALF, ids=_ids(HALF))
def test_half_forward_matches_cpu(sample, dtype):
    _compare(sample, dtype, grad=False)
