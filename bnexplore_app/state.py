"""Everything the app keeps for a user lives here, in ``st.session_state``.

- ``table``: the raw table in use (:class:`Table`), ``encoding`` the Data page's settings for it and
  ``encoder_options`` the ``(options, columns)`` they gave the encoder; ``draft``: the table and
  settings being prepared on the Data page;
- ``dataset`` / ``data_key`` / ``data_label`` / ``data_short``: the encoded data
  in use, a key identifying it (source + encoding settings) for caches and
  results, what the user reads, and the short form result names carry;
- ``truth``: the network the data were drawn from, when known (ground truth);
- ``class_column``: the two-class column, when chosen;
- ``settings``: score and search settings from the Tune page;
- ``results``: learned networks by name (:class:`Entry`), in order;
- ``focus``: the name of the network the user is looking at (the newest
  result until the user picks another), and ``generation``: how many results
  were added, so pickers on every page can move to the newest one;
- ``_kept``: widget values kept across page switches (:func:`keep_widget_values`);
- ``layouts``: node positions per node set, computed once and reused by every
  view and every comparison;
- ``job``: the background search, if any, and ``search_notes`` its messages;
- ``scorers``: this user's Scorers (:func:`scorer`), never shared with another session;
- ``knowledge``: what the user knows (``Knowledge.to_json()``), ``evidence``: the evidence set per
  network in the Ask view.

Nothing is dropped on an error or a page switch. Loading functions are cached
with ``st.cache_data`` / ``st.cache_resource`` so pages answer quickly.
"""

import hashlib
import re
import io
import json
from dataclasses import dataclass, field

import streamlit as st

from bnexplore import bundled, viz
from bnexplore.bif import read_bif, sample
from bnexplore.data import MAX_MISSING_MARKS, MISSING_POLICIES, Encoder, read_frame
from bnexplore.errors import DataError
from bnexplore.scores import SCORES, Scorer
from bnexplore.session import SavedResult, Session, check_field, table_bytes

SAMPLES = ("asia", "alarm", "insurance", "child", "sachs")
TWO_CLASS_SAMPLE = "breast_cancer_wdbc"
DEFAULT_SAMPLE = "asia"
SHORT_NAMES = {TWO_CLASS_SAMPLE: "wdbc"}
DEFAULT_SETTINGS = {"score": "bdeu", "ess": 1.0, "bf": 20.0, "max_indegree": 3,
                    "kl_max_parents": 2, "kl_select": "bic", "kl_class0": None}
MARKS_CHARS = 500
"""Most characters of the Data page's *Also missing* box (the marks a table uses for 'no value')."""
DEFAULT_ENCODING = {"default_method": "uniform3", "methods": {}, "as_categorical": [], "as_numeric": [],
                    "leave_out": [], "missing": "state", "max_levels": 50, "missing_values": []}


@dataclass
class Table:
    """A raw table and where it came from.

    Attributes
    ----------
    frame : pandas.DataFrame
    label : str
        What the user sees ("sample asia", "upload data.csv", ...).
    key : str
        Identifies the content (for caches).
    truth_name : str or None
        Bundled network the rows were drawn from (the ground truth).
    short : str
        The data in a few characters, for result names ("alarm 5k").
    source : dict
        How to get the same rows again (a ``bnexplore.session`` data source), for saving the session.
    notes : list of str
        What reading the file warned about (a column renamed, text read as latin-1), for the Data page.
    """

    frame: object
    label: str
    key: str
    truth_name: str | None = None
    short: str = ""
    source: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)


@dataclass
class Entry:
    """A learned (or imported) network kept in the session.

    Attributes
    ----------
    name : str
    result : bnexplore.result.Result
    dataset : Dataset or None
        The data it was learned from (None for an imported result).
    data_key : str or None
    data_label : str
        What the user reads about the data ("sample alarm", "imported from hc.json").
    cache : dict
        Computed views (fitted network, contributions) so pages stay fast.
    """

    name: str
    result: object
    dataset: object = None
    data_key: str | None = None
    data_label: str = ""
    cache: dict = field(default_factory=dict)

    def on_data_in_use(self):
        """True when the entry was learned on exactly the data in use (same rows and encoding)."""
        return self.data_key is not None and self.data_key == st.session_state.get("data_key")


# ---------------------------------------------------------------------------
# cached loaders


@st.cache_data(show_spinner=False, max_entries=16)
def sample_frame(name):
    """The bundled sample ``name`` as a raw DataFrame."""
    frame, _ = read_frame(bundled.sample_path(name))
    return frame


