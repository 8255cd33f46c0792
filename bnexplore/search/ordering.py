"""Ordering-based structure search over candidate parent sets: OBS and ASOBS.

OBS (Teyssier & Koller, "Ordering-based search", UAI 2005): for a total
ordering of the variables every node takes its best candidate parent set
whose parents all come earlier; the ordering is improved by swapping adjacent
variables, with random restarts. We add insertion moves (take one variable
out, put it back anywhere) once the swaps stall: the best of all ``n (n - 1)``
of them in O(Ck + C log C + n), without an ``n x n`` table (see
:func:`~bnexplore.search.ordering_kernels.best_insertion`).

ASOBS (Scanagatta, de Campos, Corani & Zaffalon, "Learning Bayesian Networks
with Thousands of Variables", NIPS 2015, Section 4): the ordering is read from
last to first and every node takes its best candidate that does not close a
cycle with the parent sets chosen so far, so arcs may point backwards in the
ordering. A boolean descendant matrix kept up to date with todo lists makes a
whole pass cost O(Ck + n^2) (``C`` candidates in all, ``k`` their largest
size; here O(Ck + k n^2), as each new descendant is passed to up to ``k``
parents). Theorem 3: on every ordering ASOBS scores at least as high as OBS.

Seeded by hill climbing (the default, ``start="hc"``): OBS and ASOBS can only
pick explored sets, and with the minutes a desktop has (Scanagatta et al. gave
each variable a minute) independence selection misses small true parent sets
that DAG hill climbing, building each set in the context of the graph, finds.
So hill climbing runs first, the sets around its graph join the candidates
(:class:`_Pool`: the OBS choice on its topological order then reproduces it),
and every new best graph, and every restart that beats the restarts before it,
is refined (:class:`_Search`): polished by hill climbing, its surroundings
added, climbed again from its order (a restart's graph below the best often
polishes far above it: on DEBD's dna, +92 in 60 s). On the bundled
andes, diabetes, pigs, link and munin samples this beats hill climbing with
random restarts in the same wall time (benchmarks/BENCHMARKS.md).

Background knowledge (:class:`bnexplore.knowledge.Knowledge`): the explorers
and the pool build only sets that honour it, hill climbing honours it, and
only orderings that put every node after its required parents are climbed
(a move that would break that scores minus infinity). Tiers are left to the
candidates: with variables in no tier, a DAG honouring the tiers may have no
topological order that lists the tiers in order.

Candidates come from :mod:`bnexplore.parents.explore` (or any
:class:`ParentSets`); the inner loops are numba kernels
(:mod:`bnexplore.search.ordering_kernels`) over one flat copy of the
candidates: ``parents`` (C x k, padded with -1), ``sizes``, ``scores`` and
``offsets`` (node ``v`` owns rows ``offsets[v]:offsets[v + 1]``, best first).
"""

import inspect
import itertools

import numpy as np

from ..collector import old_objects_skipped
from ..control import Control
from ..distributed import explore_distributed
from ..errors import SearchError
from ..graphs import DAG
from ..knowledge import knowledge_params
from ..numerics import tie_tolerance
from ..parents.candidates import ParentSets
from ..parents.explore import METHODS as EXPLORERS
from ..parents.explore import explore_parent_sets
from ..scores import kernels
from .dagstate import DAG_PAIR_BYTES, check_pass_memory, first_pass_seconds, step_seconds
from .hillclimb import hill_climb
from .ordering_kernels import (apply_insertion, asobs_parents, best_insertion, climb_swaps, obs_parents,
                               respecting_order, swap_deltas, topological_order)
from .pool_sets import around, undominated
from .run import SearchRun

METHODS = ("asobs", "obs")
SWAPS_PER_CALL = 2000
"""Swaps the climbing kernel makes between two checks of the stop flag."""

DEFAULT_TIME_PER_VARIABLE = 1.0
"""Seconds per variable for parent-set identification when no budget is given."""

EXPLORE_SHARE = 0.5
"""Share of the time left after the seed graph that parent-set exploration gets, as a deadline (a per-variable
budget alone was overrun: each variable's one-parent sets cost more than its slice on wide data); the rest climbs
orderings. The seed's hill climbing has no share: it runs to its local optimum or the time limit (a seed cut short
is worse than hill climbing alone in the same time), and its graph is kept unless something scores higher."""

