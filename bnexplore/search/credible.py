"""Every network within a Bayes factor of the optimum, grouped and averaged.

Liao, Sharma, Cussens & van Beek (2019), "Finding all Bayesian network
structures within a factor of optimal", AAAI: the *credible set* for a Bayes
factor ``BF`` is every DAG ``G`` with ``score(G) >= OPT - epsilon``,
``epsilon = log(BF)`` (Eq. 3; natural-log scores, higher is better). The paper
collects them with GOBNILP; here they are enumerated exactly, each once, from
the dynamic-programming table of :mod:`bnexplore.search.exact`:

1. candidate parent sets pruned with the epsilon-relaxed rules
   (:func:`bnexplore.parents.pruning.candidate_parent_sets`), which keep the
   parent sets of every credible DAG;
2. ``B(S)``, the best score of a DAG over every subset ``S`` (Silander &
   Myllymaki 2006), and ``OPT = B(V)``;
3. a depth-first search over canonical constructions (:func:`enumerate_dags`)
   bounded by ``B``, which emits every credible DAG exactly once;
4. grouping into Markov equivalence classes (same skeleton and v-structures;
   Verma & Pearl 1990) and into RPDAG classes (same skeleton and head-to-head
   patterns; Acid & de Campos 2003, Proposition 4), and model averaging with
   weights ``exp(score - OPT)`` normalised over the set.

A DAG is taken as credible when its score is at least
``OPT - epsilon - tolerance(OPT)`` (:func:`bnexplore.parents.pruning.tolerance`):
sums of the same local scores in different orders differ in the last bits,
and with ``epsilon = 0`` every DAG equivalent to an optimal one must still be
found.
"""

import hashlib
import json
import math
import time
from functools import cached_property

import numpy as np
from numba import njit

from ..control import Control
from ..errors import SearchError
from ..graphs import DAG
from ..knowledge import knowledge_params
from ..parents.pruning import RULES, tolerance
from ..result import Result, parse_json, to_plain
from ..scores import Scorer
from .exact import (DP_PREFERRED_SECONDS, REESTIMATED, Candidates, _dp_hint, check_memory, choose_engine, format_bytes,
                    mask_to_parents, memory_needed, prepare_parent_sets, subset_table)

DEFAULT_LIMIT = 150_000
"""Most credible DAGs collected (the paper's counting limit)."""

_STEPS = 2_000_000
"""Search steps per kernel call, between two checks of the stop flag."""

ILP_FIRST_SHARE = 0.25
"""Share of the subset DP's estimated time that ``auto`` first gives the ILP, for a credible set the DP
would take more than :data:`bnexplore.search.exact.DP_PREFERRED_SECONDS` over (:func:`credible_set`).

Small sets, like most at BF 3, come out of the ILP in seconds, while the DP builds its whole table first;
large ones (more than 100,000 DAGs) the DP enumerates much faster, so a set the ILP has not finished
within this share goes to the DP, which then costs at most a quarter of its estimate more. Measured on
2 cores (BENCHMARKS.md, seventh round; the paper's times in brackets): horse (28 variables), BF 3, 1,643
DAGs: 10 s by the ILP tried first, against 99 s by the DP (18.8 s); BF 20, 146,666 DAGs: 93 s, the DP after
31 s of ILP (1,359 s); flag (29), BF 3: 12 s against 130 s (16.1 s); BF 20: 205 s, the DP after 69 s of
ILP (4,052 s)."""

LIMITED_KEPT = 2
"""Finished sets cut by the counting limit that :func:`credible_set` remembers for a larger Bayes factor."""

_limited = {}
"""Request digest (:func:`_request_key`) -> the last :data:`LIMITED_KEPT` such sets, oldest first."""

LP_MARGIN = 1e-6
"""Relative slack of an LP bound in the ILP enumeration: a node is pruned only when its bound is more than
``LP_MARGIN * (1 + |OPT|)`` below what a DAG needs (:func:`lp_margin`)."""


def lp_margin(opt):
    """The ILP enumeration's absolute LP slack near ``opt`` (see :data:`LP_MARGIN`)."""
    return LP_MARGIN * (1.0 + abs(opt))


