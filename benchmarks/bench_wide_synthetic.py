"""Benchmark: the large-network learner on a 10,000-node synthetic network (issue 34).

Scanagatta, de Campos, Corani & Zaffalon, "Learning Bayesian Networks with
Thousands of Variables" (NIPS 2015), Section 5.2, also learn from data sampled
from synthetic networks of up to 10,000 nodes. This script builds such a
network (binary variables; each node draws up to ``--max-parents`` parents
among the ``--window`` nodes before it, so the graph has local structure, and
its tables from a uniform Dirichlet), samples ``--rows`` rows by ancestral
sampling, and runs, each in a fresh process (one numba thread, its cache warmed
first):

- ``learn``: ``learn(data, "asobs", score="bic", time_limit=T, seed=1)``, the
  default large-network learner as a user calls it, with a progress callback:
  how often it reported (the largest gap between two reports, the
  responsiveness a progress bar and a Stop button depend on), wall time, peak
  resident memory, the BIC of the result against the true network's, and the
  result's own account of its phases;
- ``stop``: the same call stopped by its stop flag after ``--stop-after``
  progress reports: how long it took to return once asked, and what it
  returned;
- ``climb``: the paper's ordering search alone (``ordering_search(...,
  method="asobs", start=None)``: random orderings over explored sets, no
  seed graph) for ``--seconds``: how many insertion and swap moves its climbs
  made (the insertion moves' cost, ``ordering_kernels.best_insertion`` and
  ``apply_insertion``, is what limits them on wide data) and its BIC.

Usage::

    python benchmarks/bench_wide_synthetic.py                  # 10,000 nodes, 1,000 rows, 600 s
    python benchmarks/bench_wide_synthetic.py --nodes 2000 --seconds 60 --json benchmarks/out/wide.json
    python benchmarks/bench_wide_synthetic.py --nodes 2000 --seconds 20 --methods climb
"""

import argparse
import os
import sys
import time

import numpy as np

import harness  # first: it puts the repository on sys.path


def synthetic(nodes, rows, max_parents, window, seed):
    """Codes (rows x nodes, int8) sampled from a random binary network, and its parent lists."""
    rng = np.random.default_rng(seed)
    parents = []
    codes = np.empty((rows, nodes), np.int8)
    for v in range(nodes):
        lo = max(0, v - window)
        k = int(rng.integers(0, min(max_parents, v - lo) + 1))
        ps = sorted(rng.choice(np.arange(lo, v), size=k, replace=False).tolist()) if k else []
        parents.append(ps)
        p_one = rng.dirichlet([1.0, 1.0], size=2 ** k)[:, 1]  # P(v = 1 | each parent configuration)
        config = np.zeros(rows, np.int64)
        for u in ps:
            config = 2 * config + codes[:, u]
        codes[:, v] = rng.random(rows) < p_one[config]
    return codes, parents


def _data(args):
    from bnexplore.data import Dataset

    codes, truth = synthetic(args["nodes"], args["rows"], args["max_parents"], args["window"], args["seed"])
    names = [f"x{v}" for v in range(codes.shape[1])]
    return Dataset.from_codes(codes, arities=[2] * codes.shape[1], names=names), truth


def _warm():
    """Compile (or load from numba's cache) everything the learner runs, on a small problem."""
    from bnexplore import learn
    from bnexplore.data import Dataset

    codes, _ = synthetic(40, 200, 3, 10, 0)
    learn(Dataset.from_codes(codes, arities=[2] * 40, names=[f"x{v}" for v in range(40)]), "asobs",
          score="bic", time_limit=2, seed=0)


