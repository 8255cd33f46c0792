"""Benchmark: the exact optimum and credible sets to 60 variables, subset DP and branch and cut on SCIP.

Two tables.

1. Every data set of Table 1 of Liao, Sharma, Cussens & van Beek (2019,
   AAAI) found in ``benchmarks/data/ebnsl/`` (copied from the authors'
   repository; no header, arity = distinct values observed), BIC: time to
   build the candidate parent sets (pruned for BF = 150, they serve every
   smaller BF and the optimum), time to prove OPT, and for BF = 3, 20 and 150
   (limit 150,000) the enumeration seconds and the numbers of credible DAGs,
   Markov equivalence classes and RPDAG classes, with peak memory. The
   ``auto`` engine runs every row; where both engines run (the DP fits and
   its estimate is at most ``--dp-limit``, by default the time limit) the other engine runs the
   optimum too, and the credible sets whose DP count is at most
   ``--both-limit`` DAGs (the ILP enumerates far more slowly than the DP).
   The paper's times T (GOBNILP on SCIP 6 with CPLEX, their machine) are
   printed beside ours.
2. The exact optimum (BIC and BDeu, ess 1; in-degree <= 3, and unbounded
   where the candidate sets can be built) of forward samples (seed 1) of the
   bundled alarm network at N = 1,000, 5,000 and 20,000, and of insurance,
   child and hailfinder at N = 5,000: seconds to proof (or the proven gap at
   the time limit), with hill climbing, tabu and ASOBS (on the same candidate
   parent sets) and their gap to the optimum.

Every task runs in a fresh process (its peak memory is its own) under a time
limit (``--time-limit``, default 600 s per optimum and per Bayes factor): a
row that needs more reports its proven gap or its partial count, and a row
over target prints where the time goes (SCIP's statistics: LP, strong
branching, our cut separation and heuristics, enumeration).

Run (the full table takes a few hours on 2 cores)::

    PYTHONPATH=. python benchmarks/bench_ilp.py --out benchmarks/out/ilp.md   # raw: benchmarks/results/ilp.json

Options: ``--quick`` (a few small rows, a minute or two), ``--rows NAME ...``
(Table 1 names or ``alarm-1000`` style sample names), ``--time-limit S``,
``--both-limit K``, ``--dp-limit S``, ``--report-from FILE`` (Markdown from an earlier ``--json``).
"""

import argparse
import json
import math
import time
from pathlib import Path

import harness
from harness import ROOT, peak_mib, seconds

DATA = ROOT / "benchmarks" / "data" / "ebnsl"
BAYES_FACTORS = (3, 20, 150)
LIMIT = 150_000

TABLE1 = [("tic-tac-toe", (1.9, 2.0, 3.3)), ("wine", (4.1, 24.9, 143.7)), ("adult", (17.5, 45.1, 55.7)),
          ("nltcs", (53.8, 201.7, 1005)), ("msnbc", (3483, 7147, 8821)), ("letter", None),
          ("voting", (1.3, 4.0, 14.3)), ("zoo", (8.1, 21.9, 299)), ("hepatitis", (7.1, 513, 1453)),
          ("parkinsons", (30.7, 3166, 4534)), ("sensors", None), ("autos", (95, 2383, 6667)),
          ("insurance1000", (49.8, 245, 415)), ("horse", (18.8, 1359, 1963)), ("flag", (16.1, 4052, 5561)),
          ("wdbc", (396, 10144, 45938)), ("mildew1000", (1.2, 1.2, 2.1)), ("soybean", (7729, 16097, 8894)),
          ("alarm1000", (6.3, 684, 2258)), ("bands", (101, 2033, 16975)), ("spectf", (432, 7425, 19665)),
          ("sponge", (16.8, 1301, 1254)), ("barley1000", (0.8, 0.8, 1.3)), ("hailfinder100", (172, 149, 215)),
          ("hailfinder500", (286, 314, 217)), ("lung-cancer", (584, 967, 2740))]
"""Table 1 of the paper: data set and its search times T for BF 3 / 20 / 150 (None: out of time there)."""

SAMPLES = [("alarm", 1000), ("alarm", 5000), ("alarm", 20000), ("insurance", 5000), ("child", 5000),
           ("hailfinder", 5000)]
"""(network, rows) forward samples, seed 1, for the optimum table."""

QUICK_TABLE1 = ["tic-tac-toe", "insurance1000", "barley1000"]
QUICK_SAMPLES = [("alarm", 1000)]


# -- workers (each in its own process) ---------------------------------------------------------

