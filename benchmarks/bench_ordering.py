"""Benchmark: the large-network learner (ASOBS seeded by hill climbing) against
DAG hill climbing with restarts in the same wall time, and the parent-set
explorers and OBS / ASOBS compared as in Scanagatta et al. (2015), Table 2.

Scanagatta, de Campos, Corani & Zaffalon, "Learning Bayesian Networks with
Thousands of Variables", NIPS 2015. Data: N rows forward-sampled with the
project's sampler (``bnexplore.bif.sample_codes``) from the bundled networks
(``sample_data/networks``), BIC. Every experiment prints one JSON line per
result (also appended to ``--out``, by default ``benchmarks/results/ordering.jsonl``);
``--table`` turns a results file into the
markdown tables of the ordering section of ``benchmarks/BENCHMARKS.md``.

- ``main``: ``learn(data, "asobs")`` as shipped (hill climbing first, parent
  sets by independence selection, in-degree <= 6, on ``--workers`` Dask
  workers, ordering search seeded by the hill-climbing graph, refinement)
  within ``--seconds``; then, in the same process, DAG hill climbing with
  random restarts (the library's defaults) given exactly the wall time ASOBS
  took. BIC, margin, SHD to the true DAG and between CPDAGs, seconds.
- ``paper``: the paper's ASOBS (``start=None``: random orderings over the
  explored sets only) within the same ``--seconds``, for reference.
- ``table2``: for each data set (``--samples`` seeds per network), sequential,
  greedy and independence selection under the same budget of
  ``--evaluations`` scored sets per variable, each followed by the paper's OBS
  and ASOBS (same seed, ``--restarts`` random orderings, no seed graph); the
  table counts the signs of Delta-BIC in the paper's bands.
- ``speedup``: the same deterministic exploration on 1 process and on 2 Dask
  workers (identical candidates; seconds compared).

Usage::

    python benchmarks/bench_ordering.py --quick                       # andes, main, 60 s
    python benchmarks/bench_ordering.py --parts main --networks andes pigs --seconds 120 180
    python benchmarks/bench_ordering.py --parts table2 --samples 3 --evaluations 1000
    python benchmarks/bench_ordering.py --table benchmarks/out/ordering.jsonl

Full run (the tables in BENCHMARKS.md)::

    python benchmarks/bench_ordering.py --parts main --out benchmarks/out/ordering.jsonl
    python benchmarks/bench_ordering.py --parts table2 --out benchmarks/out/ordering.jsonl
"""

import argparse
import json
import time
from pathlib import Path

import harness
from harness import emit
NETWORKS = ("andes", "diabetes", "pigs", "link", "munin")
SECONDS = {"andes": 120, "diabetes": 180, "pigs": 180, "link": 300, "munin": 600}
"""Default wall time per network (munin: the 10-minute target)."""
TABLE2_NETWORKS = ("andes", "diabetes", "pigs", "link", "munin")
BANDS = ("< -10", "-10..-6", "-6..-2", "-2..0", "0", "0..2", "2..6", "6..10", "> 10")
"""Delta-BIC bands of the paper's Table 2 (Raftery 1995: weak, positive, strong, very strong)."""


def load(name, rows, seed=1):
    """Sampled data set and the true DAG."""
    network, data = harness.sampled(name, rows, seed)
    return data, network.dag()


def distances(graph, truth):
    from bnexplore.graphs import shd

    return {"shd": shd(graph, truth), "shd_cpdag": shd(graph.cpdag(), truth.cpdag())}


def warm_up():
    """Compile (or load) the numba kernels before anything is timed."""
    from bnexplore.scores import Scorer
    from bnexplore.search.hillclimb import hill_climb
    from bnexplore.search.ordering import ordering_search

    data, _ = load("asia", 300)
    scorer = Scorer(data, "bic")
    hill_climb(scorer, restarts=1, seed=0)
    ordering_search(scorer, "asobs", max_evaluations=20, restarts=2, seed=0)
    ordering_search(scorer, "obs", max_evaluations=20, restarts=2, seed=0, start=None)


