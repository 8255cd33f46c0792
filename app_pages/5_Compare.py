"""5 · Compare: networks side by side and overlaid, with SHD and structural errors.

Laid out for a projector: the pickers on two rows, the picture right under them (a 1280 x 720
window shows it whole), the table of numbers below it.
"""

import pandas as pd
import streamlit as st

from bnexplore import viz
from bnexplore.graphs import DAG, shd, structural_errors
from bnexplore.knowledge import Knowledge
from bnexplore_app import knowledge_ui, state, views
from bnexplore_app.errors import without_links
from bnexplore_app.page import run_page
from bnexplore_app.widgets import (data_status, file_stem, import_results, literal, pick_one, picture_buttons,
                                  show_graph)

EXACT_ALGORITHMS = ("exact", "credible")
GRAPH_MOST = 330  # most pixels of drawing area: under the pickers, the graph ends inside a 1280 x 720 window
OVERLAY_CAPTION = ("Both networks on one picture, nodes in the same places: grey edges are in both, blue only in A, "
                   "orange only in B, purple in both but pointing differently (drawn as in A). Hover an edge to "
                   "see which.")
SIDES_CAPTION = ("Each network on its own, in the same colours: grey = shared, blue = only in A, orange = only in B, "
                 "purple = shared adjacency, other direction.")


def exact_optimum(entry, entries):
    """``(score, name)`` of a finished exact result whose search space holds ``entry``'s graph, or None.

    The exact result must be on the same data with the same score settings, and
    its search space must hold ``entry``'s graph (its in-degree bound, if any,
    allows every node its parents; its knowledge, if any, allows the graph):
    then the optimum is at least ``entry``'s score and the gap is true.
    """
    graph = entry.result.graph
    indegree = max((len(ps) for ps in graph.parent_sets()), default=0)
    for other in entries.values():
        result = other.result
        bound = result.params.get("max_indegree")
        known = result.params.get("knowledge")
        if (result.algorithm in EXACT_ALGORITHMS and not result.stats.get("stopped")
                and entry.data_key is not None and other.data_key == entry.data_key
                and result.score_name == entry.result.score_name
                and result.params.get("ess") == entry.result.params.get("ess")
                and (bound is None or indegree <= bound)
                and (not known or Knowledge.from_json(known).bind(graph.names).allows(graph))):
            return result.score, other.name
    return None


def metrics_table(reference, chosen, entries, names):
    """One row per network: score, edges, SHD and A / D / I / H against the reference, the edges
    counted between ``names`` (every variable, or those two networks share)."""
    rows = []
    ref = induced(reference.result.graph, names)
    for entry in chosen:
        graph = induced(entry.result.graph, names)
        errors = structural_errors(graph, ref)
        optimum = exact_optimum(entry, entries)
        rows.append({"network": entry.name, "algorithm": entry.result.algorithm,
                     "score function": state.score_label(entry.result.score_name, entry.result.params.get("ess")),
                     "score": entry.result.score,
                     "gap to exact optimum": None if optimum is None else optimum[0] - entry.result.score,
                     "knowledge": knowledge_ui.summary(entry.result.params["knowledge"])
                     if entry.result.params.get("knowledge") else "",
                     "edges": graph.n_edges, "SHD (DAGs)": shd(graph, ref),
                     "added A": errors["A"], "deleted D": errors["D"], "reversed I": errors["I"],
                     "H = A + D + I": errors["H"]})
    frame = pd.DataFrame(rows)
    if not frame["knowledge"].any():
        frame = frame.drop(columns="knowledge")
    gaps = frame["gap to exact optimum"]
    gap_help = "optimal score minus this score (0 = optimal)"
    gap_column = st.column_config.NumberColumn(format="%.4f", help=gap_help)
    if gaps.isna().all():
        frame = frame.drop(columns="gap to exact optimum")
    elif gaps.isna().any():
        missing = ", ".join(frame.loc[gaps.isna(), "network"])
        st.caption(f"No gap for {missing} (—): no finished exact search on the same data and score covers its "
                   "graph (run the exact optimum with at least its number of parents per node).")
        frame["gap to exact optimum"] = [f"{gap:.4f}" if pd.notna(gap) else "—" for gap in gaps]
        gap_column = st.column_config.TextColumn(help=gap_help)
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        "network": st.column_config.TextColumn(pinned=True),
        "score": st.column_config.NumberColumn(format="%.2f", help="natural log, higher is better"),
        "gap to exact optimum": gap_column,
        "SHD (DAGs)": st.column_config.NumberColumn(help="node pairs whose edge differs between the two DAGs"),
        "H = A + D + I": st.column_config.NumberColumn(
            help="structural errors between the equivalence classes (CPDAGs): added, deleted and "
                 "wrongly oriented edges (Acid & de Campos 2003, Section 6)")})
    st.caption(f"Against **{reference.name}**. SHD counts node pairs whose edge differs between the DAGs as "
               "drawn; A (added), D (deleted), I (wrongly oriented) and H = A + D + I compare their equivalence "
               "classes, so two equivalent DAGs have H = 0. Scores are comparable only for the same score "
               "function and data."
               + ("" if all(len(entry.result.names) == len(names) for entry in chosen) else
                  f" Edges, SHD and errors count only the edges between the {len(names)} shared variables; each "
                  "score is that of the whole network."))


