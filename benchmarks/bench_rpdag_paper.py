"""RPDAG search as Acid & de Campos (2003) measured it: their networks, several
sample sizes, ten samples each, BDeu (ess = 1), empty start graph.

The paper (JAIR 18, Section 6, Tables 3-5 and 7-9) learns from the Alarm
database (its first 3,000, 5,000 and 10,000 cases) and from five databases of
10,000 cases of Insurance and of Hailfinder, and compares greedy search over
RPDAGs ("RPDAG") with greedy search over DAGs ("DAG"), then tabu search in
both spaces ("TS-RPDAG", "TS-DAG": tabu list of n, n (n - 1) iterations).
Here every network gets the same design: for each of ``--seeds`` seeds one
sample of the largest size is drawn with the project's sampler
(``bnexplore.bif.sample_codes``) and every size is a prefix of it (as the
paper's Alarm sets are prefixes of one database). Each data set is learned by
``hc``, ``tabu``, ``rpdag`` and ``rpdag-tabu`` from the empty graph with a
cold score cache, then by GES (Chickering 2002), PC-stable (G-squared,
alpha 0.05) and MMHC (the same test, hill climbing on its skeleton), the
searches of issue 32, and the paper's columns are recorded:

- BDeu (log, ess = 1), Edg (edges);
- H = A + D + I against the true network, equivalence classes compared
  (``bnexplore.graphs.structural_errors``; PC's own CPDAG, which may hold
  orientation conflicts no DAG of it shares, is compared as it is);
- Iter (greedy: operators applied) or Biter (tabu: iteration of the best
  graph); Ind (structures evaluated), EstEv (distinct local scores computed),
  TEst (local-score look-ups), NVar (variables per computed statistic);
  seconds.

The script prints one JSON line per run (also appended to ``--out``, by default
``benchmarks/results/rpdag_paper.jsonl``), then a
markdown table per (network, size): mean and standard deviation over the
seeds (of each column, and of the BDeu difference to DAG hill climbing on the
same sample), and win counts (RPDAG against DAG, TS-RPDAG against TS-DAG, and tabu
against greedy from the same start, which must never lose), and a table of
GES, PC and MMHC beside RPDAG search (GES against RPDAG: BDeu and H wins).

Usage::

    python benchmarks/bench_rpdag_paper.py                 # full design: 3 networks x 3 sizes x 10 seeds
    python benchmarks/bench_rpdag_paper.py --quick         # alarm, 3,000 rows, 2 seeds
    python benchmarks/bench_rpdag_paper.py --networks alarm --sizes 5000 --seeds 10
    python benchmarks/bench_rpdag_paper.py --algorithms DAG RPDAG GES PC MMHC --seeds 3   # a reduced design
    python benchmarks/bench_rpdag_paper.py --table benchmarks/out/rpdag_paper.jsonl
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np

import harness
from harness import emit

NETWORKS = ("alarm", "insurance", "hailfinder")
SIZES = (3000, 5000, 10000)
PAPER_ALGORITHMS = (("DAG", "hc"), ("TS-DAG", "tabu"), ("RPDAG", "rpdag"), ("TS-RPDAG", "rpdag-tabu"))
ADDED = (("GES", "ges"), ("PC", "pc"), ("MMHC", "mmhc"))
"""Issue 32's searches, run with their defaults (PC and MMHC: G-squared, alpha 0.05)."""
ALGORITHMS = PAPER_ALGORITHMS + ADDED
COLUMNS = ("bdeu", "edges", "H", "A", "D", "I", "iter", "ind", "estev", "test", "nvar", "seconds")

