"""What the pages draw for a kept result: drawings with hover texts, its tables (fitted, or an imported file's own)
and its network's text in any file format, cached per entry."""

import html
import io
import math

import streamlit as st

from bnexplore import viz
from bnexplore.bif import Network, fit_network, read_bif, write_bif
from bnexplore.em import em_fit
from bnexplore.errors import BIFError, DataError
from bnexplore.formats import FORMATS, write_network
from bnexplore.graphs import PDAG
from bnexplore.result import Result
from bnexplore.scores import SCORES
from bnexplore.scores.contributions import arc_contributions
from bnexplore.session import MAX_TEXT
from bnexplore_app import state

VIEW_CAPTIONS = {
    "DAG": "Arrows are arcs (parent → child). {width} {hover}",
    "RPDAG": "The RPDAG (restricted PDAG, Acid & de Campos 2003) of this DAG. An arc stays an arrow when its head "
             "has two or more parents (a head-to-head pattern a → c ← b) or when an arrow points into its tail, "
             "so it hangs below such a pattern. Every other edge is a dashed link: the links form trees that start "
             "at parentless nodes, and each tree can point away from any one of its nodes, which gives the DAGs "
             "of the RPDAG class.",
    "CPDAG": "The CPDAG (essential graph) of this DAG's Markov equivalence class: dark arcs are compelled "
             "(the same in every DAG of the class, the data can tell their direction); light dashed edges are "
             "reversible (the data cannot tell the direction).",
}
BLANK_SCORES = ("The data keep blank cells: a structural EM run's score is its expected score (on the rows "
                "completed under its own network, each row's blank cells drawn from their posterior), any other "
                "network's (the ground truth's, an imported one's) is on the rows without a blank cell; the two "
                "are not on one scale, so compare such networks by their edges and SHD.")
"""What the scores of networks on data with blank cells are (Networks and Compare pages)."""
IMPORTED = "network file"
"""The ``algorithm`` of a result imported from a network file (its graph, and its tables in
``extra[FILE_NETWORK]``)."""
HAND_EDITS = "hand_edits"
"""The key of ``Result.extra`` that says a result was edited by hand in the Networks page's Edit view:
``{"from": the network it started from, "edits": ["add a → b", ...]}`` (:mod:`bnexplore_app.edit_view`)."""
FILE_NETWORK = "file_network"
"""The key of ``Result.extra`` that says a result was imported from a network file: ``{"format": its name in
:data:`bnexplore.formats.FORMATS`, "bif": its tables}`` (see :func:`kept_file`)."""
WIDTH_TEXT = ("Thicker arcs add more to the score: the width is s(child, parents) − s(child, parents without this "
              "one), shown exactly on hover.")


def what_it_is(entry):
    """One sentence on what the entry's network is: the truth, imported from a network file, or learned by which
    search on which data."""
    result = entry.result
    if result.algorithm == "ground truth":
        return f"The true network the rows of {entry.data_label} were drawn from."
    saved = imported_file(result)
    if saved is not None:
        spec = FORMATS.get(saved.get("format"))
        tables = ("with its own probability tables" if saved.get("bif") is not None else
                  "a graph without probability tables")
        return f"Imported from a {spec.title if spec else 'network'} file, {tables}."
    edited = result.extra.get(HAND_EDITS) if isinstance(result.extra, dict) else None
    if isinstance(edited, dict) and isinstance(edited.get("edits"), list):
        count = len(edited["edits"])
        return (f"Edited by hand in the Edit view ({count} edit{'' if count == 1 else 's'}), scored on "
                f"{entry.data_label}.")
    seconds = result.stats.get("seconds")
    took = f" in {seconds:.2f} s" if seconds is not None else ""
    stopped = f"; {stopped_text(result)}" if result.stats.get("stopped") else ""
    return f"Learned by {result.algorithm} on {entry.data_label or 'unrecorded data'}{took}{stopped}."


def number(value):
    """A setting as people typed it: a float to 6 significant digits (a Bayes factor kept as
    exp(ln 20) = 19.999999999999996 reads 20); anything else as it is."""
    if isinstance(value, float) and math.isfinite(value):
        return f"{value:.6g}"
    return str(value)


