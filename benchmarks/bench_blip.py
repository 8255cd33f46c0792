"""Benchmark: bnexplore's large-network learner beside BLIP itself, on the paper's own data (issue 34).

BLIP is the Java reference implementation of Scanagatta, de Campos, Corani &
Zaffalon, "Learning Bayesian Networks with Thousands of Variables" (NIPS 2015),
and of WINASOBS (Scanagatta, Corani, Zaffalon, Yoo & Kang, "Efficient learning
of bounded-treewidth Bayesian networks from complete and incomplete data sets",
IJAR 2018, and "Approximated structural learning for large Bayesian networks",
Machine Learning 2018). It is built from its public source (github
mauro-idsia/blip; the commands are in BENCHMARKS.md) and never vendored.

Data: the binary density-estimation benchmarks the paper used, from the DEBD
repository (github arranger1044/DEBD; ``--debd DIR`` is the clone, or any folder
holding ``datasets/<name>/<name>.<split>.data``): comma-separated rows of 0/1.
The train split, or valid + test where the train file is not at hand (a
shallow copy can miss the largest files); the record says which.

For each data set, one core each (``taskset -c``), the same wall-clock budget
T (60 s below 300 variables, 120 s above):

- ``blip-asobs`` / ``blip-winasobs``: BLIP's ``scorer.is`` (independence
  selection, BIC, in-degree <= 6, one thread) for T / 2, then ``solver.asobs``
  or ``solver.winasobs`` on its cache for T / 2. Half each, as BLIP's README
  gives both steps the same ``-t`` and as bnexplore's learner gives the
  explorer half of its time; the IS run is shared by the two solvers and
  counted in both (its wall time and peak memory are in each record).
- ``learner``: ``learn(data, "asobs", score="bic", time_limit=T)``, the
  default large-network learner as a user calls it (hill climbing, parent
  sets by independence selection, ordering climbs until the limit).
- ``hc``: bnexplore's DAG hill climbing with random restarts until T (as
  benchmarks/bench_ordering.py compares: ``hill_climb(restarts=10**6,
  time_limit=T)``).
- ``paper`` (only when asked, ``--methods``): bnexplore's ASOBS as in the
  paper (``start=None``: random orderings over the explored sets only).

Each runs in its own process, so its peak resident memory (``ru_maxrss`` from
``os.wait4``) is its own; wall time counts the interpreter or JVM start and
loading the data; ``search_seconds`` is bnexplore's time inside the search
(numba's cache is warmed first: compiling is never search time). Every
network is rescored by ONE scorer, bnexplore's ``Scorer(data, "bic")``, and
checked against an independent numpy BIC (counts by ``np.unique`` on rows,
log-likelihood minus ``log(N) / 2`` times the free parameters): they must
agree. One JSON line per method and data set goes to ``--out`` (default
``benchmarks/results/blip.jsonl``); ``--table FILE`` prints the table.

Usage::

    python benchmarks/bench_blip.py --blip-jar /tmp/blip-src/blip.jar --debd /tmp/debd
    python benchmarks/bench_blip.py --blip-jar ... --debd ... --datasets accidents ad --slots 1
    python benchmarks/bench_blip.py --table benchmarks/results/blip.jsonl

Without ``--blip-jar`` (or when the jar is not there) the BLIP runs are
skipped with a message and bnexplore's are run alone.
"""

import argparse
import json
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

import harness  # first: it puts the repository on sys.path
from harness import emit

DATASETS = {"accidents": 111, "kosarek": 190, "msweb": 294, "book": 500, "cr52": 889, "bbc": 1058, "ad": 1556}
"""The paper's DEBD data sets run by default, with their numbers of variables."""

METHODS = ("blip-asobs", "blip-winasobs", "learner", "hc", "paper")
DEFAULT_METHODS = ("blip-asobs", "blip-winasobs", "learner", "hc")
JAVA_OPTIONS = ["-Duser.language=en", "-Duser.country=US"]
"""BLIP writes its .res scores with the JVM's locale: a decimal point, not a comma."""


