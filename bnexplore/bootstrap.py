"""Bootstrap arc strength and the averaged network.

Friedman, Goldszmidt & Wyner (1999), "Data analysis with Bayesian networks: a
bootstrap approach": learn a network on each of ``R`` nonparametric
resamples of the rows (``N`` rows drawn with replacement) and count, for every
pair of variables, how often they are adjacent and in which direction. The
definitions are bnlearn's ``boot.strength`` (Scutari 2010; Scutari & Denis
2014, Section 2.5): the *strength* of a pair is the fraction of resamples in
which it is adjacent, its *direction* ``P(u -> v | adjacent)``; with
``cpdag=True`` (bnlearn's default) each learned network is first replaced by
its equivalence class (CPDAG), and an edge the class leaves undirected counts
half in each direction, so score-equivalent orientations do not pass for
evidence.

The averaged network (bnlearn's ``averaged.network``) keeps every pair whose
strength is above a threshold (or equal to 1), in its direction when the
direction is above 0.5 (a direction of exactly 0.5 gives an undirected link).
Arcs are added strongest first and one that would close a directed cycle is
dropped, and listed. The default threshold is estimated from the strengths
as in Scutari & Nagarajan (2013), "Identifying significant edges in graphical
models of molecular networks", Section 2.2: the fraction ``p`` of pairs that
are absent is the one whose step CDF (mass ``p`` at 0, ``1 - p`` at 1) is
closest in L1 to the empirical CDF ``F`` of the strengths,
``p = argmin_p integral_0^1 |F(x) - p| dx`` (a weighted median of the values
of ``F``, found exactly here, the midpoint of a flat minimum; bnlearn finds it
numerically), and the
threshold is the ``p`` quantile of the strengths (type 1, the inverse of ``F``).

Resample ``r`` draws its rows from ``numpy.random.SeedSequence(seed,
spawn_key=(r,))``, so a result depends on the seed only, never on how many
workers ran it or in which order resamples finished.

The resamples are handed out lazily, a few chunks per worker at a time, so
memory does not grow with ``R`` before the work starts (``R`` is at most
:data:`MAX_RESAMPLES`). A stop or time limit terminates the worker processes at
once: the cores are free when :func:`bootstrap` returns, and the resamples
they were learning are dropped (as a stopped resample is in this process).
"""

import itertools
import math
import multiprocessing
import os
import pickle
import queue
import signal
import uuid
from dataclasses import dataclass, field

import numba
import numpy as np

from .compiling import search_clock
from .control import Control
from .data import Dataset, check_dataset, require_complete, require_unweighted
from .distributed import dask_client, load_dask
from .errors import ResourceError, SearchError
from .graphs import DAG, PDAG, pdag_extension
from .knowledge import knowledge_params
from .options import seed_number, whole_number
from .result import parse_json, to_plain
from .search import SEARCHES, learn, search_options

POOL_START_SECONDS = 6.0
"""About what starting a worker process costs (spawn, import, loading the
compiled kernels), measured here; with ``workers=None`` processes are started
only when the resamples left would take longer than that by ``w / (w - 1)``
on one core (estimated from the first resample, learned in this process).
"""

POLL_SECONDS = 0.25
"""Longest wait for a resample before the stop flag is checked again."""

MAX_RESAMPLES = 100_000
"""Most resamples one bootstrap takes (bnlearn's examples use 200 to 1,000; every
resample's graph is kept, so a result of this many holds tens of megabytes)."""

MAX_CHUNK = 32
"""Most resamples in one task, so progress and a stop are never a whole share of ``R`` away."""

IN_FLIGHT = 2
"""Chunks handed to each worker ahead of its results (the rest are made as these finish)."""

_WORKER = {}
"""In each worker process: the data set and settings shipped once."""


