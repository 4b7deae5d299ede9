"""Every table of docs/performance.md says when and on what machine it was measured.

Between the table and the heading above it there must be a date (YYYY-MM-DD) and a machine
(the 2-core development VM, or a named host such as the GPU section's H100 host).
"""
import os
import re

from docs.test_tables import ROOT, pipe_blocks

PAGE = os.path.join(ROOT, "docs", "performance.md")
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
MACHINE = re.compile(r"\b(2-core (24 GiB )?(development )?VM|same VM|H100 host)\b")


def undated(text: str) -> list:
    lines, bad = text.splitlines(), []
    for start, block in pipe_blocks(text):
        i = start - 2
        while i >= 0 and not lines[i].startswith("#"):
            i -= 1
        context = "\n".join(lines[max(i, 0):start - 1])
        if not (DATE.search(context) and MACHINE.search(context)):
            bad.append(f"docs/performance.md:{start}: {block[0][:60]}")
    return bad


def test_the_check_finds_a_table_without_date_or_machine():
    table = "| a |\n|---|\n| 1 |\n"
    assert undated("## X\n\n2026-11-24, the 2-core VM.\n\n" + table) == []
    assert len(undated("## X\n\n2026-11-24, quiet.\n\n" + table)) == 1
    assert len(undated("## X\n\nthe 2-core VM.\n\n" + table)) == 1


def test_every_performance_table_has_its_date_and_machine():
    bad = undated(open(PAGE, encoding="utf-8").read())
    assert not bad, "tables without a date and a machine since their heading:\n" + "\n".join(bad)
