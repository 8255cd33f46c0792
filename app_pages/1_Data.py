"""1 · Data: load a table, look at its columns, choose how to discretize them."""

import json

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from bnexplore.data import MISSING_LABEL, MISSING_POLICIES, TABLE_SUFFIXES, Encoder, learn_cut_points
from bnexplore.errors import BNExploreError, DataError
from bnexplore_app import state
from bnexplore_app.errors import without_links
from bnexplore_app.page import WIDGETS, run_page
from bnexplore_app.widgets import data_status, literal, pick_one, show_chart

METHODS = ("uniform3", "quantile", "width", "manual")
METHOD_HELP = ("uniform3: three bins between the 2.5% and 97.5% percentiles (Balov 2013); quantile:K: K bins "
               "with about the same number of rows; width:K: K bins of equal width; manual: your cut points.")
MARKS_HELP = ("The table's own marks for 'no value', comma-separated (such as ?, unknown, -999): a cell holding "
              "one is missing, in every column, like a blank cell or NA. A column of numbers with such a mark "
              "then reads as numbers.")
MISSING_HELP = ("state: a missing value is a state of its own; drop: drop rows with a missing value; error: refuse "
                "the table; em: keep blanks, learn from the rows you have (structural EM on the Search page, "
                "tables fitted by EM).")
CLASS_NAMES = ("class", "diagnosis", "label", "target", "y", "group")
UPLOAD_LIMIT_MB = st.get_option("server.maxUploadSize")
# The Separator choices and what read_frame is given (None: sniffed from the first lines).
SEPARATORS = {"auto": None, ",": ",", ";": ";", "tab": "\t", "|": "|"}
# The Encoding choices (auto: UTF-8, or UTF-16/32 by a byte-order mark, falling back to latin-1).
ENCODINGS = ("auto", "utf-8", "latin-1", "cp1252", "utf-16", "utf-32")


def draft():
    """The table being prepared and its encoding settings (the data in use by default)."""
    if "draft" not in st.session_state:
        st.session_state["draft"] = {"table": st.session_state["table"],
                                     "encoding": json.loads(json.dumps(st.session_state["encoding"]))}
    return st.session_state["draft"]


def load(make_table):
    """Read a new table; make it the data in use if it encodes with the default settings.

    Returns True: a table was tried in this run (its message is shown), so the
    page does not try it again further down and an error shows once.
    """
    try:
        table = make_table()
        if len(table.frame.columns) < 2:
            names = "".join(f" ({literal(str(name))})" for name in table.frame.columns)
            raise DataError(f"{literal(table.label)} has one column{names}; a network needs at least two variables: "
                            "load a table with two or more columns (for a CSV file, is the *Separator* right?)")
        encoding, identifiers = state.default_encoding(table)
    except BNExploreError as error:  # a DataError, or a ResourceError (a gzip past the server's bound)
        st.error(without_links(f"{error}"))
        st.info(f"Nothing changed: the data in use are still {literal(st.session_state['data_label'])}.")
        return True
    st.session_state["draft"] = {"table": table, "encoding": encoding, "identifiers": identifiers}
    try_use(table, encoding)
    return True


def try_use(table, encoding):
    """Use the table with these settings and rerun the page, or show why not
    (the data in use stay as they were)."""
    new = table is not st.session_state["table"]
    try:
        state.use_table(table, encoding)
    except DataError as error:
        st.error(without_links(f"{error}"))
        st.warning(f"The data in use are still {literal(st.session_state['data_label'])}. Change the settings under "
                   "*Columns* below to fix the new table, or load another one.")
        return
    if new:  # the same table with other settings keeps the class column the user picked
        choose_class_column()
    st.session_state["data_flash"] = (f"Now using {literal(table.label)}: {state.dataset().n_rows:,} rows × "
                                      f"{state.dataset().n_vars} variables.")
    st.rerun()  # so every line of the page, the status line at the top included, shows the new data


