"""The command line: ``python -m bnexplore COMMAND ...`` (JSON out).

Every command reads its input with the same data options as the Python API,
prints JSON (or writes it with ``--json``), shows a terminal progress bar for
long work (Ctrl-C stops the search and keeps the best network so far), and on
bad input exits non-zero with a one-line message on stderr.
"""

import argparse
import json
import signal
import sys
import threading
import time
from pathlib import Path

from .errors import BNExploreError


class TerminalProgress:
    """A one-line progress bar on a terminal (silent when not a terminal).

    Called with the ``info`` dicts of :class:`bnexplore.control.Control`:
    shows the fraction done (or a spinner when unknown), the message, the best
    score so far and the time left when there is a time limit.
    """

    def __init__(self, stream=sys.stderr, time_limit=None, width=28):
        self.stream = stream
        self.enabled = hasattr(stream, "isatty") and stream.isatty()
        self.time_limit = time_limit
        self.width = width
        self.turn = 0

    def __call__(self, info):
        if not self.enabled:
            return
        done = info.get("done")
        if done is None:
            self.turn += 1
            bar = "".join("#" if (i - self.turn) % 8 < 3 else "." for i in range(self.width))
            pct = "    "
        else:
            filled = int(round(self.width * min(max(done, 0.0), 1.0)))
            bar = "#" * filled + "." * (self.width - filled)
            pct = f"{100 * done:3.0f}%"
        parts = [f"[{bar}] {pct}", info.get("message", "")]
        if info.get("score") is not None and info.get("bound") is None:
            parts.append(f"best {info['score']:.4f}")
        elapsed = info.get("elapsed", 0.0)
        parts.append(f"{elapsed:.1f}s")
        if self.time_limit:
            parts.append(f"{max(0.0, self.time_limit - elapsed):.0f}s left")
        self.stream.write("\r" + "  ".join(p for p in parts if p)[:150].ljust(150))
        self.stream.flush()

    def close(self):
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def _interrupt_sets(event):
    """First Ctrl-C sets ``event`` (the search stops and keeps its best
    graph); a second one aborts."""

    def handler(signum, frame):
        if event.is_set():
            raise KeyboardInterrupt
        event.set()

    signal.signal(signal.SIGINT, handler)


def _add_data_options(parser):
    parser.add_argument("data", help="CSV file (.csv or .csv.gz)")
    parser.add_argument("--no-header", action="store_true", help="the file has no header row")
    parser.add_argument("--sep", default=",", help="column separator (default ,)")
    parser.add_argument("--discretize", help="uniform3 | quantile:K | width:K | manual:c1,c2 for numeric columns")
    parser.add_argument("--categorical", action="store_true", help="treat every column as categorical")
    parser.add_argument("--missing", default="state", choices=["state", "drop", "error"],
                        help="missing values: own state (default), drop rows, or error")
    parser.add_argument("--max-levels", type=int, default=50, help="most states a text column may have")


def _add_score_options(parser, default="bdeu"):
    parser.add_argument("--score", default=default, help=f"bdeu | k2 | bic | aic | ll (default {default})")
    parser.add_argument("--ess", type=float, default=1.0, help="BDeu equivalent sample size (default 1)")


def _add_run_options(parser):
    parser.add_argument("--time-limit", type=float, help="stop after this many seconds, keeping the best so far")
    parser.add_argument("--json", dest="json_out", help="write the full result as JSON to this file")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _add_engine_option(parser):
    parser.add_argument("--engine", choices=["auto", "dp", "ilp"],
                        help="exact engine: the subset DP, branch and cut on SCIP (ilp; needs pip install pyscipopt), "
                             "or auto (default: the DP while it is fast and fits in memory, the ILP beyond)")


def _read_data(args):
    from .data import read_csv

    return read_csv(args.data, header=not args.no_header, sep=args.sep, discretize=args.discretize,
                    types="categorical" if args.categorical else None, missing=args.missing,
                    max_levels=args.max_levels)


def _parse_arcs(text):
    """``"A->B, B->C"`` as a list of (parent, child) name pairs."""
    arcs = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        if "->" not in part:
            raise BNExploreError(f"cannot read arc {part!r}: write arcs as PARENT->CHILD, separated by commas")
        u, v = (x.strip() for x in part.split("->", 1))
        arcs.append((u, v))
    return arcs


