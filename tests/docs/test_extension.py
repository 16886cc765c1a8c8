"""Units of the site's Sphinx extension (docs/site/_ext/lucid_docs)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "site" / "_ext"))

from lucid_docs import kernels, mathml, rst  # noqa: E402


def test_mathml_renders_inline_and_block():
    inline = mathml.to_mathml(r"\frac{\partial y}{\partial x} = e^x", "inline")
    assert inline.startswith("<math") and 'display="inline"' in inline
    assert "<mfrac>" in inline and "\\frac" not in inline
    block = mathml.to_mathml(r"\sum_{i} x_i", "block")
    assert 'display="block"' in block and ("<munder>" in block or "<msub>" in block)


def test_mathml_refuses_commands_it_would_leave_as_tex():
    assert "\\arg" not in mathml.to_mathml(r"\arg\max_i x_i", "inline")  # rewritten
    with pytest.raises(mathml.UnknownCommand, match=r"\\notacommand"):
        mathml.to_mathml(r"x + \notacommand{y}", "inline")


def test_plain_escapes_markup_but_keeps_literals():
    assert rst.plain("clip_grad_norm_, a *b") == r"clip\_grad\_norm\_, a \*b"
    assert rst.plain("see ``x_*`` and :func:`~lucid.exp`") == "see ``x_*`` and ``lucid.exp``"


def test_first_sentence_does_not_end_inside_a_literal():
    doc = "A random permutation of ``0 .. n - 1``. Then more."
    assert rst.first_sentence(doc) == "A random permutation of ``0 .. n - 1``."


def test_table_cells_may_span_lines():
    out = rst.table(["a", "b"], [["x", "one\n\ntwo"]])
    assert "   * - x\n     - one\n\n       two" in out


def test_backend_calls_follow_the_backend_parameter():
    def dispatch(be, x, y):
        other = object()
        return be.mul(be.exp(x), y), getattr(other, "exp", None), be.exp(y)

    assert kernels.backend_calls(dispatch) == ["mul", "exp"]


@pytest.mark.parametrize(
    "name, cuda_owner, shared",
    [("exp", "XpUnary", True), ("matmul", "CudaCore", False), ("softmax", "CudaSoftmax", False)],
)
def test_kernels_resolve_for_both_backends(name, cuda_owner, shared):
    k = kernels.kernel(name)
    assert k.interface is not None, f"{name} is not in the Backend interface"
    assert k.cpu is not None and k.cpu.path.startswith("lucid/backend/") and k.cpu.line > 0
    assert k.cuda is not None and k.cuda.owner == cuda_owner  # read from the CUDA sources
    assert k.cuda.shared is shared and f"def {name}" in k.cuda.source


def test_saved_inputs_are_named_after_dispatch_parameters():
    from lucid_docs import ops

    from lucid.ops.core.registry import get_op

    layer_norm = ops.saved_section(get_op("layer_norm"))  # dispatch(be, x, *wb, ...)
    assert "the gradient of ``x`` needs ``x``, ``wb[0]``" in layer_norm
    assert "the gradient of ``wb[1]`` needs no input" in layer_norm
    assert "``mean``, ``rstd``" in layer_norm  # its saves_extra
    assert "**inputs**: none." in ops.saved_section(get_op("exp"))