def warm_up():
    """Compile (or load) every numba kernel and SCIP once, so no timing includes it."""
    import numpy as np

    from bnexplore.data import Dataset
    from bnexplore.parents.pruning import candidate_parent_sets
    from bnexplore.scores import Scorer
    from bnexplore.search import credible_set, cuts, exact_search, learn
    from bnexplore.search.subsets import CandidateArrays as Candidates

    data = Dataset.from_codes(np.random.default_rng(0).integers(0, 2, (60, 5)))
    for engine in ("dp", "ilp"):
        exact_search(Scorer(data, "bic"), engine=engine)
        credible_set(data, bf=20, engine=engine)
    cands = Candidates(candidate_parent_sets(Scorer(data, "bic")))  # the 4B kernels run only on hard LP points
    x = np.full(len(cands.masks), 0.5)
    cuts.separate_four_b(x, cands.masks, cands.offsets, 1e-3, 4)
    cuts.four_b_families(cands.masks, cands.offsets, 0, 1, 2, 3)
    for algorithm in ("hc", "tabu", "asobs"):
        learn(data, algorithm, score="bic")


def time_breakdown(stats):
    """Where the time of one ILP run went: SCIP's statistics digested (seconds)."""
    scip = stats.get("scip") or {}
    lp = scip.get("lp", {})
    out = {"total": stats.get("seconds_scip"), "lp": sum(lp.get(k, {}).get("time", 0.0) for k in ("primal_lp",
                                                                                                  "dual_lp")),
           "strong_branching": lp.get("strongbranch_lp", {}).get("time", 0.0),
           "cut_separation": stats.get("seconds_separation"), "heuristics": stats.get("seconds_heuristic"),
           "enumeration_callbacks": stats.get("seconds_enforcement"), "exploration": stats.get("seconds_exploration"),
           "presolving": scip.get("timing", {}).get("presolving_time", 0.0),
           "scip_separators": sum(v.get("exec_time", 0.0) for v in scip.get("separator", {}).get("plugins",
                                                                                                  {}).values()),
           "nodes": stats.get("nodes"), "lp_iterations": stats.get("lp_iterations"),
           "cluster_cuts": stats.get("cluster_cuts")}
    return out


def load_ebnsl(name):
    from bnexplore.data import read_csv

    return read_csv(DATA / f"{name}.csv.gz", header=False, types="categorical")


def candidate_sets(scorer, epsilon):
    """Candidate parent sets pruned for ``epsilon``; when a level overflows, the largest in-degree that fits."""
    from bnexplore.errors import ResourceError
    from bnexplore.parents.pruning import candidate_parent_sets

    max_indegree = None
    while True:
        try:
            return candidate_parent_sets(scorer, epsilon=epsilon, max_indegree=max_indegree), max_indegree
        except ResourceError as err:
            text = str(err)
            if "max_indegree=" not in text:
                raise
            max_indegree = int(text.split("max_indegree=")[1].split()[0])