@st.cache_resource(show_spinner=False, max_entries=32)
def network(name):
    """The bundled network ``name``."""
    return read_bif(bundled.network_path(name))


@st.cache_data(show_spinner=False, max_entries=8)
def network_sample(name, rows, seed):
    """``rows`` rows forward-sampled from the bundled network ``name``."""
    return sample(network(name), rows, seed=seed)


SCORERS_KEPT = 4
"""How many Scorers (with their caches) one session keeps, the most recently used."""


def scorer(data_key, score, ess, data):
    """A Scorer (with its cache) for ``data``, identified by ``data_key``, kept in this user's session.

    Not shared between sessions: a Scorer counts the local scores it computes, and
    two users searching the same data at once would count into one object.
    """
    kept = st.session_state.setdefault("scorers", {})
    key = (data_key, score, float(ess))
    found = kept.pop(key, None)
    kept[key] = found if found is not None else Scorer(scored_rows(data), score=score, ess=ess)  # newest last
    while len(kept) > SCORERS_KEPT:
        kept.pop(next(iter(kept)))
    return kept[key]


def has_blanks(data):
    """True when ``data`` keeps blank cells (the Data page's *Missing values: em*)."""
    return getattr(data, "blank", None) is not None


def scored_rows(data):
    """The rows a score of ``data`` is computed on: all of them, or the rows without a blank cell when
    ``data`` keeps blanks (a score counts complete rows; DataError when no row is complete)."""
    return data.complete_rows() if has_blanks(data) else data


def complete_count(data):
    """How many rows of ``data`` have no blank cell."""
    return data.n_rows - int(data.blank.any(axis=1).sum()) if has_blanks(data) else data.n_rows


def scored_rows_note(data):
    """"" for data without blank cells, else a sentence saying what its scores are computed on."""
    if not has_blanks(data):
        return ""
    return (f"The data keep {data.n_blank:,} blank cells (*Missing values: em*): a score counts complete rows, so "
            f"the scores here are computed on the {complete_count(data):,} rows without a blank cell (of "
            f"{data.n_rows:,}); the structural EM searches learn from every row.")


def available_samples():
    """Bundled samples present on disk (the two-class table when it is there)."""
    present = set(bundled.samples())
    return [name for name in (*SAMPLES, TWO_CLASS_SAMPLE) if name in present]


def available_networks():
    """Names of the bundled BIF networks, smallest file first."""
    return bundled.networks()


# ---------------------------------------------------------------------------
# session


KEEP = "keep."
"""Widgets whose key starts with this keep their value when the user goes to another page and back."""


def keep_widget_values():
    """Carry the values of ``keep.*`` widgets across page switches.

    Streamlit forgets a widget's value at the end of a run in which the widget
    was not drawn, so options set on the Search page would be lost on a visit to
    another page. At the start of every run, the current values are copied
    aside and every kept value is assigned again: a value left over from a
    page switch is not used by the widget's next draw (Streamlit 1.67 showed
    the defaults of the Search page's limit and time limit after a visit to
    the Tune page), but one assigned through the Session State API is.
    """
    state = st.session_state
    kept = state.setdefault("_kept", {})
    for key in list(state.keys()):
        if isinstance(key, str) and key.startswith(KEEP):
            kept[key] = state[key]
    for key, value in kept.items():
        state[key] = value


def init():
    """Create every session key once; load the default sample on first start; keep widget values."""
    state = st.session_state
    keep_widget_values()
    state.setdefault("settings", dict(DEFAULT_SETTINGS))
    state.setdefault("encoding", json.loads(json.dumps(DEFAULT_ENCODING)))
    state.setdefault("results", {})
    state.setdefault("layouts", {})
    state.setdefault("job", None)
    state.setdefault("class_column", None)
    state.setdefault("truth", None)
    if "dataset" not in state:
        state["dataset"] = None
        use_table(sample_table(DEFAULT_SAMPLE))


def short_count(n):
    """A row count in a few characters: 569 -> "569", 5000 -> "5k", 1500 -> "1.5k", 2000000 -> "2M"."""
    for size, unit in ((1_000_000, "M"), (1_000, "k")):
        if n >= size:
            return f"{n / size:.3g}{unit}"
    return str(n)


def sample_table(name):
    """The bundled sample ``name`` as a Table (its network is the ground truth)."""
    truth = name if name in bundled.networks() else None
    frame = sample_frame(name)
    return Table(frame, f"sample {name}", f"sample:{name}", truth,
                 f"{SHORT_NAMES.get(name, name)} {short_count(len(frame))}", {"kind": "bundled", "name": name})


