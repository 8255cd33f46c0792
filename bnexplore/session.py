"""A whole working session in one file: the data (or where it comes from), how it is encoded, the
settings, the knowledge, and every result, so that work can be saved and picked up again.

The file is gzipped JSON::

    {"format": "bnexplore-session", "version": 1,
     "data": {"source": {...}, "encoding": {...}, "class_column": ...},
     "settings": {...}, "knowledge": {...} or null, "app": {...},
     "results": [{"name": ..., "data_label": ..., "data_key": ..., "result": <Result JSON>,
                  "credible": <CredibleSet JSON> or absent}, ...]}

A data source is a bundled data set (``{"kind": "bundled", "name": "asia"}``), rows
sampled from a bundled network (``{"kind": "network", "name", "rows", "seed"}``) or a
table carried in the file (``{"kind": "table", "label", "file_name", "bytes"}``, the
original file's bytes, base64, with ``"sep"`` and ``"encoding"`` when they were chosen rather
than detected, and ``"header": false`` for a file without a header line), so loading reproduces exactly
the same rows.

A session file may come from anyone, so :meth:`Session.loads` checks all of it before
building anything (DESIGN.md, "Serving safely"): the gzip and the JSON are bounded
(:func:`bnexplore.limits.gunzip`, :data:`BYTES_PER_ITEM`, :data:`MAX_DEPTH`), every text,
graph and number is bounded (the ``MAX_*`` constants below: the limits of the app's
widgets that write these fields), a bundled name must be one of :func:`bundled.samples`
or :func:`bundled.networks` (never a path), and the knowledge must read as
:class:`bnexplore.knowledge.Knowledge`. A failure is one DataError (a ResourceError for
a file past the bounds) naming the field, e.g. ``settings.ess``.
"""

import base64
import binascii
import gzip
import inspect
import io
import json
import math
import zlib
from dataclasses import dataclass, field

from . import bundled, limits
from .bif import read_bif, sample
from .bnkl import SELECT_RULES
from .data import Encoder, read_frame
from .errors import BNExploreError, DataError, ResourceError
from .knowledge import Knowledge
from .result import Result, to_plain
from .scores.registry import ESS, SCORES
from .search.credible import CredibleSet
from .search.exact import MAX_VARIABLES

FORMAT = "bnexplore-session"
VERSION = 1
SOURCE_KINDS = ("bundled", "network", "table")

SAMPLED_ROWS = (10, 200_000)
"""Fewest and most rows a network source may sample (the Data page's *Rows*)."""
MAX_SEED = 10**9
"""Largest seed of a network source (the Data page's *Seed*; the smallest is 0)."""
ESS_RANGE = (ESS.low_widget, ESS.high_widget)
"""Smallest and largest equivalent sample size (the Tune page's *ESS*, from the score registry)."""
MAX_INDEGREE = 10
"""Largest ``max_indegree`` setting (the Tune page's in-degree slider)."""
MAX_KL_PARENTS = 4
"""Largest ``kl_max_parents`` setting (the Tune page's *Largest parent set M*)."""
TABLE_SEPARATORS = (",", ";", "\t", "|")
"""Separators a table source may name (the Data page's *Separator*; absent: sniffed)."""
TABLE_ENCODINGS = ("utf-8", "latin-1", "cp1252", "utf-16", "utf-32")
"""Text encodings a table source may name (the Data page's *Encoding*; absent: detected)."""
MAX_TEXT = 10_000
"""Most characters of any text in a session file but the carried table's bytes."""
MAX_DEPTH = 64
"""Deepest nesting of JSON arrays and objects (a session written by bnexplore nests about 8 deep)."""
BYTES_PER_ITEM = 32
"""A session's JSON may hold one item (``[``, ``{`` or ``,``) per this many bytes of the expansion
bound, so parsing it holds about as much memory as :func:`bnexplore.limits.max_expanded_bytes`."""
MAX_GRAPH_NODES = 5_000
"""Most nodes of one graph in a session file (the largest bundled network has 1,041)."""
MAX_GRAPH_ARCS = 200_000
"""Most arcs and links of one graph in a session file."""
MAX_GRAPH_CELLS = 1 << 26
"""Most adjacency-matrix cells (nodes squared) of all graphs in one session file together."""
RESULT_NUMBERS = {"params": ("ess", "bf", "epsilon", "max_indegree", "n_rows", "max_parents"),
                  "stats": ("seconds", "bound", "gap")}
