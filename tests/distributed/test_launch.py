"""--ranks: rebuilding the command line, the mpiexec command, and the checks on distributed options."""
import argparse

import pytest

from breadth.cli import build_parser
from breadth.cli.dist_options import comm_summary, format_comm, partition_mode
from breadth.distributed.launch import mpiexec_command, mpiexec_env, relaunch_argv, unparse
from breadth.errors import InputError


@pytest.mark.parametrize("argv", [
    ["graph500", "--scale", "12", "--roots", "8", "--exchange", "butterfly", "--fanout", "2", "--ranks", "4"],
    ["graph500", "--scale", "10", "--no-validate", "--alpha", "-1.5", "--json", "-", "--ranks", "2"],
    ["graph500", "--scale", "10", "--stream", "--ranks", "2"],
    ["graph500", "--scale", "10", "--tuple-list", "--ranks", "2"],
    ["bfs", "g.npz", "--root", "3", "7", "--validate", "--json", "--max-depth", "4", "--ranks", "3",
     "--exchange", "alltoall", "--threads", "1"],
    ["bfs", "g.npz", "--root", "0", "--json", "out.json", "--algorithm", "td", "--ranks", "2", "--hostfile", "h"],
])
def test_unparse_round_trips(argv):
    parser = build_parser()
    args = parser.parse_args(argv)
    sub = args.parser
    tokens = unparse(sub, args, drop=("ranks", "hostfile"))
    again = parser.parse_args([args.command] + tokens)
    for key, value in vars(args).items():
        if key not in ("ranks", "hostfile"):
            assert getattr(again, key) == value, key
    assert again.ranks is None and again.hostfile is None


def test_mpiexec_command_oversubscribes_only_beyond_cores():
    cmd = mpiexec_command(4, ["graph500", "--scale", "10"], "/x/mpiexec", "openmpi", cores=2)
    assert cmd[:4] == ["/x/mpiexec", "-n", "4", "--oversubscribe"]
    assert cmd[-5:] == ["-m", "breadth", "graph500", "--scale", "10"]
    assert "--oversubscribe" not in mpiexec_command(2, [], "/x/mpiexec", "openmpi", cores=2)
    assert "--oversubscribe" not in mpiexec_command(8, [], "/x/mpiexec", "mpich", cores=2)
    hosts = mpiexec_command(8, [], "/x/mpiexec", "openmpi", hostfile="hosts", cores=2)
    assert hosts[3:5] == ["--hostfile", "hosts"] and "--oversubscribe" not in hosts


def test_root_may_run_open_mpi(monkeypatch):
    monkeypatch.delenv("OMPI_ALLOW_RUN_AS_ROOT", raising=False)
    monkeypatch.setattr("os.geteuid", lambda: 0)
    env = mpiexec_env("openmpi")
    assert env["OMPI_ALLOW_RUN_AS_ROOT"] == "1" and env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] == "1"
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    assert "OMPI_ALLOW_RUN_AS_ROOT" not in mpiexec_env("openmpi")


def test_an_aborting_rank_waits_so_that_mpiexec_names_a_dead_peer(monkeypatch):
    # a survivor whose connection to a killed rank closed aborts after the delay, by which time the
    # dead rank's daemon has reported the death (tests/cluster/test_faults.py: the failure line
    # names the killed rank's host); a user's own setting stands
    monkeypatch.delenv("OMPI_MCA_mpi_abort_delay", raising=False)
    assert mpiexec_env("openmpi")["OMPI_MCA_mpi_abort_delay"] == "2"
    assert "OMPI_MCA_mpi_abort_delay" not in mpiexec_env("mpich")
    monkeypatch.setenv("OMPI_MCA_mpi_abort_delay", "0")
    assert mpiexec_env("openmpi")["OMPI_MCA_mpi_abort_delay"] == "0"


def _args(**kw):
    base = dict(partition="auto", exchange=None, fanout=1, ranks=None, hostfile=None)
    base.update(kw)
    return argparse.Namespace(**base)


def test_partition_mode(monkeypatch):
    for key in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"):
        monkeypatch.delenv(key, raising=False)
    assert partition_mode(_args()) == "none"
    assert partition_mode(_args(ranks=3)) == "auto"
    assert partition_mode(_args(ranks=1)) == "1d"
    assert partition_mode(_args(ranks=3, exchange="alltoall")) == "1d"
    assert partition_mode(_args(ranks=3, grid="2x2")) == "2d"
    assert partition_mode(_args(partition="1d", exchange="alltoall")) == "1d"
    assert partition_mode(_args(ranks=2, partition="1d", exchange="butterfly", fanout=3)) == "1d"
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "4")
    assert partition_mode(_args()) == "auto"
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "1")
    assert partition_mode(_args()) == "none"


