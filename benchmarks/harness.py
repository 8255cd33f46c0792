"""What every benchmark script shares: the machine record, best-of timing, worker processes, the JSON record.

- :func:`machine`: where and when a run happened (CPU, cores, versions, load,
  commit, command), stored in every JSON record so a table can be traced to it;
- :func:`best_of`: the best of repeated calls (neighbours on a shared machine
  only ever slow a call down);
- :func:`run_worker` / :func:`serve_worker`: one task in a fresh Python process
  (its peak memory is its own) under a time cap, its answer as JSON;
- :func:`write_json`, :func:`emit`: the raw results under ``benchmarks/results/``
  by default (one JSON file per script, or JSON lines for scripts that append;
  a ``--quick`` smoke run writes to the uncommitted ``benchmarks/out/`` instead);
- :class:`Child`: a peer in a spawned process, its results taken as they come, stopped at a cap;
- :func:`sampled`: a forward sample of a bundled network as a Dataset.

Scripts import it as ``import harness`` (Python puts the script's folder first on
``sys.path``); importing it also puts the repository root on ``sys.path``, so the
scripts run from any folder without ``PYTHONPATH``.
"""

import functools
import json
import multiprocessing
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
SCRATCH = ROOT / "benchmarks" / "out"
NETWORKS = ROOT / "sample_data" / "networks"

if str(ROOT) not in sys.path:
    sys.path.insert(1, str(ROOT))


def _version(package):
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _git(*args):
    done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def machine():
    """Where and when this run happens.

    Returns
    -------
    dict
        CPU, cores, Python, numpy, numba and pandas versions, numba's threads and
        threading layer (when numba has run a parallel kernel), ``OMP_WAIT_POLICY``,
        the 1-minute load average, the UTC time, the commit (with ``+changes`` when
        tracked files differ from it) and the command line.
    """
    numba = sys.modules.get("numba")
    try:
        layer = numba.threading_layer() if numba else None
    except ValueError:  # no parallel kernel has run yet
        layer = None
    commit = _git("rev-parse", "--short", "HEAD")
    if commit and _git("status", "--porcelain", "--untracked-files=no"):
        commit += "+changes"
    return {"processor": platform.processor() or platform.machine(), "cores": os.cpu_count(),
            "python": platform.python_version(), "numpy": _version("numpy"), "numba": _version("numba"),
            "pandas": _version("pandas"), "threads": numba.config.NUMBA_NUM_THREADS if numba else None,
            "threading_layer": layer, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY"),
            "load_average": os.getloadavg()[0], "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": commit, "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]])}


def machine_line():
    """One printed line of :func:`machine` for a script's Markdown output."""
    m = machine()
    return (f"machine: {m['processor']}, {m['cores']} cores, Python {m['python']}, numba {m['numba']}; "
            f"load average {m['load_average']:.1f}; {m['date']}, commit {m['commit']}")


def best_of(call, repeats):
    """Seconds of the fastest of ``repeats`` calls of ``call()``."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def peak_mib():
    """Peak resident memory of this process so far, MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_worker(script, kind, args, timeout):
    """Run ``script --worker [kind, args]`` in a fresh process; its JSON answer, or ``{"error": ...}``.

    Parameters
    ----------
    script : str
        The benchmark script (``__file__``); its ``main`` hands ``--worker`` to :func:`serve_worker`.
    kind : str
        Which of the script's worker functions.
    args : list
        Its arguments (JSON-serialisable).
    timeout : float or None
        Seconds before the process is killed (None: no cap).
    """
    cmd = [sys.executable, str(Path(script).resolve()), "--worker", json.dumps([kind, args])]
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"killed after {timeout:.0f} s"}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1][:160]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def serve_worker(workers, spec):
    """In the worker process: run ``workers[kind](*args)`` for ``spec = '[kind, args]'``, print its JSON."""
    kind, args = json.loads(spec)
    print(json.dumps(workers[kind](*args)))


def default_path(name, suffix=".json", quick=False):
    """Where a script's raw results go unless told otherwise.

    ``benchmarks/results/<name><suffix>`` (committed: the record behind BENCHMARKS.md), or
    ``benchmarks/out/<name><suffix>`` (not committed) for a quick smoke run.
    """
    return (SCRATCH if quick else RESULTS) / f"{name}{suffix}"


def output_option(parser, name, flag="--json", suffix=".json"):
    """Add the script's raw-results option; read it back with :func:`output_path`."""
    parser.add_argument(flag, metavar="FILE", help=f"the raw results (default: benchmarks/results/{name}{suffix}; "
                                                   f"a quick run: benchmarks/out/{name}{suffix})")


def output_path(given, name, quick=False, suffix=".json"):
    """The path given on the command line, else :func:`default_path`."""
    return given or default_path(name, suffix, quick)


def seconds(x):
    """Seconds as a table shows them: two decimals below 10, whole above, blank for None."""
    if x is None:
        return ""
    return f"{x:.2f}" if x < 10 else f"{x:.0f}"


