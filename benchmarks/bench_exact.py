"""Benchmark: exact BIC optimum and credible sets (epsilon-BNSL), against peers.

For every data set (the eBNSL data of Liao et al. 2019 with up to 26
variables, gzipped in ``benchmarks/data/ebnsl/``, and forward samples of
networks in ``sample_data/networks/``) it measures, each data set in a fresh
process (so peak memory is its own):

* the candidate parent sets built once for BF = 150 (they serve every smaller
  BF and the optimum): seconds and number of sets;
* the optimum OPT by dynamic programming: seconds;
* for BF = 3, 20 and 150: the enumeration (and grouping) seconds, the number
  of credible DAGs, of Markov equivalence classes and of RPDAG classes;
* peak resident memory of the process.

Peers, each in its own process with a timeout, where they can finish:
causal-learn's ``bic_exact_search`` (DP and A*) as shipped, and the same search
with its local score replaced by bnexplore's discrete BIC (its shipped score is
a linear-Gaussian BIC, ``n log(RSS / n) + k log n``, so its optimum is not the
discrete one); pgmpy's ``ExhaustiveSearch`` with its discrete ``BIC`` (every
DAG: five variables at most). Every peer DAG is re-scored with bnexplore's
Scorer and compared with OPT.

Run it in the benchmark virtual environment (peers are never project
dependencies)::

    PYTHONPATH=/work/main /work/benchvenv/bin/python benchmarks/bench_exact.py

Options: ``--only NAME ...``, ``--timeout SECONDS`` (per peer run),
``--out FILE`` (also write the Markdown section there; it is printed at the end),
``--json FILE`` (raw results; default ``benchmarks/results/exact.json``), ``--report-from FILE``
(Markdown from raw results).
"""

import argparse
import json
import math
import time
from pathlib import Path

import harness
from harness import NETWORKS, ROOT, peak_mib, seconds

DATA = ROOT / "benchmarks" / "data" / "ebnsl"
BAYES_FACTORS = (3, 20, 150)

EBNSL = ["iris", "tic-tac-toe", "wine", "adult", "nltcs", "voting", "zoo", "hepatitis", "parkinsons", "sensors",
         "autos", "letter", "msnbc"]
"""eBNSL data sets with at most 26 variables (MANIFEST.md in the data folder); slowest last."""

SAMPLES = [("cancer", 1000), ("earthquake", 1000), ("asia", 1000), ("asia", 10000), ("sachs", 1000),
           ("child", 500), ("child", 5000)]
"""(network, rows) forward samples, seed 1."""

COSTS_NAMES = {"tic-tac": "tic-tac-toe"}
"""costs.csv names that differ from the data file names."""


def case_names():
    return EBNSL[:-2] + [f"{net}-{rows}" for net, rows in SAMPLES] + EBNSL[-2:]


def load(name):
    """The Dataset of a case name."""
    from bnexplore.data import Dataset, read_csv

    if name in EBNSL:
        return read_csv(DATA / f"{name}.csv.gz", header=False, types="categorical")
    from bnexplore.bif import read_bif, sample

    net, rows = name.rsplit("-", 1)
    return Dataset.from_frame(sample(read_bif(NETWORKS / f"{net}.bif.gz"), int(rows), seed=1))


def published_optima():
    """BIC optima of costs.csv (GOBNILP column, negated), by data set name."""
    import gzip

    out = {}
    with gzip.open(DATA / "costs.csv.gz", "rt") as f:
        next(f)
        for line in f:
            parts = [p.strip() for p in line.replace("\t", "").split(",")]
            if len(parts) >= 3 and parts[0].endswith("_BIC") and parts[2] not in ("", "NA"):
                name = parts[0][:-4]
                out[COSTS_NAMES.get(name, name)] = float(parts[2])
    return out


# -- workers (each runs in its own process) -------------------------------------

def warm_up():
    """Run every kernel once on tiny data, so no timing includes loading compiled code."""
    import numpy as np

    from bnexplore.data import Dataset
    from bnexplore.search.credible import credible_set

    codes = np.random.default_rng(0).integers(0, 2, (50, 4))
    credible_set(Dataset.from_codes(codes), bf=20)


