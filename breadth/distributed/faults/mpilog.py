"""The launcher's side of a failed job (``--ranks``): Open MPI's text to a log, one line to the user.

``MpiexecOutput`` reads one of mpiexec's streams as it comes (Open MPI writes its banners to
stdout or stderr, so the launcher filters both, into one log). Everything goes to the log file;
the ranks' own output (progress bars, notes, tracebacks, ``breadth ... error:`` lines)
goes through to the terminal as it arrives; Open MPI's messages (its dashed banners,
``[host:pid]`` lines, ``prterun ...`` lines) are kept back. A rank's failure line
(``breadth: rank R of P ...``: an abort or the stall watchdog) is kept back too: the
first one becomes the user's message at the end, so several ranks' watchdogs make one line.

``failure_line`` then says what failed in the user's terms: the rank and host Open MPI
named (killed by a signal, its host lost), or the rank's own message, with the phase the
job was in when ranks report it (``watchdog`` writes it to ``$BREADTH_STATUS_DIR``), and
the path of the log holding Open MPI's details.
"""
from __future__ import annotations

import json
import os
import re
import signal
import time

_BANNER = re.compile(r"^-{20,}\s*$")
_MPI_LINE = re.compile(r"^(\s*\[[\w.\-]+:\d+\]|\[warn\]|\[error\]|(prterun|prte|prted|mpiexec|mpirun|orterun)\b|"
                       r"PRTE\b|ORTE\b|PMIX\b|MPI_ABORT\b|\d+ more process(es)? ha(s|ve) sent help message|Set MCA parameter|NOTE: invoking MPI_ABORT|\s+(Process name|Exit code|HNP daemon|Remote daemon|Proc|Errorcode)\b)",
                       re.IGNORECASE)
_ANSI_ONLY = re.compile(r"^(\x1b\[[0-9;]*m)+\s*$")    # Open MPI's colour resets on a line of their own
_RANK_FAILED = re.compile(r"^breadth: rank \d+ of \d+ ")
_KILLED = re.compile(r"process rank (\d+) with PID \d+ on node (\S+) exited on signal (\d+)")
_LOST = re.compile(r"(?:lost communication with a remote daemon.*?Remote daemon\s*:\s*\S+ on node|"
                   r"daemon failed to report back.*?Remote host:)\s*(\S+)", re.S)
_NONZERO = re.compile(r"exited with non-zero status.*?Process name:\s*\[\S*?,(\d+)\].*?Exit code:\s*(\d+)", re.S)
_PEER = re.compile(r"peer process has unexpectedly disconnected.*?Peer host:\s*(\S+)", re.S)
_ABORT = re.compile(r"MPI_ABORT was invoked on rank (\d+)")
_MAX_SIGNAL = 64           # an exit status above 128 + this is mpiexec's own (213: an error it reported), not a signal


class MpiexecOutput:
    """A filter over mpiexec's stderr (``feed`` text as it arrives, then ``close``)."""

    def __init__(self, log, sink, lock=None):
        self.log, self.sink = log, sink
        self.partial = ""
        self.in_banner = False
        self.mpi_text: list[str] = []          # Open MPI's lines, in order
        self.rank_failures: list[str] = []     # "breadth: rank R of P ..." lines
        self.passed_errors: list[str] = []     # "breadth ... error:" lines shown as they came
        self.failed_at = None                  # time.monotonic() of the first rank failure line
        self.lock = _NoLock() if lock is None else lock   # one log file for both streams

    def feed(self, text: str) -> None:
        with self.lock:
            self.log.write(text)
            self.log.flush()
        text = self.partial + text
        *lines, self.partial = text.split("\n")
        for line in lines:
            self._line(line)
        if "\r" in self.partial and not self.in_banner:     # a progress bar redrawing its line
            self.sink.write(self.partial)
            self.sink.flush()
            self.partial = ""

    def report(self, line: str) -> None:
        """A rank's failure line that reached the launcher another way (its status file)."""
        with self.lock:
            if self.log is not None:
                self.log.write(f"[from the rank's status file] {line}\n")
                self.log.flush()
            if line not in self.rank_failures:
                self.rank_failures.append(line)
            if self.failed_at is None:
                self.failed_at = time.monotonic()

    def close(self) -> None:
        if self.partial:
            self._line(self.partial)
            self.partial = ""
        self.sink.flush()

    def _line(self, line: str) -> None:
        line = line.replace("\0", "")
        if _BANNER.match(line):
            self.in_banner = not self.in_banner
            return
        if _ANSI_ONLY.match(line):
            return
        if self.in_banner or _MPI_LINE.match(line) or (not line.strip() and self.mpi_text):
            self.mpi_text.append(line.strip())
            return
        if _RANK_FAILED.match(line):
            self.rank_failures.append(line)
            if self.failed_at is None:
                self.failed_at = time.monotonic()
            return
        if line.startswith("breadth") and " error: " in line:
            self.passed_errors.append(line)
        self.sink.write(line + "\n")
        self.sink.flush()


