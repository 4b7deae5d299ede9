"""The documentation site builds in strict mode: no warnings, no broken links or anchors.

`mkdocs build --strict` (mkdocs.yml at the repository root) fails on a link to a page or
anchor that does not exist, a page missing from the navigation, and a ``:::`` entry of the
API reference that mkdocstrings cannot resolve. The site is built into a temporary
directory, so the test leaves nothing behind.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_site_builds_strictly(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-6000:]
    assert "WARNING" not in log, log[-6000:]
    for page in ("index.html", "guide/cli.html", "api/breadth.html", "search/search_index.json"):
        assert (tmp_path / "site" / page).is_file(), page
    api = (tmp_path / "site" / "api" / "breadth.html").read_text()
    assert 'id="breadth.bfs"' in api, "the API reference did not render breadth.bfs from its docstring"
