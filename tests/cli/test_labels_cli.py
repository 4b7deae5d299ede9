"""The command line speaks the graph's own ids: relabelled files' original ids and native string labels.

Round trips against independent references: a plain queue BFS on the original
edge list (tests/zoo.py) and networkx on string-labelled graphs.
"""
import csv
import json

import networkx as nx
import numpy as np
import pytest

import breadth
from breadth.cli import main
from zoo import graphs, reference_depth

ZOO = list(graphs())


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def sparse_ids(n, seed):
    """n distinct large ids in no particular order (relabelling sorts them: dense order differs)."""
    rng = np.random.default_rng(seed)
    return rng.choice(10**12, size=n, replace=False).astype(np.int64) + 5


def write_edges(path, src, dst, directed):
    lines = ["# Directed graph" if directed else "# Undirected graph"]
    lines += [f"{a} {b}" for a, b in zip(src.tolist(), dst.tolist())]
    path.write_text("\n".join(lines) + "\n")


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("case", ZOO, ids=[c[0] for c in ZOO])
def test_relabel_then_bfs_by_original_id_matches_the_original_file(case, tmp_path, capsys):
    name, src, dst, n, directed, root = case
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    orig = sparse_ids(n, len(name))
    write_edges(tmp_path / "g.txt", orig[src], orig[dst], directed)
    rc, _, err = run(capsys, "convert", tmp_path / "g.txt", tmp_path / "g.npz", "--relabel", "-q", "--allow-empty")
    assert rc == 0, err
    present = np.unique(np.concatenate([src, dst]))
    if root not in present:     # relabelling keeps only ids that occur in an edge
        rc, _, err = run(capsys, "bfs", tmp_path / "g.npz", "--root", orig[root], "--allow-empty")
        assert rc == 2 and "does not exist" in err and "--dense-ids" in err
        return
    rc, out, err = run(capsys, "bfs", tmp_path / "g.npz", "--root", orig[root], "--out", tmp_path / "r.csv",
                       "--validate")
    assert rc == 0, err
    assert f"root={orig[root]}" in out and "validated" in out
    rows = read_rows(tmp_path / "r.csv")
    got = {int(r["vertex"]): (int(r["depth"]), int(r["parent"])) for r in rows}
    assert sorted(got) == sorted(orig[present].tolist())
    ref = reference_depth(src, dst, n, directed, root)
    edges = set(zip(orig[src].tolist(), orig[dst].tolist()))
    if not directed:
        edges |= {(b, a) for a, b in edges}
    for v in present.tolist():
        depth, parent = got[int(orig[v])]
        assert depth == ref[v], (name, v)
        if v == root:
            assert parent == orig[root]
        elif depth < 0:
            assert parent == -1
        else:
            assert got[parent][0] == depth - 1 and (parent, int(orig[v])) in edges


def test_dense_ids_switch_back_and_positional_outputs(tmp_path, capsys):
    path = tmp_path / "toy.txt"
    path.write_text("10 20\n20 30\n30 40\n50 40\n")
    assert run(capsys, "convert", path, tmp_path / "toy.npz", "--relabel", "-q")[0] == 0
    g = tmp_path / "toy.npz"
    rc, _, err = run(capsys, "bfs", g, "--root", "0")
    assert rc == 2 and len(err.strip().splitlines()) == 1
    assert ("root 0 does not exist: toy.npz names its 5 vertices by their original ids, 10 to 50 "
            "(--dense-ids takes the internal ids 0..4 instead)") in err
    rc, _, err = run(capsys, "bfs", g, "--root", "ten")
    assert rc == 2 and "root 'ten' is not an original id (an integer)" in err
    rc, _, err = run(capsys, "bfs", g, "--root", "10", "--out", tmp_path / "d.npy")
    assert rc == 2 and "cannot hold toy.npz's labels; write .csv or .npz" in err and "--dense-ids" in err
    assert not (tmp_path / "d.npy").exists()
    rc, _, err = run(capsys, "bfs", g, "--root", "10", "--parents", tmp_path / "p.npy")
    assert rc == 2 and "--dense-ids" in err
    # --dense-ids: internal ids in, internal ids out; .npy allowed
    rc, out, _ = run(capsys, "bfs", g, "--root", "0", "--dense-ids", "--out", tmp_path / "d.npy",
                     "--parents", tmp_path / "p.npy")
    assert rc == 0
    assert np.load(tmp_path / "d.npy").tolist() == [0, 1, 2, 3, 4]
    rc, _, err = run(capsys, "bfs", g, "--root", "10", "--dense-ids")
    assert rc == 2 and "root 10 does not exist: toy.npz has 5 vertices: 0..4" in err
    assert "leave it out to use the graph's labels" in err
    rc, out, _ = run(capsys, "bfs", g, "--root", "1", "--dense-ids", "--out", tmp_path / "d.csv")
    assert [r["vertex"] for r in read_rows(tmp_path / "d.csv")] == ["0", "1", "2", "3", "4"]
    # .npz rows in labels; JSON roots in labels, the dense ids alongside
    rc, out, _ = run(capsys, "bfs", g, "--root", "50", "20", "--out", tmp_path / "r.npz", "--json")
    assert rc == 0
    data = json.loads(out)
    assert data["roots"] == [50, 20] and data["root_ids"] == [4, 1] and data["ids"] == "labels"
    z = np.load(tmp_path / "r.npz")
    assert z["vertex"].tolist() == [10, 20, 30, 40, 50] and z["depth"].tolist() == [1, 0, 1, 1, 0]
    assert z["parent"].tolist() == [20, 20, 20, 50, 50]