@dataclass
class AveragedNetwork:
    """The averaged network at one threshold.

    Attributes
    ----------
    graph : PDAG
        Arcs above the threshold in their likelier direction; links where the
        direction is exactly 0.5.
    threshold : float
    method : str
        "l1" (estimated, Scutari & Nagarajan 2013) or "user".
    dropped : list of dict
        Arcs left out because they closed a directed cycle with stronger
        ones: ``{"from", "to", "strength", "direction", "cycle": [names]}``.
    """

    graph: PDAG
    threshold: float
    method: str
    dropped: list = field(default_factory=list)

    def dag(self):
        """A DAG of the averaged network: a consistent extension (Dor & Tarsi) when its links have one,
        else its arcs (acyclic: :func:`averaged_network` drops the arcs that close a cycle) with every
        link oriented along a topological order of the arcs."""
        try:
            return pdag_extension(self.graph)
        except SearchError:
            names = self.graph.names
            arcs = [(names[u], names[v]) for u, v in self.graph.arcs()]
            order = {v: i for i, v in enumerate(DAG.from_arcs(arcs, names).topological_order())}
            links = [(names[u], names[v]) if order[u] < order[v] else (names[v], names[u])
                     for u, v in self.graph.links()]
            return DAG.from_arcs(arcs + links, names)

    def to_json(self):
        return {"graph": self.graph.to_json(), "threshold": float(self.threshold), "threshold_method": self.method,
                "dropped": self.dropped}


@dataclass
class BootstrapResult:
    """Arc strengths from bootstrap resamples.

    Attributes
    ----------
    names : list of str
    counts : int array (n, n)
        ``counts[u, v]``: resamples in which u and v are adjacent (symmetric).
    directed : float array (n, n)
        ``directed[u, v]``: resamples with u -> v (a link counts 0.5).
    resamples : int
        Resamples learned to the end (those cut by a stop are not counted).
    graphs : list of int arrays
        Per resample, the ``(u, v)`` cells of its adjacency (an arc once, a
        link in both orders), in resample order.
    params : dict
        R, seed (the entropy used, so a run without a seed can be repeated),
        algorithm, score settings, options, cpdag, knowledge.
    stats : dict
        seconds, workers, backend, stopped (reason or None).
    """

    names: list
    counts: np.ndarray
    directed: np.ndarray
    resamples: int
    graphs: list
    params: dict
    stats: dict

    @property
    def strength(self):
        """``P(adjacent)`` per pair (symmetric ``n x n``)."""
        return self.counts / max(self.resamples, 1)

    @property
    def direction(self):
        """``P(u -> v | adjacent)`` (0 where never adjacent)."""
        return np.divide(self.directed, self.counts, out=np.zeros_like(self.directed), where=self.counts > 0)

    def table(self):
        """bnlearn's ``boot.strength`` rows, ``{"from", "to", "strength", "direction"}``, for
        every ordered pair with strength > 0, strongest first (pairs not listed have strength 0)."""
        strength, direction = self.strength, self.direction
        rows = [{"from": self.names[u], "to": self.names[v], "strength": float(strength[u, v]),
                 "direction": float(direction[u, v])} for u, v in np.argwhere(self.counts > 0)]
        rows.sort(key=lambda r: (-r["strength"], -r["direction"]))
        return rows

    def threshold(self):
        """The threshold estimated from the strengths (Scutari & Nagarajan 2013)."""
        n = len(self.names)
        return l1_threshold(self.strength[np.triu_indices(n, 1)])

    def averaged(self, threshold=None):
        """The averaged network (see the module docstring).

        Parameters
        ----------
        threshold : float, optional
            Keep pairs whose strength is above it (default: :meth:`threshold`).

        Returns
        -------
        AveragedNetwork
        """
        method = "l1" if threshold is None else "user"
        if threshold is None:
            threshold = self.threshold()
        if not 0 <= threshold <= 1:
            raise SearchError(f"the strength threshold must lie in [0, 1], got {threshold!r}")
        return averaged_network(self.names, self.strength, self.direction, threshold, method)

    def to_json(self, threshold=None, full=False):
        """``{"strength": table, "averaged": {...}, "resamples", "params", "stats"}`` (JSON-ready).

        ``full=True`` adds ``names``, ``counts``, ``directed`` and ``graphs``, from
        which :meth:`from_json` rebuilds the result (for saved sessions).
        """
        out = {"strength": self.table(), "averaged": self.averaged(threshold).to_json(),
               "resamples": self.resamples, "params": to_plain(self.params), "stats": to_plain(self.stats)}
        if full:
            out.update(names=list(self.names), counts=self.counts.tolist(), directed=self.directed.tolist(),
                       graphs=[g.tolist() for g in self.graphs])
        return out

    @classmethod
    def from_json(cls, data):
        """Rebuild a result from ``to_json(full=True)`` output (a dict or JSON text)."""
        data = parse_json(data, "bootstrap")
        missing = [k for k in ("names", "counts", "directed", "graphs", "resamples") if k not in data]
        if missing:
            raise SearchError(f"not a full bootstrap result: missing {', '.join(missing)}; save it with "
                              "to_json(full=True)")
        graphs = [np.asarray(g, np.int32).reshape(-1, 2) for g in data["graphs"]]
        return cls(list(data["names"]), np.asarray(data["counts"], np.int64), np.asarray(data["directed"], float),
                   int(data["resamples"]), graphs, data.get("params", {}), data.get("stats", {}))