def _graph_from_file(path):
    from .graphs import DAG

    try:
        data = json.loads(Path(path).read_text())
    except OSError as err:
        raise BNExploreError(f"cannot read graph file {path}: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise BNExploreError(f"graph file {path} is not valid JSON (line {err.lineno})") from None
    return DAG.from_json(data.get("graph", data))


def _emit(payload, out_path, summary=None):
    text = json.dumps(payload, indent=2)
    if out_path:
        Path(out_path).write_text(text)
        print(json.dumps(summary if summary is not None else {"written": out_path}, indent=2))
    else:
        print(text)


def cmd_score(args):
    from .graphs import DAG
    from .scores import Scorer

    data = _read_data(args)
    scorer = Scorer(data, score=args.score, ess=args.ess)
    if args.graph:
        graph = _graph_from_file(args.graph)
        missing = sorted(set(graph.names) - set(data.names))
        if missing:
            raise BNExploreError(f"the graph names variables the data does not have: {', '.join(missing)}")
        parents = {v: [graph.names[p] for p in graph.parents(i)] for i, v in enumerate(graph.names)}
    else:
        graph = DAG.from_arcs(_parse_arcs(args.arcs or ""), data.names)
        parents = {v: [data.names[p] for p in graph.parents(i)] for i, v in enumerate(data.names)}
    local = scorer.local_scores(parents)
    _emit({"score": float(local.sum()), "score_name": scorer.score_name, "params": scorer.params,
           "local": {name: float(s) for name, s in zip(data.names, local)},
           "parents": {v: parents.get(v, []) for v in data.names}}, None)


def cmd_sample(args):
    from .bif import read_bif, sample

    if args.n <= 0:
        raise BNExploreError(f"-n must be a positive number of rows, got {args.n}")
    frame = sample(read_bif(args.network), args.n, seed=args.seed)
    if args.output:
        frame.to_csv(args.output, index=False)
        print(json.dumps({"rows": args.n, "variables": frame.shape[1], "written": args.output}))
    else:
        frame.to_csv(sys.stdout, index=False)


def _run_with_progress(args, run):
    """Call ``run(progress, stop)`` with a terminal bar and Ctrl-C as stop."""
    stop = threading.Event()
    _interrupt_sets(stop)
    bar = TerminalProgress(time_limit=getattr(args, "time_limit", None))
    if args.quiet:
        bar.enabled = False
    try:
        return run(bar, stop)
    finally:
        bar.close()


def cmd_learn(args):
    from .search import learn

    data = _read_data(args)
    options = {"max_indegree": args.max_indegree, "time_limit": args.time_limit}
    if args.engine is not None:
        if args.algorithm != "exact":
            raise BNExploreError(f"--engine applies to --algorithm exact only, not {args.algorithm}")
        options["engine"] = args.engine
    for name in ("parents", "time_per_variable", "workers", "scheduler", "restarts", "seed"):
        value = getattr(args, name)
        if value is not None:
            options[name] = value
    started = time.perf_counter()
    result = _run_with_progress(args, lambda bar, stop: learn(
        data, algorithm=args.algorithm, score=args.score, ess=args.ess, progress=bar, stop=stop, **options))
    payload = result.to_json()
    summary = {"algorithm": result.algorithm, "score": result.score, "score_name": result.score_name,
               "edges": result.graph.n_edges, "seconds": round(time.perf_counter() - started, 3),
               "stopped": result.stats.get("stopped"), "written": args.json_out}
    if "engine" in result.stats:
        summary.update(engine=result.stats["engine"], bound=result.stats.get("bound"), gap=result.stats.get("gap"),
                       exact=result.stats.get("exact"))
    _emit(payload, args.json_out, summary)


def cmd_enumerate(args):
    from .search.credible import credible_set

    data = _read_data(args)
    found = _run_with_progress(args, lambda bar, stop: credible_set(
        data, score=args.score, bf=args.bf, ess=args.ess, max_indegree=args.max_indegree, limit=args.limit,
        engine=args.engine or "auto", progress=bar, stop=stop, time_limit=args.time_limit))
    summary = {"engine": found.stats.get("engine"), "opt": found.opt, "epsilon": found.epsilon,
               "bayes_factor": found.bayes_factor,
               "networks": len(found.scores), "classes": len(found.classes),
               "rpdag_classes": len(found.rpdag_classes), "truncated": found.truncated,
               "truncated_reason": found.truncated_reason, "complete_epsilon": found.complete_epsilon,
               "written": args.json_out}
    if args.json_out:
        Path(args.json_out).write_text(found.dumps())
    print(json.dumps(summary, indent=2))


def cmd_bnkl(args):
    from .classifier import cross_validate
    from .data import read_frame
    from .search.bnkl import bnkl

    frame, _ = read_frame(args.data, header=not args.no_header, sep=args.sep)
    options = {"class0": args.class0, "max_parents": args.max_parents, "select": args.select,
               "discretize": args.discretize or "uniform3"}
    result = _run_with_progress(args, lambda bar, stop: bnkl(
        frame, args.class_column, progress=bar, stop=stop, time_limit=args.time_limit, **options))
    payload = result.to_json()
    if args.cv:
        X = frame.drop(columns=[args.class_column])
        payload["cv"] = cross_validate(X, frame[args.class_column], cv=args.cv, seed=args.seed or 0, **options)
    summary = {"algorithm": "bnkl", "class0": payload["classes"][0], "S": payload["S"], "R": payload["R"],
               "df": payload["df"], "arcs": len(payload["graph"]["arcs"]), "path_points": len(payload["path"]),
               "cv_accuracy": payload.get("cv", {}).get("mean"), "written": args.json_out}
    _emit(payload, args.json_out, summary)


def build_parser():
    """The argparse parser of every command."""
    parser = argparse.ArgumentParser(prog="python -m bnexplore",
                                     description="Learn and explore Bayesian network structure from discrete data.")
    commands = parser.add_subparsers(dest="command", required=True)

    p = commands.add_parser("score", help="score a graph on data: total and per-node local scores (JSON)")
    _add_data_options(p)
    _add_score_options(p)
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--arcs", help='arcs as "A->B,B->C"')
    group.add_argument("--graph", help="graph JSON file (a result file or {nodes, arcs})")
    p.set_defaults(func=cmd_score)

    p = commands.add_parser("sample", help="sample rows from a BIF network")
    p.add_argument("network", help="BIF file (.bif or .bif.gz)")
    p.add_argument("-n", type=int, required=True, help="number of rows")
    p.add_argument("--seed", type=int, help="random seed")
    p.add_argument("-o", "--output", help="CSV file to write (default: standard output)")
    p.set_defaults(func=cmd_sample)

    p = commands.add_parser("learn", help="learn a network with a structure search")
    _add_data_options(p)
    _add_score_options(p)
    p.add_argument("--algorithm", default="hc", help="hc | tabu | rpdag | rpdag-tabu | exact | obs | asobs")
    p.add_argument("--max-indegree", type=int, help="most parents per node")
    p.add_argument("--restarts", type=int, help="random restarts (hc)")
    p.add_argument("--seed", type=int, help="random seed")
    p.add_argument("--parents", help="parent-set explorer for obs/asobs: independence | greedy | sequential")
    p.add_argument("--time-per-variable", type=float, help="seconds per variable for parent-set exploration")
    p.add_argument("--workers", type=int, help="Dask workers on this machine for parent-set exploration")
    p.add_argument("--scheduler", help="address of an existing Dask scheduler")
    _add_engine_option(p)
    _add_run_options(p)
    p.set_defaults(func=cmd_learn)

    p = commands.add_parser("enumerate", help="every network within a Bayes factor of the optimum (credible set)")
    _add_data_options(p)
    _add_score_options(p, default="bic")
    p.add_argument("--bf", type=float, default=20.0, help="Bayes factor (default 20): keep score >= OPT - log(BF)")
    p.add_argument("--max-indegree", type=int, help="most parents per node")
    p.add_argument("--limit", type=int, default=150000, help="most networks to collect (default 150,000)")
    _add_engine_option(p)
    _add_run_options(p)
    p.set_defaults(func=cmd_enumerate)

    p = commands.add_parser("bnkl", help="two-class network (BNKL): the DAG that best separates two classes")
    p.add_argument("data", help="CSV file with a class column")
    p.add_argument("--class-column", required=True, help="column holding the two class labels")
    p.add_argument("--class0", help="label of the reference class 0 (default: first in sorted order)")
    p.add_argument("--max-parents", type=int, default=2, help="most parents per node, M (default 2)")
    p.add_argument("--select", default="ratio", choices=["ratio", "bic", "aic"],
                   help="rule picking the network from the complexity path (default: R/df, the paper's)")
    p.add_argument("--discretize", help="discretization of numeric columns (default uniform3)")
    p.add_argument("--cv", type=int, help="also report k-fold cross-validated accuracy of the classifier")
    p.add_argument("--seed", type=int, help="seed of the cross-validation folds")
    p.add_argument("--no-header", action="store_true", help="the file has no header row")
    p.add_argument("--sep", default=",", help="column separator (default ,)")
    _add_run_options(p)
    p.set_defaults(func=cmd_bnkl)
    return parser


def main(argv=None):
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        args.func(args)
    except BNExploreError as err:
        message = str(err).replace("engine='ilp'", "--engine ilp").replace("engine='dp'", "--engine dp")
        print(f"error: {message}", file=sys.stderr)
        return 1
    except FileNotFoundError as err:
        print(f"error: no such file: {err.filename}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    return 0
