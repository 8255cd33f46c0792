"""Time benchmark runs quietly and again beside a CPU-heavy process (issue 29, item 16).

``beside_busy(runs)`` times every ``(label, call)`` (best of :data:`REPEATS`), then starts one
``python -c "while True: pass"`` (a local process, killed by its own id at the
end) and times them again; the ratio says how much a busy neighbour slows
each run. On a shared machine "quiet" means "without our neighbour": other
work may still be running, so the load average is recorded beside the times.
"""

import os
import subprocess
import sys
import time

import harness

REPEATS = 3
"""Each time is the best of this many calls (other work shares the machine: it only ever slows a call)."""


def _timed(runs):
    return {label: harness.best_of(call, REPEATS) for label, call in runs}


def beside_busy(runs):
    """``{label: {"quiet": s, "busy": s, "ratio": busy / quiet}}`` and the conditions, for ``(label, call)`` pairs."""
    load_quiet = os.getloadavg()[0]
    quiet = _timed(runs)
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(1.0)  # let it take its core
        load_busy = os.getloadavg()[0]
        busy = _timed(runs)
    finally:
        hog.kill()
        hog.wait()
    rows = {label: {"quiet": quiet[label], "busy": busy[label], "ratio": busy[label] / quiet[label]}
            for label in quiet}
    conditions = {"load_before_quiet": load_quiet, "load_before_busy": load_busy}
    return rows, conditions


def report(title, rows, conditions, path):
    """Print a Markdown table of the rows and write rows and conditions as JSON to ``path``."""
    m = harness.machine()
    print(f"\n## {title}\n")
    print(f"{m['cores']} cores, numba {m['numba']} ({m['threading_layer']} layer, "
          f"OMP_WAIT_POLICY={m['OMP_WAIT_POLICY']}), load average {conditions['load_before_quiet']:.1f} "
          f"before the quiet runs, {conditions['load_before_busy']:.1f} before the busy ones\n")
    print("| run | quiet s | beside a busy process s | ratio |\n|---|---|---|---|")
    for label, row in rows.items():
        print(f"| {label} | {row['quiet']:.3f} | {row['busy']:.3f} | {row['ratio']:.2f} |")
    harness.write_json(path, {"title": title, "conditions": conditions, "rows": rows})
    print(f"\nraw: {path}")
