"""Local-score throughput: BDeu evaluations per second on alarm data.

Samples N rows (default 20,000) from the bundled alarm network, draws random
families with 0-3 parents, and times, with the cache off:

- ``Scorer.local`` one call at a time (single thread),
- ``Scorer.local_many`` batched, on one numba thread and on all threads,
- pgmpy's ``BDeu.local_score`` and pyAgrum's ``BNLearner.score`` (BDeu) when
  installed (benchmark environment only), checking that they agree with ours;
- and where the time of one 3-parent family goes (keys, histogram, score).

Run: ``python benchmarks/bench_scores.py`` (add ``--quick`` for a smoke run).
Prints a Markdown table for benchmarks/BENCHMARKS.md and writes the raw rates to
``benchmarks/results/scores.json`` (``--json`` to choose).
``--busy results/x.json`` times ``local_many`` (all threads) and ``local`` per
parent-set size instead, once quietly and once beside a CPU-heavy process
(``busy.py``), and writes the times as JSON.
"""

import argparse
import math
import os
import tempfile
import time

import numba
import numpy as np

import harness  # first: it puts the repository on sys.path
from bnexplore import Scorer


def families(rng, n_vars, size, count):
    out = []
    for _ in range(count):
        child = int(rng.integers(n_vars))
        others = [v for v in range(n_vars) if v != child]
        out.append((child, sorted(rng.choice(others, size, replace=False).tolist())))
    return out


def rate(seconds, count):
    return count / seconds if seconds > 0 else float("inf")


REPEATS = 5
"""Each rate is the best of this many runs (the machine is shared: neighbours only slow us down)."""


def time_single(scorer, fams):
    def calls():
        for child, parents in fams:
            scorer.local(child, parents)

    return rate(harness.best_of(calls, REPEATS), len(fams))


def time_batched(scorer, fams, threads):
    numba.set_num_threads(threads)
    children = [c for c, _ in fams]
    parents = [p for _, p in fams]
    scorer.local_many(children[:200], parents[:200])  # load the kernels and start the threads
    best = rate(harness.best_of(lambda: scorer.local_many(children, parents), REPEATS), len(fams))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return best


def time_pgmpy(frame, names, fams, ours):
    try:
        import warnings

        warnings.simplefilter("ignore")
        from pgmpy.estimators import BDeu
    except ImportError:
        return None, None
    scorer = BDeu(frame, equivalent_sample_size=1)
    start = time.perf_counter()
    values = [scorer.local_score(names[c], [names[p] for p in ps]) for c, ps in fams]
    elapsed = time.perf_counter() - start
    return rate(elapsed, len(fams)), max(abs(a - b) / abs(b) for a, b in zip(values, ours))


def time_pyagrum(frame, names, fams, ours):
    try:
        import pyagrum as gum
    except ImportError:
        return None, None
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as handle:
        frame.to_csv(handle, index=False)
        path = handle.name
    learner = gum.BNLearner(path)
    learner.useScoreBDeu()
    learner.useNoPrior()
    learner.score(names[0], [])  # builds its data structures
    start = time.perf_counter()
    values = [learner.score(names[c], [names[p] for p in ps]) for c, ps in fams]
    elapsed = time.perf_counter() - start
    os.unlink(path)
    # pyAgrum reports log2 scores
    return rate(elapsed, len(fams)), max(abs(a * math.log(2) - b) / abs(b) for a, b in zip(values, ours))


def breakdown(scorer, fams, repeats=200):
    """Microseconds per family in each part of one BDeu evaluation: the mixed-radix keys, the
    histogram, and the score from the counts (the kernel's own pieces, timed in a loop)."""
    from bnexplore.scores import kernels

    none = np.zeros(0, np.uint8)
    parts = {"keys": [], "histogram": [], "score": []}
    for child, parents in fams:
        ps = np.array(parents, np.int64)
        q = float(np.prod(scorer.arities[ps]))
        cells = int(q) * int(scorer.arities[child])
        keys = kernels._dense_keys(scorer.cols, scorer.arities, child, ps, none)
        counts = kernels._histogram(keys, cells).reshape(int(q), -1)
        for name, call in (("keys", lambda: kernels._dense_keys(scorer.cols, scorer.arities, child, ps, none)),
                           ("histogram", lambda: kernels._histogram(keys, cells)),
                           ("score", lambda: kernels._score_from_counts(counts, q, scorer.n_rows, kernels.BDEU,
                                                                        1.0))):
            call()
            start = time.perf_counter()
            for _ in range(repeats):
                call()
            parts[name].append((time.perf_counter() - start) / repeats * 1e6)
    return {name: float(np.median(values)) for name, values in parts.items()}


