"""The command line: ``python -m bnexplore COMMAND ...`` (JSON out).

Every command reads its input with the same data options as the Python API,
prints JSON (or writes it with ``--json``), shows a terminal progress bar for
long work (Ctrl-C stops the search and keeps the best network so far), and on
bad input exits non-zero with a one-line message on stderr.

Every number a flag takes is checked before any file is read (:func:`checks`:
``--time-limit nan``, ``--seed -1``, ``--cv 0`` are refused naming the flag),
and so is every file the command will write (``--json``, ``-o``: a writable
file in an existing folder), so a run never ends in an error it could have
given at the start.

Each command imports the parts of the library it runs inside its own function
(data, scores, searches: numba, numpy and pandas load with them), so reading
the flags, ``--help`` and a refused flag load only the registries (fast start).
"""

import argparse
import importlib.util
import json
import os
import re
import signal
import sys
import threading
import tomllib
import warnings
from pathlib import Path

from . import __version__
from .cli_edit import add_edit_command
from .cli_effects import add_effect_range, effect_payload
from .cli_heldout import add_cv, cv_payload
from .cli_networks import (add_convert, graph_file, network_endings, network_formats, read_network_file,
                           split_assignments, truth_graph)
from .cli_progress import TerminalProgress
from .cli_scores import add_scores_command, add_scores_option, data_or_cache, enumerate_on_cache, learn_on_cache
from .errors import NO_VALUE, BNExploreError, OptionError, door
from .formats import format_for
from .options import positive_number, whole_number
from .scores.registry import ESS, SCORES, score_spec
from .search import registry as searches
from .search.registry import SEARCHES, search_spec

EM_OPTIONS = {option.name: option for option in searches.EM_OPTIONS}
"""Structural EM's options (``--em-iterations``, ``--completions``), by name."""


def _interrupt_sets(event):
    """First Ctrl-C sets ``event`` (the search stops and keeps its best
    graph); a second one aborts."""

    def handler(signum, frame):
        if event.is_set():
            raise KeyboardInterrupt
        event.set()

    signal.signal(signal.SIGINT, handler)


MISSING = ("state", "drop", "error", "em")
"""The ``--missing`` choices: :data:`bnexplore.data.MISSING_POLICIES` (a test checks them equal; the command
line reads its flags without loading the data package)."""

DATA_HELP = "data file: CSV (.csv, .csv.gz), Parquet (.parquet) or Feather (.feather, .arrow)"

# The library's options as this door's flags, for messages (see bnexplore.errors.option).
FLAGS = {"sep": "--sep", "encoding": "--encoding", "discretize": "--discretize", "missing": "--missing",
         "max_levels": "--max-levels", "leave_out": "--leave-out", "missing_values": "--missing-values",
         "header": "--no-header", "engine": "--engine",
         "time_limit": "--time-limit", "max_indegree": "--max-indegree", "R": "--bootstrap",
         "bootstrap_workers": "--bootstrap-workers", "n": "-n", "max_cells": "--max-cells", "cv": "--cv",
         "folds": "--folds", "max_parents": "--max-parents", "method": "--fit",  # fit_network's method: query's --fit
         "equivalence_class": "--class", "target": "--target", "do": "--do", "evidence": "--evidence", "bf": "--bf",
         "BNEXPLORE_MAX_EXPANDED_MB": "BNEXPLORE_MAX_EXPANDED_MB",  # limits.ENVIRONMENT, set outside the command
         **{h.name: "--" + h.name.replace("_", "-") for spec in SCORES.values() for h in spec.hyperparameters},
         **{name: option.flag for name, option in {**searches.options(), **EM_OPTIONS}.items()}}


def checks():
    """The check of each numeric flag, by its argparse ``dest`` (run before the command, when the flag is given)."""
    from .bootstrap import MAX_RESAMPLES

    return {
        **{name: option.check for name, option in {**searches.options(), **EM_OPTIONS}.items()
           if option.kind != "choice"},
        "time_limit": lambda v: positive_number(v, "time_limit", unit=" of seconds"),
        "ess": ESS.check,
        "max_indegree": lambda v: whole_number(v, "max_indegree", 0),
        "bootstrap": lambda v: whole_number(v, "R", 1, MAX_RESAMPLES),
        "bootstrap_workers": lambda v: whole_number(v, "bootstrap_workers", 1),
        "n": lambda v: whole_number(v, "n", 1),
        "max_cells": lambda v: positive_number(v, "max_cells", unit=" of cells"),
        "cv": lambda v: whole_number(v, "cv", 2),
        "folds": lambda v: whole_number(v, "folds", 2),  # and at most the rows, once the data is read
        "max_parents": lambda v: whole_number(v, "max_parents", 0),
    }


OUTPUTS = {"json_out": "--json", "output": "-o", "out": "--out", "convert_out": "OUT"}
"""Flags naming a file the command writes, checked before it runs."""

SAMPLE_BYTES_PER_CELL = 8
"""Memory ``sample`` needs per sampled cell: its codes, the table's categorical columns and the CSV
writer's buffers (4.3 bytes measured on asia, 10^6 rows), with headroom."""


