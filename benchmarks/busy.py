"""Time benchmark runs quietly and again beside a CPU-heavy process (issue 29, item 16).

``beside_busy(runs)`` times every ``(label, call)`` (best of :data:`REPEATS`), then starts one
``python -c "while True: pass"`` (a local process, killed by its own id at the
end) and times them again; the ratio says how much a busy neighbour slows
each run. On a shared machine "quiet" means "without our neighbour": other
work may still be running, so the load average is recorded beside the times.
"""

import json
import os
import platform
import subprocess
import sys
import time

import numba


def _load():
    return os.getloadavg()[0]


REPEATS = 3
"""Each time is the best of this many calls (other work shares the machine: it only ever slows a call)."""


def _timed(runs):
    out = {}
    for label, call in runs:
        best = float("inf")
        for _ in range(REPEATS):
            start = time.perf_counter()
            call()
            best = min(best, time.perf_counter() - start)
        out[label] = best
    return out


def beside_busy(runs):
    """``{label: {"quiet": s, "busy": s, "ratio": busy / quiet}}`` and the conditions, for ``(label, call)`` pairs."""
    load_quiet = _load()
    quiet = _timed(runs)
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(1.0)  # let it take its core
        load_busy = _load()
        busy = _timed(runs)
    finally:
        hog.kill()
        hog.wait()
    rows = {label: {"quiet": quiet[label], "busy": busy[label], "ratio": busy[label] / quiet[label]}
            for label in quiet}
    conditions = {"machine": platform.machine(), "cores": os.cpu_count(), "numba": numba.__version__,
                  "threads": numba.config.NUMBA_NUM_THREADS, "threading_layer": numba.threading_layer(),
                  "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY"), "load_before_quiet": load_quiet,
                  "load_before_busy": load_busy}
    return rows, conditions


def report(title, rows, conditions, path):
    """Print a Markdown table of the rows and write rows and conditions as JSON to ``path``."""
    print(f"\n## {title}\n")
    print(f"{conditions['cores']} cores, numba {conditions['numba']} ({conditions['threading_layer']} layer, "
          f"OMP_WAIT_POLICY={conditions['OMP_WAIT_POLICY']}), load average {conditions['load_before_quiet']:.1f} "
          f"before the quiet runs, {conditions['load_before_busy']:.1f} before the busy ones\n")
    print("| run | quiet s | beside a busy process s | ratio |\n|---|---|---|---|")
    for label, row in rows.items():
        print(f"| {label} | {row['quiet']:.3f} | {row['busy']:.3f} | {row['ratio']:.2f} |")
    with open(path, "w") as handle:
        json.dump({"title": title, "conditions": conditions, "rows": rows}, handle, indent=1)
    print(f"\nraw: {path}")