PAPER = {
    # Tables 3-5 (greedy) and 7-9 (tabu) of Acid & de Campos (2003): BDeu and H of the
    # networks they learned (Insurance and Hailfinder: means over five databases of 10,000).
    ("alarm", 3000): {"RPDAG": (-33101, 2), "DAG": (-33109, 7), "TS-RPDAG": (-33101, 2), "TS-DAG": (-33115, 11),
                      "true": -33114},
    ("alarm", 5000): {"RPDAG": (-54761, 2), "DAG": (-54956, 16), "TS-RPDAG": (-54761, 2), "TS-DAG": (-54762, 3),
                      "true": -54774},
    ("alarm", 10000): {"RPDAG": (-108432, 1), "DAG": (-108868, 13), "TS-RPDAG": (-108432, 1),
                       "TS-DAG": (-108442, 6), "true": -108452},
    ("insurance", 10000): {"RPDAG": (-133071, 18), "DAG": (-133205, 25), "TS-RPDAG": (-133070, 18),
                           "TS-DAG": (-132788, 18), "true": -133040},
    ("hailfinder", 10000): {"RPDAG": (-497872, 24), "DAG": (-498395, 45), "TS-RPDAG": (-497872, 24),
                            "TS-DAG": (-498073, 35), "true": -503230},
}


def samples(name, sizes, seeds):
    """``(seed, size, Dataset)`` for every seed and size (sizes are prefixes of one sample per seed)."""
    from bnexplore import Dataset, read_bif
    from bnexplore.bif import sample_codes

    network = read_bif(harness.NETWORKS / f"{name}.bif.gz")
    for seed in seeds:
        codes = sample_codes(network, max(sizes), seed=seed)
        for size in sizes:
            data = Dataset.from_codes(codes[:size], arities=network.arities, names=network.names,
                                      states=network.states)
            yield network, seed, size, data


def run_one(data, truth, algorithm):
    """One search with a cold cache; the paper's columns as a dict, and the result."""
    from bnexplore import Scorer, learn
    from bnexplore.graphs import structural_errors

    scorer = Scorer(data, "bdeu", ess=1.0)
    start = time.perf_counter()
    result = learn(data, algorithm=algorithm, scorer=scorer)
    seconds = time.perf_counter() - start
    stats = result.stats
    cpdag = result.extra.get("cpdag")  # PC's and GES's class as found
    errors = (structural_errors(result.graph, truth) if cpdag is None
              else structural_errors(cpdag, truth.cpdag(), equivalence=False))
    return {"bdeu": result.score, "edges": result.graph.n_edges, **{k: errors[k] for k in "ADIH"},
            "iter": stats.get("best_iteration", stats["iterations"]), "ind": stats["structures_evaluated"],
            "estev": stats["local_scores_computed"], "test": stats["local_score_lookups"], "nvar": stats["nvar"],
            "seconds": seconds}, result


def cross_climbs(data, results):
    """Each greedy search started from the other's optimum: the gain DAG hill climbing
    finds from the RPDAG result's extension, and the RPDAG search from the DAG result
    (0 when the result is also a local optimum of the other neighbourhood)."""
    from bnexplore import Scorer, learn

    scorer = Scorer(data, "bdeu", ess=1.0)
    dag, rpdag = results["DAG"], results["RPDAG"]
    return {"hc_from_rpdag_gain": learn(data, "hc", scorer=scorer, start=rpdag.graph).score - rpdag.score,
            "rpdag_from_hc_gain": learn(data, "rpdag", scorer=scorer, start=dag.graph).score - dag.score}


def warm_up(algorithms=ALGORITHMS):
    """Compile (or load) every numba kernel the searches use before timing anything."""
    from bnexplore import learn

    _, data = harness.sampled("asia", 300, seed=0)
    for _, algorithm in algorithms:
        learn(data, algorithm=algorithm, **({"iterations": 5} if "tabu" in algorithm else {}))


def _wins(rows, a, b, key="bdeu", higher=True):
    """(wins, ties, losses) of algorithm a against b over the seeds, by ``key``."""
    wins = ties = losses = 0
    for seed, by_alg in rows.items():
        if a not in by_alg or b not in by_alg:
            continue
        x, y = by_alg[a][key], by_alg[b][key]
        tol = 1e-9 * max(1.0, abs(y)) if key == "bdeu" else 0
        if abs(x - y) <= tol:
            ties += 1
        elif (x > y) == higher:
            wins += 1
        else:
            losses += 1
    return wins, ties, losses