def settings_text(params):
    """A result's settings in one line, ``name=value, ...`` (numbers rounded by :func:`number`)."""
    return ", ".join(f"{k}={number(v)}" for k, v in (params or {}).items() if v is not None)


def ended_at_time_limit(result):
    """True when a search ended at its time limit: no early stop for OBS and ASOBS, which use their whole limit."""
    return (result.stats or {}).get("stopped") == "time limit"


def stopped_text(result):
    """What a result's stop means (the time limit, or early and why), or "" when it ran to its end.

    An exact search stopped with a proven upper bound on the optimum
    (``stats["bound"]``, ``stats["gap"]``, from :mod:`bnexplore.search.exact`
    and :mod:`bnexplore.search.ilp`) says how far from the optimum its
    network may be; any other stop says why it stopped.
    """
    stats = result.stats or {}
    if not stats.get("stopped"):
        return ""
    bound, gap = stats.get("bound"), stats.get("gap")
    if bound is not None and gap is not None and math.isfinite(bound):
        return f"stopped: within {gap:,.4g} of the optimum (proven bound {bound:,.2f})"
    if ended_at_time_limit(result):
        return "ended at the time limit"
    return f"stopped early ({stats['stopped']})"


def found_pattern(result):
    """The pattern a search reported as its answer (``extra["cpdag"]``, PC's) when it is not the class of the DAG
    it returned, else None: PC leaves an edge that two v-structures orient both ways undirected, and an
    extension of such a pattern has a class of its own."""
    pattern = (result.extra or {}).get("cpdag")
    if not isinstance(pattern, PDAG) or pattern == result.graph.cpdag():
        return None
    return pattern


def pattern_note(result):
    """What the DAG and CPDAG views of a result with its own pattern (:func:`found_pattern`) show, or ""."""
    pattern = found_pattern(result)
    if pattern is None:
        return ""
    refused = len(result.extra.get("conflicts") or [])
    reversed_arcs = len(result.extra.get("reversed") or [])
    dag = ("one DAG that agrees with it (a consistent extension)" if result.extra.get("extension") == "consistent"
           else f"a DAG along an order of the nodes: no DAG agrees with the pattern, {reversed_arcs} of its arcs "
                "are turned")
    return (f"{result.algorithm} found a pattern that is not this DAG's class: it refused {refused} orientation"
            f"{'' if refused == 1 else 's'} that contradicted others (conflicts, left undirected). The CPDAG view "
            f"draws that pattern as {result.algorithm} found it; the DAG is {dag}.")


def caption(entry, view, contribution=None):
    """The caption under a view of an entry: what the network is, and how to read the picture."""
    text = VIEW_CAPTIONS[view]
    note = pattern_note(entry.result) if view in ("DAG", "CPDAG") else ""
    if view == "CPDAG" and note:
        text = ("The pattern the search found: arrows are the arcs it oriented, dashed edges those it left "
                "undirected (reversible, or contested by conflicting v-structures).")
    if view == "DAG":
        widths = contribution and len({round(v, 9) for v in contribution.values()}) > 1
        scored = entry_scorer(entry) is not None
        own = file_network(entry) is not None
        tables = own or data_for(entry)[0] is not None
        how = "its file's own" if own else fitted_how(data_for(entry)[0])
        hover = ("Hover a node for " + " and ".join(
            ([f"its local score ({entry.result.score_name})"] if scored else [])
            + ([f"its conditional probability table ({how})"] if tables else []))
                 + "."
                 if scored or tables else "")
        data = data_for(entry)[0]
        if scored and state.has_blanks(data):
            hover += (f" Local scores and arc widths are computed on the {state.complete_count(data):,} rows "
                      "without a blank cell.")
        text = text.format(width=WIDTH_TEXT if widths else "All arcs are drawn at one width.", hover=hover).strip()
    return f"{what_it_is(entry)} {text} {note}".strip()


def fitted_how(data):
    """How :func:`fit` fits tables to ``data``, in a few words."""
    return "fitted to the data by EM, blanks left blank" if state.has_blanks(data) else "fitted to the data"


