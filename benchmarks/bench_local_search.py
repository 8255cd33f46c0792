"""Local search: hc, tabu, rpdag and rpdag-tabu against pgmpy, pyAgrum and bnlearn.

For each data set sampled (seed 1) from a bundled BIF network, runs our four
local searches with BDeu (ess = 1) from the empty graph and a cold score
cache, and reports the columns of Acid & de Campos (2003), Tables 3-5: BDeu,
edges, H = A + D + I against the true network (equivalence classes compared),
iterations, Ind, EstEv, TEst, NVar and seconds. In the same run it times
pgmpy's ``HillClimbSearch`` (BDeu), pyAgrum's greedy hill climbing (BDeu) and
R bnlearn's ``hc`` (BDeu, iss 1; through ``Rscript``, ``bnlearn.R``) when they
are installed (benchmark environment only) and scores their graphs with our
Scorer.

Run: ``python benchmarks/bench_local_search.py [--quick]``; the raw rows go to
``benchmarks/results/local_search.json`` (``--json`` to choose).

``--busy results/x.json`` times each of our searches instead on alarm N = 5,000
(and ``--network BIF`` with ``--rows``, e.g. win95pts), once quietly and once
beside a CPU-heavy process (``busy.py``), and writes the times as JSON.
"""

import argparse
import os
import tempfile
import time
import warnings

import numpy as np

import harness  # first: it puts the repository on sys.path
from bnexplore import Dataset, Scorer, learn, read_bif
from bnexplore.bif import sample_codes
from bnexplore.graphs import DAG, structural_errors
CASES = [("alarm", 3000), ("alarm", 5000), ("alarm", 10000), ("insurance", 10000), ("hailfinder", 10000)]
OURS = [("hc", "hc", {}), ("tabu", "tabu", {}), ("rpdag", "rpdag", {}), ("rpdag-tabu", "rpdag-tabu", {}),
        ("hc + 20 restarts", "hc", {"restarts": 20, "seed": 1})]
"""(label, algorithm, options) of our runs; the last is hill climbing with
random restarts (perturbations of the best graph, ``bnexplore.search.hillclimb``)."""
PEER_CAP = 600.0
"""Seconds before bnlearn's run (in its own R process) is stopped."""


def pgmpy_hc(frame):
    try:
        warnings.simplefilter("ignore")
        from pgmpy.estimators import HillClimbSearch
    except ImportError:
        return None
    start = time.perf_counter()
    model = HillClimbSearch(frame).estimate(scoring_method="bdeu", show_progress=False)
    return time.perf_counter() - start, list(model.edges())


def pyagrum_hc(frame):
    try:
        import pyagrum as gum
    except ImportError:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as handle:
        frame.to_csv(handle, index=False)
        path = handle.name
    start = time.perf_counter()
    learner = gum.BNLearner(path)
    learner.useScoreBDeu()
    learner.useGreedyHillClimbing()
    bn = learner.learnBN()
    seconds = time.perf_counter() - start
    os.unlink(path)
    return seconds, [(bn.variable(u).name(), bn.variable(v).name()) for u, v in bn.arcs()]


def bnlearn_hc(frame, states):
    """R bnlearn's ``hc`` (BDeu, iss 1) through :func:`harness.bnlearn`: ``(seconds, arcs)``, None without
    Rscript or bnlearn, or its error message. The seconds are the ``hc`` call's alone (the table read in R)."""
    if harness.bnlearn_version() is None:
        return None
    out = harness.bnlearn("hc", states, frame, PEER_CAP)
    return out["error"] if "error" in out else (out["seconds"], out["arcs"])


def row(label, scorer, graph, truth, seconds, stats=None):
    """The paper's columns of one run, as a dict."""
    stats = stats or {}
    errors = {key: int(value) for key, value in structural_errors(graph, truth).items()}  # numpy ints: not JSON
    return {"algorithm": label, "bdeu": float(scorer.total(graph)), "edges": int(graph.n_edges), **errors,
            "iterations": stats.get("iterations"),
            "ind": stats.get("structures_evaluated"), "estev": stats.get("local_scores_computed"),
            "test": stats.get("local_score_lookups"), "nvar": stats.get("nvar"), "seconds": seconds}


def markdown(r):
    """One Markdown table row of :func:`row`'s dict."""
    cells = [r["algorithm"], f"{r['bdeu']:.1f}", r["edges"], r["A"], r["D"], r["I"], r["H"],
             *("" if r[k] is None else r[k] for k in ("iterations", "ind", "estev", "test")),
             "" if r["nvar"] is None else f"{r['nvar']:.2f}", f"{r['seconds']:.3f}"]
    return "| " + " | ".join(str(c) for c in cells) + " |"


