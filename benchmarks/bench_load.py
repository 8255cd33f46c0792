"""Time and peak memory to load and encode large tables: today's loader beside the one before issue 13.

Writes synthetic tables (half text columns with 2-6 levels, half small-integer
columns; fixed seed) as CSV, Parquet and Feather to a temporary folder, then
reads and encodes each in a fresh process and reports wall time, CPU time (of
all its threads: the work done, which neighbours on a shared machine disturb
less) and peak resident memory (``VmHWM``) above that of a process that only
imports bnexplore (which imports pandas and pyarrow either way).

Loaders, each measured ``--repeat`` times in alternation (best time, lowest peak):

- ``before #13``: ``bnexplore/data.py`` as it was on main before issue 13
  (commit ``BEFORE``, read with ``git show``): the whole file's bytes in memory,
  pandas' C parser (``low_memory=False``), factorization into int64 codes.
- ``read_table``: this checkout's ``bnexplore.read_table`` on the CSV (Arrow's
  streaming CSV reader, columns factorized block by block), on the Parquet file
  and on the Feather file of the same table.

Run (from the repository root; ``git`` must be on the path for the old loader):

- full: ``python benchmarks/bench_load.py`` (1,000,000 x 40 and 10,000,000 x 20,
  3 repetitions; about 10 minutes and 2.2 GB of temporary files),
- short: ``python benchmarks/bench_load.py --short`` (100,000 x 40 and 200,000 x 20, once),
- one size: ``python benchmarks/bench_load.py --size 1000000x40``.

The raw measurements go to ``benchmarks/results/load.json`` (``--json`` to choose).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

import harness

ROOT = str(harness.ROOT)
BEFORE = "2c1502b4d489fb32c6c9c8a5c1c1a95afaf3bb79"  # main before issue 13 (the loader being replaced)

CHILD = r"""
import json, re, resource, subprocess, sys, time, types
import bnexplore

def cpu_seconds():  # user + system time of every thread of this process
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

def peak_mb():  # VmHWM: this process's own high-water mark (ru_maxrss would include the parent's at fork)
    with open("/proc/self/status") as status:
        return int(re.search(r"VmHWM:\s+(\d+)", status.read()).group(1)) / 1024

loader, path, root, before = sys.argv[1:5]
if loader == "before":
    # bnexplore/data.py as it was before issue 13, imported as a module of the installed package
    source = subprocess.run(["git", "-C", root, "show", f"{before}:bnexplore/data.py"], capture_output=True,
                            text=True, check=True).stdout
    old = types.ModuleType("bnexplore._data_before_issue_13")
    old.__package__ = "bnexplore"
    sys.modules[old.__name__] = old  # dataclasses look their module up
    exec(compile(source, f"bnexplore/data.py@{before[:7]}", "exec"), old.__dict__)
    read = old.read_csv
else:
    read = bnexplore.read_table
if loader == "baseline":
    print(json.dumps({"peak_mb": peak_mb()}))
    sys.exit()
start, cpu = time.perf_counter(), cpu_seconds()
data = read(path)
seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_mb": peak_mb(), "codes_mb": data.codes.nbytes / 2**20,
                  "shape": list(data.codes.shape), "dtype": str(data.codes.dtype)}))
"""


def table_chunks(rows, cols, seed=0, chunk=1_000_000):
    """The synthetic table as Arrow tables of ``chunk`` rows: ``cols // 2`` text columns, then integer columns."""
    rng = np.random.default_rng(seed)
    half = cols // 2
    for start in range(0, rows, chunk):
        n = min(chunk, rows - start)
        columns = {}
        for j in range(half):
            levels = pa.array([f"level_{k}" for k in range(2 + j % 5)])
            columns[f"text{j}"] = levels.take(pa.array(rng.integers(0, len(levels), n)))
        for j in range(cols - half):
            columns[f"int{j}"] = pa.array(rng.integers(0, 3 + j % 6, n))
        yield pa.table(columns)


