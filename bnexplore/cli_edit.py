"""The command line's ``edit``: hand edits of a network, each with its score change node by node.

``bnexplore edit DATA --graph NETWORK --edit add smoke dysp --edit reverse tub either -o edited.bif``
applies the edits in order with a :class:`bnexplore.workbench.Workbench` on
DATA's local scores (``--score``, ``--ess``) and prints, per edit, a table of
the changed nodes' local scores before and after, the total change (ln Bayes
factor against the network before under BDeu and K2), the ln Bayes factor
against the start, and the class change (same class or not, arcs now
compelled, edges now reversible). ``-o`` writes the edited network: graph
JSON (``.json``, which ``--graph`` reads back), a graph-only format, or a
format with tables fitted to DATA (BDeu posterior mean with ``--ess``);
``--json`` writes every figure at full precision.

An edit that would close a directed cycle is refused: the edits before it are
printed, then one line names the cycle on stderr, nothing is written and the
exit status is 1, as for any other error the data reveal (an unknown node, an
arc that is not there). An ``--edit`` whose KIND is not one of
:data:`bnexplore.workbench.EDIT_KINDS` is a usage error (exit status 2), told
before DATA is read.
"""

import argparse
import json

from .cli_networks import graph_file, network_endings
from .errors import BNExploreError, OptionError
from .formats import format_for
from .workbench import EDIT_KINDS, Edit, Workbench


class EditAction(argparse.Action):
    """``--edit KIND TAIL HEAD`` (repeatable): the KIND checked at parsing, the edits kept in order."""

    def __call__(self, parser, namespace, values, option_string=None):
        kind = values[0]
        if kind not in EDIT_KINDS:
            parser.error(f"argument --edit: KIND {kind!r} is not one of {', '.join(EDIT_KINDS)} "
                         f"(--edit {' '.join(values)})")
        getattr(namespace, self.dest).append(tuple(values))


def add_edit_command(commands, add_data_options, add_score_options, read_data):
    """The ``edit`` command in the command line's subparsers ``commands``, with the other commands' data and
    score flags (``add_data_options(parser)``, ``add_score_options(parser)``), reading DATA with
    ``read_data(args)``."""
    p = commands.add_parser("edit", help="edit a network by hand (add, delete, reverse arcs): each edit's score "
                                         "change node by node, ln Bayes factor, class change")
    add_data_options(p)
    add_score_options(p)
    p.add_argument("--graph", required=True, metavar="NETWORK",
                   help="the network to edit: graph JSON (a learn result, {nodes, arcs}) or a network file of any "
                        "format, over the data's variables")
    p.add_argument("--edit", dest="edits", action=EditAction, nargs=3, default=[], metavar=("KIND", "TAIL", "HEAD"),
                   help="one edit, applied in order (repeatable): add TAIL -> HEAD, delete it, or reverse it into "
                        "HEAD -> TAIL; KIND one of " + ", ".join(EDIT_KINDS))
    p.add_argument("-o", "--output", metavar="OUT",
                   help="write the edited network: graph JSON (.json), or a network file told by its ending ("
                        f"{network_endings()}, each also .gz; tables fitted to DATA with --ess)")
    p.add_argument("--json", dest="json_out", help="write every edit's figures as JSON to this file")
    p.set_defaults(func=lambda args: cmd_edit(args, read_data(args)))


def cmd_edit(args, data):
    """Apply ``args.edits`` to the network of ``--graph`` scored on ``data``; print each; write ``-o``, ``--json``."""
    from .scores import Scorer  # numba's kernels: loaded when the command runs, not when the flags are read

    out = format_for(args.output) if args.output else None
    if args.output and out is None and not args.output.endswith(".json"):
        raise OptionError(f"-o {args.output}: give a file ending .json (graph JSON) or a network format's ending "
                          f"({network_endings()}, each also .gz)")
    scorer = Scorer(data, score=args.score, ess=args.ess)
    bench = Workbench(graph_file(args.graph, data.names), scorer)
    print(f"start: {args.graph} ({bench.start.n} nodes, {bench.start.n_edges} arcs), score "
          f"{bench.start_score:.6f} ({scorer.score_name}, {settings(scorer)})")
    changes = []
    for number, (kind, tail, head) in enumerate(args.edits, 1):
        try:
            change = bench.apply((kind, tail, head))
        except BNExploreError as err:
            raise BNExploreError(f"--edit {kind} {tail} {head}: {without_edit(str(err), Edit(kind, tail, head))}"
                                 ) from None
        if not change.done:
            raise BNExploreError(f"--edit {kind} {tail} {head} (edit {number}) refused: {change.refused}; nothing "
                                 "written")
        changes.append(change)
        print()
        print(edit_text(number, change, bench.log_bayes_factor()))
    payload = edit_payload(args, bench, changes)
    if args.output:
        write_edited(bench.graph, data, args, out)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(payload, f, indent=2, ensure_ascii=False)
    written = [path for path in (args.output, args.json_out) if path]
    print(f"\n{len(changes)} edit{'s' * (len(changes) != 1)}, ln BF against the start "
          f"{bench.log_bayes_factor():+.6f}" + (f"; written: {', '.join(written)}" if written else ""))


