"""``breadth msbfs`` and ``breadth closeness``: outputs equal the API, bad input is one line + exit 2."""
import json

import numpy as np
import pytest

import breadth
from breadth.cli import main
from breadth.multisource import closeness, harmonic_centrality, msbfs, multi_bfs


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("g") / "k10.npz"
    breadth.save(breadth.kronecker(10, seed=9), path)
    return path


@pytest.fixture(scope="module")
def graph(graph_file):
    return breadth.load(graph_file)


def test_msbfs_json_and_depth_output(graph_file, graph, tmp_path, capsys):
    src = tmp_path / "s.txt"
    src.write_text("# sources\n3, 5 700\n1023\n5\n")
    out = tmp_path / "d.npy"
    assert main(["msbfs", str(graph_file), "--sources", str(src), "--output", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    sources = np.array([3, 5, 700, 1023, 5])
    ref = msbfs(graph, sources)
    assert data["per_source"]["source"] == sources.tolist()
    assert data["per_source"]["reached"] == ref.reached.tolist()
    assert data["output"]["unreachable"] == 255 and data["output"]["dtype"] == "uint8"
    np.testing.assert_array_equal(np.load(out), multi_bfs(graph, sources))
    assert data["graph"]["vertices"] == 1024 and data["ranks"] == 1


def test_msbfs_sample_text_output(graph_file, graph, tmp_path, capsys):
    npy = tmp_path / "s.npy"
    np.save(npy, np.array([1, 2, 3]))
    assert main(["msbfs", str(graph_file), "--sources", str(npy), "--groupby", "random", "--max-depth", "2"]) == 0
    line = capsys.readouterr().out
    assert line.startswith("msbfs sources=3 groups=1") and "sharing_degree" in line
    assert main(["msbfs", str(graph_file), "--sample", "100", "--seed", "4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    picked = np.array(data["per_source"]["source"])
    assert picked.size == 100 and np.unique(picked).size == 100 and np.all(graph.degree()[picked] > 0)


def test_closeness_outputs(graph_file, graph, tmp_path, capsys):
    csv, npy = tmp_path / "c.csv", tmp_path / "c.npy"
    assert main(["closeness", str(graph_file), "--output", str(csv), "--top", "3"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].startswith("closeness sources=1024") and len(text) == 5 and text[1].split() == ["rank", "vertex", "closeness"]
    table = np.loadtxt(csv, delimiter=",", skiprows=1)
    ref = closeness(graph)
    np.testing.assert_array_equal(table[:, 0], np.arange(1024))
    np.testing.assert_allclose(table[:, 1], ref, rtol=1e-15)
    assert int(text[2].split()[1]) == int(np.argmax(ref))
    assert main(["closeness", str(graph_file), "--measure", "harmonic", "--sample", "50", "--output", str(npy),
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    picked = np.array(data["scores"]["vertex"])
    np.testing.assert_allclose(np.load(npy), harmonic_centrality(graph, picked), rtol=1e-15)
    assert data["measure"] == "harmonic" and len(data["top"]) == 10
    assert main(["closeness", str(graph_file), "--no-wf", "--all", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(data["scores"]["score"], closeness(graph, wf_improved=False), rtol=1e-15)


@pytest.mark.parametrize("argv,message", [
    (["msbfs", "{g}.missing", "--all"], "no such file"),
    (["msbfs", "{g}", "--sources", "{t}/none.txt"], "no such file"),
    (["msbfs", "{g}", "--sources", "{t}/bad.txt"], "not a list of vertex ids"),
    (["msbfs", "{g}", "--sources", "{t}/out.txt"], "does not exist"),
    (["msbfs", "{g}", "--sample", "5000"], "only"),
    (["msbfs", "{g}", "--sample", "0"], "positive"),
    (["msbfs", "{g}", "--all", "--output", "{t}/d.txt"], ".npy"),
    (["msbfs", "{g}", "--all", "--words", "1", "--group-size", "100"], "exceeds"),
    (["msbfs", "{g}", "--all", "--p", "4,x"], "--p"),
    (["msbfs", "{g}", "--all", "--threads", "0"], "--threads"),
    (["closeness", "{g}", "--output", "{t}/c.txt"], ".npy or .csv"),
    (["closeness", "{g}", "--top", "-1"], "--top"),
])
def test_bad_input_is_one_line(graph_file, tmp_path, capsys, argv, message):
    (tmp_path / "bad.txt").write_text("1 2 x\n")
    (tmp_path / "out.txt").write_text("1 2 99999\n")
    argv = [a.format(g=graph_file, t=tmp_path) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and err[0].startswith(f"breadth {argv[0]}: error:")


def test_checkpoint_mismatch_is_one_line(graph_file, tmp_path, capsys):
    ck = str(tmp_path / "ck")
    assert main(["msbfs", str(graph_file), "--sample", "10", "--checkpoint", ck]) == 0
    capsys.readouterr()
    assert main(["msbfs", str(graph_file), "--sample", "11", "--checkpoint", ck]) == 2
    assert "belongs to another run" in capsys.readouterr().err


def test_sources_are_required_for_msbfs(graph_file, capsys):
    with pytest.raises(SystemExit):
        main(["msbfs", str(graph_file)])
    assert "one of the arguments" in capsys.readouterr().err
