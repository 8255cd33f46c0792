"""The command line's doors to score caches: ``learn``/``enumerate --scores FILE.jkl`` and ``scores DATA --out``.

A ``.jkl`` score cache (GOBNILP's and BLIP's, :mod:`bnexplore.parents.jkl`;
or URLearning's ``.pss``, :mod:`bnexplore.parents.pss`, told by the ending)
holds every candidate parent set with its local score: the optimisers over
candidate sets (exact DP and ILP, OBS/ASOBS, the credible set) run on it as
given, scored by :class:`bnexplore.parents.cached.CacheScorer`, with no data
scored. Variables take the names of the file (GOBNILP's names form, pss),
else of DATA's columns when DATA is given with as many columns, else
``X0..Xn-1``. ``scores`` writes bnexplore's own cache of DATA for GOBNILP,
BLIP or URLearning.
"""

import json
import math
from pathlib import Path

from .errors import BNExploreError

CACHE_SEARCHES = ("exact", "asobs", "obs")
"""Searches of ``learn`` that run over candidate parent sets only, so on a score cache (hill climbing and the
other searches score families the cache may not hold)."""

CACHE_FLAGS = ("restarts", "seed", "engine")
"""Search flags that apply to a search on a cache (the explorer's budgets and workers have nothing to explore)."""


def add_scores_option(parser):
    """``--scores FILE.jkl`` on a command whose optimiser takes candidate parent sets."""
    parser.add_argument("--scores", metavar="FILE.jkl",
                        help="search a GOBNILP/BLIP score cache (.jkl; URLearning's .pss) instead of scoring DATA "
                             "(DATA, if given, names the variables); learn: --algorithm " + ", ".join(CACHE_SEARCHES))