def upload_table(name, data, file_name, sep=None, encoding=None, header=True):
    """A Table from uploaded or pasted bytes (raises DataError on a bad table).

    ``name`` is what the user reads ("upload people.csv"); the stem of
    ``file_name`` names the data in result names ("people"). ``sep``,
    ``encoding`` and ``header`` are read_frame's (None: sniffed, detected).
    """
    frame, notes = read_frame(io.BytesIO(data), name=file_name, sep=sep, encoding=encoding, header=header)
    digest = hashlib.sha256(data).hexdigest()  # the whole digest: equal keys mean equal bytes
    stem = file_name.removesuffix(".gz").rsplit(".", 1)[0] or file_name
    # the same bytes read otherwise are other data
    read_as = (f":{sep!r}:{encoding}" if sep or encoding else "") + ("" if header else ":no header")
    return Table(frame, name, f"upload:{name}:{digest}{read_as}", None, f"{stem} {short_count(len(frame))}",
                 Session.table_source(data, file_name, name, sep, encoding, header), notes)


def network_table(name, rows, seed):
    """``rows`` rows sampled from a bundled network, which becomes the ground truth."""
    return Table(network_sample(name, rows, seed), f"{rows:,} rows sampled from {name} (seed {seed})",
                 f"network:{name}:{rows}:{seed}", name, f"{name} {short_count(rows)} seed {seed}",
                 {"kind": "network", "name": name, "rows": rows, "seed": seed})


def table_from_source(source):
    """The Table a saved session's data source stands for (the same rows, label and key).

    ``source`` was checked by :meth:`Session.loads` (bundled names from the lists, rows and seed
    in range, the carried file bounded)."""
    kind = source.get("kind")
    if kind == "bundled":
        return sample_table(source["name"])
    if kind == "network":
        return network_table(source["name"], int(source["rows"]), int(source["seed"]))
    return upload_table(source["label"], table_bytes(source), source["file_name"], source.get("sep"),
                        source.get("encoding"), source.get("header", True))


METHOD = re.compile(r"uniform3|(quantile|width):([2-9]|1[0-9]|20)")
"""A discretization the Data page writes (``manual:<cut points>`` besides, per column)."""


def check_encoding(encoding):
    """Check the Data page's encoding settings read from a session file (``app.encoding``) before
    they are used: the keys and types the page writes, in its ranges (DataError naming the field)."""
    where = "app.encoding"
    if isinstance(encoding, dict):
        encoding.setdefault("missing_values", [])  # sessions saved before the Data page had *Also missing*
    check_field(isinstance(encoding, dict) and set(encoding) == set(DEFAULT_ENCODING), where,
                f"an object with {', '.join(DEFAULT_ENCODING)}", encoding)
    check_field(isinstance(encoding["default_method"], str) and METHOD.fullmatch(encoding["default_method"]),
                f"{where}.default_method", "uniform3, quantile:K or width:K (K from 2 to 20)",
                encoding["default_method"])
    methods = encoding["methods"]
    check_field(isinstance(methods, dict) and all(
        isinstance(m, str) and (METHOD.fullmatch(m) or m.startswith("manual:")) for m in methods.values()),
        f"{where}.methods", "an object of column: method", methods)
    for key in ("as_categorical", "as_numeric", "leave_out"):
        value = encoding[key]
        check_field(isinstance(value, list) and all(isinstance(v, str) for v in value), f"{where}.{key}",
                    "a list of column names", value)
    value = encoding["missing_values"]
    check_field(isinstance(value, list) and len(value) <= MAX_MISSING_MARKS
                and all(isinstance(v, str) and len(v) <= MARKS_CHARS for v in value), f"{where}.missing_values",
                f"a list of at most {MAX_MISSING_MARKS} texts of at most {MARKS_CHARS} characters", value)
    check_field(encoding["missing"] in MISSING_POLICIES, f"{where}.missing", ", ".join(MISSING_POLICIES[:-1])
                + f" or {MISSING_POLICIES[-1]}", encoding["missing"])
    value = encoding["max_levels"]
    check_field(isinstance(value, int) and not isinstance(value, bool) and 2 <= value <= 10_000,
                f"{where}.max_levels", "a whole number from 2 to 10,000", value)


