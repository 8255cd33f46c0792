"""Benchmark: ordering-based search over explored parent sets (ASOBS / OBS)
against DAG hill climbing, on data sampled from large reference networks.

Scanagatta, de Campos, Corani & Zaffalon, "Learning Bayesian Networks with
Thousands of Variables", NIPS 2015. For each network, N rows are sampled
(seed 1) and four experiments run; each prints one JSON line per result (and
appends it to ``--out``), and ``--table`` turns those lines into the
markdown tables of the ordering section of ``benchmarks/BENCHMARKS.md``:

- ``main``: ASOBS over independence selection (in-degree <= 6, as in the
  paper), parent sets on ``--workers`` Dask workers, the whole run within
  ``--time-limit`` seconds; then DAG hill climbing (BIC) given the same wall
  time. BIC of both and of the true network, SHD to the truth (between DAGs
  and between CPDAGs), seconds.
- ``explorers``: sequential, greedy and independence selection under the same
  budget of ``--evaluations`` scored sets per variable, each followed by OBS
  and ASOBS (same seed, ``--restarts`` restarts).
- ``speedup``: the same deterministic exploration on 1 process and on 2 Dask
  workers (identical candidates; seconds compared).

Usage::

    python benchmarks/bench_ordering.py --networks andes pigs --parts main restarts explorers
    python benchmarks/bench_ordering.py --table results.jsonl
"""

import argparse
import json
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NETWORKS = ("andes", "diabetes", "pigs", "link", "munin")


def load(name, rows):
    """Sampled data set, its BIC scorer and the true DAG."""
    from bnexplore.bif import read_bif, sample_codes
    from bnexplore.data import Dataset
    from bnexplore.scores import Scorer

    net = read_bif(ROOT / "sample_data" / "networks" / f"{name}.bif.gz")
    data = Dataset.from_codes(sample_codes(net, rows, seed=1), net.arities, net.names)
    return Scorer(data, "bic"), net.dag()


def distances(graph, truth):
    from bnexplore.graphs import shd

    return {"shd": shd(graph, truth), "shd_cpdag": shd(graph.cpdag(), truth.cpdag())}


def emit(out, record):
    line = json.dumps(record)
    print(line, flush=True)
    with open(out, "a") as f:
        f.write(line + "\n")


def main_experiment(name, scorer, truth, args):
    from bnexplore.search.hillclimb import hill_climb
    from bnexplore.search.ordering import ordering_search

    base = {"network": name, "n": scorer.n_vars, "rows": scorer.n_rows, "true_bic": scorer.total(truth)}
    start = time.perf_counter()
    result = ordering_search(scorer, "asobs", parents="independence", max_indegree=6, time_limit=args.time_limit,
                             restarts=10 ** 6, seed=1, workers=args.workers)
    seconds = time.perf_counter() - start
    stats = result.stats
    emit(args.out, {**base, "experiment": "main", "method": "asobs+independence", "bic": result.score,
                    "seconds": seconds, "parent_seconds": stats["parent_seconds"],
                    "evaluated": stats["parent_sets_evaluated"], "candidates": stats["candidates"],
                    "restarts": stats["restarts"], "insertions": stats["insertions"], "swaps": stats["swaps"],
                    "workers": args.workers, **distances(result.graph, truth)})
    start = time.perf_counter()
    hc = hill_climb(scorer, time_limit=seconds)
    emit(args.out, {**base, "experiment": "main", "method": "hill climbing", "bic": hc.score,
                    "seconds": time.perf_counter() - start, "stopped": hc.stats["stopped"],
                    **distances(hc.graph, truth)})


