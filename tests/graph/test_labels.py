"""Vertex labels: Graph.vertex_ids, index_of, label_of, has_labels and bfs(by_label=True)."""
import pickle

import numpy as np
import pytest

import breadth
from breadth import Graph, InputError
from breadth.graph import native
import zoo

nx = pytest.importorskip("networkx")


def path_graph(n):
    return Graph.from_edges(np.arange(n - 1), np.arange(1, n), num_vertices=n)


LABELS = {
    "int": [50, 10, 40, 20, 30],
    "str": ["e", "a", "d", "b", "c"],
    "tuple": [(0, 4), (0, 0), (0, 3), (0, 1), (0, 2)],
    "mixed": ["e", 10, (0, 3), 2.5, None],
}


@pytest.mark.parametrize("kind", sorted(LABELS))
def test_index_of_and_label_of(kind):
    labels = LABELS[kind]
    g = path_graph(5)
    assert not g.has_labels
    g.vertex_ids = labels
    assert g.has_labels
    assert g.vertex_ids.dtype == (np.int64 if kind == "int" else object)
    for i, x in enumerate(labels):
        assert g.index_of(x) == i and type(g.index_of(x)) is int
        assert g.label_of(i) == x and type(g.label_of(i)) is type(x)
    many = g.index_of(labels[::-1])
    assert many.dtype == np.int64 and many.tolist() == [4, 3, 2, 1, 0]
    assert g.index_of(g.vertex_ids[[1, 3]]).tolist() == [1, 3]           # a numpy array of labels
    assert list(g.label_of([4, 0])) == [labels[4], labels[0]]
    assert list(g.label_of(np.arange(5))) == labels
    assert g.index_of([]).tolist() == [] and list(g.label_of([])) == []
    with pytest.raises(InputError, match=r"label 'nope' is not a vertex of the graph"):
        g.index_of("nope")
    with pytest.raises(InputError, match=r"label 'nope' is not a vertex"):
        g.index_of([labels[0], "nope", "other"])     # names the first unknown label
    with pytest.raises(InputError, match="out of range"):
        g.label_of(5)
    with pytest.raises(InputError, match="out of range"):
        g.label_of([0, -1])


def test_int_labels_vectorised_and_unknown():
    g = path_graph(4)
    g.vertex_ids = np.array([7, 2**40, 3, 9])
    assert g.index_of(np.array([9, 7, 2**40])).tolist() == [3, 0, 1]
    assert g.index_of(np.uint64(3)) == 2
    with pytest.raises(InputError, match="label 8 is not a vertex"):
        g.index_of(np.array([7, 8]))
    with pytest.raises(InputError, match="label 3.0 is not a vertex"):
        g.index_of(3.0)                                  # integer labels are looked up as integers
    with pytest.raises(InputError, match="label '7' is not a vertex"):
        g.index_of("7")
    assert type(g.label_of(1)) is int and g.label_of(1) == 2**40


def test_tuple_is_one_label_and_list_is_several():
    g = Graph.from_networkx(nx.grid_2d_graph(3, 4))
    assert g.index_of((1, 2)) == list(nx.grid_2d_graph(3, 4)).index((1, 2))
    assert g.index_of([(0, 0), (2, 3)]).tolist() == [0, 11]
    with pytest.raises(InputError, match=r"label \(5, 5\) is not a vertex"):
        g.index_of((5, 5))
    with pytest.raises(InputError, match=r"label \[1, 2\] is not a vertex"):
        g.index_of([[1, 2]])                             # unhashable: unknown, not a crash


def test_without_labels_labels_are_ids():
    g = path_graph(3)
    assert g.index_of(2) == 2 and g.index_of([0, 2]).tolist() == [0, 2]
    assert g.label_of(1) == 1 and g.label_of([2, 1]).tolist() == [2, 1]
    with pytest.raises(InputError, match=r"label 3 is not a vertex of the graph \(it has no labels: its "
                                         r"vertices are 0..2\)"):
        g.index_of(3)
    with pytest.raises(InputError, match="label 'a' is not a vertex"):
        g.index_of(["a"])


