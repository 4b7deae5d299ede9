"""The sample outputs of `breadth doctor` and `breadth plan` in the docs come from a real run.

A sample is a fenced block whose first line is ``$ breadth ...`` and that follows the HTML
comment ``<!-- sample: exact -->`` or ``<!-- sample: labels -->`` (the site does not show it).
The test runs the command and compares its output with the block's other lines: all of it
(``exact``: `plan` with its rates given, which prints the same everywhere), or the label
column of each line (``labels``: `doctor`, whose values are this machine's versions and
paths). ``BREADTH_UPDATE_SAMPLES=1`` rewrites each block with the real run's output.
"""
import os
import re
import shlex
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = re.compile(r"^<!-- sample: (exact|labels) -->\n```(\w*)\n\$ (breadth [^\n]*)\n(.*?)^```$", re.M | re.S)
UPDATE = os.environ.get("BREADTH_UPDATE_SAMPLES") == "1"


def pages():
    out = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, "docs")):
        dirnames.sort()
        out += [os.path.join(dirpath, f) for f in sorted(filenames)
                if f.endswith(".md") and "<!-- sample:" in open(os.path.join(dirpath, f)).read()]
    return out


def run(command: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=ROOT, COLUMNS="200")
    proc = subprocess.run([sys.executable, "-m", "breadth", *shlex.split(command)[1:]], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def labels(text: str) -> list:
    """The label column of doctor's lines (the words before the run of spaces)."""
    return [re.split(r"\s{2,}", line, maxsplit=1)[0] for line in text.splitlines() if line.strip()]


def test_the_pages_have_samples():
    found = {os.path.relpath(p, ROOT) for p in pages()}
    assert {"docs/guide/cli.md", "docs/guide/choosing-a-layout.md"} <= found, found


@pytest.mark.parametrize("page", pages(), ids=lambda p: os.path.relpath(p, ROOT))
def test_samples_are_what_the_command_prints(page):
    text = open(page, encoding="utf-8").read()
    stale, updated = [], text
    for m in SAMPLE.finditer(text):
        kind, command, shown = m.group(1), m.group(3), m.group(4)
        real = run(command)
        same = real == shown if kind == "exact" else labels(real) == labels(shown)
        if not same:
            line = text.count("\n", 0, m.start()) + 1
            stale.append(f"{os.path.relpath(page, ROOT)}:{line}: `{command}` prints\n{real}")
            updated = updated.replace(m.group(0), m.group(0).replace(shown, real), 1)
    if UPDATE and updated != text:
        with open(page, "w", encoding="utf-8") as f:
            f.write(updated)
        return
    assert not stale, ("stale samples (BREADTH_UPDATE_SAMPLES=1 rewrites them from this run):\n"
                       + "\n".join(stale))
