"""Running the distributed test drivers and the CLI across namespace hosts."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIST = os.path.join(ROOT, "tests", "distributed")
DRIVER = os.path.join(DIST, "driver.py")
DRIVER_2D = os.path.join(DIST, "driver_2d.py")
DRIVER_DELEGATES = os.path.join(DIST, "driver_delegates.py")


def env(**extra):
    """PYTHONPATH with this checkout first (every host runs the same install), plus ``extra``."""
    out = {"PYTHONPATH": ROOT + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")}
    out.update({k: str(v) for k, v in extra.items()})
    return out


def run(cluster, argv, ranks_per_host=1, hosts=None, timeout=300, **extra):
    """``python ARGV`` on every host (ranks_per_host each; ``hosts``: only these), mpiexec on host 1,
    with the variables ``extra``."""
    return cluster.run([sys.executable, *argv], ranks_per_host=ranks_per_host, hosts=hosts, timeout=timeout,
                       env=env(**extra), cwd=ROOT)


def cli(cluster, args, ranks_per_host=1, timeout=300, **extra):
    """``python -m breadth ARGS`` as an MPI job across the hosts."""
    return run(cluster, ["-m", "breadth", *args], ranks_per_host=ranks_per_host, timeout=timeout, **extra)


def ok_lines(proc):
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return [line for line in proc.stdout.splitlines() if line.startswith("OK ")]