def class_columns(data):
    """The variables that can be the class column, each with its rows whose class is blank: those with two
    states, and those with two states besides the missing-value state (its rows are left out of two-class
    analyses; the other pages read this from ``st.session_state["dataset"]`` the same way)."""
    found = {}
    for i, name in enumerate(data.names):
        states = data.states[i]
        if len(states) == 2 and MISSING_LABEL not in states:  # blanks kept as blanks (em) are counted too
            found[name] = int(np.count_nonzero(data.blank[:, i])) if state.has_blanks(data) else 0
        elif len(states) == 3 and states[-1] == MISSING_LABEL:
            found[name] = int(np.count_nonzero(data.codes[:, i] == 2))
    return found


def choose_class_column():
    """Pick the class column after loading when the choice is unambiguous: exactly one column that can be the
    class column (:func:`class_columns`) named like a class ('class', 'diagnosis', ...). Otherwise the user
    picks it below."""
    data = state.dataset()
    named = [name for name in class_columns(data) if name.lower() in CLASS_NAMES]
    st.session_state["class_column"] = named[0] if len(named) == 1 else None
    if len(named) > 1:
        st.session_state["data_flash_note"] = (f"{' and '.join(named)} could each be the class column: pick one "
                                               "under *Class column for two-class analysis* below.")


def source_section():
    """Where the table comes from; returns True when a table was loaded (or tried) in this run."""
    st.subheader("Load a table")
    kind = st.radio("Where is the table?", ["Bundled sample", "Upload a file", "Paste CSV text",
                                            "Sample from a known network"], horizontal=True, key="data_source")
    if kind == "Bundled sample":
        names = state.available_samples()
        left, right = st.columns([3, 1])
        name = left.selectbox("Sample", names, key="data_sample",
                              help="Rows drawn from a published network (sample_data/README.md); that network "
                                   "is kept as the ground truth for the Compare page.")
        right.write("")
        if right.button("Load sample", type="primary", key="data_load_sample"):
            return load(lambda: state.sample_table(name))
    elif kind == "Upload a file":
        st.markdown("CSV, Parquet or Feather, one row per sample; a CSV's first line holds the column names "
                    "(untick the box if it is a row of data). Gzipped CSV (.csv.gz) works too.")
        sep, encoding, header = text_options()
        upload = st.file_uploader(f"Table file (at most {UPLOAD_LIMIT_MB} MB)",
                                  type=[suffix.lstrip(".") for suffix in TABLE_SUFFIXES], key="data_upload",
                                  help=f"The server's limit is `server.maxUploadSize` = {UPLOAD_LIMIT_MB} in "
                                       "`.streamlit/config.toml`.")
        st.markdown(f"**A file over {UPLOAD_LIMIT_MB} MB is refused by your browser** before it reaches the app: "
                    "the uploader marks it in red and nothing here changes. Gzip a CSV (.csv.gz) or save the "
                    "table as Parquet to make it several times smaller.")
        read_as = (upload.file_id, sep, encoding, header) if upload is not None else None
        if upload is not None and st.session_state.get("_last_upload") != read_as:
            st.session_state["_last_upload"] = read_as  # read again when how to read it changes
            return load(lambda: state.upload_table(f"upload {upload.name}", upload.getvalue(), upload.name,
                                                   sep, encoding, header))
    elif kind == "Paste CSV text":
        sep, _, header = text_options(encoding=False)
        text = st.text_area("CSV text", height=160, key="data_paste",
                            placeholder="smoker,cancer\nyes,no\nno,no\n...")
        if st.button("Use this table", type="primary", key="data_use_paste"):
            return load(lambda: state.upload_table("pasted table", text.encode("utf-8"), "pasted.csv", sep,
                                                   header=header))
    else:
        st.caption("Rows are drawn forward through the network's probability tables; the network is kept as "
                   "the ground truth, so the Compare page can score what a search finds against it.")
        networks = state.available_networks()
        a, b, c, d = st.columns([3, 2, 2, 1])
        name = a.selectbox("Network", networks, index=networks.index("alarm") if "alarm" in networks else 0,
                           key="data_network")
        rows = b.number_input("Rows", 10, 200_000, 2_000, step=500, key="data_rows")
        seed = c.number_input("Seed", 0, 10**9, 1, key="data_seed",
                              help="The same seed draws the same rows.")
        d.write("")
        if d.button("Sample", type="primary", key="data_draw"):
            return load(lambda: state.network_table(name, int(rows), int(seed)))
    return False