def work_ours(name):
    """Caches, OPT and the credible sets of one data set."""
    from bnexplore.control import Control
    from bnexplore.parents.pruning import candidate_parent_sets
    from bnexplore.scores import Scorer
    from bnexplore.search.credible import credible_set
    from bnexplore.search.subsets import CandidateArrays as Candidates, optimal_parents, subset_table

    warm_up()
    data = load(name)
    scorer = Scorer(data, "bic")
    t0 = time.perf_counter()
    parent_sets = candidate_parent_sets(scorer, epsilon=math.log(max(BAYES_FACTORS)))
    t1 = time.perf_counter()
    candidates = Candidates(parent_sets)
    table, _ = subset_table(candidates, Control())
    opt = float(table[-1])
    n = data.n_vars
    masks = optimal_parents(table, (1 << n) - 1, n, candidates.masks, candidates.scores, candidates.offsets)
    t2 = time.perf_counter()
    del table
    out = {"name": name, "n": n, "N": data.n_rows, "cache_seconds": t1 - t0, "candidates": len(parent_sets),
           "opt": opt, "opt_seconds": t2 - t1, "opt_parents": [[u for u in range(n) if (int(m) >> u) & 1]
                                                               for m in masks], "bf": {}}
    for bf in BAYES_FACTORS:
        cs = credible_set(scorer, bf=bf, parent_sets=parent_sets)
        out["bf"][bf] = {"dags": len(cs), "classes": len(cs.classes), "rpdag_classes": len(cs.rpdag_classes),
                         "enum_seconds": cs.stats.get("seconds_enumeration", 0.0) + cs.stats["seconds_grouping"],
                         "truncated": cs.truncated, "steps": cs.stats["search_steps"],
                         "complete_bf": None if cs.complete_epsilon is None else math.exp(cs.complete_epsilon)}
    out["peak_mib"] = peak_mib()
    return out


def work_causal_learn(name, method, discrete):
    """causal-learn's exact search; ``discrete`` swaps in bnexplore's discrete BIC."""
    import numpy as np
    from causallearn.search.ScoreBased import ExactSearch

    data = load(name)
    if discrete:
        from bnexplore.scores import Scorer

        scorer = Scorer(data, "bic")
        ExactSearch.bic_score_node = lambda X, i, structure: -scorer.local(i, list(structure))
    x = np.asarray(data.codes, dtype=float)
    t0 = time.perf_counter()
    dag, _ = ExactSearch.bic_exact_search(x, search_method=method)
    seconds = time.perf_counter() - t0
    parents = [[int(u) for u in np.flatnonzero(dag[:, v])] for v in range(data.n_vars)]
    return {"seconds": seconds, "parents": parents, "peak_mib": peak_mib()}


def work_pgmpy(name):
    """pgmpy's ExhaustiveSearch with its discrete BIC."""
    from pgmpy.estimators import BIC, ExhaustiveSearch

    data = load(name)
    frame = data.to_frame()
    t0 = time.perf_counter()
    dag = ExhaustiveSearch(frame, scoring_method=BIC(frame)).estimate()
    seconds = time.perf_counter() - t0
    index = {v: i for i, v in enumerate(data.names)}
    parents = [[] for _ in data.names]
    for u, v in dag.edges():
        parents[index[v]].append(index[u])
    return {"seconds": seconds, "parents": parents, "peak_mib": peak_mib()}


WORKERS = {"ours": work_ours, "causal-learn": work_causal_learn, "pgmpy": work_pgmpy}


# -- the report --------------------------------------------------------------------------

def peer_runs(name, n, timeout):
    """The peer runs worth trying for a data set of n variables."""
    runs = []
    if n <= 14:
        for method in ("dp", "astar"):
            runs.append((f"causal-learn {method}", "causal-learn", [name, method, False]))
            runs.append((f"causal-learn {method} + discrete BIC", "causal-learn", [name, method, True]))
    if n <= 5:
        runs.append(("pgmpy ExhaustiveSearch", "pgmpy", [name]))
    return runs


