"""Exact inference: queries per second beside pyAgrum and pgmpy.

For each bundled network, draws ``--queries`` evidence sets: 3 to 6 observed
variables (numpy seed 1), their states taken from rows sampled from the
network itself with bnexplore's sampler (seed 2), so every evidence set has
P(e) > 0. Each query asks for the posterior marginal of every variable.

- ours: ``bnexplore.InferenceEngine`` compiled once (compile time reported
  apart), warmed up on one query, then every query timed;
- pyAgrum: ``LazyPropagation`` built once, then per query ``setEvidence``,
  ``makeInference`` and ``posterior`` of every variable, in a child process
  stopped after ``--pyagrum-seconds`` (one link query took 275 s and up to
  15 GB here; a child that dies is reported);
- pgmpy: ``VariableElimination`` built once, then per query one ``query([X],
  evidence)`` for every unobserved X (its ``joint=False`` over all targets
  first builds their joint table and runs out of memory); it runs in a child process stopped
  after ``--pgmpy-seconds`` (pgmpy cannot be interrupted inside a query), and
  the table says how many queries it finished.

The largest difference between our posteriors and pyAgrum's is printed as a
cross-check. Munin (1,041 variables) is then compiled and queried once with
all marginals by ``bx.query`` (one propagation, no calibration), or refused
with the clique-size message, then compiled as an engine.

The raw times go to ``benchmarks/results/inference.json`` (``--json`` to choose).

Run: ``python benchmarks/bench_inference.py`` (full: 50 queries
per network, pyAgrum capped at 400 s and pgmpy at 120 s per network), or
``--quick`` (5 queries, 10 s caps, small networks only).
"""

import argparse
import gzip
import os
import tempfile
import time
import warnings

import numpy as np

import harness  # first: it puts the repository on sys.path
from bnexplore import InferenceEngine, query, read_bif
from bnexplore.bif import sample_codes
from bnexplore.errors import ResourceError
from harness import NETWORKS
ALL = ["alarm", "hailfinder", "win95pts", "andes", "pigs", "link"]
QUICK = ["alarm", "hailfinder", "win95pts"]


def evidence_sets(network, count):
    rng = np.random.default_rng(1)
    rows = sample_codes(network, count, seed=2)
    out = []
    for row in rows:
        observed = rng.choice(network.n_vars, size=int(rng.integers(3, 7)), replace=False)
        out.append({network.names[v]: network.states[v][row[v]] for v in observed})
    return out


def plain_bif(name):
    path = os.path.join(tempfile.gettempdir(), f"bnexplore-bench-{name}.bif")
    if not os.path.exists(path):
        with gzip.open(os.path.join(NETWORKS, f"{name}.bif.gz")) as source, open(path, "wb") as target:
            target.write(source.read())
    return path


def ours(network, queries):
    start = time.perf_counter()
    engine = InferenceEngine(network)
    compile_seconds = time.perf_counter() - start
    engine.query(None, queries[0])
    answers = []
    start = time.perf_counter()
    for evidence in queries:
        answers.append(engine.query(None, evidence))
    seconds = time.perf_counter() - start
    return compile_seconds, seconds, answers, engine


def _pyagrum_child(name, queries, pipe):
    import pyagrum as gum

    bn = gum.loadBN(plain_bif(name))
    engine = gum.LazyPropagation(bn)
    start = time.perf_counter()
    for evidence in queries:
        engine.eraseAllEvidence()
        engine.setEvidence(evidence)
        engine.makeInference()
        posterior = {bn.variable(i).name(): engine.posterior(i).toarray() for i in bn.nodes()}
        pipe.send((time.perf_counter() - start, posterior))