def budget(n_vars):
    """The wall-clock budget of one method on a data set of ``n_vars`` variables (issue 34)."""
    return 60 if n_vars < 300 else 120


# -- data -----------------------------------------------------------------------------------------

def split_files(debd, name):
    """The DEBD files of ``name`` to learn from: the train split, else valid + test; (files, split)."""
    folder = Path(debd) / "datasets" / name
    if not folder.is_dir():
        folder = Path(debd) / name
    train = folder / f"{name}.train.data"
    if train.is_file() and train.stat().st_size > 0:
        return [str(train)], "train"
    files = [folder / f"{name}.{s}.data" for s in ("valid", "test")]
    missing = [str(f) for f in files if not f.is_file() or f.stat().st_size == 0]
    if missing:
        raise SystemExit(f"{name}: neither {train} nor {', '.join(missing)} found under --debd {debd}")
    return [str(f) for f in files], "valid+test"


def read_rows(files):
    """The 0/1 rows of DEBD files, stacked (int8)."""
    return np.vstack([np.loadtxt(f, delimiter=",", dtype=np.int8, ndmin=2) for f in files])


def dataset(codes):
    """A bnexplore Dataset of binary columns ``v0, v1, ...`` (arity 2 each, as BLIP is told)."""
    from bnexplore.data import Dataset

    return Dataset.from_codes(codes, arities=[2] * codes.shape[1], names=[f"v{i}" for i in range(codes.shape[1])])


def write_dat(codes, path):
    """BLIP's .dat format: the names, the cardinalities, then one space-separated row per line."""
    n = codes.shape[1]
    with open(path, "w") as handle:
        handle.write(" ".join(f"v{i}" for i in range(n)) + "\n" + " ".join(["2"] * n) + "\n")
        np.savetxt(handle, codes, fmt="%d", delimiter=" ")


# -- BIC, twice ---------------------------------------------------------------------------------

def numpy_bic(codes, parent_lists, arities=None):
    """BIC of a DAG from counts alone, independent of bnexplore's kernels (natural log).

    For each node ``v`` with parents ``P``: ``sum n(x, p) log(n(x, p) / n(p))`` over the
    observed configurations (``np.unique`` on rows), minus ``log(N) / 2 * (r_v - 1) * prod r_P``.
    """
    codes = np.asarray(codes, np.int64)
    rows, n = codes.shape
    arities = np.full(n, 2) if arities is None else np.asarray(arities)
    total = 0.0
    for v, parents in enumerate(parent_lists):
        parents = sorted(parents)
        _, joint_of_row, joint = np.unique(codes[:, parents + [v]], axis=0, return_inverse=True,
                                           return_counts=True)
        if parents:
            _, parent_of_row, marginal = np.unique(codes[:, parents], axis=0, return_inverse=True,
                                                   return_counts=True)
            parent_of_joint = np.empty(len(joint), np.int64)
            parent_of_joint[joint_of_row.ravel()] = parent_of_row.ravel()
            loglik = float(np.sum(joint * np.log(joint / marginal[parent_of_joint])))
        else:
            loglik = float(np.sum(joint * np.log(joint / rows)))
        params = (arities[v] - 1) * float(np.prod([arities[p] for p in parents]))
        total += loglik - np.log(rows) / 2 * params
    return total


def parse_res(path, n_vars):
    """Parent lists of a BLIP .res file (lines ``i: score (p1,p2,...)``; then ``Score: s``) and its score."""
    parents, score = [[] for _ in range(n_vars)], None
    for line in Path(path).read_text().splitlines():
        if line.startswith("Score:"):
            score = float(line.split(":", 1)[1])
            continue
        match = re.match(r"\s*(\d+):\s*(\S+)\s*(?:\(([\d,\s]*)\))?\s*$", line)
        if match:
            listed = match.group(3)
            parents[int(match.group(1))] = [int(p) for p in listed.split(",") if p.strip()] if listed else []
    return parents, score


# -- one measured process ---------------------------------------------------------------------