def listed(names, most=6):
    return ", ".join(names[:most]) + (" …" if len(names) > most else "")


def shared_variables(a, b, a_name, b_name):
    """The variables A and B are compared on: all of A's when B has the same ones; else those they share
    (in A's order), with a warning saying what is left out; None (with an error) when fewer than two."""
    if sorted(a.result.names) == sorted(b.result.names):
        return list(a.result.names)
    in_b = set(b.result.names)
    names = [n for n in a.result.names if n in in_b]
    only_a = [n for n in a.result.names if n not in in_b]
    only_b = [n for n in b.result.names if n not in set(a.result.names)]
    differ = "; ".join(([f"only in A: {listed(only_a)}"] if only_a else [])
                       + ([f"only in B: {listed(only_b)}"] if only_b else []))
    if len(names) < 2:
        st.error(without_links(f"{a_name} and {b_name} share fewer than two variables ({differ}), so there are no "
                               "edges to compare. Pick two networks learned from the same columns."))
        return None
    st.warning(without_links(f"{a_name} and {b_name} have different variables ({differ}). They are compared on "
                             f"the {len(names)} variables they share, by the edges between those: edges at the "
                             "others are left out."))
    return names


def induced(graph, names):
    """The DAG of ``graph``'s arcs between ``names`` (all of ``graph`` when ``names`` are its nodes)."""
    keep = set(names)
    return DAG.from_arcs([(graph.names[u], graph.names[v]) for u, v in graph.arcs()
                          if graph.names[u] in keep and graph.names[v] in keep], list(names))


def default_pair(entries):
    """The pair to compare after a new result or a change of data: a reference (the ground truth, else the
    previous result on the same variables, those of the data in use first) and the network the pages show
    (the newest of the data in use); just that network when nothing else has its variables."""
    names = list(entries)
    newest = views.shown_first(entries)
    variables = sorted(entries[newest].result.names)
    same = [n for n in names if n != newest and sorted(entries[n].result.names) == variables]
    truth = [n for n in same if entries[n].result.algorithm == "ground truth"]
    here = [n for n in same if entries[n].on_data_in_use()]
    reference = (truth or here[-1:] or same[-1:])
    return reference + [newest]


def picked(entries):
    """The networks to compare: the user's pick, reset to the default pair when a new result arrives or other
    data are loaded."""
    names = list(entries)
    marker = (state.generation(), st.session_state["data_key"])
    if st.session_state.get("cmp_generation") != marker or "cmp_pick" not in st.session_state:
        st.session_state["cmp_generation"] = marker
        st.session_state["cmp_pick"] = default_pair(entries)
        st.session_state.pop("cmp_a_pick", None)
        st.session_state.pop("cmp_b_pick", None)
    chosen = [n for n in st.session_state["cmp_pick"] if n in names]
    if len(chosen) < 2 and len(st.session_state["cmp_pick"]) >= 2:
        chosen = default_pair(entries)
    st.session_state["cmp_networks"] = chosen
    chosen = st.multiselect("Networks to compare", names, key="cmp_networks", format_func=views.label(entries),
                            on_change=lambda: st.session_state.update(cmp_pick=st.session_state["cmp_networks"]))
    return chosen


