"""Learning from blank cells: structural EM against dropping rows and a blank state, beside the complete data.

For alarm and insurance, N rows (10,000) forward-sampled with the project's
sampler (``bnexplore.bif.sample_codes``, seed = the run's seed), then cells
blanked by four patterns (``PATTERNS``):

- ``mcar10``, ``mcar20``, ``mcar30``: every cell blank independently with
  probability 0.1, 0.2, 0.3 (missing completely at random);
- ``mar``: missing at random. The ``MAR_DRIVERS`` variables with the most
  children (ties: network order) stay fully observed; in the rows where a
  driver is in its first state, each of its children (drivers excepted) loses
  its cell with probability ``MAR_RATE``. Whether a cell is blank depends only
  on the observed value of another variable.

The blanked table is a pandas DataFrame of categoricals (NaN at blank cells),
learned four ways with hill climbing (BDeu, ess 1, the library's defaults):

- ``complete``: the table before blanking (the reference);
- ``em``: ``learn(data, "hc", missing="em")`` on ``Encoder(missing="em")``'s
  Dataset (structural EM);
- ``drop``: ``Encoder(missing="drop")``: the complete rows only (with no
  complete row it learns nothing: the empty graph, marked ``empty``);
- ``state``: ``Encoder(missing="state")``: a blank is a state of its own.

Each run reports the SHD between the learned graph's CPDAG and the true
network's CPDAG (over the original variables: with ``state`` the same names,
one more state) and the seconds of the ``learn`` call, encoding excluded,
both wall-clock and CPU (the process's, every thread's: a neighbour on a
shared machine stretches the wall clock of short calls far more than their
CPU time, so the CPU ratio is the steadier measure of the work done).
Kernels are compiled on a small sample first (compile time excluded); every
method's time is the best of ``--repeat`` calls, the complete data's and
structural EM's alike, so the ratio divides like by like (the calls are
short, and neighbours on the shared machine sway a single one most; every
call of a method returns the same network).

Then one run beside pyAgrum (``--peer``; mcar10, seed 1): its ``BNLearner``
refuses structure learning on a table with blanks (``MissingValueInDatabase``:
its EM is for parameters only), so the comparison is parameter EM on the true
DAG: ``learnParameters`` with ``useEMWithRateCriterion`` against our
``em_fit``, same data, BDeu prior ess 1, same relative tolerance and cap; time,
iterations, observed-data log-likelihood of both results (ours computed) and
the largest difference between their tables. Then bnlearn's structural EM
(R, ``structural.em`` with hill climbing on BDeu ess 1, Bayesian tables with
the same prior, its default imputation and ``max.iter``; ``bnlearn.R``)
beside ours on the same table (mcar10, seed 1): SHD of each CPDAG to the
truth, arcs, seconds of the learning call, and each one's time over its own
hill climbing on the complete rows. Without ``Rscript`` or bnlearn that
run says so and goes on.

Run: ``python benchmarks/bench_missing.py [--networks alarm insurance]
[--seeds 1 2 3 4 5] [--rows 10000] [--patterns mcar10 mcar20 mcar30 mar]
[--methods complete em drop state] [--quick]``; raw results:
``benchmarks/results/missing.json`` (``--json``).
"""

import argparse
import gzip
import json
import statistics
import sys
import tempfile
import time
import warnings
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

import harness  # first: it puts the repository on sys.path

NETWORKS = Path("/work/shared/data/networks")
"""Where the benchmark reads the networks (the bundled copies in ``sample_data`` are the fallback)."""
PATTERNS = {"mcar10": 0.1, "mcar20": 0.2, "mcar30": 0.3, "mar": None}
"""Blank patterns: probability of a blank cell, completely at random; None: the missing-at-random pattern."""
MAR_DRIVERS = 2
"""Drivers of the missing-at-random pattern: enough children lose cells to matter (7-12 on alarm, insurance)."""
MAR_RATE = 0.3
"""Chance that a driver's child loses its cell in a row where the driver is in its first state."""
METHODS = ("complete", "em", "drop", "state")
TARGET = {"pattern": "mcar10", "shd_ratio": 1.25, "wins": 8, "time_ratio": 10.0}
"""The issue's target: at 10 %, em's SHD <= 1.25 x the complete data's, below drop and state in >= 8 of 10
runs, in <= 10 x the complete-data hill climbing's time."""


