"""3 · Search: run searches in the background with live progress; replay a run step by step."""

import altair as alt
import pandas as pd
import streamlit as st

from bnexplore.search import SEARCHES
from bnexplore.search.registry import EM_OPTIONS
from bnexplore_app import em_view, knowledge_ui, replay, state, views
from bnexplore_app.algorithms import available, not_on_blanks
from bnexplore_app.errors import error_boundary
from bnexplore_app.page import run_page
from bnexplore_app.runs import collect, kept_jobs, progress_text, show_notes, start
from bnexplore_app.widgets import data_status, pick_one, results_table, show_chart, show_graph

POLL_SECONDS = 0.5
SPEEDS = (0.5, 1.0, 2.0, 3.0, 5.0)
MANY_VARIABLES = 100  # from this many variables ASOBS is the default (issue 16's benchmark, 223-1,041 variables)


# what the line of each search shows, for the chart's caption
TRACE_TEXT = {
    "hc": "Hill climbing rises quickly and flattens at a local optimum.",
    "tabu": "Tabu search keeps moving past local optima (the line holds the best graph seen).",
    "rpdag": "RPDAG search climbs over equivalence classes, so it wastes no steps on equivalent DAGs.",
    "rpdag-tabu": "Tabu search over RPDAGs keeps moving past local optima.",
    "asobs": "ASOBS starts from hill climbing, then improves in jumps as new orderings beat the best.",
    "obs": "OBS starts from hill climbing, then improves in jumps as new orderings beat the best.",
    "exact": "The exact search has no path to draw: it reports the optimum at its end (by branch and cut, "
             "also the best network and the proven bound while it runs).",
    "credible": "The credible set first finds the optimum exactly, then collects the networks near it.",
    "bootstrap": "The bootstrap's line is the score of the averaged network, at its end.",
}
FEW_POINTS = 3  # below this many points in time per search the trace is a table, not a chart of dots


def time_unit(longest):
    """Unit and factor for a time axis whose longest value is ``longest`` seconds: ms, s or min."""
    if longest < 2.0:
        return "ms", 1000.0
    if longest < 180.0:
        return "s", 1.0
    return "min", 1 / 60.0