SEED_STEPS = 0.25
"""Steps per variable the seed's hill climbing must be projected to make within the time limit, else it is skipped
and the run is the paper's (Section 5.2 runs no hill climbing). Projected: its first pass over all ``n (n - 1)``
arcs (:func:`~bnexplore.search.dagstate.first_pass_seconds`), then per step its ``n x n`` work
(:func:`~bnexplore.search.dagstate.step_seconds`) and one column of scores. Its graphs have 1.5-4 arcs per
variable, so a quarter of a step per variable is a nearly empty graph: on 10,000 variables (1,000 rows, 600 s)
the pass took 150-300 s and each step seconds, the climb ended with 127 arcs (BIC -5,933,035 against the paper's
run's -5,691,119); on 2,000 variables in 60 s the seed cut short by the limit is above the paper's run
(-1,047,047 against -1,074,365) and is run (projected: 17 s for that quarter; on 10,000 variables about 1,600 s)."""

DEFAULT_RESTARTS = 10
"""Random orderings climbed when neither ``restarts`` nor a time limit is given (else until the limit)."""

ENDED = {None: "finished", "time limit": "time", "stopped": "stopped"}
"""Why a phase ended, from :attr:`bnexplore.control.Control.reason` once it returned: ``"finished"``
(hill climbing at its local optimum, where no move gains; the explorer through its budget; the given
number of restarts), ``"time"`` (the time limit) or ``"stopped"`` (the stop flag)."""

POOL_RESERVE_SHARE = 0.02
"""Share of the ordering phase's time the candidate pool's passes leave for what follows the last of them:
packing the candidates, one ordering climb and its ASOBS reading, and the result. On 10,000 variables the
pool's first pass (every node's one-parent sets) would take the whole phase, and that work, done once the
time was up, ended the run 1.3 s past its limit alone and 2.6 s past beside the test suite (of 300 s)."""

POOL_PAIR_BYTES = 100
"""Bytes per ordered pair of variables the ordering search holds beyond its seed's hill climbing
(:data:`~bnexplore.search.dagstate.DAG_PAIR_BYTES`): the explored sets, the candidate pool around the
graphs it adopts (:func:`~bnexplore.search.pool_sets.around`; a set one parent larger only when it
beats the graph's) and the packed candidates (measured: the whole learner 27-126 bytes per pair
above the interpreter on the DEBD data sets of 111-1,556 variables, its seed included)."""


PARENT_DTYPE = np.int32
"""The type of :class:`Candidates`' parent indices: half the bytes of int64 for the one array that grows with
the candidates times their largest size (DEBD's cwebkb: some 200,000 sets, up to 6 parents), and room for
any number of variables a table can have."""


# -- candidates ----------------------------------------------------------------