def table(records):
    """Markdown tables (mean +- sd over seeds) and win counts from JSON records."""
    groups = {}
    for r in records:
        groups.setdefault((r["network"], r["rows"]), {}).setdefault(r["seed"], {})[r["label"]] = r
    out = []
    overall = {"RPDAG vs DAG": [0, 0, 0], "TS-RPDAG vs TS-DAG": [0, 0, 0], "TS-DAG vs DAG": [0, 0, 0],
               "TS-RPDAG vs RPDAG": [0, 0, 0], "H: RPDAG vs DAG": [0, 0, 0]}
    for (network, rows), by_seed in sorted(groups.items(), key=lambda item: (NETWORKS.index(item[0][0])
                                                                             if item[0][0] in NETWORKS else 99,
                                                                             item[0][1])):
        some = next(iter(by_seed.values()))
        first = next(iter(some.values()))
        out.append(f"\n#### {network}, N = {rows:,} ({len(by_seed)} samples; true network BDeu "
                   f"{np.mean([next(iter(s.values()))['true_bdeu'] for s in by_seed.values()]):,.0f} on average, "
                   f"{first['true_edges']} edges)\n")
        out.append("| algorithm | BDeu | BDeu - DAG's | Edg | H | A | D | I | Iter / Biter | Ind | EstEv | TEst | NVar "
                   "| seconds |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for label, _ in ALGORITHMS:
            runs = [s[label] for s in by_seed.values() if label in s]
            if not runs:
                continue
            cells = [label]
            for key in COLUMNS:
                values = np.array([r[key] for r in runs], float)
                mean, sd = values.mean(), values.std(ddof=1) if len(values) > 1 else 0.0
                if key == "bdeu":
                    cells.append(f"{mean:,.1f} ± {sd:,.1f}")
                    gaps = np.array([s[label]["bdeu"] - s["DAG"]["bdeu"] for s in by_seed.values()
                                     if label in s and "DAG" in s])
                    cells.append(f"{gaps.mean():+,.1f} ± {gaps.std(ddof=1) if len(gaps) > 1 else 0.0:,.1f}"
                                 if len(gaps) else "")
                elif key in ("nvar",):
                    cells.append(f"{mean:.2f}")
                elif key == "seconds":
                    cells.append(f"{mean:.2f}")
                elif key in ("ind", "estev", "test"):
                    cells.append(f"{mean:,.0f}")
                else:
                    cells.append(f"{mean:.1f} ± {sd:.1f}")
            out.append("| " + " | ".join(cells) + " |")
        counts = {"RPDAG vs DAG": _wins(by_seed, "RPDAG", "DAG"),
                  "TS-RPDAG vs TS-DAG": _wins(by_seed, "TS-RPDAG", "TS-DAG"),
                  "TS-DAG vs DAG": _wins(by_seed, "TS-DAG", "DAG"),
                  "TS-RPDAG vs RPDAG": _wins(by_seed, "TS-RPDAG", "RPDAG"),
                  "H: RPDAG vs DAG": _wins(by_seed, "RPDAG", "DAG", key="H", higher=False)}
        for key, value in counts.items():
            overall[key] = [a + b for a, b in zip(overall[key], value)]
        gap = [s["RPDAG"]["bdeu"] - s["DAG"]["bdeu"] for s in by_seed.values() if "RPDAG" in s and "DAG" in s]
        out.append("")
        out.append("Wins / ties / losses over the samples (BDeu; H: lower wins): "
                   + "; ".join(f"{k} {w}/{t}/{l}" for k, (w, t, l) in counts.items())
                   + (f". RPDAG - DAG BDeu: mean {np.mean(gap):+,.1f}, min {min(gap):+,.1f}, max {max(gap):+,.1f}."
                      if gap else "."))
        paper = PAPER.get((network, rows))
        if paper:
            out.append(f"Paper (one data set{'' if network == 'alarm' else ', mean of five'}): "
                       f"RPDAG {paper['RPDAG'][0]:,} (H {paper['RPDAG'][1]}), DAG {paper['DAG'][0]:,} "
                       f"(H {paper['DAG'][1]}), TS-RPDAG {paper['TS-RPDAG'][0]:,} (H {paper['TS-RPDAG'][1]}), "
                       f"TS-DAG {paper['TS-DAG'][0]:,} (H {paper['TS-DAG'][1]}); true network {paper['true']:,}.")
    losses = [s for by_seed in groups.values() for s in by_seed.values()
              if "RPDAG" in s and "DAG" in s and s["RPDAG"]["bdeu"] < s["DAG"]["bdeu"] - 1e-9 * abs(s["DAG"]["bdeu"])]
    if losses and "hc_from_rpdag_gain" in losses[0]["RPDAG"]:
        stuck = sum(s["RPDAG"]["hc_from_rpdag_gain"] <= 1e-6 and s["RPDAG"]["rpdag_from_hc_gain"] <= 1e-6
                    for s in losses)
        out.append(f"\n**Where RPDAG search loses** ({len(losses)} runs: "
                   + ", ".join(f"{s['RPDAG']['network']} {s['RPDAG']['rows']:,} seed {s['RPDAG']['seed']}"
                               for s in losses)
                   + f"): in {stuck} of them the RPDAG optimum's extension is also a local optimum of DAG hill "
                   "climbing and the DAG optimum one of the RPDAG search (each search started from the other's "
                   "result makes no move); DAG hill climbing gains "
                   + ", ".join(f"{s['RPDAG']['hc_from_rpdag_gain']:.1f}" for s in losses)
                   + " from the RPDAG optima, the RPDAG search "
                   + ", ".join(f"{s['RPDAG']['rpdag_from_hc_gain']:.1f}" for s in losses)
                   + " from the DAG optima.")
    out.append("\n**Summary** (means over the samples; BDeu differences to DAG hill climbing on the same sample; "
               "the paper's values are for its own data sets)\n")
    out.append("| network | N | RPDAG - DAG | RPDAG wins / ties / losses | TS-DAG - DAG | TS-RPDAG - DAG | "
               "H: DAG / TS-DAG / RPDAG / TS-RPDAG | paper: RPDAG - DAG | paper H: DAG / TS-DAG / RPDAG / TS-RPDAG |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for (network, rows), by_seed in sorted(groups.items(), key=lambda item: (NETWORKS.index(item[0][0])
                                                                             if item[0][0] in NETWORKS else 99,
                                                                             item[0][1])):
        runs = [s for s in by_seed.values() if "DAG" in s and "RPDAG" in s]
        if not runs:
            continue
        labels = [label for label, _ in PAPER_ALGORITHMS if all(label in s for s in runs)]
        gap = {label: np.array([s[label]["bdeu"] - s["DAG"]["bdeu"] for s in runs]) for label in labels}
        h = {label: f"{np.mean([s[label]['H'] for s in runs]):.1f}" if label in labels else "–"
             for label, _ in PAPER_ALGORITHMS}
        mean_gap = {label: f"{gap[label].mean():+,.1f}" if label in gap else "–" for label, _ in PAPER_ALGORITHMS}
        w, t, l = _wins(by_seed, "RPDAG", "DAG")
        paper = PAPER.get((network, rows))
        paper_cells = (f"{paper['RPDAG'][0] - paper['DAG'][0]:+,} | {paper['DAG'][1]} / {paper['TS-DAG'][1]} / "
                       f"{paper['RPDAG'][1]} / {paper['TS-RPDAG'][1]}") if paper else "– | –"
        out.append(f"| {network} | {rows:,} | {gap['RPDAG'].mean():+,.1f} ± {gap['RPDAG'].std(ddof=1):,.1f} | "
                   f"{w} / {t} / {l} | {mean_gap['TS-DAG']} | {mean_gap['TS-RPDAG']} | "
                   f"{h['DAG']} / {h['TS-DAG']} / {h['RPDAG']} / {h['TS-RPDAG']} | {paper_cells} |")
    out.append("\n**All runs** (wins / ties / losses): "
               + "; ".join(f"{k} {w}/{t}/{l}" for k, (w, t, l) in overall.items()) + ".")
    out.append(added_table(groups))
    return "\n".join(out)


