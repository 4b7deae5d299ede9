"""The stall watchdog's bound and heartbeat, and the launcher's filter of mpiexec's stderr (no MPI)."""
import io

import pytest

from breadth.distributed.faults import watchdog
from breadth.distributed.faults.mpilog import MpiexecOutput, failure_line
from breadth.distributed.faults.watchdog import Heartbeat, check_stall_timeout, watchdog_bound
from breadth.errors import InputError


def test_bound_follows_the_slowest_level_after_the_first_search():
    hb = Heartbeat()
    assert watchdog_bound(hb) == watchdog.SETUP_FLOOR            # construction: the generous floor
    hb.phase = "search"
    assert watchdog_bound(hb) == watchdog.DEFAULT_FLOOR
    hb.begin_search()                                            # the first search compiles: not counted
    hb.level_started -= 100
    hb.next_level()
    hb.level_started -= 100
    hb.end_search()
    assert hb.slowest_level == 0 and watchdog_bound(hb) == watchdog.DEFAULT_FLOOR
    hb.begin_search()
    hb.next_level()
    hb.level_started -= 3.0                                      # a 3-second level in the second search
    hb.end_search()
    assert hb.slowest_level >= 3.0
    assert watchdog_bound(hb) == pytest.approx(watchdog.DEFAULT_MULTIPLE * hb.slowest_level)
    assert watchdog_bound(hb, stall_timeout=7.5) == 7.5


def test_where_names_the_phase_in_the_users_terms():
    hb = Heartbeat()
    hb.phase = "construct"
    assert hb.where() == "construction"
    hb.phase = "search"
    hb.begin_search()
    hb.next_level()
    hb.next_level()
    assert hb.where() == "search 1, level 2"
    hb.end_search()
    hb.phase = "validate"
    assert hb.where() == "validation of search 1"
    hb.phase = "report"
    assert hb.where() == "reporting of search 1"
    hb.phase = "setup"
    assert hb.where() == "after search 1"


def test_stall_timeout_checked():
    assert check_stall_timeout(None) is None
    assert check_stall_timeout("2.5") == 2.5
    assert check_stall_timeout(0) == 0
    for bad in (-1, "soon", float("nan"), float("inf")):
        with pytest.raises(InputError, match="stall_timeout"):
            check_stall_timeout(bad)


def test_no_watchdog_for_one_rank_or_zero_timeout():
    assert watchdog.start_watchdog(0, 1) is False
    assert watchdog.start_watchdog(0, 4, stall_timeout=0) is False


def _filtered(*chunks):
    log, sink = io.StringIO(), io.StringIO()
    out = MpiexecOutput(log, sink)
    for c in chunks:
        out.feed(c)
    out.close()
    return out, log.getvalue(), sink.getvalue()


KILLED = ("--------------------------------------------------------------------------\n"
          "prterun noticed that process rank 2 with PID 4242 on node h3 exited on\n"
          "signal 9 (Killed).\n"
          "--------------------------------------------------------------------------\n")
LOST = ("--------------------------------------------------------------------------\n"
        "PRTE has lost communication with a remote daemon.\n\n"
        "  HNP daemon   : [prterun-h1-77@0,0] on node h1\n"
        "  Remote daemon: [prterun-h1-77@0,2] on node h3\n\n"
        "This is usually due to either a failure of the TCP network\n"
        "--------------------------------------------------------------------------\n")


def test_open_mpi_text_goes_to_the_log_and_ranks_text_through():
    out, log, shown = _filtered("graph500: BFS  5%|\r", "graph500: BFS 10%|", "\nnote from a rank\n", KILLED,
                                "[h1:4242] *** Process received signal ***\n")
    assert "note from a rank" in shown and "graph500: BFS 10%" in shown
    assert "prterun" not in shown and "-----" not in shown and "[h1:4242]" not in shown
    assert "prterun noticed" in log and "[h1:4242]" in log
    line = failure_line(out, 137, "/tmp/x.log", {0: {"where": "search 4, level 2"}, 2: {"where": "search 4"}})
    assert line == ("breadth: the MPI job failed: rank 2 on host h3 was killed by signal 9 (SIGKILL), during "
                    "search 4, level 2; Open MPI's messages: /tmp/x.log")