def text_options(encoding=True):
    """How to read CSV text: ``(sep, encoding, header)`` as read_frame takes them (Separator, Encoding, and
    whether the first line holds the column names)."""
    left, middle, right = st.columns([1, 1, 2])
    sep = left.selectbox("Separator", list(SEPARATORS), key="data_sep",
                         help="The character between fields. auto: the one of , ; tab | that splits the first "
                              "lines into the same number of fields.")
    chosen = "auto"
    if encoding:
        chosen = middle.selectbox("Encoding", ENCODINGS, key="data_encoding",
                                  help="How the text's characters are stored. auto: UTF-8 (UTF-16 or UTF-32 when "
                                       "the file starts with their byte-order mark), else latin-1 with a warning.")
    right.write("")
    header = right.checkbox(WIDGETS["header"], value=True, key="data_header",
                            help="Untick for a file whose first line is already data (many UCI files): its "
                                 "columns are then called X0, X1, ...")
    return SEPARATORS[sep], None if chosen == "auto" else chosen, header


def numeric_values(frame, column):
    """The numbers of a column (missing and text dropped)."""
    return pd.to_numeric(frame[column], errors="coerce").dropna().to_numpy(dtype=float)


def method_text(method, bins, cuts_text):
    if method == "uniform3":
        return "uniform3"
    if method == "manual":
        return "manual:" + cuts_text.replace(" ", "")
    return f"{method}:{bins}"


def histogram(frame, column, method):
    """Histogram of a numeric column with the cut points of ``method`` drawn on it."""
    values = numeric_values(frame, column)
    if values.size == 0:
        st.info(f"Column {column!r} has no numbers to draw.")
        return
    try:
        cuts = learn_cut_points(method, values)
    except DataError as error:
        st.error(without_links(f"{error}"))
        cuts = np.empty(0)
    bars = alt.Chart(pd.DataFrame({"value": values})).mark_bar(color="#90caf9").encode(
        x=alt.X("value:Q", bin=alt.Bin(maxbins=40), title=f"{column} (value in the table's units)"),
        y=alt.Y("count():Q", title="rows"),
        tooltip=[alt.Tooltip("count():Q", title="rows")])
    rules = alt.Chart(pd.DataFrame({"cut": cuts})).mark_rule(color="#d81b60", strokeWidth=3).encode(
        x="cut:Q", tooltip=[alt.Tooltip("cut:Q", title="cut point (exact)", format=".6g")])
    counts = np.bincount(np.searchsorted(cuts, values, side="left"), minlength=len(cuts) + 1)
    show_chart(bars + rules, f"Distribution of {column} and the cut points of {method}",
               f"Bars: how many rows have each value. Red lines: the {len(cuts)} cut points "
               f"({', '.join(f'{c:.4g}' for c in cuts) or 'none'}), giving {len(cuts) + 1} states with "
               f"{', '.join(f'{c:,}' for c in counts)} rows. Hover a line for its exact value.", height=300)


LEVELS_SHOWN = 60


def level_chart(frame, column):
    counts = frame[column].astype("string").fillna("<missing>").value_counts().reset_index()
    counts.columns = ["level", "rows"]
    total = len(counts)
    shown = counts.head(LEVELS_SHOWN)
    title = (f"Rows per level of {column}" if total <= LEVELS_SHOWN else
             f"Rows per level of {column}: the {LEVELS_SHOWN} most frequent of {total:,} levels")
    chart = alt.Chart(shown).mark_bar(color="#90caf9").encode(
        x=alt.X("rows:Q", title="rows", axis=alt.Axis(format="d", tickMinStep=1)),
        y=alt.Y("level:N", sort="-x", title=f"{column} (level)"),
        tooltip=["level", "rows"]).properties(height=alt.Step(22))
    show_chart(chart, title, "Each bar is one level (state) of the column and how many rows have it."
               + ("" if total <= LEVELS_SHOWN else f" {total - LEVELS_SHOWN:,} rarer levels are not drawn."))


