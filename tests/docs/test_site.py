"""The documentation site builds in strict mode: no warnings, no broken links or anchors.

`mkdocs build --strict` (mkdocs.yml at the repository root) fails on a link to a page or
anchor that does not exist, a page missing from the navigation, and a ``:::`` entry of the
API reference that mkdocstrings cannot resolve. The site is built into a temporary
directory, so the test leaves nothing behind. The build prints nothing but mkdocs's own INFO
lines (no theme banner: ``pyproject.toml`` pins Material below the release that added one),
and the site works opened from disk (``file://``, as the README suggests): search reads the
index inlined into ``search/search_index.js`` (Material's ``offline`` plugin) through the
shipped iframe-worker shim, and no page loads a script from the network.
"""
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    site = tmp_path_factory.mktemp("docs") / "site"
    env = {k: v for k, v in os.environ.items() if k not in ("NO_MKDOCS_2_WARNING", "DISABLE_MKDOCS_2_WARNING")}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    return site, proc


def test_site_builds_strictly_and_quietly(built):
    site, proc = built
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-6000:]
    assert "WARNING" not in log, log[-6000:]
    noise = [line for line in log.splitlines() if line.strip() and not line.startswith("INFO ")]
    assert not noise, "the build printed more than its INFO lines:\n" + "\n".join(noise[:20])
    for page in ("index.html", "guide/cli.html", "api/breadth.html", "search/search_index.json"):
        assert (site / page).is_file(), page
    api = (site / "api" / "breadth.html").read_text()
    assert 'id="breadth.bfs"' in api, "the API reference did not render breadth.bfs from its docstring"


def test_search_works_from_disk(built):
    site, _ = built
    script = (site / "search" / "search_index.js").read_text()
    assert script.startswith("var __index = ")
    index = json.loads(script[len("var __index = "):])
    assert index == json.loads((site / "search" / "search_index.json").read_text())
    assert any(doc["location"].startswith("guide/cli.html") for doc in index["docs"])
    pages = [p for p in site.rglob("*.html") if p.name != "404.html"]     # 404.html is for servers only
    assert len(pages) > 20
    for page in pages:
        html = page.read_text()
        scripts = re.findall(r'<script[^>]*\bsrc="([^"]+)"', html)
        remote = [src for src in scripts if re.match(r"(https?:)?//", src)]
        assert not remote, f"{page.relative_to(site)} loads scripts from the network: {remote}"
        shim = [src for src in scripts if "iframe-worker" in src]
        assert shim and (page.parent / shim[0]).resolve().is_file(), f"{page.relative_to(site)}: {shim}"
        assert 'href="http://' not in html and "fonts.googleapis" not in html, page


def test_composed_docstrings_render_whole(built):
    """A function whose docstring ``breadth.docstrings`` completes renders its shared parts too
    (docs_tools/griffe_composed.py), not only what its source writes."""
    site, _ = built
    nx_page = (site / "api" / "nx.html").read_text()
    start = nx_page.index('id="breadth.nx.interface.center"')
    center = re.sub(r"<[^>]+>", " ", nx_page[start:nx_page.index('id="breadth.nx.interface.closeness_centrality"')])
    for shared in ("Called by networkx", "the networkx graph", "precomputed eccentricities", "usebounds",
                   "is not connected"):
        assert shared in center, shared
    graph = (site / "api" / "graph.html").read_text()
    assert graph.count("bytes the conversion may use") == 2     # convert_to_native, convert_edgelist