def test_lost_host_named():
    out, _, shown = _filtered(LOST)
    assert shown == ""
    line = failure_line(out, 1, "/tmp/x.log")
    assert "lost contact with host h3" in line and "/tmp/x.log" in line


def test_first_rank_failure_becomes_the_one_message():
    stall = "breadth: rank {} of 3 (host h{}) stalled in search 2, level 1: waited 5 s in Alltoallv (exchange)\n"
    out, _, shown = _filtered(stall.format(1, 2), "MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD\n",
                              stall.format(2, 3))
    assert shown == ""
    line = failure_line(out, 1, "/tmp/x.log")
    assert line.startswith("breadth: the MPI job failed: rank 1 of 3 (host h2) stalled in search 2, level 1")


def test_open_mpi_failing_at_start_says_why_and_is_no_signal():
    listener = ("--------------------------------------------------------------------------\n"
                "The PMIx server's listener thread failed to start. We cannot\n"
                "continue.\n"
                "--------------------------------------------------------------------------\n")
    out, _, shown = _filtered(listener)
    assert shown == ""
    assert failure_line(out, 213, "/tmp/x.log") == (
        "breadth: the MPI job failed: mpiexec exited with status 213: The PMIx server's listener thread "
        "failed to start. We cannot continue; Open MPI's messages: /tmp/x.log")
    bare, _, _ = _filtered("")
    assert failure_line(bare, 137, "/tmp/x.log") == (
        "breadth: the MPI job failed: mpiexec ended by signal 9 (SIGKILL); Open MPI's messages: /tmp/x.log")
    assert failure_line(bare, 3 + 128 + 64, "/tmp/x.log").startswith(
        "breadth: the MPI job failed: mpiexec exited with status 195;")


def test_errors_every_rank_reported_need_no_summary():
    out, _, shown = _filtered("breadth graph500: error: --edgefactor must be >= 1\n", KILLED)
    assert shown == "breadth graph500: error: --edgefactor must be >= 1\n"
    assert failure_line(out, 2, "/tmp/x.log") is None
    assert failure_line(out, 0, "/tmp/x.log") is None


def test_only_the_early_searches_teach_the_bound():
    hb = Heartbeat()
    for search in range(1, 3 + watchdog.LEARN_SEARCHES):
        hb.begin_search()
        hb.next_level()
        hb.level_started -= 1.0 if search <= 1 + watchdog.LEARN_SEARCHES else 50.0   # then a crawl
        hb.end_search()
    assert 1.0 <= hb.slowest_level < 2.0                    # the crawling search did not raise the bound


def test_a_failure_line_left_in_a_status_file_stands_for_one_open_mpi_dropped(tmp_path):
    import json

    from breadth.distributed.faults.mpilog import status_messages

    stall = "breadth: rank 2 of 3 (host h3) stalled in search 7: waited 5 s in Barrier (control) for the other ranks"
    (tmp_path / "rank2.json").write_text(json.dumps({"rank": 2, "host": "h3", "where": "search 7", "message": stall}))
    (tmp_path / "rank0.json").write_text(json.dumps({"rank": 0, "host": "h1", "where": "search 7"}))
    assert status_messages(str(tmp_path)) == [stall] and status_messages(None) == []
    log = io.StringIO()
    out = MpiexecOutput(log, io.StringIO())
    out.report(stall)
    out.report(stall)                       # polled again: still one failure
    assert out.failed_at is not None and out.rank_failures == [stall] and "status file" in log.getvalue()
    assert failure_line(out, 1, "/tmp/x.log").startswith("breadth: the MPI job failed: rank 2 of 3 (host h3) stalled")


@pytest.mark.parametrize("abort", ["time.sleep(60)", "return None"])
def test_hard_abort_ends_the_process_when_abort_hangs_or_returns(abort):
    """MPI_Abort has hung in some Open MPI releases: the rank then exits on its own, with the code."""
    import subprocess
    import sys
    import time

    script = ("import time\nfrom breadth.distributed.faults import watchdog\nwatchdog.ABORT_GRACE = 0.5\n"
              f"class Stuck:\n    def Abort(self, code):\n        {abort}\nwatchdog.hard_abort(Stuck(), 7)\n"
              "print('returned')\n")
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 7 and "returned" not in proc.stdout, proc.stderr
    assert time.monotonic() - t0 < 30
