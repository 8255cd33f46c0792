"""PC-stable, GES and MMHC against causal-learn and pgmpy: skeleton agreement, time, SHD.

Three parts (``--parts``, all by default), every data set a forward sample of a
bundled network with the project's sampler (``harness.sampled``, seed 1):

- ``skeleton``: our PC-stable and causal-learn's ``pc(stable=True)`` with the
  same test (G-squared: ``"gsq"``; Pearson chi-squared: ``"chisq"``) and alpha
  on alarm, insurance, child and hailfinder (N = 20,000). Edges in both, only
  ours, only theirs; each difference explained from the tests that decided it:
  the removing side's separating set, both libraries' p-value, statistic and
  degrees of freedom on that set, and, when the keeping side's p-value is also
  above alpha, the adjacencies that kept that set from it (PC-stable draws the
  conditioning sets of level l from the graph at the start of level l).
- ``time``: alarm N = 20,000. PC-stable (G-squared) against causal-learn's
  ``pc(stable=True, "gsq")`` and pgmpy's ``PC(variant="stable", "g_sq")``; GES
  (BDeu, ess = 1) against causal-learn's ``ges("local_score_BDeu")`` and
  pgmpy's ``GES(BDeu(ess=1))``; MMHC against pgmpy's ``MmhcEstimator``. Score
  (our BDeu of a consistent extension of each result) and SHD between the
  result's CPDAG and the true one.
- ``large``: andes, pigs, munin (N = 5,000, as in the ordering benchmark):
  our PC-stable and MMHC (with the peers' cap as their time limit) against
  causal-learn's PC, pgmpy's PC and pgmpy's MMHC, time and SHD to the true CPDAG.

Each peer runs in its own process (``harness.run_worker``), which samples the
same rows and times only the learning call, killed at ``--cap`` seconds
(reported as "over X s"). Ours run in this process after every kernel is
compiled on a small sample (compile time excluded). One run each.

Run: ``python benchmarks/bench_pc_ges_mmhc.py [--parts skeleton time large]
[--quick]``; raw results: ``benchmarks/results/pc_ges_mmhc.json`` (``--json``).
"""

import argparse
import sys
import time
import warnings
from importlib import metadata

import numpy as np

import harness  # first: it puts the repository on sys.path

SKELETON_NETWORKS = ("alarm", "insurance", "child", "hailfinder")
LARGE_NETWORKS = ("andes", "pigs", "munin")
PEER_TESTS = {"g2": ("gsq", "g_sq"), "chi2": ("chisq", "chi_square")}
"""Our test name -> (causal-learn's, pgmpy's)."""
SHOWN = 3
"""Separating sets printed per difference edge (causal-learn keeps every one it finds at the removal level)."""


# ----------------------------------------------------------------------------- graphs as pair states

def pdag_states(adj):
    """Edge state of every adjacent pair ``i < j`` of an adjacency matrix: 1 i -> j, 2 j -> i, 3 i - j.

    Examples
    --------
    >>> pdag_states(np.array([[0, 1, 1], [0, 0, 0], [1, 0, 0]]))
    {(0, 1): 1, (0, 2): 3}
    """
    a = np.asarray(adj) != 0
    upper = np.triu(a | a.T, 1)
    return {(int(i), int(j)): int(a[i, j]) + 2 * int(a[j, i]) for i, j in zip(*np.nonzero(upper))}


def causallearn_states(graph):
    """Pair states of causal-learn's ``G.graph`` matrix (4: i <-> j, a conflict it leaves bidirected).

    causal-learn writes i -> j as ``graph[i, j] = -1, graph[j, i] = 1``, i - j as
    both -1 and i <-> j as both 1 (``causallearn.search.ConstraintBased.PC.pc_alg``).

    Examples
    --------
    >>> g = np.array([[0, -1, -1, 1], [1, 0, 0, 0], [-1, 0, 0, 0], [1, 0, 0, 0]])
    >>> causallearn_states(g)
    {(0, 1): 1, (0, 2): 3, (0, 3): 4}
    """
    g = np.asarray(graph)
    states = {}
    for i, j in zip(*np.nonzero(np.triu((g != 0) | (g.T != 0), 1))):
        marks = (int(g[i, j]), int(g[j, i]))
        states[(int(i), int(j))] = {(-1, 1): 1, (1, -1): 2, (-1, -1): 3, (1, 1): 4}[marks]
    return states