def flag_option(name, value=NO_VALUE, key=None):
    """How the command line names a library option in messages: ``--max-levels 50``.

    Returns None for options it cannot set (per-column types, drop_constant,
    no level limit), so messages leave those suggestions out. ``types`` becomes
    ``--categorical`` when it would make columns categorical.
    """
    if name == "types":
        kinds = set(value.values()) if isinstance(value, dict) else {value}
        return "--categorical" if kinds <= {"categorical", NO_VALUE} else None
    flag = FLAGS.get(name)
    if flag is None or value is None:
        return None
    if value is NO_VALUE or isinstance(value, bool):  # a switch: --no-header is header=False
        return flag
    if value is Ellipsis:
        return f"{flag} {name.upper()}"
    text = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)  # --leave-out a,b
    return f"{flag} {text}" if re.fullmatch(r"[\w.:+,-]+", text) else f"{flag} {repr(text)}"


def writable(path, flag):
    """Refuse ``path`` unless a file can be written there: not a folder, in an existing folder, writable."""
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        raise OptionError(f"{flag} {path} is a folder: give a file name")
    if not folder.is_dir():
        raise OptionError(f"{flag} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise OptionError(f"{flag} {path}: no permission to write there; choose another file")


def check_args(args):
    """Check the score and algorithm names (the registries' messages), every numeric flag (:func:`checks`) and
    output file (:data:`OUTPUTS`) given, before any work."""
    if getattr(args, "score", None) is not None:
        score_spec(args.score)
    if getattr(args, "algorithm", None) is not None:
        search_spec(args.algorithm)
    for dest, check in checks().items():
        value = getattr(args, dest, None)
        if value is not None:
            check(value)
    for dest, flag in OUTPUTS.items():
        path = getattr(args, dest, None)
        if path:
            writable(path, flag)


def _add_data_options(parser, data_help=DATA_HELP, missing=MISSING, optional=False):
    parser.add_argument("data", nargs="?" if optional else None, help=data_help)
    parser.add_argument("--no-header", action="store_true", help="CSV: the file has no header row")
    parser.add_argument("--sep", default=None, help="CSV: column separator (default: sniffed from the first lines)")
    parser.add_argument("--encoding", help="CSV: text encoding (default UTF-8, falling back to latin-1)")
    parser.add_argument("--discretize", help="uniform3 | quantile:K | width:K | manual:c1,c2 for numeric columns")
    parser.add_argument("--categorical", action="store_true", help="treat every column as categorical")
    if missing == MISSING:
        parser.add_argument("--missing", default="state", choices=MISSING,
                            help="missing values: own state (default), drop rows, error, or em: keep blanks, learn "
                                 "from the rows you have (structural EM for learn)")
    elif missing:
        parser.add_argument("--missing", default=missing[0], choices=missing, help=f"missing values: {missing[0]} "
                                                                                    "(the only choice here)")
    _add_missing_values_option(parser)
    parser.add_argument("--max-levels", type=int, default=50, help="most states a text column may have")
    _add_leave_out_option(parser)


def _add_missing_values_option(parser):
    parser.add_argument("--missing-values", metavar="VALUES",
                        help="the table's own marks for 'no value', comma-separated (e.g. '?,unknown,-999'): such "
                             "cells are missing, besides blank cells and NA")


def _add_leave_out_option(parser):
    parser.add_argument("--leave-out", action="append", metavar="COLUMNS",
                        help="columns not to use (a row identifier, free text), comma-separated; the flag may be "
                             "repeated")


def _add_score_options(parser, default="bdeu"):
    """``--score`` (the names of :data:`bnexplore.scores.SCORES`) and a flag per hyperparameter (``--ess``)."""
    parser.add_argument("--score", default=default, metavar="{" + ",".join(SCORES) + "}", help="; ".join(f"{name}: {spec.label}, {spec.description}"
                                                        for name, spec in SCORES.items()) + f" (default {default})")
    hyperparameters = {h.name: h for spec in SCORES.values() for h in spec.hyperparameters}
    for h in hyperparameters.values():
        using = ", ".join(spec.label for spec in SCORES.values() if h in spec.hyperparameters)
        parser.add_argument("--" + h.name.replace("_", "-"), type=float, default=h.default,
                            help=f"{using} {h.label} (default {h.default:g})")


def _add_search_options(parser):
    """``--algorithm`` (the names of :data:`bnexplore.search.SEARCHES`) and a flag per search option (from the
    registry: ``--restarts``, ``--engine``, ...), whose help names the searches that take it."""
    parser.add_argument("--algorithm", default="hc", metavar="{" + ",".join(SEARCHES) + "}", help="; ".join(f"{name}: {spec.label}" for name, spec in SEARCHES.items())
                        + " (default hc)")
    types = {"int": int, "seed": int, "float": float, "choice": str, "text": str}
    for name, option in searches.options().items():
        helps = {}
        for spec in SEARCHES.values():
            own = spec.option(name)
            if own is not None:
                helps.setdefault(own.help, []).append(spec.name)
        text = "; ".join(f"{words} ({', '.join(users)})" for words, users in helps.items())
        if name == "seed":
            text += "; also seeds the --bootstrap resamples"
        parser.add_argument(option.flag, type=types[option.kind], choices=option.choices or None, help=text)


def _add_run_options(parser):
    parser.add_argument("--time-limit", type=float, help="stop after this many seconds, keeping the best so far")
    parser.add_argument("--json", dest="json_out", help="write the full result as JSON to this file")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _add_engine_option(parser):
    engine = SEARCHES["exact"].option("engine")
    parser.add_argument(engine.flag, choices=engine.choices, help=f"{engine.help} (default {engine.default})")


def _read_data(args):
    from .data import read_table

    return read_table(args.data, header=not args.no_header, sep=args.sep, encoding=args.encoding,
                      discretize=args.discretize, types="categorical" if args.categorical else None,
                      missing=getattr(args, "missing", "em"), max_levels=args.max_levels,
                      leave_out=_names(args.leave_out),
                      missing_values=_marks(args.missing_values))


def _marks(value):
    """The ``--missing-values`` marks, comma-separated (None when not given)."""
    return None if value is None else value.split(",")


def _names(values):
    """The column names of the repeated, comma-separated ``--leave-out`` values (None when not given)."""
    if not values:
        return None
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


def _parse_arcs(text):
    """``"A->B, B->C"`` as a list of (parent, child) name pairs."""
    arcs = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        if "->" not in part:
            raise BNExploreError(f"cannot read arc {part!r}: write arcs as PARENT->CHILD, separated by commas")
        u, v = (x.strip() for x in part.split("->", 1))
        arcs.append((u, v))
    return arcs


def _write(path, text, flag="--json"):
    try:
        Path(path).write_text(text)
    except OSError as err:
        raise BNExploreError(f"cannot write {flag} {path}: {err.strerror}") from None


def _emit(payload, out_path, summary=None):
    text = json.dumps(payload, indent=2)
    if out_path:
        _write(out_path, text)
        print(json.dumps(summary if summary is not None else {"written": out_path}, indent=2))
    else:
        print(text)


def cmd_score(args):
    from .graphs import DAG
    from .scores import Scorer

    data = _read_data(args)
    scorer = Scorer(data, score=args.score, ess=args.ess)
    if args.graph:
        graph = graph_file(args.graph, data.names)
        parents = {v: [graph.names[p] for p in graph.parents(i)] for i, v in enumerate(graph.names)}
    else:
        graph = DAG.from_arcs(_parse_arcs(args.arcs or ""), data.names)
        parents = {v: [data.names[p] for p in graph.parents(i)] for i, v in enumerate(data.names)}
    local = scorer.local_scores(parents)
    _emit({"score": float(local.sum()), "score_name": scorer.score_name, "params": scorer.params,
           "local": {name: float(s) for name, s in zip(data.names, local)},
           "parents": {v: parents.get(v, []) for v in data.names}}, None)


def cmd_sample(args):
    from .bif import sample
    from .search.exact import check_memory

    network = read_network_file(args.network, "sampling")
    check_memory(args.n * network.n_vars * SAMPLE_BYTES_PER_CELL, f"sampling {args.n:,} rows of "
                 f"{network.n_vars} variables", "ask for fewer rows with -n")
    frame = sample(network, args.n, seed=args.seed)
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
    from .compiling import watching  # numba's event API: numba loads with the command's work, not its flags

    try:
        with watching(bar.compiling):
            return run(bar, stop)
    finally:
        bar.close()


def _add_knowledge_options(parser):
    parser.add_argument("--require", help='arcs every network must have: "A->B,C->D"')
    parser.add_argument("--forbid", help='arcs no network may have: "E->F"')
    parser.add_argument("--tiers", help='ordered tiers, no arc into an earlier tier: "A,B;C,D;E"')
    parser.add_argument("--knowledge", help="JSON file with require, forbid, forbid_edges, tiers")


def _knowledge(args):
    """The knowledge of --require, --forbid, --tiers and --knowledge, or None."""
    from .knowledge import Knowledge, parse_arcs, parse_tiers

    knowledge = Knowledge(parse_arcs(args.require, "--require"), parse_arcs(args.forbid, "--forbid"),
                          tiers=parse_tiers(args.tiers) if args.tiers else ())
    if args.knowledge:
        try:
            text = Path(args.knowledge).read_text()
        except OSError as err:
            raise BNExploreError(f"cannot read --knowledge file {args.knowledge}: {err.strerror}") from None
        try:
            knowledge = knowledge.union(Knowledge.from_json(text))
        except TypeError as err:  # a field of the wrong shape ({"tiers": 5})
            raise BNExploreError(f"--knowledge file {args.knowledge} cannot be read: {err}; write require, forbid "
                                 'and forbid_edges as lists of ["A", "B"] pairs, tiers as lists of names') from None
    return knowledge or None


def search_flags(args):
    """The search options given as flags, checked against the search's registry entry.

    Raises
    ------
    BNExploreError
        For a flag of an option the search does not take ("--engine applies to
        --algorithm exact only, not hc"); ``--seed`` with ``--bootstrap`` seeds
        the resamples, so it is dropped, not refused, for a search without one.
    """
    spec = search_spec(args.algorithm)
    options = {}
    for name, option in searches.options().items():
        value = getattr(args, name)
        if value is None:
            continue
        if spec.option(name) is not None:
            options[name] = value
        elif not (name == "seed" and args.bootstrap is not None):  # --seed then seeds the resamples only
            raise BNExploreError(f"{option.flag} applies to --algorithm {', '.join(searches.taking(name))} only, "
                                 f"not {args.algorithm}")
    return options


def em_flags(args):
    """``learn``'s keywords for data with blank cells: ``missing="em"`` and the structural EM flags given
    (``--em-iterations``, ``--completions``), which apply to ``--missing em`` only."""
    given = {name: getattr(args, name) for name in EM_OPTIONS if getattr(args, name) is not None}
    if args.missing != "em":
        if given:
            raise BNExploreError(f"{EM_OPTIONS[next(iter(given))].flag} applies to --missing em only (structural "
                                 "EM learns from data with blank cells)")
        return {}
    return {"missing": "em", **given}


def cmd_learn(args):
    from .search import learn, search_options

    em = em_flags(args)
    data = data_or_cache(args, _read_data)
    if args.scores:
        return learn_on_cache(args, data, search_flags(args), _run_with_progress)
    knowledge = _knowledge(args)
    options = {"max_indegree": args.max_indegree, "time_limit": args.time_limit, **search_flags(args), **em}
    # the resamples run in parallel themselves: no Dask cluster per resample, no time limit each
    resample_options = {k: v for k, v in options.items()
                        if k not in ("time_limit", "seed", "workers", "scheduler", *em)}
    options.update(search_options(knowledge, args.algorithm, data, args.max_indegree))
    from .compiling import compile_seconds, search_clock  # (numba's event API loads with the command, not its flags)

    started, compiled = search_clock(), compile_seconds()
    result = _run_with_progress(args, lambda bar, stop: learn(
        data, algorithm=args.algorithm, score=args.score, ess=args.ess, progress=bar, stop=stop, **options))
    payload = result.to_json()
    if knowledge:
        payload["knowledge"] = knowledge.to_json()
    summary = {"algorithm": result.algorithm, "score": result.score, "score_name": result.score_name,
               "edges": result.graph.n_edges, "seconds": round(search_clock() - started, 3),
               "stopped": result.stats.get("stopped"), "written": args.json_out}
    if args.bootstrap is not None:
        boot = _bootstrap(args, data, knowledge, resample_options)
        payload.update(boot)
        summary.update(resamples=boot["bootstrap"]["resamples"], threshold=boot["averaged"]["threshold"],
                       averaged_arcs=len(boot["averaged"]["graph"]["arcs"]),
                       averaged_links=len(boot["averaged"]["graph"]["links"]),
                       seconds=round(search_clock() - started, 3))
    if compile_seconds() > compiled:  # a first run after install: say where the rest of the wait went
        summary["seconds_compiling"] = round(compile_seconds() - compiled, 3)
    if "em" in result.extra:
        em = result.extra["em"]  # iteration 0 is the start
        summary.update(em_iterations=em["iterations"][-1]["iteration"], em_returned=em["returned"], em_note=em["note"])
    if "engine" in result.stats:
        summary.update(engine=result.stats["engine"], bound=result.stats.get("bound"), gap=result.stats.get("gap"),
                       exact=result.stats.get("exact"))
    _emit(payload, args.json_out, summary)


def _bootstrap(args, data, knowledge, options):
    """``{"strength", "averaged", "bootstrap"}`` for ``learn --bootstrap R``."""
    from .bootstrap import bootstrap

    if args.threshold is not None and not 0 <= args.threshold <= 1:
        raise BNExploreError(f"--threshold must lie in [0, 1], got {args.threshold}")
    result = _run_with_progress(args, lambda bar, stop: bootstrap(
        data, args.algorithm, R=args.bootstrap, seed=args.seed, score=args.score, ess=args.ess, knowledge=knowledge,
        workers=args.bootstrap_workers, scheduler=args.bootstrap_scheduler, progress=bar, stop=stop,
        time_limit=args.time_limit, **options))
    payload = result.to_json(args.threshold)
    return {"strength": payload["strength"], "averaged": payload["averaged"],
            "bootstrap": {k: payload[k] for k in ("resamples", "params", "stats")}}


def cmd_query(args):
    from .bif import fit_network
    from .em import em_fit
    from .inference import query

    evidence = {}
    for text in args.evidence or ():
        evidence.update(split_assignments(text, "--evidence"))
    do = {}
    for text in args.do or ():
        do.update(split_assignments(text, "--do"))
    likelihood = {}
    for text in args.likelihood or ():
        for name, values in split_assignments(text, "--likelihood"):
            try:
                likelihood[name] = [float(x) for x in re.split(r"[\s,;:]+", values) if x]
            except ValueError:
                raise BNExploreError(f"--likelihood {name}={values}: give one number per state, e.g. "
                                     f"{name}=0.9,0.1") from None
    fit = None
    if args.graph is None:
        if format_for(args.data) is None:
            raise BNExploreError(f"{args.data} is not a BIF network nor one of another format (endings "
                                 f"{network_endings()}, each also .gz); to query data, give the learned graph with "
                                 "--graph RESULT.json")
        network = read_network_file(args.data, "a query")
    else:
        data = _read_data(args)
        graph = graph_file(args.graph, data.names)
        network = em_fit(graph, data, ess=args.ess) if args.fit == "em" else fit_network(graph, data, ess=args.ess,
                                                                                           method=args.fit)
        fit = {k: network.fit[k] for k in ("method", "ess", "rows", "empty_configurations")}
    if args.evidence_file is not None:
        from .formats.uai import read_uai_evidence

        evidence.update(read_uai_evidence(args.evidence_file, network))
    answer = query(network, targets=args.target, evidence=evidence, likelihood=likelihood or None, do=do or None,
                   max_cells=args.max_cells)
    payload = answer.to_json()
    if fit is not None:
        payload["fit"] = fit
    _emit(payload, args.json_out)


def _network_to_impute(args, data):
    """The network ``impute`` completes the rows with: the graph of a result or graph file (``{nodes, arcs}``)
    with tables fitted to the data by EM."""
    from .em import em_fit

    graph = graph_file(args.network, data.names)
    if graph.n != data.n_vars:
        raise BNExploreError(f"{args.network}: the graph has {graph.n} of the data's {data.n_vars} variables; "
                             "give a graph of every column")
    return _run_with_progress(args, lambda bar, stop: em_fit(graph, data, ess=args.ess, progress=bar, stop=stop))


def cmd_impute(args):
    from .em import impute

    data = _read_data(args)
    network = _network_to_impute(args, data)
    completed = impute(network, data, method=args.method, seed=args.seed or 0)
    completed.to_frame().to_csv(args.out, index=False)
    print(json.dumps({"rows": data.n_rows, "blank_cells": data.n_blank, "method": args.method,
                      "warnings": completed.warnings[len(data.warnings):], "written": args.out}, indent=2))


def cmd_enumerate(args):
    from .search.credible import credible_set

    data = data_or_cache(args, _read_data)
    if args.scores:
        found = enumerate_on_cache(args, data, _run_with_progress)
    else:
        knowledge = _knowledge(args)
        extra = {}
        if knowledge:
            knowledge.bind(data, args.max_indegree)  # a contradiction is refused before the data is scored
            extra["knowledge"] = knowledge
        found = _run_with_progress(args, lambda bar, stop: credible_set(
            data, score=args.score, bf=args.bf, ess=args.ess, max_indegree=args.max_indegree, limit=args.limit,
            engine=args.engine or "auto", progress=bar, stop=stop, time_limit=args.time_limit, **extra))
    summary = {"engine": found.stats.get("engine"), "engine_reason": found.stats.get("engine_reason"),
               "opt": found.opt, "epsilon": found.epsilon,
               "bayes_factor": found.bayes_factor,
               "networks": len(found.scores), "classes": len(found.classes),
               "rpdag_classes": len(found.rpdag_classes), "truncated": found.truncated,
               "truncated_reason": found.truncated_reason, "complete_epsilon": found.complete_epsilon,
               "written": args.json_out}
    if args.json_out:
        _write(args.json_out, found.dumps())
    print(json.dumps(summary, indent=2))


def _graph_nodes(data):
    """The "nodes" lists of a result file's graphs: its ``graph`` and every graph in ``extra``."""
    if isinstance(data.get("graph"), dict):
        yield data["graph"].get("nodes")
    stack = [data.get("extra")]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if "__graph__" in value:
                yield value.get("nodes")
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def _compared_result(path, scorer):
    """The result in file ``path`` (or a graph: a file ``{nodes, arcs}`` or a network file of any format, algorithm
    "graph"), rescored on the
    data with ``--score`` (so every row is on one scale),
    and whether it is a proven optimum of that score: an exact search or credible set that was not
    stopped, run with the same score settings, whose recorded score is the one the data give."""
    from .numerics import tie_tolerance
    from .result import Result, parse_json
    from .search.scoreboard import EXACT_ALGORITHMS

    network = format_for(path) is not None  # a network file: compared by its graph
    try:
        text = b"" if network else Path(path).read_bytes()
    except OSError as err:
        raise BNExploreError(f"cannot read result file {path}: {err.strerror}") from None
    try:
        data = {} if network else parse_json(text, "result")
        if network or ("algorithm" not in data and ("nodes" in data or "graph" in data)):  # a graph file
            graph = graph_file(path, scorer.names)
            data = {"graph": graph.to_json(), "algorithm": "graph", "score": 0.0, "score_name": scorer.score_name}
        # every graph's nodes checked against the data before any graph is built (a matrix per graph)
        for nodes in _graph_nodes(data):
            if not isinstance(nodes, list) or len(nodes) > len(scorer.names) or not set(nodes) <= set(scorer.names):
                raise BNExploreError("its network's variables differ from the data's; compare networks of these data")
        result = Result.from_json(data)
    except BNExploreError as err:
        raise BNExploreError(f"{path}: {err}") from None
    except (RecursionError, TypeError):  # nested too deep; a node name that is not text
        raise BNExploreError(f"{path}: not a bnexplore result file") from None
    if sorted(result.names) != sorted(scorer.names):
        raise BNExploreError(f"{path}: its network's variables differ from the data's (only in the data: "
                             f"{sorted(set(scorer.names) - set(result.names))[:5]}); compare networks of these data")
    score = scorer.total(result.graph)
    optimal = (result.algorithm in EXACT_ALGORITHMS and not result.stats.get("stopped")
               and {**result.params, "score": result.score_name}.items() >= scorer.params.items()
               and abs(result.score - score) <= tie_tolerance(score))
    result.score, result.score_name = score, scorer.score_name
    result.params = {**result.params, **scorer.params}
    return result, optimal


def cmd_compare(args):
    from .scores import Scorer
    from .search.exact import exact_search
    from .search.scoreboard import scoreboard, scoreboard_text

    if not (args.bf > 1 and args.bf != float("inf")):
        raise OptionError(f"--bf {args.bf:g}: a Bayes factor is a number above 1 (20 keeps networks within ln 20 "
                          "of the optimum)")
    data = _read_data(args)
    scorer = Scorer(data, score=args.score, ess=args.ess)
    truth = truth_graph(args.truth, data.names) if args.truth else None
    results, optima = {}, []
    for path in args.results:
        result, optimal = _compared_result(path, scorer)
        results[path if path not in results else f"{path} ({len(results) + 1})"] = result
        if optimal:
            optima.append(result)
    if args.optimum:
        found = _run_with_progress(args, lambda bar, stop: exact_search(
            scorer, max_indegree=args.max_indegree, engine=args.engine or "auto", progress=bar, stop=stop,
            time_limit=args.time_limit))
        results["optimum (exact search)"] = found
        optima.insert(0, found)
    rows = scoreboard(results, truth, bf=args.bf, optima=optima)
    best = next((r for r in optima if not r.stats.get("stopped")), None)
    source = next((name for name, r in results.items() if r is best), None)
    payload = {"score_name": scorer.score_name, "params": scorer.params, "bf": args.bf, "truth": args.truth,
               "optimum": None if best is None else {"score": best.score, "from": source},
               "columns": {"gap": "optimum minus score (None: no finished exact search covering the network)",
                           "in_credible_set": "score >= optimum - ln(bf): its class is in the credible set",
                           "shd_truth": "SHD between the CPDAGs of the network and the truth",
                           "shd_optimum": "SHD between the CPDAGs of the network and the optimum",
                           "precision_recall": "against the true CPDAG; None where 0/0"},
               "rows": rows}
    if args.text:
        print(scoreboard_text(payload))
        if args.json_out:
            _write(args.json_out, json.dumps(payload, indent=2))
    else:
        _emit(payload, args.json_out)


def cmd_cv(args):
    data = _read_data(args)
    payload = _run_with_progress(args, lambda bar, stop: cv_payload(args, data, bar, stop))
    _emit(payload, args.json_out, {"summary": payload["summary"], "notes": payload["notes"], "written": args.json_out})


def cmd_effect_range(args):
    data = _read_data(args)
    _emit(_run_with_progress(args, lambda bar, stop: effect_payload(args, data, bar, stop)), args.json_out)


def cmd_bnkl(args):
    from .classifier import cross_validate
    from .data import kept_columns, read_frame
    from .bnkl import bnkl

    frame, _ = read_frame(args.data, header=not args.no_header, sep=args.sep, encoding=args.encoding)
    if args.leave_out:
        kept = set(kept_columns([str(c) for c in frame.columns], _names(args.leave_out)))
        frame = frame.loc[:, [str(c) in kept for c in frame.columns]]
    options = {"class0": args.class0, "max_parents": args.max_parents, "select": args.select,
               "discretize": args.discretize or "uniform3", "missing_values": _marks(args.missing_values)}
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


def app_files():
    """The app's Streamlit script and settings: ``(main.py, config.toml)`` of the installed package, or of
    the clone (whose settings are in ``.streamlit/``)."""
    spec = importlib.util.find_spec("bnexplore_app")  # found, not imported: the library loads no app code
    if spec is None or spec.origin is None:
        raise BNExploreError("the app is not installed (no package bnexplore_app); pip install bnexplore")
    here = Path(spec.origin).resolve().parent
    config = here / "streamlit" / "config.toml"
    return here / "main.py", config if config.is_file() else here.parent / ".streamlit" / "config.toml"


def app_command(extra, python=sys.executable):
    """The ``streamlit run`` command line of the app: its settings as flags, then ``extra`` flags.

    ``server.headless`` is left out, so Streamlit opens a browser (pass
    ``--server.headless true`` to stop it).
    """
    script, config = app_files()
    with open(config, "rb") as f:
        settings = tomllib.load(f)
    flags = [f"--{section}.{name}={str(value).lower() if isinstance(value, bool) else value}"
             for section, options in settings.items() for name, value in options.items()
             if (section, name) != ("server", "headless")]
    return [python, "-m", "streamlit", "run", str(script), *flags, *extra]


def cmd_app(args):
    """Start the app (``streamlit run`` on the packaged app, with its settings).

    Streamlit replaces this process (``os.execv``), so stopping the command
    stops the server: a child process would outlive a terminated parent.
    """
    command = app_command(args.streamlit_args)
    sys.stdout.flush()
    os.execv(command[0], command)


class Parser(argparse.ArgumentParser):
    """argparse with this door's contract: a usage error is one line on stderr (exit 2), pointing to --help."""

    def error(self, message):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def build_parser():
    """The argparse parser of every command."""
    prog = "python -m bnexplore" if Path(sys.argv[0]).name == "__main__.py" else "bnexplore"
    parser = Parser(prog=prog, description="Learn and explore Bayesian network structure from discrete data.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    p = commands.add_parser("score", help="score a graph on data: total and per-node local scores (JSON)")
    _add_data_options(p)
    _add_score_options(p)
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--arcs", help='arcs as "A->B,B->C"')
    group.add_argument("--graph", help="graph JSON file (a result file or {nodes, arcs}) or a network file (its graph)")
    p.set_defaults(func=cmd_score)

    p = commands.add_parser("sample", help="sample rows from a network (BIF or another format with tables)")
    p.add_argument("network", help=f"network file: {network_formats(tables=True)}")
    p.add_argument("-n", type=int, required=True, help="number of rows")
    p.add_argument("--seed", type=int, help="random seed")
    p.add_argument("-o", "--output", help="CSV file to write (default: standard output)")
    p.set_defaults(func=cmd_sample)

    p = commands.add_parser("learn", help="learn a network with a structure search")
    _add_data_options(p, optional=True)
    add_scores_option(p)
    _add_score_options(p)
    p.add_argument("--max-indegree", type=int, help="most parents per node")
    _add_search_options(p)
    _add_knowledge_options(p)
    p.add_argument("--bootstrap", type=int, metavar="R",
                   help="also learn on R bootstrap resamples: arc strengths and the averaged network")
    p.add_argument("--threshold", type=float, help="strength threshold of the averaged network (default: estimated)")
    p.add_argument("--bootstrap-workers", type=int, help="processes for the resamples (default: every core)")
    p.add_argument("--bootstrap-scheduler", help="address of a Dask scheduler to run the resamples on")
    for option in EM_OPTIONS.values():
        p.add_argument(option.flag, type=int, help=f"{option.help} (--missing em; default {option.default})")
    _add_run_options(p)
    p.set_defaults(func=cmd_learn)

    p = commands.add_parser("enumerate", help="every network within a Bayes factor of the optimum (credible set)")
    _add_data_options(p, optional=True)
    add_scores_option(p)
    _add_score_options(p, default="bic")
    p.add_argument("--bf", type=float, default=20.0, help="Bayes factor (default 20): keep score >= OPT - log(BF)")
    p.add_argument("--max-indegree", type=int, help="most parents per node")
    p.add_argument("--limit", type=int, default=150000, help="most networks to collect (default 150,000)")
    _add_knowledge_options(p)
    _add_engine_option(p)
    _add_run_options(p)
    p.set_defaults(func=cmd_enumerate)

    p = commands.add_parser("compare", help="learned networks side by side: score, gap to the optimum, credible "
                                            "set, SHD and precision/recall against the truth (JSON or --text)")
    _add_data_options(p)
    p.add_argument("results", nargs="+", metavar="RESULT",
                   help="result JSON files (learn --json), graph files ({nodes, arcs}) or network files (their "
                        "graphs) to compare")
    _add_score_options(p)
    p.add_argument("--truth", help=f"the true network: a network file ({network_formats()}) or graph JSON")
    p.add_argument("--optimum", action="store_true", help="also run the exact search for the optimum (gap, "
                                                          "credible set, SHD to the optimum)")
    p.add_argument("--max-indegree", type=int, help="--optimum: most parents per node")
    _add_engine_option(p)
    p.add_argument("--bf", type=float, default=20.0, help="Bayes factor of the credible set (default 20)")
    p.add_argument("--text", action="store_true", help="print a plain table instead of JSON")
    _add_run_options(p)
    p.set_defaults(func=cmd_compare)

    p = commands.add_parser("query", help="posterior marginals and P(evidence): a network, or data + a learned graph")
    _add_data_options(p, f"network file ({network_formats(tables=True)}), or a data file (CSV, Parquet, Feather) "
                         "with --graph")
    p.add_argument("--graph", help="graph JSON (e.g. a learn result) or a network file (its graph, e.g. a "
                                   ".modelstring): fit its tables on the data, then query")
    p.add_argument("--evidence", action="append", help='hard evidence "A=yes,B=no" (repeatable)')
    p.add_argument("--do", action="append",
                   help='interventions "A=yes,B=no": each set variable loses its parents and takes that state '
                        '(graph surgery; repeatable; beside --evidence in one query)')
    p.add_argument("--evidence-file", metavar="FILE.evid",
                   help="hard evidence from a UAI evidence file (variables and states numbered in the network's "
                        "order, as the .uai file beside it); joins --evidence")
    p.add_argument("--likelihood", action="append",
                   help='likelihood evidence "A=0.9,0.1": one weight per state, in state order (repeatable)')
    p.add_argument("--target", action="append", help="variable to report (repeatable; default: every variable)")
    p.add_argument("--fit", default="bdeu", choices=["bdeu", "ml", "em"],
                   help="tables fitted with --graph: BDeu posterior mean with --ess (default), maximum likelihood, "
                        "or em: BDeu's on the expected counts, for data with blank cells (--missing em)")
    p.add_argument("--ess", type=float, default=1.0, help="equivalent sample size of the fitted tables (default 1)")
    p.add_argument("--max-cells", type=float, default=2e8, help="refuse junction trees larger than this (cells)")
    p.add_argument("--json", dest="json_out", help="write the answer as JSON to this file")
    p.set_defaults(func=cmd_query)

    p = commands.add_parser("impute", help="fill the blank cells of a table by a network (CSV out: each column's "
                                           "states, numeric columns as their intervals)")
    _add_data_options(p, DATA_HELP + ", blank cells kept as blanks (--missing em)", missing=("em",))
    p.add_argument("network", metavar="RESULT", help="result or graph JSON file (learn --json, {nodes, arcs}) or a "
                                                     "network file: its graph's tables are fitted to the data by EM")
    p.add_argument("--out", required=True, help="CSV file to write the completed table to")
    p.add_argument("--method", default="mode", choices=["mode", "sample"],
                   help="mode: each row's most probable completion (default); sample: one draw from its posterior")
    p.add_argument("--seed", type=int, help="seed of --method sample")
    p.add_argument("--ess", type=float, default=1.0, help="equivalent sample size of the EM tables (default 1)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_impute)

    add_convert(commands)
    add_scores_command(commands, _add_data_options, _add_score_options, _read_data, _run_with_progress)
    add_edit_command(commands, _add_data_options, _add_score_options, _read_data)

    p = add_cv(commands)
    _add_data_options(p)
    _add_score_options(p)
    _add_run_options(p)
    p.set_defaults(func=cmd_cv)

    p = add_effect_range(commands)
    _add_data_options(p)
    _add_score_options(p, default="bic")
    _add_run_options(p)
    p.set_defaults(func=cmd_effect_range)

    p = commands.add_parser("bnkl", help="two-class network (BNKL): the DAG that best separates two classes")
    p.add_argument("data", help=DATA_HELP + ", with a class column")
    p.add_argument("--class-column", required=True, help="column holding the two class labels")
    p.add_argument("--class0", help="label of the reference class 0 (default: first in sorted order)")
    p.add_argument("--max-parents", type=int, default=2, help="most parents per node, M (default 2)")
    p.add_argument("--select", default="ratio", choices=["ratio", "bic", "aic"],
                   help="rule picking the network from the complexity path (default: R/df, the paper's)")
    p.add_argument("--discretize", help="discretization of numeric columns (default uniform3)")
    p.add_argument("--cv", type=int, help="also report k-fold cross-validated accuracy of the classifier")
    p.add_argument("--seed", type=int, help="seed of the cross-validation folds")
    p.add_argument("--no-header", action="store_true", help="CSV: the file has no header row")
    p.add_argument("--sep", default=None, help="CSV: column separator (default: sniffed from the first lines)")
    p.add_argument("--encoding", help="CSV: text encoding (default UTF-8, falling back to latin-1)")
    _add_missing_values_option(p)
    _add_leave_out_option(p)
    _add_run_options(p)
    p.set_defaults(func=cmd_bnkl)

    p = commands.add_parser("app", help="start the app in your browser (Streamlit)",
                            description="Start the bnexplore app: Streamlit serves it on http://localhost:8501 and "
                                        "opens a browser. Anything after the command goes to Streamlit, e.g. "
                                        "bnexplore app --server.port 8600 --server.headless true")
    p.set_defaults(func=cmd_app)
    return parser


def _print_warning(message, category, filename, lineno, file=None, line=None):
    """A warning as the command line shows it: ``warning: <message>`` on stderr (no file, line or class)."""
    print(f"warning: {message}", file=sys.stderr if file is None else file)


def main(argv=None):
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if args.command == "app":
        args.streamlit_args = unknown  # everything else is Streamlit's
    elif unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        with door(flag_option), warnings.catch_warnings():
            warnings.showwarning = _print_warning
            check_args(args)
            args.func(args)
    except BNExploreError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except FileNotFoundError as err:
        print(f"error: no such file: {err.filename}", file=sys.stderr)
        return 1
    except OSError as err:
        print(f"error: {err.strerror or err}: {err.filename or ''}".rstrip(": "), file=sys.stderr)
        return 1
    except MemoryError:
        print("error: out of memory: ask for less (fewer rows, variables or parents), or use a machine with more",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    return 0
