"""examples/resnet_digits.py: a short run from scratch and one from a saved ResNet-18
state dict (torchvision's layout, 1000 classes) whose head is replaced for ten digits."""

import importlib
import math
import pathlib
import sys

import pytest

import lucid
import lucid.models as models

pytest.importorskip("tqdm")
pytest.importorskip("matplotlib")

EXAMPLES = pathlib.Path(__file__).parents[2] / "examples"


@pytest.fixture(scope="module")
def example():
    sys.path.insert(0, str(EXAMPLES))
    try:
        yield importlib.import_module("resnet_digits")
    finally:
        sys.path.remove(str(EXAMPLES))


def test_a_short_run_from_scratch_trains_and_plots(example, tmp_path):
    losses, accs = example.main(["--epochs", "2", "--limit", "320", "--out", str(tmp_path)])
    assert all(math.isfinite(v) for v in losses) and len(accs) == 2
    assert min(losses[-3:]) < losses[0]
    assert (tmp_path / "resnet_digits_loss.png").stat().st_size > 0


def test_weights_from_a_file_with_a_new_head(example, tmp_path):
    lucid.manual_seed(1)
    ckpt = tmp_path / "resnet18.pth"
    lucid.save(models.create_model("resnet18").state_dict(), ckpt)
    losses, accs = example.main(
        ["--epochs", "1", "--limit", "160", "--weights", str(ckpt), "--out", str(tmp_path)]
    )
    assert len(accs) == 1 and 0.0 <= accs[0] <= 1.0 and all(math.isfinite(v) for v in losses)