def named_states(directed, undirected, names):
    """Pair states from arcs ``(u, v)`` and links given by node names (pgmpy's PDAG and DAG)."""
    index = {name: i for i, name in enumerate(names)}
    states = {}
    for u, v in directed:
        i, j = index[u], index[v]
        key = (min(i, j), max(i, j))
        states[key] = 4 if states.get(key) in (1, 2) else (1 if i < j else 2)
    for u, v in undirected:
        i, j = index[u], index[v]
        states[(min(i, j), max(i, j))] = 3
    return states


def shd_states(a, b):
    """Pairs whose edge differs between two pair-state dicts (absent, either arc, link, bidirected)."""
    return sum(a.get(k, 0) != b.get(k, 0) for k in set(a) | set(b))


def plain(states):
    """Pair states as JSON: ``[[i, j, state], ...]``."""
    return [[i, j, s] for (i, j), s in sorted(states.items())]


def unplain(rows):
    """Inverse of :func:`plain`."""
    return {(i, j): s for i, j, s in rows}


def bdeu_of(states, scorer, names):
    """Our BDeu (the scorer's) of a consistent extension of a pair-state graph, None when it has none."""
    from bnexplore.errors import BNExploreError
    from bnexplore.graphs import PDAG, pdag_extension

    if any(s == 4 for s in states.values()):
        return None
    adj = np.zeros((len(names), len(names)), dtype=np.int8)
    for (i, j), s in states.items():
        adj[i, j] = s in (1, 3)
        adj[j, i] = s in (2, 3)
    try:
        return scorer.total(pdag_extension(PDAG(adj, names)))
    except BNExploreError:
        return None


# ----------------------------------------------------------------------------- the peers (worker processes)

def _data(name, rows, seed):
    network, data = harness.sampled(name, rows, seed)
    return data, np.ascontiguousarray(data.codes, dtype=np.int64)


def _frame(data, codes):
    import pandas as pd

    return pd.DataFrame(codes, columns=data.names)


def causallearn_pc(name, rows, seed, test, alpha, cache, max_condition=None):
    """causal-learn's PC-stable; its graph, time, tests run and (``cache``) every p-value it computed.

    ``max_condition`` is its ``max_k`` (the largest conditioning set; its name for what the paper calls depth).
    """
    from causallearn.search.ConstraintBased.PC import pc

    _, codes = _data(name, rows, seed)
    start = time.perf_counter()
    cg = pc(codes, alpha, PEER_TESTS[test][0], stable=True, show_progress=False, max_k=max_condition)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "states": plain(causallearn_states(cg.G.graph)),
            "tests": len(cg.test.pvalue_cache), **({"cache": cg.test.pvalue_cache} if cache else {})}


def pgmpy_pc(name, rows, seed, test, alpha, max_condition=None):
    """pgmpy's PC, variant "stable" (one process); ``max_condition`` None: no limit on the conditioning sets."""
    warnings.simplefilter("ignore")
    from pgmpy.causal_discovery import PC

    data, codes = _data(name, rows, seed)
    frame = _frame(data, codes)
    start = time.perf_counter()
    graph = PC(variant="stable", ci_test=PEER_TESTS[test][1], significance_level=alpha, max_cond_vars=max_condition or len(data.names),
               n_jobs=1, show_progress=False).fit(frame).causal_graph_
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "states": plain(named_states(graph.directed_edges, graph.undirected_edges, data.names))}


def causallearn_ges(name, rows, seed):
    """causal-learn's GES with its BDeu (sample prior 1, plus its structure prior term)."""
    from causallearn.search.ScoreBased.GES import ges

    _, codes = _data(name, rows, seed)
    start = time.perf_counter()
    record = ges(codes, score_func="local_score_BDeu")
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "states": plain(causallearn_states(record["G"].graph))}


def pgmpy_ges(name, rows, seed):
    """pgmpy's GES with BDeu, equivalent sample size 1."""
    warnings.simplefilter("ignore")
    from pgmpy.causal_discovery import GES
    from pgmpy.structure_score import BDeu

    data, codes = _data(name, rows, seed)
    frame = _frame(data, codes)
    start = time.perf_counter()
    graph = GES(scoring_method=BDeu(frame, equivalent_sample_size=1)).fit(frame).causal_graph_
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "states": plain(named_states(graph.directed_edges, graph.undirected_edges, data.names))}


