"""Cold start: ``import bnexplore`` against numpy, pandas, numba and scipy, and a CLI query on asia.

Every figure is the best of ``--repeat`` fresh Python processes (neighbours on a
shared machine only ever slow a process down):

- ``python -X importtime -c "import bnexplore"``: the import's cumulative time as
  Python reports it (its top-level ``bnexplore`` line), beside
  ``python -X importtime -c "import numpy, pandas, numba, scipy"`` (the sum of
  those four top-level lines): the ratio is the issue's target (at most 1.5);
- the wall time of each of those processes, start to exit;
- the wall time of ``python -m bnexplore query <asia.bif.gz> --evidence smoke=yes
  --target lung`` (start, import, read the network, compile, answer).

``--root PATH`` measures the source tree at PATH instead of this one (its
``bnexplore`` first on ``PYTHONPATH``, the processes started in PATH), and may
be given more than once, so the tree before a change (a ``git worktree``) and
after it are measured in one run::

    git worktree add /tmp/base 58721e3
    python benchmarks/bench_import.py --root /tmp/base --root .
    git worktree remove /tmp/base

The figures are printed and written to ``benchmarks/results/import.json``
(``--json`` to choose).
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import harness

PEERS = ("numpy", "pandas", "numba", "scipy")
"""The libraries the issue's target compares the import with."""
QUERY = ["--evidence", "smoke=yes", "--target", "lung"]
"""A small query: one observation, one target (the cost is starting up, not inference)."""


def run(root, args):
    """Wall seconds and standard error of one fresh ``python args`` process in ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"python {' '.join(args)} failed in {root}:\n{done.stderr[-2000:]}")
    return seconds, done.stderr


def import_seconds(report, names):
    """Seconds of the top-level imports ``names`` in a ``-X importtime`` report (their cumulative times)."""
    total = 0.0
    for line in report.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2].startswith(" ") and not parts[2].startswith("  ") \
                and parts[2].strip() in names:
            total += int(parts[1]) / 1e6
    return total


def measure(root, repeat):
    """The best of ``repeat`` processes of each kind, for the source tree ``root``."""
    network = Path(root) / "sample_data" / "networks" / "asia.bif.gz"
    best = {}
    for _ in range(repeat):  # alternate the kinds, so a busy spell slows all alike
        wall, report = run(root, ["-X", "importtime", "-c", "import bnexplore"])
        found = {"bnexplore_import": import_seconds(report, {"bnexplore"}), "bnexplore_process": wall}
        wall, report = run(root, ["-X", "importtime", "-c", f"import {', '.join(PEERS)}"])
        found.update(peers_import=import_seconds(report, set(PEERS)), peers_process=wall)
        found["query_process"] = run(root, ["-m", "bnexplore", "query", str(network), *QUERY])[0]
        for key, value in found.items():
            best[key] = min(best.get(key, value), value)
    best["ratio"] = best["bnexplore_import"] / best["peers_import"]
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", action="append", metavar="PATH",
                        help="a source tree to measure (repeatable; default: this one)")
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes of each kind (best taken)")
    harness.output_option(parser, "import")
    args = parser.parse_args()
    roots = [Path(root).resolve() for root in args.root or [harness.ROOT]]
    print(f"# Cold start, best of {args.repeat} fresh processes each\n{harness.machine_line()}\n")
    print("| tree | commit | import bnexplore s | import numpy, pandas, numba, scipy s | ratio | process: bnexplore "
          "/ the four s | `python -m bnexplore query` asia s |\n|---|---|---|---|---|---|---|")
    trees = []
    for root in roots:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        found = {"root": str(root), "commit": commit, **measure(root, args.repeat)}
        trees.append(found)
        print(f"| {root} | {commit} | {found['bnexplore_import']:.2f} | {found['peers_import']:.2f} | "
              f"{found['ratio']:.2f} | {found['bnexplore_process']:.2f} / {found['peers_process']:.2f} | "
              f"{found['query_process']:.2f} |", flush=True)
    path = harness.write_json(harness.output_path(args.json, "import"),
                              {"repeat": args.repeat, "query": ["asia.bif.gz", *QUERY], "trees": trees})
    print(f"\nraw: {path}")


if __name__ == "__main__":
    main()