def error_row(name, error, columns):
    """A Markdown table row of ``columns`` cells for a task that failed: its name, then the error."""
    return f"| {name} | | | {error} |" + " |" * (columns - 4)


def write_json(path, payload):
    """Write ``{"machine": machine(), **payload}`` as JSON to ``path`` (folders made); the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"machine": machine(), **payload}, indent=1) + "\n")
    return path


def emit(path, record):
    """Print one result as a JSON line and append it to ``path`` (None: print only)."""
    line = json.dumps(record)
    print(line, flush=True)
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a") as handle:
            handle.write(line + "\n")


BNLEARN_SCRIPT = Path(__file__).with_name("bnlearn.R")


@functools.cache
def bnlearn_version():
    """bnlearn's version as R reports it (None without Rscript or bnlearn); asked of R once per process."""
    if shutil.which("Rscript") is None:
        return None
    run = subprocess.run(["Rscript", "-e", 'cat(as.character(packageVersion("bnlearn")))'], capture_output=True,
                         text=True)
    return run.stdout.strip() if run.returncode == 0 else None


def bnlearn(mode, states, table, cap, complete=None, max_iter=None):
    """Run R's bnlearn on a table (:data:`BNLEARN_SCRIPT`): ``mode`` "hc" (hill climbing) or "sem"
    (structural EM, with the ``complete`` table and ``max_iter``), BDeu ess 1.

    ``states`` maps each column to every state it has (its arity); ``table`` is a DataFrame of those states,
    NaN at blank cells. Returns ``{"version", "seconds", "arcs"}`` with ``"score"`` (bnlearn's BDeu of its
    network) in "hc" mode and ``"complete_seconds"`` in "sem" mode,
    the arcs as ``(from, to)`` column names, or ``{"error"}``: no Rscript, no bnlearn, a failure, or over
    ``cap`` seconds.
    """
    if shutil.which("Rscript") is None:
        return {"error": "no Rscript"}
    with tempfile.TemporaryDirectory() as folder:
        levels, csv, full = Path(folder) / "levels.tsv", Path(folder) / "table.csv", Path(folder) / "complete.csv"
        levels.write_text("".join("\t".join([name, *values]) + "\n" for name, values in states.items()))
        table.to_csv(csv, index=False, na_rep="NA")
        extra = []
        if mode == "sem":
            complete.to_csv(full, index=False, na_rep="NA")
            extra = [str(full), str(max_iter)]
        try:
            run = subprocess.run(["Rscript", str(BNLEARN_SCRIPT), mode, str(levels), str(csv), *extra],
                                 capture_output=True, text=True, timeout=cap)
        except subprocess.TimeoutExpired:
            return {"error": f"over {cap:.0f} s"}
    if run.returncode != 0:
        return {"error": (run.stderr.strip().splitlines() or [f"exit code {run.returncode}"])[-1][:200]}
    lines = [line.split("\t") if line.startswith("arc") else line.split() for line in run.stdout.splitlines()]
    numbers = ("seconds", "score", "complete_seconds")
    out = {line[0]: line[1] for line in lines if line and line[0] in ("version", *numbers)}
    for key in numbers:
        if key in out:
            out[key] = float(out[key])
    out["arcs"] = [(line[1], line[2].strip()) for line in lines if line and line[0] == "arc"]
    return out


def sampled(name, rows, seed=1):
    """The bundled network ``name`` and a forward sample of ``rows`` rows from it (a Dataset)."""
    from bnexplore.bif import read_bif, sample_codes  # after ROOT is on sys.path
    from bnexplore.data import Dataset

    network = read_bif(NETWORKS / f"{name}.bif.gz")
    codes = sample_codes(network, rows, seed=seed)
    return network, Dataset.from_codes(codes, arities=network.arities, names=network.names, states=network.states)


class Child:
    """A peer run in a spawned child process that sends results back as it goes, stopped on request.

    For a peer that can take far too long or use far too much memory (pyAgrum and pgmpy on
    the largest networks): ``target(*args, pipe)`` runs in the child and sends messages on
    ``pipe``; the parent takes them with :meth:`receive` until a deadline, and the child is
    terminated when the ``with`` block ends.
    """

    def __init__(self, target, args):
        context = multiprocessing.get_context("spawn")
        self.pipe, there = context.Pipe()
        self.process = context.Process(target=target, args=(*args, there), daemon=True)
        self.ended = None

    def __enter__(self):
        self.process.start()
        return self

    def receive(self, deadline):
        """The child's next message, or None once it has died or ``deadline`` (``time.perf_counter``) has passed.

        ``ended`` then says which: ``"died, exit code N"`` or ``"deadline"``.
        """
        while True:
            if self.pipe.poll(0.2):
                return self.pipe.recv()
            if not self.process.is_alive() and not self.pipe.poll():
                self.ended = f"died, exit code {self.process.exitcode}"
                return None
            if time.perf_counter() > deadline:
                self.ended = "deadline"
                return None

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.join()
