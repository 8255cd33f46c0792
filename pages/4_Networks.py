"""4 · Networks: look at one learned network in its views; hover for numbers; export it."""

import itertools

import streamlit as st

from bnexplore import viz
from ui import state, views
from ui.network_sections import SECTIONS
from ui.page import run_page
from ui.widgets import data_status, export_buttons, import_results, show_graph

CLASS_BROWSE_LIMIT = 1000
VIEW_LABELS = {"DAG": "DAG", "RPDAG": "RPDAG", "CPDAG": "CPDAG", "class": "DAGs in its class"}


def pick_entry():
    entries = views.entries()
    if not entries:
        st.info("No network yet: run a search on the Search page, or import a saved result below.")
        return None
    names = list(entries)
    default = names[-1]
    chosen = st.selectbox("Network", names, index=names.index(st.session_state.get("net_pick", default))
                          if st.session_state.get("net_pick") in names else names.index(default),
                          key="net_pick_box")
    st.session_state["net_pick"] = chosen
    return entries[chosen]


def summary(entry):
    result = entry.result
    graph = result.graph
    cpdag = graph.cpdag()
    a, b, c, d = st.columns(4)
    a.metric(f"Score ({result.score_name})", f"{result.score:,.2f}", help=f"exactly {result.score!r} (natural log)")
    b.metric("Edges", graph.n_edges, help=f"{len(cpdag.arcs())} compelled, {len(cpdag.links())} reversible")
    c.metric("DAGs in its equivalence class", f"{cpdag.n_dags():,}",
             help="Markov equivalent DAGs: same skeleton and v-structures; they fit every data set equally well.")
    d.metric("DAGs in its RPDAG class", f"{graph.rpdag().n_dags():,}",
             help="DAGs with the same skeleton and head-to-head patterns (Acid & de Campos 2003).")
    st.caption(f"{result.algorithm} on {entry.data_label or 'unknown data'}"
               + (f" · {result.stats.get('seconds', 0):.2f} s" if result.stats.get("seconds") is not None else ""))


def class_browser(entry, positions):
    graph = entry.result.graph
    cpdag = graph.cpdag()
    total = cpdag.n_dags()
    shown = min(total, CLASS_BROWSE_LIMIT)
    if shown > 1:
        k = st.slider(f"DAG number (of {total:,}" + (f"; the first {shown:,} can be browsed" if total > shown
                                                      else "") + ")", 1, shown, 1, key="net_class_index")
    else:
        k = 1
    dag = next(itertools.islice(cpdag.dags(), k - 1, None))
    scorer = views.entry_scorer(entry)
    score = scorer.total(dag) if scorer is not None else None
    drawing = viz.pdag_drawing(dag, node_titles=views.node_titles(entry),
                               title=f"{entry.name} — DAG {k} of its class")
    note = (f" Its {entry.result.score_name} score is {score:,.4f}" + (
        " — the same for every DAG of the class, since this score is score-equivalent."
        if entry.result.score_name in ("bdeu", "bic", "aic", "ll")
        else " — K2 is not score-equivalent, so equivalent DAGs can score differently.")) if score is not None else ""
    show_graph(drawing, positions,
               f"One of the {total:,} DAGs Markov equivalent to the learned one: same skeleton and v-structures, "
               f"only the reversible edges point differently.{note}")
    return drawing


def page():
    st.title("4 · Networks")
    data_status()
    with st.expander("Import a saved result (JSON)"):
        import_results("net_import")
    entry = pick_entry()
    if entry is None:
        return
    summary(entry)
    left, right = st.columns([3, 2])
    view = left.radio("View", list(VIEW_LABELS), format_func=VIEW_LABELS.get, horizontal=True, key="net_view")
    colour = right.checkbox("Colour nodes by local score", key="net_colour", disabled=view != "DAG",
                            help="Fill colour on one scale from the lowest (dark) to the highest (yellow) local "
                                 "score; hover a node for the exact value.")
    names = entry.result.names
    positions = state.positions(names, entry.result.graph)
    if view == "class":
        drawing = class_browser(entry, positions)
    else:
        drawing = views.drawing(entry, view, colour_nodes=colour)
        show_graph(drawing, positions, views.VIEW_CAPTIONS[view])
    st.markdown("**Export this picture and network**")
    export_buttons(entry, drawing, positions, key=f"net-export-{entry.name}-{view}")
    if st.button("Re-arrange the nodes from this network", key="net_relayout",
                 help="Every view and comparison of these variables uses the same positions; this computes "
                      "them again from the network shown."):
        state.reset_layout(names, entry.result.graph)
        st.rerun()
    for section in SECTIONS:
        if section.applies(entry):
            st.divider()
            st.subheader(section.title)
            section.render(entry, positions)


run_page(page, "the Networks page")
