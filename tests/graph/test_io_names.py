"""Edge lists of vertex names: read, converted (in memory and bounded) and searched by label, against networkx."""
import csv

import numpy as np
import pytest

import breadth
from breadth.errors import InputError
from breadth.graph.io import read_with_stats
from breadth.graph.io.spill import convert_edgelist

nx = pytest.importorskip("networkx")
pytest.importorskip("pyarrow")


def real_graphs():
    karate = nx.relabel_nodes(nx.karate_club_graph(), {i: f"member {1000 + i}" for i in range(34)})
    return {"lesmis": nx.les_miserables_graph(), "karate": karate}


def write_named(path, G, sep, header):
    with open(path, "w", encoding="utf-8") as f:
        if header:
            f.write(f"source{sep}target\n")
        for u, v in G.edges():
            u, v = (f'"{u}"', f'"{v}"') if sep == "," and " " in u + v else (u, v)
            f.write(f"{u}{sep}{v}\n")


def same_as_networkx(g, G):
    assert sorted(g.vertex_ids.tolist()) == sorted(G.nodes()) and g.num_edges == G.number_of_edges()
    for root in list(G)[:5]:
        depth = breadth.bfs(g, g.index_of(root)).depth
        ref = nx.single_source_shortest_path_length(G, root)
        assert {label: int(depth[g.index_of(label)]) for label in G} == ref


CASES = [(sep, header) for sep in ("\t", " ", ",") for header in (False, True)]


@pytest.mark.parametrize("name", ["lesmis", "karate"])
@pytest.mark.parametrize("sep, header", CASES, ids=[f"{s!r}-{h}" for s, h in CASES])
def test_named_edge_lists_equal_networkx(tmp_path, name, sep, header):
    G = real_graphs()[name]
    if sep == " " and name == "karate":
        G = nx.relabel_nodes(G, {v: v.replace(" ", "_") for v in G})     # a space separates fields
    path = tmp_path / ("g.csv" if sep == "," else "g.txt")
    write_named(path, G, sep, header)
    g, stats = read_with_stats(path, header=header or None)
    assert g.vertex_ids.tolist()[:2] == list(G)[:2]                 # numbered in order of appearance
    same_as_networkx(g, G)
    if header:
        assert any("line 1 " in n and "skipped as a column header" in n for n in stats.notes)
    out = tmp_path / "g.npz"
    convert_edgelist(path, out, memory=1 << 20, header=header or None)
    bounded = breadth.read(out)
    assert bounded.vertex_ids.tolist() == g.vertex_ids.tolist()
    assert np.array_equal(bounded.indptr, g.indptr) and np.array_equal(bounded.indices, g.indices)


def test_a_header_of_an_all_names_file_is_read_as_an_edge_with_a_hint(tmp_path):
    G = nx.les_miserables_graph()
    write_named(tmp_path / "g.txt", G, "\t", True)
    g, stats = read_with_stats(tmp_path / "g.txt")
    assert {"source", "target"} <= set(g.vertex_ids.tolist())
    assert any("pass --header" in n and "'source\\ttarget'" in n for n in stats.notes)
    g, _ = read_with_stats(tmp_path / "g.txt", header=True)
    assert "source" not in g.vertex_ids.tolist()


def test_numeric_header_row_and_no_header(tmp_path):
    path = tmp_path / "n.csv"
    path.write_text("# comment\nsource,target\n3,4\n4,5\n")
    g, stats = read_with_stats(path)
    assert g.vertex_ids is None and g.num_edges == 2
    assert any("line 2 'source,target' skipped" in n and "--no-header" in n for n in stats.notes)
    g = breadth.read(path, header=False)
    assert sorted(g.vertex_ids.tolist()) == ["3", "4", "5", "source", "target"]


def test_directed_names_gzip_weights_and_comments(tmp_path):
    import gzip

    text = "# Directed graph\na b 1.5\n% a comment\nb c 2\n\nc a 7 extra\n#x y\n"
    path = tmp_path / "d.txt.gz"
    path.write_bytes(gzip.compress(text.encode()))
    g, stats = read_with_stats(path)
    assert g.directed and g.vertex_ids.tolist() == ["a", "b", "c"] and g.num_edges == 3
    assert any("columns after the second" in n for n in stats.notes)


def test_irregular_rows_and_unicode(tmp_path):
    path = tmp_path / "u.txt"
    path.write_text("Müller Łukasz\nŁukasz  Zoë\nZoë Müller w\n", encoding="utf-8")
    g = breadth.read(path)
    assert sorted(g.vertex_ids.tolist()) == ["Müller", "Zoë", "Łukasz"] and g.num_edges == 3


@pytest.mark.parametrize("text, pattern", [
    ("a b\nc\n", r"'c' has one field"),
    ("a,b\nc,\n", r"empty vertex name"),
    ("a b\nc d\x01e f\n", r"line 2: not a text edge list \(binary data\?\): 'c d\\x01e f'"),
    ("a b\nc d\ne\x02 f\n", r"not a text edge list: the line 'e\\x02\\tf' holds control bytes \(binary data\?\)"),
])
def test_bad_named_lines(tmp_path, text, pattern):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=pattern):
        breadth.read(path)


def test_declared_vertex_count_is_for_integer_ids(tmp_path):
    path = tmp_path / "n.txt"
    path.write_text("0 1\nx y\n")
    with pytest.raises(InputError, match=r"line 2: the vertices have names"):
        breadth.read(path, num_vertices=5)


def test_cli_bfs_and_closeness_on_a_named_file(tmp_path, capsys):
    from breadth.cli import main

    G = nx.les_miserables_graph()
    write_named(tmp_path / "lesmis.txt", G, "\t", False)
    assert main(["bfs", str(tmp_path / "lesmis.txt"), "--root", "Valjean", "--out", str(tmp_path / "r.csv")]) == 0
    with open(tmp_path / "r.csv", newline="") as f:
        depth = {r["vertex"]: int(r["depth"]) for r in csv.DictReader(f)}
    assert depth == nx.single_source_shortest_path_length(G, "Valjean")
    assert main(["closeness", str(tmp_path / "lesmis.txt"), "--output", str(tmp_path / "c.csv")]) == 0
    with open(tmp_path / "c.csv", newline="") as f:
        score = {r["vertex"]: float(r["score"]) for r in csv.DictReader(f)}
    ref = nx.closeness_centrality(G)
    assert score.keys() == ref.keys() and all(abs(score[v] - ref[v]) < 1e-12 for v in ref)
    capsys.readouterr()


def test_a_single_named_line_is_an_edge(tmp_path):
    path = tmp_path / "one.txt"
    path.write_text("# one edge\nalice bob\n")
    g, stats = read_with_stats(path)
    assert g.vertex_ids.tolist() == ["alice", "bob"] and g.num_edges == 1
    assert read_with_stats(path, header=True)[0].num_vertices == 0