def pgmpy_mmhc(name, rows, seed, alpha):
    """pgmpy's ``MmhcEstimator`` (its MMPC uses Pearson chi-squared) with BDeu, ess 1; its DAG's CPDAG.

    It has no bound on the conditioning sets (``estimate`` and ``mmpc`` take none).
    """
    warnings.simplefilter("ignore")
    from pgmpy.estimators import BDeu, MmhcEstimator

    from bnexplore.graphs import DAG

    data, codes = _data(name, rows, seed)
    frame = _frame(data, codes)
    start = time.perf_counter()
    model = MmhcEstimator(frame).estimate(scoring_method=BDeu(frame, equivalent_sample_size=1),
                                          significance_level=alpha)
    seconds = time.perf_counter() - start
    cpdag = DAG.from_arcs(list(model.edges()), data.names).cpdag()
    return {"seconds": seconds, "states": plain(pdag_states(cpdag.adj))}


WORKERS = {"causallearn_pc": causallearn_pc, "pgmpy_pc": pgmpy_pc, "causallearn_ges": causallearn_ges,
           "pgmpy_ges": pgmpy_ges, "pgmpy_mmhc": pgmpy_mmhc}


def peer(kind, args, cap):
    """A peer's answer from its worker process, or ``{"error": ...}`` (``"over X s"`` when capped)."""
    out = harness.run_worker(__file__, kind, args, cap)
    if out.get("error", "").startswith("killed after"):
        out = {"error": f"over {cap:.0f} s", "over": cap}
    return out


# ----------------------------------------------------------------------------- ours

def warm_up():
    """Compile (or load) every kernel PC, GES and MMHC use, on a small sample, before timing anything."""
    from bnexplore import learn

    _, data = harness.sampled("asia", 500, seed=0)
    for test in PEER_TESTS:
        learn(data, "pc", test=test)
        learn(data, "mmhc", test=test)
    learn(data, "ges")


def ours(data, algorithm, **options):
    """One of our searches from scratch (BDeu, ess 1): the result, its seconds and its CPDAG's pair states."""
    from bnexplore import learn

    start = time.perf_counter()
    result = learn(data, algorithm, **options)
    seconds = time.perf_counter() - start
    cpdag = result.extra.get("cpdag")
    if cpdag is None:
        cpdag = result.graph.cpdag()
    return result, seconds, pdag_states(cpdag.adj)


# ----------------------------------------------------------------------------- explaining skeleton differences

def parse_cache(cache):
    """causal-learn's p-value cache ``{"x;y|a.b": p}`` as ``{(x, y): {S: p}}`` (S a sorted tuple)."""
    tests = {}
    for key, p in cache.items():
        if ";" not in key:  # its bookkeeping entries (data_hash, method_name)
            continue
        pair, _, cond = key.partition("|")
        x, y = (int(v) for v in pair.split(";"))
        tests.setdefault((x, y), {})[tuple(int(v) for v in cond.split(".")) if cond else ()] = float(p)
    return tests


def removal_levels_theirs(tests, alpha):
    """Level at which causal-learn removed each pair: the size of its smallest independent set."""
    return {pair: min(len(s) for s, p in by_set.items() if p > alpha)
            for pair, by_set in tests.items() if any(p > alpha for p in by_set.values())}


def removal_levels_ours(trajectory, names):
    """Level and separating set of each pair our PC removed, from its trajectory."""
    index = {name: i for i, name in enumerate(names)}
    removed = {}
    for step in trajectory:
        if step.get("op") == "remove":
            x, y = sorted(index[a] for a in step["args"])
            removed[(x, y)] = (step.get("level", len(step.get("sepset") or ())),
                               tuple(sorted(index[a] for a in step.get("sepset") or ())), step)
    return removed


def neighbours_at(levels, n, level):
    """Adjacency sets at the start of ``level``: the complete graph less the pairs removed at lower levels."""
    adj = [set(range(n)) - {v} for v in range(n)]
    for (x, y), removed in levels.items():
        if removed < level:
            adj[x].discard(y)
            adj[y].discard(x)
    return adj