def pyagrum(name, queries, cap):
    """pyAgrum in a child process (on link it can need 15 GB), stopped after ``cap`` seconds.

    Returns ``(seconds, posteriors, failed)``: the time of the queries finished, their
    posteriors, and how the child ended early ("out of memory?" when it died), or None
    when pyAgrum is not installed.
    """
    try:
        import pyagrum  # noqa: F401
    except ImportError:
        return None
    posteriors, seconds, failed = [], 0.0, None
    deadline = time.perf_counter() + cap
    with harness.Child(_pyagrum_child, (name, queries)) as child:
        while len(posteriors) < len(queries):
            message = child.receive(deadline)
            if message is None:
                failed = (f"stopped at the {cap:.0f} s cap" if child.ended == "deadline"
                          else f"{child.ended} (out of memory?)")
                break
            seconds, posterior = message
            posteriors.append(posterior)
    return seconds, posteriors, failed


def _pgmpy_child(name, queries, pipe):
    warnings.simplefilter("ignore")
    import logging

    logging.disable(logging.WARNING)
    from pgmpy.inference import VariableElimination
    from pgmpy.readwrite import BIFReader

    try:
        start = time.perf_counter()
        model = BIFReader(plain_bif(name)).get_model()
        engine = VariableElimination(model)
        pipe.send(("loaded", time.perf_counter() - start))
        start = time.perf_counter()
        for evidence in queries:
            for target in model.nodes():  # one elimination per marginal: joint=False builds the joint first
                if target not in evidence:
                    engine.query([target], evidence=evidence, show_progress=False)
            pipe.send(("query", time.perf_counter() - start))
    except Exception as error:  # reported in the table (pgmpy runs out of memory on some networks)
        pipe.send(("error", type(error).__name__))


def pgmpy(name, queries, cap):
    try:
        import pgmpy  # noqa: F401
    except ImportError:
        return None
    done, seconds, load, failed = 0, 0.0, None, None
    deadline = time.perf_counter() + cap
    with harness.Child(_pgmpy_child, (name, queries)) as child:
        while done < len(queries):
            message = child.receive(deadline)
            if message is None:
                failed = child.ended if child.ended != "deadline" else None
                break
            kind, value = message
            if kind == "loaded":
                load = value
                deadline = time.perf_counter() + cap
            elif kind == "error":
                failed = value
                break
            else:
                done, seconds = done + 1, value
    return load, done, seconds, failed