def work_table1(name, time_limit, both_limit, bayes_factors=BAYES_FACTORS, dp_limit=None):
    """Caches, OPT (both engines where both run) and the credible sets of one Table 1 data set at ``bayes_factors``."""
    from bnexplore.scores import Scorer
    from bnexplore.search import choose_engine, credible_set, exact_search
    from bnexplore.search.exact import dp_seconds
    from bnexplore.search.subsets import CandidateArrays as Candidates
    from bnexplore.search.ilp import ilp_search

    warm_up()
    data = load_ebnsl(name)
    scorer = Scorer(data, "bic")
    n = data.n_vars
    t0 = time.perf_counter()
    parent_sets, max_indegree = candidate_sets(scorer, math.log(max(BAYES_FACTORS)))
    out = {"name": name, "n": n, "N": data.n_rows, "cache_seconds": time.perf_counter() - t0,
           "candidates": len(parent_sets), "max_indegree": max_indegree, "opt": {}, "bf": {}}
    auto = choose_engine(n, parent_sets, "optimum")[0]
    dp_limit = time_limit if dp_limit is None else dp_limit
    both = (dp_seconds(n) <= dp_limit and choose_engine(n, parent_sets, "optimum", engine="dp")[0] == "dp"
            and dp_seconds(n, Candidates(parent_sets)) <= dp_limit)
    for engine in (["dp", "ilp"] if both else [auto]):
        t = time.perf_counter()
        if engine == "ilp":
            result = ilp_search(scorer, parent_sets=parent_sets, time_limit=time_limit, statistics=True)
        else:
            result = exact_search(scorer, parent_sets=parent_sets, engine=engine, time_limit=time_limit)
        out["opt"][engine] = {"score": result.score, "seconds": time.perf_counter() - t,
                              "exact": result.stats["exact"], "gap": result.stats.get("gap"),
                              "breakdown": time_breakdown(result.stats) if engine == "ilp" else None}
    for bf in bayes_factors:
        runs = {}
        engines = ["auto"]
        for requested in engines:
            t = time.perf_counter()
            cs = credible_set(scorer, bf=bf, parent_sets=parent_sets, limit=LIMIT, engine=requested,
                              time_limit=time_limit, statistics=True)
            eng = cs.stats["engine"]
            runs[eng] = {"engine": eng, "auto": requested == "auto", "ilp_attempt_seconds": cs.stats.get("seconds_ilp_attempt"),
                         "dags": len(cs), "classes": len(cs.classes), "rpdag_classes": len(cs.rpdag_classes),
                         "seconds": time.perf_counter() - t, "opt": cs.opt,
                         "enum_seconds": cs.stats.get("seconds_enumeration", 0.0) + cs.stats["seconds_grouping"],
                         "reused_from_bf": cs.stats.get("reused_from_bf"),
                         "truncated": cs.truncated_reason, "stopped": cs.stats.get("stopped"),
                         "complete_bf": None if cs.complete_epsilon is None else math.exp(cs.complete_epsilon),
                         "nodes": cs.stats.get("search_steps"),
                         "seconds_to_limit": cs.stats.get("seconds_to_limit"),
                         "breakdown": {part: time_breakdown(cs.stats[f"{part}_stats"]) for part in
                                       ("optimum", "enumeration") if f"{part}_stats" in cs.stats},
                         "dag_set": sorted(map(tuple, cs.parent_masks.tolist())) if len(cs) <= both_limit else None}
            if both and requested == "auto" and len(cs) <= both_limit and not cs.truncated:
                engines.append("ilp" if eng == "dp" else "dp")  # the other engine beside it, on the same set
        if len(runs) == 2:
            runs["ilp"]["same_as_dp"] = runs["ilp"]["dag_set"] == runs["dp"]["dag_set"] or (
                "stopped" if runs["ilp"]["stopped"] else False)
        for r in runs.values():
            r.pop("dag_set")
        out["bf"][bf] = runs
    out["peak_mib"] = peak_mib()
    return out


def work_optimum(net, rows, score, max_indegree, time_limit):
    """The exact optimum of a forward sample by the ILP, with hc, tabu and ASOBS beside it."""
    from bnexplore.errors import ResourceError
    from bnexplore.parents.pruning import candidate_parent_sets
    from bnexplore.scores import Scorer
    from bnexplore.search import learn
    from bnexplore.search.ilp import ilp_search

    warm_up()
    _, data = harness.sampled(net, rows)
    scorer = Scorer(data, score)
    out = {"net": net, "rows": rows, "score": score, "max_indegree": max_indegree, "n": data.n_vars}
    t = time.perf_counter()
    try:
        parent_sets = candidate_parent_sets(scorer, max_indegree=max_indegree)
    except ResourceError as err:
        out["error"] = str(err)
        return out
    out.update(cache_seconds=time.perf_counter() - t, candidates=len(parent_sets))
    t = time.perf_counter()
    result = ilp_search(scorer, parent_sets=parent_sets, time_limit=time_limit, statistics=True)
    out.update(seconds=time.perf_counter() - t, opt=result.score, exact=result.stats["exact"],
               bound=result.stats["bound"], gap=result.stats["gap"], breakdown=time_breakdown(result.stats),
               seed_score=result.stats.get("seed_score"))
    heuristics = {}
    for label, algorithm, options in (("hc", "hc", {"max_indegree": max_indegree}),
                                      ("tabu", "tabu", {"max_indegree": max_indegree}),
                                      ("asobs", "asobs", {"parents": parent_sets, "seed": 1})):
        t = time.perf_counter()
        r = learn(data, algorithm, score=score, scorer=scorer, **options)
        heuristics[label] = {"score": r.score, "seconds": time.perf_counter() - t}
    out["heuristics"] = heuristics
    out["peak_mib"] = peak_mib()
    return out


WORKERS = {"table1": work_table1, "optimum": work_optimum}


# -- the report -----------------------------------------------------------------------------------

