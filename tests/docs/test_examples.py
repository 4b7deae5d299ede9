"""The code examples of the documentation run, so they cannot rot.

Every ```python block of README.md and docs/**/*.md is executed: a page's blocks in
order, in one namespace (a later block may use what an earlier one made), inside a
fresh temporary directory, so examples may write files. ```bash and ```text blocks
are shown, never run. A block that needs what a test run may lack says so on the line
before it with an HTML comment the site does not show:

    <!-- example: needs cuda -->   runs only where breadth.gpu can run kernels (a GPU, or
                                  NUMBA_ENABLE_CUDASIM=1, which ./test.sh sets)

Examples are written to be quick (graphs of scale 12 or less).
"""
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
MARK = re.compile(r"<!--\s*example:\s*needs\s+(\w+)\s*-->\s*$")


def doc_pages():
    pages = [os.path.join(ROOT, "README.md")]
    for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, "docs")):
        dirnames.sort()
        pages += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".md")]
    return pages


def python_blocks(text):
    """[(line number, needs or None, code)] of the ```python blocks of one Markdown text."""
    blocks = []
    for m in FENCE.finditer(text):
        if m.group(1) != "python":
            continue
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        need = MARK.search(before)
        blocks.append((text.count("\n", 0, m.start()) + 2, need.group(1) if need else None, m.group(2)))
    return blocks


def cuda_usable():
    try:
        from breadth.gpu import device

        device.require_cuda()
        return True
    except Exception:                       # no numba-cuda, no GPU and no simulator
        return False


PAGES = [p for p in doc_pages() if python_blocks(open(p).read())]


def test_the_extractor_finds_blocks_and_marks():
    text = "a\n```python\nx = 1\n```\n<!-- example: needs cuda -->\n```python\ny = 2\n```\n```bash\nls\n```\n"
    assert python_blocks(text) == [(3, None, "x = 1\n"), (7, "cuda", "y = 2\n")]
    assert len(PAGES) >= 8, PAGES


# Each page runs in a fresh interpreter: an example may start MPI (a DistEngine runs as a
# one-rank job), which must not outlive the page inside the test process.
RUNNER = """
import json, sys, traceback
blocks = json.load(open(sys.argv[1]))
namespace = {"__name__": "__doc_example__"}
for where, code in blocks:
    try:
        exec(compile(code, where, "exec"), namespace)
    except BaseException as exc:
        print(f"the example at {where} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        traceback.print_exc()
        sys.exit(1)
"""


@pytest.mark.parametrize("page", PAGES, ids=[os.path.relpath(p, ROOT) for p in PAGES])
def test_examples_run(page, tmp_path):
    blocks = []
    for line, need, code in python_blocks(open(page).read()):
        assert need in (None, "cuda"), f"{page}:{line}: unknown example mark {need!r}"
        if need == "cuda" and not cuda_usable():
            continue
        blocks.append((f"{os.path.relpath(page, ROOT)}:{line}", code))
    if not blocks:
        pytest.skip("every example of this page needs CUDA (a GPU or NUMBA_ENABLE_CUDASIM=1)")
    spec = tmp_path / "blocks.json"
    spec.write_text(json.dumps(blocks))
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(spec)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