def trace_frame(job):
    """The job's score points as a frame: ``task``, ``seconds``, ``score``, ``bound``, ``best`` (the
    best score so far of each search), numbers as floats (None becomes NaN)."""
    frame = pd.DataFrame(job.trace(), columns=["task", "seconds", "score", "bound", "iteration"])
    for column in ("seconds", "score", "bound", "iteration"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype("float64")
    frame["best"] = frame.groupby("task")["score"].cummax()
    return frame


def trace_table(frame, job):
    """Few points per search: one row each (best score, proven bound, gap, seconds), where dots would say nothing."""
    rows = []
    for task in job.tasks:
        points = frame[frame["task"] == task.name]
        if points.empty:
            continue
        best = points["best"].max()
        bound = points["bound"].dropna()
        bound = bound.iloc[-1] if len(bound) else None
        reached = points.loc[points["best"] == best, "seconds"]  # when the best was first reached, not the run's end
        rows.append({"search": task.name, "best score": best, "proven upper bound": bound,
                     "gap": None if bound is None or pd.isna(best) else max(0.0, bound - best),
                     "best found at (s)": reached.iloc[0] if len(reached) else None})
    st.markdown("**Best score found (natural log, higher is better)**")
    st.table(pd.DataFrame(rows).style.format({"best score": "{:.4f}", "proven upper bound": "{:.4f}", "gap": "{:.4g}",
                                              "best found at (s)": "{:.3f}"}, na_rep="—"), border="horizontal")
    st.caption("Too few points in time for a line: each search's best score, with the proven upper bound of an "
               "exact search (no network scores above it; a gap of 0 means proven optimal). " + trace_about(job))


def trace_about(job):
    """What the lines of the searches in ``job`` show, and which searches are not drawn."""
    shown = [task for task in job.tasks if task.traced]
    about = " ".join(dict.fromkeys(TRACE_TEXT[t.algorithm] for t in shown if t.algorithm in TRACE_TEXT))
    own = [task.name for task in job.tasks if not task.traced and not task.em]
    apart = (f" Not drawn: {', '.join(own)}, whose score is on another scale (its path is on the Networks page)."
             if own else "")
    return about + apart


def trace_chart(job):
    """Best score so far against time from 0, one line per search; for an exact search by branch and cut
    also its proven upper bound (dashed). With too few points, a table instead."""
    frame = trace_frame(job)
    if frame.empty or frame[["best", "bound"]].isna().all().all():
        return
    if frame.groupby("task")["seconds"].nunique().max() < FEW_POINTS:
        trace_table(frame, job)
        return
    unit, factor = time_unit(frame["seconds"].max())
    frame["time"] = frame["seconds"] * factor
    lines = [frame.assign(line="best found", value=frame["best"])]
    bounded = frame["bound"].notna().any()
    if bounded:
        lines.append(frame.assign(line="proven upper bound", value=frame["bound"]))
    frame = pd.concat(lines).dropna(subset=["value"])
    chart = alt.Chart(frame).mark_line(point=True, interpolate="step-after").encode(  # held until improved
        x=alt.X("time:Q", title=f"time since the search started ({unit})", scale=alt.Scale(domainMin=0)),
        y=alt.Y("value:Q", title="score", scale=alt.Scale(zero=False)),
        color=alt.Color("task:N", title="search", legend=alt.Legend(orient="bottom", columns=2, labelLimit=600)),
        strokeDash=alt.StrokeDash("line:N", legend=None,  # the caption says what the dashes are
                                  scale=alt.Scale(domain=["best found", "proven upper bound"], range=[[1, 0], [6, 4]])),
        tooltip=[alt.Tooltip("task:N", title="search"), alt.Tooltip("line:N", title="line"),
                 alt.Tooltip("time:Q", format=".3~f", title=unit), alt.Tooltip("value:Q", format=".6f", title="score"),
                 alt.Tooltip("iteration:Q", title="step")],
    )
    bound = (" Dashed: the proven upper bound of an exact search by branch and cut: no network scores above it, so "
             "the best network found is within the gap between the two lines of the optimum, and optimal once they "
             "meet."
             if bounded else "")
    show_chart(chart, "Best score found so far (natural log, higher is better)",
               "Each line is one search: the best score it has reached so far, against the time since it started "
               "(compiling the fast core is not counted). " + trace_about(job) + bound, height=320)


def live_panel():
    """Progress, Stop button and score trace of the job on the data in use (polled while it runs)."""
    with error_boundary("the search progress"):
        job = shown_job()
        if job is None:
            return
        if job.data_key != st.session_state["data_key"]:
            st.caption(f"Running on **{job.data_label}**, not the data in use; its results will be kept under "
                       "their names.")
        if job.running:
            done, text = progress_text(job)
            st.progress(done, text=text)
            st.button("Stop", on_click=job.stop.set, key="search_stop", type="primary",
                      help="Stop now; the best network found so far is kept.")
        elif not job.collected:
            st.rerun()
        else:
            show_notes(job)
        trace_chart(job)
        em_view.job_section(job)
        if not job.running:
            for entry in [e for e in st.session_state["results"].values()
                          for _, result, _ in job.results if e.result is result and em_view.run_of(result)]:
                em_view.download_completed(entry, f"search-completed-{entry.name}")


def shown_job():
    """The job the panel shows: a running one (on whatever data), else the last one on the data in use."""
    job = st.session_state.get("job")
    if job is not None and job.running:
        return job
    return kept_jobs().get(st.session_state["data_key"])


def other_jobs_section():
    """The last search on each other data set, one click away and labelled with its data."""
    shown = shown_job()
    others = [job for key, job in kept_jobs().items() if job is not shown and key != st.session_state["data_key"]]
    for job in others:
        with st.expander(f"Last search on other data: {views.other_data_named(job.data_label)}"):
            show_notes(job)
            trace_chart(job)


def em_section():
    """On data that keep blank cells: which searches learn from them (by structural EM) and which not, and
    structural EM's own options. Returns those options (None on complete data)."""
    data = state.dataset()
    if not state.has_blanks(data):
        return None
    left_out = not_on_blanks(bool(st.session_state.get("class_column")))
    st.info(f"The data keep {data.n_blank:,} blank cells (*Missing values: em* on the Data page): the searches "
            "below learn from every row by structural EM (Friedman 1998), each iteration completing the blanks by "
            "the current network and searching on the completed rows.")
    if left_out:
        st.caption("Not offered: " + "; ".join(f"{', '.join(labels)} ({why})" for why, labels in left_out.items())
                   + ". To run them on the rows without a blank cell, choose *Missing values: drop* on the Data page.")
    values = {}
    for column, option in zip(st.columns(len(EM_OPTIONS)), EM_OPTIONS):
        low, high, start = option.widget
        values[option.name] = int(column.number_input(option.label, low, high, start, help=option.help,
                                                      key=f"{state.KEEP}search_em_{option.name}"))
    return values


def run_section():
    st.subheader("Run")
    em = em_section()
    choices = available(bool(st.session_state.get("class_column")), em is not None)
    key = state.KEEP + "search_algorithms"
    if key in st.session_state:  # kept from an earlier visit: only what can run on these data
        st.session_state[key] = [k for k in st.session_state[key] if k in choices]
    many = state.dataset().n_vars >= MANY_VARIABLES and "asobs" in choices
    default = ["asobs"] if many else ["hc"] if "hc" in choices else []
    picked = st.multiselect("Algorithms", list(choices), default=default,
                            format_func=lambda k: choices[k].label, key=key)
    if many:
        st.caption(f"{state.dataset().n_vars} variables: ASOBS is the default here. Seeded by hill climbing, it "
                   "scored above hill climbing with restarts given the same time on every network of 223 to "
                   "1,041 variables we benchmarked (andes, diabetes, pigs, link, munin).")
    options = {}
    for name in picked:
        alg = choices[name]
        with st.expander(f"{alg.label}: options"):
            st.caption(alg.about)
            options[name] = alg.options(f"{state.KEEP}search_{name}_") if alg.options else {}
    settings = st.session_state["settings"]
    left, right = st.columns([1, 2])
    time_limit = left.number_input("Time limit per search (s)", 1, 3600, 60, key=state.KEEP + "search_time_limit")
    known = knowledge_ui.knowledge()
    right.caption(f"Score **{state.score_label(settings['score'], settings.get('ess'))}**, at most "
                  f"**{settings['max_indegree']}** parents per node, Bayes factor {settings['bf']:g}"
                  + (f", knowledge: **{knowledge_ui.summary(known)}**" if known else "")
                  + f" — change them on the Tune page. Every search learns from the {state.dataset().n_rows:,} rows "
                  "in use; results are named by algorithm, score and data "
                  f"(*{st.session_state['data_short']}*)." + tests_only_note(picked))
    job = st.session_state.get("job")
    busy = job is not None and job.running
    if st.button("Run", type="primary", disabled=busy or not picked, key="search_run"):
        start([choices[k] for k in picked], options, float(time_limit), em)
    busy = st.session_state["job"] is not None and st.session_state["job"].running
    st.fragment(run_every=POLL_SECONDS if busy else None)(live_panel)()
    other_jobs_section()


def tests_only_note(picked):
    """A sentence on the picked searches that learn from independence tests alone (the registry's ``scored``)."""
    labels = [SEARCHES[name].label for name in picked if name in SEARCHES and not SEARCHES[name].scored]
    if not labels:
        return ""
    return (f" {' and '.join(labels)} learns from independence tests alone: the score only rates its network, "
            "and the bound on parents does not apply.")


def step_by(delta, total):
    st.session_state["replay_step"] = min(max(st.session_state.get("replay_step", 0) + delta, 0), total)
    st.session_state["replay_playing"] = False


def toggle_play(total):
    playing = not st.session_state.get("replay_playing", False)
    st.session_state["replay_playing"] = playing
    if playing and st.session_state.get("replay_step", 0) >= total:
        st.session_state["replay_step"] = 0  # play again from the start


def replay_graphs(entry):
    if "replay" not in entry.cache:
        entry.cache["replay"] = replay.graphs(entry.result)
    return entry.cache["replay"]


def replay_pick(entries):
    """The run to replay: the user's pick, or the newest replayable run after a new result."""
    names = list(entries)
    if st.session_state.get("replay_generation") != state.generation():
        st.session_state["replay_generation"] = state.generation()
        st.session_state["replay_pick"] = names[-1]
    if st.session_state.get("replay_pick") not in names:
        st.session_state["replay_pick"] = names[-1]
    return st.session_state["replay_pick"]


REPLAY_GRAPH_WIDTH = 600  # pixels of the replay's right-hand column at 1280 x 720
REPLAY_GRAPH_MOST = 480  # the heading, a legend of three lines and this much drawing fit a 720-pixel window


def replay_panel(entries, playing, speed):
    """The replay: its controls and the step in words in a narrow left column, the graph beside them, so
    that scrolled to its heading all of it is in view in a 1280 x 720 window; advances by itself while playing.

    Drawn as a fragment: Previous, Next, the step slider and the picker redraw only the replay. Play, Pause
    and a new speed change the fragment's timer (``playing``, ``speed``), so they rerun the whole page.
    """
    if st.session_state.get("replay_playing", False) != playing:
        st.rerun()
    controls, picture = st.container(key="replay_panel").columns([1, 2])
    with controls:
        name = pick_one("Search to replay", list(entries), "replay_result", replay_pick(entries),
                        lambda picked: st.session_state.update(replay_pick=picked),
                        format_func=views.label(entries))
        entry = entries[name]
        trajectory = entry.result.trajectory
        total = len(trajectory)
        if st.session_state.get("replay_for") != name:
            st.session_state["replay_for"] = name
            st.session_state["replay_step"] = 0
            st.session_state["replay_playing"] = False
            if playing:
                st.rerun()
        if playing:
            st.session_state["replay_step"] = min(st.session_state.get("replay_step", 0) + 1, total)
        st.button("Pause" if playing else "Play", icon=":material/pause:" if playing else ":material/play_arrow:",
                  on_click=toggle_play, args=(total,), key="replay_play", type="primary", width="stretch",
                  help="Step through the search by itself, one step every few seconds.")
        back, forward = st.columns(2)
        back.button("Previous", icon=":material/skip_previous:", on_click=step_by, args=(-1, total),
                    key="replay_prev", width="stretch")
        forward.button("Next", icon=":material/skip_next:", on_click=step_by, args=(1, total), key="replay_next",
                       width="stretch")
        k = st.slider("Step", 0, total, key="replay_step")
        replay_kind = replay.kind(entry.result)
        graphs = replay_graphs(entry)
        if k == 0:
            st.markdown(f"**Start:** {replay.start(entry.result)}. {total} steps follow.")
        else:
            step = trajectory[k - 1]
            words = replay.describe(step, graphs[k - 1], entry.result.params.get("test"), replay_kind)
            st.markdown(f"**Step {k} of {total}:** {words}", help=replay.source(step, replay_kind))
        if float(st.select_slider("Seconds per step while playing", SPEEDS, value=1.0,
                                  key=state.KEEP + "replay_speed")) != speed:
            st.rerun()  # the fragment's timer follows the new speed
    drawing = replay.drawing(graphs[max(k - 1, 0)], graphs[k], trajectory[k - 1] if k else None,
                             f"{entry.name} after step {k} of {total}", replay.allowed(entry.result, k))
    with picture:
        show_graph(drawing, state.positions(entry.result.names, entry.result.graph),
                   "The network after this step; what the step changed is drawn thick in magenta, an edge it "
                   "deleted in light pink. Nodes stay in the same place at every step." + replay.note(entry.result),
                   width=REPLAY_GRAPH_WIDTH, most=REPLAY_GRAPH_MOST)
    if playing and k >= total:
        st.session_state["replay_playing"] = False
        st.rerun()  # the whole page, so the timer stops and the button says Play again


def teaching_section():
    st.subheader("Teaching mode: replay a search step by step")
    every = {name: e for name, e in st.session_state["results"].items() if replay.kind(e.result)}
    here = {name: e for name, e in every.items() if e.on_data_in_use()}
    others = len(every) - len(here)
    if others:
        st.checkbox(f"Also runs on other data ({others})", key=state.KEEP + "replay_other_data",
                    help="Runs learned on other data sets than the data in use, labelled with their data.")
    entries = every if st.session_state.get(state.KEEP + "replay_other_data") else here
    if not entries:
        *first, last = replay.replayable()
        st.info(f"Run {', '.join(first)} or {last} (without restarts) above; its steps can then be replayed "
                "here." + (" Runs on other data: tick the box above." if others else ""))
        return
    playing = st.session_state.get("replay_playing", False)
    speed = float(st.session_state.get(state.KEEP + "replay_speed", 1.0))
    st.fragment(run_every=speed if playing else None)(replay_panel)(entries, playing, speed)


def page():
    st.title("3 · Search")
    data_status()
    for job in kept_jobs().values():
        collect(job)
    run_section()
    results = st.session_state["results"]
    st.subheader("Results")
    if results:
        results_table(results)
        st.caption("Every search you ran, kept under its name with its settings. Open them on the Networks page; "
                   "compare them on the Compare page.")
    else:
        st.info("No results yet: press Run.")
    st.divider()
    teaching_section()


run_page(page, "the Search page")
