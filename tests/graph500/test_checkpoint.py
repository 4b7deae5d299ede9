"""Graph500 checkpoints: every completed search recorded atomically; --resume skips them and reports the
same roots, nedge and validation; a checkpoint of other parameters or another graph is refused."""
import json
import os

import pytest

from breadth.cli import main
from breadth.graph500 import Graph500Config, LocalEngine, run_benchmark
from breadth.graph500.checkpoint import FILE, Checkpoint

ARGS = ["graph500", "--scale", "9", "--roots", "8", "--seed", "3", "--quiet"]


def _run(capsys, *extra):
    code = main(ARGS + list(extra))
    out, err = capsys.readouterr()
    return code, out, err


def _report(out: str) -> dict:
    return dict(line.split(":", 1) for line in out.splitlines() if ":" in line)


def test_checkpoint_then_resume_gives_the_same_report(tmp_path, capsys):
    ckpt = tmp_path / "ckpt"
    code, full, _ = _run(capsys, "--checkpoint", str(ckpt), "--json", str(tmp_path / "full.json"))
    assert code == 0
    data = json.loads((ckpt / FILE).read_text())
    assert sorted(data["searches"], key=int) == [str(i) for i in range(8)]
    assert data["params"]["scale"] == 9 and len(data["fingerprint"]) == 32
    assert all(s["validation"] == "passed" for s in data["searches"].values())
    assert not [n for n in os.listdir(ckpt) if n != FILE]            # no temporary file left

    # as if the run had died after 3 searches: keep only those records
    data["searches"] = {k: v for k, v in data["searches"].items() if int(k) < 3}
    (ckpt / FILE).write_text(json.dumps(data))
    code, resumed, _ = _run(capsys, "--checkpoint", str(ckpt), "--resume", "--json", str(tmp_path / "res.json"))
    assert code == 0, resumed
    a, b = json.loads((tmp_path / "full.json").read_text()), json.loads((tmp_path / "res.json").read_text())
    assert a["roots"] == b["roots"] and a["nedges"] == b["nedges"] and a["nedge"] == b["nedge"]
    assert b["validated"] and b["resumed"] == [0, 1, 2] and b["NBFS"] == 8
    assert b["times"][:3] == a["times"][:3]                           # recorded, not measured again
    assert "resumed" in _report(resumed) and "3 of 8 searches" in resumed and "over the 5 run now" in resumed
    assert len(json.loads((ckpt / FILE).read_text())["searches"]) == 8


def test_refusals(tmp_path, capsys):
    ckpt = tmp_path / "ckpt"
    assert _run(capsys, "--checkpoint", str(ckpt))[0] == 0
    code, _, err = _run(capsys, "--checkpoint", str(ckpt))           # a fresh run over a recorded one
    assert code == 2 and "already holds a run" in err and "--resume" in err
    code, _, err = _run(capsys, "--resume")
    assert code == 2 and "give --checkpoint" in err
    code, _, err = _run(capsys, "--checkpoint", str(tmp_path / "none"), "--resume")
    assert code == 2 and "nothing to resume" in err
    code, _, err = main(["graph500", "--scale", "9", "--roots", "6", "--seed", "3", "--quiet", "--checkpoint",
                         str(ckpt), "--resume"]), *capsys.readouterr()
    assert code == 2 and "other parameters" in err and "roots 8 there, 6 here" in err, err
    data = json.loads((ckpt / FILE).read_text())
    data["fingerprint"] = "0" * 32
    (ckpt / FILE).write_text(json.dumps(data))
    code, _, err = _run(capsys, "--checkpoint", str(ckpt), "--resume")
    assert code == 2 and "another graph" in err, err
    (ckpt / FILE).write_text("{not json")
    code, _, err = _run(capsys, "--checkpoint", str(ckpt), "--resume")
    assert code == 2 and "not a breadth checkpoint" in err


def test_every_search_recorded_resumes_without_searching(tmp_path):
    config = Graph500Config(scale=8, nroots=4, seed=2)
    params = {"scale": 8, "nroots": 4}
    first = run_benchmark(config, LocalEngine(), progress=False, checkpoint=Checkpoint(tmp_path, params))
    again = run_benchmark(config, LocalEngine(), progress=False,
                          checkpoint=Checkpoint(tmp_path, params, resume=True))
    assert again.resumed == [0, 1, 2, 3] and again.nedges == first.nedges and again.times == first.times
    assert again.as_dict()["bfs_time"] == first.as_dict()["bfs_time"]
