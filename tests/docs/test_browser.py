"""The site as a reader uses it: headless Chromium (Debian's, through Playwright) on the
built site served from localhost — every internal link and anchor, the maths of op pages
rendered as MathML, the offline search — with screenshots kept as test artefacts
(``LUCID_DOCS_ARTIFACTS``, default ``tests/docs/artifacts``)."""

from __future__ import annotations

import functools
import os
import threading
from collections import deque
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urldefrag, urlparse

import pytest

CHROMIUM = "/usr/bin/chromium"
# Without these Chromium waits on the network this closed machine does not have.
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# ten op pages whose docstrings carry inline and block maths
MATH_OPS = (
    "exp",
    "add",
    "mul",
    "matmul",
    "sum",
    "layer_norm",
    "cross_entropy",
    "sigmoid",
    "cat",
    "convolution",
)
ARTIFACTS = Path(os.environ.get("LUCID_DOCS_ARTIFACTS", Path(__file__).parent / "artifacts"))


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # the test reports failures itself
        pass


@pytest.fixture(scope="module")
def server(site):
    """The built site over HTTP on a free localhost port, in a thread."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=site))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """A Chromium context with a fresh profile."""
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: `make chromium` installs it"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=CHROMIUM,
            args=ARGS,
            headless=True,
            viewport={"width": 1280, "height": 900},
        )
        context.set_default_timeout(30_000)
        yield context
        context.close()


@pytest.fixture
def page(browser):
    page = browser.new_page()
    yield page
    page.close()


_LINKS = "() => [...document.querySelectorAll('a[href]')].map(a => a.href)"
_IDS = "() => [...document.querySelectorAll('[id], a[name]')].map(e => e.id || e.name)"


def test_every_internal_link_and_anchor_resolves(server, page, site):
    """Crawl from the index: each page reached loads (and every resource it asks for), and
    every ``#anchor`` a link points at exists on its page."""
    bad_responses = []
    page.on(
        "response",
        lambda r: bad_responses.append((r.status, r.url)) if r.status >= 400 else None,
    )
    page.on("requestfailed", lambda r: bad_responses.append(("failed", r.url)))
    host = urlparse(server).netloc
    queue, seen = deque([server + "index.html"]), {server + "index.html"}
    ids: dict[str, set] = {}
    wanted: list[tuple[str, str, str]] = []  # (from page, target page, anchor)
    while queue:
        url = queue.popleft()
        response = page.goto(url, wait_until="domcontentloaded")
        assert response is not None and response.ok, f"{url}: {response and response.status}"
        if not url.endswith(".html"):
            continue
        ids[url] = set(page.evaluate(_IDS))
        for href in page.evaluate(_LINKS):
            target, anchor = urldefrag(href)
            if urlparse(target).netloc != host:
                continue  # the site links nowhere else, but a docstring may cite a paper
            if target.endswith("/"):
                target += "index.html"
            if anchor:
                wanted.append((url, target, anchor))
            if target not in seen:
                seen.add(target)
                queue.append(target)
    pages = [u for u in seen if u.endswith(".html")]
    assert len(pages) >= len(list((site / "generated" / "ops").glob("*.html"))) + 20
    assert not bad_responses, bad_responses[:20]
    broken = [(src, f"{dst}#{a}") for src, dst, a in wanted if a not in ids.get(dst, set())]
    assert not broken, f"{len(broken)} broken anchors, e.g. {broken[:10]}"


_PROSE = """() => {
    const article = document.querySelector('article').cloneNode(true);
    article.querySelectorAll('pre, math').forEach(e => e.remove());
    return article.innerText;
}"""


@pytest.mark.parametrize("op", MATH_OPS)
def test_op_maths_rendered_as_mathml(server, page, op):
    page.goto(f"{server}generated/ops/{op}.html")
    maths = page.locator("article math")
    assert maths.count() >= 2, f"{op}: no MathML"
    assert page.locator("article math[display=block]").count() >= 1  # the Math section
    box = maths.first.bounding_box()  # laid out by the browser's MathML engine
    assert box is not None and box["width"] > 0 and box["height"] > 0
    prose = page.evaluate(_PROSE)
    for tex in ("$$", "\\frac", "\\partial", "\\mathcal", "\\begin"):
        assert tex not in prose, f"{op}: raw TeX {tex!r} left in the page"


def test_screenshots(server, page):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name, path in (("index", "index.html"), ("op_exp", "generated/ops/exp.html")):
        page.goto(server + path)
        page.wait_for_load_state("load")
        out = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(out), full_page=True)
        assert out.stat().st_size > 10_000, out


def _search_hits(page, url: str) -> list[str]:
    page.goto(url)
    page.wait_for_selector("#search-results ul.search li a")
    return page.eval_on_selector_all(
        "#search-results ul.search li a", "links => links.map(a => a.getAttribute('href'))"
    )


def test_search_finds_the_exp_page_by_its_node_name(server, page):
    hits = _search_hits(page, f"{server}search.html?q=ExpBackward")
    assert any(h.startswith("generated/ops/exp.html") for h in hits), hits


def test_search_works_from_file_urls(page, site):
    """The index is a script the page loads, so search needs no server."""
    hits = _search_hits(page, (site / "search.html").as_uri() + "?q=ExpBackward")
    assert any("generated/ops/exp.html" in h for h in hits), hits