def add_scores_command(commands, add_data_options, add_score_options, read_data, run):
    """The ``scores`` command (bnexplore's candidate parent sets of DATA written as ``.jkl``) in ``commands``,
    with the other commands' data and score flags (``add_data_options(parser)``, ...), reading DATA with
    ``read_data(args)`` and running with ``run(args, work)`` (progress bar and Ctrl-C)."""
    p = commands.add_parser("scores", help="write DATA's candidate parent sets and local scores as a GOBNILP/BLIP "
                                           ".jkl score cache (URLearning's .pss when FILE ends so)")
    add_data_options(p)
    add_score_options(p, default="bic")
    p.add_argument("--out", required=True, metavar="FILE.jkl", help="score cache to write (.jkl, or .pss)")
    p.add_argument("--max-indegree", type=int, help="most parents per node")
    p.add_argument("--bf", type=float, default=1.0, help="keep the sets a credible set of this Bayes factor needs "
                                                         "(default 1: those the optimum needs)")
    p.add_argument("--names", action="store_true", help="variables by name (GOBNILP only; default: by index, "
                                                        "which GOBNILP and BLIP both read)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=lambda args: write_scores(args, read_data(args), run))


def data_or_cache(args, read_data):
    """DATA read by ``read_data(args)``; None when it is left out, which only ``--scores`` allows."""
    if args.data is not None:
        return read_data(args)
    if not args.scores:
        raise BNExploreError("give DATA (a data file), or --scores FILE.jkl to search a score cache")
    return None


def write_scores(args, data, run):
    """``scores``: prune DATA's candidate parent sets for ``log(--bf)`` and write them to ``--out``."""
    from .parents import candidate_parent_sets, write_jkl, write_pss
    from .scores import Scorer

    if not (math.isfinite(args.bf) and args.bf >= 1):
        raise BNExploreError(f"--bf must be a number of at least 1, got {args.bf:g}")
    if args.names and is_pss(args.out):
        raise BNExploreError("--names applies to .jkl files only (a .pss file always names its variables)")
    scorer = Scorer(data, args.score, ess=args.ess)
    sets = run(args, lambda bar, stop: candidate_parent_sets(scorer, epsilon=math.log(args.bf),
                                                             max_indegree=args.max_indegree, progress=bar, stop=stop))
    if sets.stats.get("complete") is False:
        raise BNExploreError("stopped before every parent set was scored: nothing was written")
    if is_pss(args.out):
        write_pss(sets, args.out)
    else:
        write_jkl(sets, args.out, names=args.names)
    print(json.dumps({"variables": sets.n_vars, "parent_sets": len(sets), "score_name": sets.score_name,
                      "written": args.out}, indent=2))


def is_pss(path):
    """Whether ``path`` names a URLearning ``.pss`` file (or ``.pss.gz``): every other is read as ``.jkl``."""
    return str(path).lower().endswith((".pss", ".pss.gz"))


def cache(args, data):
    """The ``--scores`` file read as candidate parent sets, named by DATA's columns when they fit."""
    from .parents import read_jkl, read_pss

    read = read_pss if is_pss(args.scores) else read_jkl
    sets = read(args.scores)
    if data is None or list(data.names) == sets.names:
        return sets
    names = [str(v) for v in data.names]
    if sets.stats.get("form") == "index" and len(names) != sets.n_vars:
        raise BNExploreError(f"--scores {args.scores} holds {sets.n_vars} variables but DATA has {len(names)} "
                             "columns: give the data the cache was computed on, or leave DATA out")
    return read(args.scores, names=names, score_name=sets.score_name)  # a names form refuses other names


def refuse_with_cache(args, flags):
    """Refuse each flag of ``flags`` (``{dest: flag}``) given with ``--scores``."""
    for dest, flag in flags.items():
        if getattr(args, dest, None) not in (None, False):
            raise BNExploreError(f"{flag} does not apply with --scores (the cache is searched as given)")


def learn_on_cache(args, data, options, run):
    """``learn --scores``: the search of ``--algorithm`` over the cache, its summary printed (``--json``: in full).

    ``options`` are the search flags given (checked against the search), ``run(args, work)`` runs
    ``work(progress, stop)`` with the terminal's progress bar and Ctrl-C."""
    from .parents.cached import CacheScorer
    from .search.candidate_sets import prepare_parent_sets
    from .search.exact import exact_search
    from .search.ordering import ordering_search

    if args.algorithm not in CACHE_SEARCHES:
        raise BNExploreError(f"--scores applies to --algorithm {', '.join(CACHE_SEARCHES)}, not {args.algorithm} "
                             "(it scores families a cache may not hold)")
    refuse_with_cache(args, {"require": "--require", "forbid": "--forbid", "tiers": "--tiers",
                             "knowledge": "--knowledge", "bootstrap": "--bootstrap"})
    refuse_with_cache(args, {name: "--" + name.replace("_", "-") for name in options if name not in CACHE_FLAGS})
    if getattr(args, "missing", None) == "em":
        raise BNExploreError("--missing em does not apply with --scores (the cache is searched as given)")
    sets = cache(args, data)
    scorer = CacheScorer(sets)
    common = {"max_indegree": args.max_indegree, "time_limit": args.time_limit}
    if args.algorithm == "exact":
        engine = options.get("engine", "auto")
        result = run(args, lambda bar, stop: exact_search(scorer, parent_sets=sets, engine=engine, progress=bar,
                                                          stop=stop, **common))
    else:
        flags = {k: options[k] for k in ("restarts", "seed") if k in options}
        sets = prepare_parent_sets(scorer, sets, args.max_indegree, 0.0, None)  # given sets are searched as given
        result = run(args, lambda bar, stop: ordering_search(scorer, method=args.algorithm, parents=sets, start=None,
                                                             progress=bar, stop=stop, **flags, **common))
    payload = result.to_json()
    payload["scores_file"] = args.scores
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(payload, indent=2))
    print(json.dumps({"algorithm": result.algorithm, "score": result.score, "score_name": result.score_name,
                      "edges": result.graph.n_edges, "scores_file": args.scores, "stopped": result.stats.get("stopped"),
                      "exact": result.stats.get("exact"), "written": args.json_out}, indent=2))


def enumerate_on_cache(args, data, run):
    """``enumerate --scores``: the credible set over the cache; returns it."""
    from .parents.cached import CacheScorer
    from .search.credible import credible_set

    refuse_with_cache(args, {"require": "--require", "forbid": "--forbid", "tiers": "--tiers",
                             "knowledge": "--knowledge"})
    sets = cache(args, data)
    return run(args, lambda bar, stop: credible_set(
        CacheScorer(sets), parent_sets=sets, bf=args.bf, max_indegree=args.max_indegree, limit=args.limit,
        engine=args.engine or "auto", progress=bar, stop=stop, time_limit=args.time_limit))