# ----------------------------------------------------------------------------- data

def network(name):
    """The network ``name`` from :data:`NETWORKS` (else the bundled copy)."""
    from bnexplore.bif import read_bif

    path = NETWORKS / f"{name}.bif.gz"
    return read_bif(path if path.exists() else harness.NETWORKS / f"{name}.bif.gz")


def children(net):
    """Each variable's children, by index."""
    kids = [[] for _ in range(net.n_vars)]
    for v, parents in enumerate(net.parents):
        for p in parents:
            kids[p].append(v)
    return kids


def mar_plan(net, drivers=MAR_DRIVERS):
    """The missing-at-random pattern: ``{driver: [children that lose cells]}`` by index.

    Examples
    --------
    >>> from bnexplore.bif import Network
    >>> net = Network("t", ["a", "b", "c", "d"], [["0", "1"]] * 4, [[], [0], [0, 1], [1]],
    ...               [[.5, .5], [[.5, .5]] * 2, [[[.5, .5]] * 2] * 2, [[.5, .5]] * 2])
    >>> mar_plan(net)
    {0: [2], 1: [2, 3]}
    """
    kids = children(net)
    chosen = sorted(range(net.n_vars), key=lambda v: (-len(kids[v]), v))[:drivers]
    return {d: [c for c in kids[d] if c not in chosen] for d in chosen}


def blank_mask(net, codes, pattern, rng):
    """Which cells are blank under ``pattern`` (a bool array shaped like ``codes``).

    Examples
    --------
    >>> from bnexplore.bif import Network
    >>> net = Network("t", ["a", "b", "c"], [["0", "1"]] * 3, [[], [], [0]], [[.5, .5]] * 2 + [[[.5, .5]] * 2])
    >>> codes = np.array([[0, 1, 1], [1, 1, 1]] * 500)
    >>> mask = blank_mask(net, codes, "mar", np.random.default_rng(0))
    >>> first = mask[codes[:, 0] == 0, 2].mean()
    >>> bool(mask[:, :2].any()), bool(mask[codes[:, 0] == 1].any()), bool(0.25 < first < 0.35)
    (False, False, True)
    """
    rate = PATTERNS[pattern]
    if rate is not None:
        return rng.random(codes.shape) < rate
    mask = np.zeros(codes.shape, dtype=bool)
    for driver, kids in mar_plan(net).items():
        first = codes[:, driver] == 0
        for c in kids:
            mask[:, c] |= first & (rng.random(len(codes)) < MAR_RATE)
    return mask


def frame(net, codes, mask):
    """The table as a DataFrame of categoricals (the network's states), NaN at blank cells."""
    return pd.DataFrame({name: pd.Categorical.from_codes(np.where(mask[:, v], -1, codes[:, v].astype(np.int64)),
                                                         categories=net.states[v])
                         for v, name in enumerate(net.names)})


def encoded(table, missing):
    """``Encoder(missing=missing)``'s Dataset of ``table``; None when no row is left (``drop``)."""
    from bnexplore.data import Encoder
    from bnexplore.errors import DataError

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return Encoder(missing=missing).fit_transform(table)
        except DataError:
            if missing == "drop":
                return None
            raise


# ----------------------------------------------------------------------------- learning

