"""The one result object every structure search returns, and its JSON form."""

import json
from dataclasses import dataclass, field

import numpy as np

from . import graphs
from .errors import SearchError
from .graphs import DAG

STATS_KEYS = ("seconds", "iterations", "structures_evaluated", "local_scores_computed",
              "local_score_lookups", "nvar", "cache_hits", "stopped")
"""Statistics every search reports (the RPDAG paper's Ind, EstEv, TEst, NVar and time)."""


def to_plain(value):
    """Turn numpy scalars / arrays and graphs into JSON-ready values."""
    if hasattr(value, "to_json"):
        return {"__graph__": type(value).__name__, **value.to_json()}
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_plain(value.tolist())
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, float) and not np.isfinite(value):
        return None if np.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def parse_json(data, what):
    """``data`` as a dict: JSON text is parsed; a SearchError names ``what`` on bad input."""
    if isinstance(data, bytes):
        if not data.strip():
            raise SearchError(f"not a bnexplore {what} file: the file is empty")
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise SearchError(f"not a bnexplore {what} file: it is not UTF-8 JSON text (byte 0x{data[err.start]:02x} "
                              f"at position {err.start})") from None
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as err:
            raise SearchError(f"not a bnexplore {what} file: invalid JSON at line {err.lineno}") from None
    if not isinstance(data, dict):
        raise SearchError(f"not a bnexplore {what} file: expected a JSON object")
    return data


def _revive(value):
    """Inverse of :func:`to_plain` for graphs (other values stay plain)."""
    if isinstance(value, dict):
        if "__graph__" in value:
            body = {k: v for k, v in value.items() if k != "__graph__"}
            cls = getattr(graphs, value["__graph__"], graphs.PDAG)
            return cls.from_json(body)
        return {k: _revive(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_revive(v) for v in value]
    return value


@dataclass
class Result:
    """A learned network with its score, settings and search statistics.

    Attributes
    ----------
    graph : DAG
        The learned DAG (for RPDAG searches one consistent extension; the
        RPDAG itself is in ``extra["rpdag"]``).
    score : float
        Score of ``graph`` under ``score_name`` (natural log, higher is better).
    score_name : str
    algorithm : str
    params : dict
        Every setting the search ran with (score settings included).
    stats : dict
        At least the keys of :data:`STATS_KEYS`.
    trajectory : list of dict
        One entry per accepted step: ``step``, ``op``, ``args`` (names),
        ``delta``, ``score`` and algorithm-specific keys, so a run can be
        replayed.
    extra : dict
        Algorithm-specific outputs (graphs, paths, tables).
    """

    graph: object
    score: float
    score_name: str
    algorithm: str
    params: dict = field(default_factory=dict)
    stats: dict = field(default_factory=dict)
    trajectory: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    @property
    def names(self):
        """Variable names of the learned graph."""
        return list(self.graph.names)

    def to_json(self):
        """A JSON-ready dict (see DESIGN.md); :meth:`from_json` reads it back."""
        return {
            "algorithm": self.algorithm,
            "score": to_plain(self.score),
            "score_name": self.score_name,
            "graph": self.graph.to_json(),
            "params": to_plain(self.params),
            "stats": to_plain(self.stats),
            "trajectory": to_plain(self.trajectory),
            "extra": to_plain(self.extra),
        }

    def dumps(self, **kwargs):
        """The JSON text of :meth:`to_json`."""
        return json.dumps(self.to_json(), **kwargs)

    @classmethod
    def from_json(cls, data):
        """Rebuild a Result from :meth:`to_json` output (a dict or JSON text)."""
        data = parse_json(data, "result")
        missing = [k for k in ("algorithm", "score", "score_name", "graph") if k not in data]
        if missing:
            raise SearchError(f"not a bnexplore result file: missing {', '.join(missing)}")
        try:  # null is how to_plain writes NaN (a network scored on no data)
            score = float("nan") if data["score"] is None else float(data["score"])
        except (TypeError, ValueError):
            raise SearchError(f"not a bnexplore result file: score {data['score']!r} is not a number") from None
        return cls(graph=DAG.from_json(data["graph"]), score=score,
                   score_name=data["score_name"], algorithm=data["algorithm"],
                   params=data.get("params", {}), stats=data.get("stats", {}),
                   trajectory=data.get("trajectory", []), extra=_revive(data.get("extra", {})))
