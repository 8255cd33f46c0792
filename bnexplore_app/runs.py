"""Searches started from a page: building their tasks, the job on each data set, and keeping their results.

The Search page starts the searches the user picks; the Compare page starts every
registered search at once. Both start a :class:`bnexplore_app.jobs.SearchJob`
with :func:`start`, keep the last job on each data set (:func:`kept_jobs`), draw
its progress with :func:`progress_text` and move its results into the session
once it ends (:func:`collect`), so a run started on one page is shown and kept
on the other.
"""

import streamlit as st

from bnexplore_app import jobs, knowledge_ui, state, views, warmup
from bnexplore_app.algorithms import SearchInput
from bnexplore_app.jobs import SearchJob, Task


def kept_jobs():
    """The last job on each data set, by data key (the data in use's is shown; the others one click away)."""
    return st.session_state.setdefault("search_jobs", {})


def collect(job):
    """Move the results of a finished background job into the session's results, once.

    What happened (finished, stopped, failed) is kept on the job and shown with
    it until the next run on the same data; it names the results as they are kept.
    """
    if job.running or job.collected:
        return
    job.collected = True
    notes, kept = [], []
    for task, result, extras in job.results:
        if job.compile_seconds:
            result.stats["seconds_compiling"] = (job.compile_seconds  # apart: never in the search's seconds
                                                 + result.stats.get("seconds_compiling", 0.0))
        entry = state.add_result(task.name, result, **task.context)
        entry.cache.update(extras)
        kept.append((entry.name, result))
    for task, message in job.errors:
        notes.append(("error", f"{task.label}: {message}"))
    if not job.results and not job.errors and job.stop.is_set():
        notes.append(("info", "Stopped before the search started: nothing to keep."))
    if kept:
        stopped = [(name, result) for name, result in kept if result.stats.get("stopped")]
        bounded = "".join(f" {name}: {views.stopped_text(result)}." for name, result in stopped
                          if result.stats.get("bound") is not None)  # how close to the optimum it is proven
        timed = [name for name, result in stopped if views.ended_at_time_limit(result)]
        by_user = [name for name, _ in stopped if name not in timed]
        notes.append(("success", f"Finished: {', '.join(name for name, _ in kept)}."
                      + (f" Stopped early ({', '.join(by_user)}): the best network found so far is kept."
                         if by_user else "")
                      + (f" Ended at the time limit ({', '.join(timed)}): the best network found by then is kept."
                         if timed else "")
                      + bounded
                      + (" Open it on the Networks page." if len(kept) == 1 else
                         " Open them on the Networks page; the last is shown there first.")))
    job.notes = notes


def show_notes(job):
    for kind, text in job.notes:
        {"error": st.error, "info": st.info}.get(kind, st.success)(text)


def session_alive():
    """``alive()`` for this browser session: False once Streamlit no longer has it connected
    (always True outside a running server, e.g. in tests)."""
    from streamlit import runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx()
    if context is None or not runtime.exists():
        return lambda: True
    session_id = context.session_id
    return lambda: not runtime.exists() or runtime.get_instance().is_active_session(session_id)


def start(chosen, options, time_limit, em=None):
    """Start the chosen searches in a background thread (they queue for the fast core and a server slot).

    ``em``: structural EM's options (``em_iterations``, ``completions``) for data that keep blank cells; the
    searches then learn by structural EM, and their names say so."""
    settings = dict(st.session_state["settings"])
    table = st.session_state["table"]
    options_of_data, columns = st.session_state["encoder_options"]
    knowledge = knowledge_ui.knowledge()
    inputs = SearchInput(state.dataset(), settings, st.session_state.get("class_column"), table.frame[columns],
                         options_of_data["discretize"], knowledge, options_of_data, em)
    by_em = state.has_blanks(inputs.dataset)
    where = {"data": inputs.dataset, "data_key": st.session_state["data_key"],
             "data_label": st.session_state["data_label"]}
    tasks = []
    for alg in chosen:
        opts = options[alg.key]
        name = state.result_name(f"{alg.key} · structural EM" if by_em else alg.key,
                                 alg.settings_text(settings, opts), st.session_state["data_short"])
        tasks.append(Task(name, alg.label, lambda control, alg=alg, opts=opts: alg.run(inputs, opts, control),
                          where, traced=not alg.own_score and not by_em, algorithm=alg.key, em=by_em))
    job = SearchJob(tasks, time_limit, where["data_key"], where["data_label"], ready=warmup.CORE.ready,
                    slots=jobs.server_slots(), alive=session_alive()).start()
    jobs.REAPER.watch(job)
    st.session_state["job"] = job
    kept_jobs()[job.data_key] = job


def progress_text(job):
    """The progress bar's fraction and text for a job in its present phase."""
    if job.phase == "starting":
        return 0.0, "Starting…"
    if job.phase == "compiling":
        return warmup.CORE.done, ("Waiting: compiling the fast core (once for this server, "
                                  f"{warmup.CORE.done:.0%} done). The search starts after it; that time is not "
                                  "counted in its seconds.")
    if job.phase == "waiting":
        ahead = job.ahead()
        return 0.0, (f"Waiting: {ahead} search{'es' if ahead != 1 else ''} ahead on this server (at most "
                     f"{job.slots.capacity} run at once); this one starts by itself when a place is free.")
    last = job.latest() or {}
    current = job.current  # read once: the thread sets it to None when it ends
    task = current.name if current else "starting"
    seconds = last.get("seconds", 0.0) if last.get("task") == task else 0.0
    done = last.get("done")
    if done is None and job.time_limit:
        done = seconds / job.time_limit
    score, bound, found = last.get("score"), last.get("bound"), last.get("found")
    step = last.get("iteration")
    numbers = score is not None or bound is not None or found is not None
    what = (f"step {step} · " if step is not None else  # else what the search says, unless its numbers say it
            "" if numbers else f"{last.get('message') or 'starting'} · ")
    text = (f"{task} · {em_text(job, task)}{what}"
            + (f"best score {score:,.2f} · " if score is not None else "")
            + (f"proven bound {bound:,.2f} (gap {bound - score:,.4g}) · "
               if bound is not None and score is not None else "")
            + (f"{found:,} credible networks found · " if found is not None else "")
            + f"{seconds:.1f} s" + (f" of at most {job.time_limit:g} s" if job.time_limit else ""))
    return min(max(done or 0.0, 0.0), 1.0), text


def em_text(job, task):
    """Where a structural EM run is: its last finished iteration and observed-data log-likelihood, and the one under
    way ("" for other runs)."""
    report = next((r for r in reversed(job.snapshot()) if r["task"] == task and r.get("em")), None)
    if report is None:
        return ""
    last = report["em"][-1]
    return (f"EM iteration {last['iteration']} done, log-likelihood {last['log_likelihood']:,.2f}; now iteration "
            f"{report['iteration']} · ")
