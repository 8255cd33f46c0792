"""What the Networks and Compare pages' import makes of an uploaded file: a saved result (the JSON bnexplore
exports), or a network in any format of :data:`bnexplore.formats.FORMATS`, kept as a result.

An upload's name only says its format (by its ending); its bytes are read through ``io.BytesIO``, so no text
of it ever becomes a path. A file that cannot be read raises a ``BNExploreError`` and nothing is kept.
"""

import io
from dataclasses import dataclass

import streamlit as st

from bnexplore.bif import Network
from bnexplore.errors import BIFError
from bnexplore.formats import FORMATS, format_for, read_graph, read_network
from bnexplore.result import Result
from bnexplore.session import MAX_GRAPH_NODES
from bnexplore_app import state, views

ENDINGS = ["json", *dict.fromkeys(ending.lstrip(".") for spec in FORMATS.values() for ending in spec.extensions),
           "gz"]
"""The endings the uploader takes: a result's JSON, every network format's, and ``gz`` for a gzipped network."""


@dataclass
class Imported:
    """A file kept as a result.

    Attributes
    ----------
    entry : bnexplore_app.state.Entry
    kind : str
        "result" (a saved result) or the title of the network file's format.
    attached : bool
        Whether it was attached to the data in use.
    why_not : str
        For a network file kept without data, how its variables differ from those of the data in use.
    recorded : bool
        For a saved result, whether its file names the data it was learned on.
    """

    entry: object
    kind: str
    attached: bool
    why_not: str = ""
    recorded: bool = False


def import_file(file_name, data):
    """Keep the uploaded file ``file_name`` (its bytes ``data``) as a result; returns an :class:`Imported`.

    Raises
    ------
    BNExploreError
        If the file cannot be read (a network file's message names the line); nothing is kept.
    """
    if file_name.lower().endswith(".json"):
        return saved_result(file_name, data)
    return network_file(file_name, data)


def saved_result(file_name, data):
    """A result exported by the app (its name and data in ``extra["app"]``: attached to the data in use only when
    those are the same data) or by the library; the tables of an imported network file it keeps are checked."""
    result = Result.from_json(data)
    views.saved_tables(result)
    origin = result.extra.get("app") or {}
    same_data = origin.get("data_key") == st.session_state["data_key"]
    name = origin.get("name") or file_name.removesuffix(".json")
    label = origin.get("data_label") or f"imported from {file_name}"
    entry = state.add_result(name, result, state.dataset() if same_data else None,
                             st.session_state["data_key"] if same_data else None, label)
    return Imported(entry, "result", same_data, recorded=bool(origin))


def network_file(file_name, data):
    """A network file as a result: its DAG scored on the data in use, its tables kept, attached to the data in
    use when its variables and their states are the data's (:func:`mismatch`), else kept without data."""
    spec = format_for(file_name)
    if spec is None:
        raise BIFError(f"the name ends in no network format's ending; give it one of "
                       f"{', '.join('.' + ending for ending in ENDINGS[1:-1])} (with .gz when gzipped)")
    source = io.BytesIO(data)
    found = read_network(source, spec.name) if spec.tables else read_graph(source, spec.name)
    if len(found.names) > MAX_GRAPH_NODES:
        raise BIFError(f"the network has {len(found.names):,} variables; the app keeps networks of at most "
                       f"{MAX_GRAPH_NODES:,}")
    dataset = state.dataset()
    why_not = mismatch(found, dataset)
    attached = not why_not
    dag = found.dag() if isinstance(found, Network) else found
    result = views.scored_result(dag, views.IMPORTED, views.data_scorer() if attached else None,
                                 {views.FILE_NETWORK: views.kept_file(found, spec.name)})
    entry = state.add_result(file_name, result, dataset if attached else None,
                             st.session_state["data_key"] if attached else None,
                             st.session_state["data_label"] if attached else f"imported from {file_name}")
    return Imported(entry, spec.title, attached, why_not)


def mismatch(found, data):
    """How the variables of ``found`` (a Network or a DAG) differ from those of ``data``, or "" when they are
    the same names with, for a network, the same states each (in any order).

    Examples
    --------
    >>> from bnexplore.data import Dataset
    >>> import numpy as np
    >>> data = Dataset(np.zeros((2, 2), np.int32), [2, 2], ["a", "b"], [["x", "y"], ["x", "y"]])
    >>> net = Network("n", ["b", "a"], [["y", "x"], ["x", "z"]], [[], []], [[0.5, 0.5], [0.5, 0.5]])
    >>> mismatch(net, data)
    "the states of 'a' are not the data's"
    """
    extra = sorted(set(found.names) - set(data.names))
    absent = sorted(set(data.names) - set(found.names))
    if extra or absent:
        return "; ".join(part for part in (
            extra and f"{len(extra)} of its variables are not in the data ({', '.join(map(repr, extra[:3]))}"
                      f"{', ...' if len(extra) > 3 else ''})",
            absent and f"{len(absent)} of the data's variables are not in it") if part)
    if not isinstance(found, Network):
        return ""
    states = dict(zip(data.names, data.states))
    differ = [name for name, labels in zip(found.names, found.states) if sorted(labels) != sorted(states[name])]
    if differ:
        more = ", ..." if len(differ) > 3 else ""
        return f"the states of {', '.join(map(repr, differ[:3]))}{more} are not the data's"
    return ""
