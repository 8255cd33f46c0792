"""The command line's ``effect-range``: what an intervention does across every credible network.

``bnexplore effect-range DATA --target dysp --do bronc=yes --bf 20`` finds the
credible set of DATA (every DAG within the Bayes factor of the optimum), fits
each DAG's tables to DATA, asks each ``P(target | evidence, do(...))`` and
prints the answer's minimum, Bayes-factor-weighted mean and maximum per state
(:func:`bnexplore.search.credible.effect_range`), with ``--class K`` over the
members of the K-th best equivalence class only. The data, score and run flags
are the command line's own (:mod:`bnexplore.cli` adds them).
"""

import math

from .cli_networks import split_assignments
from .errors import BNExploreError


def add_effect_range(commands):
    """The ``effect-range`` command's parser in the command line's subparsers ``commands``, with its own flags;
    the caller adds the data, score and run flags and the function."""
    p = commands.add_parser("effect-range", help="the answer of a do-query over every network of a credible set: "
                                                 "minimum, Bayes-factor-weighted mean and maximum per state")
    p.add_argument("--target", required=True, help="the variable whose distribution is asked")
    p.add_argument("--do", action="append", required=True,
                   help='interventions "A=yes,B=no": each set variable loses its parents and takes that state '
                        "(repeatable)")
    p.add_argument("--evidence", action="append", help='observations "C=no" in the same query (repeatable)')
    p.add_argument("--bf", type=float, default=20.0,
                   help="Bayes factor of the credible set: every DAG within it of the optimum (default 20)")
    p.add_argument("--class", dest="equivalence_class", type=int, metavar="K",
                   help="only the DAGs of the K-th best Markov equivalence class of the set (1: the best), where "
                        "setting a variable can differ while observing it cannot")
    p.add_argument("--max-indegree", type=int, help="most parents per node in the credible set")
    p.add_argument("--fit-ess", type=float, default=1.0,
                   help="equivalent sample size of each DAG's fitted tables (BDeu posterior mean; default 1)")
    return p


def assignments(texts, flag):
    """The ``{variable: state}`` of a repeatable ``VARIABLE=STATE,...`` flag (None when not given)."""
    out = {}
    for text in texts or ():
        out.update(split_assignments(text, flag))
    return out


def effect_payload(args, data, progress, stop):
    """Run the credible set and the do-query the flags ask for on ``data``; the answer's JSON with the set's
    size and Bayes factor."""
    from .search.credible import credible_set, effect_range  # the exact search's kernels: only when it runs

    if not (math.isfinite(args.bf) and args.bf >= 1):
        raise BNExploreError(f"--bf must be a number of at least 1, got {args.bf:g}")
    found = credible_set(data, score=args.score, bf=args.bf, ess=args.ess, max_indegree=args.max_indegree,
                         progress=progress, stop=stop, time_limit=args.time_limit)
    if found.stats.get("stopped"):
        raise BNExploreError(f"the credible set was not finished ({found.stats['stopped']}): no range is given for "
                             "a part of the set; raise --time-limit or lower --bf")
    answer = effect_range(found, args.target, assignments(args.do, "--do"), assignments(args.evidence, "--evidence"),
                          data=data, ess=args.fit_ess, equivalence_class=args.equivalence_class)
    return {**answer.to_json(), "credible_set": {"dags": len(found), "classes": len(found.classes), "bf": args.bf,
                                                 "score": args.score}}
