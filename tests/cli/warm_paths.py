"""The commands and code of the README and the user guide, run in one process that records every
numba compilation (``numba:compile`` events: real compilations, not cache loads).

    python tests/cli/warm_paths.py WORKDIR      # prints one JSON line: {"compiled": [[step, function, signature], ...]}

Run after ``breadth warmup`` with the same ``NUMBA_CACHE_DIR``, the list must be empty
(``tests/cli/test_warmup.py``). Inputs are small files the script writes into WORKDIR first; bad
inputs among them must be refused (exit 2) without compiling either.
"""
from __future__ import annotations

import gzip
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (step, argv of `breadth`): the README's quick start and the guide's examples, on small inputs
COMMANDS = [
    ["generate", "kronecker", "--scale", "10", "-o", "k.npz"],
    ["bfs", "k.npz", "--root", "0", "--validate", "--out", "result.csv"],
    ["bfs", "k.npz", "--root", "0", "--validate", "--out", "depth.npy", "--parents", "parent.npy"],
    ["bfs", "k.npz", "--root", "0", "5", "9", "--max-depth", "3", "--json", "bfs.json"],
    ["bfs", "k.npz", "--root", "0", "--algorithm", "td"],
    ["bfs", "k.npz", "--root", "0", "--algorithm", "bu"],
    ["info", "k.npz"],
    ["convert", "web.txt.gz", "web.npz", "--relabel"],
    ["convert", "web.npz", "web.mtx"],
    ["convert", "web.txt.gz", "webd.npz", "--directed", "--relabel"],
    ["info", "web.npz"],
    ["info", "web.txt.gz", "--relabel", "--samples", "8", "--json", "info.json"],
    ["info", "web.mtx"],
    ["bfs", "web.npz", "--root", "10", "--validate", "--out", "web.csv"],
    ["bfs", "webd.npz", "--root", "10", "--validate", "--out", "webd.csv"],
    ["bfs", "web.mtx", "--root", "0", "--validate"],
    ["closeness", "k.npz", "--top", "10"],
    ["closeness", "k.npz", "--measure", "harmonic", "--sample", "50"],
    ["closeness", "web.npz", "--top", "3"],
    ["msbfs", "k.npz", "--sample", "64", "--json", "ms.json"],
    ["msbfs", "k.npz", "--sources", "ids.txt", "--output", "depths.npz"],
    ["msbfs", "web.npz", "--sources", "web-ids.txt", "--output", "web-depths.npz"],
    ["graph500", "--scale", "8", "--roots", "4"],
    ["bfs", "names.txt", "--root", "Valjean", "--out", "names-depths.csv"],
    ["convert", "names.txt", "names.npz"],
    ["convert", "names.csv", "names-bounded.npz", "--spill-dir", "."],
]

# bad inputs a newcomer may give first: each must end with its one line (exit 2) without compiling
BAD_FILES = {"neg.txt": b"0 1\n2 -3\n", "onecol.csv": b"0,1\n1,2\n7\n", "beyond.txt": b"0 1\n1 8\n",
             "binary.txt": b"0 1\n1 \x89PNG\r\x1a\x00\x00\x00\rIHDR" + bytes(range(128, 255)) + b"\n",
             "trunc.g500": b"\0" * 20, "badhdr.mtx": b"%%MatrixMarket matrix cordinate real general\n2 2 1\n1 2 1\n",
             "badgz.txt.gz": gzip.compress(b"".join(b"%d %d\n" % (i * 7919 % 10007, i) for i in range(5000)))[:9000]}
BAD_COMMANDS = [[command, name] + (["--vertices", "5"] if name == "beyond.txt" else [])
                for name in BAD_FILES for command in ("info", "convert")]


def write_inputs(work: str) -> None:
    """A SNAP-style edge list (comments, tabs, gzip, sparse original ids) and source lists."""
    import numpy as np

    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, 300, 2000) * 10, rng.integers(0, 300, 2000) * 10
    lines = ["# Directed graph (each unordered pair of nodes is saved once)", "# FromNodeId\tToNodeId"]
    lines += [f"{a}\t{b}" for a, b in zip(src, dst)]
    with gzip.open(os.path.join(work, "web.txt.gz"), "wt") as f:
        f.write("\n".join(lines) + "\n")
    names = ["Valjean", "Myriel", "Napoleon", "Fantine", "Cosette", "Javert", "Marius", "Gavroche"]
    pairs = [(names[i % 8], names[(3 * i + 1) % 8] + str(i % 5)) for i in range(60)]
    with open(os.path.join(work, "names.txt"), "w") as f:
        f.write("".join(f"{a}\t{b}\n" for a, b in pairs))
    with open(os.path.join(work, "names.csv"), "w") as f:
        f.write("source,target\n" + "".join(f"{a},{b}\n" for a, b in pairs))
    with open(os.path.join(work, "ids.txt"), "w") as f:
        f.write("0 1 2 3 4 5 6 7\n")
    with open(os.path.join(work, "web-ids.txt"), "w") as f:
        f.write(f"{src[0]}\n{dst[0]}\n")
    for name, data in BAD_FILES.items():
        with open(os.path.join(work, name), "wb") as f:
            f.write(data)