class Candidates:
    """One flat copy of a :class:`ParentSets` for the kernels.

    Attributes
    ----------
    parents : (C, k) int32 array, padded with -1
        Node indices as :data:`PARENT_DTYPE`.
    sizes, offsets : int64 arrays
    scores : float64 array
    forced : (m, 2) int64 array
        Pairs ``(u, v)``: every candidate of ``v`` holds ``u`` (a required
        parent, under background knowledge), so ``u`` must come before ``v``.
        Kept as pairs, not an ``n x n`` matrix: none without knowledge (the
        empty set is a candidate), and on 10,000 nodes that matrix was 100 MB
        and a second to fill.
    """

    def __init__(self, parent_sets):
        packed = [parent_sets.packed(v) for v in range(parent_sets.n_vars)]
        width = max(p.shape[1] for p, _, _ in packed)
        counts = [p.shape[0] for p, _, _ in packed]
        self.offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.parents = np.full((self.offsets[-1], width), -1, PARENT_DTYPE)
        for (p, _, _), start in zip(packed, self.offsets[:-1]):
            self.parents[start:start + p.shape[0], :p.shape[1]] = p
        self.sizes = np.concatenate([s for _, s, _ in packed]).astype(np.int64)
        self.scores = np.concatenate([s for _, _, s in packed]).astype(np.float64)
        self._finish()

    @classmethod
    def of_lists(cls, per_node):
        """The candidates of ``per_node[v]``, node ``v``'s ``(sorted parent tuple, score)`` pairs (any iterable,
        read once), in the order of a :class:`ParentSets` of them (best first; ties: smaller sets, then
        lexicographically), packed in place: the candidate pool's sets are valid by construction, and a
        ``ParentSets`` copy with its sort keys was the largest block at the ordering search's peak memory on
        wide data (DEBD's cr52: 19 MiB).

        Examples
        --------
        >>> Candidates.of_lists([[((), -2.0), ((1,), -1.0)], [((), -3.0)]]).parents.tolist()
        [[1], [-1], [-1]]
        """
        self = cls.__new__(cls)
        sets, scores = [], []
        for items in per_node:  # one node's pairs at a time
            ranked = sorted(items, key=lambda item: (-item[1], len(item[0]), item[0]))
            sets.append([c for c, _ in ranked])
            scores.append(np.array([score for _, score in ranked], np.float64))
        self.offsets = np.concatenate([[0], np.cumsum([len(node) for node in sets])]).astype(np.int64)
        self.scores = np.concatenate(scores) if scores else np.empty(0)
        self.sizes = np.fromiter((len(c) for node in sets for c in node), np.int64, len(self.scores))
        self.parents = np.full((len(self.sizes), max(1, int(self.sizes.max(initial=0)))), -1, PARENT_DTYPE)
        for node, start, stop in zip(sets, self.offsets[:-1].tolist(), self.offsets[1:].tolist()):
            sizes = self.sizes[start:stop]  # filled node by node: whole-pool index arrays were its peak
            flat = np.fromiter(itertools.chain.from_iterable(node), PARENT_DTYPE, int(sizes.sum()))
            self.parents[start + np.repeat(np.arange(len(sizes)), sizes),
                         np.arange(len(flat)) - np.repeat(np.cumsum(sizes) - sizes, sizes)] = flat
        self._finish()
        return self

    def _finish(self):
        """The forced pairs (see the class), from the packed arrays."""
        self.n = len(self.offsets) - 1
        pairs = [np.empty((0, 2), np.int64)]
        for v in range(self.n):
            p = self.parents[self.offsets[v]:self.offsets[v + 1]]
            if len(p) and not (p < 0).all(axis=1).any():  # no empty set: v may have required parents
                held, count = np.unique(p[p >= 0], return_counts=True)  # a set holds a parent once
                pairs.append(np.column_stack([held[count == len(p)], np.full((count == len(p)).sum(), v)]))
        self.forced = np.concatenate(pairs).astype(np.int64)
        self._before = None

    def parent_lists(self, chosen):
        return [self.parents[t, :self.sizes[t]].tolist() for t in chosen]

    def score(self, chosen):
        return float(self.scores[chosen].sum())

    def respecting(self, order):
        """``order`` moved as little as needed to put every node after its forced parents."""
        order = np.asarray(order, np.int64)
        if not len(self.forced):
            return order
        if self._before is None:  # the kernel's dense form, built once and only under required parents
            self._before = np.zeros((self.n, self.n), np.bool_)
            self._before[self.forced[:, 0], self.forced[:, 1]] = True
        out = respecting_order(order, self._before)
        if out[-1] < 0:
            raise SearchError("the candidate parent sets force a cycle (each node of it is in every candidate of "
                              "the next); give them sets without those parents")
        return out

    def obs(self, order):
        """OBS choice (rows) and position array for ``order``."""
        return obs_parents(self.parents, self.sizes, self.offsets, order)

    def asobs(self, order):
        """ASOBS choice (rows) for ``order``."""
        return asobs_parents(self.parents, self.sizes, self.offsets, order)

    def topological(self, chosen, order):
        """A topological order of the graph of rows ``chosen`` that follows ``order`` where it can."""
        return topological_order(self.parents, self.sizes, chosen, order)


# -- search --------------------------------------------------------------------

class Climb:
    """One ordering under hill climbing with OBS choices (also the ILP's primal heuristic).

    Adjacent swaps first (Teyssier & Koller 2005: O(c_j + c_{j+1}) per swap
    once the gains are known); at a swap optimum, the best insertion move
    (:func:`~bnexplore.search.ordering_kernels.best_insertion`, O(Ck + C log C + n), made by
    :func:`~bnexplore.search.ordering_kernels.apply_insertion` on the span it crosses), then swaps
    again, until no move gains. Insertions are our addition: adjacent swaps alone stall on large
    networks, as a node can only travel through pairs that each gain.
    """

    def __init__(self, cands, order):
        self.cands = c = cands
        self.order = np.array(order, np.int64)
        self.chosen, self.pos = c.obs(self.order)
        self.deltas = swap_deltas(c.parents, c.sizes, c.scores, c.offsets, self.order, self.pos, self.chosen)

    def run(self, control, counters):
        """Climb to a local optimum (or until stopped), counting ``swaps`` and ``insertions``."""
        c = self.cands
        while not control.should_stop():
            tol = tie_tolerance(c.score(self.chosen))
            made = climb_swaps(c.parents, c.sizes, c.scores, c.offsets, self.order, self.pos, self.chosen,
                               self.deltas, SWAPS_PER_CALL, tol)
            counters["swaps"] += made
            control.report(message="ordering climb: {swaps:,} swaps, {insertions:,} insertions".format(**counters))
            if made == SWAPS_PER_CALL:
                continue
            v, j, gain = best_insertion(c.parents, c.sizes, c.scores, c.offsets, self.order, self.pos, self.chosen)
            if gain <= tol:
                break
            apply_insertion(c.parents, c.sizes, c.scores, c.offsets, self.order, self.pos, self.chosen,
                            self.deltas, v, j)
            counters["insertions"] += 1