def columns_section(current):
    table, encoding = current["table"], current["encoding"]
    frame = table.frame
    prefix = f"col-{table.key}-"
    st.subheader(f"Columns of {literal(table.label)}")
    st.dataframe(frame.head(100), height=220, width="stretch")
    st.caption(f"The first {min(100, len(frame))} of {len(frame):,} rows, as read.")
    for note in table.notes:
        st.warning(note)

    names = [str(c) for c in frame.columns]
    encoding["leave_out"] = st.multiselect("Leave out these columns", names, default=[
        n for n in encoding["leave_out"] if n in names], key=prefix + "leave")
    kept = [n for n in names if n not in encoding["leave_out"]]
    for name, distinct in current.get("identifiers", {}).items():
        if name in encoding["leave_out"]:
            st.info(f"{literal(name)} looks like a row identifier ({distinct:,} distinct values in {distinct:,} "
                    "rows): left out; remove it from *Leave out these columns* above to use it.")
    a, b, c = st.columns(3)
    method = a.selectbox("Discretize numeric columns with", METHODS[:3], key=prefix + "method",
                         index=METHODS.index(encoding["default_method"].split(":")[0]), help=METHOD_HELP)
    bins = b.number_input("Bins K (quantile / width)", 2, 20, int(encoding["default_method"].partition(":")[2]
                                                                   or 3), key=prefix + "bins",
                          disabled=method == "uniform3")
    encoding["default_method"] = method_text(method, bins, "")
    encoding["missing"] = c.radio("Missing values", list(MISSING_POLICIES), key=prefix + "missing",
                                  index=MISSING_POLICIES.index(encoding["missing"]), horizontal=True,
                                  help=MISSING_HELP)
    encoding["max_levels"] = int(a.number_input("Most levels a text column may have", 2, 10_000,
                                                int(encoding["max_levels"]), key=prefix + "maxlevels"))
    marks = c.text_input("Also missing", ", ".join(encoding["missing_values"]), max_chars=state.MARKS_CHARS,
                         key=prefix + "marks", placeholder="?, unknown, -999", help=MARKS_HELP)
    encoding["missing_values"] = list(dict.fromkeys(m.strip() for m in marks.split(",") if m.strip()))
    if len(kept) < 2:
        st.error("A network needs at least two variables: leave out fewer columns.")
        return None
    numeric_like = [n for n in kept if pd.api.types.is_numeric_dtype(frame[n])
                    and not pd.api.types.is_bool_dtype(frame[n])]
    encoding["as_categorical"] = b.multiselect(
        "Use values as categories (no discretization)", numeric_like, key=prefix + "ascat",
        default=[n for n in encoding["as_categorical"] if n in numeric_like])
    encoding["as_numeric"] = c.multiselect(
        "Treat as numbers (discretize)", [n for n in numeric_like if n not in encoding["as_categorical"]],
        key=prefix + "asnum", default=[n for n in encoding["as_numeric"] if n in numeric_like])
    try:
        profile = Encoder(discretize="uniform3", types=state.column_types(encoding, kept) or None,
                          max_levels=encoding["max_levels"],
                          missing_values=encoding["missing_values"] or None).profile(frame[kept])
    except DataError as error:
        st.error(without_links(f"{error}"))
        return None
    column_inspector(frame, profile, encoding, prefix)
    return profile


