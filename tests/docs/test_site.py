"""The built site has a page or anchor for every op and every public name, and the op
pages say what the reference page of an op says, with the maths as MathML."""

from __future__ import annotations

import importlib
import re
from html.parser import HTMLParser

import pytest

from lucid.ops.core.registry import all_ops

# The namespaces the site must document (the brief of issue 27): every public name of each,
# its ``__all__`` or its public ``dir()``.
NAMESPACES = (
    "lucid",
    "lucid.nn",
    "lucid.nn.functional",
    "lucid.nn.init",
    "lucid.optim",
    "lucid.optim.lr_scheduler",
    "lucid.utils.data",
    "lucid.amp",
    "lucid.autograd",
    "lucid.cuda",
    "lucid.distributed",
    "lucid.compiler",
    "lucid.profiler",
    "lucid.linalg",
    "lucid.fft",
    "lucid.special",
    "lucid.func",
    "lucid.distributions",
    "lucid.models",
    "lucid.models.gpt2",
    "lucid.models.llama",
    "lucid.models.bert",
    "lucid.models.classic",
    "lucid.models.convnext",
    "lucid.models.mobile",
    "lucid.models.regnet",
    "lucid.models.resnet",
    "lucid.models.swin",
    "lucid.models.unet",
    "lucid.models.diffusion",
    "lucid.models.vae",
    "lucid.models.tokenizers",
    "lucid.models.vit",
    "lucid.models.weights",
    "lucid.hub",
    "lucid.transforms",
    "lucid.models.generation",
)

# the ops of the package (a test elsewhere may register one of its own: not on the site)
OPS = {name: cls for name, cls in all_ops().items() if cls.__module__.startswith("lucid.")}


class _Ids(HTMLParser):
    """The ``id`` attributes of a page (the anchors a link can point at)."""

    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key == "id" and value:
                self.ids.add(value)


def _public(module) -> list[str]:
    names = getattr(module, "__all__", None)
    return list(names) if names is not None else [n for n in dir(module) if not n.startswith("_")]


def _anchored(site, uri: str, cache: dict) -> bool:
    """Whether ``uri`` (``page.html#anchor``) names an existing page holding that anchor."""
    page, _, anchor = uri.partition("#")
    path = site / page
    if not path.is_file():
        return False
    if not anchor:
        return True
    if page not in cache:
        parser = _Ids()
        parser.feed(path.read_text(encoding="utf-8"))
        cache[page] = parser.ids
    return anchor in cache[page]


def _find(inventory: dict, name: str, roles=None) -> str | None:
    for role, names in inventory.items():
        if role.startswith("py:") and (roles is None or role in roles) and name in names:
            return names[name]
    return None


def test_every_registered_op_has_its_page(site, inventory):
    missing = []
    for name, cls in OPS.items():
        uri = inventory["py:class"].get(f"{cls.__module__}.{cls.__name__}")
        if uri is None or not uri.startswith(f"generated/ops/{name}.html"):
            missing.append(name)
            continue
        html = (site / uri.partition("#")[0]).read_text(encoding="utf-8")
        if f"{name} — {cls.__name__}" not in html:  # the page is named after op and node
            missing.append(name)
    assert not missing, f"ops without their page: {missing}"
    assert len(list((site / "generated" / "ops").glob("*.html"))) == len(OPS)


@pytest.mark.parametrize("ns", NAMESPACES)
def test_every_public_name_has_an_anchor(site, inventory, ns):
    module = importlib.import_module(ns)
    cache: dict = {}
    missing = []
    for name in _public(module):
        value = getattr(module, name)
        if isinstance(value, type(module)):  # a submodule: its own page or module anchor
            uri = inventory["py:module"].get(value.__name__)
        else:
            uri = _find(inventory, f"{ns}.{name}")
        if uri is None or not _anchored(site, uri, cache):
            missing.append(name)
    assert not missing, f"{ns}: public names without a page or anchor: {missing}"


def test_every_tensor_method_has_an_anchor(site, inventory):
    import lucid

    cache: dict = {}
    names = [
        n
        for n, v in vars(lucid.Tensor).items()
        if not n.startswith("_") and (callable(v) or isinstance(v, property))
    ]
    assert len(names) > 300  # the ops install their methods on Tensor
    missing = [
        n
        for n in names
        if (uri := _find(inventory, f"lucid.Tensor.{n}")) is None or not _anchored(site, uri, cache)
    ]
    assert not missing, f"Tensor members without an anchor: {missing}"


def _article(site, name: str) -> str:
    return (site / "generated" / "ops" / f"{name}.html").read_text(encoding="utf-8")


def test_the_exp_page_says_what_the_reference_page_says(site):
    html = _article(site, "exp")
    text = re.sub(r"<[^>]+>", "", html)
    assert "exp — ExpBackward" in text
    assert "Autograd node for element-wise exponential" in text  # the docstring's summary
    for fact in ("FORCE_FP32", "'holomorphic'", "real_valued", "capturable"):
        assert fact in html, fact  # the schema table
    assert "output</strong>: saved" in html  # exp saves its output, not its input
    assert "be.exp(x)" in text and "return g * out" in text  # dispatch and grad sources
    assert "XpUnary" in text and "lucid/backend/array/unary.py" in text  # the kernel
    assert "grad_formula_impl" in text and "graph_ns" in text  # both backward forms
    assert 'href="../api/lucid.html#lucid.exp"' in html  # the wrapper, linked
    assert html.count("<math") >= 3 and "\\frac" not in html  # MathML, no TeX left


def test_an_op_that_saves_per_input_says_which(site):
    text = re.sub(r"<[^>]+>", "", _article(site, "mul"))
    assert re.search(r"the gradient of a\s+needs b", text), text[:2000]
    assert re.search(r"the gradient of b\s+needs a", text)


def test_a_non_differentiable_op_says_so(site):
    text = re.sub(r"<[^>]+>", "", _article(site, "eq"))
    assert "not differentiable" in text
    assert "has no gradient" in text


def test_no_raw_tex_left_in_any_op_page_prose(site):
    bad = {}
    for page in sorted((site / "generated" / "ops").glob("*.html")):
        html = page.read_text(encoding="utf-8")
        prose = re.sub(r"<pre>.*?</pre>", "", html, flags=re.S)  # source code may hold TeX
        maths = "".join(re.findall(r"<math.*?</math>", prose, flags=re.S))
        prose = re.sub(r"<math.*?</math>", "", prose, flags=re.S)
        hits = [t for t in ("$$", "\\frac", "\\partial", "\\mathcal", "math-error") if t in prose]
        hits += re.findall(r"<m[a-z]+>\\[A-Za-z]+", maths)  # a command passed through as TeX
        if hits:
            bad[page.stem] = hits
    assert not bad, bad