def report(results, peers, published):
    lines = ["## Exact search and credible sets (epsilon-BNSL)", "",
             f"`benchmarks/bench_exact.py`, BIC; {harness.machine_line()}. Caches: candidate parent sets "
             "pruned for BF = 150 (they serve the optimum and every smaller BF). OPT: the dynamic programme "
             "over subsets. Enumeration: search, grouping into classes. Times are wall-clock seconds on a shared "
             "machine.", "",
             "| data | n | N | caches s | sets | OPT | OPT s | BF 3: DAGs / MECs / s | BF 20: DAGs / MECs / s "
             "| BF 150: DAGs / MECs / s | peak MiB |", "|" + "---|" * 11]
    for r in results:
        if "error" in r:
            lines.append(harness.error_row(r["name"], r["error"], 11))
            continue
        cells = []
        for bf in BAYES_FACTORS:
            b = r["bf"][str(bf)]
            mark = ""
            if b["truncated"]:
                mark = f"+ (BF {b['complete_bf']:.3g})" if b.get("complete_bf") else "+"
            cells.append(f"{b['dags']:,}{mark} / {b['classes']:,} / {seconds(b['enum_seconds'])}")
        lines.append(f"| {r['name']} | {r['n']} | {r['N']:,} | {seconds(r['cache_seconds'])} | "
                     f"{r['candidates']:,} | {r['opt']:.4f} | {seconds(r['opt_seconds'])} | "
                     + " | ".join(cells) + f" | {r['peak_mib']:.0f} |")
    lines += ["", "`+ (BF x)`: the counting limit of 150,000 DAGs was reached (more credible DAGs exist). A "
              "truncated set holds the best DAGs: exactly every DAG within the smaller Bayes factor x of the "
              "optimum (`CredibleSet.complete_epsilon`), so two BFs that both overflow give the same set. RPDAG "
              "classes (skeleton + head-to-head patterns) per BF are in the JSON output. A data set whose candidate "
              "parent sets would exceed the per-size cap is refused with the error shown (set `max_indegree`).", ""]
    lines += ["### Peers", "", "Each peer's DAG re-scored with bnexplore's discrete BIC; "
              "gap = OPT - that score (0 means the peer found an optimum).", "",
              "| data | peer | seconds | peer DAG's BIC | gap to OPT | peak MiB |", "|---|---|---|---|---|---|"]
    for name, label, p, score, opt in peers:
        if "error" in p:
            lines.append(f"| {name} | {label} | {p['error']} | | | |")
        else:
            lines.append(f"| {name} | {label} | {seconds(p['seconds'])} | {score:.4f} | {opt - score:.3g} | "
                         f"{p['peak_mib']:.0f} |")
    lines += ["", "causal-learn's shipped `bic_exact_search` scores a linear-Gaussian BIC (least squares without "
              "intercept on the integer codes), so its optimum is not the discrete one and re-scores below OPT; "
              "with bnexplore's discrete BIC swapped into its search (`+ discrete BIC`), its DP and A* reach OPT "
              "wherever they finish. It scores every parent set in Python, so it is tried up to 14 variables. "
              "pgmpy's ExhaustiveSearch walks all 2^(n(n-1)) graphs: five variables at most.", ""]
    lines += ["### Published optima and counts", "",
              "The eBNSL `costs.csv` optima (GOBNILP column; the MANIFEST warns that some rows come from other "
              "discretisations or sample sizes). The paper's Table 1 counts are not compared: its values are not "
              "in the text of the paper available to this project. The eBNSL repository's own pruned score file "
              "for wine (BIC, BF 3, GOBNILP) has 592 candidate parent sets where bnexplore keeps 591: the extra "
              "one (node 0 with parents {4, 13}) scores 1.09872 below its subset {13}, more than log 3 = 1.09861, "
              "so it is in no credible network (checked in `tests/test_pruning.py`); the wine optimum equals "
              "GOBNILP's -1258.445909.", "",
              "| data | our OPT | costs.csv | difference |", "|---|---|---|---|"]
    for r in results:
        if "error" not in r and r["name"] in published:
            pub = published[r["name"]]
            lines.append(f"| {r['name']} | {r['opt']:.6f} | {pub:.6f} | {r['opt'] - pub:.3g} |")
    lines += ["", "iris and tic-tac-toe agree to the printed precision. The other rows differ far beyond rounding: "
              "the MANIFEST traces wine and voting to other discretisations, and the rest are presumably the same "
              "case. For autos, where costs.csv is higher, hill climbing with restarts and tabu search never exceed "
              "our optimum, and with at most 2 parents the pruned and unpruned exact optima agree."]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="case names (default: all)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per peer run")
    parser.add_argument("--out", default=None, help="also write the Markdown section to this file")
    harness.output_option(parser, "exact")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--report-from", help="rewrite the Markdown from a --json file of an earlier run")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        harness.serve_worker(WORKERS, args.worker)
        return
    args.json = harness.output_path(args.json, "exact")
    if args.report_from:
        saved = json.loads(Path(args.report_from).read_text())
        print(write(saved["results"], saved["peers"], published_optima(), args))
        return
    from bnexplore.scores import Scorer

    published = published_optima()
    results, peers = [], []
    for name in args.only or case_names():
        r = harness.run_worker(__file__, "ours", [name], None)
        r.setdefault("name", name)
        results.append(r)
        print(json.dumps(r), flush=True)
        if "error" in r or args.no_peers:
            continue
        scorer = Scorer(load(name), "bic")
        for label, kind, wargs in peer_runs(name, r["n"], args.timeout):
            p = harness.run_worker(__file__, kind, wargs, args.timeout)
            score = scorer.total(p["parents"]) if "parents" in p else None
            peers.append((name, label, p, score, r["opt"]))
            print(name, label, json.dumps({k: v for k, v in p.items() if k != "parents"}), score, flush=True)
        write(results, peers, published, args)
    print(write(results, peers, published, args))


def write(results, peers, published, args):
    """Write the Markdown section (and the raw JSON) for the cases done so far."""
    text = report(results, peers, published)
    if args.out:
        Path(args.out).write_text(text)
    if args.json:
        harness.write_json(args.json, {"results": results, "peers": peers})
    return text


if __name__ == "__main__":
    main()