def settings(scorer):
    """The score's hyperparameters as ``ess 1`` (or "no hyperparameters")."""
    words = ", ".join(f"{name} {value:g}" for name, value in scorer.params.items() if name != "score")
    return words or "no hyperparameters"


def without_edit(message, edit):
    """``message`` without the ``"add a → b: "`` the workbench starts it with (the flag names the edit)."""
    prefix = f"{edit}: "
    return message[len(prefix):] if message.startswith(prefix) else message


def edges_text(edges, sign):
    """``a → b, c → d`` (or "none")."""
    return ", ".join(f"{a} {sign} {b}" for a, b in edges) or "none"


def marked_text(edges):
    """``a → b, c — d`` from the workbench's ``(a, mark, b)`` class edges (or "none")."""
    return ", ".join(" ".join(edge) for edge in edges) or "none"


def edit_text(number, change, log_bf):
    """The readable report of one done edit: the node table, the total change, ln BF, the class change."""
    width = max(len("node"), *(len(name) for name, _, _ in change.nodes))
    lines = [f"edit {number}: {change.edit}",
             f"  {'node':<{width}}  {'before':>16}  {'after':>16}  {'change':>14}"]
    lines += [f"  {name:<{width}}  {before:16.6f}  {after:16.6f}  {after - before:+14.6f}"
              for name, before, after in change.nodes]
    lines.append(f"  total change {change.change:+.6f} (ln BF against the network before)")
    lines.append(f"  ln BF against the start {log_bf:+.6f}")
    if change.same_class:
        lines.append("  class: the same (a Markov equivalent network)")
    else:
        lines.append(f"  class: changed; now compelled: {edges_text(change.now_compelled, '→')}; now reversible: "
                     f"{edges_text(change.now_reversible, '—')}")
        lines.append(f"  class edges added: {marked_text(change.added)}; removed: {marked_text(change.removed)}")
    return "\n".join(lines)


def edit_payload(args, bench, changes):
    """Every figure of the run as JSON: the score settings, each edit's nodes and class change, the graphs."""
    scorer = bench.scorer
    return {"graph": args.graph, "score_name": scorer.score_name, "params": scorer.params,
            "start_score": bench.start_score, "score": bench.score(), "log_bayes_factor": bench.log_bayes_factor(),
            "edits": [{"kind": c.edit.kind, "tail": c.edit.tail, "head": c.edit.head,
                       "nodes": [{"node": name, "before": before, "after": after, "change": after - before}
                                 for name, before, after in c.nodes],
                       "change": c.change, "same_class": c.same_class,
                       "now_compelled": [list(e) for e in c.now_compelled],
                       "now_reversible": [list(e) for e in c.now_reversible],
                       "class_added": [list(e) for e in c.added], "class_removed": [list(e) for e in c.removed]}
                      for c in changes],
            "start": bench.start.to_json(), "edited": bench.graph.to_json()}


def write_edited(graph, data, args, spec):
    """Write the edited ``graph`` to ``-o``: graph JSON, a graph-only format, or tables fitted to ``data``."""
    from .formats import write_network

    if spec is None:
        with open(args.output, "w", encoding="utf-8") as f:
            json.dump(graph.to_json(), f, indent=2, ensure_ascii=False)
        return
    if spec.tables:
        from .bif import fit_network  # numba's counting kernels: only when tables are written

        write_network(fit_network(graph, data, ess=args.ess), args.output, spec.name)
    else:
        write_network(graph, args.output, spec.name)