def l1_fraction(strengths):
    """The fraction ``p`` of absent pairs of Scutari & Nagarajan (2013), Section 2.2.

    ``p`` minimises ``L1(p) = integral_0^1 |F(x) - p| dx`` for the empirical
    CDF ``F`` of ``strengths``: a sum ``sum_i w_i |F_i - p|`` over the
    intervals ``[x_i, x_i+1)`` of ``{0, knots of F, 1}`` (widths ``w_i``,
    ``F_i`` its value there), minimised by a weighted median of the ``F_i``.
    When the minimum is a flat interval its midpoint is returned (bnlearn's
    numerical search returns a point inside it).
    """
    x = np.sort(np.asarray(strengths, dtype=np.float64))
    if x.size == 0:
        return 0.0
    points = np.unique(np.concatenate([[0.0], x, [1.0]]))
    heights = np.searchsorted(x, points[:-1], side="right") / x.size
    order = np.argsort(heights, kind="stable")
    heights, widths = heights[order], np.diff(points)[order]
    cumulative = np.cumsum(widths)
    half = cumulative[-1] / 2
    k = int(np.searchsorted(cumulative, half - 1e-12))
    if abs(cumulative[k] - half) <= 1e-12 and k + 1 < len(heights):
        return float((heights[k] + heights[k + 1]) / 2)
    return float(heights[k])


def l1_threshold(strengths):
    """The strength threshold of Scutari & Nagarajan (2013): the type 1
    quantile (inverse empirical CDF) of ``strengths`` at :func:`l1_fraction`."""
    x = np.sort(np.asarray(strengths, dtype=np.float64))
    if x.size == 0:
        return 0.0
    p = l1_fraction(x)
    return float(x[max(1, math.ceil(x.size * p - 1e-9)) - 1])


def averaged_network(names, strength, direction, threshold, method="user"):
    """The averaged network from strength and direction matrices (see the module docstring)."""
    n = len(names)
    significant = ((strength > threshold) | (strength == 1)) & (direction >= 0.5)
    np.fill_diagonal(significant, False)
    adj = np.zeros((n, n), np.uint8)
    links = np.argwhere(np.triu(significant & significant.T))
    for u, v in links:
        adj[u, v] = adj[v, u] = 1
    arcs = [(int(u), int(v)) for u, v in np.argwhere(significant & ~significant.T)]
    arcs.sort(key=lambda a: (-strength[a], -direction[a], a[0], a[1]))
    children = [[] for _ in range(n)]
    dropped = []
    for u, v in arcs:
        path = _directed_path(children, v, u)
        if path is None:
            adj[u, v] = 1
            children[u].append(v)
        else:
            dropped.append({"from": names[u], "to": names[v], "strength": float(strength[u, v]),
                            "direction": float(direction[u, v]), "cycle": [names[c] for c in [u] + path]})
    return AveragedNetwork(PDAG(adj, names), float(threshold), method, dropped)


def _directed_path(children, start, goal):
    """Nodes of a directed path ``start -> ... -> goal`` along ``children``, or None."""
    before = {start: None}
    queue = [start]
    for x in queue:
        if x == goal:
            path = []
            while x is not None:
                path.append(x)
                x = before[x]
            return path[::-1]
        for y in children[x]:
            if y not in before:
                before[y] = x
                queue.append(y)
    return None


