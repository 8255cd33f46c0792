"""Bootstrap arc strength: time of R hill-climbing resamples, and how well the
strengths separate the true network's edges from the rest (ROC AUC).

Data are sampled (seed 1) from the bundled alarm (5,000 rows) and hailfinder
(10,000 rows) networks. ``bnexplore.bootstrap`` runs R = 200 resamples of
hill climbing (BDeu, ess = 1, seed 1, equivalence classes counted as bnlearn's
``boot.strength`` does by default) on both cores; the full run also times the
same resamples on one process, and checks both give the same strengths.
Reported: seconds, resamples per second, the estimated threshold, the
averaged network's edges and its structural errors against the truth (beside
those of one hill climb on all the data), and the ROC AUC of the strength as
a score for "this pair is adjacent in the true network" (all pairs), and of
strength x direction for "this arc is in the true network" (all ordered
pairs). The ROC curves are saved to ``benchmarks/out/bootstrap_roc.png`` when
matplotlib is installed. pgmpy 1.1.2 has no bootstrap of structure learning,
so there is no peer run.

The raw rows go to ``benchmarks/results/bootstrap.json`` (``--json`` to choose).

Run: ``python benchmarks/bench_bootstrap.py`` (full: R = 200 on
both networks, plus the one-process timing), or ``--quick`` (R = 20, alarm,
two processes only).
"""

import argparse
import os
import time

import numpy as np

import harness  # first: it puts the repository on sys.path
from bnexplore import bootstrap, learn
from bnexplore.errors import SearchError
from bnexplore.graphs import pdag_extension, structural_errors


def auc(scores, labels):
    """Area under the ROC curve (Mann-Whitney, ties counted half)."""
    scores = np.asarray(scores, float)
    labels = np.asarray(labels, bool)
    pos, neg = scores[labels], scores[~labels]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum()
    ties = (pos[:, None] == neg[None, :]).sum()
    return float((greater + 0.5 * ties) / (len(pos) * len(neg)))


def roc(scores, labels):
    order = np.argsort(-np.asarray(scores), kind="stable")
    labels = np.asarray(labels, bool)[order]
    tpr = np.concatenate([[0], np.cumsum(labels) / max(labels.sum(), 1)])
    fpr = np.concatenate([[0], np.cumsum(~labels) / max((~labels).sum(), 1)])
    return fpr, tpr


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="R = 20 on alarm, two processes only")
    harness.output_option(parser, "bootstrap")
    args = parser.parse_args()
    args.json = harness.output_path(args.json, "bootstrap", args.quick)
    cases = [("alarm", 5000)] if args.quick else [("alarm", 5000), ("hailfinder", 10000)]
    R = 20 if args.quick else 200
    print(f"# Bootstrap arc strength: R = {R} hill-climbing resamples (BDeu, ess = 1, seed 1, CPDAGs counted)")
    print(harness.machine_line() + "\n")
    print("| data | rows | workers | seconds | resamples/s | threshold | averaged edges | averaged A/D/I/H "
          "| one hc A/D/I/H | AUC adjacency | AUC arcs |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    curves, record = [], []
    for name, rows in cases:
        truth, data = harness.sampled(name, rows)
        runs = [2] if args.quick else [2, 1]
        results = {}
        for workers in runs:
            start = time.perf_counter()
            results[workers] = bootstrap(data, "hc", R=R, seed=1, workers=workers)
            results[workers].stats["wall"] = time.perf_counter() - start
        if len(results) == 2:
            assert np.array_equal(results[1].counts, results[2].counts), "workers changed the strengths"
        result = results[2]
        averaged = result.averaged()
        true_adj = truth.dag().adj.astype(bool)
        n = len(truth.names)
        upper = np.triu_indices(n, 1)
        skeleton = (true_adj | true_adj.T)[upper]
        a_adj = auc(result.strength[upper], skeleton)
        off = ~np.eye(n, dtype=bool)
        arc_score = (result.strength * result.direction)[off]
        a_arc = auc(arc_score, true_adj[off])
        curves.append((f"{name} {rows:,}: adjacency (AUC {a_adj:.3f})", *roc(result.strength[upper], skeleton)))
        curves.append((f"{name} {rows:,}: arcs (AUC {a_arc:.3f})", *roc(arc_score, true_adj[off])))
        try:
            errors = structural_errors(pdag_extension(averaged.graph), truth.dag())
        except SearchError:
            errors = None
        single = structural_errors(learn(data, "hc").graph, truth.dag())
        for workers, res in results.items():
            wall = res.stats["wall"]
            record.append({"network": name, "rows": rows, "R": R, "workers": workers, "seconds": wall,
                           "threshold": averaged.threshold, "averaged_edges": averaged.graph.n_edges,
                           "true_edges": int(true_adj.sum()), "averaged_errors": errors, "one_hc_errors": single,
                           "auc_adjacency": a_adj, "auc_arcs": a_arc})
            print(f"| {name} | {rows:,} | {workers} | {wall:.1f} | {R / wall:.1f} | {averaged.threshold:.3f} | "
                  f"{averaged.graph.n_edges} (true {int(true_adj.sum())}) | "
                  f"{'{A}/{D}/{I}/{H}'.format(**errors) if errors else 'no consistent extension'} | "
                  f"{single['A']}/{single['D']}/{single['I']}/{single['H']} | {a_adj:.3f} | {a_arc:.3f} |",
                  flush=True)
        if averaged.dropped:
            print(f"\n{name}: arcs dropped to keep the averaged network acyclic: {averaged.dropped}\n")
    print(f"\nraw: {harness.write_json(args.json, {'runs': record})}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    os.makedirs(harness.SCRATCH, exist_ok=True)
    fig, ax = plt.subplots(figsize=(5.5, 5))
    for label, fpr, tpr in curves:
        ax.plot(fpr, tpr, label=label, linestyle="-" if "adjacency" in label else "--")
    ax.plot([0, 1], [0, 1], color="grey", linewidth=0.5)
    ax.set_xlabel("false positive rate (pairs not in the true network)")
    ax.set_ylabel("true positive rate (pairs in the true network)")
    ax.set_title(f"Bootstrap strength vs the true network (R = {R}, hc)")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    path = harness.SCRATCH / "bootstrap_roc.png"
    fig.savefig(path, dpi=110)
    print(f"\nROC curves: {path.relative_to(harness.ROOT)}")


if __name__ == "__main__":
    main()
