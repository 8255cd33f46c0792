"""The Networks page's "Edit" view: edit a network by hand and see, edit by edit, why its score moves.

The user starts from the chosen network (learned, the ground truth, imported)
or from the empty graph, and adds, deletes or reverses one arc at a time, or
reverses an arc within the equivalence class (a covered arc, Chickering 1995).
:class:`bnexplore.workbench.Workbench` scores each edit with the network's own
score on its data: the local score of each node whose parents changed, the
total change, the score against the start (the log Bayes factor for a Bayesian
score, a plain score difference for BIC, AIC and LL), whether the equivalence
class changed and which arcs became compelled or reversible. An edit that
would close a directed cycle is refused with the cycle named, and nothing
changes. Undo and redo walk the edits; *Keep as a new network* adds the edited
DAG as a result of its own, so every page has it (the Networks picker, Compare,
Ask it, the exports, a saved session).

Each network's workbench lives in the session, per network, data and score, so
the edits survive a visit to another page.
"""

import html
from dataclasses import dataclass, replace

import pandas as pd
import streamlit as st

from bnexplore import viz
from bnexplore.errors import BNExploreError
from bnexplore.graphs import DAG
from bnexplore.scores import SCORES
from bnexplore.workbench import Edit, Workbench
from bnexplore_app import state, views
from bnexplore_app.errors import without_links
from bnexplore_app.widgets import literal, show_graph

MOVES = {"add": "Add", "delete": "Delete", "reverse": "Reverse", "class": "Reverse within the class"}
"""The moves offered, by key: the three edit kinds, and a reversal restricted to the covered arcs."""
GRAPH_WIDTH = 560
"""Pixels of the graph column (three fifths of a 1280-pixel window with the sidebar open): the controls beside it
take the rest, wide enough for the table of the changed nodes' scores."""
EDITED_COLOR = viz.ONLY_B_COLOR
"""The last edit's arc: the comparison colour of what only the second (here: the edited) network has."""
DELETED_COLOR = viz.FAINT_COLOR
ALGORITHM = "edited by hand"
"""The ``algorithm`` of a kept edited network (the results table's column)."""


@dataclass
class Bench:
    """One network's editing: the workbench, where it started ("network" or "empty"), and the last click's
    outcome, ``(what, value)`` with ``what`` one of "apply", "undo", "redo" (value: the ScoreChange) or "error"
    (value: the message)."""

    workbench: Workbench
    origin: str = "network"
    outcome: tuple = ()


def signed(value):
    """A score change with its sign and four decimals, rounding noise shown as 0.

    Examples
    --------
    >>> signed(12.345678), signed(-0.5), signed(-3e-13)
    ('+12.3457', '-0.5000', '+0.0000')
    """
    return f"{round(value, 4) + 0.0:+,.4f}"


def score_text(result):
    """The result's score and its setting as people write them ("BDeu(1)")."""
    return state.score_label(result.score_name, result.params.get("ess"))


def why_not(entry):
    """One line: why the entry's network cannot be edited with scores."""
    if not isinstance(entry.result.graph, DAG):
        return "This network is not a DAG, so it cannot be edited arc by arc here."
    data = views.data_for(entry)[0]
    if data is None:
        return ("This network was learned on other data than the data in use, so there are no data to score its "
                "edits on: load those data (or edit a network of the data in use).")
    if not isinstance(entry.result.score_name, str) or entry.result.score_name not in SCORES:  # an import's: any JSON
        return "This network's score is not one bnexplore knows, so its edits cannot be scored."
    return "Every row of the data has a blank cell, so there is nothing to score the edits on."


def bench_of(entry, scorer):
    """The entry's Bench, kept in the session per network, data and score settings (made on first use)."""
    benches = st.session_state.setdefault("edit_benches", {})
    key = (entry.name, views.data_for(entry)[1], entry.result.score_name, repr(entry.result.params.get("ess")))
    if key not in benches:
        benches[key] = Bench(Workbench(entry.result.graph, scorer))
    return benches[key], key


def render(entry, positions, most):
    """The whole view: the edited graph beside the controls and what the last edit did.

    Returns ``(drawing, positions)`` for the export buttons, or None when the
    network cannot be edited with scores (the reason is on the page).
    """
    for text in st.session_state.pop("edit_notes", []):
        st.success(text)
    scorer = views.entry_scorer(entry)
    if scorer is None or not isinstance(entry.result.graph, DAG):
        st.info(why_not(entry))
        return None
    bench, key = bench_of(entry, scorer)
    graph_column, side = st.columns([3, 2])
    with side:
        controls(entry, bench)
        outcome(entry, bench)
        start_button(entry, bench, key, scorer)
    work = bench.workbench
    count = len(work.history)
    drawing = edited_drawing(entry, work, scorer, default_name(entry, bench))
    start = literal(entry.name) if bench.origin == "network" else "the empty graph"
    with graph_column:
        show_graph(drawing, positions,
                   f"{count} edit{'' if count == 1 else 's'} from {start}. Arrows are arcs; thicker arcs add more to "
                   f"the {score_text(entry.result)} score (hover an arc for its contribution, a node for its local "
                   "score). The last edit is drawn thick in orange (a deleted arc dashed and faint). To export the "
                   "edited network itself, keep it as a new network first."
                   + " " + state.scored_rows_note(views.data_for(entry)[0]), width=GRAPH_WIDTH, most=most)
        keep_controls(entry, bench, scorer)
    return drawing, positions