def main_experiment(name, data, truth, seconds, args):
    from bnexplore import learn
    from bnexplore.scores import Scorer
    from bnexplore.search.hillclimb import hill_climb

    scorer = Scorer(data, "bic")
    base = {"experiment": "main", "network": name, "n": scorer.n_vars, "rows": scorer.n_rows,
            "true_bic": scorer.total(truth), "budget": seconds, "workers": args.workers}
    start = time.perf_counter()
    ours = learn(data, "asobs", scorer=scorer, parents="independence", max_indegree=6, time_limit=seconds,
                 restarts=10 ** 6, seed=1, workers=args.workers)
    took = time.perf_counter() - start
    s = ours.stats
    emit(args.out, {**base, "method": "asobs (seeded by hill climbing)", "bic": ours.score, "seconds": took,
                    "hc_bic": s["seed_score"], "hc_seconds": s["seed_seconds"], "parent_seconds": s["parent_seconds"],
                    "evaluated": s["parent_sets_evaluated"], "candidates": s["candidates"],
                    "pool_added": s["pool_added"], "restarts": s["restarts"], "refinements": s["refinements"],
                    "polish_steps": s["polish_steps"], **distances(ours.graph, truth)})
    start = time.perf_counter()
    hc = hill_climb(Scorer(data, "bic"), restarts=10 ** 6, seed=1, time_limit=took)
    emit(args.out, {**base, "method": "hill climbing + restarts", "bic": hc.score,
                    "seconds": time.perf_counter() - start, "restarts": hc.params["restarts"],
                    "perturb": hc.params["perturb"], **distances(hc.graph, truth)})


def paper_experiment(name, data, truth, seconds, args):
    from bnexplore.scores import Scorer
    from bnexplore.search.ordering import ordering_search

    scorer = Scorer(data, "bic")
    start = time.perf_counter()
    result = ordering_search(scorer, "asobs", parents="independence", max_indegree=6, time_limit=seconds,
                             restarts=10 ** 6, seed=1, workers=args.workers, start=None)
    emit(args.out, {"experiment": "main", "network": name, "n": scorer.n_vars, "rows": scorer.n_rows,
                    "true_bic": scorer.total(truth), "budget": seconds, "method": "asobs (paper: random orderings)",
                    "bic": result.score, "seconds": time.perf_counter() - start,
                    "restarts": result.stats["restarts"], "evaluated": result.stats["parent_sets_evaluated"],
                    **distances(result.graph, truth)})


def table2_experiment(name, args):
    from bnexplore.distributed import explore_distributed
    from bnexplore.scores import Scorer
    from bnexplore.search.ordering import ordering_search

    for sample in range(1, args.samples + 1):
        data, truth = load(name, args.rows, seed=sample)
        scorer = Scorer(data, "bic", cache=False)
        base = {"experiment": "table2", "network": name, "sample": sample, "n": scorer.n_vars,
                "rows": scorer.n_rows, "evaluations": args.evaluations}
        for explorer in ("sequential", "greedy", "independence"):
            start = time.perf_counter()
            found = explore_distributed(scorer, explorer, max_indegree=6, max_evaluations=args.evaluations,
                                        workers=args.workers)
            parent_seconds = time.perf_counter() - start
            for method in ("obs", "asobs"):
                start = time.perf_counter()
                result = ordering_search(scorer, method, parents=found, restarts=args.restarts, seed=1, start=None)
                emit(args.out, {**base, "explorer": explorer, "method": method, "bic": result.score,
                                "parent_seconds": parent_seconds, "search_seconds": time.perf_counter() - start,
                                "candidates": len(found), **distances(result.graph, truth)})


def speedup_experiment(name, data, truth, seconds, args):
    from bnexplore.distributed import explore_distributed
    from bnexplore.parents.explore import explore_parent_sets
    from bnexplore.scores import Scorer

    scorer = Scorer(data, "bic")
    options = dict(method="independence", max_indegree=6, max_evaluations=args.evaluations)
    start = time.perf_counter()
    single = explore_parent_sets(scorer, **options)
    one = time.perf_counter() - start
    start = time.perf_counter()
    double = explore_distributed(scorer, **options, workers=2)
    two = time.perf_counter() - start
    same = all(single.sets(v) == double.sets(v) for v in range(scorer.n_vars))
    emit(args.out, {"experiment": "speedup", "network": name, "n": scorer.n_vars,
                    "evaluations": args.evaluations, "one_process_seconds": one, "two_workers_seconds": two,
                    "speedup": one / two, "identical": same})