def resample_rows(entropy, r, n_rows):
    """The rows of resample ``r``: ``n_rows`` draws with replacement."""
    rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(r,)))
    return rng.integers(0, n_rows, size=n_rows)


def learn_resample(data, r, settings, stop=None):
    """Learn resample ``r``; returns the ``(u, v)`` cells of its (CPDAG's)
    adjacency, or None when ``stop`` cut its search short."""
    rows = resample_rows(settings["entropy"], r, data.n_rows)
    extra = {"stop": stop} if stop is not None else {}
    if settings["seeded"]:  # a randomised search (hc restarts) gets its own seed per resample
        extra["seed"] = int(np.random.SeedSequence(settings["entropy"], spawn_key=(r, 1)).generate_state(1)[0])
    result = learn(data.subset(rows), settings["algorithm"], score=settings["score"], ess=settings["ess"],
                   **settings["options"], **extra)
    if result.stats.get("stopped"):
        return None
    graph = result.graph.cpdag() if settings["cpdag"] else result.graph
    return np.argwhere(graph.adj).astype(np.int32)


def _start_worker(codes, arities, names, settings):
    numba.set_num_threads(1)  # the processes are the parallelism
    _WORKER.update(data=Dataset.from_codes(codes, arities, names), settings=settings)


def _worker_task(indices):
    return [(r, learn_resample(_WORKER["data"], r, _WORKER["settings"])) for r in indices]