def write_files(folder, rows, cols):
    """CSV, Parquet and Feather files of the same table; returns {format: path}."""
    paths = {kind: os.path.join(folder, f"table_{rows}x{cols}.{kind}") for kind in ("csv", "parquet", "feather")}
    chunks = table_chunks(rows, cols)
    first = next(chunks)
    options = pa_csv.WriteOptions(include_header=False, quoting_style="none")  # unquoted, as pandas writes it
    with open(paths["csv"], "wb") as text:
        text.write((",".join(first.column_names) + "\n").encode())
    with open(paths["csv"], "ab") as text, pa_csv.CSVWriter(text, first.schema, write_options=options) as csv_out, \
            pq.ParquetWriter(paths["parquet"], first.schema) as parquet_out, \
            pa.ipc.new_file(paths["feather"], first.schema,
                            options=pa.ipc.IpcWriteOptions(compression="lz4")) as feather_out:
        for table in (first, *chunks):
            csv_out.write_table(table)
            parquet_out.write_table(table)
            feather_out.write_table(table, max_chunksize=65536)
    return paths


def child(loader, path):
    env = {**os.environ, "PYTHONPATH": ROOT}
    done = subprocess.run([sys.executable, "-c", CHILD, loader, path, ROOT, BEFORE], capture_output=True,
                          text=True, env=env)
    if done.returncode:
        raise RuntimeError(f"{loader} on {path} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def measure(paths, repeat):
    """Best time and lowest peak of each loader, measured in alternation."""
    runs = {"before #13 (CSV)": ("before", paths["csv"]), "read_table (CSV)": ("new", paths["csv"]),
            "read_table (Parquet)": ("new", paths["parquet"]), "read_table (Feather)": ("new", paths["feather"])}
    found = {}
    for _ in range(repeat):
        base = child("baseline", paths["csv"])["peak_mb"]
        for label, (loader, path) in runs.items():
            stats = child(loader, path)
            stats["peak_mb"] -= base
            best = found.setdefault(label, stats)
            best["seconds"] = min(best["seconds"], stats["seconds"])
            best["cpu"] = min(best["cpu"], stats["cpu"])
            best["peak_mb"] = min(best["peak_mb"], stats["peak_mb"])
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="small tables, one repetition (a smoke test)")
    parser.add_argument("--repeat", type=int, help="repetitions of each measurement (default 3, 1 with --short)")
    parser.add_argument("--size", action="append", metavar="ROWSxCOLS",
                        help="a table size to measure instead, e.g. 1000000x40 (may be repeated)")
    harness.output_option(parser, "load")
    args = parser.parse_args()
    args.json = harness.output_path(args.json, "load", args.short)
    sizes = [(100_000, 40), (200_000, 20)] if args.short else [(1_000_000, 40), (10_000_000, 20)]
    if args.size:
        sizes = [tuple(int(n) for n in size.lower().split("x")) for size in args.size]
    repeat = args.repeat or (1 if args.short else 3)
    print("| rows x cols | file | loader | load + encode | CPU time | peak memory above the interpreter "
          "| codes in memory |")
    print("|---|---|---|---|---|---|---|")
    summary, record = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for rows, cols in sizes:
            start = time.perf_counter()
            paths = write_files(tmp, rows, cols)
            sizes_mb = {kind: os.path.getsize(path) / 2**20 for kind, path in paths.items()}
            print(f"(wrote {rows:,} x {cols} as CSV {sizes_mb['csv']:,.0f} MB, Parquet {sizes_mb['parquet']:,.0f} MB, "
                  f"Feather {sizes_mb['feather']:,.0f} MB in {time.perf_counter() - start:.0f} s)", file=sys.stderr)
            found = measure(paths, repeat)
            record.append({"rows": rows, "cols": cols, "file_mb": sizes_mb, "repeat": repeat, "loaders": found})
            for label, stats in found.items():
                kind = label.split("(")[1].rstrip(")").lower()
                print(f"| {rows:,} x {cols} | {kind} {sizes_mb[kind]:,.0f} MB | {label} | {stats['seconds']:.2f} s "
                      f"| {stats['cpu']:.2f} s | {stats['peak_mb']:,.0f} MB | {stats['codes_mb']:,.0f} MB "
                      f"({stats['dtype']}) |")
            old, new = found["before #13 (CSV)"], found["read_table (CSV)"]
            summary.append(f"{rows:,} x {cols}: read_table / before on CSV: "
                           f"time {new['seconds'] / old['seconds']:.2f}x "
                           f"(CPU {new['cpu'] / old['cpu']:.2f}x), peak {new['peak_mb'] / old['peak_mb']:.2f}x; "
                           f"Parquet / CSV time {found['read_table (Parquet)']['seconds'] / new['seconds']:.2f}x")
    print()
    print("\n".join(summary))
    print(f"raw: {harness.write_json(args.json, {'sizes': record})}")


if __name__ == "__main__":
    main()