def credible_cell(b):
    if b is None:
        return ""
    mark = ""
    if b.get("stopped"):
        mark = " (stopped)"
    elif b.get("truncated"):
        mark = f"+ (BF {b['complete_bf']:.3g})" if b.get("complete_bf") else "+ (all tie with OPT)"
        if b.get("reused_from_bf"):
            mark += f", the BF {b['reused_from_bf']:.3g} set"
    engine = b.get("engine", "").upper()
    if b.get("ilp_attempt_seconds") is not None:
        engine += f" after {seconds(b['ilp_attempt_seconds'])} s of ILP"
    held = b.get("seconds_to_limit")
    held = f"; {LIMIT:,} held at {seconds(held)} s" if held is not None else ""
    return (f"{b['dags']:,}{mark} / {b['classes']:,} / {b['rpdag_classes']:,} / {seconds(b['seconds'])}"
            + (f" ({engine}{held})" if engine else held))


def where_time_went(b):
    """One line from :func:`time_breakdown`: LP, strong branching, our cuts, SCIP's cuts, heuristics,
    integral points (cycle cuts; in an enumeration also recording and branching away each DAG), exploring
    around recorded classes (an enumeration), tree nodes."""
    exploring = f", exploring {seconds(b['exploration'])}" if b.get("exploration") else ""
    return (f"LP {seconds(b['lp'])}, strong branching {seconds(b['strong_branching'])}, cuts "
            f"{seconds(b['cut_separation'])}, SCIP's cuts {seconds(b.get('scip_separators'))}, heuristics "
            f"{seconds(b['heuristics'])}, integral points {seconds(b.get('enumeration_callbacks'))}{exploring}; "
            f"{b['nodes']:,} nodes")


