"""3 · Search: run searches in the background with live progress; replay a run step by step."""

import altair as alt
import pandas as pd
import streamlit as st

from bnexplore import viz
from bnexplore_app import knowledge_ui, replay, state
from bnexplore_app.algorithms import SearchInput, available
from bnexplore_app.errors import error_boundary
from bnexplore_app.jobs import SearchJob, Task
from bnexplore_app.page import run_page
from bnexplore_app.widgets import data_status, pick_one, results_table, show_chart, show_graph

POLL_SECONDS = 0.5
SPEEDS = (0.5, 1.0, 2.0, 3.0, 5.0)
HIGHLIGHT = "#d81b60"
MANY_VARIABLES = 100  # from this many variables ASOBS is the default (issue 16's benchmark, 223-1,041 variables)
DELETED = "#f8bbd0"


def collect():
    """Move the results of a finished background job into the session's results.

    What happened (finished, stopped, failed) is kept in the session and shown
    until the next run; it names the results as they are kept.
    """
    job = st.session_state.get("job")
    if job is not None and not job.running and not job.collected:
        job.collected = True
        notes = []
        kept = []
        for task, result, extras in job.results:
            entry = state.add_result(task.name, result, **task.context)
            entry.cache.update(extras)
            kept.append((entry.name, result.stats.get("stopped")))
        for task, message in job.errors:
            notes.append(("error", f"{task.label}: {message}"))
        if kept:
            stopped = [name for name, reason in kept if reason]
            notes.append(("success", f"Finished: {', '.join(name for name, _ in kept)}."
                          + (f" Stopped early ({', '.join(stopped)}): the best network found so far is kept."
                             if stopped else "")
                          + (" Open it on the Networks page." if len(kept) == 1 else
                             " Open them on the Networks page; the last is shown there first.")))
        st.session_state["search_notes"] = notes
    for kind, text in st.session_state.get("search_notes", []):
        (st.error if kind == "error" else st.success)(text)


def start(algorithms, options, time_limit):
    """Start the chosen searches in a background thread."""
    settings = dict(st.session_state["settings"])
    table = st.session_state["table"]
    options_of_data, columns = st.session_state["encoder_options"]
    knowledge = knowledge_ui.knowledge()
    inputs = SearchInput(state.dataset(), settings, st.session_state.get("class_column"), table.frame[columns],
                         options_of_data["discretize"], knowledge)
    where = {"data": inputs.dataset, "data_key": st.session_state["data_key"],
             "data_label": st.session_state["data_label"]}
    tasks = []
    for alg in algorithms:
        opts = options[alg.key]
        name = state.result_name(alg.key, alg.settings_text(settings, opts), st.session_state["data_short"])
        tasks.append(Task(name, alg.label, lambda control, alg=alg, opts=opts: alg.run(inputs, opts, control),
                          where, traced=not alg.own_score))
    st.session_state["search_notes"] = []
    st.session_state["job"] = SearchJob(tasks, time_limit).start()


def trace_chart(job):
    """Best score so far against time, one line per search; for an exact search also its proven bound."""
    reports = job.trace()
    if not reports:
        return
    frame = pd.DataFrame(reports)
    frame["best"] = frame.groupby("task")["score"].cummax()
    lines = [frame.assign(line="best found", value=frame["best"])]
    if "bound" in frame and frame["bound"].notna().any():
        lines.append(frame.assign(line="proven upper bound", value=frame["bound"]))
    frame = pd.concat(lines).dropna(subset=["value"])
    chart = alt.Chart(frame).mark_line(point=True, interpolate="step-after").encode(  # held until improved
        x=alt.X("seconds:Q", title="time since the search started (s)"),
        y=alt.Y("value:Q", title="score", scale=alt.Scale(zero=False)),
        color=alt.Color("task:N", title="search", legend=alt.Legend(orient="bottom", columns=2, labelLimit=600)),
        strokeDash=alt.StrokeDash("line:N", legend=None,  # the caption says what the dashes are
                                  scale=alt.Scale(domain=["best found", "proven upper bound"], range=[[1, 0], [6, 4]])),
        tooltip=[alt.Tooltip("task:N", title="search"), alt.Tooltip("line:N", title="line"),
                 alt.Tooltip("seconds:Q", format=".2f", title="s"), alt.Tooltip("value:Q", format=".6f", title="score"),
                 alt.Tooltip("iteration:Q", title="step")],
    )
    own = [task.name for task in job.tasks if not task.traced]
    apart = (f" Not drawn: {', '.join(own)}, whose score is on another scale (its path is on the Networks page)."
             if own else "")
    bound = (" Dashed: the proven upper bound of an exact search by branch and cut: no network scores above it, so "
             "the best network found is within the gap between the two lines of the optimum, and optimal once they "
             "meet." if len(lines) > 1 else "")
    show_chart(chart, "Best score found so far (natural log, higher is better)",
               "Each line is one search: the best score it has reached so far, against time. Hill climbing rises "
               "quickly and flattens at a local optimum." + bound + apart, height=320)


