"""The command line's ``cv``: held-out log-likelihood of searches and given graphs by k-fold cross-validation.

``bnexplore cv DATA --algorithm hc --algorithm pc --graph truth.bif --folds 5 --seed 1``
runs :func:`bnexplore.heldout.cross_validate_networks` with one method per
``--algorithm`` (learned on every training set) and per ``--graph`` (taken as
given), and prints its summary, table and notes as JSON. The data, score and
run flags are the command line's own (:mod:`bnexplore.cli` adds them).
"""

from .cli_networks import graph_file
from .errors import BNExploreError
from .search.registry import SEARCHES


def add_cv(commands):
    """The ``cv`` command's parser in the command line's subparsers ``commands``, with its own flags; the
    caller adds the data, score and run flags and the function."""
    p = commands.add_parser("cv", help="held-out log-likelihood per row of searches and graphs (k-fold "
                                       "cross-validation, the same seeded folds for each)")
    p.add_argument("--algorithm", dest="algorithms", action="append", metavar="{" + ",".join(SEARCHES) + "}",
                   help="a search learned on every training set (repeatable)")
    p.add_argument("--graph", dest="graphs", action="append", metavar="FILE",
                   help="a graph taken as given, never relearned: graph JSON (a learn result, {nodes, arcs}) or a "
                        "network file over the data's variables (repeatable)")
    p.add_argument("--folds", type=int, default=5, help="number of folds, from 2 to the number of rows (default 5)")
    p.add_argument("--seed", type=int, help="seed of the folds and of the searches that take one")
    p.add_argument("--fit", default="bdeu", choices=["bdeu", "ml"],
                   help="tables fitted on each training set: BDeu posterior mean with --ess (default; a state never "
                        "seen in training keeps some mass), or maximum likelihood (such a state has probability 0: "
                        "the fold's log-likelihood is -inf)")
    p.add_argument("--max-indegree", type=int, help="most parents per node in the searches")
    return p


def cv_payload(args, data, progress, stop):
    """Run the cross-validation the flags ask for on ``data``; its JSON (summary, table, params, stats, notes)."""
    from .heldout import cross_validate_networks  # loads the searches' numba kernels: only when cv runs

    methods = {}
    for name in args.algorithms or ():
        methods[name if name not in methods else f"{name} ({len(methods) + 1})"] = name
    for path in args.graphs or ():
        methods[path if path not in methods else f"{path} ({len(methods) + 1})"] = graph_file(path, data.names)
    if not methods:
        raise BNExploreError("give at least one --algorithm or --graph to cross-validate")
    result = cross_validate_networks(data, methods, folds=args.folds, seed=args.seed, ess=args.ess,
                                     method=args.fit, score=args.score, max_indegree=args.max_indegree,
                                     progress=progress, stop=stop, time_limit=args.time_limit)
    return result.to_json()
