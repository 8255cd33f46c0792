"""The credible set as an object: its DAGs, their classes, model averaging, JSON.

A :class:`CredibleSet` holds the credible DAGs best first, groups them into
Markov equivalence classes (same skeleton and v-structures; Verma & Pearl
1990) and into RPDAG classes (same skeleton and head-to-head patterns; Acid &
de Campos 2003, Proposition 4) by :func:`bnexplore.search.classes.group_classes`,
and averages over them with weights ``exp(score - OPT)`` normalised over the
set.
"""

import json
import math
from functools import cached_property

import numpy as np

from ...compiling import search_clock
from ...errors import SearchError
from ...graphs import DAG
from ...result import Result, parse_json, to_plain
from ..classes import group_classes
from ..subsets import mask_to_parents

class CredibleClass:
    """One class of credible DAGs: a Markov equivalence class or an RPDAG class.

    Attributes
    ----------
    kind : {"mec", "rpdag"}
    rank : int
        1 for the class of the best DAG, then by best score.
    members : int array
        Indices of its credible DAGs in the credible set, best first.
    n_dags : int
        How many of its DAGs are credible (collected).
    score : float
        Best score of its DAGs (all equal for score-equivalent scores).
    bayes_factor : float
        ``exp(OPT - score)``.
    share : float
        Its share of the model-averaging weight of the credible set.
    """

    def __init__(self, owner, kind, rank, members):
        self._owner = owner
        self.kind = kind
        self.rank = rank
        self.members = members
        self.n_dags = len(members)
        self.score = float(owner.scores[members[0]])
        self.bayes_factor = math.exp(owner.opt - self.score)
        self.share = float(owner.weights[members].sum())

    def __repr__(self):
        return (f"CredibleClass({self.kind} #{self.rank}: {self.n_dags} DAGs, score {self.score:.4f}, "
                f"BF {self.bayes_factor:.3g}, share {self.share:.3f})")

    @property
    def dag(self):
        """Its best credible DAG."""
        return self._owner.dag(int(self.members[0]))

    @cached_property
    def cpdag(self):
        """The CPDAG of the Markov equivalence class its DAGs belong to."""
        return self.dag.cpdag()

    @cached_property
    def graph(self):
        """The class's own graph: the CPDAG for a Markov class, the RPDAG for an RPDAG class."""
        return self.cpdag if self.kind == "mec" else self.dag.rpdag()

    def size(self):
        """Number of DAGs in the whole class, credible or not (:meth:`CPDAG.n_dags`)."""
        return self.graph.n_dags()

    def to_json(self, graph=True):
        """A JSON-ready dict; ``graph=False`` leaves out the class graph."""
        out = {"rank": self.rank, "n_dags": self.n_dags, "score": self.score,
               "bayes_factor": self.bayes_factor, "share": self.share,
               "members": self.members.tolist()}
        if graph:
            out["cpdag" if self.kind == "mec" else "rpdag"] = self.graph.to_json()
        return out


class _DagList:
    """The credible DAGs as a read-only sequence of ``(DAG, score)``, built on access."""

    def __init__(self, owner):
        self._owner = owner

    def __len__(self):
        return len(self._owner.scores)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[t] for t in range(*i.indices(len(self)))]
        if not -len(self) <= i < len(self):
            raise IndexError(f"credible DAG index {i} out of range ({len(self)} DAGs)")
        i %= len(self)
        return self._owner.dag(i), float(self._owner.scores[i])

    def __iter__(self):
        return (self[i] for i in range(len(self)))


