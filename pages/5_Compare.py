"""5 · Compare: networks side by side and overlaid, with SHD and structural errors."""

import pandas as pd
import streamlit as st

from bnexplore import viz
from bnexplore.graphs import shd, structural_errors
from ui import state, views
from ui.page import run_page
from ui.widgets import data_status, file_stem, import_results, picture_buttons, show_graph

EXACT_ALGORITHMS = ("exact", "credible")
OVERLAY_CAPTION = ("Both networks on one picture, nodes in the same places: grey edges are in both, blue only in A, "
                   "orange only in B, purple in both but pointing differently (drawn as in A). Hover an edge to "
                   "see which.")
SIDES_CAPTION = ("Each network on its own, in the same colours: grey = shared, blue = only in A, orange = only in B, "
                 "purple = shared adjacency, other direction.")


def exact_optimum(entry, entries):
    """Score of an exact (proven optimal) result on the same data, score and
    in-degree bound (or none), or None."""
    bound = entry.result.params.get("max_indegree")
    for other in entries.values():
        result = other.result
        if (result.algorithm in EXACT_ALGORITHMS and not result.stats.get("stopped")
                and other.data_key == entry.data_key and result.score_name == entry.result.score_name
                and result.params.get("ess") == entry.result.params.get("ess")
                and result.params.get("max_indegree") in (None, bound)):
            return result.score
    return None


def metrics_table(reference, chosen, entries):
    """One row per network: score, edges, SHD and A / D / I / H against the reference."""
    rows = []
    for entry in chosen:
        graph, ref = entry.result.graph, reference.result.graph
        errors = structural_errors(graph, ref)
        optimum = exact_optimum(entry, entries)
        rows.append({"network": entry.name, "algorithm": entry.result.algorithm,
                     "score function": entry.result.score_name, "score": entry.result.score,
                     "gap to exact optimum": None if optimum is None else optimum - entry.result.score,
                     "edges": graph.n_edges, "SHD (DAGs)": shd(graph, ref),
                     "added A": errors["A"], "deleted D": errors["D"], "reversed I": errors["I"],
                     "H = A + D + I": errors["H"]})
    frame = pd.DataFrame(rows)
    if frame["gap to exact optimum"].isna().all():
        frame = frame.drop(columns="gap to exact optimum")
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        "score": st.column_config.NumberColumn(format="%.2f", help="natural log, higher is better"),
        "gap to exact optimum": st.column_config.NumberColumn(format="%.4f",
                                                              help="optimal score minus this score (0 = optimal)"),
        "SHD (DAGs)": st.column_config.NumberColumn(help="node pairs whose edge differs between the two DAGs"),
        "H = A + D + I": st.column_config.NumberColumn(
            help="structural errors between the equivalence classes (CPDAGs): added, deleted and "
                 "wrongly oriented edges (Acid & de Campos 2003, Section 6)")})
    st.caption(f"Against **{reference.name}**. SHD counts node pairs whose edge differs between the DAGs as "
               "drawn; A (added), D (deleted), I (wrongly oriented) and H = A + D + I compare their equivalence "
               "classes, so two equivalent DAGs have H = 0. Scores are comparable only for the same score "
               "function and data.")


def page():
    st.title("5 · Compare")
    data_status()
    with st.expander("Import a saved result (JSON)"):
        import_results("cmp_import")
    entries = views.entries()
    if len(entries) < 2:
        st.info("Compare needs two networks: run two searches (or one, when the ground truth is known), or import "
                "a saved result above.")
        return
    names = list(entries)
    default = [n for n in st.session_state.get("cmp_pick", names[:1] + names[-1:]) if n in names] or names[:2]
    chosen = st.multiselect("Networks to compare", names, default=default, key="cmp_networks")
    st.session_state["cmp_pick"] = chosen
    if len(chosen) < 2:
        st.info("Pick at least two networks.")
        return
    left, right, mode = st.columns([2, 2, 2])
    a_name = left.selectbox("A (reference)", chosen, index=0, key="cmp_a")
    b_name = right.selectbox("B", [n for n in chosen if n != a_name], key="cmp_b")
    level = mode.radio("Compare", ["DAGs", "equivalence classes (CPDAGs)"], key="cmp_level",
                       help="CPDAGs ignore the directions the data cannot tell apart.")
    a, b = entries[a_name], entries[b_name]
    if sorted(a.result.names) != sorted(b.result.names):
        st.error(f"{a_name} and {b_name} have different variables; compare networks learned from the same "
                 "columns.")
        return
    comparable = [entries[n] for n in chosen if sorted(entries[n].result.names) == sorted(a.result.names)]
    skipped = [n for n in chosen if entries[n] not in comparable]
    metrics_table(a, comparable, entries)
    if skipped:
        st.warning(f"Left out of the table (different variables): {', '.join(skipped)}.")
    ga, gb = a.result.graph, b.result.graph
    if level != "DAGs":
        ga, gb = ga.cpdag(), gb.cpdag()
    positions = state.positions(a.result.names, a.result.graph)
    view = st.radio("Show", ["Overlay", "Side by side"], horizontal=True, key="cmp_view")
    if view == "Overlay":
        drawing = viz.comparison_drawing(ga, gb, a_name, b_name, title=f"A: {a_name}  vs  B: {b_name}")
        show_graph(drawing, positions, OVERLAY_CAPTION)
        picture_buttons(drawing, positions, file_stem(f"{a_name}_vs_{b_name}"), key=f"cmp-{a_name}-{b_name}")
    else:
        side_a, side_b = viz.comparison_sides(ga, gb, a_name, b_name)
        col_a, col_b = st.columns(2)
        with col_a:
            show_graph(side_a, positions, SIDES_CAPTION, height=520)
        with col_b:
            show_graph(side_b, positions, SIDES_CAPTION, height=520)


run_page(page, "the Compare page")