def encoder_options(encoding, frame):
    """Encoder keyword arguments from the Data page's encoding settings."""
    columns = [str(c) for c in frame.columns if str(c) not in encoding["leave_out"]]
    marks = encoding["missing_values"] or None
    profile = Encoder(discretize=encoding["default_method"], types=column_types(encoding, columns),
                      max_levels=encoding["max_levels"], missing_values=marks).profile(frame[columns])
    numeric = profile.loc[profile["type"] == "numeric", "column"].tolist()
    methods = {name: encoding["methods"].get(name, encoding["default_method"]) for name in numeric}
    return {"discretize": methods or None, "types": column_types(encoding, columns) or None,
            "missing": encoding["missing"], "max_levels": encoding["max_levels"], "missing_values": marks}, columns


def column_types(encoding, columns):
    """The Encoder's ``types`` from the Data page's encoding: ``{column: "categorical" or "numeric"}``
    for the ``columns`` the user marked (``as_numeric`` wins over ``as_categorical``)."""
    types = {name: "categorical" for name in encoding["as_categorical"] if name in columns}
    types.update({name: "numeric" for name in encoding["as_numeric"] if name in columns})
    return types


def encode(table, encoding):
    """Encode a table with the Data page's settings: ``(dataset, key, (options, columns))``, the last
    as :func:`encoder_options` gives them (DataError on failure)."""
    options, columns = encoder_options(encoding, table.frame)
    if len(columns) < 2:  # one variable has no network (and the Tune page's in-degree slider no range)
        raise DataError(f"{table.label} has {len(columns) or 'no'} column{'' if len(columns) == 1 else 's'} in "
                        f"use{''.join(f' ({c!r})' for c in columns)}; a network needs at least two variables: "
                        "keep, or load a table with, at least two columns")
    dataset = Encoder(**options).fit_transform(table.frame[columns])
    key = table.key + ":" + hashlib.sha1(json.dumps(encoding, sort_keys=True).encode()).hexdigest()[:12]
    return dataset, key, (options, columns)


def default_encoding(table):
    """The Data page's settings for a newly loaded table: the defaults, with every column that looks like a
    row identifier (:meth:`Encoder.profile`'s ``identifier``: each row its own value) left out, as long as two
    columns remain.

    Returns
    -------
    encoding : dict
        Like :data:`DEFAULT_ENCODING`.
    identifiers : dict of str to int
        The columns left out and the number of distinct values (= non-missing rows) of each.

    Raises DataError when the table cannot be profiled (duplicated column names).
    """
    encoding = json.loads(json.dumps(DEFAULT_ENCODING))
    profile = Encoder().profile(table.frame)
    found = profile[profile["identifier"]]
    if len(profile) - len(found) < 2:
        return encoding, {}
    encoding["leave_out"] = found["column"].tolist()
    return encoding, dict(zip(found["column"], found["distinct"].astype(int).tolist()))


def use_table(table, encoding=None):
    """Make ``table`` (encoded with ``encoding``) the data in use.

    Raises DataError and changes nothing when the table cannot be encoded.
    """
    state = st.session_state
    encoding = json.loads(json.dumps(encoding if encoding is not None else DEFAULT_ENCODING))
    dataset, key, used = encode(table, encoding)
    state["table"] = table
    state["encoding"] = encoding
    state["encoder_options"] = used
    state["dataset"] = dataset
    state["data_key"] = key
    state["data_label"] = table.label
    state["data_short"] = table.short or table.label
    if dataset.n_rows != len(table.frame):  # rows with a blank cell dropped: result names say the rows in use
        state["data_short"] += f", {short_count(dataset.n_rows)} used"
    state["truth"] = network(table.truth_name) if table.truth_name else None
    if state.get("class_column") not in dataset.names:
        state["class_column"] = None


def dataset():
    """The encoded data in use."""
    return st.session_state["dataset"]


def truth_for(names):
    """The ground-truth network if it has exactly these variables, else None."""
    truth = st.session_state.get("truth")
    if truth is not None and sorted(truth.names) == sorted(names):
        return truth
    return None


def current_scorer(data=None, key=None, score=None, ess=None):
    """The cached Scorer of the data in use (or of ``data`` / ``key``) with the Tune settings."""
    settings = st.session_state["settings"]
    score = score or settings["score"]
    if score not in SCORES:
        score = "bdeu"
    ess = ess if ess is not None else settings["ess"]
    return scorer(key or st.session_state["data_key"], score, float(ess), data if data is not None else dataset())


