"""What the app shows of a structural EM run: the observed-data log-likelihood per iteration, which
iteration was returned and why, and the completed (imputed) table to download.

A run on data that keep blank cells (the Data page's *Missing values: em*) is structural EM
(:func:`bnexplore.search.structural_em`); its result holds the iterations in ``extra["em"]``, and the
job's progress reports carry ``iteration`` and ``log_likelihood`` while it runs.
"""

import altair as alt
import pandas as pd
import streamlit as st

from bnexplore.em import impute
from bnexplore_app import views
from bnexplore_app.widgets import show_chart

CHART_HEIGHT = 250
"""Pixels of the chart: with its title, caption and the download button under it, it fits a 720-pixel window."""


def run_of(result):
    """The structural EM record of a result (``extra["em"]``), or None for a result of complete data."""
    em = (result.extra or {}).get("em")
    return em if isinstance(em, dict) and em.get("iterations") else None


def live_points(job):
    """The iterations a job's structural EM runs have reported so far (each report carries the iterations
    before it), the finished runs' from their results: ``task``, ``iteration``, ``log_likelihood``."""
    runs = {report["task"]: report["em"] for report in job.snapshot() if report.get("em")}  # the last of each
    runs.update({task.name: run_of(result)["iterations"] for task, result, _ in list(job.results)
                 if run_of(result) is not None})
    rows = [{"task": name, "iteration": it["iteration"], "log_likelihood": it["log_likelihood"]}
            for name, iterations in runs.items() for it in iterations]
    return pd.DataFrame(rows, columns=["task", "iteration", "log_likelihood"])


def likelihood_chart(frame, returned=None):
    """The observed-data log-likelihood per iteration, one line per run; ``returned``: ``{task: iteration}``
    of the iteration each finished run returned (a larger red point)."""
    frame = frame.dropna(subset=["log_likelihood"]).astype({"iteration": "int64", "log_likelihood": "float64"})
    many = frame["task"].nunique() > 1  # one run: the title names it, and the plot keeps the legend's room
    lines = alt.Chart(frame).mark_line(point=alt.OverlayMarkDef(size=70)).encode(
        x=alt.X("iteration:Q", title="structural EM iteration (0: the start)",
                axis=alt.Axis(format="d", tickMinStep=1)),
        y=alt.Y("log_likelihood:Q", title="log-likelihood", scale=alt.Scale(zero=False),
                axis=alt.Axis(tickCount=4, format=",.0f")),
        color=alt.Color("task:N", title="search", legend=alt.Legend(orient="bottom", labelLimit=600) if many
                        else None),
        tooltip=[alt.Tooltip("task:N", title="search"), alt.Tooltip("iteration:Q", title="iteration"),
                 alt.Tooltip("log_likelihood:Q", format=",.4f", title="log-likelihood")])
    picked = pd.DataFrame([{"task": task, "iteration": k} for task, k in (returned or {}).items()])
    if picked.empty:
        return lines
    marks = alt.Chart(frame.merge(picked, on=["task", "iteration"])).mark_point(
        size=260, color="#d81b60", strokeWidth=3).encode(x="iteration:Q", y="log_likelihood:Q",
                                                         tooltip=[alt.Tooltip("task:N", title="returned by")])
    return lines + marks


CAPTION = ("Each point is one iteration of structural EM (Friedman 1998): the log-likelihood of the rows as they "
           "are, blanks left blank, under that iteration's network with tables fitted by EM (natural log, higher is "
           "better). Iteration 0 is the start, the search's graph on the rows with each blank cell as a state of its "
           "own; each iteration completes the blank cells by the current network, searches on the completed rows, "
           "then fits the new network by EM.")


def completions_text(completions):
    """How a run completed each incomplete row, for its caption.

    Examples
    --------
    >>> completions_text(1)
    'one completion per incomplete row, drawn from its posterior'
    >>> completions_text(8).split(":")[0]
    'up to 8 completions per incomplete row'
    """
    if completions == 1:
        return "one completion per incomplete row, drawn from its posterior"
    return (f"up to {completions} completions per incomplete row: all of them, weighted by their probability, when "
            f"there are at most {completions}, else {completions} drawn from its posterior")


def returned_text(name, em):
    """Which iteration a run returned, and its note when that is not the last."""
    last = em["iterations"][-1]["iteration"]
    text = f"{name} returned iteration {em['returned']} of {last}"
    text += (" (the last)." if em["returned"] == last else
             ", not the last: " + (em.get("note") or "an earlier iteration had the better observed-data score") + ".")
    return text


def job_section(job):
    """The log-likelihood chart of a job's structural EM runs (live while they run), and under it what each
    finished run returned."""
    frame = live_points(job)
    if frame.empty:
        return
    finished = {task.name: run_of(result) for task, result, _ in list(job.results) if run_of(result) is not None}
    names = frame["task"].unique()
    show_chart(likelihood_chart(frame, {name: em["returned"] for name, em in finished.items()}),
               "Structural EM: observed-data log-likelihood per iteration"
               + (f" of {names[0]}" if len(names) == 1 else ""),
               CAPTION + " Red: the iteration the run returned, the one with the best observed-data score (the search's score corrected from the completed rows to the observed cells).",
               height=CHART_HEIGHT)
    for name, em in finished.items():
        (st.caption if em["returned"] == em["iterations"][-1]["iteration"] else st.warning)(returned_text(name, em))


def completed_table(entry):
    """The entry's data with each blank cell filled by its most probable completion under the network fitted by
    EM (:func:`bnexplore.em.impute`), a Dataset; None without data."""
    data, _ = views.data_for(entry)
    if data is None:
        return None
    if "completed" not in entry.cache:
        entry.cache["completed"] = impute(views.fitted(entry), data)
    return entry.cache["completed"]


def download_completed(entry, key):
    """A download button for the completed (imputed) table of an entry learned on data with blank cells, and
    what the imputation warned about (rows whose completion is approximate)."""
    completed = completed_table(entry)
    if completed is None:
        return
    frame = completed.to_frame()
    for warning in completed.warnings[len(views.data_for(entry)[0].warnings):]:  # the data's own are shown
        st.caption(warning)                                                     # on the Data page
    st.download_button("Download the completed table (CSV)", frame.to_csv(index=False).encode("utf-8"),
                       file_name="completed.csv", mime="text/csv", key=key,
                       help="Every row of the data in use, each blank cell filled with its most probable state "
                            "given the row's other cells, under this network with tables fitted by EM (numeric "
                            "columns as their discretized intervals).")


def entry_section(entry, positions=None):
    """The Networks page's block for a structural EM result: its chart, what it returned, the download."""
    em = run_of(entry.result)
    frame = pd.DataFrame([{"task": entry.name, **it} for it in em["iterations"]])
    show_chart(likelihood_chart(frame[["task", "iteration", "log_likelihood"]], {entry.name: em["returned"]}),
               f"Observed-data log-likelihood per iteration of {entry.name}", CAPTION, height=CHART_HEIGHT)
    st.caption(returned_text(entry.name, em) + f" {em.get('blank_cells', 0):,} blank cells in {em.get('rows', 0):,} "
               f"rows; {completions_text(em.get('completions'))}.")
    download_completed(entry, f"em-completed-{entry.name}")
