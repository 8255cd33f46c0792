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
original file's bytes, base64), so loading reproduces exactly the same rows.
"""

import base64
import gzip
import io
import json
from dataclasses import dataclass, field

from . import bundled
from .bif import read_bif, sample
from .data import Encoder, read_frame
from .errors import BNExploreError, DataError
from .result import Result, to_plain
from .search.credible import CredibleSet

FORMAT = "bnexplore-session"
VERSION = 1
SOURCE_KINDS = ("bundled", "network", "table")


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
    def from_json(cls, doc):
        credible = doc.get("credible")
        return cls(str(doc["name"]), Result.from_json(doc["result"]), str(doc.get("data_label") or ""),
                   doc.get("data_key"), None if credible is None else CredibleSet.from_json(credible))


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
    def table_source(data, file_name, label=None):
        """A source that carries a table's file in the session (``data``: the file's bytes)."""
        return {"kind": "table", "label": label or file_name, "file_name": file_name,
                "bytes": base64.b64encode(bytes(data)).decode("ascii")}

    def frame(self):
        """The raw table of the session's source (a DataFrame of the file's values or state names)."""
        kind = self.source.get("kind")
        if kind == "bundled":
            return read_frame(bundled.sample_path(self.source["name"]))[0]
        if kind == "network":
            network = read_bif(bundled.network_path(self.source["name"]))
            return sample(network, int(self.source["rows"]), seed=self.source.get("seed"))
        if kind == "table":
            raw = base64.b64decode(self.source["bytes"])
            return read_frame(io.BytesIO(raw))[0]
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
        """Read a session file's bytes (gzipped or plain JSON).

        Raises
        ------
        DataError
            Naming what is wrong: not a session file, a newer version, a broken part.
        """
        doc = _document(data)
        version = doc.get("version")
        if not isinstance(version, int):
            raise DataError("not a bnexplore session file: it has no version number")
        if version > VERSION:
            raise DataError(f"this session file was written by a newer bnexplore (session version {version}); "
                            f"this one reads version {VERSION}: update bnexplore to open it")
        try:
            data_part = doc["data"]
            source = dict(data_part["source"])
            if source.get("kind") not in SOURCE_KINDS:
                raise DataError(f"unknown data source {source.get('kind')!r}")
            results = [SavedResult.from_json(r) for r in doc.get("results", [])]
            return cls(source=source, encoding=dict(data_part.get("encoding") or {}),
                       class_column=data_part.get("class_column"), settings=dict(doc.get("settings") or {}),
                       knowledge=doc.get("knowledge"), results=results, app=dict(doc.get("app") or {}))
        except BNExploreError as error:  # a result or credible set inside it is broken
            raise DataError(f"the session file is broken: {error}; nothing was loaded") from None
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise DataError(f"the session file is broken ({type(error).__name__}: {error}); nothing was loaded") \
                from None


def _document(data):
    """The JSON object of a session file's bytes, or a DataError saying what the file is not."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not data:
        raise DataError("the session file is empty")
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as error:
            raise DataError(f"the session file is a damaged gzip file ({error})") from None
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise DataError("not a bnexplore session file: it is neither gzipped JSON nor JSON text") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise DataError('not a bnexplore session file: it lacks "format": "bnexplore-session" '
                        "(a result file is imported on the Networks page, or with Result.from_json)")
    return doc


def save_session(session, path):
    """Write ``session`` to ``path`` (gzipped JSON; ``.bnx`` is the usual suffix)."""
    with open(path, "wb") as f:
        f.write(session.dumps())


def load_session(path):
    """Read a session file written by :func:`save_session` or the app's *Save session* button."""
    with open(path, "rb") as f:
        return Session.loads(f.read())