def python_blocks(path: str) -> list:
    """The ```python blocks of a Markdown page, in order."""
    text = open(path).read()
    return re.findall(r"^```python[^\n]*\n(.*?)^```[ \t]*$", text, re.S | re.M)


def networkx_calls():
    """Each function of the networkx backend's table (docs/guide/networkx.md), on undirected and directed graphs."""
    import networkx as nx

    nx.config.warnings_to_ignore.add("cache")
    graphs = [nx.les_miserables_graph(), nx.gnp_random_graph(60, 0.05, seed=1, directed=True),
              nx.convert_node_labels_to_integers(nx.karate_club_graph(), first_label=1000)]
    for G in graphs:
        node = next(iter(G))
        other = list(G)[-1]
        b = {"backend": "breadth"}
        list(nx.bfs_edges(G, node, **b)), nx.bfs_tree(G, node, **b), dict(nx.bfs_predecessors(G, node, **b))
        dict(nx.bfs_successors(G, node, **b)), list(nx.bfs_layers(G, [node], **b))
        list(nx.bfs_edges(G, node, depth_limit=2, **b))
        nx.single_source_shortest_path_length(G, node, **b), nx.single_source_shortest_path_length(G, node, 2, **b)
        nx.single_target_shortest_path_length(G, node, **b)
        nx.shortest_path_length(G, node, other, **b), nx.has_path(G, node, other, **b)
        dict(nx.shortest_path_length(G, **b)), dict(nx.all_pairs_shortest_path_length(G, **b))
        nx.descendants(G, node, **b), nx.ancestors(G, node, **b), nx.descendants_at_distance(G, node, 2, **b)
        nx.closeness_centrality(G, **b), nx.harmonic_centrality(G, **b)
        nx.closeness_centrality(G, u=node, **b), nx.harmonic_centrality(G, nbunch=[node], **b)
        if G.is_directed():
            list(nx.weakly_connected_components(G, **b))
            continue
        list(nx.connected_components(G, **b)), nx.number_connected_components(G, **b)
        nx.is_connected(G, **b), nx.node_connected_component(G, node, **b)
        if nx.is_connected(G):
            nx.eccentricity(G, **b), nx.diameter(G, **b), nx.radius(G, **b), nx.center(G, **b)
            nx.periphery(G, **b), nx.diameter(G, usebounds=True, **b)


def _refused(cli, argv) -> int:
    """``breadth ARGV`` on a bad input: 0 when it exits 2 (what it must), else its exit status."""
    rc = cli(argv)
    return 0 if rc == 2 else (rc or 99)


def main(work: str) -> None:
    from breadth.cli import main as cli
    from breadth.jit import compile_events

    os.chdir(work)
    write_inputs(work)
    compiled = []
    steps = [(" ".join(argv), lambda argv=argv: cli(argv + ["--quiet"])) for argv in COMMANDS]
    steps += [(" ".join(argv), lambda argv=argv: _refused(cli, argv + (["out.npz"] if argv[0] == "convert" else [])))
              for argv in BAD_COMMANDS]
    steps += [(f"README.md python block {i}", lambda code=code: exec(code, {"__name__": "__example__"}))
              for i, code in enumerate(python_blocks(os.path.join(ROOT, "README.md")))]
    steps += [(f"docs/guide/networkx.md python block {i}", lambda code=code: exec(code, {"__name__": "__example__"}))
              for i, code in enumerate(python_blocks(os.path.join(ROOT, "docs", "guide", "networkx.md")))]
    steps += [(f"docs/guide/graphs.md python block {i}", lambda code=code: exec(code, {"__name__": "__example__"}))
              for i, code in enumerate(python_blocks(os.path.join(ROOT, "docs", "guide", "graphs.md")))
              if "lesmis" in code]                        # the named edge list example (self-contained)
    steps += [("the networkx backend's functions", networkx_calls)]
    for name, step in steps:
        with compile_events() as rows:
            rc = step()
        if rc:
            raise SystemExit(f"{name}: exit status {rc}")
        compiled += [[name, fn, sig] for fn, sig, _, depth in rows if depth == 0]
    print(json.dumps({"compiled": compiled}))


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1]))
