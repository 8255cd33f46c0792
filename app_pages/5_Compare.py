"""5 · Compare: networks side by side and overlaid, with SHD and structural errors; every search of the
data in use in one table, beside the optimum and the truth, one click away; searches and networks judged by
their held-out likelihood (:mod:`bnexplore_app.heldout_view`).

Laid out for a projector: the pickers on two rows, the picture right under them (a 1280 x 720
window shows it whole), the table of numbers below it, then the table of every search, then the held-out
likelihood.
"""

import pandas as pd
import streamlit as st

from bnexplore import viz
from bnexplore.errors import BNExploreError
from bnexplore.graphs import DAG, shd, structural_errors
from bnexplore.search import SEARCHES
from bnexplore.search.registry import EM_OPTIONS
from bnexplore.search.engine import choose_engine
from bnexplore.search.scoreboard import EXACT_ALGORITHMS, covers, optimum_for, scoreboard_row
from bnexplore_app import heldout_view, knowledge_ui, runs, state, views
from bnexplore_app.algorithms import available, not_on_blanks
from bnexplore_app.errors import without_links
from bnexplore_app.page import run_page
from bnexplore_app.widgets import (data_status, file_stem, import_results, literal, pick_one, picture_buttons,
                                  show_graph, text_column_width)

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
    then the optimum is at least ``entry``'s score and the gap is true
    (:func:`bnexplore.search.scoreboard.covers`).
    """
    for other in entries.values():
        if entry.data_key is not None and other.data_key == entry.data_key and covers(other.result, entry.result):
            return other.result.score, other.name
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
               + (f" {views.BLANK_SCORES}" if state.has_blanks(state.dataset()) else "")
               + ("" if all(len(entry.result.names) == len(names) for entry in chosen) else
                  f" Edges, SHD and errors count only the edges between the {len(names)} shared variables; each "
                  "score is that of the whole network."))


# Most seconds each search of "Run every search" gets (less when the Search page's time limit is smaller): on
# data a class uses, every search ends well within it; on large data it keeps the whole run to minutes.
EVERY_SEARCH_SECONDS = 15.0
POLL_SECONDS = 0.5  # how often the run's progress is drawn again


def every_search(n_vars, time_limit):
    """The searches "Run every search" starts, and those it leaves out with the reason.

    Every search of the registry (:data:`bnexplore.search.SEARCHES`), with its options' defaults (seed 1, so
    a run can be repeated), except the exact search when the engine estimate the Tune page shows says it
    would not finish within ``time_limit``: the subset DP's time is known, branch and cut's is not.
    """
    blank = state.has_blanks(state.dataset())
    choices = available(False, blank)
    chosen, skipped = [], []
    if blank:
        skipped += [f"{', '.join(labels)} ({why}, and the data keep blank cells)"
                    for why, labels in not_on_blanks(False).items()]
    for key in SEARCHES:
        if key not in choices:
            continue
        if key == "exact":
            try:
                engine, reason, seconds = choose_engine(n_vars, task="optimum")
            except BNExploreError as error:
                skipped.append(f"the exact search ({error})")
                continue
            if seconds is None or seconds > time_limit:
                skipped.append(f"the exact search (it would run the {reason.split(':')[0]}, "
                               f"{'in a time no formula predicts' if seconds is None else 'too long'}: run it "
                               "on the Search page with a time limit of your choosing)")
                continue
        chosen.append(choices[key])
    return chosen, skipped


def seeded(key):
    """The options "Run every search" gives a search: seed 1 for each seed it takes, the defaults otherwise."""
    return {option.name: 1 for option in SEARCHES[key].options if option.kind == "seed"}


def every_time_limit():
    """Seconds each search of "Run every search" gets: the Search page's time limit, at most
    :data:`EVERY_SEARCH_SECONDS`."""
    limit = st.session_state.get("_kept", {}).get(state.KEEP + "search_time_limit", 60)
    return min(float(limit), EVERY_SEARCH_SECONDS)


def run_every_search():
    limit = every_time_limit()
    chosen, _ = every_search(state.dataset().n_vars, limit)
    kept = st.session_state.get("_kept", {})  # structural EM's options as the Search page has them
    em = {option.name: int(kept.get(f"{state.KEEP}search_em_{option.name}", option.default)) for option in EM_OPTIONS}
    runs.start(chosen, {alg.key: seeded(alg.key) for alg in chosen}, limit, em)


def every_panel():
    """Progress and Stop of a run on the data in use (polled while it runs); the page once it ends."""
    job = st.session_state.get("job")
    if job is None or job.data_key != st.session_state["data_key"]:
        return
    if job.running:
        done, text = runs.progress_text(job)
        st.progress(done, text=f"Search {min(len(job.results) + len(job.errors) + 1, len(job.tasks))} of "
                                f"{len(job.tasks)}: {text}")
        st.button("Stop", on_click=job.stop.set, key="cmp_stop", type="primary",
                  help="Stop now: the running search keeps its best network, the others do not start.")
    elif not job.collected:
        st.rerun()


def dash(value, form="{:.2f}"):
    """A number as the table writes it; "—" when it is not known (no optimum, no truth) or undefined (0/0)."""
    return "—" if value is None else form.format(value)


def scoreboard_frame(entries):
    """One row per network of the data in use (the ground truth included): the scoreboard's numbers, each
    gap taken from a finished exact search or credible set of these data that covers the network."""
    data_key, names = st.session_state["data_key"], sorted(state.dataset().names)
    here = [e for e in entries.values() if e.data_key == data_key and sorted(e.result.names) == names]
    truth = state.truth_for(names)
    truth = truth.dag() if truth is not None else None
    optima = [e.result for e in here if e.result.algorithm in EXACT_ALGORITHMS]
    bf = float(st.session_state["settings"]["bf"])
    rows = []
    for entry in here:
        row = scoreboard_row(entry.result, truth, optimum_for(entry.result, optima), bf)
        rows.append({"network": entry.name, "search": entry.result.algorithm,
                     "score function": state.score_label(entry.result.score_name, entry.result.params.get("ess")),
                     "score": entry.result.score, "gap": dash(row["gap"], "{:.4f}"),
                     f"credible (BF {bf:g})": {True: "yes", False: "no", None: "unknown"}[row["in_credible_set"]],
                     "SHD truth (CPDAGs)": dash(row["shd_truth"], "{}"),
                     "SHD optimum (CPDAGs)": dash(row["shd_optimum"], "{}"),
                     "adjacency precision": dash(row["adjacency_precision"]),
                     "adjacency recall": dash(row["adjacency_recall"]),
                     "arrowhead precision": dash(row["arrowhead_precision"]),
                     "arrowhead recall": dash(row["arrowhead_recall"])})
    return pd.DataFrame(rows), truth is not None, bool(optima), bf


def scoreboard_section(entries):
    """Every search of the data in use in one table, and the button that runs them all."""
    st.subheader("Every search on this data")
    job = st.session_state.get("job")
    busy = job is not None and job.running
    limit = every_time_limit()
    chosen, skipped = every_search(state.dataset().n_vars, limit)
    st.button("Run every search on this data", key="cmp_run_every", type="primary", disabled=busy,
              on_click=run_every_search,
              help="Runs each search of the Search page's list on the data in use, one after the other, with the "
                   "Tune page's score and settings; each result is kept like any other.")
    st.fragment(run_every=POLL_SECONDS if busy else None)(every_panel)()
    frame, known_truth, known_optimum, bf = scoreboard_frame(entries)
    if frame.empty:
        st.info("No network learned on the data in use yet.")
    else:
        scoreboard_table(frame, known_truth, known_optimum, bf)
        if state.has_blanks(state.dataset()):
            st.caption(views.BLANK_SCORES)
    st.caption(f"The button runs {', '.join(alg.key for alg in chosen)}, one after the other, at most {limit:g} s "
               f"each (the Search page's time limit, at most {EVERY_SEARCH_SECONDS:g} s): a search still running "
               "then stops and keeps its best network so far. Options are the searches' defaults, with seed 1."
               + (f" Left out: {'; '.join(skipped)}." if skipped else ""))
    if job is not None and not busy and job.collected and job.data_key == st.session_state["data_key"]:
        runs.show_notes(job)


def scoreboard_table(frame, known_truth, known_optimum, bf):
    """The table of every search (key columns first, so they are in view at 1280 px) and what it shows."""
    if frame["score function"].nunique() == 1:
        frame = frame.drop(columns="score function")
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        "network": st.column_config.TextColumn(width=text_column_width(frame["network"]), pinned=True),
        "score": st.column_config.NumberColumn(format="%.2f", help="natural log, higher is better"),
        "gap": st.column_config.TextColumn(help="the optimum's score minus this score (0 = optimal); — when no "
                                                "finished exact search on these data and score covers it"),
        f"credible (BF {bf:g})": st.column_config.TextColumn(
            help="its equivalence class is in the credible set: score ≥ optimum − ln BF (every DAG of a class "
                 "has the same score under a score-equivalent score); unknown without the optimum, or under K2"),
        "SHD truth (CPDAGs)": st.column_config.TextColumn(
            help="structural Hamming distance between its equivalence class (CPDAG) and the true one"),
        "SHD optimum (CPDAGs)": st.column_config.TextColumn(
            help="structural Hamming distance between its equivalence class (CPDAG) and the optimum's"),
        "adjacency precision": st.column_config.TextColumn(help="true adjacencies found / adjacencies found"),
        "adjacency recall": st.column_config.TextColumn(help="true adjacencies found / true adjacencies"),
        "arrowhead precision": st.column_config.TextColumn(
            help="arrowheads of its CPDAG that the true CPDAG has / arrowheads of its CPDAG (Tetrad's)"),
        "arrowhead recall": st.column_config.TextColumn(
            help="arrowheads of the true CPDAG that its CPDAG has / arrowheads of the true CPDAG"),
    })
    st.caption(f"Every network learned on the data in use. Gap and credible set at the Tune page's Bayes factor "
               f"{bf:g}" + ("" if known_optimum else " need the optimum: run the exact search (or a credible set)"
                            + (" on complete rows (*Missing values: drop*)" if state.has_blanks(state.dataset())
                               else ""))
               + ". SHD compares equivalence classes (CPDAGs); precision and recall count adjacencies and the "
               "arrowheads of the CPDAGs against the truth"
               + ("" if known_truth else ", known only when the data were drawn from a network (Data page)")
               + "; — where a number is unknown or 0/0.")


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
    for job in runs.kept_jobs().values():
        runs.collect(job)
    entries = views.entries()
    if len(entries) < 2:
        st.info("Compare needs two networks: run two searches (or one, when the ground truth is known), run every "
                "search below, or import a saved result below.")
    else:
        pair_section(entries)
    st.divider()
    scoreboard_section(entries)
    st.divider()
    heldout_view.section(entries)
    st.divider()
    with st.expander("Import a saved result (JSON) or a network file"):
        import_results("cmp_import")


def pair_section(entries):
    """Two networks (or more) picked, drawn and counted against the reference A."""
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
        data = (f"the same table ({literal(a.data_label)}) with different Data page settings" if a.data_label
                and a.data_label == b.data_label else
                f"different data ({literal(a.data_label or 'unrecorded')} and {literal(b.data_label or 'unrecorded')})")
        st.warning(f"{literal(a_name)} and {literal(b_name)} were learned on {data}: their edges can be compared, "
                   "their scores cannot.")
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


run_page(page, "the Compare page")