EXPERIMENTS = {"main": main_experiment, "paper": paper_experiment, "speedup": speedup_experiment}


def band(delta):
    """The Table 2 band of a Delta-BIC (0 within 1e-6)."""
    if abs(delta) < 1e-6:
        return "0"
    size = abs(delta)
    index = next((k for k, edge in enumerate((2, 6, 10)) if size <= edge), 3)
    positive = ("0..2", "2..6", "6..10", "> 10")
    negative = ("-2..0", "-6..-2", "-10..-6", "< -10")
    return (positive if delta > 0 else negative)[index]


def table(path):
    """Markdown tables from the JSON lines of earlier runs (the last line per key wins)."""
    rows = {}
    for line in Path(path).read_text().splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        rows[(r["experiment"], r["network"], r.get("sample"), r.get("explorer"), r.get("method"))] = r
    mains = [r for (exp, *_), r in rows.items() if exp == "main"]
    out = ["| network | n | method | BIC | margin over hc + restarts | true BIC | SHD (DAG) | SHD (CPDAG) | seconds |",
           "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"] if mains else []
    for r in mains:
        ref = rows.get(("main", r["network"], None, None, "hill climbing + restarts"))
        margin = f"{r['bic'] - ref['bic']:+,.0f}" if ref and r is not ref else ""
        out.append(f"| {r['network']} | {r['n']} | {r['method']} | {r['bic']:,.0f} | {margin} | {r['true_bic']:,.0f} | "
                   f"{r['shd']} | {r['shd_cpdag']} | {r['seconds']:.0f} |")
        if r["method"].startswith("asobs (seeded"):
            out.append(f"| {r['network']} | {r['n']} | (its hill-climbing seed) | {r['hc_bic']:,.0f} | "
                       f"{r['hc_bic'] - ref['bic']:+,.0f} | | | | {r['hc_seconds']:.0f} |" if ref else "")
    t2 = [r for (exp, *_), r in rows.items() if exp == "table2"]
    if t2:
        by = {(r["network"], r["sample"], r["explorer"], r["method"]): r for r in t2}
        explorers = ("sequential", "greedy", "independence")
        out += ["", "Means over the samples of each network (ASOBS BIC per explorer; ASOBS - OBS per explorer; "
                "SHD of ASOBS to the true DAG; explored sets kept):", "",
                "| network | samples | ASOBS + SQ | ASOBS + GS | ASOBS + IS | ASOBS - OBS (SQ / GS / IS) | "
                "SHD (SQ / GS / IS) | candidates (SQ / GS / IS) |",
                "| --- | ---: | ---: | ---: | ---: | --- | --- | --- |"]
        for net in dict.fromkeys(r["network"] for r in t2):
            samples = sorted({k[1] for k in by if k[0] == net})

            def mean(explorer, key, method="asobs", net=net, samples=samples):
                return sum(by[(net, s, explorer, method)][key] for s in samples) / len(samples)

            gaps = " / ".join(f"{mean(e, 'bic') - mean(e, 'bic', 'obs'):+,.0f}" for e in explorers)
            out.append(f"| {net} | {len(samples)} | " + " | ".join(f"{mean(e, 'bic'):,.0f}" for e in explorers)
                       + f" | {gaps} | " + " / ".join(f"{mean(e, 'shd'):.0f}" for e in explorers) + " | "
                       + " / ".join(f"{mean(e, 'candidates'):,.0f}" for e in explorers) + " |")
        comparisons = [("IS vs GS", "OBS", [("independence", "obs"), ("greedy", "obs")]),
                       ("IS vs SQ", "OBS", [("independence", "obs"), ("sequential", "obs")]),
                       ("IS vs GS", "ASOBS", [("independence", "asobs"), ("greedy", "asobs")]),
                       ("IS vs SQ", "ASOBS", [("independence", "asobs"), ("sequential", "asobs")]),
                       ("ASOBS vs OBS", "IS", [("independence", "asobs"), ("independence", "obs")]),
                       ("ASOBS vs OBS", "GS", [("greedy", "asobs"), ("greedy", "obs")]),
                       ("ASOBS vs OBS", "SQ", [("sequential", "asobs"), ("sequential", "obs")])]
        datasets = sorted({(r["network"], r["sample"]) for r in t2})
        out += ["", f"Delta-BIC sign counts over {len(datasets)} data sets (the paper's Table 2 bands):", "",
                "| comparison | with | " + " | ".join(BANDS) + " | positive / negative |",
                "| --- | --- | " + " | ".join("---:" for _ in BANDS) + " | --- |"]
        for label, solver, ((e1, m1), (e2, m2)) in comparisons:
            counts = dict.fromkeys(BANDS, 0)
            for net, sample in datasets:
                a, b = by.get((net, sample, e1, m1)), by.get((net, sample, e2, m2))
                if a and b:
                    counts[band(a["bic"] - b["bic"])] += 1
            pos = sum(counts[b] for b in ("0..2", "2..6", "6..10", "> 10"))
            neg = sum(counts[b] for b in ("< -10", "-10..-6", "-6..-2", "-2..0"))
            out.append(f"| {label} | {solver} | " + " | ".join(str(counts[b]) for b in BANDS)
                       + f" | {pos} / {neg} |")
    speed = [r for (exp, *_), r in rows.items() if exp == "speedup"]
    if speed:
        out += ["", "| network | evaluations / variable | 1 process (s) | 2 workers (s) | speed-up | identical |",
                "| --- | ---: | ---: | ---: | ---: | --- |"]
        for r in speed:
            out.append(f"| {r['network']} | {r['evaluations']:,} | {r['one_process_seconds']:.0f} | "
                       f"{r['two_workers_seconds']:.0f} | {r['speedup']:.2f} | {r['identical']} |")
    return "\n".join(line for line in out if line is not None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="andes, main experiment, 60 seconds")
    parser.add_argument("--networks", nargs="+", default=None, help=f"default: {' '.join(NETWORKS)}")
    parser.add_argument("--seconds", nargs="+", type=float, default=None,
                        help="wall time per network (one value for all, or one per network); "
                             f"default {SECONDS}")
    parser.add_argument("--parts", nargs="+", default=["main"], choices=list(EXPERIMENTS) + ["table2"])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--samples", type=int, default=3, help="table2: data sets per network (seeds 1..S)")
    parser.add_argument("--evaluations", type=int, default=1000, help="table2 / speedup: scored sets per variable")
    parser.add_argument("--restarts", type=int, default=10, help="table2: random orderings per search")
    harness.output_option(parser, "ordering", "--out", ".jsonl")
    parser.add_argument("--table", metavar="JSONL", help="print the markdown tables of a results file")
    args = parser.parse_args()
    if args.table:
        print(table(args.table))
        return
    args.out = harness.output_path(args.out, "ordering", args.quick, ".jsonl")
    if args.quick:
        args.networks, args.seconds, args.parts = ["andes"], [60.0], ["main"]
    networks = args.networks or list(TABLE2_NETWORKS if args.parts == ["table2"] else NETWORKS)
    seconds = args.seconds or [SECONDS.get(name, 300) for name in networks]
    if len(seconds) == 1:
        seconds = seconds * len(networks)
    if len(seconds) != len(networks):
        parser.error("--seconds takes one value, or one per network")
    warm_up()
    for name, limit in zip(networks, seconds):
        if "table2" in args.parts:
            table2_experiment(name, args)
        parts = [p for p in args.parts if p != "table2"]
        if parts:
            data, truth = load(name, args.rows)
            for part in parts:
                EXPERIMENTS[part](name, data, truth, limit, args)


if __name__ == "__main__":
    main()