def max_difference(answers, posteriors, network):
    worst = 0.0
    for answer, theirs in zip(answers, posteriors):
        for name in network.names:
            worst = max(worst, float(np.abs(answer.probabilities(name) - theirs[name]).max()))
    return worst


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 queries, 10 s caps, small networks only")
    parser.add_argument("--queries", type=int, help="evidence sets per network (default 50, quick 5)")
    parser.add_argument("--pyagrum-seconds", type=float, help="cap per network (default 400, quick 10)")
    parser.add_argument("--pgmpy-seconds", type=float, help="cap per network (default 120, quick 10)")
    parser.add_argument("--networks", nargs="*", help="networks to run (default: all six)")
    parser.add_argument("--no-munin", action="store_true", help="skip the munin check")
    harness.output_option(parser, "inference")
    args = parser.parse_args()
    args.json = harness.output_path(args.json, "inference", args.quick)
    count = args.queries or (5 if args.quick else 50)
    cap_agrum = args.pyagrum_seconds or (10.0 if args.quick else 400.0)
    cap_pgmpy = args.pgmpy_seconds or (10.0 if args.quick else 120.0)
    names = args.networks or (QUICK if args.quick else ALL)
    print("# Exact inference: all posterior marginals given 3-6 observed variables")
    print(f"{harness.machine_line()}; {count} evidence sets per network\n")
    print("| network | vars | cliques | largest clique | all cliques | compile s | ours q/s | pyAgrum q/s "
          "(queries) | pgmpy q/s (queries in cap) | ours / pyAgrum | ours / pgmpy | max diff vs pyAgrum |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    record = {"queries": count, "pyagrum_cap": cap_agrum, "pgmpy_cap": cap_pgmpy, "networks": []}
    for name in names:
        network = read_bif(os.path.join(NETWORKS, f"{name}.bif.gz"))
        queries = evidence_sets(network, count)
        compile_seconds, seconds, answers, engine = ours(network, queries)
        rate = count / seconds
        cells = [name, network.n_vars, len(engine.tree.cliques), f"{engine.tree.largest:.3g}",
                 f"{engine.tree.total:.3g}", f"{compile_seconds:.2f}", f"{rate:,.1f}"]
        agrum = pyagrum(name, queries, cap_agrum)
        found = {"network": name, "vars": network.n_vars, "cliques": len(engine.tree.cliques),
                 "largest_clique": engine.tree.largest, "all_cliques": engine.tree.total,
                 "compile_seconds": compile_seconds, "ours_seconds": seconds,
                 "pyagrum": None if agrum is None else {"seconds": agrum[0], "answered": len(agrum[1]),
                                                        "failed": agrum[2]}}
        if agrum is None:
            cells += ["not installed"]
            ratio_agrum, diff = "", ""
        elif not agrum[1]:
            cells += [f"none: {agrum[2]}"]
            ratio_agrum, diff = (f"> {rate * cap_agrum:,.0f}x" if "cap" in agrum[2] else ""), ""
        else:
            a_seconds, posteriors, _ = agrum
            a_rate = len(posteriors) / a_seconds
            cells += [f"{a_rate:,.2f} ({len(posteriors)})" if a_rate >= 0.1 else
                      f"{a_seconds / len(posteriors):,.0f} s per query ({len(posteriors)})"]
            ratio_agrum = f"{rate / a_rate:,.1f}x"
            found["max_diff_pyagrum"] = max_difference(answers, posteriors, network)
            diff = f"{found['max_diff_pyagrum']:.1e}"
        theirs = pgmpy(name, queries, cap_pgmpy)
        found["pgmpy"] = None if theirs is None else dict(zip(("load_seconds", "answered", "seconds", "failed"),
                                                              theirs))
        record["networks"].append(found)
        if theirs is None:
            cells += ["not installed"]
            ratio_pgmpy = ""
        else:
            load, done, p_seconds, failed = theirs
            if failed:
                cells += [f"failed after {done} ({failed})"]
                ratio_pgmpy = ""
            elif done:
                p_rate = done / p_seconds
                cells += [f"{p_rate:,.3f} ({done})"]
                ratio_pgmpy = f"{rate / p_rate:,.0f}x"
            else:
                cells += [f"none in {cap_pgmpy:.0f} s" + ("" if load is not None else " (still loading)")]
                ratio_pgmpy = f"> {rate * cap_pgmpy:,.0f}x"
        cells += [ratio_agrum, ratio_pgmpy, diff]
        print("| " + " | ".join(str(c) for c in cells) + " |", flush=True)
    if not args.quick and not args.no_munin:
        network = read_bif(os.path.join(NETWORKS, "munin.bif.gz"))
        evidence = evidence_sets(network, 1)[0]
        start = time.perf_counter()
        try:
            answer = query(network, None, evidence)
            one_shot = time.perf_counter() - start
            print(f"\nmunin ({network.n_vars} variables): all marginals given {len(evidence)} observed variables "
                  f"answered by bx.query in {one_shot:.2f} s (compile and one propagation)")
            start = time.perf_counter()
            engine = InferenceEngine(network)
            built = time.perf_counter() - start
            start = time.perf_counter()
            engine.query(None, evidence)
            print(f"munin engine: compiled and calibrated in {built:.2f} s ({len(engine.tree.cliques)} cliques, "
                  f"largest {engine.tree.largest:.3g} cells, all {engine.tree.total:.3g}), then "
                  f"{time.perf_counter() - start:.2f} s per all-marginals query; P(e) = "
                  f"{answer.evidence_probability:.3g}")
            record["munin"] = {"query_seconds": one_shot, "engine_seconds": built,
                               "engine_query_seconds": time.perf_counter() - start}
        except ResourceError as error:
            print(f"\nmunin: refused after {time.perf_counter() - start:.2f} s: {error}")
            record["munin"] = {"refused": str(error)}
    print(f"\nraw: {harness.write_json(args.json, record)}")


if __name__ == "__main__":
    main()