def data_scorer():
    """The Scorer of the data in use with the Tune page's settings, or None when no row is complete."""
    try:
        return state.current_scorer()
    except DataError:  # every row has a blank cell: nothing to score on
        return None


def scored_result(dag, algorithm, scorer, extra=None):
    """A Result of a network not found by a search (the truth, an imported file): ``dag`` scored by ``scorer``
    (:func:`data_scorer`), or NaN with the Tune page's score settings when ``scorer`` is None."""
    settings = st.session_state["settings"]
    return Result(graph=dag, score=scorer.total(dag) if scorer is not None else float("nan"),
                  score_name=settings["score"] if scorer is None else scorer.score_name, algorithm=algorithm,
                  params={"score": settings["score"], "ess": settings["ess"]} if scorer is None
                  else dict(scorer.params), stats={"edges": dag.n_edges}, extra=extra or {})


def truth_entry():
    """The ground-truth network of the data in use as an Entry (None when unknown)."""
    data = state.dataset()
    truth = state.truth_for(data.names)
    if truth is None:
        return None
    key = ("truth", st.session_state["data_key"], st.session_state["settings"]["score"])
    cached = st.session_state.get("_truth_entry")
    if cached is None or cached[0] != key:
        result = scored_result(truth.dag(), "ground truth", data_scorer())
        entry = state.Entry(f"ground truth: {truth.name}", result, data, st.session_state["data_key"],
                            st.session_state["data_label"])
        cached = (key, entry)
        st.session_state["_truth_entry"] = cached
    return cached[1]


def entries(with_truth=True):
    """Kept results by name, the ground truth first when known."""
    out = {}
    truth = truth_entry() if with_truth else None
    if truth is not None:
        out[truth.name] = truth
    out.update(st.session_state["results"])
    return out


def data_for(entry):
    """The data to fit and score an entry with: its own, or the data in use when the names match."""
    if entry.dataset is not None:
        return entry.dataset, entry.data_key
    current = state.dataset()
    if sorted(current.names) == sorted(entry.result.names):
        return current, st.session_state["data_key"]
    return None, None


def entry_scorer(entry):
    """A Scorer with the entry's own score settings on its data, or None (no data / other score)."""
    data, key = data_for(entry)
    name = entry.result.score_name
    if data is None or not isinstance(name, str) or name not in SCORES:  # a hostile import's name may be a list
        return None
    return scorer_or_none(data, key, name, entry.result.params.get("ess", 1.0))


def scorer_or_none(data, key, score, ess):
    """The session's Scorer of ``data`` (its rows without a blank cell when it keeps blanks: see
    :func:`bnexplore_app.state.scored_rows`), or None when no row is complete."""
    try:
        return state.scorer(key, score, float(ess), data)
    except DataError:  # every row has a blank cell: there is nothing to score on
        return None


def _cached(entry, key, compute):
    if key not in entry.cache:
        entry.cache[key] = compute()
    return entry.cache[key]


def fitted(entry):
    """The entry's network: the ground truth's own tables, an imported file's own tables
    (:func:`file_network`), else its DAG with BDeu-posterior-mean CPTs fitted to its data (by EM when the
    data keep blank cells), else None."""
    own = true_network(entry) or file_network(entry)
    if own is not None:
        return own
    data, _ = data_for(entry)
    if data is None:
        return None
    return _cached(entry, "fitted", lambda: fit(entry.result.graph, data))


def kept_file(found, format):
    """What ``Result.extra[FILE_NETWORK]`` keeps of a network read from a file in ``format`` (a name of
    :data:`bnexplore.formats.FORMATS`): the format, and a network's tables as BIF text (exact: the writer
    writes every probability with ``repr``; None for a graph), in pieces of at most
    :data:`bnexplore.session.MAX_TEXT` characters, the longest text a session file may hold."""
    text = write_bif(found) if isinstance(found, Network) else None
    return {"format": format,
            "bif": None if text is None else [text[k:k + MAX_TEXT] for k in range(0, len(text), MAX_TEXT)]}