"""Entries of a saved result's ``params`` and ``stats`` that readers compute with: numbers (``"inf"`` as
:func:`bnexplore.result.to_plain` writes infinity) or null."""

@dataclass
class SavedResult:
    """One kept result of a session.

    Attributes
    ----------
    name : str
    result : Result
    data_label : str
        What the data it was learned on were called.
    data_key : str or None
        Identifies those data (source and encoding); equal keys mean the same rows
        and encoding.
    credible : CredibleSet or None
        The credible set behind a credible-set result.
    """

    name: str
    result: Result
    data_label: str = ""
    data_key: str | None = None
    credible: CredibleSet | None = None

    def to_json(self):
        out = {"name": self.name, "data_label": self.data_label, "data_key": self.data_key,
               "result": self.result.to_json()}
        if self.credible is not None:
            out["credible"] = self.credible.to_json(graphs=0)
        return out

    @classmethod
    def from_json(cls, doc, where="result"):
        """Read :meth:`to_json` output, checking every field (DataError naming ``where`` and the field)."""
        check_field(isinstance(doc, dict), where, "an object", doc)
        name, label, key = (doc.get(k) for k in ("name", "data_label", "data_key"))
        check_field(isinstance(name, str) and name.strip(), f"{where}.name", "a name", name)
        check_field(label is None or isinstance(label, str), f"{where}.data_label", "text", label)
        check_field(key is None or isinstance(key, str), f"{where}.data_key", "text or null", key)
        body = doc.get("result")
        check_field(isinstance(body, dict), f"{where}.result", "a result object", body)
        for part, kind, must in (("algorithm", str, "text"), ("score_name", str, "text"), ("params", dict, "an object"),
                                 ("stats", dict, "an object"), ("trajectory", list, "a list"),
                                 ("extra", dict, "an object")):
            check_field(part not in body or isinstance(body[part], kind), f"{where}.result.{part}", must,
                        body.get(part))
        for part, entries in RESULT_NUMBERS.items():
            for entry in entries:
                value = body.get(part, {}).get(entry)
                check_field(value in (None, "inf", "-inf") or _number(value), f"{where}.result.{part}.{entry}",
                            "a number or null", value)
        for k, step in enumerate(body.get("trajectory") or ()):
            args = step.get("args", []) if isinstance(step, dict) else None
            check_field(isinstance(args, list) and all(isinstance(a, str) for a in args)
                        and isinstance(step.get("op", ""), str)
                        and all(step.get(n) is None or _number(step[n]) for n in ("score", "delta", "seconds")),
                        f"{where}.result.trajectory[{k}]", "a step (op, args: names, score, delta, seconds)", step)
        result = _read(Result.from_json, body, f"{where}.result")
        credible = doc.get("credible")
        if credible is not None:
            check_field(isinstance(credible, dict) and isinstance(credible.get("names"), list)
                        and len(credible["names"]) <= MAX_VARIABLES,
                        f"{where}.credible.names", f"a list of at most {MAX_VARIABLES} names", credible.get("names")
                        if isinstance(credible, dict) else credible)
            credible = _read(CredibleSet.from_json, credible, f"{where}.credible")
        return cls(name, result, label or "", key, credible)