def page():
    st.title("5 · Compare")
    data_status()
    entries = views.entries()
    if len(entries) < 2:
        st.info("Compare needs two networks: run two searches (or one, when the ground truth is known), or import "
                "a saved result below.")
        with st.expander("Import a saved result (JSON)"):
            import_results("cmp_import")
        return
    chosen = picked(entries)
    if len(chosen) < 2:
        st.info("Pick at least two networks." + (
            " No other network has the variables of the data in use yet: run a search on them (Search page), "
            "or add a network learned on other data from the list (its edges can be compared on the variables "
            "the two share)." if len(st.session_state.get("cmp_pick", [])) < 2 else ""))
        return
    left, right, mode, show = st.columns([4, 4, 2, 2])  # the pickers wide enough for whole names
    kept_a, kept_b = st.session_state.get("cmp_a_pick"), st.session_state.get("cmp_b_pick")
    with left:
        a_name = pick_one("A (reference)", chosen, "cmp_a", kept_a if kept_a in chosen else chosen[0],
                          lambda name: st.session_state.update(cmp_a_pick=name))
    others = [n for n in chosen if n != a_name]
    with right:
        b_name = pick_one("B", others, "cmp_b", kept_b if kept_b in others else others[-1],
                          lambda name: st.session_state.update(cmp_b_pick=name))
    level = mode.radio("Compare", ["DAGs", "equivalence classes (CPDAGs)"], key=state.KEEP + "cmp_level",
                       format_func=lambda level: level.split(" (")[-1].rstrip(")"),
                       help="CPDAGs (equivalence classes) ignore the directions the data cannot tell apart.")
    view = show.radio("Show", ["Overlay", "Side by side"], key=state.KEEP + "cmp_view")
    a, b = entries[a_name], entries[b_name]
    names = shared_variables(a, b, a_name, b_name)
    if names is None:
        return
    if a.data_key != b.data_key:
        st.warning(f"{literal(a_name)} and {literal(b_name)} were learned on different data "
                   f"({literal(a.data_label or 'unrecorded')} and {literal(b.data_label or 'unrecorded')}): their "
                   "edges can be compared, their scores cannot.")
    ga, gb = induced(a.result.graph, names), induced(b.result.graph, names)
    if level != "DAGs":
        ga, gb = ga.cpdag(), gb.cpdag()
    placed = state.positions(a.result.names, a.result.graph)  # where the Networks page draws A's nodes
    positions = {name: placed[name] for name in names}
    if view == "Overlay":
        drawing = viz.comparison_drawing(ga, gb, a_name, b_name, title=f"A: {a_name}  vs  B: {b_name}")
        show_graph(drawing, positions, OVERLAY_CAPTION, most=GRAPH_MOST)
        picture_buttons(drawing, positions, file_stem(f"{a_name}_vs_{b_name}"), key=f"cmp-{a_name}-{b_name}")
    else:
        side_a, side_b = viz.comparison_sides(ga, gb, a_name, b_name)
        col_a, col_b = st.columns(2)
        with col_a:
            show_graph(side_a, positions, SIDES_CAPTION, width=450, most=GRAPH_MOST)
        with col_b:
            show_graph(side_b, positions, SIDES_CAPTION, width=450, most=GRAPH_MOST)
    comparable = [entries[n] for n in chosen if set(names) <= set(entries[n].result.names)]
    skipped = [n for n in chosen if entries[n] not in comparable]
    metrics_table(a, comparable, entries, names)
    if skipped:
        st.warning(f"Left out of the table (different variables): {', '.join(skipped)}.")
    st.divider()
    with st.expander("Import a saved result (JSON)"):
        import_results("cmp_import")


run_page(page, "the Compare page")