def test_graph_without_labels_hints_the_range(tmp_path, capsys):
    breadth.save(breadth.Graph.from_edges([0, 1], [1, 2]), tmp_path / "p.npz")
    rc, _, err = run(capsys, "bfs", tmp_path / "p.npz", "--root", "7")
    assert rc == 2 and "root 7 does not exist: p.npz has 3 vertices: 0..2" in err
    assert "dense-ids" not in err
    rc, _, err = run(capsys, "bfs", tmp_path / "p.npz", "--root", "1", "--out", tmp_path / "d.npy")
    assert rc == 0 and np.load(tmp_path / "d.npy").tolist() == [1, 0, 1]


@pytest.fixture(scope="module")
def les(tmp_path_factory):
    """networkx's Les Miserables graph (string nodes) saved as a native file with its labels."""
    G = nx.les_miserables_graph()
    path = tmp_path_factory.mktemp("les") / "les.npz"
    breadth.save(breadth.Graph.from_networkx(G), path)
    return G, path


def test_string_labels_bfs_rows_match_networkx(les, tmp_path, capsys):
    G, path = les
    rc, out, err = run(capsys, "bfs", path, "--root", "Valjean", "--out", tmp_path / "r.csv")
    assert rc == 0, err
    rows = read_rows(tmp_path / "r.csv")
    ref = nx.single_source_shortest_path_length(G, "Valjean")
    assert {r["vertex"]: int(r["depth"]) for r in rows} == ref
    for r in rows:
        if r["vertex"] != "Valjean":
            assert G.has_edge(r["parent"], r["vertex"]) and ref[r["parent"]] == ref[r["vertex"]] - 1
    rc, _, err = run(capsys, "bfs", path, "--root", "Javert ")
    assert rc == 2 and "root 'Javert ' does not exist: les.npz names its 77 vertices by string labels" in err


def test_string_labels_with_commas_and_unreached_vertices(tmp_path, capsys):
    G = nx.DiGraph([("a, b", 'say "hi"'), ('say "hi"', "c")])
    G.add_node("lonely")
    breadth.save(breadth.Graph.from_networkx(G), tmp_path / "q.npz")
    rc, _, err = run(capsys, "bfs", tmp_path / "q.npz", "--root", "a, b", "--out", tmp_path / "r.csv")
    assert rc == 0, err
    rows = read_rows(tmp_path / "r.csv")
    assert [(r["vertex"], r["depth"], r["parent"]) for r in rows] == [
        ("a, b", "0", "a, b"), ('say "hi"', "1", "a, b"), ("c", "2", 'say "hi"'), ("lonely", "-1", "")]


def test_msbfs_sources_and_matrix_in_labels(les, tmp_path, capsys):
    G, path = les
    sources = ["Valjean", "Javert", "Napoleon", "Valjean"]
    (tmp_path / "s.txt").write_text("# sources, one label per line\n" + "\n".join(sources) + "\n\n")
    rc, out, err = run(capsys, "msbfs", path, "--sources", tmp_path / "s.txt", "--output", tmp_path / "d.npz",
                       "--json", tmp_path / "m.json")
    assert rc == 0, err
    z = np.load(tmp_path / "d.npz")
    assert z["sources"].tolist() == sources and z["vertices"].tolist() == list(G)
    for i, s in enumerate(sources):
        ref = nx.single_source_shortest_path_length(G, s)
        assert {v: int(d) for v, d in zip(z["vertices"].tolist(), z["depths"][i])} == ref
    data = json.loads((tmp_path / "m.json").read_text())
    assert data["per_source"]["source"] == sources and data["ids"] == "labels"
    assert data["per_source"]["eccentricity"] == [nx.eccentricity(G, s) for s in sources]
    np.save(tmp_path / "s.npy", np.array(["Myriel", "Fantine"]))
    rc, out, _ = run(capsys, "msbfs", path, "--sources", tmp_path / "s.npy", "--json")
    assert rc == 0 and json.loads(out)["per_source"]["source"] == ["Myriel", "Fantine"]
    (tmp_path / "bad.txt").write_text("Valjean\nNobody\n")
    rc, _, err = run(capsys, "msbfs", path, "--sources", tmp_path / "bad.txt")
    assert rc == 2 and "source 'Nobody' does not exist" in err and "--dense-ids" in err
    rc, _, err = run(capsys, "msbfs", path, "--sample", "3", "--output", tmp_path / "d.npy")
    assert rc == 2 and "write .npz" in err and not (tmp_path / "d.npy").exists()