class CredibleSet:
    """The credible DAGs of a data set for one Bayes factor, with their groupings.

    Parameters
    ----------
    names : list of str
    parent_masks : (k, n) int64 array
        Parent bitmask of every node of every credible DAG.
    scores : float array
        Their scores.
    opt : float or None
        The optimal score (None when the search stopped before finding it).
    epsilon : float
        ``log(BF)``.
    score_name : str
    params : dict, optional
        The settings (score, ess, bf, max_indegree, limit, pruning).
    stats : dict, optional
    truncated_reason : str, optional
        Why the set may be incomplete (counting limit, stop flag, time limit).
    complete_epsilon : float, optional
        The set holds every DAG with score >= OPT - complete_epsilon: epsilon
        when complete, a smaller margin when the counting limit cut it (see
        :func:`bnexplore.search.credible.dp.collect`); None when no margin is known to be complete.

    Attributes
    ----------
    scores, parent_masks : arrays
        Best first (ties in enumeration order).
    dags : sequence of (DAG, score)
        Built on access; :meth:`dag` gives one DAG.
    weights : float array
        ``exp(score - OPT)`` normalised to sum 1 over the set.
    truncated : bool
        True when the set may be incomplete (see ``truncated_reason``).
    """

    def __init__(self, names, parent_masks, scores, opt, epsilon, score_name, params=None, stats=None,
                 truncated_reason=None, complete_epsilon=None):
        self.names = list(names)
        scores = np.asarray(scores, np.float64)
        order = np.argsort(-scores, kind="stable")
        self.scores = scores[order]
        self.parent_masks = np.asarray(parent_masks, np.int64).reshape(len(scores), len(self.names))[order]
        self.opt = None if opt is None else float(opt)
        self.epsilon = float(epsilon)
        self.score_name = score_name
        self.params = dict(params or {})
        self.stats = dict(stats or {})
        self.truncated_reason = truncated_reason
        self.complete_epsilon = None if complete_epsilon is None else float(complete_epsilon)
        if len(self.scores):
            raw = np.exp(self.scores - self.opt)
            self.weights = raw / raw.sum()
        else:
            self.weights = np.zeros(0)
        t0 = search_clock()
        self._class_ids, self._mec_members = group_classes(self.parent_masks, False)
        self._rpdag_ids, self._rpdag_members = group_classes(self.parent_masks, True)
        self.stats.update({"n_dags": len(self.scores), "n_classes": len(self._mec_members),
                           "n_rpdag_classes": len(self._rpdag_members),
                           "seconds_grouping": search_clock() - t0})

    def __len__(self):
        return len(self.scores)

    def __repr__(self):
        more = f", truncated: {self.truncated_reason}" if self.truncated else ""
        return (f"CredibleSet(BF {self.bayes_factor:.3g}, {len(self)} DAGs in {len(self._mec_members)} "
                f"equivalence classes, OPT {self.opt}{more})")

    @property
    def n_vars(self):
        return len(self.names)

    @property
    def bayes_factor(self):
        """``exp(epsilon)``."""
        return math.exp(self.epsilon)

    @property
    def truncated(self):
        return self.truncated_reason is not None

    @property
    def dags(self):
        return _DagList(self)

    def dag(self, i):
        """Credible DAG ``i`` (0 is a best one)."""
        return DAG.from_parents([mask_to_parents(m, self.n_vars) for m in self.parent_masks[i]], self.names)

    @cached_property
    def classes(self):
        """Markov equivalence classes, best first (list of :class:`CredibleClass`)."""
        return [CredibleClass(self, "mec", c + 1, m) for c, m in enumerate(self._mec_members)]

    @cached_property
    def rpdag_classes(self):
        """RPDAG classes (skeleton + head-to-head patterns), finer than :attr:`classes`."""
        return [CredibleClass(self, "rpdag", c + 1, m) for c, m in enumerate(self._rpdag_members)]

    @property
    def class_index(self):
        """Index into :attr:`classes` of every credible DAG."""
        return self._class_ids

    @property
    def class_shares(self):
        """Model-averaging weight of each Markov equivalence class, best class first."""
        return np.bincount(self._class_ids, weights=self.weights, minlength=len(self._mec_members))

    @cached_property
    def arc_probabilities(self):
        """``P[u, v]``: weighted share of credible DAGs with the arc u -> v (model averaging)."""
        n = self.n_vars
        out = np.zeros((n, n))
        for u in range(n):
            out[u] = self.weights @ ((self.parent_masks >> u) & 1)
        return out

    @property
    def adjacency_probabilities(self):
        """``P[u, v] = P[v, u]``: weighted share of credible DAGs where u and v are adjacent."""
        arcs = self.arc_probabilities
        return arcs + arcs.T

    def best_result(self):
        """The :class:`Result` of a best credible DAG (the optimum unless truncated before it)."""
        if not len(self):
            raise SearchError("the credible set is empty: the search stopped before the optimum was found")
        stats = {key: self.stats.get(key) for key in ("seconds", "local_scores_computed", "local_score_lookups",
                                                      "cache_hits", "nvar")}
        graph = self.dag(0)
        stats.update(iterations=self.n_vars, structures_evaluated=self.stats.get("search_steps", 0),
                     opt=self.opt, edges=graph.n_edges, stopped=self.stats.get("stopped"))
        return Result(graph=graph, score=float(self.scores[0]), score_name=self.score_name, algorithm="exact",
                      params=dict(self.params), stats=stats,
                      extra={"credible_set": {"bayes_factor": self.bayes_factor, "epsilon": self.epsilon,
                                              "n_dags": len(self), "n_classes": len(self._mec_members),
                                              "truncated": self.truncated}})

    # -- JSON ------------------------------------------------------------------
    def to_json(self, graphs=100):
        """A JSON-ready dict that :meth:`from_json` reads back.

        Parameters
        ----------
        graphs : int or None
            Include the CPDAG (and RPDAG) of the best ``graphs`` classes
            (None: all; each takes about a millisecond to build).
        """
        def classes(items):
            return [c.to_json(graph=graphs is None or c.rank <= graphs) for c in items]

        parents = [[mask_to_parents(m, self.n_vars) for m in row] for row in self.parent_masks]
        return {"kind": "credible_set", "names": self.names, "score_name": self.score_name,
                "params": to_plain(self.params), "opt": self.opt, "epsilon": self.epsilon,
                "bayes_factor": self.bayes_factor, "truncated": self.truncated,
                "truncated_reason": self.truncated_reason, "complete_epsilon": self.complete_epsilon,
                "stats": to_plain(self.stats),
                "dags": {"scores": self.scores.tolist(), "parents": parents},
                "classes": classes(self.classes), "rpdag_classes": classes(self.rpdag_classes),
                "arc_probabilities": self.arc_probabilities.tolist(),
                "adjacency_probabilities": self.adjacency_probabilities.tolist()}

    def dumps(self, **kwargs):
        """The JSON text of :meth:`to_json` (keyword ``graphs`` goes to it)."""
        graphs = kwargs.pop("graphs", 100)
        return json.dumps(self.to_json(graphs=graphs), **kwargs)

    @classmethod
    def from_json(cls, data):
        """Rebuild a CredibleSet from :meth:`to_json` output (a dict or JSON text)."""
        data = parse_json(data, "credible-set")
        if data.get("kind") != "credible_set":
            raise SearchError('not a bnexplore credible-set file: expected "kind": "credible_set"')
        missing = [k for k in ("names", "score_name", "opt", "epsilon", "dags") if k not in data]
        if missing:
            raise SearchError(f"not a bnexplore credible-set file: missing {', '.join(missing)}")
        names = list(data["names"])
        dags = data["dags"]
        scores, parents = dags.get("scores", []), dags.get("parents", [])
        if len(scores) != len(parents):
            raise SearchError(f"credible-set file lists {len(scores)} scores but {len(parents)} DAGs")
        masks = np.zeros((len(parents), len(names)), np.int64)
        for t, row in enumerate(parents):
            if len(row) != len(names):
                raise SearchError(f"credible-set file: DAG {t} has {len(row)} parent lists, expected {len(names)}")
            for v, ps in enumerate(row):
                for p in ps:
                    if not (isinstance(p, int) and 0 <= p < len(names) and p != v):
                        raise SearchError(f"credible-set file: DAG {t} gives {names[v]!r} the invalid parent {p!r}")
                    masks[t, v] |= 1 << p
        return cls(names, masks, scores, data["opt"], data["epsilon"], data["score_name"],
                   params=data.get("params"), stats=data.get("stats"),
                   truncated_reason=data.get("truncated_reason"), complete_epsilon=data.get("complete_epsilon"))