def merged(outputs) -> MpiexecOutput:
    """One view of several filtered streams (mpiexec's stdout and stderr: Open MPI writes to both)."""
    if isinstance(outputs, MpiexecOutput):
        return outputs
    out = MpiexecOutput(None, None)
    for o in outputs:
        out.mpi_text += o.mpi_text
        out.rank_failures += o.rank_failures
        out.passed_errors += o.passed_errors
    times = [o.failed_at for o in outputs if o.failed_at is not None]
    out.failed_at = min(times) if times else None
    return out


def failure_line(out, code: int, log_path: str, status: dict | None = None) -> str | None:
    """The one line that tells the user why the job failed (None: a rank already said it, e.g. an
    error every rank raised, exit code 2 or 3). ``out``: a ``MpiexecOutput`` or several."""
    out = merged(out)
    if code == 0 or (out.passed_errors and not out.rank_failures):
        return None
    text = " ".join(out.mpi_text)
    where = _where(status)
    killed = _KILLED.search(text)
    lost = _LOST.search(text)
    if out.rank_failures:
        what = out.rank_failures[0].removeprefix("breadth: ").rstrip()
    elif killed:
        rank, host, sig = killed.group(1), killed.group(2), int(killed.group(3))
        what = f"rank {rank} on host {host} was killed by signal {sig} ({_signame(sig)}){where}"
    elif _PEER.search(text):
        host = _PEER.search(text).group(1)
        ranks = sorted(r for r, st in (status or {}).items() if st.get("host") == host)
        who = (f"rank {ranks[0]}" if len(ranks) == 1 else f"ranks {', '.join(map(str, ranks))}") if ranks else "a rank"
        what = (f"{who} on host {host} disconnected{where}: its process died (killed, crashed or out of memory) "
                f"or its host lost the network")
    elif lost:
        what = (f"lost contact with host {lost.group(1)}{where}: its network link is down, or the host "
                f"stopped or failed")
    elif _NONZERO.search(text):
        m = _NONZERO.search(text)
        what = f"rank {m.group(1)} exited with status {m.group(2)}{where}"
    elif code < 0 or 128 < code <= 128 + _MAX_SIGNAL:
        sig = -code if code < 0 else code - 128
        what = f"mpiexec ended by signal {sig} ({_signame(sig)}){where}"
    else:
        what = f"mpiexec exited with status {code}{where}"
        said = _first_sentence(out.mpi_text)
        if said:
            what += f": {said}"
    return f"breadth: the MPI job failed: {what}; Open MPI's messages: {log_path}"


def _first_sentence(lines) -> str:
    """Open MPI's first message, as one line: the first paragraph of its text, up to its first
    full stop (its banners open with the problem, then explain)."""
    words = []
    for line in lines:
        text = re.sub(r"^\[[\w.\-]+:\d+\]\s*", "", line).strip()
        if not text:
            if words:
                break
            continue
        words.append(text)
        if re.search(r"[.!]$", text):
            break
    return " ".join(words)[:200].rstrip(" .")


class _NoLock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _signame(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


def read_status(directory: str | None) -> dict | None:
    """The phase the job was in, from the ranks' status files: {rank: {"host", "where", "waiting"}}."""
    if not directory or not os.path.isdir(directory):
        return None
    found = {}
    for name in os.listdir(directory):
        if name.startswith("rank") and name.endswith(".json"):
            try:
                with open(os.path.join(directory, name)) as f:
                    item = json.load(f)
                found[int(item["rank"])] = item
            except (OSError, ValueError, KeyError, TypeError):
                continue
    return found or None


def exit_of_job(status: dict | None) -> int | None:
    """The job's exit status once every rank has recorded the one it ends with (the largest), else None.
    ``status``: ``read_status``'s records, which carry ``exit`` and the job's ``size``."""
    if not status:
        return None
    size = max(int(st.get("size", 0)) for st in status.values())
    codes = [st.get("exit") for st in status.values()]
    if len(status) < size or any(not isinstance(c, int) for c in codes):
        return None
    return max(codes)


class ExitWatch:
    """Notices a launcher that outlives its job: every rank recorded the status it exits with
    (``exit_of_job``) more than ``grace`` seconds ago, and mpiexec is still running. Open MPI 5's
    runtime can hang so after a finished job (openpmix/prrte#1839)."""

    def __init__(self, directory: str | None, grace: float):
        self.directory, self.grace = directory, grace
        self.code = None            # the ranks' status, once all have recorded it
        self.since = None

    def outlived(self, now: float) -> bool:
        """Whether the grace has run out at time ``now`` (``time.monotonic``); polls the status files."""
        if self.since is None and self.directory:
            self.code = exit_of_job(read_status(self.directory))
            if self.code is not None:
                self.since = now
        return self.since is not None and now - self.since > self.grace

    def note(self, who: str) -> str:
        """The line that says why ``who`` ended mpiexec."""
        return (f"breadth: note: every rank had finished, but mpiexec had not ended {self.grace:g} s later "
                f"(a known Open MPI hang, openpmix/prrte#1839); {who} ended it")


def status_messages(directory: str | None) -> list[str]:
    """The failure lines ranks left in their status files (``watchdog``), in rank order."""
    status = read_status(directory) or {}
    return [status[r]["message"] for r in sorted(status) if isinstance(status[r].get("message"), str)]


def _where(status: dict | None) -> str:
    if not status:
        return ""
    where = status[min(status)].get("where", "")
    return f", {where}" if where.startswith("after ") else f", during {where}"