def climb_restart(cands, order, method, control, counters):
    """One restart from ``order``: climb; for ASOBS, read the climbed ordering
    with acyclic selection, then climb again from a topological order of the
    ASOBS graph (its OBS score is at least the graph's score) while that
    improves. The ordering first puts every node after its forced (required)
    parents. Returns ``(chosen rows, score)``."""
    climb = Climb(cands, cands.respecting(order))
    climb.run(control, counters)
    best, best_score = climb.chosen.copy(), cands.score(climb.chosen)
    counters["orderings"] += 1
    while method == "asobs":
        chosen = cands.asobs(climb.order)
        score = cands.score(chosen)
        counters["orderings"] += 1
        if score <= best_score + tie_tolerance(best_score):
            break
        best, best_score = chosen, score
        if control.should_stop():
            break
        climb = Climb(cands, cands.topological(chosen, climb.order))
        climb.run(control, counters)
    return best, best_score


class _Pool:
    """The candidate parent sets of a search, growing as it goes.

    It starts from the explored sets and gains, for every graph the search adopts (the empty graph first),
    the sets :func:`~bnexplore.search.pool_sets.around` its parent sets (scored, not cached by the scorer:
    the pool keeps what it needs), so the OBS choice on a topological order of that graph reproduces it and
    an ordering climb can only improve on it. :meth:`candidates` is rebuilt when sets were added. With
    ``bound`` (a BoundKnowledge) only sets honouring it are kept, and the smallest, the required parents,
    is always there. With ``control`` the long passes (every node's one-parent sets: ``n (n - 1)``) check
    its stop flag and clock, and report progress, every :func:`~bnexplore.scores.kernels.families_per_check`
    sets and end early once it says stop: the pool then holds fewer sets, and a node whose sets were not
    sorted out keeps them all (a set no better than a subset it contains is never chosen over it).
    """

    def __init__(self, scorer, parent_sets, max_indegree, bound=None, control=None):
        self.scorer = scorer
        self.bound = bound
        self.control = control
        self.per_check = kernels.families_per_check(scorer.rows)
        self.cap = scorer.n_vars if max_indegree is None else int(max_indegree)
        self._ints = list(range(scorer.n_vars))  # the sets' parents as one int object each (see _shared)
        self._singles = [(u,) for u in self._ints]  # the one-parent sets as one tuple each (see _shared)
        self.scored = [{self._shared(c): s for c, s in zip(parent_sets.sets(v), parent_sets.scores(v).tolist())
                        if self._ok(v, c)} for v in range(parent_sets.n_vars)]
        self.added = 0
        self._kept = [None] * scorer.n_vars  # per node, its undominated sets, keys of ``scored`` (None: to recompute)
        self._expanded = [set() for _ in range(scorer.n_vars)]  # per node, the parent sets added around
        self._cands = None
        self.add([[] if bound is None else bound.required_parents(v).tolist() for v in range(scorer.n_vars)])

    def _shared(self, parents):
        """``parents`` (a tuple) made of the pool's int objects, a one-parent set the pool's own tuple: Python
        makes a new object for every int above 256 a set is built from, 32 bytes each, and for every tuple, 56
        bytes for one parent; the pool keeps some 200,000 sets on wide data, three in four of one parent
        (DEBD's cwebkb: 152,000 one-parent sets of 839 nodes)."""
        if len(parents) == 1:
            return self._singles[parents[0]]
        return tuple(map(self._ints.__getitem__, parents))

    def _ok(self, v, parents):
        return self.bound is None or self.bound.parents_ok(v, parents)

    def _stopped(self):
        return self.control is not None and self.control.should_stop()

    def add(self, parent_lists):
        """Add the sets around a graph's parent sets not expanded before, scored in batches between stop
        checks; after a stop, only the graph's own parent sets of the nodes not reached. A set one parent
        larger than the graph's is kept only when it scores above it (else no ordering would choose it)."""
        n, keys = self.scorer.n_vars, []
        centres = [tuple(sorted(ps)) for ps in parent_lists]
        for v, centre in enumerate(centres):
            if centre not in self._expanded[v]:
                self._expanded[v].add(centre)
                sets = [c for c in around(centre, v, n, self.cap) if c not in self.scored[v] and self._ok(v, c)]
                keys += sorted(((v, c) for c in sets), key=lambda key: len(key[1]) > len(centre))
            if len(keys) >= self.per_check or v == n - 1:
                self._score(keys, centres)
                keys = []
                if v < n - 1 and self._stopped():
                    own = [(w, c) for w, c in enumerate(centres) if w > v]
                    self._score([(w, c) for w, c in own if c not in self.scored[w] and self._ok(w, c)], centres)
                    return
                if self.control is not None:
                    self.control.report(message=f"candidate pool: {v + 1:,} of {n:,} nodes, {self.added:,} sets")

    def _score(self, keys, centres):
        """Score ``keys`` (each node's sets up to its centre first) and keep them, but the sets larger
        than the centre that score no higher than it."""
        if keys:
            for (v, c), value in zip(keys, self.scorer.lookup(keys, remember=False).tolist()):
                if len(c) <= len(centres[v]) or value > self.scored[v].get(centres[v], -np.inf):
                    self.scored[v][self._shared(c)] = value
                    self._kept[v] = None
            self.added += len(keys)
            self._cands = None

    def release(self):
        """Drop the packed candidates until next asked for: a polishing climb's ``n x n`` state need not sit beside
        them (on DEBD's cr52 the two made the run's peak); the sets around a polished graph that moved join the
        pool after it, and it packs them anew then anyway."""
        self._cands = None

    def candidates(self):
        if self._cands is None:
            work, stopped = 0, False
            for v, kept in enumerate(self._kept):
                if kept is None:
                    if work >= self.per_check:
                        work, stopped = 0, stopped or self._stopped()
                    self._kept[v] = list(self.scored[v]) if stopped else undominated(self.scored[v])
                    work += len(self.scored[v])
            self._cands = Candidates.of_lists(((c, scored[c]) for c in kept) for scored, kept in zip(self.scored,
                                                                                                      self._kept))
        return self._cands