def tie_slack(opt):
    """How far above the worst kept DAG of a full set a DAG must score to stay in the finished set.

    Twice the score tolerance plus twice the LP margin: a DAG closer than that
    to the worst kept one counts as tied with it and is dropped
    (:func:`limited_set`), by both engines alike. The margin lets the branch
    and cut prune DAGs tied with the worst kept one instead of meeting them one
    by one (:class:`bnexplore.search.ilp.Collector`): on hailfinder500 more than
    150,000 DAGs tie with the optimum itself.
    """
    return 2.0 * (tolerance(opt) + lp_margin(opt))



@njit(cache=True)
def enumerate_dags(table, masks, scores, offsets, n, threshold, subset, need, acc, node, choice, depth,
                   out_masks, out_scores, count, max_steps, heap):
    """Depth-first enumeration of every DAG scoring at least ``threshold``, resumable.

    Each DAG is built by one canonical sequence: remove its highest-index sink
    ``v`` from the node set ``S``, record ``v``'s parents ``P`` (inside
    ``R = S - v``), continue on ``R``. The search state at depth ``d`` is
    ``(S, need, acc)``: ``need`` holds the nodes of ``S`` that must still get
    a child from a node removed later (they may not be sinks here) and
    ``acc`` the local scores so far. From a state it tries every ``v`` in
    ``S - need`` and, best first, every candidate ``P`` of ``v`` inside ``R``
    with ``acc + s(v, P) + B(R) >= threshold`` (stopping at the first that
    falls short), and moves to ``(R, (need | {u in R: u > v}) - P, acc +
    s(v, P))``: the nodes above ``v`` must not be sinks of the DAG on ``S``,
    so each needs a child, and the members of ``P`` just got one.

    Exactly once: the sinks removed are forced (the highest-index sink at
    each step), so two different paths give two different DAGs, and every
    DAG's canonical sequence obeys the ``need`` rule. None missed: ``B(R)`` is
    the best score of any DAG over ``R``, so the bound never cuts the
    canonical path of a DAG above the threshold; branches whose ``need``
    cannot be met die without emitting.

    Parameters
    ----------
    table : float64 array
        ``B`` over all subsets (:func:`bnexplore.search.exact.fill_layer`).
    masks, scores, offsets : arrays
        Candidate parent sets, best first per node (see
        :class:`bnexplore.search.exact.Candidates`).
    n : int
    threshold : float
    subset, need, acc, node, choice : arrays of length ``n + 1``
        The search stack (state and the candidate chosen at each depth);
        start with ``subset[0] = 2**n - 1``, ``need[0] = acc[0] = 0``,
        ``node[0] = choice[0] = -1`` and depth 0.
    depth : int
    out_masks : (capacity, n) int64 array
        Row t receives the parent bitmask of every node of DAG t.
    out_scores : float64 array
        Its score (the sum of its local scores in removal order).
    count : int
        Rows of ``out_masks`` already filled.
    max_steps : int
        Return after this many steps (the stack holds the state to resume).
    heap : int64 array
        Empty: stop when ``out_masks`` is full. Else the rows of the full
        ``out_masks`` as a min-heap on ``out_scores`` (:func:`heapify`): a new
        DAG better than the worst kept one replaces it, and the threshold
        rises to the worst kept score, so the search ends holding the best
        ``capacity`` DAGs (branch and bound for the k best).

    Returns
    -------
    count : int
    depth : int
        -1 once the search is finished; else pass it back to resume.
    steps : int
        Search steps taken (states visited plus DAGs emitted).
    threshold : float
        The threshold now (raised in heap mode).
    overflow : int
        DAGs met while ``out_masks`` was full (kept or not).
    """
    d = depth
    steps = 0
    overflow = 0
    capacity = out_masks.shape[0]
    keep_best = heap.shape[0] > 0
    while d >= 0 and (count < capacity or keep_best) and steps < max_steps:
        steps += 1
        s = subset[d]
        if s == 0:
            row = count
            if count == capacity:
                overflow += 1
                row = heap[0]
                if acc[d] <= out_scores[row]:
                    d -= 1
                    continue
            for i in range(d):
                out_masks[row, node[i]] = masks[choice[i]]
            out_scores[row] = acc[d]
            if row == count:
                count += 1
            else:
                sift_down(heap, out_scores, 0)
                threshold = max(threshold, out_scores[heap[0]])
            d -= 1
            continue
        v = node[d]
        j = choice[d] + 1
        found = False
        while v < n:
            if v >= 0 and (s >> v) & 1 and not (need[d] >> v) & 1:
                rest = s ^ (np.int64(1) << v)
                below = table[rest]
                while j < offsets[v + 1]:
                    if acc[d] + scores[j] + below < threshold:
                        break
                    if masks[j] & ~rest == 0:
                        found = True
                        break
                    j += 1
                if found:
                    break
            v += 1
            if v < n:
                j = offsets[v]
        if not found:
            d -= 1
            continue
        node[d] = v
        choice[d] = j
        rest = s ^ (np.int64(1) << v)
        above = rest & ~((np.int64(2) << v) - 1)
        subset[d + 1] = rest
        need[d + 1] = (need[d] | above) & ~masks[j]
        acc[d + 1] = acc[d] + scores[j]
        node[d + 1] = -1
        choice[d + 1] = -1
        d += 1
    return count, d, steps, threshold, overflow