def score_label(score, ess=None):
    """A score and its setting as people write them: "BDeu(1)", "BIC", "K2" (the score registry's labels)."""
    spec = SCORES.get(score) if isinstance(score, str) else None
    return str(score) if spec is None else spec.settings_text({"ess": ess})


def result_name(algorithm, settings_text, data_short):
    """The name a result is kept under: algorithm, score settings and data ("hc · BDeu(1) · alarm 5k")."""
    return " · ".join(part for part in (algorithm, settings_text, data_short) if part)


def add_result(name, result, data=None, data_key=None, data_label=None):
    """Keep a result under a unique name (``name``, ``name (2)``, ...) and look at it next.

    The new entry becomes the focus (the network Networks shows and Compare
    puts beside its reference) and the generation counter moves on, so every
    picker starts on it. Returns the Entry.
    """
    results = st.session_state["results"]
    unique, k = name, 2
    while unique in results:
        unique, k = f"{name} ({k})", k + 1
    entry = Entry(unique, result, data, data_key, data_label or "")
    result.extra["app"] = {"name": unique, "data_label": entry.data_label, "data_key": data_key}
    results[unique] = entry
    st.session_state["focus"] = unique
    st.session_state["generation"] = st.session_state.get("generation", 0) + 1
    return entry


def focus(names):
    """The network to show among ``names``: the focus when it is there, else the newest."""
    chosen = st.session_state.get("focus")
    return chosen if chosen in names else names[-1]


def set_focus(name):
    """The user picked ``name``: every page shows it next."""
    st.session_state["focus"] = name


def generation():
    """How many results have been added in this session (pickers reset when it changes)."""
    return st.session_state.get("generation", 0)


def positions(names, graph=None):
    """Node positions for a node set, computed once per session and reused.

    The first time a node set is drawn with edges, the layout follows the
    ground truth when it has these variables, else ``graph``; a graph without
    edges gets a temporary layout that is not kept.
    """
    layouts = st.session_state["layouts"]
    key = tuple(sorted(names))
    if key not in layouts:
        truth = truth_for(names)
        source = truth.dag() if truth is not None else graph
        edges = viz.graph_edges(source) if source is not None else []
        if not edges:
            return viz.layered_layout(sorted(names), [])
        layouts[key] = viz.layered_layout(sorted(names), edges)
    return layouts[key]


def reset_layout(names, graph):
    """Lay out a node set again from ``graph`` (the user asked for it)."""
    key = tuple(sorted(names))
    st.session_state["layouts"][key] = viz.layered_layout(sorted(names), viz.graph_edges(graph))


# ---------------------------------------------------------------------------
# saving and opening a whole session


def snapshot(state=None):
    """The session as a :class:`bnexplore.session.Session`: data source, encoding, settings, results.

    ``state`` is the session state to read (default: this run's ``st.session_state``).
    """
    state = st.session_state if state is None else state
    table, encoding = state["table"], state["encoding"]
    options, columns = state["encoder_options"]
    results = [SavedResult(entry.name, entry.result, entry.data_label, entry.data_key, entry.cache.get("credible"))
               for entry in state["results"].values()]
    knowledge = state["knowledge"] if "knowledge" in state else None
    return Session(table.source, {**options, "columns": columns}, state["class_column"],
                   dict(state["settings"]), knowledge, results, {"encoding": encoding})


def open_session(session):
    """Continue a saved session: its data, encoding and settings replace the current ones, its results
    join the kept results (nothing kept is dropped).

    ``session`` comes from :meth:`Session.loads`, which checked every library field; the app's
    own (``app.encoding``) is checked here, and the table read and encoded, before anything is
    replaced: on failure this raises DataError and changes nothing.
    """
    state = st.session_state
    encoding = session.app.get("encoding") or DEFAULT_ENCODING
    check_encoding(encoding)
    table = table_from_source(session.source)
    use_table(table, encoding)
    state.pop("draft", None)  # else the Data page would put the table it was preparing back in use
    state["settings"] = {**DEFAULT_SETTINGS, **session.settings}
    state["knowledge"] = session.knowledge
    if session.class_column in state["dataset"].names:
        state["class_column"] = session.class_column
    names = []
    for saved in session.results:
        same = saved.data_key is not None and saved.data_key == state["data_key"]
        entry = add_result(saved.name, saved.result, state["dataset"] if same else None,
                           state["data_key"] if same else saved.data_key, saved.data_label)
        if saved.credible is not None:
            entry.cache["credible"] = saved.credible
        names.append(entry.name)
    return names