def _child(control, time_limit=None, label=None):
    """A Control for a sub-search: stops when ``control`` does (or after
    ``time_limit``); with ``label`` its reports reach ``control`` as
    ``"label: message"`` with the score (no fraction done), else none do."""
    def forward(info):
        control.report(message=f"{label}: {info['message']}", score=info.get("score"))

    return Control(progress=forward if label and control.progress else None, time_limit=time_limit,
                   stop=control.should_stop, clock=control.clock)


class _Search:
    """Restarts of the ordering climb over a growing :class:`_Pool`.

    Each restart climbs an ordering (:func:`climb_restart`); a result better than
    every restart before it (so every new best) is refined (:meth:`refine`) when
    the search has a seed graph: polished by DAG hill climbing, its surroundings
    added to the pool, and climbed again from its topological order, while that
    gains. For random orderings such records come about ``log(restarts)`` times.
    """

    def __init__(self, scorer, pool, method, max_indegree, control, run, knowledge=None):
        self.scorer, self.pool, self.method = scorer, pool, method
        self.max_indegree, self.control, self.run = max_indegree, control, run
        self.knowledge = knowledge
        self.best, self.best_score = None, -np.inf
        self.counters = {"swaps": 0, "insertions": 0, "restarts": 0, "orderings": 0, "polish_steps": 0,
                         "refinements": 0}

    def _record(self, op, score, **extra):
        self.run.trajectory.append({"step": len(self.run.trajectory) + 1, "op": op, "args": [],
                                    "delta": None if self.best is None else score - self.best_score,
                                    "score": score, "seconds": self.control.elapsed, **extra})

    def _adopt(self, parents, score, op, **extra):
        if score > self.best_score:
            self._record(op, score, **extra)
            self.best, self.best_score = [list(p) for p in parents], score

    def climb(self, order):
        """Climb from ``order``; returns ``(parent lists, score)``."""
        cands = self.pool.candidates()
        chosen, score = climb_restart(cands, np.asarray(order, np.int64), self.method, self.control, self.counters)
        return cands.parent_lists(chosen), score

    def refine(self, parents, score, polished):
        """Alternate hill climbing (unless ``polished``) and ordering climbs from a graph until neither gains."""
        while True:
            if not polished and not self.control.should_stop():
                self.pool.release()
                result = hill_climb(self.scorer, start=parents, max_indegree=self.max_indegree,
                                    knowledge=self.knowledge, control=_child(self.control))
                self.counters["polish_steps"] += result.stats["iterations"]
                parents, score = [list(p) for p in result.graph.parent_sets()], result.score
                self._adopt(parents, score, "polish")
            self.pool.add(parents)
            if self.control.should_stop():
                return
            order = DAG.from_parents(parents, self.scorer.names).topological_order()
            climbed, climbed_score = self.climb(order)
            self.counters["refinements"] += 1
            if climbed_score <= score + tie_tolerance(score):
                return
            parents, score, polished = climbed, climbed_score, False
            self._adopt(parents, score, "climb")

    def seed(self, parents, score, polished):
        """Start from a graph (``polished``: a local optimum of hill climbing already)."""
        self._adopt(parents, score, "start")
        self.refine(parents, score, polished)

    def restarts(self, count, seed, refine):
        """``count`` climbs from random orderings (None: until the control says stop); each one better than
        every climb before it is refined when ``refine``."""
        rng = np.random.default_rng(seed)
        best_restart = -np.inf
        for r in itertools.count() if count is None else range(count):
            if (r > 0 or self.best is not None) and self.control.should_stop():
                break
            parents, score = self.climb(rng.permutation(self.scorer.n_vars))
            self.counters["restarts"] = r + 1
            record, best_restart = score > best_restart, max(score, best_restart)
            self._adopt(parents, score, "restart", restart=r)
            if refine and record:
                self.refine(parents, score, polished=False)
            done = None if count is None else (r + 1) / count
            if self.control.time_limit is not None:
                done = max(done or 0.0, min(1.0, self.control.elapsed / self.control.time_limit))
            self.control.report(done=done, message=f"{self.method}: restart {r + 1}", score=self.best_score,
                                iteration=r + 1, time_left=self.control.remaining)
        self.run.evaluated = self.counters["swaps"] + self.counters["insertions"] + self.counters["orderings"]


