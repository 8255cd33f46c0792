"""Time and peak memory to load and encode a 1,000,000-row x 40-column CSV.

Writes a synthetic CSV (20 text columns with 2-6 levels, 20 small-integer
columns) to a temporary folder, then reads and encodes it with
``bnexplore.read_csv`` in a fresh process and reports wall time and peak
resident memory (``ru_maxrss``) above the interpreter's baseline.

Run: ``PYTHONPATH=. python benchmarks/bench_load.py [--rows 1000000]``.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

CHILD = r"""
import json, resource, sys, time
import bnexplore
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
data = bnexplore.read_csv(sys.argv[1])
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "peak_mb": peak / 1024, "base_mb": base / 1024,
                  "codes_mb": data.codes.nbytes / 2**20, "shape": list(data.codes.shape),
                  "dtype": str(data.codes.dtype)}))
"""


def write_table(path, rows, seed=0):
    rng = np.random.default_rng(seed)
    columns = {}
    for j in range(20):
        levels = np.array([f"level_{k}" for k in range(2 + j % 5)])
        columns[f"text{j}"] = levels[rng.integers(0, len(levels), rows)]
    for j in range(20):
        columns[f"int{j}"] = rng.integers(0, 3 + j % 6, rows)
    pd.DataFrame(columns).to_csv(path, index=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "table.csv")
        start = time.perf_counter()
        write_table(path, args.rows)
        size = os.path.getsize(path) / 2**20
        print(f"wrote {args.rows:,} x 40 CSV ({size:.0f} MB) in {time.perf_counter() - start:.1f} s")
        env = {**os.environ, "PYTHONPATH": os.path.join(os.path.dirname(__file__), "..")}
        out = subprocess.run([sys.executable, "-c", CHILD, path], capture_output=True, text=True, env=env,
                             check=True)
        stats = json.loads(out.stdout)
        print("| rows x cols | file | load + encode | peak RSS (above interpreter) | codes in memory |")
        print("|---|---|---|---|---|")
        print(f"| {stats['shape'][0]:,} x {stats['shape'][1]} | {size:.0f} MB | {stats['seconds']:.1f} s "
              f"| {stats['peak_mb'] - stats['base_mb']:.0f} MB | {stats['codes_mb']:.0f} MB ({stats['dtype']}) |")


if __name__ == "__main__":
    main()