def test_duplicate_and_bad_labels_refused():
    g = path_graph(3)
    g.vertex_ids = ["a", "b", "a"]
    with pytest.raises(InputError, match="label 'a' more than once"):
        g.index_of("a")
    g.vertex_ids = [4, 5, 4]
    with pytest.raises(InputError, match="label 4 more than once"):
        g.index_of(4)
    with pytest.raises(InputError, match="vertex_ids must be 3 integer ids or labels"):
        g.vertex_ids = ["a", "b"]
    with pytest.raises(InputError, match="dtype float64"):
        g.vertex_ids = np.array([1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="non-negative"):
        Graph(g.indptr, g.indices, vertex_ids=[-1, 0, 1])


def test_replacing_labels_drops_the_index():
    g = path_graph(3)
    g.vertex_ids = ["a", "b", "c"]
    assert g.index_of("c") == 2
    g.vertex_ids = ["c", "b", "a"]
    assert g.index_of("c") == 0
    g.vertex_ids = None
    assert g.index_of(2) == 2 and not g.has_labels


@pytest.mark.parametrize("kind", sorted(LABELS))
def test_bfs_by_label_root_and_seed_set(kind):
    labels = LABELS[kind]
    g = path_graph(5)
    g.vertex_ids = labels
    r = breadth.bfs(g, labels[2], by_label=True)
    assert r.root == 2 and r.depth.tolist() == [2, 1, 0, 1, 2]
    assert list(g.label_of(r.parent[[0, 1]])) == [labels[1], labels[2]]
    s = breadth.bfs(g, [labels[0], labels[4]], by_label=True)
    assert s.roots.tolist() == [0, 4] and s.depth.tolist() == [0, 1, 2, 1, 0]
    with pytest.raises(InputError, match="is not a vertex"):
        breadth.bfs(g, "missing", by_label=True)
    with pytest.raises(InputError, match="root set is empty"):
        breadth.bfs(g, [], by_label=True)


def test_bfs_by_label_without_labels_uses_ids():
    g = path_graph(4)
    assert breadth.bfs(g, 3, by_label=True).depth.tolist() == breadth.bfs(g, 3).depth.tolist()


@pytest.mark.parametrize("case", list(zoo.graphs()), ids=lambda c: c[0])
def test_networkx_string_labels_bfs_parents_match_layers(case):
    """networkx string-labelled graph -> breadth.bfs by label -> parents in labels == networkx's layers."""
    name, src, dst, n, directed, root = case
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(f"v{i}" for i in np.random.default_rng(n).permutation(n))   # node order != ids
    G.add_edges_from((f"v{u}", f"v{v}") for u, v in zip(src.tolist(), dst.tolist()))
    g = Graph.from_networkx(G)
    label = f"v{root}"
    r = breadth.bfs(g, label, by_label=True)
    depth_of = {v: d for d, layer in enumerate(nx.bfs_layers(G, label)) for v in layer}
    reached = np.flatnonzero(r.parent >= 0)
    names, parents = g.label_of(reached).tolist(), g.label_of(r.parent[reached]).tolist()
    assert set(names) == set(depth_of)
    for v, p in zip(names, parents):
        assert r.depth[g.index_of(v)] == depth_of[v]
        if v == label:
            assert p == label
        else:
            assert depth_of[p] == depth_of[v] - 1 and G.has_edge(p, v)


def test_files_refuse_object_labels(tmp_path):
    g = Graph.from_networkx(nx.Graph([("a", "b"), ("b", "c")]))
    with pytest.raises(InputError, match="native files store integer vertex ids only; this graph's labels are str"):
        native.save(g, tmp_path / "g.npz")
    with pytest.raises(InputError, match="native files store integer"):
        breadth.write(g, tmp_path / "g2.npz")
    with pytest.raises(InputError, match="original_ids=True writes integer ids"):
        breadth.write(g, tmp_path / "g.txt", original_ids=True)
    with pytest.raises(InputError, match="original_ids must be a 1-D integer array"):
        breadth.write_result(tmp_path / "r.csv", np.zeros(3, np.int64), np.zeros(3, np.int64),
                             original_ids=g.vertex_ids)
    assert not any(tmp_path.iterdir())
    breadth.write(g, tmp_path / "g.txt")                 # dense ids are fine
    assert breadth.read(tmp_path / "g.txt").num_edges == 2


def test_int_labels_survive_native_and_pickle(tmp_path):
    G = nx.path_graph([30, 10, 20])
    g = Graph.from_networkx(G)
    native.save(g, tmp_path / "g.npz")
    assert native.load(tmp_path / "g.npz").vertex_ids.tolist() == [30, 10, 20]
    d = Graph.from_networkx(nx.DiGraph([("x", "y"), ("y", "z")]))
    back = pickle.loads(pickle.dumps(d))                 # lazy in-edges are built first
    assert back.vertex_ids.tolist() == ["x", "y", "z"] and back.in_neighbors(1).tolist() == [0]
    assert back.index_of("z") == 2
