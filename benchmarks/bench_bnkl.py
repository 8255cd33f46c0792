"""BNKL benchmarks: search time against the number of variables and against M,
and cross-validated accuracy on the Wisconsin breast cancer table.

Run in the benchmark environment (scikit-learn is needed for the baselines and
for writing the sample table, never by bnexplore itself)::

    python -m venv /work/benchvenv
    /work/benchvenv/bin/pip install scikit-learn pandas numpy numba scipy networkx
    /work/benchvenv/bin/python benchmarks/bench_bnkl.py sample    # writes sample_data/breast_cancer_wdbc.csv
    /work/benchvenv/bin/python benchmarks/bench_bnkl.py timing    # Markdown tables on stdout
    /work/benchvenv/bin/python benchmarks/bench_bnkl.py accuracy

Timing follows Balov (2013), Table 1: random two-class categorical networks
with 3 categories per node, at most M = 2 parents, n = 250 rows (125 per
class). Accuracy: stratified 5-fold cross-validation repeated with 10 seeds,
the same folds (``bnexplore.classifier.stratified_folds``) for every method;
discretization and every model are fitted inside the training folds.
"""

import argparse
import os
import time

import numpy as np
import pandas as pd

import harness  # first: it puts the repository on sys.path
from bnexplore.bnkl import bnkl_search
from bnexplore.classifier import BNKLClassifier, stratified_folds
from bnexplore.data import Dataset, Encoder
from harness import ROOT

SAMPLE = ROOT / "sample_data" / "breast_cancer_wdbc.csv"


# -- the sample table -------------------------------------------------------------

def readable(feature):
    """scikit-learn's "mean radius" / "radius error" / "worst radius" as the
    UCI-style "radius_mean" / "radius_se" / "radius_worst"."""
    words = feature.split()
    if words[0] in ("mean", "worst"):
        return "_".join(words[1:] + [words[0]])
    return "_".join(words[:-1] + ["se"])


def write_sample(path=SAMPLE):
    """Write the Wisconsin diagnostic breast cancer table (569 rows: "diagnosis"
    malignant / benign, then 30 numeric features) from scikit-learn's copy."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    frame = pd.DataFrame(data.data, columns=[readable(f) for f in data.feature_names])
    frame.insert(0, "diagnosis", np.asarray(data.target_names)[data.target])
    frame.to_csv(path, index=False)
    print(f"wrote {path.relative_to(ROOT)}: {len(frame)} rows, {frame.shape[1] - 1} features, "
          f"{ {k: int(v) for k, v in frame['diagnosis'].value_counts().items()} }")


# -- timing ---------------------------------------------------------------------------

def random_two_class_network(rng, n_vars, n_rows, arity=3, max_parents=2, changed=0.2):
    """Codes and labels sampled from a random categorical network (each node gets up
    to ``max_parents`` random earlier parents, Dirichlet(1) CPTs) for class 0 and
    from a copy with a fraction ``changed`` of the CPTs redrawn for class 1."""
    parents = [sorted(rng.choice(v, min(v, rng.integers(0, max_parents + 1)), replace=False)) for v in range(n_vars)]
    cpts0 = [rng.dirichlet(np.ones(arity), arity ** len(ps)) for ps in parents]
    cpts1 = [rng.dirichlet(np.ones(arity), len(t)) if rng.random() < changed else t for t in cpts0]
    labels = np.repeat([0, 1], [n_rows // 2, n_rows - n_rows // 2]).astype(np.uint8)
    codes = np.zeros((n_rows, n_vars), np.int64)
    for v, ps in enumerate(parents):
        config = np.zeros(n_rows, np.int64)
        for p in ps:
            config = config * arity + codes[:, p]
        table = np.where(labels[:, None] == 0, cpts0[v][config], cpts1[v][config])
        codes[:, v] = (rng.random(n_rows)[:, None] > table.cumsum(axis=1)).sum(axis=1).clip(0, arity - 1)
    return Dataset.from_codes(codes, np.full(n_vars, arity)), labels


def time_search(n_vars, max_parents, n_rows=250, repeats=3, seed=0):
    """Median seconds of bnkl_search (IDE order included) over ``repeats`` random networks."""
    rng = np.random.default_rng(seed)
    seconds, families, path = [], 0, 0
    for _ in range(repeats):
        data, labels = random_two_class_network(rng, n_vars, n_rows)
        start = time.perf_counter()
        result = bnkl_search(data, labels, max_parents=max_parents)
        seconds.append(time.perf_counter() - start)
        families, path = result.stats["local_scores_computed"], len(result.path)
    return float(np.median(seconds)), families, path


def timing():
    """Print the two timing tables; the raw rows, by table."""
    threads = os.environ.get("NUMBA_NUM_THREADS") or os.cpu_count()
    data, labels = random_two_class_network(np.random.default_rng(99), 10, 250)
    bnkl_search(data, labels)  # load the compiled kernels before timing
    print(f"### Search time against the number of variables (M = 2, 3 categories, 250 rows; {threads} threads)\n")
    print("| variables N | parent sets scored | path length | seconds (median of 3) |")
    print("| ---: | ---: | ---: | ---: |")
    record = {"threads": threads, "by_variables": [], "by_max_parents": []}
    for n_vars in (25, 50, 100, 200):
        seconds, families, path = time_search(n_vars, 2)
        record["by_variables"].append({"variables": n_vars, "max_parents": 2, "families": families, "path": path,
                                       "seconds": seconds})
        print(f"| {n_vars} | {families:,} | {path} | {seconds:.3f} |")
    print("\n### Search time against M (N = 50, 3 categories, 250 rows)\n")
    print("| M | parent sets scored | path length | seconds (median of 3) |")
    print("| ---: | ---: | ---: | ---: |")
    for max_parents in range(5):
        seconds, families, path = time_search(50, max_parents)
        record["by_max_parents"].append({"variables": 50, "max_parents": max_parents, "families": families,
                                         "path": path, "seconds": seconds})
        print(f"| {max_parents} | {families:,} | {path} | {seconds:.3f} |")
    return record


# -- accuracy ---------------------------------------------------------------------------

def sklearn_models():
    """The scikit-learn baselines, by name: (make model, uses uniform3 codes?)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import CategoricalNB, GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return {
        "Gaussian naive Bayes (continuous)": (GaussianNB, False),
        "logistic regression (standardised, L2, C = 1)":
            (lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)), False),
        "categorical naive Bayes (uniform3 codes)": (lambda: CategoricalNB(min_categories=3), True),
    }


