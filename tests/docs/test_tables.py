"""Every Markdown table of the README and the site renders as a table.

A block of lines starting with ``|`` outside code fences is meant as a table; without its
header row and ``|---|`` delimiter row Python-Markdown (the site's renderer, with the
``tables`` extension of mkdocs.yml) shows it as a paragraph of pipes, and ``mkdocs build
--strict`` does not notice. Each such block is rendered alone and must give a ``<table>``
with as many rows as the block has lines (less the delimiter row).
"""
import os
import re

import markdown
import pytest

from docs.test_examples import doc_pages

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FENCE = re.compile(r"^\s*(```|~~~)")


def pipe_blocks(text: str):
    """[(first line number, lines)] of the runs of lines starting with '|' outside fenced code that
    begin a block (after a blank line, a heading or a fence: a '|' inside a paragraph is prose)."""
    blocks, current, fenced, previous = [], None, False, ""
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            current, previous = None, ""
            continue
        starts = not previous.strip() or previous.lstrip().startswith("#")
        if not fenced and line.lstrip().startswith("|") and (current is not None or starts):
            if current is None:
                current = (number, [])
                blocks.append(current)
            current[1].append(line)
        else:
            current = None
        previous = line
    return blocks


def render(block_lines) -> str:
    return markdown.markdown("\n".join(block_lines), extensions=["tables", "attr_list"])


def test_a_table_without_its_header_row_is_caught():
    good = ["| a | b |", "|---|---|", "| 1 | 2 |"]
    assert "<table>" in render(good) and render(good).count("<tr>") == 2
    assert "<table>" not in render(good[2:])
    text = "x\n```\n| in code |\n```\n| a |\n|---|\n\n| b |\nprose\n|a| in a paragraph\n"
    assert pipe_blocks(text) == [(5, ["| a |", "|---|"]), (8, ["| b |"])]


@pytest.mark.parametrize("page", doc_pages(), ids=lambda p: os.path.relpath(p, ROOT))
def test_every_pipe_block_renders_as_a_table(page):
    bad = []
    for line, block in pipe_blocks(open(page, encoding="utf-8").read()):
        html = render(block)
        rows = len(block) - 1
        if "<table>" not in html or html.count("<tr>") != rows:
            bad.append(f"{os.path.relpath(page, ROOT)}:{line}: {block[0][:70]}")
    assert not bad, "blocks of '|' lines that do not render as one table:\n" + "\n".join(bad)