def test_msbfs_relabelled_sources_text_and_dense(tmp_path, capsys):
    (tmp_path / "g.txt").write_text("100 200\n200 300\n300 400\n")
    run(capsys, "convert", tmp_path / "g.txt", tmp_path / "g.npz", "--relabel", "-q")
    (tmp_path / "s.txt").write_text("400, 100\n")
    rc, out, _ = run(capsys, "msbfs", tmp_path / "g.npz", "--sources", tmp_path / "s.txt", "--output",
                     tmp_path / "d.npz", "--json")
    data = json.loads(out)
    assert rc == 0 and data["per_source"]["source"] == [400, 100]
    z = np.load(tmp_path / "d.npz")
    assert z["vertices"].tolist() == [100, 200, 300, 400] and z["depths"].tolist() == [[3, 2, 1, 0], [0, 1, 2, 3]]
    rc, out, _ = run(capsys, "msbfs", tmp_path / "g.npz", "--sample", "2", "--json")
    assert set(json.loads(out)["per_source"]["source"]) <= {100, 200, 300, 400}
    rc, _, _ = run(capsys, "msbfs", tmp_path / "g.npz", "--all", "--dense-ids", "--output", tmp_path / "d.npy")
    assert rc == 0 and np.load(tmp_path / "d.npy").shape == (4, 4)


def test_closeness_scores_and_top_in_labels(les, tmp_path, capsys):
    G, path = les
    rc, out, err = run(capsys, "closeness", path, "--top", "3", "--output", tmp_path / "c.csv")
    assert rc == 0, err
    ref = nx.closeness_centrality(G)
    rows = read_rows(tmp_path / "c.csv")
    assert [r["vertex"] for r in rows] == list(G)
    for r in rows:
        assert float(r["score"]) == pytest.approx(ref[r["vertex"]], rel=1e-12)
    best = max(ref, key=ref.get)
    assert out.splitlines()[1].split() == ["rank", "vertex", "closeness"]
    assert out.splitlines()[2].split()[:2] == ["1", best]
    rc, out, _ = run(capsys, "closeness", path, "--measure", "harmonic", "--sources", _lines(tmp_path, "Valjean"),
                     "--json")
    data = json.loads(out)
    assert data["top"][0]["vertex"] == "Valjean" and data["scores"]["vertex"] == ["Valjean"]
    assert data["top"][0]["score"] == pytest.approx(nx.harmonic_centrality(G)["Valjean"])
    rc, _, err = run(capsys, "closeness", path, "--output", tmp_path / "c.npy")
    assert rc == 2 and "write .csv" in err
    rc, _, _ = run(capsys, "closeness", path, "--dense-ids", "--output", tmp_path / "c.npy")
    assert rc == 0 and np.load(tmp_path / "c.npy") == pytest.approx([ref[v] for v in G])


def _lines(tmp_path, *labels):
    p = tmp_path / "labels.txt"
    p.write_text("\n".join(labels) + "\n")
    return p


def test_info_names_labels_and_diameter_endpoints(les, tmp_path, capsys):
    G, path = les
    rc, out, _ = run(capsys, "info", path, "--json")
    data = json.loads(out)
    assert data["graph"]["labels"] == {"kind": "string", "first": list(G)[:3]}
    u, v = data["diameter"]["endpoints"]
    assert nx.shortest_path_length(G, u, v) == data["diameter"]["lower_bound"]
    rc, out, _ = run(capsys, "info", path)
    assert f"from {u!r} to {v!r}" in out and "labels       strings ('Napoleon'" in out
    rc, out, _ = run(capsys, "info", path, "--json", "--dense-ids")
    assert all(isinstance(x, int) for x in json.loads(out)["diameter"]["endpoints"])
    (tmp_path / "g.txt").write_text("7 9\n9 1000\n")
    rc, out, _ = run(capsys, "info", tmp_path / "g.txt", "--relabel", "--json")
    data = json.loads(out)
    assert data["graph"]["labels"] == {"kind": "integer", "min": 7, "max": 1000}
    assert sorted(data["diameter"]["endpoints"]) == [7, 1000]


@pytest.mark.mpi
def test_distributed_bfs_speaks_labels_too(les, tmp_path):
    """--ranks 2: every rank reads the labels; rank 0 writes rows in them; a missing root is one line, exit 2."""
    import os
    import subprocess
    import sys

    pytest.importorskip("mpi4py")
    root_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root_dir, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    G, path = les

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "breadth", *map(str, args)], capture_output=True, text=True,
                              env=env, timeout=600)

    proc = cli("bfs", path, "--root", "Valjean", "--ranks", "2", "--out", tmp_path / "r.csv", "--json",
               tmp_path / "r.json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = read_rows(tmp_path / "r.csv")
    assert {r["vertex"]: int(r["depth"]) for r in rows} == nx.single_source_shortest_path_length(G, "Valjean")
    assert json.loads((tmp_path / "r.json").read_text())["roots"] == ["Valjean"]
    proc = cli("bfs", path, "--root", "Nobody", "--ranks", "2")
    assert proc.returncode == 2
    assert proc.stderr.count("root 'Nobody' does not exist: les.npz names its 77 vertices") == 1
