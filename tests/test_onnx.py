"""lucid.onnx: the names programs reach for; export refuses clearly (no exporter yet)."""

import pytest

import lucid
from lucid.errors import LucidError, NotSupportedError

torch = pytest.importorskip("torch")


def test_export_raises_a_not_implemented_lucid_error_and_writes_nothing(tmp_path):
    f = tmp_path / "m.onnx"
    with pytest.raises(
        lucid.onnx.OnnxExporterError,
        match=r"lucid\.onnx\.export: Lucid has no ONNX exporter yet "
        r"\(asked to export Linear\)",
    ) as info:
        lucid.onnx.export(
            lucid.nn.Linear(2, 2),
            (lucid.randn(1, 2),),
            str(f),
            input_names=["x"],
            opset_version=17,
            training=lucid.onnx.TrainingMode.EVAL,
        )
    for base in (NotSupportedError, LucidError, NotImplementedError, RuntimeError):
        assert isinstance(info.value, base)
    assert not f.exists()


def test_is_in_onnx_export_is_false_as_pytorch_outside_an_export():
    assert lucid.onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export() is False


def test_training_mode_values_match_pytorch():
    for name in ("EVAL", "PRESERVE", "TRAINING"):
        assert int(getattr(lucid.onnx.TrainingMode, name)) == int(
            getattr(torch.onnx.TrainingMode, name)
        )