@dataclass
class Session:
    """Everything needed to continue a piece of work.

    Attributes
    ----------
    source : dict
        Where the table comes from (see the module docstring).
    encoding : dict
        :class:`bnexplore.data.Encoder` keyword arguments, plus ``columns``: the
        columns used (None: all).
    class_column : str or None
    settings : dict
        Score and search settings (score, ess, bf, max_indegree, ...).
    knowledge : dict or None
        Required / forbidden arcs and tiers, as ``Knowledge.to_json()`` writes them.
    results : list of SavedResult
    app : dict
        What a front end keeps besides (the app's page settings); the library
        only carries it.
    """

    source: dict
    encoding: dict = field(default_factory=dict)
    class_column: str | None = None
    settings: dict = field(default_factory=dict)
    knowledge: dict | None = None
    results: list = field(default_factory=list)
    app: dict = field(default_factory=dict)

    # -- the data ------------------------------------------------------------
    @staticmethod
    def table_source(data, file_name, label=None, sep=None, encoding=None, header=True):
        """A source that carries a table's file in the session (``data``: the file's bytes; ``sep``,
        ``encoding`` and ``header`` as :func:`bnexplore.data.read_frame` takes them, None: sniffed and
        detected; ``"header": false`` is written only for a file without a header line)."""
        source = {"kind": "table", "label": label or file_name, "file_name": file_name,
                  "bytes": base64.b64encode(bytes(data)).decode("ascii")}
        source.update({key: value for key, value in (("sep", sep), ("encoding", encoding)) if value is not None})
        if not header:
            source["header"] = False
        return source

    def frame(self):
        """The raw table of the session's source (a DataFrame of the file's values or state names)."""
        kind = self.source.get("kind")
        if kind == "bundled":
            return read_frame(bundled.sample_path(self.source["name"]))[0]
        if kind == "network":
            network = read_bif(bundled.network_path(self.source["name"]))
            return sample(network, int(self.source["rows"]), seed=self.source.get("seed"))
        if kind == "table":
            return read_frame(io.BytesIO(table_bytes(self.source)), name=self.source.get("file_name"),
                              sep=self.source.get("sep"), encoding=self.source.get("encoding"),
                              header=self.source.get("header", True))[0]
        raise DataError(f"this session's data source is of an unknown kind {kind!r}; "
                        f"known are {', '.join(SOURCE_KINDS)}")

    def dataset(self):
        """The encoded data of the session (its table encoded with its settings)."""
        frame = self.frame()
        options = dict(self.encoding)
        columns = options.pop("columns", None)
        if columns is not None:
            missing = [c for c in columns if c not in frame.columns]
            if missing:
                raise DataError(f"this session's table has no column {missing[0]!r}")
            frame = frame[columns]
        return Encoder(**options).fit_transform(frame)

    # -- the file --------------------------------------------------------------
    def to_json(self):
        """A JSON-ready dict of the session (what :meth:`dumps` compresses)."""
        return {"format": FORMAT, "version": VERSION,
                "data": {"source": self.source, "encoding": to_plain(self.encoding),
                         "class_column": self.class_column},
                "settings": to_plain(self.settings), "knowledge": to_plain(self.knowledge),
                "app": to_plain(self.app), "results": [r.to_json() for r in self.results]}

    def dumps(self):
        """The session file's bytes (gzipped JSON)."""
        return gzip.compress(json.dumps(self.to_json()).encode("utf-8"), compresslevel=6)

    @classmethod
    def loads(cls, data):
        """Read a session file's bytes (gzipped or plain JSON), checking every field first.

        Raises
        ------
        DataError
            Naming what is wrong: not a session file, a newer version, the field that is
            broken (``settings.ess must be a number from 0.01 to 1000, got 'abc'``).
        ResourceError
            When the file expands (or holds JSON) past the bounds of this server.
        """
        doc = _document(data)
        version = doc.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise DataError("not a bnexplore session file: it has no version number")
        if version > VERSION:
            raise DataError(f"this session file was written by a newer bnexplore (session version {version}); "
                            f"this one reads version {VERSION}: update bnexplore to open it")
        _check_tree(doc)
        part = doc.get("data")
        check_field(isinstance(part, dict), "data", "an object with the data source", part)
        source = part.get("source")
        check_field(isinstance(source, dict), "data.source", "an object", source)
        _check_source(source)
        encoding = part.get("encoding") or {}
        _check_encoding(encoding)
        class_column = part.get("class_column")
        check_field(class_column is None or isinstance(class_column, str), "data.class_column", "a column name or null",
                    class_column)
        settings = doc.get("settings") or {}
        _check_settings(settings)
        knowledge = doc.get("knowledge")
        check_field(knowledge is None or isinstance(knowledge, dict), "knowledge", "an object or null", knowledge)
        if knowledge is not None:
            _read(Knowledge.from_json, knowledge, "knowledge")
        app = doc.get("app") or {}
        check_field(isinstance(app, dict), "app", "an object", app)
        results = doc.get("results") or []
        check_field(isinstance(results, list), "results", "a list", results)
        results = [SavedResult.from_json(r, f"results[{i}]") for i, r in enumerate(results)]
        return cls(source=dict(source), encoding=dict(encoding), class_column=class_column,
                   settings=dict(settings), knowledge=knowledge, results=results, app=dict(app))


