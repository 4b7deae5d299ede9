"""The Graph500 BFS benchmark: generate, construct (kernel 1), search 64 keys (kernel 2), validate.

Follows the specification and the reference code's timing rules (specification
3.0, "Timing" and "Performance metric"; reference code graph500/graph500 3.0.0,
``src/main.c``): generation is timed but not official;
kernel 1 is timed once; search keys are drawn after kernel
1 from the seed, distinct and non-isolated; one untimed warm-up search precedes
the timed ones; each search is timed alone; validation and the TEPS edge count
are outside the search timer; TEPS statistics use the harmonic mean.

An engine that fuses kernels 0 and 1 (the streaming build never holds the tuple list) reports
the split through ``kernel_times()``: ``graph_generation`` is the time spent generating the tuples
once, ``construction_time`` the build's own work, and the time spent regenerating them for the
build's second pass is reported apart (``tuple_regeneration_time``), with the fused wall time.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..graph.generators import check_scale, check_graph_fits
from ..graph.memory import bfs_bytes, check_fits
from .checkpoint import Checkpoint, fingerprint
from ..jit import Stopwatch
from .engine import Engine
from .stats import statistics, teps_statistics


@dataclass
class Graph500Config:
    """What one Graph500 run does: the graph, the number of searches, validation.

    Attributes:
        scale: log2 of the vertex count of the Kronecker graph.
        edgefactor: edge tuples per vertex.
        nroots: search keys (the specification's 64).
        seed: the generator's and the search keys' seed.
        validate: check every search's tree by the Graph500 rules.

    Examples:
        >>> from breadth.graph500 import Graph500Config
        >>> Graph500Config(scale=6, nroots=4)
        Graph500Config(scale=6, edgefactor=16, nroots=4, seed=1, validate=True)
    """
    scale: int
    edgefactor: int = 16
    nroots: int = 64
    seed: int = 1
    validate: bool = True


@dataclass
class Graph500Result:
    """Everything a Graph500 run measured; ``as_dict()`` names it as the reference code does.

    Attributes:
        config: the run's ``Graph500Config``.
        engine: the engine's settings (``Engine.describe()``).
        num_procs: processes that ran it.
        generation_time: kernel 0, seconds.
        construction_time: kernel 1, seconds.
        regeneration_time: streamed builds: the place pass's tuple regeneration (else None).
        build_wall_time: streamed builds: the whole fused build, wall clock (else None).
        roots: the search keys, in order.
        times: each search's seconds.
        nedges: each search's TEPS edge count.
        validate_times: each validation's seconds.
        searches: per-search summaries (levels, communication).
        graph: the constructed graph's summary (``Engine.graph_summary()``).
        resumed: indices of the searches taken from a checkpoint.
        compile_seconds: compiling or loading kernels during the run (in none of the times).

    Examples:
        >>> from breadth.graph500 import Graph500Config, LocalEngine, run_benchmark
        >>> res = run_benchmark(Graph500Config(scale=6, nroots=4), LocalEngine(), progress=False)
        >>> res.nbfs, res.roots, res.as_dict()["SCALE"]
        (4, [17, 13, 62, 40], 6)
    """
    config: Graph500Config
    engine: dict
    num_procs: int
    generation_time: float
    construction_time: float
    regeneration_time: float | None = None   # streamed builds: the place pass's tuple regeneration
    build_wall_time: float | None = None     # streamed builds: the whole fused build, wall clock
    roots: list = field(default_factory=list)
    times: list = field(default_factory=list)
    nedges: list = field(default_factory=list)
    validate_times: list = field(default_factory=list)
    searches: list = field(default_factory=list)   # per-search summaries (levels, communication)
    graph: dict = field(default_factory=dict)
    resumed: list = field(default_factory=list)    # indices of searches taken from a checkpoint
    compile_seconds: float = 0.0    # compiling or loading kernels during the run (in no time above)

    def timed(self) -> list[int]:
        """The searches whose times the statistics use: those run by this process (all of them when
        a checkpoint held every search).

        Returns:
            Indices into ``times``.
        """
        fresh = [i for i in range(self.nbfs) if i not in set(self.resumed)]
        return fresh or list(range(self.nbfs))

    @property
    def nbfs(self) -> int:
        return len(self.times)

    def as_dict(self) -> dict:
        """Every statistic of the run under the reference code's names (``SCALE``, ``bfs_TEPS``, ...),
        JSON-ready.

        Returns:
            A dict: ``SCALE``, ``edgefactor``, ``NBFS``, the kernel times, ``bfs_time`` and
                ``bfs_TEPS`` statistics, the per-search lists and breadth's extras.
        """
        timed = self.timed()
        times = [self.times[i] for i in timed]
        vt = [self.validate_times[i] for i in timed] if self.config.validate else [-1.0] * len(timed)
        return {
            "SCALE": self.config.scale,
            "edgefactor": self.config.edgefactor,
            "NBFS": self.nbfs,
            "seed": self.config.seed,
            "graph_generation": self.generation_time,
            "num_mpi_processes": self.num_procs,
            "construction_time": self.construction_time,
            "regeneration_time": self.regeneration_time,
            "build_wall_time": self.build_wall_time,
            "bfs_time": statistics(times),
            "nedge": statistics(self.nedges),
            "bfs_TEPS": teps_statistics(times, [self.nedges[i] for i in timed]),
            "bfs_validate": statistics(vt),
            "validated": self.config.validate,
            "engine": self.engine,
            "graph": self.graph,
            "roots": self.roots,
            "times": self.times,
            "nedges": self.nedges,
            "validate_times": self.validate_times,
            "searches": self.searches,
            "resumed": self.resumed,
            "compile_seconds": self.compile_seconds,
        }


def search_keys(engine, num_vertices: int, nroots: int, seed: int) -> np.ndarray:
    """Distinct non-isolated search keys drawn from the seed.

    Graph500: degree >= 1, self-loops not counted; on a directed graph out-degree >= 1.
    Candidates come from a seeded stream in batches; duplicates and isolated vertices are skipped.

    Args:
        engine: an ``Engine`` with a constructed graph (its ``nonisolated`` answers).
        num_vertices: the graph's vertex count.
        nroots: how many keys.
        seed: the stream's seed.

    Returns:
        int64 keys: ``nroots`` of them, fewer only if the graph has fewer non-isolated vertices.

    Examples:
        >>> from breadth.graph500 import LocalEngine, search_keys
        >>> engine = LocalEngine()
        >>> engine.generate(6, 16, 1)
        >>> engine.construct()
        >>> engine.after_construct()
        >>> search_keys(engine, 64, 4, seed=1)
        array([17, 13, 62, 40])
    """
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, 0x500])
    keys: list[int] = []
    seen: set[int] = set()
    tried = 0
    while len(keys) < nroots and tried < 4 * num_vertices + 64:
        batch = rng.integers(0, num_vertices, size=max(64, 2 * nroots))
        tried += batch.size
        ok = engine.nonisolated(batch)
        for v, good in zip(batch.tolist(), ok.tolist()):
            if good and v not in seen:
                seen.add(v)
                keys.append(v)
                if len(keys) == nroots:
                    break
    if len(keys) < nroots:
        # tiny or nearly empty graph: take every non-isolated vertex in a seeded order
        cand = rng.permutation(num_vertices)
        cand = cand[engine.nonisolated(cand)]
        keys = [int(v) for v in cand[:nroots]]
    return np.asarray(keys, dtype=np.int64)


def _progress(total, desc, enabled):
    from ..progress import bar

    return bar(total, desc, None if enabled else False, unit="")


def run_benchmark(config: Graph500Config, engine: Engine, progress: bool = True,
                  checkpoint: Checkpoint | None = None) -> Graph500Result:
    """Run the whole benchmark on ``engine``: generation, construction, searches, validation.

    Args:
        config: the run (scale, edge factor, search keys, seed, validation).
        engine: any ``breadth.graph500.Engine`` (``LocalEngine``, a ``DistEngine``).
        progress: show a progress bar over the searches (on a terminal).
        checkpoint: a ``graph500.checkpoint.Checkpoint`` that records each completed search;
            when it resumes, the searches it holds are taken from it (same roots, nedge and
            validation) instead of run again, and the time statistics cover the searches run
            now (``Graph500Result.timed``).

    Returns:
        A ``Graph500Result`` (``format_report`` prints it as the reference code does).

    Raises:
        InputError: a scale, edge factor or root count out of range.
        ValidationError: a search's tree broke a Graph500 rule (with ``config.validate``).

    Examples:
        >>> from breadth.graph500 import Graph500Config, LocalEngine, run_benchmark
        >>> res = run_benchmark(Graph500Config(scale=6, nroots=4), LocalEngine(), progress=False)
        >>> res.nbfs, res.nedges
        (4, [969, 969, 969, 969])
    """
    check_scale(config.scale, config.edgefactor, "edgefactor")
    if config.nroots < 1:
        raise InputError(f"nroots must be >= 1, got {config.nroots}")
    if hasattr(engine, "choose_build"):
        engine.choose_build(config.scale, config.edgefactor)
    if engine.nprocs == 1:
        check_graph_fits(config.scale, config.edgefactor, getattr(engine, "directed", False),
                         getattr(engine, "streaming", False))
        check_fits(f"a scale-{config.scale} benchmark", bfs_bytes(1 << config.scale))
    show = progress and engine.is_root
    n = 1 << config.scale
    if checkpoint is not None:
        checkpoint.prepare(engine)
    whole = Stopwatch.start()       # every compilation of the run, reported as compile_seconds

    with _progress(3, "graph500: generate / construct / roots", show) as bar:
        engine.barrier()
        with Stopwatch() as clock:     # the generator's compilation is not kernel 0's time
            engine.generate(config.scale, config.edgefactor, config.seed)
            engine.barrier()
        generation = clock.seconds
        bar.update()
        engine.warm_up()          # compilation / cache loading is not part of kernel 1
        engine.barrier()
        with Stopwatch() as clock:
            engine.construct()
            engine.barrier()
        construction = clock.seconds
        wall = None
        split = engine.kernel_times() if hasattr(engine, "kernel_times") else None
        if split is not None:          # kernels 0 and 1 fused: the engine split the time
            wall = generation + construction
            generation = split["generation"]
            # the engine's timers include any compiling; the Stopwatch does not count it, nor does this
            construction = max(0.0, split["construction"] - clock.compile_seconds)
        bar.update()
        engine.after_construct()
        roots = search_keys(engine, n, config.nroots, config.seed)
        bar.update()
    if roots.size == 0:
        raise InputError("the graph has no vertex with an edge: nothing to search")

    res = Graph500Result(config, engine.describe(), engine.nprocs, generation, construction,
                         roots=[int(r) for r in roots])
    if split is not None:
        res.regeneration_time, res.build_wall_time = split["regeneration"], wall
    res.graph = engine.graph_summary()
    done = {} if checkpoint is None else checkpoint.start(fingerprint(engine, n, roots, res.graph), engine)

    warm = engine.search(int(roots[0]))           # untimed: JIT load, page faults
    if config.validate:
        engine.validate(int(roots[0]), warm)

    with _progress(roots.size, "graph500: BFS" + (" + validation" if config.validate else ""), show) as bar:
        for index, root in enumerate(roots):
            if index in done:
                _take(res, done[index], index, int(root))
                bar.update()
                continue
            engine.barrier()
            with Stopwatch() as clock:
                result = engine.search(int(root))
                engine.barrier()
            res.times.append(clock.seconds)
            res.nedges.append(engine.nedge(result))
            if config.validate:
                with Stopwatch() as clock:
                    engine.validate(int(root), result)
                res.validate_times.append(clock.seconds)
            summary = result.summary()
            summary["nedge"] = res.nedges[-1]
            summary["time"] = res.times[-1]
            res.searches.append(summary)
            if checkpoint is not None:
                checkpoint.record(index, {"root": int(root), "time": res.times[-1], "nedge": res.nedges[-1],
                                          "validation": "passed" if config.validate else "skipped",
                                          "validate_time": res.validate_times[-1] if config.validate else None,
                                          "summary": summary})
            bar.update()
    whole.lap()
    res.compile_seconds = whole.compile_seconds
    return res


def _take(res: Graph500Result, entry: dict, index: int, root: int) -> None:
    """A search completed by the run a checkpoint recorded (its root must be this run's)."""
    if int(entry["root"]) != root:
        raise InputError(f"--resume: the checkpoint's search {index} started from {entry['root']}, this run's "
                         f"from {root}: not the same run")
    res.times.append(float(entry["time"]))
    res.nedges.append(int(entry["nedge"]))
    if res.config.validate:
        res.validate_times.append(float(entry["validate_time"]))
    res.searches.append(dict(entry["summary"], resumed=True))
    res.resumed.append(index)


def format_report(result: Graph500Result) -> str:
    """The reference code's stdout block (src/main.c), with breadth's extras after it.

    Args:
        result: a finished run.

    Returns:
        The report, one ``name: value`` line per statistic.

    Examples:
        >>> from breadth.graph500 import Graph500Config, LocalEngine, format_report, run_benchmark
        >>> res = run_benchmark(Graph500Config(scale=6, nroots=4), LocalEngine(), progress=False)
        >>> print(format_report(res))
        SCALE:                          6
        edgefactor:                     16
        NBFS:                           4
        ...
    """
    d = result.as_dict()
    lines = [
        f"{'SCALE:':<32}{d['SCALE']}",
        f"{'edgefactor:':<32}{d['edgefactor']}",
        f"{'NBFS:':<32}{d['NBFS']}",
        f"{'graph_generation:':<32}{d['graph_generation']:g}",
        f"{'num_mpi_processes:':<32}{d['num_mpi_processes']}",
        f"{'construction_time:':<32}{d['construction_time']:g}",
    ]
    for key in ("min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev"):
        lines.append(f"{'bfs  ' + key + '_time:':<32}{d['bfs_time'][key]:g}")
    for key in ("min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev"):
        lines.append(f"{key + '_nedge:':<32}{d['nedge'][key]:.11g}")
    for key in ("min", "firstquartile", "median", "thirdquartile", "max"):
        lines.append(f"{'bfs  ' + key + '_TEPS:':<32}{d['bfs_TEPS'][key]:g}")
    lines.append(f"{'bfs  harmonic_mean_TEPS:':<29}!  {d['bfs_TEPS']['harmonic_mean']:g}")
    lines.append(f"{'bfs  harmonic_stddev_TEPS:':<32}{d['bfs_TEPS']['harmonic_stddev']:g}")
    for key in ("min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev"):
        lines.append(f"{'bfs  ' + key + '_validate:':<32}{d['bfs_validate'][key]:g}")
    if result.resumed:
        timed = len(result.timed())
        over = "run now" if timed < result.nbfs else "recorded: every search was in the checkpoint"
        lines.append(f"{'resumed:':<32}{len(result.resumed)} of {result.nbfs} searches from the checkpoint "
                     f"(time, TEPS and validate statistics over the {timed} {over})")
    if d["regeneration_time"] is not None:
        lines.append(f"{'streamed_build_wall_time:':<32}{d['build_wall_time']:g}")
        lines.append(f"{'tuple_regeneration_time:':<32}{d['regeneration_time']:g}")
    return "\n".join(lines)
