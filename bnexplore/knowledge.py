"""Background knowledge for structure search: required arcs, forbidden arcs
and edges, and tiers.

A :class:`Knowledge` holds variable names and is checked against the
variables of a data set by :meth:`Knowledge.bind`, which refuses
contradictions before any search starts and returns a
:class:`BoundKnowledge`: index-level matrices and the helpers every search
calls (see DESIGN.md, "Knowledge").

Meaning (as in bnlearn's whitelist/blacklist, Scutari 2010, and Tetrad's
tiers, Spirtes, Glymour & Scheines 2000, Section 5.8):

- ``require=[(u, v)]``: every network has the arc ``u -> v``.
- ``forbid=[(u, v)]``: no network has the arc ``u -> v`` (``v -> u`` is free).
- ``forbid_edges=[(u, v)]``: no network has ``u`` and ``v`` adjacent, in
  either direction.
- ``tiers=[[...], [...], ...]``: no arc points from a variable in a later
  tier into one in an earlier tier; arcs within a tier, and from an earlier
  tier into a later one, are free. Variables in no tier are unconstrained
  by the tiers (so tiers can order just the few variables one knows about).
"""

import json

import numpy as np

from .errors import OptionError, SearchError
from .graphs import find_cycle


class Knowledge:
    """Required arcs, forbidden arcs and edges, and tiers, by variable name.

    Parameters
    ----------
    require, forbid : iterable of (str, str)
        Arcs ``(parent, child)``.
    forbid_edges : iterable of pairs of str
        Unordered pairs (a 2-set, list or tuple) that may not be adjacent.
    tiers : iterable of iterable of str
        Ordered tiers; no arc from a later tier into an earlier one.

    Notes
    -----
    The object only stores names (duplicates removed, order kept); whether they
    fit a data set and agree with each other is checked by :meth:`bind`.
    """

    def __init__(self, require=(), forbid=(), forbid_edges=(), tiers=()):
        self.require = _pairs(require, "require")
        self.forbid = _pairs(forbid, "forbid")
        self.forbid_edges = [tuple(p) for p in dict.fromkeys(
            tuple(sorted(p)) for p in _pairs(forbid_edges, "forbid_edges", ordered=False))]
        self.tiers = []
        for t, tier in enumerate(tiers or ()):
            if isinstance(tier, str) or not hasattr(tier, "__iter__"):
                raise SearchError(f"tier {t + 1} must be a list of variable names, got {tier!r}")
            self.tiers.append(list(dict.fromkeys(str(v) for v in tier)))

    def __bool__(self):
        return bool(self.require or self.forbid or self.forbid_edges or any(self.tiers))

    def __eq__(self, other):
        return isinstance(other, Knowledge) and self.to_json() == other.to_json()

    def __repr__(self):
        return (f"Knowledge({len(self.require)} required, {len(self.forbid)} forbidden arcs, "
                f"{len(self.forbid_edges)} forbidden edges, {len(self.tiers)} tiers)")

    @property
    def variables(self):
        """Every variable named, in order of first mention."""
        names = [v for pair in self.require + self.forbid + self.forbid_edges for v in pair]
        names += [v for tier in self.tiers for v in tier]
        return list(dict.fromkeys(names))

    def union(self, other):
        """The knowledge of both (tiers from at most one of them)."""
        if self.tiers and other.tiers:
            raise SearchError("tiers were given twice (e.g. in --tiers and in the knowledge file); give them once")
        return Knowledge(self.require + other.require, self.forbid + other.forbid,
                         self.forbid_edges + other.forbid_edges, self.tiers or other.tiers)

    # -- JSON -------------------------------------------------------------
    def to_json(self):
        """``{"require": [[u, v]], "forbid": [[u, v]], "forbid_edges": [[u, v]], "tiers": [[...]]}``."""
        return {"require": [list(p) for p in self.require], "forbid": [list(p) for p in self.forbid],
                "forbid_edges": [list(p) for p in self.forbid_edges], "tiers": [list(t) for t in self.tiers]}

    def dumps(self, **kwargs):
        """The JSON text of :meth:`to_json`."""
        return json.dumps(self.to_json(), **kwargs)

    @classmethod
    def from_json(cls, data):
        """Read :meth:`to_json` output (a dict or JSON text); missing keys are empty.

        Raises
        ------
        SearchError
            On invalid JSON, a key other than the four, or a malformed entry.
        """
        if isinstance(data, (str, bytes)):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as err:
                raise SearchError(f"knowledge is not valid JSON (line {err.lineno}: {err.msg})") from None
        if not isinstance(data, dict):
            raise SearchError('knowledge JSON must be an object with keys "require", "forbid", "forbid_edges", '
                              '"tiers"')
        unknown = sorted(set(data) - {"require", "forbid", "forbid_edges", "tiers"})
        if unknown:
            raise SearchError(f"unknown knowledge key(s) {', '.join(map(repr, unknown))}; use require, forbid, "
                              "forbid_edges, tiers")
        return cls(data.get("require", ()), data.get("forbid", ()), data.get("forbid_edges", ()),
                   data.get("tiers", ()))

    # -- checking ---------------------------------------------------------
    def bind(self, names, max_indegree=None):
        """Check the knowledge against a list of variables and resolve it.

        Parameters
        ----------
        names : list of str, or anything with ``.names`` (Dataset, Scorer, ParentSets, DAG)
        max_indegree : int, optional
            The search's in-degree limit, checked against the required arcs.

        Returns
        -------
        BoundKnowledge

        Raises
        ------
        SearchError
            Naming the problem: unknown variables, a self loop, a variable in two
            tiers, an arc both required and forbidden (directly, by a forbidden
            edge or by the tiers), a cycle of required arcs, or a node with more
            required parents than ``max_indegree``.
        """
        return BoundKnowledge(self, list(getattr(names, "names", names)), max_indegree)

    def allows(self, dag):
        """True when ``dag`` (any graph with ``names`` and ``adj``) honours the knowledge."""
        return self.bind(dag).allows(dag)

    def violations(self, dag):
        """What ``dag`` breaks, as readable sentences (empty when it honours the knowledge)."""
        return self.bind(dag).violations(dag)