def imported_file(result):
    """``result.extra[FILE_NETWORK]`` when the result was imported from a network file, else None."""
    saved = (result.extra or {}).get(FILE_NETWORK)
    return saved if isinstance(saved, dict) else None


def saved_tables(result):
    """The network whose tables ``result`` keeps from its file (None when it keeps none), read and checked.

    The text may come from a saved session or result file: it is read as an open file (never a path) by
    :func:`bnexplore.bif.read_bif`, with its bounds, and must be a network of the result's graph.

    Raises
    ------
    BIFError
        If the kept text is not BIF, or its network is not the result's graph.
    """
    saved = (result.extra or {}).get(FILE_NETWORK)
    pieces = saved.get("bif") if isinstance(saved, dict) else None
    if saved is not None and not isinstance(saved, dict):
        raise BIFError(f"the result's extra.{FILE_NETWORK} must be an object (format, bif)")
    if pieces is None:
        return None
    if not isinstance(pieces, list) or not all(isinstance(piece, str) for piece in pieces):
        raise BIFError(f"the result's extra.{FILE_NETWORK}.bif must be a list of pieces of BIF text")
    network = read_bif(io.StringIO("".join(pieces)))
    if network.dag() != result.graph:
        raise BIFError(f"the tables kept in the result's extra.{FILE_NETWORK} are not of its graph (other "
                       "variables or arcs)")
    return network


def true_network(entry):
    """The true network with its own tables when ``entry`` is the ground truth, else None."""
    return state.truth_for(entry.result.graph.names) if entry.result.algorithm == "ground truth" else None


def file_network(entry):
    """The network with its own tables the entry was imported from (:func:`saved_tables`), or None."""
    if imported_file(entry.result) is None:
        return None
    return _cached(entry, "file_network", lambda: saved_tables(entry.result))


def fit(graph, data, ess=1.0, method="bdeu"):
    """``graph`` with tables fitted to ``data``: :func:`bnexplore.bif.fit_network` (``method`` "bdeu" or "ml"),
    or on data that keep blank cells EM (:func:`bnexplore.em.em_fit`, the BDeu posterior mean with ``ess``
    on the expected counts)."""
    if state.has_blanks(data):
        return em_fit(graph, data, ess=ess)
    return fit_network(graph, data, ess=ess, method=method)


def network_text(entry, name, format):
    """The entry's network named ``name`` as the text of the file format ``format`` (a name of
    :data:`bnexplore.formats.FORMATS`): its graph for a graph-only format, else its tables (:func:`fitted`),
    or None when it has none. Names other tools cannot read are made safe, the originals kept for bnexplore
    (see each format's writer)."""
    def compute():
        if not FORMATS[format].tables:
            return write_network(entry.result.graph, format=format)
        network = fitted(entry)
        if network is None:
            return None
        return write_network(Network(name, network.names, network.states, network.parents, network.cpts),
                             format=format)
    return _cached(entry, ("text", format, name), compute)


def tables_how(entry):
    """Where the tables of :func:`fitted` come from, in a few words."""
    if true_network(entry) is not None:
        return "the true network's own probability tables"
    if file_network(entry) is not None:
        return "its file's own probability tables"
    return f"probability tables {fitted_how(data_for(entry)[0])} (BDeu posterior mean)"


def contributions(entry):
    """Arc score contributions of the entry's DAG (empty when it cannot be scored)."""
    scorer = entry_scorer(entry)
    if scorer is None:
        return {}
    return _cached(entry, "contributions", lambda: arc_contributions(scorer, entry.result.graph))


def local_scores(entry):
    """Local score of every node, by name (empty when it cannot be scored)."""
    scorer = entry_scorer(entry)
    if scorer is None:
        return {}
    graph = entry.result.graph
    values = _cached(entry, "local", lambda: scorer.local_many(graph.names, [
        [graph.names[p] for p in graph.parents(v)] for v in range(graph.n)]))
    return dict(zip(graph.names, map(float, values)))