@njit(cache=True)
def sift_down(heap, keys, i):
    """Restore the min-heap property of ``heap`` (indices ordered by ``keys``) below position ``i``."""
    size = heap.shape[0]
    item = heap[i]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and keys[heap[child + 1]] < keys[heap[child]]:
            child += 1
        if keys[heap[child]] >= keys[item]:
            break
        heap[i] = heap[child]
        i = child
    heap[i] = item


@njit(cache=True)
def heapify(keys):
    """The indices ``0 .. len(keys) - 1`` as a min-heap on ``keys`` (worst score at the top)."""
    heap = np.arange(keys.shape[0])
    for i in range(keys.shape[0] // 2 - 1, -1, -1):
        sift_down(heap, keys, i)
    return heap


@njit(cache=True)
def class_keys(parent_masks, rpdag):
    """Keys that are equal exactly for DAGs of the same class.

    Row t is ``[neighbours of each node..., per node w: V(w)]`` for DAG t,
    where the neighbour masks give the skeleton and ``V(w)`` is, for Markov
    equivalence, the parents of ``w`` that form a v-structure at ``w`` (a
    parent not adjacent to another parent of ``w``). The v-structures at
    ``w`` are exactly the non-adjacent pairs inside ``V(w)``, so the key and
    the pair (skeleton, v-structures) determine each other. For RPDAG classes
    (``rpdag=True``) ``V(w)`` is every parent of ``w`` when ``w`` has at least
    two, which likewise matches the head-to-head patterns one to one.
    """
    k, n = parent_masks.shape
    keys = np.zeros((k, 2 * n), np.int64)
    for t in range(k):
        for w in range(n):
            pa = parent_masks[t, w]
            keys[t, w] |= pa
            for u in range(n):
                if (pa >> u) & 1:
                    keys[t, u] |= np.int64(1) << w
        for w in range(n):
            pa = parent_masks[t, w]
            if rpdag:
                if pa & (pa - 1):
                    keys[t, n + w] = pa
                continue
            marked = np.int64(0)
            for a in range(n):
                if (pa >> a) & 1 and pa & ~keys[t, a] & ~(np.int64(1) << a):
                    marked |= np.int64(1) << a
            keys[t, n + w] = marked
    return keys


def _group(parent_masks, rpdag):
    """Class of every DAG (ids in order of first appearance) and each class's members."""
    if len(parent_masks) == 0:
        return np.zeros(0, np.int64), []
    keys = class_keys(parent_masks, rpdag)
    rows = keys.view(np.dtype((np.void, keys.shape[1] * keys.itemsize))).reshape(-1)
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    rank = np.empty(len(first), np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    ids = rank[inverse.reshape(-1)]
    order = np.argsort(ids, kind="stable")
    bounds = np.searchsorted(ids[order], np.arange(len(first) + 1))
    return ids, [order[bounds[c]:bounds[c + 1]] for c in range(len(first))]


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
        :func:`collect`); None when no margin is known to be complete.

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
        t0 = time.perf_counter()
        self._class_ids, self._mec_members = _group(self.parent_masks, False)
        self._rpdag_ids, self._rpdag_members = _group(self.parent_masks, True)
        self.stats.update({"n_dags": len(self.scores), "n_classes": len(self._mec_members),
                           "n_rpdag_classes": len(self._rpdag_members),
                           "seconds_grouping": time.perf_counter() - t0})

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


def _checked_epsilon(bf, epsilon):
    if epsilon is None:
        if not (isinstance(bf, (int, float, np.integer, np.floating)) and math.isfinite(bf) and bf >= 1):
            raise SearchError(f"the Bayes factor must be a finite number >= 1, got bf={bf!r}")
        return math.log(bf)
    if not (isinstance(epsilon, (int, float, np.integer, np.floating)) and math.isfinite(epsilon) and epsilon >= 0):
        raise SearchError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    return float(epsilon)


def _checked_limit(limit):
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
        raise SearchError(f"limit must be a whole number >= 1 (the most DAGs to collect), got {limit!r}")
    return int(limit)


def enumeration_memory(n, limit):
    """Bytes for the collected DAGs: masks, scores, heap and grouping keys of ``limit`` DAGs."""
    return (limit + 1) * (3 * n + 3) * 8


def collect(candidates, table, opt, epsilon, limit, control):
    """The credible DAGs, or the ``limit`` best of them when there are more.

    Runs :func:`enumerate_dags` to the end or to a stop. Until ``limit`` DAGs
    are found every one is kept; from then on the search keeps the best
    ``limit`` (heap mode) and its threshold rises to the worst kept score.
    When more than ``limit`` credible DAGs exist, the DAGs tied (within
    :func:`tie_slack`) with the worst kept one are dropped, so what remains is
    *every* DAG within a smaller margin ``complete_epsilon`` of the optimum:
    a DAG scoring at least ``worst + tie_slack`` has a computed score above
    every threshold used, so it was met, and it was never evicted, since only
    DAGs at most the final worst score are.

    Returns
    -------
    parent_masks, scores : arrays
    reason : str or None
        Why the set is incomplete (None when it is every credible DAG).
    steps : int
    complete_epsilon : float or None
        The set is every DAG with score >= OPT - complete_epsilon (epsilon
        itself when complete); None after a stop, or when the limit is smaller
        than the number of DAGs tied at the worst kept score.
    full_at : float or None
        ``control.clock()`` when ``limit`` DAGs were first held (None if never).
    """
    n = candidates.n
    threshold = opt - epsilon - tolerance(opt)
    subset = np.zeros(n + 1, np.int64)
    subset[0] = (1 << n) - 1
    need = np.zeros(n + 1, np.int64)
    acc = np.zeros(n + 1)
    node = np.full(n + 1, -1, np.int64)
    choice = np.full(n + 1, -1, np.int64)
    capacity = min(limit, 1 << 16)
    out_masks = np.zeros((capacity, n), np.int64)
    out_scores = np.empty(capacity)
    heap = np.zeros(0, np.int64)
    count, depth, steps, overflow, full_at = 0, 0, 0, 0, None
    while depth >= 0:
        if control.should_stop():
            reason = f"{control.reason}: the search ended after {count:,} DAGs, more may exist"
            return out_masks[:count], out_scores[:count], reason, steps, None, full_at
        if count == capacity and not len(heap):
            if capacity == limit:
                heap = heapify(out_scores)
                full_at = control.clock()
            else:
                capacity = min(2 * capacity, limit)
                out_masks = np.concatenate([out_masks, np.zeros((capacity - len(out_masks), n), np.int64)])
                out_scores = np.concatenate([out_scores, np.empty(capacity - len(out_scores))])
        count, depth, done, threshold, extra = enumerate_dags(
            table, candidates.masks, candidates.scores, candidates.offsets, n, threshold, subset, need, acc, node,
            choice, depth, out_masks, out_scores, count, _STEPS, heap)
        steps += done
        overflow += extra
        worst = f"; the worst kept is {opt - out_scores[heap[0]]:.4g} below OPT" if len(heap) else ""
        control.report(done=None, message=f"credible set: {count:,} DAGs kept{worst}")
    if full_at is None and count == limit:  # filled by the last chunk of steps
        full_at = control.clock()
    masks, scores, reason, complete = limited_set(out_masks[:count], out_scores[:count], opt, epsilon, limit,
                                                  overflow)
    return masks, scores, reason, steps, complete, full_at


def limited_set(masks, scores, opt, epsilon, limit, overflow):
    """The finished set of an enumeration that kept the best ``limit`` DAGs.

    With no overflow (no DAG met while ``limit`` were held) the set is every
    credible DAG. Otherwise the DAGs tied with the worst kept one (less than
    :func:`tie_slack` above it) are dropped, so what remains is *every* DAG
    within a smaller margin ``complete_epsilon`` of the optimum (see
    :func:`collect`). Shared by both engines.

    Returns
    -------
    masks, scores : arrays
    reason : str or None
    complete_epsilon : float or None
    """
    if not overflow:
        return masks, scores, None, epsilon
    slack = tie_slack(opt)
    cut = scores.min() + slack
    keep = scores >= cut
    more = f"the counting limit of {limit:,} DAGs was reached: more credible DAGs exist"
    if not keep.any():  # the optimum is never evicted, so every DAG held ties with it
        reason = (f"{more}; all {limit:,} DAGs held tie with the optimum (within {slack:.2g}), so no smaller "
                  "margin is complete; raise the limit")
        return masks, scores, reason, None
    complete = opt - cut
    reason = (f"{more}; the set holds the {int(keep.sum()):,} best, every DAG within a Bayes factor of "
              f"{math.exp(complete):.4g} (epsilon {complete:.4g}) of the optimum")
    return masks[keep], scores[keep], reason, complete


def credible_set(data_or_scorer, score="bic", bf=20, epsilon=None, ess=1.0, max_indegree=None, limit=DEFAULT_LIMIT,
                 pruning=True, parent_sets=None, engine="auto", knowledge=None, progress=None, time_limit=None,
                 stop=None, control=None, statistics=False):
    """Every DAG whose score is within ``log(bf)`` of the optimum.

    Liao, Sharma, Cussens & van Beek (2019), Eq. (3), solved exactly by
    dynamic programming and a bounded enumeration (see the module docstring),
    or, beyond the DP's reach, by branch and cut on SCIP
    (:func:`bnexplore.search.ilp.enumerate_dags`: the optimum, then one tree
    search that records every DAG above ``OPT - epsilon`` and branches it
    away). Both engines give the same set and the same limit semantics.

    Parameters
    ----------
    data_or_scorer : Dataset or Scorer
        The data, or a Scorer (then ``score`` and ``ess`` are ignored).
    score : {"bic", "bdeu"} or another Scorer score
    bf : float
        Bayes factor >= 1 (3, 20 and 150 mark positive, strong and very strong
        evidence on the Kass & Raftery scale the paper uses).
    epsilon : float, optional
        The margin ``log(BF)`` directly; overrides ``bf``.
    ess : float
        BDeu equivalent sample size.
    max_indegree : int, optional
        Only DAGs with at most this many parents per node.
    limit : int
        Most DAGs to collect; when more exist the set is truncated and says so
        (``truncated_reason``): it then holds the best DAGs, every one within
        the smaller margin ``complete_epsilon`` of the optimum (see
        :func:`collect`), like the paper's counting limit on a solver that
        finds networks best first.
    pruning : bool
        Use the pruning rules (False scores every parent set: slow, for checks).
    parent_sets : ParentSets, optional
        Reuse candidate parent sets built by
        :func:`~bnexplore.parents.pruning.candidate_parent_sets` for this
        scorer with an epsilon at least this one (then ``pruning`` is ignored).
    engine : {"auto", "dp", "ilp"}
        See :func:`bnexplore.search.exact.choose_engine` (``auto`` keeps the
        DP wherever it fits and should finish within ten minutes, estimated
        again with the candidate parent sets once they are built; where it
        should take more than half a minute, the ILP is tried first for
        :data:`ILP_FIRST_SHARE` of the DP's estimated time, and the DP runs
        only if the ILP has not finished by then).
    knowledge : Knowledge, optional
        Background knowledge (:class:`bnexplore.knowledge.Knowledge`, checked
        before any work): the set is then every DAG honouring it within
        ``epsilon`` of the best DAG honouring it (the candidates are built
        under it; the ILP enumerates without the covered-arc constraints,
        whose one member per class may break the knowledge).
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`. With the ILP, reports carry
        ``found`` (DAGs so far), ``score`` and ``bound``; a stop returns the
        DAGs found so far (``truncated_reason`` says so).
    statistics : bool
        With the ILP, keep the stats of the optimum's and the enumeration's
        solves, with SCIP's own time breakdown (LP, strong branching,
        separation), under ``optimum_stats`` and ``enumeration_stats``: where
        the time went, for benchmarks.

    Returns
    -------
    CredibleSet
        ``stats`` hold ``engine``, ``engine_reason``, the seconds of each
        phase (``seconds_candidates``, ``seconds_dp`` or ``seconds_ilp`` (the
        optimum), ``seconds_enumeration``, ``seconds_grouping``, and
        ``seconds_ilp_attempt`` when the ILP tried first did not finish),
        ``candidate_sets``, ``search_steps`` (DP steps or ILP tree nodes),
        ``seconds_to_limit`` (seconds from the start of the search, the
        candidates built, to the moment ``limit`` DAGs were first held, None
        if never: where GOBNILP's counting limit, which the paper used, would
        have ended the search),
        ``memory_bytes`` and the candidate statistics under ``candidates``.

    Raises
    ------
    SearchError
        On a bad Bayes factor, epsilon, limit or engine, or contradictory knowledge.
    ResourceError
        When the table and the collected DAGs need more memory than is available.
    """
    scorer = data_or_scorer if isinstance(data_or_scorer, Scorer) else Scorer(data_or_scorer, score=score, ess=ess)
    epsilon = _checked_epsilon(bf, epsilon)
    limit = _checked_limit(limit)
    if knowledge:
        knowledge.bind(scorer, max_indegree)
    control = Control.of(control, progress, time_limit, stop)
    start = time.perf_counter()
    snapshot = scorer.snapshot()
    n = scorer.n_vars
    chosen, reason, dp_estimate = choose_engine(n, parent_sets, "credible", limit, engine)
    params = {**scorer.params, "bf": math.exp(epsilon), "epsilon": epsilon, "max_indegree": max_indegree,
              "limit": limit, "pruning": bool(pruning), "engine": chosen, **knowledge_params(knowledge)}
    key = _request_key(scorer, parent_sets, params)
    earlier = _limited.get(key)
    if earlier is not None and earlier.epsilon <= epsilon:
        stats = {k: v for k, v in earlier.stats.items() if not k.startswith("seconds")}  # no search ran
        stats["reused_from_bf"] = math.exp(earlier.epsilon)
        result = CredibleSet(scorer.names, earlier.parent_masks.copy(), earlier.scores.copy(), earlier.opt, epsilon,
                             scorer.score_name, params=params, stats=stats, truncated_reason=earlier.truncated_reason,
                             complete_epsilon=earlier.complete_epsilon)
    else:
        from . import ilp

        if chosen == "dp":  # before the candidates are built: the table may not fit
            needed = memory_needed(n) + enumeration_memory(n, limit)
            check_memory(needed, f"the credible set over {n} variables with limit={limit:,}", _dp_hint())
            control.report(done=None, message=f"credible set: needs {format_bytes(needed)}")
        t0, estimated = time.perf_counter(), parent_sets is not None  # given candidates were counted above
        parent_sets = prepare_parent_sets(scorer, parent_sets, max_indegree, epsilon, control,
                                          rules=RULES if pruning else (), knowledge=knowledge)
        seconds_candidates = time.perf_counter() - t0
        if chosen == "dp" and engine == "auto" and not estimated and not control.should_stop():
            chosen, reason, dp_estimate = choose_engine(n, parent_sets, "credible", limit)  # with their scans
            if chosen == "ilp":
                reason += REESTIMATED
        args = (scorer, parent_sets, epsilon, limit)
        budget = ilp_first_budget(chosen, dp_estimate) if engine == "auto" else None
        if chosen == "ilp":
            masks, scores, opt, why, complete, stats = _ilp_set(*args, control, knowledge, statistics)
        elif budget is not None:
            chosen, reason, (masks, scores, opt, why, complete, stats) = _ilp_first(
                args, control, knowledge, statistics, budget, reason)
        else:
            masks, scores, opt, why, complete, stats = _dp_set(*args, control)
        params["engine"] = chosen
        stats.update(seconds_candidates=seconds_candidates, candidate_sets=len(parent_sets), stopped=control.reason,
                     engine=chosen, engine_reason=reason, **scorer.stats(snapshot), candidates=parent_sets.stats)
        result = CredibleSet(scorer.names, masks, scores, opt, epsilon, scorer.score_name, params=params,
                             stats=stats, truncated_reason=why, complete_epsilon=complete)
        if control.reason is None and why is not None:  # finished, cut by the counting limit
            _limited.pop(key, None)
            _limited[key] = result
            while len(_limited) > LIMITED_KEPT:
                del _limited[next(iter(_limited))]
    result.stats["seconds"] = time.perf_counter() - start
    control.finish(message=f"credible set: {len(result):,} DAGs in {result.stats['n_classes']:,} classes",
                   score=result.opt, found=len(result))
    return result


def _request_key(scorer, parent_sets, params):
    """A digest of what a credible set depends on besides epsilon: the data, the settings, the candidates given.

    A finished set cut by the counting limit at ``epsilon`` is the answer at
    every larger epsilon too: more than ``limit`` DAGs are within ``epsilon``
    of the optimum, so the best ``limit`` of a wider margin are the same DAGs
    (the candidates built for the wider margin add only DAGs further from the
    optimum than ``epsilon``), and so is the complete margin stated. The app's
    Bayes factor slider and the benchmark's BF 3, 20 and 150 meet this on every
    data set with more than ``limit`` DAGs at BF 3 (lung-cancer: ten minutes
    at BF 150).
    """
    settings = {k: v for k, v in params.items() if k not in ("bf", "epsilon")}
    arrays = [scorer.cols, scorer.arities]
    if parent_sets is not None:
        given = Candidates(parent_sets)
        arrays += [given.masks, given.scores, given.offsets]
    return digest(arrays, json.dumps([scorer.names, settings], sort_keys=True, default=str))


def digest(arrays, text=""):
    """A 128-bit hex digest of the bytes of ``arrays`` and of ``text``: the key of a remembered result."""
    h = hashlib.blake2b(digest_size=16)
    for array in arrays:
        h.update(np.ascontiguousarray(array).tobytes())
    h.update(text.encode())
    return h.hexdigest()


def _dp_set(scorer, parent_sets, epsilon, limit, control, start=None):
    """The credible set over the candidates by the subset DP and :func:`collect`:
    ``(masks, scores, opt, truncated reason, complete epsilon, stats)``; ``start`` (``control.clock()``
    when the search began, by default now) dates ``seconds_to_limit``."""
    n = scorer.n_vars
    start = control.clock() if start is None else start
    candidates = Candidates(parent_sets)
    t_candidates = time.perf_counter()
    table, size = subset_table(candidates, control)
    t_dp = time.perf_counter()
    opt = float(table[-1]) if size == n else None
    if opt is None:
        masks, scores, steps, complete, full_at = np.zeros((0, n), np.int64), np.zeros(0), 0, None, None
        reason = f"{control.reason}: stopped before the optimum was found"
    else:
        masks, scores, reason, steps, complete, full_at = collect(candidates, table, opt, epsilon, limit, control)
    del table
    stats = {"seconds_dp": t_dp - t_candidates, "seconds_enumeration": time.perf_counter() - t_dp,
             "search_steps": steps, "memory_bytes": memory_needed(n) + enumeration_memory(n, limit),
             "seconds_to_limit": None if full_at is None else full_at - start}
    return masks, scores, opt, reason, complete, stats


def ilp_first_budget(chosen, dp_estimate):
    """Seconds an ``auto`` credible set gives the ILP before the subset DP: :data:`ILP_FIRST_SHARE` of
    ``dp_estimate`` when ``chosen`` is the DP and it should take more than
    :data:`bnexplore.search.exact.DP_PREFERRED_SECONDS` (and SCIP is installed), else None."""
    from . import ilp

    if chosen == "dp" and dp_estimate > DP_PREFERRED_SECONDS and ilp.available():
        return ILP_FIRST_SHARE * dp_estimate
    return None


def _ilp_first(args, control, knowledge, statistics, budget, dp_reason):
    """``auto`` where the DP would take long: the ILP within ``budget`` seconds
    (:func:`ilp_first_budget`), then, unless it finished or the caller stopped, the DP.
    ``(engine, reason, set)``."""
    limit = budget if control.remaining is None else min(budget, control.remaining)
    attempt = Control(progress=control.progress, time_limit=max(limit, 1e-9), stop=control.should_stop,
                      min_interval=control.min_interval, clock=control.clock)
    t0, start = time.perf_counter(), control.clock()
    out = _ilp_set(*args, attempt, knowledge, statistics)
    tried = f"tried first for up to {budget:.3g} s, {ILP_FIRST_SHARE:.0%} of the subset DP's estimated time"
    if attempt.reason is None or control.should_stop():
        ended = "it finished" if attempt.reason is None else f"{control.reason} while it ran"
        return "ilp", f"ILP engine (branch and cut on SCIP), {tried}: {ended} [{dp_reason}]", out
    seconds = time.perf_counter() - t0
    masks, scores, opt, why, complete, stats = _dp_set(*args, control, start=start)
    stats["seconds_ilp_attempt"] = seconds
    return "dp", f"{dp_reason}; the ILP engine, {tried}, had not finished", (masks, scores, opt, why, complete,
                                                                                stats)


def _ilp_set(scorer, parent_sets, epsilon, limit, control, knowledge=None, statistics=False):
    """The credible set over the candidates by branch and cut: the optimum, then every DAG above
    ``OPT - epsilon`` in one tree search. Returns what :func:`_dp_set` does."""
    from . import ilp
    from .ordering import Candidates as OrderCandidates

    n = scorer.n_vars
    needed = ilp.memory_needed(len(parent_sets)) + enumeration_memory(n, limit) + ilp.exploration_memory(n, limit)
    check_memory(needed, f"the credible set (ILP) over {len(parent_sets):,} candidate parent sets with "
                         f"limit={limit:,}", "set max_indegree, a smaller Bayes factor or a smaller limit")
    start = control.clock()
    candidates = Candidates(parent_sets)
    t_candidates = time.perf_counter()
    best = ilp.optimum(candidates, OrderCandidates(parent_sets), control, reuse=True, statistics=statistics)
    t_opt = time.perf_counter()
    stats = {"seconds_ilp": t_opt - t_candidates, "memory_bytes": needed,
             "opt_nodes": best.stats["nodes"], "opt_reused": best.stats.get("reused", False), "bound": best.bound,
             "gap": best.gap}
    if not best.optimal:
        stats.update(seconds_enumeration=0.0, search_steps=0, seconds_to_limit=None)
        reason = (f"{control.reason}: stopped before the optimum was proven "
                  f"({ilp.describe_gap(best.score, best.bound)})")
        return np.zeros((0, n), np.int64), np.zeros(0), None, reason, None, stats
    opt = best.score
    collector, out = ilp.enumerate_dags(candidates, opt - epsilon - tolerance(opt), limit, control, opt,
                                        covered=ilp.score_equivalent(scorer.score_name) and not knowledge,
                                        known=best.cuts, statistics=statistics, start=best.parents)
    masks, scores = collector.masks[:collector.count], collector.scores[:collector.count]
    if out.stopped:
        reason = f"{control.reason}: the search ended after {collector.count:,} DAGs, more may exist"
        complete = None
    else:
        masks, scores, reason, complete = limited_set(masks, scores, opt, epsilon, limit, collector.overflow)
    stats.update(seconds_enumeration=time.perf_counter() - t_opt, search_steps=out.stats["nodes"],
                 seconds_to_limit=None if collector.full_at is None else collector.full_at - start,
                 enumeration_nodes=out.stats["nodes"], objective_limit_raised=out.stats["objective_limit_raised"],
                 cluster_cuts=best.stats["cluster_cuts"]
                 + out.stats["cluster_cuts"], lp_iterations=best.stats["lp_iterations"] + out.stats["lp_iterations"])
    if statistics:
        stats.update(optimum_stats=best.stats, enumeration_stats=out.stats)
    return masks, scores, opt, reason, complete, stats