class BoundKnowledge:
    """Knowledge resolved against the variables of one problem (node indices).

    Made by :meth:`Knowledge.bind`. Attributes: ``names``, ``knowledge``,
    ``required`` (bool ``n x n``: ``required[u, v]`` for the arc u -> v) and
    ``allowed`` (bool ``n x n``: the arc u -> v may appear; the diagonal is
    False), ``tier`` (int array, -1 for a variable in no tier).
    """

    def __init__(self, knowledge, names, max_indegree=None):
        self.knowledge = knowledge
        self.names = [str(v) for v in names]
        n = len(self.names)
        index = {name: i for i, name in enumerate(self.names)}
        unknown = [v for v in knowledge.variables if v not in index]
        if unknown:
            raise SearchError(f"the knowledge names variable(s) the data does not have: "
                              f"{', '.join(map(repr, unknown))}; check the spelling (variables: "
                              f"{', '.join(self.names[:8])}{', ...' if n > 8 else ''})")
        self.tier = np.full(n, -1, np.int64)
        for t, tier in enumerate(knowledge.tiers):
            for v in tier:
                if self.tier[index[v]] >= 0:
                    raise SearchError(f"variable {v!r} is in tier {self.tier[index[v]] + 1} and in tier {t + 1}; "
                                      "put it in one")
                self.tier[index[v]] = t
        reasons = {}
        for u, v in knowledge.forbid:
            reasons.setdefault((index[u], index[v]), f"forbidden arc {u} -> {v}")
        for u, v in knowledge.forbid_edges:
            text = f"forbidden edge {u} - {v}"
            reasons.setdefault((index[u], index[v]), text)
            reasons.setdefault((index[v], index[u]), text)
        self._reasons = reasons
        self.allowed = ~np.eye(n, dtype=bool)
        for (a, b) in reasons:
            self.allowed[a, b] = False
        ranked = self.tier >= 0
        self.allowed &= ~(ranked[:, None] & ranked[None, :] & (self.tier[:, None] > self.tier[None, :]))
        self.required = np.zeros((n, n), bool)
        for u, v in knowledge.require:
            a, b = index[u], index[v]
            if a == b:
                raise SearchError(f"required arc {u} -> {v} is a self loop; remove it")
            reason = self.forbidden_because(a, b)
            if reason:
                raise SearchError(f"arc {u} -> {v} is both required and forbidden (by the {reason}); drop one")
            self.required[a, b] = True
        for u, v in knowledge.forbid:
            if u == v:
                raise SearchError(f"forbidden arc {u} -> {v} is a self loop; remove it")
        for u, v in knowledge.forbid_edges:
            if u == v:
                raise SearchError(f"forbidden edge {u} - {v} is a self loop; remove it")
        both = np.argwhere(np.triu(self.required & self.required.T))
        if len(both):
            u, v = (self.names[x] for x in both[0])
            raise SearchError(f"the required arcs form a cycle {u} -> {v} -> {u}; drop one of them")
        cycle = find_cycle(self.required.astype(np.uint8))
        if cycle is not None:
            path = " -> ".join(self.names[v] for v in cycle + cycle[:1])
            raise SearchError(f"the required arcs form a cycle {path}; drop one of them")
        if max_indegree is not None:
            counts = self.required.sum(axis=0)
            worst = int(np.argmax(counts)) if n else 0
            if n and counts[worst] > max_indegree:
                parents = ", ".join(self.names[u] for u in np.flatnonzero(self.required[:, worst]))
                raise SearchError(f"node {self.names[worst]!r} has {int(counts[worst])} required parents ({parents}), "
                                  f"more than the in-degree limit {max_indegree}; raise the limit or require fewer")

    @property
    def n(self):
        return len(self.names)

    def forbidden_because(self, u, v):
        """Why the arc ``u -> v`` may not appear ("" when it may)."""
        if u == v:
            return "no self loops"
        if (u, v) in self._reasons:
            return self._reasons[u, v]
        if self.tier[u] >= 0 and self.tier[v] >= 0 and self.tier[u] > self.tier[v]:
            return (f"tiers: {self.names[u]} is in tier {self.tier[u] + 1}, {self.names[v]} in tier "
                    f"{self.tier[v] + 1}, and no arc may point into an earlier tier")
        return ""

    # -- graphs -----------------------------------------------------------
    def _adjacency(self, graph):
        adj = np.asarray(getattr(graph, "adj", graph), dtype=bool)
        names = getattr(graph, "names", None)
        if names is not None and list(names) != self.names:
            order = [list(names).index(v) for v in self.names] if set(names) == set(self.names) else None
            if order is None:
                raise SearchError("the graph's variables are not those the knowledge was bound to")
            adj = adj[np.ix_(order, order)]
        return adj

    def violations(self, graph):
        """Sentences naming every required arc missing and every forbidden arc present.

        ``graph`` is a DAG (or any PDAG: a link counts as both directions
        present for the forbidden arcs, and as honouring a required arc).
        """
        adj = self._adjacency(graph)
        out = []
        for u, v in np.argwhere(self.required & ~adj):
            out.append(f"required arc {self.names[u]} -> {self.names[v]} is missing")
        for u, v in np.argwhere(adj & ~adj.T & ~self.allowed):
            out.append(f"arc {self.names[u]} -> {self.names[v]} breaks the {self.forbidden_because(u, v)}")
        for u, v in np.argwhere(np.triu(adj & adj.T & ~self.allowed & ~self.allowed.T)):
            out.append(f"link {self.names[u]} - {self.names[v]} breaks the {self.forbidden_because(u, v)}")
        return out

    def allows(self, graph):
        """True when the DAG has every required arc and no forbidden one."""
        adj = self._adjacency(graph)
        arcs = adj & ~adj.T
        return bool(not (self.required & ~arcs).any() and not (arcs & ~self.allowed).any())

    # -- parent sets --------------------------------------------------------
    def required_parents(self, v):
        """Parents node ``v`` must have (int array)."""
        return np.flatnonzero(self.required[:, v])

    def allowed_parents(self, v):
        """Nodes that may be parents of ``v`` (int array; includes the required ones)."""
        return np.flatnonzero(self.allowed[:, v])

    def parents_ok(self, v, parents):
        """True when ``parents`` (iterable of int) holds every required parent of
        ``v`` and no forbidden one."""
        mask = np.zeros(self.n, bool)
        mask[list(parents)] = True
        return bool(not (self.required[:, v] & ~mask).any() and not (mask & ~self.allowed[:, v]).any())

    def filter(self, parent_sets):
        """The candidates of a :class:`bnexplore.parents.ParentSets` that honour the knowledge.

        A parent set is kept when it contains every required parent of its
        node and no forbidden one. Exact only for candidates found without
        rules that drop a set because a subset scores better (that subset may
        be one the knowledge forbids): see DESIGN.md, "Knowledge".

        Returns
        -------
        ParentSets
            Of the same type as ``parent_sets`` (this module does not import
            :mod:`bnexplore.parents`, which builds candidates under knowledge),
            with ``stats["knowledge_removed"]`` counting the sets dropped.

        Raises
        ------
        SearchError
            When a node has no candidate left (naming it).
        """
        if list(parent_sets.names) != self.names:
            raise SearchError("the parent sets' variables are not those the knowledge was bound to")
        kept = []
        for v in range(self.n):
            items = [(ps, float(s)) for ps, s in zip(parent_sets.sets(v), parent_sets.scores(v))
                     if self.parents_ok(v, ps)]
            if not items:
                need = ", ".join(self.names[u] for u in self.required_parents(v)) or "none"
                raise SearchError(f"no candidate parent set of {self.names[v]!r} honours the knowledge (required "
                                  f"parents: {need}); build the candidates with the knowledge, or with a larger "
                                  "in-degree limit")
            kept.append(items)
        stats = dict(parent_sets.stats)
        stats["knowledge_removed"] = int(len(parent_sets) - sum(len(k) for k in kept))
        return type(parent_sets)(parent_sets.names, kept, parent_sets.score_name, stats)


