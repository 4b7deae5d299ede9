"""``breadth doctor --hostfile`` without a cluster: its options, hostfile errors, and how it
reads mpiexec's failures (the checks on real hosts are tests/cluster/test_doctor_hosts.py)."""
import pytest

from breadth.cli import main
from breadth.cli.hostcheck import _reason, job_estimate, local_probe

PRRTE_FAILURE = """[h1:02024] plm:ssh: Warning: setpgid(2042,2042) failed in parent with errno=Permission denied(13)
------------------------------------------------------------
A daemon failed to report back after being spawned. This could
be due to several factors, including inability to find the
daemon executable.

  Local host:    h1
  Remote host:   127.77.0.12
  Daemon exit status: 1
------------------------------------------------------------
"""


def test_reason_is_one_line():
    assert _reason(PRRTE_FAILURE) == ("A daemon failed to report back after being spawned. "
                                      "(Daemon exit status: 1)")
    assert _reason("ssh: connect to host n7 port 22: No route to host\n") == \
        "ssh: connect to host n7 port 22: No route to host"
    assert _reason("") == "no output"


@pytest.mark.parametrize("args,needle", [
    (["doctor", "--scale", "20"], "--scale goes with --hostfile"),
    (["doctor", "--hostfile", "/nonexistent/hosts"], "cannot read hostfile /nonexistent/hosts"),
])
def test_usage_errors_one_line(capsys, args, needle):
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0], err


def test_local_probe_and_estimate():
    p = local_probe()
    assert p["breadth"] and p["numba"] and p["memory"]["available_bytes"] > 0 and p["interfaces"]
    assert job_estimate(20, 16, 4, "1d", None) > job_estimate(20, 16, 8, "1d", None) > 0