def learned(data, method, truth, repeat=1, em_options=None):
    """Hill climbing on ``data`` as ``method`` learns: ``{"seconds", "shd", "arcs", ...}``.

    ``data`` None (``drop`` with no complete row): the empty graph, ``empty`` True, no time.
    ``em_options``: structural EM's ``em_iterations`` / ``completions`` (None: the library's defaults).
    """
    from bnexplore import learn
    from bnexplore.graphs import DAG, shd

    if data is None:
        empty = DAG(np.zeros((len(truth.names), len(truth.names)), dtype=np.int8), truth.names)
        return {"seconds": None, "shd": shd(empty.cpdag(), truth), "arcs": 0, "rows": 0, "empty": True}
    options = {"missing": "em", **(em_options or {})} if method == "em" else {}
    best, cpu, result = float("inf"), float("inf"), None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = learn(data, "hc", **options)
        best = min(best, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    graph = result.graph
    out = {"seconds": best, "cpu_seconds": cpu, "shd": shd(graph.cpdag(), truth), "arcs": len(graph.arcs()),
           "rows": data.n_rows, "score": result.score}
    if method == "em":
        em = result.extra.get("em", {})
        out["em"] = {"iterations": len(em.get("iterations", [])), "returned": em.get("returned"),
                     "note": em.get("note"), "stopped": result.stats.get("stopped")}
    return out


def warm_up(methods):
    """Compile (or load) every kernel the methods use on blanked samples, before timing anything.

    asia and alarm (seed 0, not a benchmark seed): small and large batches, so that the score kernels of
    both (serial and parallel, ``bnexplore.scores.kernels.parallel_pays``) are loaded, weighted ones too
    (asia's completed table has too few distinct rows for the parallel ones); and the E-step once through
    the junction tree, which structural EM's E-step takes only for rows with a large group of blank cells.
    """
    from bnexplore.em.expected import EStep

    for name, rows in (("asia", 500), ("alarm", 3000)):
        net = network(name)
        truth = net.dag().cpdag()
        codes = np.asarray(harness.sampled(name, rows, seed=0)[1].codes)
        table = frame(net, codes, blank_mask(net, codes, "mcar10", np.random.default_rng(0)))
        for method in methods:
            data = complete_data(net, codes) if method == "complete" else encoded(table, method)
            learned(data, method, truth)
        if "em" in methods:
            EStep(net, encoded(table, "em"), group_states=0).run()


def complete_data(net, codes):
    """The complete table as a Dataset."""
    from bnexplore.data import Dataset

    return Dataset.from_codes(codes, arities=net.arities, names=net.names, states=net.states)


def run_network(name, args, emit):
    """Every seed and pattern of one network; calls ``emit(record)`` per run."""
    from bnexplore.bif import sample_codes

    net = network(name)
    truth = net.dag().cpdag()
    for seed in args.seeds:
        codes = np.asarray(sample_codes(net, args.rows, seed=seed))
        reference = learned(complete_data(net, codes), "complete", truth, args.repeat)
        for pattern in args.patterns:
            mask = blank_mask(net, codes, pattern, np.random.default_rng([seed, list(PATTERNS).index(pattern)]))
            table = frame(net, codes, mask)
            record = {"network": name, "seed": seed, "pattern": pattern, "rows": args.rows,
                      "blank": float(mask.mean()), "complete_rows": int((~mask.any(axis=1)).sum()),
                      "true_edges": int(np.count_nonzero(np.triu(truth.adj | truth.adj.T, 1))),
                      "complete": reference}
            for method in args.methods:
                if method != "complete":
                    record[method] = learned(encoded(table, method), method, truth, args.repeat,
                                             em_options=args.em_options)
            emit(record)


# ----------------------------------------------------------------------------- summary

def wins(record):
    """Whether em's SHD is below both drop's and state's in this run (None: a method missing)."""
    if not all(m in record for m in ("em", "drop", "state")):
        return None
    return record["em"]["shd"] < record["drop"]["shd"] and record["em"]["shd"] < record["state"]["shd"]


def ratio(record, method, field="seconds"):
    """``method``'s figure over the complete data's (None when either is missing or zero)."""
    mine, base = record.get(method, {}).get(field), record["complete"].get(field)
    return mine / base if mine is not None and base else None


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(x, digits=1):
    return "" if x is None else (f"{x:.{digits}f}" if isinstance(x, float) and x != int(x) else f"{x:g}")


def summary(records, methods):
    """The per network and pattern table, as Markdown lines."""
    shown = [m for m in ("em", "drop", "state", "complete") if m in methods]
    lines = ["| network | pattern | blank % | complete rows | median SHD " + " / ".join(shown) +
             " | em below drop and state | em time / complete (median, max) | em CPU time / complete (median, max) "
             "| runs |",
             "|---|---|---|---|---|---|---|---|---|"]
    groups = {}
    for r in records:
        groups.setdefault((r["network"], r["pattern"]), []).append(r)
    for (name, pattern), rs in groups.items():
        shd = " / ".join(fmt(median([r[m]["shd"] for r in rs if m in r])) +
                         ("*" if m == "drop" and any(r.get(m, {}).get("empty") for r in rs) else "")
                         for m in shown)
        won = [wins(r) for r in rs]
        times = [t for t in (ratio(r, "em") for r in rs) if t is not None]
        cpu = [t for t in (ratio(r, "em", "cpu_seconds") for r in rs) if t is not None]
        lines.append(f"| {name} | {pattern} | {100 * median([r['blank'] for r in rs]):.1f} | "
                     f"{fmt(median([r['complete_rows'] for r in rs]))} | {shd} | "
                     f"{f'{sum(won)} of {len(rs)}' if None not in won else ''} | "
                     f"{f'{median(times):.1f}x, {max(times):.1f}x' if times else ''} | "
                     f"{f'{median(cpu):.1f}x, {max(cpu):.1f}x' if cpu else ''} | {len(rs)} |")
    return lines


def target(records):
    """The issue's target on the ``TARGET["pattern"]`` runs: a dict of figures and whether each part is met."""
    rs = [r for r in records if r["pattern"] == TARGET["pattern"] and "em" in r]
    if not rs:
        return None
    shd_ratios = [r["em"]["shd"] / max(r["complete"]["shd"], 1) for r in rs]
    within = sum(r["em"]["shd"] <= TARGET["shd_ratio"] * r["complete"]["shd"] for r in rs)
    med_em, med_complete = median([r["em"]["shd"] for r in rs]), median([r["complete"]["shd"] for r in rs])
    won = sum(bool(wins(r)) for r in rs)
    times = [ratio(r, "em") for r in rs]
    cpu = [t for t in (ratio(r, "em", "cpu_seconds") for r in rs) if t is not None]
    return {"median_cpu_ratio": median(cpu), "max_cpu_ratio": max(cpu) if cpu else None,"runs": len(rs), "shd_within": within, "median_shd_em": med_em, "median_shd_complete": med_complete,
            "median_ratio": med_em / max(med_complete, 1), "max_shd_ratio": max(shd_ratios), "wins": won,
            "max_time_ratio": max(times), "median_time_ratio": median(times),
            "met": {"shd": med_em <= TARGET["shd_ratio"] * med_complete, "wins": won >= TARGET["wins"],
                    "time": max(times) <= TARGET["time_ratio"]}}


# ----------------------------------------------------------------------------- pyAgrum beside it

def pyagrum_tables(bn, net):
    """pyAgrum's CPTs in our layout (``(*parent arities, arity)``, the network's parent order)."""
    tables = []
    for v, name in enumerate(net.names):
        tensor = bn.cpt(name)
        order = [net.names[p] for p in net.parents[v]] + [name]
        array = np.asarray(tensor.toarray())
        axes = list(reversed(tensor.names))  # toarray() has the last variable of names first
        tables.append(np.transpose(array, [axes.index(n) for n in order]))
    return tables


def pyagrum_em(net, name, table, tolerance, cap):
    """pyAgrum's parameter EM on the true DAG (BDeu prior ess 1): its tables in our layout, seconds, iterations.

    Only ``learnParameters`` is timed (not writing and reading the table).
    """
    import pyagrum as gum

    with tempfile.TemporaryDirectory() as folder:
        bif, csv = Path(folder) / f"{name}.bif", Path(folder) / f"{name}.csv"
        source = NETWORKS / f"{name}.bif.gz"
        bif.write_bytes(gzip.decompress(source.read_bytes()))  # the project's own network file
        table.astype(object).where(table.notna(), "?").to_csv(csv, index=False)
        template = gum.loadBN(str(bif))
        learner = gum.BNLearner(str(csv), template, ["?"])
        learner.useBDeuPrior(1.0)
        learner.useEMWithRateCriterion(tolerance)
        learner.EMsetMaxIter(cap)
        start = time.perf_counter()
        theirs = learner.learnParameters(template.dag())
        seconds = time.perf_counter() - start
        return pyagrum_tables(theirs, net), seconds, int(learner.EMnbrIterations())


def peer_table(name, rows, seed):
    """The network and the peer comparison's table (``mcar10``, ``seed``): what both processes rebuild alike."""
    from bnexplore.bif import sample_codes

    net = network(name)
    codes = np.asarray(sample_codes(net, rows, seed=seed))
    mask = blank_mask(net, codes, "mcar10", np.random.default_rng([seed, list(PATTERNS).index("mcar10")]))
    return net, codes, mask, frame(net, codes, mask)


def blank_data(net, codes, mask):
    """The blanked table as a Dataset with the network's states (pyAgrum learns on them all, seen or not)."""
    from bnexplore.data import Dataset

    blanked = np.where(mask, -1, codes.astype(np.int64))
    return Dataset.from_codes(blanked, arities=net.arities, names=net.names, states=net.states, missing="em")


def pyagrum_worker(name, rows, seed, tolerance, cap):
    """In a worker process: :func:`pyagrum_em` on the peer table, tables as lists (JSON)."""
    net, _, _, table = peer_table(name, rows, seed)
    tables, seconds, iterations = pyagrum_em(net, name, table, tolerance, cap)
    return {"seconds": seconds, "iterations": iterations, "tables": [t.tolist() for t in tables]}


WORKERS = {"pyagrum_em": pyagrum_worker}


def peer_part(args):
    """pyAgrum's parameter EM and our ``em_fit`` on the true DAG, one run per network (mcar10, seed 1)."""
    from bnexplore.bif import Network
    from bnexplore.em import em_fit, observed_log_likelihood

    out = []
    tolerance, cap, seed = 1e-6, 100, 1
    for name in args.networks:
        net, codes, mask, _ = peer_table(name, args.rows, seed)
        data = blank_data(net, codes, mask)
        em_fit(net.dag(), blank_data(net, codes[:300], mask[:300]))  # compile
        start = time.perf_counter()
        ours = em_fit(net.dag(), data, ess=1.0, tolerance=tolerance, max_iterations=cap)
        our_seconds = time.perf_counter() - start
        row = {"network": name, "rows": args.rows, "seed": seed, "blank": float(mask.mean()), "tolerance": tolerance,
               "cap": cap, "ours": {"seconds": our_seconds, "iterations": len(ours.fit["log_likelihoods"]),
                                    "log_likelihood": observed_log_likelihood(ours, data)}}
        theirs = harness.run_worker(__file__, "pyagrum_em", [name, args.rows, seed, tolerance, cap], args.peer_cap)
        if "error" in theirs:
            error = f"over {args.peer_cap:.0f} s" if theirs["error"].startswith("killed") else theirs["error"]
            row["pyagrum"] = {"error": error}
            out.append(row)
            print(f"| {name} | {args.rows:,} | {100 * row['blank']:.1f} | {harness.seconds(our_seconds)} | {error} "
                  f"| | {row['ours']['iterations']} / | {row['ours']['log_likelihood']:,.1f} / | |", flush=True)
            continue
        tables, their_seconds = [np.asarray(t) for t in theirs["tables"]], theirs["seconds"]
        their_net = Network(name, net.names, net.states, net.parents, tables)
        row["pyagrum"] = {"seconds": their_seconds, "iterations": theirs["iterations"],
                          "log_likelihood": observed_log_likelihood(their_net, data)}
        ours_tables = [np.transpose(ours.cpts[v], [list(ours.parents[v]).index(p) for p in net.parents[v]]
                                    + [len(net.parents[v])]) for v in range(net.n_vars)]  # the network's order
        row["max_table_difference"] = float(max(np.abs(a - b).max() for a, b in zip(ours_tables, tables)))
        row["time_ratio"] = their_seconds / our_seconds
        out.append(row)
        print(f"| {name} | {args.rows:,} | {100 * row['blank']:.1f} | {harness.seconds(our_seconds)} | "
              f"{harness.seconds(their_seconds)} | {row['time_ratio']:.1f}x | {row['ours']['iterations']} / "
              f"{row['pyagrum']['iterations']} | {row['ours']['log_likelihood']:,.1f} / "
              f"{row['pyagrum']['log_likelihood']:,.1f} | {row['max_table_difference']:.2g} |", flush=True)
    return out


# ----------------------------------------------------------------------------- bnlearn beside it

BNLEARN_MAX_ITER = 5
"""bnlearn's own default for ``structural.em(max.iter=)``."""


def bnlearn_sem(net, table, complete, cap):
    """bnlearn's ``structural.em`` on ``table`` and its hill climbing on the ``complete`` one, with ``net``'s
    states (:func:`harness.bnlearn`; structural EM's arcs by name)."""
    return harness.bnlearn("sem", dict(zip(net.names, net.states)), table, cap, complete, BNLEARN_MAX_ITER)


def bnlearn_part(args):
    """bnlearn's structural EM and ours on the same table, one run per network (mcar10, seed 1): SHD of the
    CPDAGs to the truth, arcs, seconds of the learning call each (kernels loaded first on our side), and each
    one's structural EM against its own hill climbing on the complete rows."""
    from bnexplore.graphs import DAG, shd

    out = []
    seed = 1
    for name in args.networks:
        net, codes, mask, table = peer_table(name, args.rows, seed)
        truth = net.dag().cpdag()
        ours = learned(encoded(table, "em"), "em", truth, args.repeat)
        complete = learned(complete_data(net, codes), "complete", truth, args.repeat)
        row = {"network": name, "rows": args.rows, "seed": seed, "blank": float(mask.mean()),
               "max_iter": BNLEARN_MAX_ITER, "ours": ours, "complete": complete}
        theirs = bnlearn_sem(net, table, frame(net, codes, np.zeros(codes.shape, dtype=bool)), args.peer_cap)
        if "error" in theirs:
            row["bnlearn"] = theirs
            print(f"| {name} | {args.rows:,} | {100 * row['blank']:.1f} | {ours['shd']} / {theirs['error']} | "
                  f"{complete['shd']} | {ours['arcs']} / | {harness.seconds(ours['seconds'])} / | |", flush=True)
            out.append(row)
            continue
        theirs["shd"] = shd(DAG.from_arcs(theirs["arcs"], net.names).cpdag(), truth)
        row["bnlearn"] = theirs
        row["time_ratio"] = theirs["seconds"] / ours["seconds"]
        out.append(row)
        print(f"| {name} | {args.rows:,} | {100 * row['blank']:.1f} | {ours['shd']} / {theirs['shd']} | "
              f"{complete['shd']} | {ours['arcs']} / {len(theirs['arcs'])} | {harness.seconds(ours['seconds'])} / "
              f"{harness.seconds(theirs['seconds'])} | {row['time_ratio']:.0f}x | "
              f"{ours['seconds'] / complete['seconds']:.1f}x / {theirs['seconds'] / theirs['complete_seconds']:.0f}x |",
              flush=True)
    return out


# ----------------------------------------------------------------------------- main

def print_summary(records, methods):
    """Print the per network and pattern table and the target line; the target's figures (None without em)."""
    print("\n## Per network and pattern (median over seeds; * drop had no complete row in some run: the "
          "empty graph)\n")
    print("\n".join(summary(records, methods)))
    t = target(records)
    if t:
        print(f"\nTarget ({TARGET['pattern']}, {t['runs']} runs): median SHD em {fmt(t['median_shd_em'])} against "
              f"complete {fmt(t['median_shd_complete'])} ({t['median_ratio']:.2f}x, at most "
              f"{TARGET['shd_ratio']}x: {t['met']['shd']}; within 1.25x in {t['shd_within']} runs); em below "
              f"drop and state in {t['wins']} (>= {TARGET['wins']}: {t['met']['wins']}); time em / complete "
              f"median {t['median_time_ratio']:.1f}x, max {t['max_time_ratio']:.1f}x (<= {TARGET['time_ratio']:g}x: "
              f"{t['met']['time']}); CPU time em / complete median "
              f"{fmt(t['median_cpu_ratio'])}x, max {fmt(t['max_cpu_ratio'])}x")
    return t


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="+", default=["alarm", "insurance"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3, 4, 5])
    parser.add_argument("--rows", type=int, default=10000)
    parser.add_argument("--patterns", nargs="+", default=list(PATTERNS), choices=tuple(PATTERNS))
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--repeat", type=int, default=3, help="calls of each method's search (the best time is kept)")
    parser.add_argument("--peer", action=argparse.BooleanOptionalAction, default=True,
                        help="pyAgrum's parameter EM and bnlearn's structural EM beside ours (with em in --methods)")
    parser.add_argument("--completions", type=int, help="structural EM's completions per incomplete row "
                        "(default: the library's)")
    parser.add_argument("--em-iterations", type=int, help="structural EM's most iterations (default: the library's)")
    parser.add_argument("--peer-cap", type=float, default=1200.0, help="seconds before a peer's run is stopped")
    parser.add_argument("--peer-only", action="store_true", help="only the peer comparisons")
    parser.add_argument("--peers", nargs="+", default=["pyagrum", "bnlearn"], choices=("pyagrum", "bnlearn"),
                        help="which peers run beside ours (with --peer)")
    parser.add_argument("--quick", action="store_true", help="asia, 1,000 rows, one seed (a smoke run)")
    parser.add_argument("--summary", nargs="+", metavar="JSON", help="print the summary and target of these raw "
                        "results together (runs of several invocations) and stop")
    harness.output_option(parser, "missing")
    args = parser.parse_args(argv)
    if args.summary:
        print_summary([r for path in args.summary for r in json.loads(Path(path).read_text())["runs"]], METHODS)
        return None
    args.json = harness.output_path(args.json, "missing", args.quick)
    if args.quick:
        args.networks, args.seeds, args.rows, args.repeat = ["asia"], [1], 1000, 1
    args.em_options = {k: v for k, v in (("completions", args.completions), ("em_iterations", args.em_iterations))
                       if v is not None}
    if "complete" not in args.methods:
        args.methods = ["complete", *args.methods]
    np.seterr(all="ignore")
    warm_up(args.methods)
    print("# Learning from blank cells: structural EM, drop, blank state, complete data")
    versions = {"pyAgrum": _version("pyagrum"), "bnlearn": harness.bnlearn_version()}
    print(f"{harness.machine_line()}; pyAgrum {versions['pyAgrum']}; bnlearn (R) {versions['bnlearn']}; "
          "kernels compiled before timing\n")
    records = []
    record = {"peers": versions, "rows": args.rows, "seeds": args.seeds, "patterns": args.patterns,
              "methods": args.methods, "em_options": args.em_options, "mar": {"drivers": MAR_DRIVERS, "rate": MAR_RATE},
              "runs": records}

    def emit(r):
        records.append(r)
        parts = [f"{m} {r[m]['shd']}" + (" (empty)" if r[m].get("empty") else "") +
                 (f" {harness.seconds(r[m]['seconds'])} s" if r[m]["seconds"] is not None else "")
                 for m in args.methods if m in r]
        print(f"- {r['network']} seed {r['seed']} {r['pattern']} (blank {100 * r['blank']:.1f} %, "
              f"{r['complete_rows']:,} complete rows): SHD / s " + "; ".join(parts), flush=True)
        harness.write_json(args.json, record)

    for name in [] if args.peer_only else args.networks:
        net = network(name)
        plan = mar_plan(net)
        print(f"{name}: mar drivers " + "; ".join(f"{net.names[d]} ({net.states[d][0]}) -> "
                                                  f"{', '.join(net.names[c] for c in kids)}"
                                                  for d, kids in plan.items()))
        record.setdefault("mar_plan", {})[name] = {net.names[d]: [net.names[c] for c in kids]
                                                   for d, kids in plan.items()}
        run_network(name, args, emit)
    if records:
        record["target"] = print_summary(records, args.methods)
    peers = args.peers if args.peer and "em" in args.methods else []
    if "pyagrum" in peers:
        print("\n## Parameter EM on the true DAG beside pyAgrum's (mcar10, seed 1)\n")
        print("| network | N | blank % | em_fit s | pyAgrum s | pyAgrum / ours | iterations ours / pyAgrum "
              "| observed log-likelihood ours / pyAgrum | largest table difference |")
        print("|---|---|---|---|---|---|---|---|---|")
        record["pyagrum"] = peer_part(args)
    if "bnlearn" in peers:
        print(f"\n## Structural EM beside bnlearn's (mcar10, seed 1; bnlearn {versions['bnlearn']}, "
              f"max.iter {BNLEARN_MAX_ITER})\n")
        print("| network | N | blank % | SHD ours / bnlearn | SHD complete data | arcs ours / bnlearn "
              "| seconds ours / bnlearn | bnlearn / ours | structural EM / own complete-data climb, ours / bnlearn |")
        print("|---|---|---|---|---|---|---|---|---|")
        record["bnlearn"] = bnlearn_part(args)
    print(f"\nraw: {harness.write_json(args.json, record)}", flush=True)


def _version(package):
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        harness.serve_worker(WORKERS, sys.argv[2])
    else:
        sys.exit(main())