def restarts_experiment(name, scorer, truth, args):
    from bnexplore.search.hillclimb import hill_climb

    base = {"network": name, "n": scorer.n_vars, "rows": scorer.n_rows, "true_bic": scorer.total(truth)}
    start = time.perf_counter()
    hc = hill_climb(scorer, restarts=10 ** 6, perturb=max(1, scorer.n_vars // 4), seed=1, time_limit=args.time_limit)
    emit(args.out, {**base, "experiment": "main", "method": "hill climbing + restarts", "bic": hc.score,
                    "seconds": time.perf_counter() - start, "stopped": hc.stats["stopped"],
                    **distances(hc.graph, truth)})


def explorers_experiment(name, scorer, truth, args):
    from bnexplore.distributed import explore_distributed
    from bnexplore.search.ordering import ordering_search

    base = {"network": name, "n": scorer.n_vars, "rows": scorer.n_rows, "true_bic": scorer.total(truth),
            "experiment": "explorers", "evaluations": args.evaluations}
    for explorer in ("sequential", "greedy", "independence"):
        start = time.perf_counter()
        found = explore_distributed(scorer, explorer, max_indegree=6, max_evaluations=args.evaluations,
                                    workers=args.workers)
        parent_seconds = time.perf_counter() - start
        for method in ("obs", "asobs"):
            start = time.perf_counter()
            result = ordering_search(scorer, method, parents=found, restarts=args.restarts, seed=1)
            emit(args.out, {**base, "explorer": explorer, "method": method, "bic": result.score,
                            "parent_seconds": parent_seconds, "search_seconds": time.perf_counter() - start,
                            "candidates": len(found), **distances(result.graph, truth)})


def speedup_experiment(name, scorer, truth, args):
    from bnexplore.distributed import explore_distributed
    from bnexplore.parents.explore import explore_parent_sets

    options = dict(method="independence", max_indegree=6, max_evaluations=args.evaluations)
    start = time.perf_counter()
    single = explore_parent_sets(scorer, **options)
    one = time.perf_counter() - start
    start = time.perf_counter()
    double = explore_distributed(scorer, **options, workers=2)
    two = time.perf_counter() - start
    same = all(single.sets(v) == double.sets(v) for v in range(scorer.n_vars))
    emit(args.out, {"network": name, "n": scorer.n_vars, "experiment": "speedup",
                    "evaluations": args.evaluations, "one_process_seconds": one, "two_workers_seconds": two,
                    "speedup": one / two, "identical": same})


EXPERIMENTS = {"main": main_experiment, "restarts": restarts_experiment, "explorers": explorers_experiment,
               "speedup": speedup_experiment}


def table(path):
    """Markdown tables from the JSON lines of earlier runs (the last line per key wins)."""
    rows = {}
    for line in Path(path).read_text().splitlines():
        r = json.loads(line)
        key = (r["experiment"], r["network"], r.get("explorer"), r.get("method"))
        rows[key] = r
    out = ["| network | n | method | BIC | true BIC | SHD (DAG) | SHD (CPDAG) | seconds |",
           "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    for (exp, _, _, _), r in rows.items():
        if exp == "main":
            out.append(f"| {r['network']} | {r['n']} | {r['method']} | {r['bic']:,.0f} | {r['true_bic']:,.0f} | "
                       f"{r['shd']} | {r['shd_cpdag']} | {r['seconds']:.0f} |")
    out += ["", "| network | explorer | OBS BIC | ASOBS BIC | candidates | parent seconds |",
            "| --- | --- | ---: | ---: | ---: | ---: |"]
    for (exp, net, explorer, method), r in rows.items():
        if exp == "explorers" and method == "obs":
            a = rows.get((exp, net, explorer, "asobs"), {"bic": float("nan")})
            out.append(f"| {net} | {explorer} | {r['bic']:,.0f} | {a['bic']:,.0f} | {r['candidates']:,} | "
                       f"{r['parent_seconds']:.0f} |")
    out += ["", "| network | evaluations / variable | 1 process (s) | 2 workers (s) | speed-up | identical |",
            "| --- | ---: | ---: | ---: | ---: | --- |"]
    for (exp, _, _, _), r in rows.items():
        if exp == "speedup":
            out.append(f"| {r['network']} | {r['evaluations']:,} | {r['one_process_seconds']:.0f} | "
                       f"{r['two_workers_seconds']:.0f} | {r['speedup']:.2f} | {r['identical']} |")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="+", default=list(NETWORKS), choices=NETWORKS)
    parser.add_argument("--parts", nargs="+", default=list(EXPERIMENTS), choices=list(EXPERIMENTS))
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds for the main ASOBS run")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--evaluations", type=int, default=2000, help="scored sets per variable")
    parser.add_argument("--restarts", type=int, default=10)
    parser.add_argument("--out", default="ordering_results.jsonl")
    parser.add_argument("--table", metavar="JSONL", help="print the markdown tables of a results file")
    args = parser.parse_args()
    if args.table:
        print(table(args.table))
        return
    for name in args.networks:
        scorer, truth = load(name, args.rows)
        for part in args.parts:
            EXPERIMENTS[part](name, scorer, truth, args)


if __name__ == "__main__":
    main()
