"""4 · Networks: look at one learned network in its views; hover for numbers; export it.

The page is laid out for a projector: the picker and the view on one row, the
graph right under them with the numbers beside it, so a 1280 x 720 window shows
the network without scrolling.
"""

import itertools

import streamlit as st

from bnexplore import viz
from bnexplore.scores import SCORES
from bnexplore_app import ask, edit_view, em_view, state, views
from bnexplore_app.network_sections import SECTIONS
from bnexplore_app.page import run_page
from bnexplore_app.widgets import data_status, export_buttons, import_results, pick_one, show_graph

CLASS_BROWSE_LIMIT = 1000
VIEW_LABELS = {"DAG": "DAG", "RPDAG": "RPDAG", "CPDAG": "CPDAG", "class": "DAGs in class", "ask": "Ask it",
               "edit": "Edit"}
GRAPH_WIDTH = 640  # pixels of the graph column in a 1280-pixel window with the sidebar open
GRAPH_HEIGHT = {False: 420, True: 900}  # most pixels of drawing area: fits a 1280 x 720 window, or tall
SLIDER_HEIGHT = 90  # pixels a slider above the graph takes


def summary(entry):
    """The numbers beside the graph."""
    result = entry.result
    graph = result.graph
    cpdag = graph.cpdag()
    st.metric(f"Score ({state.score_label(result.score_name, result.params.get('ess'))})", f"{result.score:,.2f}",
              help=f"exactly {result.score!r} (natural log, higher is better)")
    data = views.data_for(entry)[0]
    if em_view.run_of(result) is not None:
        st.caption("Its expected score: on the rows completed under this network (structural EM).")
    elif data is not None and state.has_blanks(data):
        st.caption(f"On the {state.complete_count(data):,} rows without a blank cell.")
    st.metric("Edges", graph.n_edges, help=f"{len(cpdag.arcs())} compelled, {len(cpdag.links())} reversible")
    st.metric("DAGs in its class", f"{cpdag.n_dags():,}",
             help="Markov equivalent DAGs: same skeleton and v-structures; they fit every data set equally well. "
                  f"Its RPDAG class (same skeleton and head-to-head patterns, Acid & de Campos 2003) holds "
                  f"{graph.rpdag().n_dags():,}.")
    if result.stats.get("stopped"):
        text = views.stopped_text(result)
        st.caption(text[:1].upper() + text[1:] + ".")
    if not entry.on_data_in_use() and result.algorithm != "ground truth":
        st.caption("Learned on other data than the data in use.")


def class_browser(entry, positions, most):
    graph = entry.result.graph
    cpdag = graph.cpdag()
    total = cpdag.n_dags()
    shown = min(total, CLASS_BROWSE_LIMIT)
    if shown > 1:
        k = st.slider(f"DAG number (of {total:,}" + (f"; the first {shown:,} can be browsed" if total > shown
                                                      else "") + ")", 1, shown, 1, key="net_class_index")
        most -= SLIDER_HEIGHT  # the slider sits above the graph: the graph's bottom row stays in the window
    else:
        k = 1
    dag = next(itertools.islice(cpdag.dags(), k - 1, None))
    scorer = views.entry_scorer(entry)
    score = scorer.total(dag) if scorer is not None else None
    drawing = viz.pdag_drawing(dag, node_titles=views.node_titles(entry),
                               title=f"{entry.name} — DAG {k} of its class")
    note = (f" Its {state.score_label(entry.result.score_name, entry.result.params.get('ess'))} score is {score:,.4f}" + (
        " — the same for every DAG of the class, since this score is score-equivalent."
        if SCORES[entry.result.score_name].equivalent
        else " — this score is not score-equivalent, so equivalent DAGs can score differently.")) if score is not None else ""
    show_graph(drawing, positions,
               f"One of the {total:,} DAGs Markov equivalent to {entry.name}: same skeleton and v-structures, "
               f"only the reversible edges point differently.{note}", width=GRAPH_WIDTH, most=most)
    return drawing


def graph_with_numbers(entry, view):
    """A structural view (DAG, RPDAG, CPDAG, a DAG of the class) beside the network's numbers."""
    graph_column, side = st.columns([3, 1])
    with side:  # the controls first, so that they are in a 720-pixel window above the numbers' notes
        colour = st.checkbox("Colour by local score", key=state.KEEP + "net_colour", disabled=view != "DAG",
                             help="Fill colour on one scale from the lowest (dark) to the highest (yellow) local "
                                  "score; hover a node for the exact value.")
        tall = st.toggle("Tall picture", key=state.KEEP + "net_tall",
                         help="Off: the graph fits a 1280 × 720 window (a projector) and is scaled down to fit; "
                              "on: up to 900 pixels tall, for large networks on a large screen.")
        relayout = st.button("Re-arrange the nodes", key="net_relayout",
                             help="Every view and comparison of these variables uses the same positions; this "
                                  "computes them again from the network shown.")
        summary(entry)
    names = entry.result.names
    if relayout:
        state.reset_layout(names, entry.result.graph)
    positions = state.positions(names, entry.result.graph)
    with graph_column:
        if view == "class":
            drawing = class_browser(entry, positions, GRAPH_HEIGHT[tall])
        else:
            drawing = views.drawing(entry, view, colour_nodes=colour)
            show_graph(drawing, positions, views.caption(entry, view, views.contributions(entry)),
                       width=GRAPH_WIDTH, most=GRAPH_HEIGHT[tall])
    return drawing, positions


def page():
    st.title("4 · Networks")
    data_status()
    entries = views.entries()
    if not entries:
        st.info("No network yet: run a search on the Search page, or import a saved result below.")
        with st.expander("Import a saved result (JSON) or a network file"):
            import_results("net_import")
        return
    names = list(entries)
    top_left, top_right = st.columns([2, 3])
    with top_left:
        entry = entries[pick_one("Network", names, "net_pick_box", views.shown_first(entries), views.pick,
                                 format_func=views.label(entries))]
    view = top_right.radio("View", list(VIEW_LABELS), format_func=VIEW_LABELS.get, horizontal=True,
                           key=state.KEEP + "net_view")
    if view in ("ask", "edit"):
        positions = state.positions(entry.result.names, entry.result.graph)
        render = ask.render if view == "ask" else edit_view.render
        shown = render(entry, positions, GRAPH_HEIGHT[bool(st.session_state.get(state.KEEP + "net_tall"))])
    else:
        shown = graph_with_numbers(entry, view)
    if shown is not None:  # else the network cannot be asked (the reason is on the page): import another
        drawing, positions = shown
        st.markdown("**Export this picture and network**")
        export_buttons(entry, drawing, positions, key=f"net-export-{entry.name}-{view}")
        for section in SECTIONS:
            if section.applies(entry):
                st.divider()
                st.subheader(section.title)
                section.render(entry, positions)
    st.divider()
    with st.expander("Import a saved result (JSON) or a network file"):
        import_results("net_import")


run_page(page, "the Networks page")