def table_bytes(source):
    """The file a table source carries, as bytes, checked before it is expanded.

    The base64 text may stand for at most :func:`bnexplore.limits.max_expanded_bytes`
    bytes, and a gzipped file must expand within that bound too.

    Parameters
    ----------
    source : dict
        ``{"kind": "table", "label", "file_name", "bytes"}``.

    Returns
    -------
    bytes
        The file as it was uploaded (still gzipped when it was).

    Raises
    ------
    DataError
        When the text is not base64 or the gzip is damaged.
    ResourceError
        When the file is larger, or expands further, than the bound.

    Examples
    --------
    >>> table_bytes(Session.table_source(b"a,b\\n0,1\\n", "t.csv"))
    b'a,b\\n0,1\\n'
    """
    text = source.get("bytes")
    check_field(isinstance(text, str), "data.source.bytes", "the table's file in base64", text)
    what = f"the table {_shown(source.get('file_name'))} in the session file"
    limit = limits.max_expanded_bytes()
    if len(text) > 4 * (limit // 3 + 1):
        raise limits.too_large(what, limit)
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise DataError("the session file is broken: data.source.bytes is not valid base64 text; "
                        "nothing was loaded") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            limits.gunzip(raw, what, limit)
        except (zlib.error, EOFError) as error:
            raise DataError(f"{what} is a damaged gzip file ({error}); nothing was loaded") from None
    return raw


def _document(data):
    """The JSON object of a session file's bytes, or a DataError saying what the file is not.

    The gzip is expanded within :func:`bnexplore.limits.max_expanded_bytes`, and the JSON
    may hold one item per :data:`BYTES_PER_ITEM` bytes of that bound, counted before parsing.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    data = bytes(data)
    if not data:
        raise DataError("the session file is empty")
    if data[:2] == b"\x1f\x8b":
        try:
            data = limits.gunzip(data, "the session file")
        except (zlib.error, EOFError) as error:
            raise DataError(f"the session file is a damaged gzip file ({error})") from None
    items = data.count(b"[") + data.count(b"{") + data.count(b",")
    most = limits.max_expanded_bytes() // BYTES_PER_ITEM
    if items > most:
        raise ResourceError(f"the session file holds more than {most:,} JSON items ({items:,}), the limit of this "
                            f"server (set {limits.ENVIRONMENT} to allow more); nothing was loaded")
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise DataError("not a bnexplore session file: it is neither gzipped JSON nor JSON text") from None
    except RecursionError:
        raise DataError(f"the session file is broken: its JSON is nested too deep (a session nests at most "
                        f"{MAX_DEPTH} levels); nothing was loaded") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise DataError('not a bnexplore session file: it lacks "format": "bnexplore-session" '
                        "(a result file is imported on the Networks page, or with Result.from_json)")
    return doc


def _shown(value):
    """A value as a message shows it: its repr, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _broken(where, must, value):
    return DataError(f"the session file is broken: {where} must be {must}, got {_shown(value)}; nothing was loaded")


def check_field(condition, where, must, value):
    """Raise the DataError "the session file is broken: ``where`` must be ``must``, got ``value``" unless
    ``condition`` (for a front end checking its own fields of a session, ``Session.app``).

    Examples
    --------
    >>> check_field(2 > 1, "settings.bf", "a number", 2)
    >>> check_field(False, "settings.bf", "a number", "x")
    Traceback (most recent call last):
    ...
    bnexplore.errors.DataError: the session file is broken: settings.bf must be a number, got 'x'; nothing was loaded
    """
    if not condition:
        raise _broken(where, must, value)


def _read(reader, value, where):
    """``reader(value)``, any failure worded as a broken field ``where`` of the session file."""
    try:
        return reader(value)
    except ResourceError:
        raise
    except BNExploreError as error:
        raise DataError(f"the session file is broken: {where}: {error}; nothing was loaded") from None
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, OverflowError) as error:
        raise DataError(f"the session file is broken: {where} cannot be read ({type(error).__name__}: "
                        f"{str(error)[:120]}); nothing was loaded") from None


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _whole(value, low, high):
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _text(value):
    return isinstance(value, str) and 0 < len(value.strip())