def _parent_sets(scorer, parents, max_indegree, time_per_variable, max_evaluations, time_limit, workers,
                 scheduler, control, knowledge=None):
    """The candidate parent sets: given, or found by an explorer (locally or on Dask).

    With neither budget given the explorer gets ``time_limit`` (the time
    left) shared over the variables and the workers, or
    :data:`DEFAULT_TIME_PER_VARIABLE`.
    """
    if isinstance(parents, ParentSets):
        if parents.names != scorer.names:
            raise SearchError("the candidate parent sets are for other variables than the data: "
                              "explore them with this data's scorer")
        return parents
    if time_per_variable is None and max_evaluations is None:
        if time_limit is not None:
            time_per_variable = max(time_limit, 1e-3) * max(1, int(workers)) / scorer.n_vars
        else:
            time_per_variable = DEFAULT_TIME_PER_VARIABLE
    options = dict(method=parents, max_indegree=max_indegree, time_per_variable=time_per_variable,
                   max_evaluations=max_evaluations, knowledge=knowledge)
    if int(workers) > 1 or scheduler is not None:
        return explore_distributed(scorer, **options, workers=workers, scheduler=scheduler, control=control)
    return explore_parent_sets(scorer, **options, control=control)


def _phase(control, share):
    """A Control for a phase that gets ``share`` of the time left: the run's progress, stop flag and clock, its
    own deadline (none without a time limit)."""
    seconds = None if control.remaining is None else max(share * control.remaining, 1e-6)
    return Control(progress=control.progress, time_limit=seconds, stop=control.should_stop, clock=control.clock,
                   min_interval=control.min_interval)


def _seed_out_of_reach(scorer, control):
    """Whether the seed's hill climbing is projected to make fewer than :data:`SEED_STEPS` steps per variable in
    the time left (on the control's clock)."""
    n = scorer.n_vars
    first = first_pass_seconds(scorer, control.clock)
    step = step_seconds(n, control.clock) + first / max(n, 1)  # the n x n work and one column's scores
    return first + SEED_STEPS * n * step > control.remaining


def _seed_graph(scorer, start, max_indegree, control, knowledge=None):
    """The seed graph's parent lists, its score, and whether it is a local optimum of hill
    climbing (``start="hc"``: hill climbing from the empty graph, or the required arcs, unless
    stopped early). A given graph gains the required arcs and must honour the rest of the knowledge."""
    if isinstance(start, str):
        if start != "hc":
            raise SearchError(f"start must be 'hc', a DAG, parent lists or None, got {start!r}")
        result = hill_climb(scorer, max_indegree=max_indegree, knowledge=knowledge, control=control)
        return [list(p) for p in result.graph.parent_sets()], result.score, result.stats["stopped"] is None
    parents = [list(p) for p in scorer.parent_lists(start)]
    if knowledge:
        bound = knowledge.bind(scorer, max_indegree)
        parents = [sorted(set(ps) | set(bound.required_parents(v).tolist())) for v, ps in enumerate(parents)]
    dag = DAG.from_parents(parents, scorer.names)  # refuses a cycle, naming it
    if knowledge and not bound.allows(dag):
        raise SearchError(f"the start graph does not honour the knowledge: {bound.violations(dag)[0]}")
    if max_indegree is not None and max(map(len, parents)) > max_indegree:
        raise SearchError(f"the start graph has a node with more than max_indegree={max_indegree} parents")
    return parents, scorer.total(parents), False