def added_table(groups):
    """GES, PC and MMHC beside RPDAG search: BDeu to DAG hill climbing's, H and seconds (means), GES's wins."""
    labels = ("DAG", "RPDAG") + tuple(label for label, _ in ADDED)
    out = ["\n**GES, PC and MMHC beside RPDAG search** (means over the samples; BDeu differences to DAG hill "
           "climbing on the same sample; H to the true CPDAG)\n",
           "| network | N | samples | BDeu - DAG's: RPDAG / GES / PC / MMHC | H: DAG / RPDAG / GES / PC / MMHC | "
           "seconds: DAG / RPDAG / GES / PC / MMHC | GES vs RPDAG, BDeu: wins / ties / losses | "
           "GES vs RPDAG, H (lower wins) |",
           "|---|---|---|---|---|---|---|---|"]
    total = {"bdeu": [0, 0, 0], "H": [0, 0, 0]}
    for (network, rows), by_seed in sorted(groups.items(), key=lambda item: (NETWORKS.index(item[0][0])
                                                                             if item[0][0] in NETWORKS else 99,
                                                                             item[0][1])):
        runs = [s for s in by_seed.values() if all(label in s for label in labels)]
        if not runs:
            continue

        def mean(label, key, runs=runs):
            return np.mean([s[label][key] for s in runs])

        gaps = " / ".join(f"{np.mean([s[label]['bdeu'] - s['DAG']['bdeu'] for s in runs]):+,.1f}"
                          for label in labels[1:])
        bdeu_wins = _wins(by_seed, "GES", "RPDAG")
        h_wins = _wins(by_seed, "GES", "RPDAG", key="H", higher=False)
        total["bdeu"] = [a + b for a, b in zip(total["bdeu"], bdeu_wins)]
        total["H"] = [a + b for a, b in zip(total["H"], h_wins)]
        out.append(f"| {network} | {rows:,} | {len(runs)} | {gaps} | "
                   + " / ".join(f"{mean(label, 'H'):.1f}" for label in labels) + " | "
                   + " / ".join(f"{mean(label, 'seconds'):.2f}" for label in labels) + " | "
                   + " / ".join(map(str, bdeu_wins)) + " | " + " / ".join(map(str, h_wins)) + " |")
    if len(out) == 3:
        return ""
    out.append(f"\n**GES against RPDAG search, all runs** (wins / ties / losses): BDeu "
               f"{'/'.join(map(str, total['bdeu']))}; H {'/'.join(map(str, total['H']))}.")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="alarm, 3,000 rows, 2 seeds")
    parser.add_argument("--networks", nargs="+", default=list(NETWORKS))
    parser.add_argument("--sizes", nargs="+", type=int, default=list(SIZES))
    parser.add_argument("--seeds", type=int, default=10, help="samples per network (seeds 1..S)")
    parser.add_argument("--algorithms", nargs="+", default=[label for label, _ in ALGORITHMS],
                        choices=[label for label, _ in ALGORITHMS], help="which columns to run (default: all)")
    harness.output_option(parser, "rpdag_paper", "--out", ".jsonl")
    parser.add_argument("--table", metavar="JSONL", help="only print the tables of an earlier run's JSON lines")
    args = parser.parse_args()
    if args.table:
        print(table([json.loads(line) for line in Path(args.table).read_text().splitlines() if line.strip()]))
        return
    args.out = harness.output_path(args.out, "rpdag_paper", args.quick, ".jsonl")
    if args.quick:
        args.networks, args.sizes, args.seeds = ["alarm"], [3000], 2
    np.seterr(all="ignore")
    chosen = [(label, algorithm) for label, algorithm in ALGORITHMS if label in args.algorithms]
    warm_up(chosen)
    print(f"# {harness.machine_line()}", flush=True)
    records = []
    for name in args.networks:
        for network, seed, rows, data in samples(name, args.sizes, range(1, args.seeds + 1)):
            from bnexplore import Scorer

            truth = network.dag()
            base = {"network": name, "rows": rows, "seed": seed, "true_bdeu": Scorer(data, "bdeu").total(truth),
                    "true_edges": truth.n_edges}
            found, results = [], {}
            for label, algorithm in chosen:
                columns, results[label] = run_one(data, truth, algorithm)
                found.append({**base, "label": label, "algorithm": algorithm, **columns})
            cross = cross_climbs(data, results) if {"DAG", "RPDAG"} <= set(results) else {}
            for record in found:
                record.update(cross)
                records.append(record)
                emit(args.out, record)
    print(table(records))


if __name__ == "__main__":
    main()
