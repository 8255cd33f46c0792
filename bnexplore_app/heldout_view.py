"""The Compare page's "Held-out likelihood" section: searches and networks judged on rows they never saw.

The user picks searches of the registry and networks of the session (those over
the data's variables), the folds and the seed; Run starts
:func:`bnexplore.heldout.cross_validate_networks` in a background
:class:`bnexplore_app.jobs.SearchJob` (progress and Stop as "Run every search"
has them), and once it ends the section shows each method's mean and standard
deviation, a box plot of its per-fold log-likelihood per row and the tidy table
of every fold. The searches use the Tune page's score, in-degree bound and
knowledge; the tables are fitted with its BDeu equivalent sample size.
"""

import math

import altair as alt
import pandas as pd
import streamlit as st

from bnexplore.graphs import DAG
from bnexplore.heldout import cross_validate_networks
from bnexplore.search import SEARCHES, expected_count_searches
from bnexplore_app import jobs, knowledge_ui, runs, state, views, warmup
from bnexplore_app.jobs import SearchJob, Task
from bnexplore_app.widgets import show_chart, text_column_width

MOST_FOLDS = 20
"""Most folds the widget offers: each fold runs every picked search once, and 20 is beyond what
cross-validation studies use (5 and 10 are the usual choices: Hastie, Tibshirani & Friedman 2009, 7.10)."""
POLL_SECONDS = 0.5  # how often the run's progress is drawn again
TASK = "held-out likelihood"


def given_networks(entries):
    """The session's networks a held-out likelihood can take as given: DAGs over exactly the data's variables."""
    names = sorted(state.dataset().names)
    return {name: entry for name, entry in entries.items()
            if isinstance(entry.result.graph, DAG) and sorted(entry.result.graph.names) == names}


def start(searches, networks, folds, seed):
    """Start the cross-validation of the picked searches and networks in a background job."""
    settings = dict(st.session_state["settings"])
    data = state.dataset()
    methods = {key: key for key in searches}
    for name, entry in networks.items():
        methods[name if name not in methods else f"{name} (network)"] = entry.result.graph
    indegree = settings.get("max_indegree") or None
    options = {"max_indegree": int(indegree) if indegree else None, "knowledge": knowledge_ui.knowledge()}

    def run(control):
        return cross_validate_networks(data, methods, folds=folds, seed=seed, ess=float(settings["ess"]),
                                       score=settings["score"], control=control, **options)

    task = Task(TASK, TASK, run, traced=False)
    job = SearchJob([task], None, st.session_state["data_key"], st.session_state["data_label"],
                    ready=warmup.CORE.ready, slots=jobs.server_slots(), alive=runs.session_alive()).start()
    jobs.REAPER.watch(job)
    st.session_state["cv_job"] = job


def panel():
    """Progress and Stop while the run goes on (polled); the whole page once it ends, to show the results."""
    job = st.session_state.get("cv_job")
    if job is None or job.data_key != st.session_state["data_key"]:
        return
    if job.running:
        done, text = runs.progress_text(job)
        st.progress(done, text=text)
        st.button("Stop", on_click=job.stop.set, key="cv_stop", type="primary",
                  help="Stop now: the folds finished are kept; a search cut short is left out.")
    elif not job.collected:
        st.rerun()