def ordering_search(scorer, method="asobs", parents="independence", max_indegree=None, time_per_variable=None,
                    max_evaluations=None, time_limit=None, restarts=None, seed=None, workers=1, scheduler=None,
                    start="hc", knowledge=None, progress=None, stop=None, control=None):
    """Learn a DAG by OBS or ASOBS over explored candidate parent sets.

    Two phases (Scanagatta et al. 2015): parent-set identification (Section
    3, :func:`bnexplore.parents.explore.explore_parent_sets`), then structure
    optimisation over orderings (Section 4). Each restart draws a random
    ordering and climbs under the OBS rule (Teyssier & Koller 2005) by
    adjacent swaps and, at a swap optimum, insertion moves (see
    :class:`Climb`); ASOBS then reads the climbed ordering with acyclic
    selection and, while that improves, climbs again from a topological order
    of the ASOBS graph. With the same seed both methods climb the same
    orderings, so ASOBS never ends below OBS (Theorem 3) unless stopped early.

    With a seed graph (``start``, by default DAG hill climbing from the empty
    graph, run first) the search begins there: the sets around the seed's
    parent sets (each set, its subsets and its one-parent supersets) join the
    candidates, so the OBS choice on the seed's topological order is at least
    the seed, and every new best graph (and every restart better than the
    restarts before it) is refined, alternating DAG hill
    climbing (which adds parents no explored set has) with an ordering climb
    from its topological order over the candidates grown around it, while
    either gains. The result is then never below hill climbing; on the large
    bundled networks it is well above hill climbing with restarts in the
    same time (benchmarks/BENCHMARKS.md). ``start=None`` is the paper's
    algorithm: random orderings over the explored sets only.

    A ``time_limit`` is split by progress, not by fixed shares: hill
    climbing runs until its local optimum (or the limit), the explorer gets
    :data:`EXPLORE_SHARE` of what is left (and stops there), the ordering climbs the rest, and
    the best graph of any phase (the seed's included) is returned, so the
    result is never below hill climbing alone in the same time (unless
    hill climbing is projected to make fewer than :data:`SEED_STEPS` steps
    per variable in the time: then it is skipped, as on 10,000 variables,
    where its graph would be nearly empty). Without a
    restart count the restarts go on until the limit (Scanagatta et al.
    2015, Section 4, likewise sample orderings for the whole budget).

    Parameters
    ----------
    scorer : Scorer
    method : {"asobs", "obs"}
    parents : {"independence", "greedy", "sequential"} or ParentSets
        The explorer, or candidates already found (for this scorer's data).
    max_indegree, time_per_variable, max_evaluations
        Budgets of the explorer (see :class:`ExploreSettings`). With neither
        budget given, the explorer gets :data:`EXPLORE_SHARE` of the time
        left after the seed graph, spread over the variables (times
        ``workers``), or 1 second per variable without a ``time_limit``.
    time_limit : float, optional
        Seconds for the whole run; the search stops at the end of the climb
        step under way (at least one ordering is always evaluated).
    restarts : int, optional
        Random orderings tried (after the seed graph's, when there is one).
        None (default): until the time limit, or :data:`DEFAULT_RESTARTS`
        without one.
    seed : int, optional
        Seed of the random orderings.
    workers : int
        With more than 1, parent sets are explored on a local Dask cluster of
        that many processes (see :mod:`bnexplore.distributed`).
    scheduler : str, optional
        Address ``"tcp://host:port"`` of an existing Dask scheduler to use.
    start : "hc", DAG, parent lists or None
        Seed graph: ``"hc"`` (default) runs :func:`hill_climb` first, to its
        local optimum or the time limit; a graph is used as given;
        None starts from random orderings only, without refinement.
    knowledge : Knowledge, optional
        Background knowledge (:class:`bnexplore.knowledge.Knowledge`, checked
        first): the explorer builds only sets that honour it (given candidates
        are filtered), the seed graph and the polishing honour it, and only
        orderings with every node after its required parents are climbed.
    progress, stop, control
        See :class:`bnexplore.control.Control`. Reports carry
        ``variables_done`` during identification, then ``score`` (best so
        far) and ``time_left``.

    Returns
    -------
    Result
        ``stats`` adds how the time was spent: ``seed_seconds``,
        ``parent_seconds`` and ``ordering_seconds`` (by the control's clock)
        and why each phase ended, ``seed_ended``, ``parent_ended`` and
        ``ordering_ended`` (:data:`ENDED`'s words, ``"given"`` for a given
        seed graph or candidates, ``"skipped"`` for a seed projected to make
        fewer than :data:`SEED_STEPS` steps per variable in the time limit,
        None without a seed); then
        ``parent_sets_evaluated``,
        ``candidates`` (explored sets kept, in all), ``swaps``,
        ``insertions``, ``restarts``, ``orderings`` (OBS and ASOBS readings),
        ``seed_score`` (the seed graph), ``pool_added`` (sets added around adopted graphs),
        ``polish_steps`` (hill-climbing moves of the refinements) and ``refinements`` (ordering climbs from
        adopted graphs); ``extra["candidates"]`` maps each variable to its
        number of explored candidates and ``extra["ordering"]`` is a
        topological order of the result (names). The trajectory has one step
        per new best: ``op`` "start", "restart", "climb" or "polish".
    """
    if method not in METHODS:
        raise SearchError(f"unknown ordering search {method!r}: choose one of {', '.join(METHODS)}")
    if restarts is not None and (int(restarts) != restarts or restarts < 1):
        raise SearchError(f"restarts must be a whole number >= 1, got {restarts!r}")
    if int(workers) != workers or workers < 1:
        raise SearchError(f"workers must be a whole number >= 1, got {workers!r}")
    if not isinstance(parents, ParentSets) and parents not in EXPLORERS:
        raise SearchError(f"parents must be a ParentSets or one of {', '.join(EXPLORERS)}, got {parents!r}")
    bound = knowledge.bind(scorer, max_indegree) if knowledge else None
    check_pass_memory(scorer.n_vars, f"the {method.upper()} search", DAG_PAIR_BYTES + POOL_PAIR_BYTES)
    control = Control.of(control, progress, time_limit, stop)
    explorer = parents if isinstance(parents, str) else "given"
    run = SearchRun(scorer, control, method, {"parents": explorer, "max_indegree": max_indegree,
                                              "time_per_variable": time_per_variable,
                                              "max_evaluations": max_evaluations, "restarts": restarts,
                                              "seed": seed, "workers": workers,
                                              "start": start if start is None or isinstance(start, str)
                                              else "graph", **knowledge_params(knowledge)})
    # the collector's full scans skip what was alive before (bnexplore.collector); the scores computed are not
    # cached: the climbs meet few families twice, and the cache they filled held 25 MB at the peak on wide data
    with old_objects_skipped(), scorer.forgetting():
        marks = [control.clock()]  # the clock at each phase's end (read once, as a fake clock moves per reading)
        seed_graph, seed_ended = None, None
        if isinstance(start, str) and start == "hc" and control.time_limit is not None and _seed_out_of_reach(
                scorer, control):
            seed_ended = "skipped"
        elif start is not None:
            seed_graph = _seed_graph(scorer, start, max_indegree, _child(control, label="seed graph"), knowledge)
            seed_ended = ENDED[control.reason] if isinstance(start, str) else "given"
        marks.append(control.clock())
        explore = _phase(control, EXPLORE_SHARE)
        share = explore.time_limit
        candidate_sets = _parent_sets(scorer, parents, max_indegree, time_per_variable, max_evaluations, share, workers,
                                      scheduler, explore, knowledge)
        parent_ended = "given" if isinstance(parents, ParentSets) else ENDED[control.reason or explore.reason]
        marks.append(control.clock())
        counts, evaluated = candidate_sets.counts(), candidate_sets.stats.get("evaluated")
        pool = _Pool(scorer, candidate_sets, max_indegree, bound, _phase(control, 1 - POOL_RESERVE_SHARE))
        del candidate_sets  # the pool holds the sets now (explored ones: about 9 MB on DEBD's cr52)
        search = _Search(scorer, pool, method, max_indegree, control, run, knowledge)
        if seed_graph is not None:
            search.seed(*seed_graph)
        search.restarts(restarts if restarts is not None or control.time_limit is not None else DEFAULT_RESTARTS,
                        seed, refine=seed_graph is not None)
        ordering_ended = ENDED[control.reason]
        marks.append(control.clock())
        seed_seconds, parent_seconds, ordering_seconds = np.diff(marks).tolist()
        result = run.result(search.best, extra={"candidates": dict(zip(scorer.names, counts.tolist()))},
                            parent_seconds=parent_seconds, parent_ended=parent_ended,
                            parent_sets_evaluated=evaluated, candidates=int(counts.sum()),
                            seed_score=None if seed_graph is None else seed_graph[1], seed_seconds=seed_seconds,
                            seed_ended=seed_ended, ordering_seconds=ordering_seconds, ordering_ended=ordering_ended,
                            pool_added=search.pool.added, **search.counters)
        result.extra["ordering"] = [scorer.names[v] for v in result.graph.topological_order()]  # one dense DAG, not two
        return result


def _variant(method):
    """``ordering_search`` with ``method`` fixed, with a signature :func:`bnexplore.learn` can read."""
    def search(scorer, **options):
        return ordering_search(scorer, method=method, **options)

    signature = inspect.signature(ordering_search)
    search.__signature__ = signature.replace(parameters=[p for name, p in signature.parameters.items()
                                                         if name != "method"])
    search.__name__ = search.__qualname__ = method
    search.__doc__ = f"{method.upper()}: :func:`ordering_search` with ``method={method!r}``."
    return search


asobs = _variant("asobs")
obs = _variant("obs")

__all__ = ["ordering_search", "asobs", "obs", "Candidates"]
