"""Widgets shared by the pages: embedded graphs, exports, result import, status line."""

import re

import pandas as pd
import streamlit as st

from bnexplore import viz
from bnexplore.errors import BNExploreError
from bnexplore.result import Result
from ui import state, views


@st.cache_data(show_spinner=False, max_entries=48)
def _html(drawing, positions, height):
    return viz.to_html(drawing, dict(positions), height=height)


def frame_height(positions, width=1100, least=420, most=1000):
    """Pixels of frame that show the layout at the largest scale that fits ``width``."""
    xs = [x for x, _ in positions.values()] or [0.0]
    ys = [y for _, y in positions.values()] or [0.0]
    scale = min(1.0, width / (max(xs) - min(xs) + 300.0))
    return int(min(most, max(least, (max(ys) - min(ys) + 160.0) * scale + 120)))


def show_graph(drawing, positions, caption, height=None):
    """Embed an interactive graph (offline vis-network) and say what it shows underneath.

    The frame is as tall as the layout needs (see :func:`frame_height`) unless
    ``height`` is given.
    """
    height = height or frame_height(positions)
    page = _html(drawing, tuple(sorted((k, tuple(v)) for k, v in positions.items())), height)
    st.iframe(page, height="content")
    st.caption(caption)


def data_status():
    """One line saying which data are in use (shown on every page)."""
    data = state.dataset()
    truth = " · ground truth known" if state.truth_for(data.names) is not None else ""
    target = st.session_state.get("class_column")
    klass = f" · class column {target}" if target else ""
    st.caption(f"Data in use: **{st.session_state['data_label']}** — {data.n_rows:,} rows × "
               f"{data.n_vars} variables{truth}{klass}")


def results_table(entries):
    """The kept results as a table: name, algorithm, score, edges, seconds, stopped."""
    rows = []
    for entry in entries.values():
        result = entry.result
        stats = result.stats or {}
        rows.append({"name": entry.name, "algorithm": result.algorithm, "score": result.score,
                     "score function": result.score_name, "edges": result.graph.n_edges,
                     "seconds": stats.get("seconds"), "stopped?": stats.get("stopped") or "",
                     "settings": ", ".join(f"{k}={v}" for k, v in (result.params or {}).items() if v is not None),
                     "data": entry.data_label})
    frame = pd.DataFrame(rows)
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        "score": st.column_config.NumberColumn("score", help="natural-log score, higher is better",
                                               format="%.2f"),
        "seconds": st.column_config.NumberColumn("seconds", format="%.2f"),
    })
    return frame


def file_stem(name):
    """A safe file name stem from a result name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "network"


def export_buttons(entry, drawing, positions, key):
    """Download buttons for one result: JSON, BIF (fitted), GraphML, DOT, HTML, PNG."""
    stem = file_stem(entry.name)
    columns = st.columns(6)
    columns[0].download_button("JSON", data=entry.result.dumps(indent=1), file_name=f"{stem}.json",
                               mime="application/json", key=f"{key}-json", on_click="ignore",
                               help="The full result (graph, score, settings, statistics); import it again "
                                    "on the Networks or Compare page.")
    network = views.fitted(entry)
    if network is None:
        columns[1].button("BIF", disabled=True, key=f"{key}-bif-off",
                          help="No data for this result, so no probability tables to write.")
    else:
        try:
            text = views.bif_text(entry, stem)
        except BNExploreError as error:
            columns[1].button("BIF", disabled=True, key=f"{key}-bif-off", help=str(error))
        else:
            columns[1].download_button("BIF", data=text, file_name=f"{stem}.bif", mime="text/plain",
                                       key=f"{key}-bif", on_click="ignore",
                                       help="The network with probability tables fitted to its data (BDeu "
                                            "posterior mean).")
    picture_buttons(drawing, positions, stem, key, columns[2:])


def picture_buttons(drawing, positions, stem, key, columns=None):
    """Download buttons for a picture: GraphML, DOT, HTML (interactive, offline), PNG."""
    columns = columns or st.columns(6)[:4]
    columns[0].download_button("GraphML", data=lambda: viz.to_graphml(drawing, positions),
                               file_name=f"{stem}.graphml", mime="application/xml", key=f"{key}-graphml",
                               on_click="ignore")
    columns[1].download_button("DOT", data=lambda: viz.to_dot(drawing, positions), file_name=f"{stem}.dot",
                               mime="text/vnd.graphviz", key=f"{key}-dot", on_click="ignore")
    columns[2].download_button("HTML", data=lambda: viz.to_html(drawing, positions), file_name=f"{stem}.html",
                               mime="text/html", key=f"{key}-html", on_click="ignore",
                               help="The interactive picture; opens in any browser, offline.")
    columns[3].download_button("PNG", data=lambda: viz.to_png(drawing, positions), file_name=f"{stem}.png",
                               mime="image/png", key=f"{key}-png", on_click="ignore")


def import_results(key):
    """An uploader for saved result JSON files; imported results join the session's results."""
    files = st.file_uploader("Import saved results (JSON exported by bnexplore)", type=["json"],
                             accept_multiple_files=True, key=key)
    seen = st.session_state.setdefault("_imported", set())
    for upload in files or []:
        marker = (key, upload.file_id)
        if marker in seen:
            continue
        seen.add(marker)
        try:
            result = Result.from_json(upload.getvalue())
        except BNExploreError as error:
            st.error(f"{upload.name}: {error}")
            continue
        except (ValueError, TypeError, KeyError) as error:
            st.error(f"{upload.name} is not a bnexplore result file ({type(error).__name__}: {error}); "
                     "export one with the JSON button of a result")
            continue
        data = state.dataset()
        same = sorted(data.names) == sorted(result.names)
        entry = state.add_result(f"imported {upload.name.removesuffix('.json')}", result,
                                 data if same else None, st.session_state["data_key"] if same else None,
                                 st.session_state["data_label"] if same else "imported")
        st.success(f"Imported {entry.name}: {result.graph.n_edges} edges, score {result.score:.2f}"
                   + ("" if same else " (its variables differ from the data in use: shown without tables)"))
