"""Widgets shared by the pages: embedded graphs, exports (the network in every file format), the import of
results and network files, status line."""

import re

import pandas as pd
import streamlit as st

from bnexplore import viz
from bnexplore.errors import BNExploreError
from bnexplore.formats import FORMATS, format_for
from bnexplore.session import Session
from bnexplore_app import imports, state, views


@st.cache_data(show_spinner=False, max_entries=48)
def _html(drawing, positions, height):
    return viz.to_html(drawing, dict(positions), height=height)


def frame_height(positions, width=900, least=240, most=620):
    """Pixels of drawing area that show the layout at the scale at which it fits ``width``.

    vis-network fits the whole graph into the frame but never enlarges it
    past full size, so a frame taller than the scaled layout would leave
    blank space above and below a small graph.
    """
    xs = [x for x, _ in positions.values()] or [0.0]
    ys = [y for _, y in positions.values()] or [0.0]
    scale = min(1.0, (width - 40) / (max(xs) - min(xs) + 220.0))
    return int(min(most, max(least, (max(ys) - min(ys) + 110.0) * scale + 40)))


def show_graph(drawing, positions, caption, height=None, width=900, most=620):
    """Embed an interactive graph (offline vis-network) and say what it shows underneath.

    The drawing area is as tall as the layout needs at the frame's ``width``,
    at most ``most`` pixels (see :func:`frame_height`; vis-network scales a
    larger graph down to fit), unless ``height`` is given.
    """
    height = height or frame_height(positions, width, most=most)
    page = _html(drawing, tuple(sorted((k, tuple(v)) for k, v in positions.items())), height)
    st.iframe(page, height="content")
    st.caption(caption)


def literal(text):
    """Markdown that shows ``text`` exactly as it is: an inline code span, which no Markdown, link,
    HTML, emoji or LaTeX inside it escapes.

    Names and labels from files and uploads are someone else's text: rendered as Markdown, a
    label ``[results](http://...)`` would become a link in every user's page. Line breaks become
    spaces (a blank line would end the span), and the fence is one backtick longer than any run
    of backticks in the text.

    Examples
    --------
    >>> literal("sample asia")
    '`sample asia`'
    >>> literal("a `b` c")
    '`` a `b` c ``'
    """
    text = re.sub(r"[\r\n]+", " ", str(text))
    if not text.strip():
        return f'"{text}"'
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if "`" in text or text.startswith(" ") or text.endswith(" ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def data_status():
    """One line saying which data are in use (shown on every page; the label and column as text)."""
    data = state.dataset()
    truth = " · ground truth known" if state.truth_for(data.names) is not None else ""
    target = st.session_state.get("class_column")
    klass = f" · class column {literal(target)}" if target else ""
    st.caption(f"Data in use: {literal(st.session_state['data_label'])} — {data.n_rows:,} rows × "
               f"{data.n_vars} variables{truth}{klass}")


def show_chart(chart, title, caption, height=None, stretch=True):
    """An Altair chart under a bold title (never clipped by the chart's height) with its caption.

    ``height`` in pixels, or None for the chart's own (e.g. ``alt.Step`` rows);
    ``stretch=False`` keeps the chart's own width (a heat map of square cells).
    """
    st.markdown(f"**{title}**")
    sizing = {"width": "stretch" if stretch else "content"}
    if height is not None:
        sizing["height"] = height
    st.altair_chart(chart, **sizing)
    st.caption(caption)


def pick_one(label, names, key, chosen, on_pick, **kwargs):
    """A selectbox that shows ``chosen`` and reports the user's choice to ``on_pick(name)``.

    The page decides what is shown (the newest result after a search, the
    user's last pick otherwise); the widget only reports a change.
    """
    st.session_state[key] = chosen
    return st.selectbox(label, names, key=key, on_change=lambda: on_pick(st.session_state[key]), **kwargs)


def results_table(entries):
    """The kept results as a table: name, data, algorithm, score, edges, seconds, stopped, settings."""
    rows = []
    for entry in entries.values():
        result = entry.result
        stats = result.stats or {}
        rows.append({"name": entry.name, "learned on": entry.data_label,
                     "data in use?": "yes" if entry.on_data_in_use() else "other data",
                     "algorithm": result.algorithm, "score": result.score,
                     "score function": state.score_label(result.score_name, result.params.get("ess")),
                     "edges": result.graph.n_edges, "seconds": stats.get("seconds"),
                     "stopped?": views.stopped_text(result),
                     "settings": views.settings_text(result.params)})
    frame = pd.DataFrame(rows)
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        "name": st.column_config.TextColumn("name", width=text_column_width(frame["name"]), pinned=True),
        "learned on": st.column_config.TextColumn("learned on", width="medium",
                                                  help="the data the search ran on"),
        "data in use?": st.column_config.TextColumn(
            "data in use?", help="yes: learned on the data in use now (same rows and encoding); scores of "
                                 "results on other data cannot be compared with these"),
        "score": st.column_config.NumberColumn("score", help="natural-log score, higher is better", format="%.2f"),
        "seconds": st.column_config.NumberColumn("seconds", format="%.2f"),
    })
    return frame