def _check_tree(doc):
    """Bound the whole JSON tree: nesting depth, text lengths, graph sizes (DataError naming where)."""
    part = doc.get("data")
    source = part.get("source") if isinstance(part, dict) else None
    carried = source.get("bytes") if isinstance(source, dict) else None
    cells = 0
    stack = [(doc, 0, None)]  # (value, depth, trail): the trail is (key, the parent's trail)
    while stack:
        value, depth, trail = stack.pop()
        if depth > MAX_DEPTH:
            raise DataError(f"the session file is broken: its JSON is nested too deep at {_path(trail)} (a session "
                            f"nests at most {MAX_DEPTH} levels); nothing was loaded")
        if isinstance(value, dict):
            if isinstance(value.get("nodes"), list):
                cells += _check_graph(value, _path(trail))
                if cells > MAX_GRAPH_CELLS:
                    raise ResourceError(f"the session file's graphs hold more than {MAX_GRAPH_CELLS:,} adjacency "
                                        f"cells together (at {_path(trail)}), the limit of a session; nothing "
                                        "was loaded")
            if value and max(map(len, value)) > MAX_TEXT:  # JSON keys are text
                raise _broken(f"a key in {_path(trail)}", f"at most {MAX_TEXT:,} characters",
                              max(value, key=len))
            items = value.items()
        else:
            items = enumerate(value)
        if set(map(type, value.values() if isinstance(value, dict) else value)) <= _NUMBERS:
            continue  # nothing to look into (most lists: scores, parents, probabilities)
        for key, item in items:
            if isinstance(item, (dict, list)):
                stack.append((item, depth + 1, (key, trail)))
            elif isinstance(item, str) and len(item) > MAX_TEXT and item is not carried:
                raise _broken(_path((key, trail)), f"at most {MAX_TEXT:,} characters", item)


_NUMBERS = {int, float, bool, type(None)}
"""JSON values with nothing to bound inside them."""


def _path(trail):
    """Where a trail of keys leads, as messages name it: ``results[0].result.graph``."""
    keys = []
    while trail is not None:
        key, trail = trail
        keys.append(key)
    text = ""
    for key in reversed(keys):
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else str(key))
    return text or "the file"


def _check_graph(graph, where):
    """Bound one graph's nodes and arcs; returns its adjacency cells (nodes squared)."""
    n = len(graph["nodes"])
    check_field(n <= MAX_GRAPH_NODES, f"{where}.nodes", f"at most {MAX_GRAPH_NODES:,} nodes", f"{n:,} nodes")
    pairs = sum(len(graph[k]) for k in ("arcs", "links") if isinstance(graph.get(k), list))
    check_field(pairs <= MAX_GRAPH_ARCS, f"{where}.arcs", f"at most {MAX_GRAPH_ARCS:,} arcs and links",
                f"{pairs:,}")
    return n * n


def _check_source(source):
    """A data source of a known kind with fields in the Data page's ranges; bundled names from the lists."""
    kind = source.get("kind")
    if kind not in SOURCE_KINDS:
        raise DataError(f"the session file is broken: unknown data source {_shown(kind)}; known are "
                        f"{', '.join(SOURCE_KINDS)}; nothing was loaded")
    name = source.get("name")
    if kind == "bundled":
        check_field(isinstance(name, str) and name in bundled.samples(), "data.source.name",
                    f"a bundled data set ({', '.join(bundled.samples())})", name)
    elif kind == "network":
        check_field(isinstance(name, str) and name in bundled.networks(), "data.source.name",
                    "a bundled network (" + ", ".join(bundled.networks()) + ")", name)
        low, high = SAMPLED_ROWS
        check_field(_whole(source.get("rows"), low, high), "data.source.rows", f"a whole number from {low} to {high:,}",
                    source.get("rows"))
        check_field(_whole(source.get("seed"), 0, MAX_SEED), "data.source.seed",
                    f"a whole number from 0 to {MAX_SEED:,}", source.get("seed"))
    else:
        for key in ("label", "file_name"):
            check_field(_text(source.get(key)) and len(source[key]) <= MAX_TEXT, f"data.source.{key}", "a name",
                        source.get(key))
        check_field(source.get("sep") in (None, *TABLE_SEPARATORS), "data.source.sep",
                    f"one of {', '.join(map(repr, TABLE_SEPARATORS))} or absent", source.get("sep"))
        check_field(source.get("encoding") in (None, *TABLE_ENCODINGS), "data.source.encoding",
                    f"one of {', '.join(TABLE_ENCODINGS)} or absent", source.get("encoding"))
        check_field(isinstance(source.get("header", True), bool), "data.source.header", "true, false or absent",
                    source.get("header"))
        table_bytes(source)


