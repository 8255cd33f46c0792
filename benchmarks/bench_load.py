"""Time and peak memory to load and encode a 1,000,000-row x 40-column CSV.

Writes a synthetic CSV (20 text columns with 2-6 levels, 20 small-integer
columns) to a temporary folder, then reads and encodes it with
``bnexplore.read_csv`` in a fresh process and reports wall time and peak
resident memory (``VmHWM``) above that of a process that only imports
bnexplore.

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
import json, re, sys, time
import bnexplore

def peak_mb():  # VmHWM: this process's own high-water mark (ru_maxrss would include the parent's at fork)
    with open("/proc/self/status") as status:
        return int(re.search(r"VmHWM:\s+(\d+)", status.read()).group(1)) / 1024

if sys.argv[1] == "--baseline":
    print(json.dumps({"peak_mb": peak_mb()}))
    sys.exit()
start = time.perf_counter()
data = bnexplore.read_csv(sys.argv[1])
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "peak_mb": peak_mb(),
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
        def child(argument):
            out = subprocess.run([sys.executable, "-c", CHILD, argument], capture_output=True, text=True, env=env,
                                 check=True)
            return json.loads(out.stdout)

        base = child("--baseline")["peak_mb"]
        stats = child(path)
        print("| rows x cols | file | load + encode | peak RSS (above interpreter) | codes in memory |")
        print("|---|---|---|---|---|")
        print(f"| {stats['shape'][0]:,} x {stats['shape'][1]} | {size:.0f} MB | {stats['seconds']:.1f} s "
              f"| {stats['peak_mb'] - base:.0f} MB | {stats['codes_mb']:.0f} MB ({stats['dtype']}) |")


if __name__ == "__main__":
    main()