@pytest.mark.parametrize("kw,message", [
    (dict(ranks=0), "--ranks must be >= 1"),
    (dict(ranks=2, partition="none"), "--partition 1d"),
    (dict(hostfile="h"), "--hostfile goes with --ranks"),
    (dict(exchange="alltoall"), "--exchange applies to distributed runs"),
    (dict(fanout=2), "--fanout applies to --exchange butterfly"),
    (dict(partition="1d", fanout=0), "--fanout must be >= 1"),
    (dict(partition="1d", exchange="alltoall", fanout=2), "--fanout applies to --exchange butterfly"),
])
def test_inconsistent_options_refused(kw, message, monkeypatch):
    monkeypatch.delenv("OMPI_COMM_WORLD_SIZE", raising=False)
    with pytest.raises(InputError, match=message):
        partition_mode(_args(**kw))


def test_partition_none_under_mpiexec_refused(monkeypatch):
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "3")
    with pytest.raises(InputError, match="mpiexec started 3"):
        partition_mode(_args(partition="none"))


def test_comm_summary_means_and_totals():
    def search(m, b):
        return {"communication": {"exchange": "butterfly", "fanout": 1, "ranks": 2, "messages": m, "bytes": b,
                                  "comm_seconds": 0.5, "exchange_messages": m, "exchange_bytes": b,
                                  "control_messages": 0, "control_bytes": 0, "levels": [{}, {}, {}]}}
    s = comm_summary([search(4, 100), search(6, 300)], {"exchange": {"messages": 2, "bytes": 10, "seconds": 0},
                                                         "control": {"messages": 1, "bytes": 8, "seconds": 0}})
    assert s["messages_per_search"] == 5 and s["bytes_per_search"] == 200 and s["total_messages"] == 10
    assert s["levels_per_search"] == 3
    text = format_comm(s)
    assert "butterfly, fanout 1, 2 ranks" in text and "construction_bytes:" in text and "18" in text
    assert comm_summary([{}]) == {}


@pytest.mark.parametrize("argv,partition", [
    (["bfs", "g.npz", "--root", "3", "--ranks", "2"], "auto"),
    (["bfs", "g.npz", "--root", "3", "--ranks", "1"], "1d"),
    (["bfs", "g.npz", "--root", "3", "--ranks", "2", "--partition", "1d", "--exchange", "alltoall"], "1d"),
    (["graph500", "--scale", "9", "--ranks", "4", "--partition", "auto"], "auto"),
])
def test_relaunch_passes_the_partition(argv, partition):
    parser = build_parser()
    args = parser.parse_args(argv)
    sub = args.parser
    tokens = relaunch_argv(sub, args, args.command)
    assert tokens[0] == args.command and tokens.count(f"--partition={partition}") == 1
    assert not any(t.startswith("--ranks") for t in tokens)
    again = parser.parse_args(tokens)
    assert again.partition == partition and again.exchange == args.exchange and again.ranks is None


def test_partition_choices_come_from_the_registry():
    from breadth.distributed import registry

    parser = build_parser()
    bfs_parser = parser.parse_args(["bfs", "g.npz", "--root", "0"]).parser
    action = next(a for a in bfs_parser._actions if a.dest == "partition")
    assert tuple(action.choices) == ("auto", "none") + registry.partitions()
    action = next(a for a in bfs_parser._actions if a.dest == "exchange")
    assert tuple(action.choices) == registry.exchanges() and action.default is None
    assert parser is not None


@pytest.mark.parametrize("api,cli", [
    ("nroots must be >= 1, got 0", "--roots must be >= 1, got 0"),
    ("fanout must be a positive integer, got 0", "--fanout must be a positive integer, got 0"),
    ("threads must be an integer between 1 and 2, got 9", "--threads must be an integer between 1 and 2, got 9"),
])
def test_engine_errors_reach_the_cli_as_flags(api, cli):
    from breadth.cli.messages import translate

    assert translate(api) == cli


def test_graph500_bad_roots_names_the_flag(capsys):
    from breadth.cli import main

    assert main(["graph500", "--scale", "5", "--roots", "0", "--quiet"]) == 2
    assert "error: --roots must be >= 1, got 0" in capsys.readouterr().err