def section(entries):
    """The section: pickers, Run, progress, then the summary, the box plot and the table of the last run."""
    st.subheader("Held-out likelihood")
    data = state.dataset()
    job = st.session_state.get("cv_job")
    busy = job is not None and job.running
    if job is not None and not busy:
        job.collected = True  # shown below in this run: the panel need not rerun the page for it
    networks = given_networks(entries)
    left, middle, folds_col, seed_col, run_col = st.columns([4, 4, 1, 1, 1], vertical_alignment="bottom")
    blanks = state.has_blanks(data)
    able = expected_count_searches() if blanks else list(SEARCHES)
    kept = st.session_state.get(state.KEEP + "cv_searches")
    if kept is not None:  # searches picked on complete data that cannot learn from these blanks leave the pick
        st.session_state[state.KEEP + "cv_searches"] = [key for key in kept if key in able]
    searches = left.multiselect("Searches (learned on each training set)", able,
                                default=["hc"], key=state.KEEP + "cv_searches",
                                format_func=lambda key: f"{key}: {SEARCHES[key].label}")
    picked = middle.multiselect("Networks (taken as they are)", list(networks), key="cv_networks",
                                default=[name for name in networks if networks[name].result.algorithm ==
                                         "ground truth"], format_func=views.label(entries))
    folds = folds_col.number_input("Folds", 2, max(2, min(MOST_FOLDS, data.n_rows)), min(5, data.n_rows),
                                   key=state.KEEP + "cv_folds", help="k of k-fold cross-validation: each fold is "
                                   "the test set once, the other rows the training set")
    seed = seed_col.number_input("Seed", 0, 10**6, 1, key=state.KEEP + "cv_seed",
                                 help="seeds the folds (the same for every method) and the searches that take one")
    run_col.button("Run", key="cv_run", type="primary", disabled=busy or not (searches or picked),
                   on_click=start, args=(searches, {name: networks[name] for name in picked}, int(folds), int(seed)),
                   help="Learn each search on every training set, fit every network's tables there, and score the "
                        "held-out rows; in the background, one fold after the other.")
    st.fragment(run_every=POLL_SECONDS if busy else None)(panel)()
    st.caption(f"Each method's tables are fitted on the training rows with the BDeu prior (equivalent sample size "
               f"{float(st.session_state['settings']['ess']):g}, the Tune page's), so a state the training rows never "
               "show keeps some mass; the searches use the Tune page's score, in-degree bound and knowledge. Higher "
               "is better: the natural log of the held-out rows' probability, per row." + (
                   " The data keep blank cells: the searches learn by structural EM (so only those that can are "
                   "offered), the tables are fitted by EM, and a held-out row counts with the probability of its "
                   "observed cells." if blanks else ""))
    if job is None or busy or job.data_key != st.session_state["data_key"]:
        return
    for _, message in job.errors:
        st.error(f"Held-out likelihood: {message}")
    for _, result, _ in job.results:
        show(result)


def show(result):
    """The summary beside the box plot, the notes, and the table of every fold."""
    for note in result.notes:
        st.info(note[0].upper() + note[1:] + ".")
    table = result.table()
    if table.empty:
        return
    summary = result.summary()
    left, right = st.columns([2, 3])
    with left:
        st.markdown(f"**Mean over {result.params['folds']} folds** (seed {result.params['seed']})")
        st.dataframe(summary, hide_index=True, width="stretch", column_config={
            "method": st.column_config.TextColumn(width=text_column_width(summary["method"]), pinned=True),
            "folds": st.column_config.NumberColumn(help="folds this method finished"),
            "mean": st.column_config.NumberColumn(format="%.4f", help="mean log-likelihood per held-out row"),
            "sd": st.column_config.NumberColumn(format="%.4f", help="its standard deviation over the folds")})
    with right:
        show_chart(box_plot(table), "Log-likelihood per held-out row, one point per fold",
                   "Each box spans a method's folds (the line: its median); the points are the folds. The same "
                   "folds for every method: compare them fold by fold in the table below.", height=260)
    st.dataframe(table, hide_index=True, width="stretch", column_config={
        "log_likelihood": st.column_config.NumberColumn("log-likelihood per row", format="%.4f"),
        "test_rows": st.column_config.NumberColumn("held-out rows"),
        "seconds": st.column_config.NumberColumn("training seconds", format="%.2f",
                                                 help="learning (a search) and fitting the tables on the training "
                                                      "rows")})


def box_plot(table):
    """A box per method of its per-fold log-likelihood per row, with the folds as points (finite ones: a
    fold of probability 0 is told in the notes)."""
    frame = table[[math.isfinite(v) for v in table["log_likelihood"]]]
    order = list(pd.unique(table["method"]))
    x = alt.X("method:N", title=None, sort=order, axis=alt.Axis(labelLimit=260, labelAngle=0))
    y = alt.Y("log_likelihood:Q", title="log-likelihood per row", scale=alt.Scale(zero=False))
    boxes = alt.Chart(frame).mark_boxplot(extent="min-max", size=40, opacity=0.5).encode(
        x=x, y=y, color=alt.Color("method:N", sort=order, legend=None))
    points = alt.Chart(frame).mark_point(filled=True, size=50, color="black").encode(
        x=x, y=y, tooltip=[alt.Tooltip("method:N"), alt.Tooltip("fold:Q"),
                           alt.Tooltip("log_likelihood:Q", format=".4f", title="log-likelihood per row")])
    return boxes + points