ENCODER_OPTIONS = tuple(inspect.signature(Encoder).parameters)
"""The keys an encoding may have besides ``columns``: :class:`bnexplore.data.Encoder`'s keywords."""


def _check_encoding(encoding):
    check_field(isinstance(encoding, dict), "data.encoding", "an object of Encoder options", encoding)
    unknown = sorted(set(encoding) - {*ENCODER_OPTIONS, "columns"})
    check_field(not unknown, f"data.encoding.{unknown[0] if unknown else ''}",
                f"one of {', '.join(ENCODER_OPTIONS)}, columns", "an unknown option")
    columns = encoding.get("columns")
    check_field(columns is None or (isinstance(columns, list) and all(isinstance(c, str) for c in columns)),
                "data.encoding.columns", "a list of column names or null", columns)


def _check_settings(settings):
    """Settings typed and bounded as the Tune page writes them; other keys may hold plain values."""
    check_field(isinstance(settings, dict), "settings", "an object", settings)
    low, high = ESS_RANGE
    checks = {
        "score": (lambda v: isinstance(v, str) and v in SCORES, f"one of {', '.join(SCORES)}"),
        "ess": (lambda v: _number(v) and low <= v <= high, f"a number from {low:g} to {high:g}"),
        "bf": (lambda v: _number(v) and v >= 1, "a finite number >= 1"),
        "max_indegree": (lambda v: v is None or _whole(v, 0, MAX_INDEGREE),
                         f"a whole number from 0 to {MAX_INDEGREE} (0 or null: no limit)"),
        "kl_max_parents": (lambda v: _whole(v, 0, MAX_KL_PARENTS), f"a whole number from 0 to {MAX_KL_PARENTS}"),
        "kl_select": (lambda v: v in SELECT_RULES, f"one of {', '.join(SELECT_RULES)}"),
    }
    for key, value in settings.items():
        check, must = checks.get(key, (lambda v: v is None or isinstance(v, (str, bool)) or _number(v),
                                       "a plain value (text, number, true/false or null)"))
        check_field(check(value), f"settings.{key}", must, value)


def save_session(session, path):
    """Write ``session`` to ``path`` (gzipped JSON; ``.bnx`` is the usual suffix).

    Parameters
    ----------
    session : Session
    path : str or path-like

    Examples
    --------
    A session on the bundled asia data with one learned network, saved and read back:

    >>> import os, tempfile
    >>> from bnexplore import Session, learn, load_session, save_session
    >>> from bnexplore.session import SavedResult
    >>> session = Session(source={"kind": "bundled", "name": "asia"}, settings={"score": "bdeu"})
    >>> result = learn(session.dataset(), "hc")
    >>> session.results.append(SavedResult("hc", result, data_label="asia"))
    >>> folder = tempfile.TemporaryDirectory()
    >>> save_session(session, os.path.join(folder.name, "work.bnx"))
    >>> load_session(os.path.join(folder.name, "work.bnx")).results[0].result.score == result.score
    True
    >>> folder.cleanup()
    """
    with open(path, "wb") as f:
        f.write(session.dumps())


def load_session(path):
    """Read a session file written by :func:`save_session` or the app's *Save session* button.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    Session
        Checked field by field (see :meth:`Session.loads`); its data are built on demand
        (:meth:`Session.dataset`).

    Raises
    ------
    DataError
        Naming the field that is wrong.
    ResourceError
        When the file expands past the bounds of this machine.

    Examples
    --------
    >>> import os, tempfile
    >>> from bnexplore import Session, load_session, save_session
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "work.bnx")
    >>> save_session(Session(source={"kind": "network", "name": "asia", "rows": 500, "seed": 1}), path)
    >>> session = load_session(path)
    >>> session.source["rows"], session.dataset().names[:3]
    (500, ['asia', 'tub', 'smoke'])
    >>> folder.cleanup()
    """
    with open(path, "rb") as f:
        return Session.loads(f.read())
