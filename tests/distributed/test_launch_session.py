"""Each launch runs in a session directory of its own: files a killed mpiexec left do not stop the next."""
import os
import socket
import subprocess
import sys

from mpi_helpers import ROOT, _mpiexec, mpi_env

from breadth.distributed.launch import TMPDIR_VAR, private_session, sweep_sessions


def _stale_session_files(base, count=3000):
    """In ``base``, the session files a killed mpiexec leaves (Open MPI 5: ``ompi.PID/pmix.HOST.tool``),
    for each of the next ``count`` process ids: the next mpiexec started in ``base`` lands on one."""
    with open("/proc/sys/kernel/ns_last_pid") as f:
        last = int(f.read())
    with open("/proc/sys/kernel/pid_max") as f:
        top = int(f.read())
    host = socket.gethostname()
    for step in range(1, count + 1):
        pid = last + step if last + step < top else 300 + (last + step - top)   # Linux wraps past 300
        folder = base / f"ompi.{pid}"
        folder.mkdir(exist_ok=True)
        (folder / f"pmix.{host}.tool").touch()


def test_files_a_killed_mpiexec_left_do_not_stop_the_next_launch(tmp_path):
    exe, _ = _mpiexec()
    _stale_session_files(tmp_path)
    env = mpi_env(**{TMPDIR_VAR: str(tmp_path)})
    bare = subprocess.run([exe, "-n", "1", "true"], capture_output=True, text=True, timeout=120, env=env)
    assert bare.returncode != 0, "stale session files no longer stop a bare mpiexec: the test lost its point"
    proc = subprocess.run([sys.executable, "-m", "breadth", "graph500", "--scale", "8", "--roots", "2", "--ranks", "2",
                           "--quiet"], capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not [p for p in os.listdir(tmp_path) if p.startswith("breadth-mpi-")], "the session directory was left"


def test_private_session_is_fresh_and_removed(tmp_path):
    with private_session({TMPDIR_VAR: str(tmp_path)}) as first, private_session({}) as second:
        a, b = first[TMPDIR_VAR], second[TMPDIR_VAR]
        assert os.path.dirname(a) == str(tmp_path) and os.path.isdir(a) and os.path.isdir(b) and a != b
        with open(os.path.join(a, "left"), "w"):
            pass
    assert not os.path.exists(a) and not os.path.exists(b)


def test_a_killed_launchers_session_is_swept_by_the_next(tmp_path):
    killed = tmp_path / "breadth-mpi-killed"
    (killed / "ompi.4242").mkdir(parents=True)
    (killed / ".owner").touch()
    os.utime(killed, (0, 0))
    with private_session({TMPDIR_VAR: str(tmp_path)}) as env:
        live = env[TMPDIR_VAR]
        assert not killed.exists()
        os.utime(live, (0, 0))                     # old, but its launcher holds it
        assert sweep_sessions(str(tmp_path)) == []
        assert os.path.isdir(live)
    young = tmp_path / "breadth-mpi-young"
    young.mkdir()
    (young / ".owner").touch()
    assert sweep_sessions(str(tmp_path)) == [] and young.exists()    # a launcher may be about to lock it