def available(levels, n, x, y, s):
    """Whether PC-stable could test x _||_ y | s with these removal levels (s within one end's neighbours)."""
    level = len(s)
    if levels.get((x, y), level + 1) < level:
        return True, []
    adj = neighbours_at(levels, n, level)
    if set(s) <= adj[x] - {y} or set(s) <= adj[y] - {x}:
        return True, []
    missing = sorted({(min(a, z), max(a, z)) for z in s for a in (x, y) if z not in adj[a]})
    return False, missing


class TheirTest:
    """causal-learn's test as its PC runs it, with the statistic and degrees of freedom it hands to ``chi2.sf``."""

    def __init__(self, codes, test):
        import causallearn.utils.cit as cit

        self.cit, self.codes, self.method = cit, codes, PEER_TESTS[test][0]

    def __call__(self, x, y, s):
        """``(p, statistic, dof)`` of x _||_ y | s (statistic None when causal-learn finds no degree of freedom)."""
        real, seen = self.cit.chi2, []

        class Recording:
            @staticmethod
            def sf(statistic, df):
                seen.append((float(statistic), int(df)))
                return real.sf(statistic, df)

        self.cit.chi2 = Recording
        try:  # a fresh test object: no cached answer hides the statistic
            p = self.cit.CIT(self.codes, self.method)(x, y, list(s))
        finally:
            self.cit.chi2 = real
        statistic, dof = seen[0] if seen else (None, 0)
        return float(p), statistic, dof


def explain(pairs, keep, names, ours_test, theirs_test, ours_levels, their_levels, their_tests, alpha, n):
    """Why each pair is an edge on one side only; a list of plain dicts.

    ``keep`` is "ours" (causal-learn removed the pair) or "theirs" (we removed it).
    """
    explained = []
    for x, y in sorted(pairs):
        if keep == "ours":
            level = their_levels[(x, y)]
            sets = [s for s, p in their_tests[(x, y)].items() if p > alpha and len(s) == level]
        else:
            level, sepset, _ = ours_levels[(x, y)]
            sets = [sepset]
        entry = {"edge": [names[x], names[y]], "kept_by": keep, "removal_level": level, "sets": []}
        for s in sets[:SHOWN]:
            outcome = ours_test(x, y, s)
            p_theirs, stat_theirs, dof_theirs = theirs_test(x, y, s)
            p_keep = float(outcome.p_value) if keep == "ours" else p_theirs
            item = {"set": [names[z] for z in s], "ours": {"p": float(outcome.p_value),
                                                            "statistic": float(outcome.statistic),
                                                            "dof": int(outcome.dof)},
                    "theirs": {"p": p_theirs, "statistic": stat_theirs, "dof": dof_theirs}}
            if p_keep <= alpha:
                item["why"] = "p-values on opposite sides of alpha"
            else:
                can, missing = available(ours_levels_only(ours_levels) if keep == "ours" else their_levels,
                                         n, x, y, s)
                item["why"] = ("set not tested by the keeping side: " + ", ".join(
                    f"{names[a]}-{names[b]} removed earlier there" for a, b in missing)) if not can else \
                    "independent on both sides and the set was available to the keeping side: check"
            entry["sets"].append(item)
        entry["sets_found"] = len(sets)
        explained.append(entry)
    return explained


def ours_levels_only(ours_levels):
    """Our removal levels without their separating sets."""
    return {pair: level for pair, (level, _, _) in ours_levels.items()}