def text_column_width(texts, least=120, most=420):
    """Pixels a table column needs to show ``texts`` whole (at most ``most``; the table's font is about
    7.5 pixels a character, plus the cell's padding)."""
    longest = max((len(str(text)) for text in texts), default=0)
    return int(min(most, max(least, 7.5 * longest + 28)))


def file_stem(name):
    """A safe file name stem from a result name (an imported network file's name without its format's ending).

    Examples
    --------
    >>> file_stem("hc · BDeu(1) · asia 5k"), file_stem("Alarm.NET.gz")
    ('hc_BDeu_1_asia_5k', 'Alarm')
    """
    spec = format_for(name)
    if spec is not None:
        name = name[:len(name) - 3] if name.lower().endswith(".gz") else name
        name = name[:len(name) - len(next(e for e in spec.extensions if name.lower().endswith(e)))]
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "network"


EXPORT_FORMAT = state.KEEP + "export_format"
"""The key of the export row's choice of network file format (kept across pages and networks)."""


def export_buttons(entry, drawing, positions, key):
    """Download buttons for one result: JSON, the network in a file format picked beside its button (every
    format of :data:`bnexplore.formats.FORMATS`: one select box and one button fit a projector's row where
    seven buttons would not), GraphML, DOT, HTML, PNG."""
    stem = file_stem(entry.name)
    columns = st.columns([1, 2.2, 1.4, 1.2, 1, 1, 1])
    columns[0].download_button("JSON", data=entry.result.dumps(indent=1), file_name=f"{stem}.json",
                               mime="application/json", key=f"{key}-json", on_click="ignore",
                               help="The full result (graph, score, settings, statistics); import it again "
                                    "on the Networks or Compare page.")
    network_button(entry, stem, key, *columns[1:3])
    picture_buttons(drawing, positions, stem, key, columns[3:])


def network_button(entry, stem, key, box, column):
    """A select box of the network file formats and the download button of the one picked (labelled with
    the format's title, the file named with its first ending); disabled, saying why, when the network
    has no tables to write or the format cannot hold it."""
    format = box.selectbox("Network file format", list(FORMATS), key=EXPORT_FORMAT, label_visibility="collapsed",
                           format_func=lambda name: f"{FORMATS[name].title} ({FORMATS[name].extensions[0]})")
    spec = FORMATS[format]
    try:
        text = views.network_text(entry, stem, format)
    except BNExploreError as error:
        column.button(spec.title, disabled=True, key=f"{key}-{format}-off", help=str(error))
        return
    if text is None:
        column.button(spec.title, disabled=True, key=f"{key}-{format}-off",
                      help="No data for this result, so no probability tables to write; a model string holds "
                           "its graph.")
        return
    how = (f"The network with {views.tables_how(entry)}" if spec.tables else "The graph (no tables)")
    column.download_button(spec.title, data=text, file_name=f"{stem}{spec.extensions[0]}", mime="text/plain",
                           key=f"{key}-{format}", on_click="ignore", help=f"{how}, written as {spec.title}.")


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
    """An uploader for saved result JSON files and network files (every format of
    :data:`bnexplore.formats.FORMATS`, gzipped too); what it imports joins the session's results
    (:func:`bnexplore_app.imports.import_file`).

    A result exported by the app carries its name and the data it was learned
    on (``extra["app"]``): it comes back under that name, attached to the data
    in use only when those are the same data. A network file comes back under
    its file's name with its own tables, attached to the data in use when its
    variables and their states are the data's. A file that cannot be read
    shows one error line and changes nothing.
    """
    files = st.file_uploader("Import saved results (JSON exported by bnexplore) or network files (BIF, XMLBIF, "
                             "Hugin NET, DSC, UAI, XDSL, model string; gzipped too)", type=imports.ENDINGS,
                             accept_multiple_files=True, key=key)
    seen = st.session_state.setdefault("_imported", set())
    for level, text in st.session_state.pop("import_notes", []):
        (st.success if level == "success" else st.error)(text)
    notes = []
    for upload in files or []:
        marker = (key, upload.file_id)
        if marker in seen:
            continue
        seen.add(marker)
        try:
            imported = imports.import_file(upload.name, upload.getvalue())
        except BNExploreError as error:
            hint = (" Export a result with the JSON button of the Networks page (or the command line's --json) and "
                    "import that file." if upload.name.lower().endswith(".json") else "")
            notes.append(("error", f"{literal(upload.name)} cannot be imported: {literal(error)}.{hint}"))
            continue
        notes.append(("success", import_note(upload.name, imported)))
    if notes:  # run the page again, so every picker on it starts on the imported network
        st.session_state["import_notes"] = notes
        st.rerun()


