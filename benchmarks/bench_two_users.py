"""Two app users searching at once (issue 29, item 16): each search alone, then two at the same time.

The app runs every search in a background thread of its one server process
(``bnexplore_app.jobs``), so two users' searches are two threads of one process
sharing numba's thread pool. This script times each search alone (best of
three), then two copies of it started together in two threads (best of three
rounds, the slower thread of each round), and prints the ratio: on 2 cores two
searches at once should each take about as long as alone, and at most twice.

Usage::

    python benchmarks/bench_two_users.py --network sample_data/networks/win95pts.bif.gz
    # raw times: benchmarks/results/two_users.json (--json to choose)
"""

import argparse
import os
import threading
import time

import numba

import harness  # first: it puts the repository on sys.path
import bnexplore as bx
from bnexplore.bif import read_bif, sample

REPEATS = 3
"""Best of this many (other work shares the machine: it only ever slows a run)."""


def _together(call):
    """The best over rounds of the slower of two threads started together."""
    best = float("inf")
    for _ in range(REPEATS):
        seconds = [0.0, 0.0]
        barrier = threading.Barrier(2)

        def run(i):
            barrier.wait()
            start = time.perf_counter()
            call()
            seconds[i] = time.perf_counter() - start

        threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        best = min(best, max(seconds))
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--network", required=True, metavar="BIF", help="the network to sample (e.g. win95pts)")
    parser.add_argument("--rows", type=int, default=10_000)
    harness.output_option(parser, "two_users")
    args = parser.parse_args()
    args.json = harness.output_path(args.json, "two_users")
    network = read_bif(args.network)
    data = bx.Dataset.from_frame(sample(network, args.rows, seed=1))
    runs = {f"{algorithm}": (lambda algorithm=algorithm: bx.learn(data, algorithm=algorithm, score="bdeu"))
            for algorithm in ("hc", "rpdag")}
    for call in runs.values():  # compile (or load from the cache) before anything is timed
        call()
    load = os.getloadavg()[0]
    rows = {label: {"alone": harness.best_of(call, REPEATS), "two_at_once": _together(call)}
            for label, call in runs.items()}
    for row in rows.values():
        row["ratio"] = row["two_at_once"] / row["alone"]
    name = os.path.basename(args.network).split(".")[0]
    print(f"\n## Two users at once: {name} N = {args.rows:,}, BDeu\n")
    print(f"{os.cpu_count()} cores, numba {numba.__version__} ({numba.threading_layer()} layer, "
          f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')}), load average {load:.1f} before\n")
    print("| search | alone s | two at once s (the slower) | ratio |\n|---|---|---|---|")
    for label, row in rows.items():
        print(f"| {label} | {row['alone']:.3f} | {row['two_at_once']:.3f} | {row['ratio']:.2f} |")
    harness.write_json(args.json, {"network": name, "rows": args.rows, "load_before": load, "results": rows})


if __name__ == "__main__":
    main()