def worker_learn(args):
    """One learner run with a progress callback; what it did, in JSON."""
    from bnexplore import learn
    from bnexplore.scores import Scorer

    _warm()
    data, truth = _data(args)
    reports = []

    def progress(info):
        reports.append(time.perf_counter())

    start = time.perf_counter()
    result = learn(data, "asobs", score="bic", time_limit=args["seconds"], seed=1, progress=progress)
    wall = time.perf_counter() - start
    marks = [start] + reports + [start + wall]
    scorer = Scorer(data, "bic")
    true_bic = scorer.total([list(ps) for ps in truth])
    stats = {k: v for k, v in result.stats.items() if isinstance(v, (int, float, str)) or v is None}
    return {"method": "learn", "wall": wall, "peak_mib": harness.peak_mib(), "reports": len(reports),
            "largest_gap_s": float(np.diff(marks).max()), "bic": float(result.score), "true_bic": true_bic,
            "arcs": int(result.graph.n_edges), "true_arcs": sum(len(ps) for ps in truth), "stats": stats}


def worker_stop(args):
    """The learner stopped by its flag after ``stop_after`` progress reports: how long it took to return."""
    from bnexplore import learn
    from bnexplore.graphs import is_acyclic

    _warm()
    data, _ = _data(args)
    asked = []

    def progress(info):
        if len(asked) == 0 and info.get("message") is not None:
            progress.calls += 1
            if progress.calls >= args["stop_after"]:
                asked.append(time.perf_counter())

    progress.calls = 0
    start = time.perf_counter()
    result = learn(data, "asobs", score="bic", time_limit=args["seconds"], seed=1, progress=progress,
                   stop=lambda: bool(asked))
    end = time.perf_counter()
    return {"method": "stop", "asked_after_s": asked[0] - start if asked else None,
            "returned_after_stop_s": end - asked[0] if asked else None, "peak_mib": harness.peak_mib(),
            "stopped": result.stats.get("stopped"), "arcs": int(result.graph.n_edges),
            "acyclic": bool(is_acyclic(result.graph.adj))}


def worker_climb(args):
    """The paper's ordering search (no seed graph) for ``seconds``: the moves its climbs made, and its BIC."""
    from bnexplore.scores import Scorer
    from bnexplore.search.ordering import ordering_search
    from bnexplore.warmup import warm_up

    warm_up()  # every kernel of the climb, its insertion moves' too
    data, _ = _data(args)
    scorer = Scorer(data, "bic")
    start = time.perf_counter()
    result = ordering_search(scorer, method="asobs", start=None, time_limit=args["seconds"], seed=1)
    wall = time.perf_counter() - start
    counts = {k: result.stats.get(k) for k in ("insertions", "swaps", "orderings", "restarts")}
    return {"method": "climb", "wall": wall, "bic": float(result.score), **counts, "peak_mib": harness.peak_mib()}


WORKERS = {"learn": worker_learn, "stop": worker_stop, "climb": worker_climb}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--rows", type=int, default=1_000)
    parser.add_argument("--max-parents", type=int, default=3)
    parser.add_argument("--window", type=int, default=50, help="parents are drawn among this many nodes before")
    parser.add_argument("--seconds", type=float, default=600.0, help="the learner's time limit")
    parser.add_argument("--stop-after", type=int, default=20, help="progress reports before the stop run stops")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--methods", nargs="+", default=["learn", "stop"], choices=tuple(WORKERS))
    harness.output_option(parser, "wide_synthetic")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.worker:
        harness.serve_worker(WORKERS, options.worker)
        return
    os.environ["NUMBA_NUM_THREADS"] = "1"  # one core, as the other large-network benchmarks
    args = {k: getattr(options, k) for k in ("nodes", "rows", "max_parents", "window", "seconds", "stop_after",
                                              "seed")}
    print(harness.machine_line(), flush=True)
    records = []
    for method in options.methods:
        record = harness.run_worker(__file__, method, [args], timeout=options.seconds * 3 + 600)
        record = {"method": method, **args, **record}
        print(record, flush=True)
        records.append(record)
    path = harness.write_json(harness.output_path(options.json, "wide_synthetic"), {"records": records})
    print(f"raw results: {path}")


if __name__ == "__main__":
    sys.exit(main())