def import_note(file_name, imported):
    """What the success line says of an imported file: what it became, and whether it is on the data in use."""
    entry = imported.entry
    result = entry.result
    head = f"Imported {literal(file_name)} as {literal(entry.name)}"
    if imported.kind == "result":
        where = ("learned on the data in use" if imported.attached else
                 f"learned on {literal(entry.data_label)}" if imported.recorded else
                 "the data it was learned on is not recorded in the file")
        return f"{head}: {result.graph.n_edges} edges, score {result.score:,.2f} ({where})."
    network = views.file_network(entry)
    head = f"Imported {literal(file_name)} ({imported.kind}) as {literal(entry.name)}"
    what = (f"{len(result.names)} variables and {result.graph.n_edges} arcs"
            + (", with its own probability tables" if network is not None else ", a graph without tables"))
    if imported.attached:
        score = state.score_label(result.score_name, result.params.get("ess"))
        where = (f"its variables and states are those of the data in use, so it is attached to them: "
                 f"{score} score {result.score:,.2f}")
    else:
        where = f"kept without data: {imported.why_not}"
    return f"{head}: {what}; {where}."


SESSION_FILE = "bnexplore-session.bnx"


def session_controls():
    """Sidebar: save the whole session (data source, encoding, settings, every result) or open a saved one.

    *Save session* (key ``session_save``) writes the file in this run, from this run's session
    state, and offers it with *Download the session file* (key ``session_download``): a
    download button's callable would run outside the session, where there is no state to read.
    *Open a saved session* is a new, empty uploader after every file it opened (key
    ``session_open``, then ``session_open-1``, ...), so no chip of an old file stays beside the
    data in use; a file that fails changes nothing and says which field is wrong.
    """
    st.markdown("**Session**")
    if st.button("Save session", key="session_save", width="stretch",
                 help="One file with the data (or where it comes from), the Data and Tune settings and every "
                      "result; open it here later to carry on."):
        data = state.snapshot().dumps()
        st.download_button("Download the session file", data=data, file_name=SESSION_FILE, mime="application/gzip",
                           key="session_download", on_click="ignore", type="primary", width="stretch")
        count = len(st.session_state["results"])
        st.caption(f"{SESSION_FILE}: {len(data) / 1024:,.0f} KB, the data in use, the settings and {count} "
                   f"result(s).")
    for level, text in st.session_state.pop("session_notes", []):
        (st.success if level == "success" else st.error)(text)
    opened = st.session_state.get("_sessions_opened", 0)
    upload = st.file_uploader("Open a saved session", type=["bnx"],
                              key="session_open" if not opened else f"session_open-{opened}",
                              help="Its data and settings replace the current ones; its results join yours.")
    if upload is None:
        return
    st.session_state["_sessions_opened"] = opened + 1  # the next run draws a new, empty uploader
    try:
        names = state.open_session(Session.loads(upload.getvalue()))
    except BNExploreError as error:
        st.session_state["session_notes"] = [("error", f"{literal(upload.name)} was not opened, nothing changed: "
                                                       f"{literal(error)}")]
    else:
        st.session_state["session_notes"] = [("success", f"Opened {literal(upload.name)}: now using "
                                                         f"{literal(st.session_state['data_label'])}, with "
                                                         f"{len(names)} saved result(s).")]
    st.rerun()