def node_titles(entry):
    """Hover HTML of every node: its parents, local score and CPT."""
    def compute():
        network = fitted(entry)
        scores = local_scores(entry)
        graph = entry.result.graph
        out = {}
        for v, name in enumerate(graph.names):
            parents = ", ".join(graph.names[p] for p in graph.parents(v)) or "none"
            text = f"<b>{html.escape(name)}</b><br>parents: {html.escape(parents)}"
            if name in scores:
                text += f"<br>local score s({html.escape(name)}, parents) = {scores[name]:.6f}"
            if network is not None:
                text += "<br>" + viz.cpt_html(network, network.names.index(name))
            out[name] = text
        return out
    return _cached(entry, "titles", compute)


def arc_titles(entry, contribution):
    """Hover HTML of every arc with its exact score contribution."""
    out = {}
    for (u, v), value in contribution.items():
        text = (f"{html.escape(u)} → {html.escape(v)}<br>contribution s({html.escape(v)}, Pa) − "
                f"s({html.escape(v)}, Pa \\ {{{html.escape(u)}}}) = {value:.6f}")
        if value < 0:
            text += "<br>(negative: deleting this arc would raise the score)"
        out[(u, v)] = text
    return out


def drawing(entry, view="DAG", colour_nodes=False, title=None):
    """The Drawing of an entry: ``view`` is "DAG", "RPDAG" or "CPDAG"."""
    graph = entry.result.graph
    titles = node_titles(entry)
    title = title or f"{entry.name} — {view}"
    if view == "CPDAG":
        pattern = found_pattern(entry.result)
        if pattern is not None:
            return viz.pdag_drawing(pattern, node_titles=titles, arc_label="arc the search oriented",
                                    link_label="edge left undirected (dashed)",
                                    title=f"{entry.name} — the pattern {entry.result.algorithm} found")
        return viz.cpdag_drawing(graph.cpdag(), node_titles=titles, title=title)
    if view == "RPDAG":
        return viz.pdag_drawing(graph.rpdag(), node_titles=titles, arc_label="arc (head-to-head, or below one)",
                                link_label="link (undirected, dashed)", title=title)
    contribution = contributions(entry)
    values = local_scores(entry) if colour_nodes else None
    return viz.pdag_drawing(graph, arc_weights=contribution, arc_titles=arc_titles(entry, contribution),
                            node_values=values, node_titles=titles,
                            weight_label="thicker arc = adds more to the score (hover for the number)",
                            value_label="node colour: local score (log, higher = better fit)", title=title)


def pick(name):
    """The user picked network ``name`` on the data in use: every page shows it next, even if it belongs to
    other data."""
    state.set_focus(name)
    st.session_state["focus_data"] = st.session_state["data_key"]


def shown_first(entries):
    """The network a page opens on, by name.

    The focus (the newest result, or the user's pick) unless it was learned on
    other data than the data in use and the user did not pick it since those
    data were loaded: then the newest network of the data in use (its ground
    truth when nothing was learned on them yet). A network whose data are not
    recorded (imported from the library's JSON) belongs to no other data.
    Other data's networks stay in the pickers, labelled (:func:`label`).
    """
    names = list(entries)
    chosen = state.focus(names)
    if not other_data(entries[chosen]) or st.session_state.get("focus_data") == st.session_state["data_key"]:
        return chosen
    own = [name for name in names if entries[name].on_data_in_use()]
    return own[-1] if own else chosen


def other_data(entry):
    """True when the entry was learned on recorded data other than the data in use."""
    return entry.data_key is not None and not entry.on_data_in_use()


def other_data_named(data_label):
    """The name of data other than the data in use: its label, and when that is the label of the data in use
    too (the same table encoded with other Data page settings: other blank handling, columns left out or
    binned otherwise) the label alone would read as the same data, so it says so."""
    same_table = data_label == st.session_state.get("data_label")
    return f"{data_label}, other Data page settings" if same_table else data_label


def label(entries):
    """How pickers name a network: by its name, with the data it was learned on when those are other data.

    The names are worked out now, in the page's run: a widget's ``format_func`` is also called
    outside it, where there is no session state to read.
    """
    labels = {name: f"{name} (other data: {other_data_named(entry.data_label)})" if other_data(entry) else name
              for name, entry in entries.items()}
    return lambda name: labels.get(name, name)