def column_inspector(frame, profile, encoding, prefix):
    st.markdown("**Look at one column**")
    left, right = st.columns([1, 2])
    column = left.selectbox("Column", profile["column"].tolist(), key=prefix + "inspect")
    row = profile.set_index("column").loc[column]
    left.markdown(f"type **{row['type']}** · {int(row['distinct'])} distinct values · {int(row['missing'])} "
                  "missing" + (f" · from {row['min']:.4g} to {row['max']:.4g}" if pd.notna(row["min"]) else ""))
    if row["note"]:
        left.warning(row["note"])
    with right:
        if row["type"] != "numeric":
            level_chart(frame, column)
            return
        own = encoding["methods"].get(column, "")
        choice = left.selectbox("Discretize this column with", ["(default)", *METHODS], key=prefix + "own-" + column,
                                index=(["(default)", *METHODS].index(own.split(":")[0]) if own else 0),
                                help=METHOD_HELP)
        if choice == "(default)":
            encoding["methods"].pop(column, None)
        else:
            k = left.number_input("Bins K", 2, 20, int(own.partition(":")[2]) if own[:1] in "qw" and own else 3,
                                  key=prefix + "ownk-" + column, disabled=choice in ("uniform3", "manual"))
            cuts = left.text_input("Cut points, comma-separated (manual)", own.partition(":")[2]
                                   if own.startswith("manual") else "", key=prefix + "owncuts-" + column,
                                   disabled=choice != "manual")
            if choice != "manual" or cuts.strip():
                encoding["methods"][column] = method_text(choice, k, cuts)
            else:
                encoding["methods"].pop(column, None)
        histogram(frame, column, encoding["methods"].get(column, encoding["default_method"]))


def encoded_section(profile):
    data = state.dataset()
    summary = data.summary().set_index("name")
    table = profile.set_index("column").join(summary[["levels", "states"]], how="left").reset_index()
    st.subheader("Variables in use")
    for end in ("min", "max"):  # text columns have no range: a blank cell, not a grey "None"
        table[end] = [f"{value:.4g}" if pd.notna(value) else "" for value in table[end]]
    st.dataframe(table[["column", "type", "levels", "states", "distinct", "missing", "min", "max", "note"]],
                 hide_index=True, width="stretch", column_config={
                     "levels": st.column_config.NumberColumn("levels", help="states after discretization"),
                     "distinct": st.column_config.NumberColumn("distinct", help="distinct raw values")})
    st.caption("One row per column: how it is typed, its states after discretization (levels), its distinct raw "
               "values and missing values, and the range of numeric columns.")
    for warning in data.warnings:
        st.warning(warning)
    if state.has_blanks(data):
        columns = data.blank_columns()
        st.info(f"{data.n_blank:,} blank cells in {len(columns)} column{'s' if len(columns) != 1 else ''} "
                f"({', '.join(f'{literal(name)} {count:,}' for name, count in columns.items())}) are kept as blanks: "
                f"the searches learn from all {data.n_rows:,} rows by structural EM, tables are fitted by EM, and "
                f"scores count the {state.complete_count(data):,} rows without a blank cell.")
    blanks = class_columns(data)
    options = ["(none)", *blanks]
    current = st.session_state.get("class_column")
    pick_one("Class column for two-class analysis", options, "data_class", current if current in options else "(none)",
             lambda name: st.session_state.update(class_column=None if name == "(none)" else name),
             format_func=lambda name: (f"{name} (its {blanks[name]:,} blank rows left out)" if blanks.get(name)
                                       else name),
             help="A column with exactly two states, e.g. a diagnosis; one with blank cells besides is offered "
                  "too, and two-class methods leave its blank rows out. Two-class methods compare the network of "
                  "one class with that of the other.")
    if current in blanks and blanks[current]:
        st.caption(f"Two-class analyses use the {data.n_rows - blanks[current]:,} rows whose {current} is not blank.")


def page():
    st.title("1 · Data")
    data_status()
    if "data_flash" in st.session_state:
        st.success(st.session_state.pop("data_flash"))
    if "data_flash_note" in st.session_state:
        st.info(st.session_state.pop("data_flash_note"))
    tried = source_section()
    current = draft()
    st.divider()
    profile = columns_section(current)
    in_use = st.session_state["table"] is current["table"] and st.session_state["encoding"] == current["encoding"]
    if not in_use and profile is not None and not tried:
        try_use(current["table"], json.loads(json.dumps(current["encoding"])))
    if st.session_state["table"] is not current["table"]:
        if st.button("Discard this table and keep the data in use", key="data_discard"):
            del st.session_state["draft"]
            st.rerun()
        return
    if profile is not None:
        encoded_section(profile)


run_page(page, "the Data page")