def report(table1, optima, args):
    lines = ["## Exact optimum and credible sets to 60 variables: subset DP and branch and cut (issue 14)", "",
             f"`benchmarks/bench_ilp.py`; {harness.machine_line()}; per-task time limit {args.time_limit:.0f} s. "
             "BIC, limit 150,000. Caches: candidate parent sets pruned for BF = 150 (an in-degree bound is "
             "noted where a level of candidate sets overflows the cache builder). OPT: seconds to prove the "
             "optimum by each engine that runs. BF "
             "columns: credible DAGs / Markov equivalence classes / RPDAG classes / seconds (optimum, enumeration "
             "and grouping) by the `auto` engine, and which engine ran (the other engine's seconds beside it where "
             "both run). T: the paper's search times for BF 3 / 20 / 150 (GOBNILP + CPLEX, their machine).", "",
             "| data | n | N | caches s | sets | OPT | OPT s: DP / ILP | BF 3 | BF 20 | BF 150 | T (paper) "
             "| peak MiB |", "|" + "---|" * 12]
    for r in table1:
        if "error" in r:
            lines.append(harness.error_row(r["name"], r["error"], 12))
            continue
        dp, ip = r["opt"].get("dp"), r["opt"].get("ilp")
        best = (dp or ip)
        opt = f"{best['score']:.4f}" + ("" if best["exact"] else f" (gap {best['gap']:.3g})")
        opt_s = f"{seconds(dp['seconds']) if dp else '-'} / " + (
            f"{seconds(ip['seconds'])}" + ("" if ip["exact"] else " (stopped)") if ip else "-")
        cells = []
        for bf in BAYES_FACTORS:
            runs = r["bf"].get(str(bf))
            if runs is None:
                cells.append("not run")
                continue
            first = next(r for r in runs.values() if r.get("auto", True))
            cell = credible_cell(first)
            if "dp" in runs and "ilp" in runs:
                same = runs["ilp"].get("same_as_dp")
                other = "ILP" if first is runs["dp"] else "DP"
                beside = runs[other.lower()]
                cell += f"; {other} {seconds(beside['seconds'])} s" + (" (same set)" if same is True else
                                                                       f" ({same or 'differs'})")
            cells.append(cell)
        paper = dict(TABLE1).get(r["name"])
        t = " / ".join(f"{x:g}" for x in paper) if paper else "out of time"
        indeg = f" (in-degree <= {r['max_indegree']})" if r.get("max_indegree") is not None else ""
        lines.append(f"| {r['name']}{indeg} | {r['n']} | {r['N']:,} | {seconds(r['cache_seconds'])} | "
                     f"{r['candidates']:,} | {opt} | {opt_s} | " + " | ".join(cells) + f" | {t} | "
                     f"{r['peak_mib']:.0f} |")
    lines += ["", "`+ (BF x)`: the limit was reached; the set is every DAG within the smaller Bayes factor x. "
              "`(stopped)`: the time limit stopped the search (the count is what was found). "
              f"`{LIMIT:,} held at x s`: when the set first held the limit, x s after the search began (the "
              "candidates built); the paper's GOBNILP stops counting there (SCIP's `constraints/countsols/sollimit` "
              "in eBNSL's `run_score.sh`), while bnexplore goes on to keep the best.", ""]
    stopped = [(r["name"], bf, run) for r in table1 for bf, runs in r.get("bf", {}).items()
               for run in runs.values() if run.get("stopped") and run.get("breakdown")]
    if stopped:
        lines += ["Where the time of each stopped credible set went (the ILP):", ""]
        for name, bf, run in stopped:
            parts = [f"{part}: {where_time_went(b)}" for part, b in run["breakdown"].items()
                     if b.get("nodes")]  # a reused optimum ran no search
            lines.append(f"- {name}, BF {bf}: " + "; ".join(parts))
        lines.append("")
    lines += ["### Exact optimum of forward samples, with the heuristics' gap", "",
              "| network | N | score | in-degree | sets | proof s (or gap at the limit) | OPT | hc | tabu | ASOBS "
              "| where the ILP's time went |", "|" + "---|" * 11]
    for r in optima:
        head = f"| {r['net']} | {r['rows']:,} | {r['score']} | {r['max_indegree'] or 'any'} |"
        if "error" in r:
            lines.append(f"{head} | {r['error'][:90]} |" + " |" * 6)
            continue
        proof = seconds(r["seconds"]) if r["exact"] else f"gap {r['gap']:.4g} after {seconds(r['seconds'])} s"
        gaps = []
        for label in ("hc", "tabu", "asobs"):
            h = r["heuristics"][label]
            gaps.append(f"{h['score']:.1f} (gap {r['opt'] - h['score']:.3g})")
        lines.append(f"{head} {r['candidates']:,} | {proof} | {r['opt']:.1f} | " + " | ".join(gaps) +
                     f" | {where_time_went(r['breakdown'])} |")
    lines += ["", "Gap = OPT - the heuristic's score (0: it found an optimum); where the ILP stopped at the time "
              "limit, OPT is its incumbent and the proven gap says how far above it the optimum may be."]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few small rows")
    parser.add_argument("--rows", nargs="*", help="Table 1 names and/or samples like alarm-5000")
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds per optimum and per BF")
    parser.add_argument("--bayes-factors", type=int, nargs="*", default=list(BAYES_FACTORS),
                        help="Table 1 rows: the Bayes factors to run (3, 20 and 150 by default)")
    parser.add_argument("--both-limit", type=int, default=5000,
                        help="run the ILP's credible set beside the DP's when the DP finds at most this many DAGs")
    parser.add_argument("--out", help="also write the Markdown section here")
    harness.output_option(parser, "ilp")
    parser.add_argument("--dp-limit", type=float,
                        help="run the subset DP beside the ILP only when its estimate is at most this many "
                             "seconds (default: the time limit)")
    parser.add_argument("--report-from", help="Markdown from an earlier --json file")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        harness.serve_worker(WORKERS, args.worker)
        return
    args.json = harness.output_path(args.json, "ilp", args.quick)
    if args.report_from:
        saved = json.loads(Path(args.report_from).read_text())
        print(report(saved["table1"], saved["optima"], args))
        return
    names = [name for name, _ in TABLE1]
    if args.rows:
        table1 = [r for r in args.rows if r in names]
        samples = [(r.rsplit("-", 1)[0], int(r.rsplit("-", 1)[1])) for r in args.rows if r not in names]
    elif args.quick:
        table1, samples = QUICK_TABLE1, QUICK_SAMPLES
    else:
        table1, samples = [n for n in names if (DATA / f"{n}.csv.gz").exists()], SAMPLES
    budget = 4 * args.time_limit * (1 + len(BAYES_FACTORS)) + 600
    results = {"table1": [], "optima": []}

    def save():
        text = report(results["table1"], results["optima"], args)
        if args.out:
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.out).write_text(text)
        if args.json:
            harness.write_json(args.json, results)
        return text

    for name in table1:
        r = harness.run_worker(__file__, "table1",
                               [name, args.time_limit, args.both_limit, args.bayes_factors, args.dp_limit], budget)
        r.setdefault("name", name)
        results["table1"].append(r)
        print(json.dumps(r), flush=True)
        save()
    for net, rows in samples:
        for score in ("bic", "bdeu"):
            for max_indegree in (3, None):
                r = harness.run_worker(__file__, "optimum", [net, rows, score, max_indegree, args.time_limit],
                                       3 * args.time_limit + 600)
                r.update(net=net, rows=rows, score=score, max_indegree=max_indegree)
                results["optima"].append(r)
                print(json.dumps(r), flush=True)
                save()
    print(save())


if __name__ == "__main__":
    main()