def controls(entry, bench):
    """The move, its arc, Apply, Undo and Redo; a click changes the workbench and runs the
    page again, so everything drawn shows the network after it."""
    work = bench.workbench
    prefix = f"edit-{entry.name}"
    move = st.radio("Move", list(MOVES), format_func=MOVES.get, key=state.KEEP + "edit_move", horizontal=True,
                    help="Add, delete or reverse one arc; *Reverse within the class* offers only the covered arcs "
                         "(Pa(head) = Pa(tail) + tail, Chickering 1995), whose reversal keeps the equivalence class.")
    arc = arc_choice(work, move, prefix)
    with st.container(horizontal=True, gap="small"):
        apply = st.button("Apply", key=f"{prefix}-apply", type="primary", disabled=arc is None)
        undo = st.button("Undo", key=f"{prefix}-undo", disabled=not work.can_undo)
        redo = st.button("Redo", key=f"{prefix}-redo", disabled=not work.can_redo)
    if apply:
        try:
            bench.outcome = ("apply", work.apply(Edit("reverse" if move == "class" else move, *arc)))
        except BNExploreError as error:
            bench.outcome = ("error", str(error))
        st.rerun()
    if undo or redo:
        done = work.undo() if undo else work.redo()
        bench.outcome = ("undo" if undo else "redo", done) if done is not None else ()
        st.rerun()


def start_button(entry, bench, key, scorer):
    """Start again: from the empty graph, or from the network chosen above (the edits are dropped)."""
    empty = bench.origin == "empty"
    if st.button("Start again from this network" if empty else "Start from the empty graph",
                 key=f"edit-{entry.name}-start",
                 help="Drop the edits and start again from the network chosen above, or from a graph without arcs "
                      "(to build a network arc by arc)."):
        start = entry.result.graph if empty else DAG.empty(entry.result.graph.names)
        st.session_state["edit_benches"][key] = Bench(Workbench(start, scorer), "network" if empty else "empty")
        st.rerun()


def arc_choice(work, move, prefix):
    """The arc the move is for, picked by the user: a tail and a head not joined to it for an addition, an
    arc of the network otherwise (a covered one for a reversal within the class); None when there is none."""
    graph = work.graph
    names = graph.names
    if move == "add":
        left, right = st.columns(2)
        tail = left.selectbox("From", names, key=f"{prefix}-from")
        t = names.index(tail)
        heads = [names[v] for v in range(graph.n) if v != t and not graph.adjacent(t, v)]
        head = right.selectbox("To", heads, key=f"{prefix}-to", placeholder="(joined to all)")
        return (tail, head) if head is not None else None
    arcs = work.class_moves() if move == "class" else work.candidates(move)
    if not arcs:
        st.caption("The network has no arc." if move != "class" else
                   "No covered arc: every reversal would change the equivalence class.")
        return None
    return st.selectbox("Arc", arcs, key=f"{prefix}-arc-{move}", format_func=lambda a: f"{a[0]} → {a[1]}")


def outcome(entry, bench):
    """What the last click did: an edit refused (the cycle named), undone, or done (its total change, then the
    edited network against the start, then each changed node and the class change)."""
    what, value = bench.outcome or (None, None)
    done = what in ("apply", "redo") and not value.refused
    if what == "error":
        st.error(without_links(value))
    elif what == "undo":
        st.caption(without_links(f"Undone: {value.edit}."))
    elif what == "apply" and value.refused:
        st.error(without_links(f"Refused: {value.refused}. The network is unchanged."))
    elif done:
        st.metric(without_links(f"{'Redone' if what == 'redo' else 'Score change'}: {value.edit}"),
                  signed(value.change), help=f"The {score_text(entry.result)} score after the edit minus before "
                                             f"(natural log, higher is better): exactly {value.change!r}.")
    against_start(entry, bench)
    if done:
        change_details(entry, value)


def change_details(entry, change):
    """One done edit: the local score of each node whose parents changed, and the class change."""
    spec = SCORES[entry.result.score_name]
    frame = pd.DataFrame([(name, before, after, after - before) for name, before, after in change.nodes],
                         columns=["node", "before", "after", "change"])
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        "node": st.column_config.TextColumn(help="a node whose parents the edit changed"),
        "before": st.column_config.NumberColumn(format="%.4f", help="its local score before the edit"),
        "after": st.column_config.NumberColumn(format="%.4f", help="its local score after the edit"),
        "change": st.column_config.NumberColumn(format="%+.4f", help="after minus before")})
    st.caption(without_links(class_text(change, spec)))