def _worker_loop(tasks, results, codes, arities, names, settings):
    """A worker process: learn the chunks of ``tasks`` until None, sending ``(ok, value)`` to ``results``.

    Ctrl-C in a terminal reaches every process of the group: the worker starts
    with it blocked (:func:`_run_processes`) and ignores it, and the parent,
    whose stop it is, ends the worker.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _start_worker(codes, arities, names, settings)
    for chunk in iter(tasks.get, None):
        try:
            results.put((True, _worker_task(chunk)))
        except Exception as err:  # the parent raises it (as text if it cannot travel)
            try:
                pickle.dumps(err)
            except Exception:
                err = RuntimeError(f"{type(err).__name__}: {err}")
            results.put((False, err))


def _dask_task(indices, payload):
    if _WORKER.get("token") != payload["token"]:
        _start_worker(payload["codes"], payload["arities"], payload["names"], payload["settings"])
        _WORKER["token"] = payload["token"]
    return _worker_task(indices)


def bootstrap(data, algorithm="hc", R=200, seed=None, score="bdeu", ess=1.0, knowledge=None, cpdag=True,
              workers=None, scheduler=None, chunk_size=None, progress=None, time_limit=None, stop=None,
              control=None, **options):
    """Bootstrap arc strengths of a structure search.

    Parameters
    ----------
    data : Dataset
    algorithm : str
        Any search of :func:`bnexplore.learn` ("hc", "tabu", "rpdag", ...).
    R : int
        Number of resamples, 1 to :data:`MAX_RESAMPLES`.
    seed : int, optional
        Same seed, same result, whatever ``workers``. Without one, fresh
        entropy is drawn and recorded in ``params["seed"]``.
    score, ess
        As in :func:`bnexplore.learn`.
    knowledge : bnexplore.knowledge.Knowledge, optional
        Passed to every resample's search (checked once, before any work).
    cpdag : bool
        Count each learned network's equivalence class (bnlearn's default).
        The class ignores the knowledge: an edge the knowledge orients can
        count half each way (bnlearn keeps such arcs directed); pass False to
        count the learned DAGs themselves.
    workers : int, optional
        Processes on this machine; 1 runs in this process. Default: every
        core when the work is long enough to pay for starting processes
        (see :data:`POOL_START_SECONDS`), else this process.
    scheduler : str, optional
        Address of a Dask scheduler (``"tcp://host:port"``): run the
        resamples on that cluster instead (needs dask.distributed).
    chunk_size : int, optional
        Resamples per task (default: about 8 tasks per worker, at most
        :data:`MAX_CHUNK`).
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`. A stop or time limit keeps the
        resamples finished so far (``stats["stopped"]`` says why) and ends
        the worker processes before returning (on a Dask cluster the tasks not
        started are cancelled; a running one finishes its chunk).
    **options
        Passed to the search (``max_indegree``, ``restarts``, ...). A search
        that takes a ``seed`` (hill climbing's restarts) gets one per
        resample, drawn from ``seed``.

    Returns
    -------
    BootstrapResult

    Examples
    --------
    Ten resamples of the asia table, hill climbing on each, in this process:

    >>> import bnexplore as bx
    >>> data = bx.read_csv("sample_data/asia.csv")
    >>> result = bx.bootstrap(data, "hc", R=10, seed=1, workers=1)
    >>> result.resamples, result.table()[0]
    (10, {'from': 'tub', 'to': 'either', 'strength': 1.0, 'direction': 1.0})
    >>> averaged = result.averaged()  # the pairs stronger than the L1 threshold
    >>> averaged.threshold, len(averaged.graph.arcs()), averaged.graph.n_edges
    (0.3, 5, 8)
    """
    data = check_dataset(data)
    control = Control.of(control, progress, time_limit, stop)
    if algorithm not in SEARCHES:
        raise SearchError(f"unknown algorithm {algorithm!r}: choose one of {', '.join(SEARCHES)}")
    require_complete(data, "bootstrap")  # the workers get the codes alone
    require_unweighted(data, "bootstrap")
    R = whole_number(R, "R", 1, MAX_RESAMPLES, error=SearchError)
    seed = seed_number(seed)
    if chunk_size is not None:
        chunk_size = whole_number(chunk_size, "chunk_size", 1)
    options = dict(options, **search_options(knowledge, algorithm, data, options.get("max_indegree")))
    entropy = np.random.SeedSequence(seed).entropy
    seeded = SEARCHES[algorithm].option("seed") is not None and "seed" not in options
    settings = {"entropy": entropy, "algorithm": algorithm, "score": score, "ess": ess, "options": options,
                "cpdag": bool(cpdag), "seeded": seeded, "R": R}
    data.subset(slice(0, 2))  # fail early on an unusable data set, not in a worker
    auto = workers is None
    workers = (os.cpu_count() or 1) if auto else whole_number(workers, "workers", 1)
    started = search_clock()
    found = {}
    todo = range(R)  # lazy: nothing here grows with R
    backend = "serial"
    if scheduler is not None:
        backend = "dask"
        _run_dask(data, settings, todo, scheduler, chunk_size, control, found)
    else:
        if auto and workers > 1:  # learn one resample here first: is the rest worth starting processes?
            first = control.clock()
            _run_serial(data, settings, todo[:1], control, found, R)
            todo = todo[1:]
            if (control.clock() - first) * len(todo) < POOL_START_SECONDS * workers / (workers - 1):
                workers = 1
        if workers > 1 and len(todo) > 1 and not control.should_stop():
            backend = "processes"
            _run_processes(data, settings, todo, workers, chunk_size, control, found)
        else:
            workers = 1
            _run_serial(data, settings, todo, control, found, R)
    n = data.n_vars
    counts = np.zeros((n, n), np.int64)
    directed = np.zeros((n, n))
    graphs = [found[r] for r in sorted(found)]
    for cells in graphs:
        adj = np.zeros((n, n), bool)
        adj[cells[:, 0], cells[:, 1]] = True
        counts += adj | adj.T
        directed += np.where(adj.T, 0.5, 1.0) * adj
    params = {"R": R, "seed": seed if seed is not None else entropy, "algorithm": algorithm, "score": score,
              "ess": ess, "options": {k: v for k, v in options.items() if k not in ("blacklist", "whitelist")},
              "cpdag": bool(cpdag), **knowledge_params(knowledge)}
    stats = {"seconds": search_clock() - started, "workers": workers,
             "backend": backend, "stopped": control.reason if len(found) < R else None}
    control.finish(message=f"bootstrap: {len(found)}/{R} resamples")
    return BootstrapResult(list(data.names), counts, directed, len(found), graphs, params, stats)


def _report(control, found, R):
    control.report(done=len(found) / R, message=f"bootstrap: {len(found)}/{R} resamples", resamples=len(found))


def _chunks(todo, workers, chunk_size):
    """The chunks of the range ``todo``, made one at a time (ranges themselves)."""
    size = chunk_size or min(MAX_CHUNK, max(1, math.ceil(len(todo) / (8 * workers))))
    return (todo[i:i + size] for i in range(0, len(todo), size))


def _run_serial(data, settings, todo, control, found, R):
    """Resamples in this process; a stop also cuts the running search (its resample is dropped)."""
    for r in todo:
        if control.should_stop():
            return
        cells = learn_resample(data, r, settings, stop=control.should_stop)
        if cells is None:
            return
        found[r] = cells
        _report(control, found, R)


def _run_processes(data, settings, todo, workers, chunk_size, control, found):
    """Resamples on spawned processes (numba kernels hold the GIL, so threads would not help).

    Each worker gets :data:`IN_FLIGHT` chunks ahead and one more per result,
    so nothing grows with ``R``. The processes are terminated when this returns,
    whether the work finished, was stopped or failed: a stop frees the cores at
    once. A worker that dies (killed for memory) is a ResourceError, not a hang.
    """
    context = multiprocessing.get_context("spawn")
    tasks, results = context.Queue(), context.Queue()
    args = (tasks, results, np.asarray(data.codes), np.asarray(data.arities), list(data.names), settings)
    processes = [context.Process(target=_worker_loop, args=args, daemon=True) for _ in range(workers)]
    chunks = _chunks(todo, workers, chunk_size)
    waiting = 0
    try:
        # started with Ctrl-C blocked (the mask is inherited), so one pressed while a worker is still importing
        # cannot kill it with a traceback; the signal stays pending here and reaches this process's handler
        # (POSIX; Windows has no signal masks, nor process groups that Ctrl-C reaches this way)
        masks = hasattr(signal, "pthread_sigmask")
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if masks else None
        try:
            for process in processes:
                process.start()
        finally:
            if masks:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        for chunk in itertools.islice(chunks, IN_FLIGHT * workers):
            tasks.put(chunk)
            waiting += 1
        while waiting and not control.should_stop():
            try:
                ok, value = results.get(timeout=POLL_SECONDS)
            except queue.Empty:
                dead = [p.exitcode for p in processes if not p.is_alive()]
                if dead and not control.should_stop():
                    raise ResourceError(f"a bootstrap worker process ended unexpectedly (exit code {dead[0]}; "
                                        "out of memory?); use fewer workers or a smaller data set") from None
                continue
            waiting -= 1
            if not ok:
                raise value
            found.update(value)
            _report(control, found, settings["R"])
            for chunk in itertools.islice(chunks, 1):
                tasks.put(chunk)
                waiting += 1
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            if process.pid is not None:
                process.join()
        for channel in (tasks, results):
            channel.cancel_join_thread()  # chunks never read are dropped, not waited for
            channel.close()


def _run_dask(data, settings, todo, scheduler, chunk_size, control, found):
    """Resamples on a Dask cluster (see :mod:`bnexplore.distributed`)."""
    distributed = load_dask()
    with dask_client(distributed, 1, scheduler) as client:
        n_workers = max(1, len(client.scheduler_info()["workers"]))
        payload = {"token": uuid.uuid4().hex, "codes": np.asarray(data.codes), "arities": np.asarray(data.arities),
                   "names": list(data.names), "settings": settings}
        [shipped] = client.scatter([payload], broadcast=True, hash=False)
        chunks = _chunks(todo, n_workers, chunk_size)
        pending = [client.submit(_dask_task, chunk, shipped, pure=False)
                   for chunk in itertools.islice(chunks, IN_FLIGHT * n_workers)]
        while pending:
            if control.should_stop():
                client.cancel(pending)
                break
            try:
                done, _ = distributed.wait(pending, timeout=POLL_SECONDS, return_when="FIRST_COMPLETED")
            except TimeoutError:
                continue
            for future in done:
                pending.remove(future)
                found.update(future.result())
                _report(control, found, settings["R"])
                pending += [client.submit(_dask_task, chunk, shipped, pure=False)
                            for chunk in itertools.islice(chunks, 1)]