def live_panel():
    """Progress, Stop button and score trace of the current job (polled while it runs)."""
    with error_boundary("the search progress"):
        job = st.session_state.get("job")
        if job is None:
            return
        if job.running:
            last = job.latest() or {}
            current = job.current  # read once: the thread sets it to None when it ends
            task = current.name if current else "starting"
            seconds = last.get("seconds", 0.0)
            done = last.get("done")
            if done is None and job.time_limit:
                done = seconds / job.time_limit
            score, bound, found = last.get("score"), last.get("bound"), last.get("found")
            text = (f"{task} · step {last.get('iteration') or 0} · "
                    + (f"best score {score:,.2f} · " if score is not None else "")
                    + (f"proven bound {bound:,.2f} (gap {bound - score:,.2f}) · "
                       if bound is not None and score is not None else "")
                    + (f"{found:,} credible networks found · " if found is not None else "")
                    + f"{seconds:.1f} s" + (f" of at most {job.time_limit:g} s" if job.time_limit else ""))
            st.progress(min(max(done or 0.0, 0.0), 1.0), text=text)
            st.button("Stop", on_click=job.stop.set, key="search_stop", type="primary",
                      help="Stop now; the best network found so far is kept.")
        elif not job.collected:
            st.rerun()
        trace_chart(job)


def run_section():
    st.subheader("Run")
    choices = available(bool(st.session_state.get("class_column")))
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
                  + " — change them on the Tune page. Results are named by algorithm, score and data "
                  f"(*{st.session_state['data_short']}*).")
    job = st.session_state.get("job")
    busy = job is not None and job.running
    if st.button("Run", type="primary", disabled=busy or not picked, key="search_run"):
        start([choices[k] for k in picked], options, float(time_limit))
    fragment = st.fragment(run_every=POLL_SECONDS if st.session_state["job"] is not None
                           and st.session_state["job"].running else None)(live_panel)
    fragment()


def replay_drawing(before, after, step, title):
    """The graph after a step, the pairs the step changed highlighted (a deleted edge in light pink)."""
    drawing = viz.pdag_drawing(after, title=title)
    if step is None:
        return drawing
    touched = replay.changed_pairs(step)
    for edge in drawing.edges:
        if frozenset((edge.u, edge.v)) in touched:
            edge.color, edge.width = HIGHLIGHT, 6.0
    names = before.names
    removed = [(names[u], names[v]) for u, v in before.edges() if not after.adjacent(u, v)]
    for u, v in removed:
        drawing.edges.append(viz.EdgeStyle(u, v, directed=False, color=DELETED, width=4.0,
                                           title=f"{u} — {v} was just deleted", kind="just deleted"))
    drawing.legend.append(viz.LegendItem("changed in this step", HIGHLIGHT))
    if removed:
        drawing.legend.append(viz.LegendItem("deleted in this step", DELETED, directed=False))
    return drawing


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


def replay_frame(entry):
    """The step slider, the step's description and the graph; advances by itself while playing."""
    trajectory = entry.result.trajectory
    total = len(trajectory)
    if st.session_state.get("replay_playing"):
        st.session_state["replay_step"] = min(st.session_state.get("replay_step", 0) + 1, total)
    k = st.slider("Step", 0, total, key="replay_step")
    if k == 0:
        st.markdown(f"**Start:** the empty graph. {total} steps follow.")
    else:
        st.markdown(f"**Step {k} of {total}:** {replay.describe(trajectory[k - 1])}")
    graphs = replay_graphs(entry)
    drawing = replay_drawing(graphs[max(k - 1, 0)], graphs[k], trajectory[k - 1] if k else None,
                             f"{entry.name} after step {k} of {total}")
    rpdag_note = (" In an RPDAG run, dashed lines are links (undirected) and the state letter says which case "
                  "of the paper's Table 1 the pair was in." if replay.kind(entry.result) == "rpdag" else "")
    show_graph(drawing, state.positions(entry.result.names, entry.result.graph),
               "The network after this step; what the step changed is drawn thick in magenta, an edge it deleted "
               "in light pink. Nodes stay in the same place at every step." + rpdag_note, most=420)
    if st.session_state.get("replay_playing") and k >= total:
        st.session_state["replay_playing"] = False
        st.rerun()  # the whole page, so the timer stops and the button says Play again


def teaching_section():
    st.subheader("Teaching mode: replay a search step by step")
    entries = {name: e for name, e in st.session_state["results"].items() if replay.kind(e.result)}
    if not entries:
        st.info("Run hill climbing, tabu search or an RPDAG search (without restarts) above; its steps can then "
                "be replayed here.")
        return
    chosen = replay_pick(entries)
    left, right = st.columns([3, 2])
    with left:
        name = pick_one("Search to replay", list(entries), "replay_result", chosen,
                        lambda picked: st.session_state.update(replay_pick=picked))
    entry = entries[name]
    total = len(entry.result.trajectory)
    if st.session_state.get("replay_for") != name:
        st.session_state["replay_for"] = name
        st.session_state["replay_step"] = 0
        st.session_state["replay_playing"] = False
    playing = st.session_state.get("replay_playing", False)
    speed = right.select_slider("Seconds per step while playing", SPEEDS, value=1.0, key=state.KEEP + "replay_speed")
    a, b, c, _ = st.columns([1, 1, 1, 4])
    a.button("◀ Previous", on_click=step_by, args=(-1, total), key="replay_prev")
    b.button("⏸ Pause" if playing else "▶ Play", on_click=toggle_play, args=(total,), key="replay_play",
             type="primary", help="Step through the search by itself, one step every few seconds.")
    c.button("Next ▶", on_click=step_by, args=(1, total), key="replay_next")
    st.fragment(run_every=float(speed) if playing else None)(replay_frame)(entry)


def page():
    st.title("3 · Search")
    data_status()
    collect()
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