def class_text(change, spec):
    """The edit's effect on the equivalence class, in a sentence or two."""
    if change.same_class:
        text = "Same equivalence class: the data cannot tell the two networks apart"
        return text + ("." if spec.equivalent else
                       f", but {spec.label} is not score-equivalent, so their scores can differ.")
    parts = ["Another equivalence class."]
    if change.now_compelled:
        parts.append("Now compelled: " + ", ".join(f"{a} → {b}" for a, b in change.now_compelled) + ".")
    if change.now_reversible:
        parts.append("Now reversible: " + ", ".join(f"{a} — {b}" for a, b in change.now_reversible) + ".")
    return " ".join(parts)


def against_start(entry, bench):
    """The edited network's score against the start: ln Bayes factor for a Bayesian score, else the difference."""
    work = bench.workbench
    spec = SCORES[entry.result.score_name]
    value = work.log_bayes_factor()
    start = "the start" if bench.origin == "network" else "the empty graph"
    if spec.penalty is None:  # a log marginal likelihood (BDeu, K2): the difference is ln BF
        st.markdown(f"ln Bayes factor against {start}: **{signed(value)}** ({score_text(entry.result)})",
                    help=f"The {score_text(entry.result)} score of the edited network minus the start's, exactly "
                         f"{value!r}: the natural log of how many times more probable the data are under it.")
    else:
        st.markdown(f"{score_text(entry.result)} against {start}: **{signed(value)}**",
                    help=f"The score of the edited network minus the start's, exactly {value!r}. "
                         f"{spec.label} is a penalised log-likelihood, so this is a score difference, not a Bayes "
                         "factor.")


def edited_drawing(entry, work, scorer, title):
    """The network now: arcs as thick as their score contribution, the last edit highlighted."""
    graph = work.graph
    contribution = viz.arc_contributions(scorer, graph)
    titles = {}
    for v, name in enumerate(graph.names):
        parents = [graph.names[p] for p in graph.parents(v)]
        titles[name] = (f"<b>{html.escape(name)}</b><br>parents: {html.escape(', '.join(parents) or 'none')}"
                        f"<br>local score {scorer.local(name, parents):.4f}")
    drawing = viz.pdag_drawing(graph, arc_weights=contribution, arc_titles=views.arc_titles(entry, contribution),
                               node_titles=titles, weight_label="thicker arc = adds more to the score (hover)",
                               title=title)
    return highlighted(drawing, work.history[-1].edit) if work.history else drawing


def highlighted(drawing, edit):
    """``drawing`` with the arc of ``edit`` drawn thick in the edit colour (a deleted arc dashed and faint)."""
    title = html.escape(f"the last edit: {edit}")
    if edit.kind == "delete":
        edges = [*drawing.edges, viz.EdgeStyle(edit.tail, edit.head, dashed=True, color=DELETED_COLOR, width=3.0,
                                               title=title, kind="deleted")]
        color = DELETED_COLOR
    else:
        arc = (edit.tail, edit.head) if edit.kind == "add" else (edit.head, edit.tail)
        edges = [replace(e, color=EDITED_COLOR, width=max(e.width, 5.0), title=f"{e.title}<br>{title}",
                         kind="edited") if (e.u, e.v) == arc else e for e in drawing.edges]
        color = EDITED_COLOR
    legend = [*drawing.legend, viz.LegendItem(f"the last edit: {edit}", color, dashed=edit.kind == "delete")]
    return replace(drawing, edges=edges, legend=legend)


def default_name(entry, bench):
    """What the edited network is ("hc · BDeu(1) · asia 5k + 2 edits"): the picture's title, and the name a kept
    edited network gets unless the user types one."""
    count = len(bench.workbench.history)
    start = entry.name if bench.origin == "network" else "empty graph"
    return f"{start} + {count} edit{'' if count == 1 else 's'}"


def keep_controls(entry, bench, scorer):
    """A name and *Keep as a new network*: the edited DAG becomes a result of its own."""
    work = bench.workbench
    default = default_name(entry, bench)
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    name = left.text_input("Name of the new network", key=f"edit-{entry.name}-name", placeholder=default,
                           max_chars=200)
    if right.button("Keep as a new network", key=f"edit-{entry.name}-keep", disabled=work.graph == entry.result.graph,
                    help="Add the edited network to the session's networks: it can then be drawn, compared, "
                         "asked, exported and saved with the session like a learned one."):
        kept = keep(entry, bench, scorer, name.strip() or default)
        st.session_state["edit_notes"] = [f"Kept as {literal(kept.name)}: {kept.result.graph.n_edges} arcs, "
                                          f"{score_text(kept.result)} score {kept.result.score:,.2f}. It is now in "
                                          "the network picker, Compare and Ask it."]
        st.rerun()


def keep(entry, bench, scorer, name):
    """Add the edited network to the session's results under ``name`` (made unique); returns its Entry."""
    work = bench.workbench
    data, data_key = views.data_for(entry)
    label = entry.data_label if data_key == entry.data_key else st.session_state["data_label"]
    start = entry.name if bench.origin == "network" else "the empty graph"
    result = views.scored_result(work.graph, ALGORITHM, scorer, extra={
        views.HAND_EDITS: {"from": start, "edits": [str(change.edit) for change in work.history]}})
    return state.add_result(name, result, data, data_key, label)
