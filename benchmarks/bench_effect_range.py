"""What an intervention does across a credible set: seconds of ``bnexplore.effect_range``.

For each data set, the BIC credible set for BF 20 is found first (its time reported apart), then
each do-query below is asked of every DAG of the set (each DAG fitted to the data, BDeu ESS 1,
each family's table fitted once, then one junction-tree query on the mutilated network per DAG):

- cold: ``effect_range`` with nothing fitted yet (the fitting included), after one warm-up call on
  another query so that numba's kernels are compiled;
- warm: the same query again with the fitted networks of the first call reused (``networks=``).

Each time is the best of ``--repeats`` calls. Printed as Markdown with the machine line.

Run: ``python benchmarks/bench_effect_range.py`` (asia 5,000 rows and child 2,000 rows, the
bundled samples).
"""

import argparse
import time

import harness  # first: it puts the repository on sys.path
from bnexplore import credible_set, effect_range, read_csv
from bnexplore.search.credible import fitted_networks
from harness import ROOT

CASES = {
    "asia": [("smoke", {"lung": "yes"}, None), ("dysp", {"bronc": "yes"}, {"asia": "no"}),
             ("lung", {"smoke": "yes"}, None)],
    "child": [("Disease", {"LungParench": "Normal"}, None), ("LowerBodyO2", {"Disease": "TGA"}, None),
              ("Sick", {"Disease": "Fallot"}, {"Age": "0-3_days"})],
}
"""Per data set: ``(target, do, evidence)`` queries; the first asks a cause by setting its effect
(where the set's DAGs disagree on the arc's direction, the answer ranges)."""


def best(call, repeats):
    out = None
    fastest = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        out = call()
        fastest = min(fastest, time.perf_counter() - start)
    return fastest, out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    print(harness.machine_line())
    print()
    print("| data | rows | credible set s | DAGs / MECs | query | cold s | warm s | range of the first state "
          "(min / mean / max) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, cases in CASES.items():
        data = read_csv(ROOT / "sample_data" / f"{name}.csv")
        start = time.perf_counter()
        cs = credible_set(data, bf=20)
        found = time.perf_counter() - start
        target, do, evidence = cases[-1]
        effect_range(cs, target, do, evidence, data=data)  # warm-up: numba compiles its kernels
        for target, do, evidence in cases:
            cold, answer = best(lambda: effect_range(cs, target, do, evidence, data=data), args.repeats)
            networks = fitted_networks(cs, data)
            warm, _ = best(lambda: effect_range(cs, target, do, evidence, data=data, networks=networks), args.repeats)
            asked = f"P({target} \\| " + ", ".join([f"do({k}={v})" for k, v in do.items()]
                                                  + [f"{k}={v}" for k, v in (evidence or {}).items()]) + ")"
            print(f"| {name} | {data.n_rows:,} | {found:.2f} | {len(cs):,} / {len(cs.classes):,} | {asked} | "
                  f"{cold:.3f} | {warm:.3f} | {answer.states[0]}: {answer.minimum[0]:.4f} / {answer.mean[0]:.4f} / "
                  f"{answer.maximum[0]:.4f} |")


if __name__ == "__main__":
    main()