def busy_runs(data, rng, args):
    """``local_many`` and ``local`` per parent-set size, quietly and beside a busy process (issue 29, item 16)."""
    from busy import beside_busy, report

    runs = []
    for size in range(4):
        fams = families(rng, data.n_vars, size, args.families)
        children, parents = [c for c, _ in fams], [p for _, p in fams]
        runs.append((f"local_many, {args.families:,} families of {size} parents",
                     lambda c=children, p=parents: Scorer(data, "bdeu", cache=False).local_many(c, p)))
        runs.append((f"local one at a time, {args.peer_families:,} families of {size} parents",
                     lambda f=fams[: args.peer_families], s=Scorer(data, "bdeu", cache=False):
                     [s.local(c, p) for c, p in f]))
    rows, conditions = beside_busy(runs)
    report(f"Local scores beside a busy process (alarm N = {data.n_rows:,})", rows, conditions, args.busy)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--families", type=int, default=4000)
    parser.add_argument("--peer-families", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="small smoke run")
    parser.add_argument("--busy", metavar="JSON", help="time scoring quietly and beside a busy process")
    harness.output_option(parser, "scores")
    args = parser.parse_args()
    args.json = harness.output_path(args.json, "scores", args.quick)
    if args.quick:
        args.families, args.peer_families = 300, 20

    _, data = harness.sampled("alarm", args.rows)
    frame = data.to_frame()
    rng = np.random.default_rng(0)
    warm = Scorer(data, "bdeu", cache=False)
    warm.local(0, [1, 2, 3])
    warm.local_many([0, 1] * 100, [[1], [2, 3]] * 100)

    if args.busy:
        busy_runs(data, rng, args)
        return
    print(f"# Local-score throughput, alarm N = {args.rows:,}, BDeu ess = 1, cache off")
    print(harness.machine_line() + f", {numba.config.NUMBA_NUM_THREADS} numba threads\n")
    print("| parents | local (1 call at a time) | local_many, 1 thread | local_many, all threads "
          "| pgmpy | pyAgrum | ours batched / pgmpy | ours single / pyAgrum | max rel. diff pgmpy / pyAgrum |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows = []
    for size in range(4):
        fams = families(rng, data.n_vars, size, args.families)
        scorer = Scorer(data, "bdeu", cache=False)
        single = time_single(scorer, fams)
        one = time_batched(scorer, fams, 1)
        every = time_batched(scorer, fams, numba.config.NUMBA_NUM_THREADS)
        peer = fams[: args.peer_families]
        ours = [scorer.local(c, p) for c, p in peer]
        pg, pg_diff = time_pgmpy(frame, data.names, peer, ours)
        ag, ag_diff = time_pyagrum(frame, data.names, peer, ours)
        fmt = lambda x: "n/a" if x is None else f"{x:,.0f}"
        ratio = lambda a, b: "n/a" if b is None else f"{a / b:,.0f}x"
        diffs = "/".join("n/a" if d is None else f"{d:.1e}" for d in (pg_diff, ag_diff))
        print(f"| {size} | {single:,.0f} | {one:,.0f} | {every:,.0f} | {fmt(pg)} | {fmt(ag)} "
              f"| {ratio(every, pg)} | {ratio(single, ag)} | {diffs} |")
        rows.append({"parents": size, "local": single, "local_many_1_thread": one, "local_many_all_threads": every,
                     "pgmpy": pg, "pyagrum": ag, "max_rel_diff_pgmpy": pg_diff, "max_rel_diff_pyagrum": ag_diff})
    parts = breakdown(Scorer(data, "bdeu", cache=False), families(rng, data.n_vars, 3, 20 if args.quick else 100))
    print("\nOne 3-parent family, median microseconds (Python call overhead included): "
          + ", ".join(f"{name} {value:.1f}" for name, value in parts.items()))
    path = harness.write_json(args.json, {"rows_of_data": args.rows, "families": args.families,
                                          "rates_per_second": rows, "microseconds_3_parents": parts})
    print(f"raw: {path}")


if __name__ == "__main__":
    main()