def busy_runs(args):
    """Each of our searches quietly and beside a busy process (issue 29, item 16)."""
    from busy import beside_busy, report

    sets = [("alarm", harness.sampled("alarm", 500 if args.quick else 5000)[1])]
    if args.network:
        network = read_bif(args.network)
        codes = sample_codes(network, args.rows, seed=1)
        sets.append((network.name or os.path.basename(args.network),
                     Dataset.from_codes(codes, arities=network.arities, names=network.names)))
    runs = [(f"{name} N = {data.n_rows:,}: {label}",
             lambda data=data, algorithm=algorithm, options=options:
             learn(data, algorithm=algorithm, scorer=Scorer(data, "bdeu"), **options))
            for name, data in sets for label, algorithm, options in OURS]
    rows, conditions = beside_busy(runs)
    report("Local search beside a busy process", rows, conditions, args.busy)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="asia only, no peers")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--busy", metavar="JSON", help="time each search quietly and beside a busy process")
    parser.add_argument("--network", metavar="BIF", help="with --busy: also a sample of this network")
    parser.add_argument("--rows", type=int, default=10000, help="with --network: rows sampled")
    harness.output_option(parser, "local_search")
    args = parser.parse_args()
    args.json = harness.output_path(args.json, "local_search", args.quick)
    cases = [("asia", 2000)] if args.quick else CASES

    warm = harness.sampled("asia", 500)[1]
    for algorithm in ("hc", "tabu", "rpdag", "rpdag-tabu"):  # compile the numba kernels before timing anything
        learn(warm, algorithm=algorithm, iterations=5) if "tabu" in algorithm else learn(warm, algorithm=algorithm)
    if args.busy:
        busy_runs(args)
        return

    print("# Local search on data sampled from BIF networks (BDeu, ess = 1, empty start, cold cache)")
    print(f"{harness.machine_line()}; bnlearn (R) {harness.bnlearn_version()}\n")
    header = ("| algorithm | BDeu | edges | A | D | I | H | iterations | Ind | EstEv | TEst | NVar | seconds |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    record = []
    for name, rows in cases:
        network, data = harness.sampled(name, rows)
        truth = network.dag()
        print(f"\n## {name}, N = {rows:,} (true network: BDeu {Scorer(data, 'bdeu').total(truth):.1f}, "
              f"{truth.n_edges} edges)\n")
        print(header)
        times = {}
        for label, algorithm, options in OURS:
            scorer = Scorer(data, "bdeu")
            start = time.perf_counter()
            result = learn(data, algorithm=algorithm, scorer=scorer, **options)
            times[label] = time.perf_counter() - start
            found = row(label, scorer, result.graph, truth, times[label], result.stats)
            record.append({"network": name, "rows": rows, **found})
            print(markdown(found))
        if args.quick or args.no_peers:
            continue
        frame = data.to_frame().astype(str)
        scorer = Scorer(data, "bdeu")
        peers = (("pgmpy HillClimbSearch", pgmpy_hc), ("pyAgrum greedy HC", pyagrum_hc),
                 ("bnlearn hc", lambda table: bnlearn_hc(table, dict(zip(data.names, data.states)))))
        for label, run in peers:
            out = run(frame)
            if out is None or isinstance(out, str):
                print(f"| {label} | {out or 'not installed'} |")
                continue
            seconds, arcs = out
            graph = DAG.from_arcs(arcs, data.names)
            times[label] = seconds
            found = row(label, scorer, graph, truth, seconds)
            record.append({"network": name, "rows": rows, **found})
            print(markdown(found))
        ratios = [f"pyAgrum / our hc = {times['pyAgrum greedy HC'] / times['hc']:.1f}x"
                  if "pyAgrum greedy HC" in times else "",
                  f"pgmpy / our hc = {times['pgmpy HillClimbSearch'] / times['hc']:.0f}x"
                  if "pgmpy HillClimbSearch" in times else "",
                  f"bnlearn / our hc = {times['bnlearn hc'] / times['hc']:.1f}x" if "bnlearn hc" in times else "",
                  f"rpdag / hc = {times['rpdag'] / times['hc']:.2f}"]
        print("\n" + "; ".join(r for r in ratios if r))
    print(f"\nraw: {harness.write_json(args.json, {'runs': record})}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