def coded_fold(X, train, test):
    """uniform3 codes of the training and test rows, cut points from the training rows."""
    encoder = Encoder(discretize="uniform3").fit(X.iloc[train])
    return encoder.transform(X.iloc[train]).codes, encoder.transform(X.iloc[test]).codes


def accuracy(seeds=range(10), cv=5):
    """Print the accuracy table; the raw accuracies and fit times, by method."""
    frame = pd.read_csv(SAMPLE)
    X, y = frame.drop(columns="diagnosis"), frame["diagnosis"].to_numpy()
    bnkl_variants = {f"BNKL M = {m}, select = {s}": {"max_parents": m, "select": s}
                     for m, s in ((0, "ratio"), (1, "ratio"), (2, "ratio"), (2, "bic"), (2, "aic"))}
    baselines = sklearn_models()
    scores = {name: [] for name in [*bnkl_variants, *baselines]}
    fit_seconds = {name: [] for name in bnkl_variants}
    arcs = {name: [] for name in bnkl_variants}
    for seed in seeds:
        for test in stratified_folds(y, cv, seed):
            train = np.setdiff1d(np.arange(len(y)), test)
            for name, options in bnkl_variants.items():
                start = time.perf_counter()
                model = BNKLClassifier(**options).fit(X.iloc[train], y[train])
                fit_seconds[name].append(time.perf_counter() - start)
                arcs[name].append(model.result_.dag.n_edges)
                scores[name].append(model.score(X.iloc[test], y[test]))
            codes = coded_fold(X, train, test)
            for name, (make, coded) in baselines.items():
                train_x, test_x = codes if coded else (X.iloc[train].to_numpy(), X.iloc[test].to_numpy())
                scores[name].append(float(np.mean(make().fit(train_x, y[train]).predict(test_x) == y[test])))
    n_folds = len(scores[next(iter(scores))])
    print(f"### Cross-validated accuracy on breast_cancer_wdbc ({len(y)} rows, 30 features; "
          f"{len(seeds)} x stratified {cv}-fold, the same {n_folds} folds for every method)\n")
    print("| method | mean accuracy | std over folds | arcs (mean) | fit seconds (mean) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, values in scores.items():
        extra = (f"{np.mean(arcs[name]):.1f} | {np.mean(fit_seconds[name]):.3f}" if name in arcs else "– | –")
        print(f"| {name} | {np.mean(values):.4f} | {np.std(values):.4f} | {extra} |")
    return {"folds": n_folds, "accuracy": scores, "fit_seconds": fit_seconds, "arcs": arcs}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("sample", "timing", "accuracy"))
    harness.output_option(parser, "bnkl_<what>")
    args = parser.parse_args(argv)
    if args.what == "sample":
        write_sample()
        return
    record = {"timing": timing, "accuracy": accuracy}[args.what]()
    print(f"\nraw: {harness.write_json(harness.output_path(args.json, f'bnkl_{args.what}'), record)}")


if __name__ == "__main__":
    main()
