"""The command line's network and graph files: ``convert``, and how every command reads a network.

A network file is in any format of :data:`bnexplore.formats.FORMATS`, told by
its ending (else its content); the help texts and messages list the formats
from that registry. ``sample`` and ``query`` read a network with its tables
(:func:`read_network_file`, refusing a graph-only file with the way to fit its
tables); ``--graph``, ``impute``'s graph and ``compare --truth`` read a graph
from a network file of any format or from graph JSON (:func:`graph_file`,
:func:`truth_graph`). ``convert IN OUT`` writes the network of one file in
another format (:func:`cmd_convert`); like the command line's ``-o`` and
``--json`` (and pgmpy's and pyAgrum's writers) it overwrites an existing OUT.
"""

import json
import re
from pathlib import Path

from .errors import BNExploreError
from .formats import FORMATS, format_for


def network_formats(tables=None):
    """The network formats of :data:`~bnexplore.formats.FORMATS` for help and messages: "BIF (.bif), ...,
    each also gzipped (.gz)"; ``tables=True`` only those holding probability tables."""
    chosen = [spec for spec in FORMATS.values() if tables is None or spec.tables == tables]
    return ", ".join(f"{spec.title} ({', '.join(spec.extensions)})" for spec in chosen) + ", each also gzipped (.gz)"


def network_endings():
    """Every file ending of a network format, for messages: ".bif, .xml, ..." (each also with .gz)."""
    return ", ".join(ending for spec in FORMATS.values() for ending in spec.extensions)


def graph_only(path, spec, needs):
    """The refusal of a graph-only network file where ``needs`` (what the user asked for) needs tables."""
    return BNExploreError(f"{path} is a {spec.title}: a graph without probability tables, and {needs} needs them; "
                          f"fit them to data: bnexplore query DATA --graph {path} fits and queries them (in Python, "
                          "fit_network then write_network keeps them)")


def split_assignments(text, flag):
    """``"A=yes,B=(0.5, 1.2]"`` as ``[("A", "yes"), ("B", "(0.5, 1.2]")]``: a comma
    ends an item only when a ``NAME=`` follows it."""
    items = []
    for part in re.split(r",(?=[^,=]*=)", text):
        if "=" not in part or not part.split("=", 1)[0].strip():
            raise BNExploreError(f"cannot read {part.strip()!r} in {flag}: write VARIABLE=VALUE, separated by commas")
        name, value = part.split("=", 1)
        items.append((name.strip(), value.strip()))
    return items


def read_network_file(path, needs, format=None):
    """The network with its tables in file ``path``, in any format of :data:`~bnexplore.formats.FORMATS`
    (``format``, else the file's ending, else its content); ``needs`` names what needs the tables."""
    from .formats import read_network

    spec = format_for(path, format)
    if spec is not None and not spec.tables:
        raise graph_only(path, spec, needs)
    return read_network(path, format)


def graph_file(path, names):
    """The graph of a JSON file (a result, or ``{nodes, arcs}``) or of a network file (an ending of
    :data:`~bnexplore.formats.FORMATS`) over some of the data's variables ``names``.

    A JSON file's nodes are checked against the data before the graph is built, so a file with more nodes
    than the data has variables costs nothing (a network file is bounded by its reader).
    """
    from .formats import read_graph
    from .graphs import DAG

    if format_for(path) is not None:
        graph = read_graph(path)
        _check_nodes(path, graph.names, names)
        return graph
    try:
        data = json.loads(Path(path).read_text())
    except OSError as err:
        raise BNExploreError(f"cannot read graph file {path}: {err.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
        line = f" (line {err.lineno})" if isinstance(err, json.JSONDecodeError) else ""
        raise BNExploreError(f"graph file {path} is not valid JSON{line}") from None
    graph = data.get("graph", data) if isinstance(data, dict) else data
    if not isinstance(graph, dict) or not isinstance(graph.get("nodes"), list):
        raise BNExploreError(f'graph file {path} must hold a JSON object with a "nodes" list and an "arcs" list '
                             "(as a learn result or {\"nodes\": [...], \"arcs\": [[\"A\", \"B\"]]} does)")
    _check_nodes(path, graph["nodes"], names)
    return DAG.from_json(graph)


def _check_nodes(path, nodes, names):
    """Refuse a graph file whose ``nodes`` are not all variables of the data (``names``)."""
    known = set(names)
    if len(nodes) > len(known):
        raise BNExploreError(f"graph file {path} has {len(nodes):,} nodes but the data only {len(known):,} variables")
    missing = sorted(str(v) for v in nodes if not isinstance(v, str) or v not in known)
    if missing:
        raise BNExploreError(f"the graph names variables the data does not have: {', '.join(missing[:20])}"
                             + (f" and {len(missing) - 20:,} more" if len(missing) > 20 else ""))


def truth_graph(path, names):
    """The true DAG of ``--truth``: a network file (an ending of :data:`~bnexplore.formats.FORMATS`) over
    exactly the data's variables ``names``, else a graph JSON file."""
    if format_for(path) is None:
        return graph_file(path, names)
    from .formats import read_graph

    dag = read_graph(path)
    if sorted(dag.names) != sorted(names):
        raise BNExploreError(f"--truth {path}: the network's variables differ from the data's (only in the "
                             f"network: {sorted(set(dag.names) - set(names))[:5]}, only in the data: "
                             f"{sorted(set(names) - set(dag.names))[:5]})")
    return dag


def cmd_convert(args):
    """Write the network of file IN to file OUT in another format (``--from`` / ``--to``, else the endings);
    print what was written as one line of JSON."""
    from .formats import read_graph, write_network

    target = format_for(args.convert_out, args.to_format)
    if target is None:
        raise BNExploreError(f"OUT {args.convert_out} has no ending of a network format ({network_endings()}, "
                             "each also .gz); give it one, or name the format with --to")
    source = format_for(args.convert_in, args.from_format)
    if not target.tables:
        network = read_graph(args.convert_in, args.from_format)
    elif source is not None and not source.tables:
        raise graph_only(args.convert_in, source, f"a {target.title} file")
    else:
        network = read_network_file(args.convert_in, f"a {target.title} file", args.from_format)
    write_network(network, args.convert_out, target.name)
    graph = network.dag() if target.tables else network
    print(json.dumps({"written": args.convert_out, "format": target.name, "variables": len(graph.names),
                      "arcs": graph.n_edges}))


def add_convert(commands):
    """The ``convert`` command in the command line's subparsers ``commands``; its flags name the formats of
    :data:`~bnexplore.formats.FORMATS`. OUT is checked writable before IN is read (``cli.OUTPUTS``)."""
    p = commands.add_parser("convert", help="write a network file in another format",
                            description="Read network file IN and write it to OUT in another format, told by "
                                        "the endings (or --from / --to): " + network_formats()
                                        + ". A graph-only format holds no tables: any network can be written to "
                                          "it, but it is written to a format with tables only after fitting them "
                                          "to data. OUT is overwritten when it exists.")
    p.add_argument("convert_in", metavar="IN", help="network file to read (format from its ending, else its content)")
    p.add_argument("convert_out", metavar="OUT", help="network file to write (format from its ending; .gz: gzipped)")
    p.add_argument("--from", dest="from_format", choices=list(FORMATS), help="format of IN: " + "; ".join(
        f"{spec.name}: {spec.title}" for spec in FORMATS.values()))
    p.add_argument("--to", dest="to_format", choices=list(FORMATS), help="format of OUT (names as --from)")
    p.set_defaults(func=cmd_convert)