def skeleton_part(args, record):
    from bnexplore.independence import IndependenceTest

    print("\n## Skeleton: our PC-stable against causal-learn's pc(stable=True), same test and alpha\n")
    print("| network | N | test | alpha | edges both | only ours | only causal-learn | ours s | causal-learn s "
          "| tests ours / theirs | SHD to true CPDAG ours / theirs |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    rows_out, notes = [], []
    for name in args.skeleton_networks:
        network, data = harness.sampled(name, args.rows, seed=1)
        codes = np.ascontiguousarray(data.codes, dtype=np.int64)
        n = len(data.names)
        truth = pdag_states(network.dag().cpdag().adj)
        for test in args.tests:
            for alpha in args.alphas:
                result, seconds, states = ours(data, "pc", test=test, alpha=alpha)
                theirs = peer("causallearn_pc", [name, args.rows, 1, test, alpha, True], args.cap)
                row = {"network": name, "rows": args.rows, "test": test, "alpha": alpha, "ours_seconds": seconds,
                       "ours_tests": result.stats.get("tests")}
                if "error" in theirs:
                    row["theirs_error"] = theirs["error"]
                    print(f"| {name} | {args.rows:,} | {test} | {alpha} | | | | {seconds:.2f} | {theirs['error']} | |")
                    rows_out.append(row)
                    continue
                their_states = unplain(theirs["states"])
                mine, their = set(states), set(their_states)
                their_tests = parse_cache(theirs["cache"])
                ours_levels = removal_levels_ours(result.trajectory, data.names)
                their_levels = removal_levels_theirs(their_tests, alpha)
                ours_test = IndependenceTest(data, test, alpha)
                theirs_test = TheirTest(codes, test)
                row.update({"both": len(mine & their), "only_ours": len(mine - their),
                            "only_theirs": len(their - mine), "theirs_seconds": theirs["seconds"],
                            "theirs_tests": theirs["tests"], "ours_shd": shd_states(states, truth),
                            "theirs_shd": shd_states(their_states, truth),
                            "differences": explain(mine - their, "ours", data.names, ours_test, theirs_test,
                                                   ours_levels, their_levels, their_tests, alpha, n)
                            + explain(their - mine, "theirs", data.names, ours_test, theirs_test,
                                      ours_levels, their_levels, their_tests, alpha, n)})
                rows_out.append(row)
                print(f"| {name} | {args.rows:,} | {test} | {alpha} | {row['both']} | {row['only_ours']} | "
                      f"{row['only_theirs']} | {seconds:.2f} | {theirs['seconds']:.2f} | "
                      f"{row['ours_tests']} / {theirs['tests']} | {row['ours_shd']} / {row['theirs_shd']} |")
                for d in row["differences"]:
                    for item in d["sets"]:
                        notes.append(f"- {name} {test} alpha {alpha}: {d['edge'][0]} - {d['edge'][1]} kept by "
                                     f"{'us' if d['kept_by'] == 'ours' else 'causal-learn'}; given "
                                     f"{{{', '.join(item['set'])}}} ours p = {item['ours']['p']:.4g} "
                                     f"(G = {item['ours']['statistic']:.2f}, dof {item['ours']['dof']}), "
                                     f"causal-learn p = {item['theirs']['p']:.4g} "
                                     f"(stat {item['theirs']['statistic'] if item['theirs']['statistic'] is None else round(item['theirs']['statistic'], 2)}, "
                                     f"dof {item['theirs']['dof']}): {item['why']}"
                                     + (f" ({d['sets_found']} separating sets at level {d['removal_level']})"
                                        if d["sets_found"] > SHOWN else ""))
    if notes:
        print("\nEvery difference, from the tests that decided it:\n")
        print("\n".join(notes))
    record["skeleton"] = rows_out


# ----------------------------------------------------------------------------- time and SHD

def compare(label, who, seconds, states, truth_states, score=None, error=None, extra=None):
    """One row of the time / SHD tables as a dict."""
    return {"algorithm": label, "by": who, "seconds": seconds, "edges": len(states) if states is not None else None,
            "shd": shd_states(states, truth_states) if states is not None else None, "bdeu": score,
            "error": error, **(extra or {})}


def peer_row(label, who, out, truth_states, scorer=None, names=None):
    if "error" in out:
        return compare(label, who, out.get("over"), None, truth_states, error=out["error"])
    states = unplain(out["states"])
    score = bdeu_of(states, scorer, names) if scorer is not None else None
    return compare(label, who, out["seconds"], states, truth_states, score)


def print_rows(title, rows):
    print(f"\n{title}\n")
    print("| algorithm | by | seconds | edges | SHD to true CPDAG | BDeu |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        seconds = r["error"] if r["error"] else harness.seconds(r["seconds"])
        bdeu = "" if r["bdeu"] is None else f"{r['bdeu']:,.1f}"
        print(f"| {r['algorithm']} | {r['by']} | {seconds} | {'' if r['edges'] is None else r['edges']} | "
              f"{'' if r['shd'] is None else r['shd']} | {bdeu} |")


def time_part(args, record):
    from bnexplore import Scorer

    name, rows = args.time_network, args.rows
    network, data = harness.sampled(name, rows, seed=1)
    truth = pdag_states(network.dag().cpdag().adj)
    scorer = Scorer(data, "bdeu", ess=1.0)
    alpha = args.alphas[0]
    out = []
    result, seconds, states = ours(data, "pc", test="g2", alpha=alpha)
    out.append(compare("PC-stable", "bnexplore", seconds, states, truth, result.score, extra={"tests": result.stats.get("tests")}))
    out.append(peer_row("PC-stable", "causal-learn", peer("causallearn_pc", [name, rows, 1, "g2", alpha, False],
                                                          args.cap), truth))
    out.append(peer_row("PC-stable", "pgmpy", peer("pgmpy_pc", [name, rows, 1, "g2", alpha], args.cap), truth))
    result, seconds, states = ours(data, "ges")
    out.append(compare("GES", "bnexplore", seconds, states, truth, result.score))
    out.append(peer_row("GES", "causal-learn", peer("causallearn_ges", [name, rows, 1], args.cap), truth,
                        scorer, data.names))
    out.append(peer_row("GES", "pgmpy", peer("pgmpy_ges", [name, rows, 1], args.cap), truth, scorer, data.names))
    result, seconds, states = ours(data, "mmhc", alpha=alpha)
    out.append(compare("MMHC", "bnexplore", seconds, states, truth, result.score, extra={"tests": result.stats.get("tests")}))
    out.append(peer_row("MMHC", "pgmpy", peer("pgmpy_mmhc", [name, rows, 1, alpha], args.cap), truth, scorer,
                        data.names))
    print_rows(f"## Time on {name}, N = {rows:,} (G-squared, alpha {alpha}; BDeu ess 1; true CPDAG "
               f"{len(truth)} edges, true network BDeu {scorer.total(network.dag()):,.1f})", out)
    print_ratios(out)
    record["time"] = {"network": name, "rows": rows, "alpha": alpha, "runs": out}


def print_ratios(rows):
    """Peer seconds / our seconds per algorithm ("> x" when the peer was stopped at its cap)."""
    by = {(r["algorithm"], r["by"]): r for r in rows}
    parts = []
    for (algorithm, who), r in by.items():
        mine = next((m for m in rows if m["algorithm"] == algorithm and m["by"].startswith("bnexplore")), None)
        if who.startswith("bnexplore") or not mine or mine["seconds"] is None or r["seconds"] is None:
            continue
        parts.append(f"{algorithm}: {who} / ours {'> ' if r['error'] else ''}{r['seconds'] / mine['seconds']:.1f}x")
    print("\n" + "; ".join(parts))


def capped(run, label, truth, cap, who="bnexplore"):
    """Our row of the large part: the search ran under the peers' cap as its time limit ("over X s" when stopped).

    An error of the search (a bug to report) becomes the row's error, so the other rows are still measured.
    """
    from bnexplore.errors import BNExploreError

    start = time.perf_counter()
    try:
        result, seconds, states = run()
    except BNExploreError as error:
        return compare(label, who, time.perf_counter() - start, None, truth,
                       error=f"failed: {type(error).__name__}: {str(error)[:90]}")
    tests = {"tests": result.stats.get("tests"), "stopped": result.stats.get("stopped")}
    if "conflicts" in result.extra:
        tests["conflicts"] = len(result.extra["conflicts"])
        tests["undirected"] = sum(s == 3 for s in states.values())
    if result.stats.get("stopped"):
        return compare(label, who, seconds, None, truth, error=f"over {cap:.0f} s", extra=tests)
    return compare(label, who, seconds, states, truth, result.score, extra=tests)


def large_part(args, record):
    out = []
    alpha, bound, cap, mine = args.alphas[0], args.max_condition, args.large_cap, args.ours_cap or args.large_cap
    for name in args.large_networks:
        network, data = harness.sampled(name, args.large_rows, seed=1)
        truth = pdag_states(network.dag().cpdag().adj)
        rows = []
        rules = args.v_structures if name in args.rules_on else args.v_structures[:1]
        for rule in rules:
            rows.append(capped(lambda: ours(data, "pc", test="g2", alpha=alpha, max_condition=bound, v_structures=rule,
                                            time_limit=mine), "PC-stable", truth, mine, f"bnexplore ({rule})"))
        rows.append(peer_row("PC-stable", "causal-learn",
                             peer("causallearn_pc", [name, args.large_rows, 1, "g2", alpha, False, bound], cap), truth))
        rows.append(peer_row("PC-stable", "pgmpy", peer("pgmpy_pc", [name, args.large_rows, 1, "g2", alpha, bound],
                                                        cap), truth))
        rows.append(capped(lambda: ours(data, "mmhc", alpha=alpha, max_condition=bound, time_limit=mine), "MMHC",
                           truth, mine))
        rows.append(peer_row("MMHC", "pgmpy (no bound)", peer("pgmpy_mmhc", [name, args.large_rows, 1, alpha], cap),
                             truth))
        print_rows(f"## {name}, N = {args.large_rows:,} ({len(data.names)} variables, true CPDAG {len(truth)} edges; "
                   f"G-squared, alpha {alpha}, max_condition {bound}; peers capped at {cap:.0f} s, ours at "
                   f"{mine:.0f} s)", rows)
        for r in rows:
            if "conflicts" in r:
                print(f"\n{r['algorithm']} {r['by']}: {r['conflicts']} conflicting v-structures (arcs refused), "
                      f"{r['undirected']} edges left undirected, {r['tests']:,} tests")
            elif r["by"].startswith("bnexplore") and r.get("tests") is not None:
                print(f"\n{r['algorithm']} {r['by']}: {r['tests']:,} tests")
        print_ratios(rows)
        out.append({"network": name, "rows": args.large_rows, "alpha": alpha, "max_condition": bound,
                    "peer_cap": cap, "ours_cap": mine, "runs": rows})
    record["large"] = out


def peer_versions():
    """The peers' installed versions (None: not installed)."""
    versions = {}
    for package in ("causal-learn", "pgmpy"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return versions


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="+", default=["skeleton", "time", "large"],
                        choices=("skeleton", "time", "large"))
    parser.add_argument("--quick", action="store_true", help="asia and child, 2,000 rows, 60 s caps (a smoke run)")
    parser.add_argument("--rows", type=int, default=20000, help="rows of the skeleton and time parts")
    parser.add_argument("--large-rows", type=int, default=5000, help="rows of the large part")
    parser.add_argument("--tests", nargs="+", default=list(PEER_TESTS), choices=tuple(PEER_TESTS))
    parser.add_argument("--alphas", nargs="+", type=float, default=[0.05])
    parser.add_argument("--skeleton-networks", nargs="+", default=list(SKELETON_NETWORKS))
    parser.add_argument("--time-network", default="alarm")
    parser.add_argument("--large-networks", nargs="+", default=list(LARGE_NETWORKS))
    parser.add_argument("--cap", type=float, default=600.0, help="seconds before a peer is stopped")
    parser.add_argument("--large-cap", type=float, help="the cap of the large part (default: --cap)")
    parser.add_argument("--max-condition", type=int, help="the large part's bound on the conditioning sets, ours "
                        "and the peers' (causal-learn's max_k, pgmpy PC's max_cond_vars; pgmpy's MMHC has none)")
    parser.add_argument("--ours-cap", type=float, help="our time limit in the large part (default: --large-cap)")
    parser.add_argument("--v-structures", nargs="+", default=["standard"], choices=("standard", "conservative",
                        "majority"), help="our PC's v-structure rules in the large part")
    parser.add_argument("--rules-on", nargs="+", default=["andes"], help="networks run with every --v-structures "
                        "rule (the others: the first rule only)")
    harness.output_option(parser, "pc_ges_mmhc")
    args = parser.parse_args()
    args.json = harness.output_path(args.json, "pc_ges_mmhc", args.quick)
    args.large_cap = args.large_cap or args.cap
    if args.quick:
        args.rows, args.large_rows, args.cap, args.large_cap = 2000, 2000, 60.0, 60.0
        args.skeleton_networks, args.time_network, args.large_networks = ["asia", "child"], "asia", ["child"]
    np.seterr(all="ignore")
    warm_up()
    print("# PC-stable, GES and MMHC against causal-learn and pgmpy")
    print(f"{harness.machine_line()}; peers {peer_versions()}; one run each, kernels compiled before timing")
    record = {"peers": peer_versions(), "cap": args.cap, "large_cap": args.large_cap}
    for part, run in (("skeleton", skeleton_part), ("time", time_part), ("large", large_part)):
        if part in args.parts:
            run(args, record)
            print(f"\nraw: {harness.write_json(args.json, record)}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        harness.serve_worker(WORKERS, sys.argv[2])
    else:
        main()