def check_knowledge(knowledge):
    """``knowledge`` itself when it is None or a :class:`Knowledge`; else a message saying how to make one.

    The doors that take ``knowledge=`` (:func:`bnexplore.search.learn`,
    :func:`bnexplore.search.search_options` for bootstrap,
    :func:`bnexplore.search.credible_set`) call it first, so a list of arcs is
    refused in words rather than by an ``AttributeError`` inside a search.

    Parameters
    ----------
    knowledge : object

    Returns
    -------
    Knowledge or None

    Raises
    ------
    OptionError
        When ``knowledge`` is something else.

    Examples
    --------
    >>> check_knowledge(None) is None
    True
    >>> try:
    ...     check_knowledge([("a", "b")])
    ... except OptionError as error:
    ...     print(error)
    knowledge must be a bnexplore Knowledge, e.g. knowledge=Knowledge(require=[('a', 'b')]), not a list
    """
    if knowledge is None or isinstance(knowledge, Knowledge):
        return knowledge
    raise OptionError(f"knowledge must be a bnexplore Knowledge, e.g. knowledge=Knowledge(require=[('a', 'b')]), "
                      f"not a {type(knowledge).__name__}")


def knowledge_params(knowledge):
    """``{"knowledge": knowledge.to_json()}`` for a result's ``params`` (``{}`` without knowledge)."""
    return {"knowledge": knowledge.to_json()} if knowledge else {}