def measured(cmd, core, timeout, env=None):
    """Run ``cmd`` pinned to ``core``; wall seconds, peak RSS (MiB), exit code, stdout, stderr.

    The peak is GNU time's (``/usr/bin/time -f %M``): ``os.wait4`` on a child forked from this
    process would also count the parent's pages the child held until its ``exec``.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r", suffix=".time") as peak:
        start = time.perf_counter()
        process = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", peak.name, "taskset", "-c", str(core), *cmd],
                                   stdout=out, stderr=err, env=env, start_new_session=True)
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            code = process.wait()
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        kib = [line for line in peak.read().split() if line.isdigit()]
        return {"wall": wall, "peak_mib": int(kib[-1]) / 1024 if kib else None, "code": code,
                "stdout": out.read().decode(errors="replace"), "stderr": err.read().decode(errors="replace")}


def worker_env():
    """bnexplore's workers use one numba thread: one core each."""
    return {**os.environ, "NUMBA_NUM_THREADS": "1",
            "PYTHONPATH": str(harness.ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


# -- the bnexplore side, in a worker process --------------------------------------------------------

def run_bnexplore(method, files, seconds, seed):
    """In a worker: load the files, run ``method`` for ``seconds``; its parent lists, timings and stats."""
    start = time.perf_counter()
    data = dataset(read_rows(files))
    from bnexplore import learn
    from bnexplore.scores import Scorer
    from bnexplore.search.hillclimb import hill_climb
    from bnexplore.search.ordering import ordering_search

    load_seconds = time.perf_counter() - start
    begin = time.perf_counter()
    if method == "learner":
        result = learn(data, "asobs", score="bic", time_limit=seconds, seed=seed)
    elif method == "hc":
        result = hill_climb(Scorer(data, "bic"), restarts=10 ** 6, seed=seed, time_limit=seconds)
    else:
        result = ordering_search(Scorer(data, "bic"), "asobs", time_limit=seconds, seed=seed, start=None)
    search_seconds = time.perf_counter() - begin
    stats = {k: v for k, v in result.stats.items() if isinstance(v, (int, float, str, type(None)))}
    return {"parents": [sorted(map(int, p)) for p in result.graph.parent_sets()], "own_score": result.score, "load_seconds": load_seconds, "search_seconds": search_seconds,
            "stats": stats, "params": {k: v for k, v in result.params.items()
                                       if isinstance(v, (int, float, str, type(None)))}}


WORKERS = {"bnexplore": run_bnexplore}


def bnexplore_task(method, files, seconds, seed, core):
    """Run one bnexplore method in a measured worker process."""
    spec = json.dumps(["bnexplore", [method, files, seconds, seed]])
    run = measured([sys.executable, str(Path(__file__).resolve()), "--worker", spec], core,
                   timeout=3 * seconds + 300, env=worker_env())
    record = {"method": method, "wall": run["wall"], "peak_mib": run["peak_mib"]}
    if run["code"] != 0 or not run["stdout"].strip():
        return {**record, "error": (run["stderr"].strip().splitlines() or [f"exit code {run['code']}"])[-1][:200]}
    return {**record, **json.loads(run["stdout"].strip().splitlines()[-1])}


# -- the BLIP side ------------------------------------------------------------------------------

def blip_task(jar, dat, n_vars, seconds, seed, core, scratch, methods, java):
    """BLIP's scorer.is for T / 2, then each asked solver for T / 2 on its cache; one record per solver."""
    half = max(1, int(round(seconds / 2)))
    jkl, base = scratch / f"{dat.stem}.jkl", [java, *JAVA_OPTIONS, "-jar", str(jar)]
    scorer = measured([*base, "scorer.is", "-d", str(dat), "-j", str(jkl), "-t", str(half), "-b", "1",
                       "-seed", str(seed)], core, timeout=3 * seconds + 300)
    if scorer["code"] != 0 or not jkl.is_file():
        return [{"method": m, "error": f"scorer.is: {(scorer['stderr'].strip().splitlines() or ['failed'])[-1]}"}
                for m in methods]
    records = []
    for method in methods:
        res = scratch / f"{dat.stem}.{method}.res"
        solver = method.removeprefix("blip-")
        run = measured([*base, f"solver.{solver}", "-j", str(jkl), "-r", str(res), "-t", str(half), "-b", "1",
                        "-seed", str(seed)], core, timeout=3 * seconds + 300)
        record = {"method": method, "wall": scorer["wall"] + run["wall"],
                  "peak_mib": max(scorer["peak_mib"], run["peak_mib"]), "is_wall": scorer["wall"],
                  "is_peak_mib": scorer["peak_mib"], "solver_wall": run["wall"], "solver_peak_mib": run["peak_mib"],
                  "jkl_sets": sum(1 for line in jkl.read_text().splitlines()[1:] if line[:1] in "-0123456789.")
                  - n_vars}
        if run["code"] != 0 or not res.is_file():
            records.append({**record, "error": (run["stderr"].strip().splitlines() or ["failed"])[-1][:200]})
            continue
        parents, own = parse_res(res, n_vars)
        records.append({**record, "parents": parents, "own_score": own})
    return records


# -- scheduling -----------------------------------------------------------------------------------

def tasks_of(name, args, scratch):
    """The tasks of one data set (callables of a core), BLIP's chain first."""
    files, split = split_files(args.debd, name)
    codes = read_rows(files)
    n = codes.shape[1]
    seconds = args.seconds or budget(n)
    info = {"dataset": name, "n": n, "rows": codes.shape[0], "split": split, "budget": seconds}
    tasks = []
    blip = [m for m in args.methods if m.startswith("blip-")]
    if blip and args.jar:
        dat = scratch / f"{name}.dat"
        write_dat(codes, dat)
        tasks.append(lambda core: blip_task(args.jar, dat, n, seconds, args.seed, core, scratch, blip, args.java))
    for method in (m for m in args.methods if not m.startswith("blip-")):
        tasks.append(lambda core, method=method: [bnexplore_task(method, files, seconds, args.seed, core)])
    return info, codes, tasks


def rescore(info, codes, record, out):
    """Rescore one record's network by bnexplore's Scorer and by numpy; emit it."""
    from bnexplore.scores import Scorer

    if "parents" in record:
        parents = record.pop("parents")
        record["bic"] = Scorer(dataset(codes), "bic").total(parents)
        record["bic_numpy"] = numpy_bic(codes, parents)
        record["agree"] = bool(abs(record["bic"] - record["bic_numpy"]) <= 1e-6 * abs(record["bic"]) + 1e-6)
        record["arcs"] = sum(map(len, parents))
    emit(out, {**info, **record, "load_average": os.getloadavg()[0], "machine": harness.machine()})


def run_all(args):
    scratch = Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    cores = list(range(args.slots))
    work, done = queue.Queue(), queue.Queue()
    plan = []
    for name in args.datasets:
        info, codes, tasks = tasks_of(name, args, scratch)
        plan.append((info, codes, len(tasks)))
        for task in tasks:
            work.put((name, task))

    def slot(core):
        while True:
            try:
                name, task = work.get_nowait()
            except queue.Empty:
                return
            start_load = os.getloadavg()[0]
            try:
                records = task(core)
            except Exception as error:  # a failed run is a row of the table, not the end of the benchmark
                records = [{"method": "?", "error": repr(error)[:200]}]
            for record in records:
                done.put((name, {**record, "core": core, "load_at_start": start_load}))

    threads = [threading.Thread(target=slot, args=(core,), daemon=True) for core in cores]
    for thread in threads:
        thread.start()
    infos = {info["dataset"]: (info, codes) for info, codes, _ in plan}
    while any(t.is_alive() for t in threads) or not done.empty():
        try:
            name, record = done.get(timeout=1)
        except queue.Empty:
            continue
        rescore(*infos[name], record, args.out)


# -- the table --------------------------------------------------------------------------------------

def table(path):
    """The Markdown table of a results file (the last record per data set and method wins)."""
    rows = {}
    for line in Path(path).read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            rows[(r["dataset"], r["method"])] = r
    names = list(dict.fromkeys(d for d, _ in rows))
    labels = {"blip-asobs": "BLIP IS+ASOBS", "blip-winasobs": "BLIP IS+WINASOBS", "learner": "bnexplore learner",
              "hc": "bnexplore hc", "paper": "bnexplore ASOBS (paper)"}
    methods = [m for m in METHODS if any((d, m) in rows for d in names)]
    head = ("| data | n | rows | T (s) | " + " | ".join(labels[m] for m in methods)
            + " | learner >= hc | learner >= BLIP best | wall s: " + " / ".join(labels[m] for m in methods)
            + " | peak MiB: " + " / ".join(labels[m] for m in methods) + " | scorers agree |")
    out = [head, "|" + "---|" * (head.count("|") - 1)]

    def cell(r, key, fmt):
        return "" if r is None or r.get(key) is None else format(r[key], fmt)

    for d in names:
        got = {m: rows.get((d, m)) for m in methods}
        info = next(r for r in got.values() if r)
        bics = {m: r.get("bic") for m, r in got.items() if r and r.get("bic") is not None}
        best = max(bics.values()) if bics else None
        scores = [("**" if bics.get(m) == best else "") + cell(got[m], "bic", ",.0f")
                  + ("**" if bics.get(m) == best else "") if got[m] and "bic" in got[m]
                  else (got[m] or {}).get("error", "")[:40] for m in methods]
        learner = bics.get("learner")
        blip_best = max([bics[m] for m in ("blip-asobs", "blip-winasobs") if m in bics], default=None)

        def verdict(other):
            if learner is None or other is None:
                return ""
            return f"{'yes' if learner >= other - 1e-6 else 'no'} ({learner - other:+,.0f})"

        agree = all(r.get("agree", True) for r in got.values() if r)
        out.append(f"| {d} | {info['n']} | {info['rows']:,} ({info['split']}) | {info['budget']} | "
                   + " | ".join(scores) + f" | {verdict(bics.get('hc'))} | {verdict(blip_best)} | "
                   + " / ".join(cell(got[m], "wall", ".0f") for m in methods) + " | "
                   + " / ".join(cell(got[m], "peak_mib", ",.0f") for m in methods)
                   + f" | {'yes' if agree else 'NO'} |")
    learners = [r for (d, m), r in rows.items() if m == "learner" and "stats" in r]
    if learners:
        out += ["", "| data | learner search s | seed s (ended) | parent s (ended) | ordering s (ended) | restarts | "
                "over T |", "|---|---|---|---|---|---|---|"]
        for r in learners:
            s = r["stats"]
            over = r["search_seconds"] - r["budget"]
            out.append(f"| {r['dataset']} | {r['search_seconds']:.1f} | {s.get('seed_seconds', 0):.1f} "
                       f"({s.get('seed_ended')}) | {s.get('parent_seconds', 0):.1f} ({s.get('parent_ended')}) | "
                       f"{s.get('ordering_seconds', 0):.1f} ({s.get('ordering_ended')}) | {s.get('restarts')} | "
                       f"{over:+.1f} s ({100 * over / r['budget']:+.1f} %) |")
    return "\n".join(out)


def settle_page_cache(java):
    """Drop the page cache of both runtimes' files (numba, llvmlite, numpy, SciPy; the JVM), so each measured
    process maps its libraries as after a reboot; the number of files dropped.

    A resident-memory peak counts the pages of the shared libraries a process has mapped. On Linux 6.18 with
    ext4, a library just written by ``pip install`` sits in the page cache in large folios, and a process
    that maps it counts whole folios: ``libllvmlite.so`` (178 MB) held 108 MiB resident in a process that
    loaded one cached kernel, against 68 MiB once its pages were read back from disk (every bnexplore
    process about 44 MiB more, the learner's peak on baudio 235 MiB against 186, BLIP's JVM untouched as
    its files were not new). ``posix_fadvise(DONTNEED)`` drops the clean, unmapped pages of a file (no root
    needed), but not of pages a process has mapped: it runs before this process loads numba (the
    pages of numpy, imported already, stay).
    """
    import importlib.util
    import shutil

    roots = [Path(importlib.util.find_spec(name).origin).parent for name in ("numba", "llvmlite", "numpy", "scipy")]
    roots += [Path(spec.submodule_search_locations[0]).parent / f"{name}.libs"
              for name, spec in ((n, importlib.util.find_spec(n)) for n in ("numpy", "scipy"))]
    binary = shutil.which(java)
    if binary:
        roots.append(Path(binary).resolve().parent.parent)  # the JVM's home: bin/java -> lib/...
    dropped = 0
    for root in (r for r in roots if r.is_dir()):
        for path in (p for p in root.rglob("*") if p.is_file() and not p.is_symlink()):
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError:
                continue
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                dropped += 1
            finally:
                os.close(fd)
    return dropped


def warm_up():
    """Compile (or load) the numba kernels the workers use before anything is timed: bnexplore's own warm-up
    (every kernel, the paths a short run may not reach included: a compile inside a measured run took baudio's
    peak from 180 to 203 MiB), then the workers' calls on data of their kind."""
    from bnexplore import learn
    from bnexplore.scores import Scorer
    from bnexplore.search.hillclimb import hill_climb
    from bnexplore.search.ordering import ordering_search
    from bnexplore.warmup import warm_up as compile_kernels

    compile_kernels()

    rng = np.random.default_rng(0)
    codes = rng.integers(0, 2, (300, 12)).astype(np.int8)
    codes[:, 1] = codes[:, 0] ^ (rng.random(300) < 0.1)
    data = dataset(codes)
    learn(data, "asobs", score="bic", time_limit=2, seed=0)
    hill_climb(Scorer(data, "bic"), restarts=3, seed=0)
    ordering_search(Scorer(data, "bic"), "asobs", restarts=2, seed=0, start=None)
    assert abs(Scorer(data, "bic").total([[], [0]] + [[]] * 10) - numpy_bic(codes, [[], [0]] + [[]] * 10)) < 1e-6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blip-jar", dest="jar", metavar="PATH", help="BLIP's jar (see BENCHMARKS.md)")
    parser.add_argument("--java", default="java", help="the java command (default: java)")
    parser.add_argument("--debd", metavar="DIR", help="a copy of github arranger1044/DEBD")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), metavar="NAME",
                        help=f"default: {' '.join(DATASETS)}")
    parser.add_argument("--methods", nargs="+", default=list(DEFAULT_METHODS), choices=METHODS)
    parser.add_argument("--seconds", type=float, help="one budget for all (default: 60 s below 300 variables, "
                                                      "120 s above)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--slots", type=int, default=2, choices=(1, 2),
                        help="methods run at a time, each on its own core (0, 1)")
    parser.add_argument("--scratch", default=str(Path(tempfile.gettempdir()) / "bench_blip"),
                        help="BLIP's .dat, .jkl and .res files")
    harness.output_option(parser, "blip", "--out", ".jsonl")
    parser.add_argument("--table", metavar="JSONL", help="print the markdown table of a results file")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        harness.serve_worker(WORKERS, args.worker)
        return
    if args.table:
        print(table(args.table))
        return
    if not args.debd:
        parser.error("--debd DIR is needed (a copy of github arranger1044/DEBD)")
    if args.jar and not Path(args.jar).is_file():
        print(f"BLIP skipped: no jar at {args.jar} (build it as benchmarks/BENCHMARKS.md says)", file=sys.stderr)
        args.jar = None
    elif not args.jar and any(m.startswith("blip-") for m in args.methods):
        print("BLIP skipped: no --blip-jar given", file=sys.stderr)
    args.out = harness.output_path(args.out, "blip", suffix=".jsonl")
    print(f"page cache dropped for {settle_page_cache(args.java)} runtime files", flush=True)
    warm_up()
    print(harness.machine_line(), flush=True)
    run_all(args)
    print(table(args.out))


if __name__ == "__main__":
    main()