def parse_arcs(text, flag="--require"):
    """``"A->B, C->D"`` as ``[("A", "B"), ("C", "D")]`` (for the CLI; names may hold spaces)."""
    arcs = []
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        if part.count("->") != 1:
            raise SearchError(f"cannot read {part!r} in {flag}: write arcs as PARENT->CHILD, separated by commas")
        u, v = (x.strip() for x in part.split("->"))
        if not u or not v:
            raise SearchError(f"cannot read {part!r} in {flag}: both ends of an arc need a name")
        arcs.append((u, v))
    return arcs


def parse_tiers(text):
    """``"A,B;C,D;E"`` as ``[["A", "B"], ["C", "D"], ["E"]]`` (for the CLI)."""
    tiers = []
    for part in (text or "").split(";"):
        names = [v.strip() for v in part.split(",") if v.strip()]
        if not names:
            raise SearchError(f"--tiers {text!r} has an empty tier; write tiers as A,B;C,D;E")
        tiers.append(names)
    return tiers


def _pairs(items, what, ordered=True):
    out = []
    for item in items or ():
        pair = list(item) if not isinstance(item, str) and hasattr(item, "__iter__") else None
        if pair is None or len(pair) != 2 or not all(isinstance(x, str) for x in pair):
            shape = "(parent, child)" if ordered else "{u, v}"
            raise SearchError(f"{what} entries must be {shape} pairs of variable names, got {item!r}")
        out.append(tuple(pair))
    return list(dict.fromkeys(out))
