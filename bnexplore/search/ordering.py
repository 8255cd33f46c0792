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
from ..parents.candidates import ParentSets, best_first, pack_items, set_tuples
from ..parents.explore import METHODS as EXPLORERS
from ..parents.explore import explore_parent_sets
from ..resources import return_freed_memory
from ..scores import kernels
from ..scores.scorer import check_scorer
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
        self._pack([parent_sets.packed(v) for v in range(parent_sets.n_vars)])

    @classmethod
    def of_arrays(cls, packed, shape=None, spare=0):
        """The candidates of ``packed``, node by node its ``(parents, sizes, scores)`` arrays best first (as
        :meth:`ParentSets.packed` or :meth:`packed` gives them), copied into one allocation. With ``shape``
        (each node's number of sets, and the largest set's size) ``packed`` may be an iterator, read once:
        each node's arrays can be made just before they are copied, and let go after. ``spare`` is room for
        that many more rows (see :meth:`revise`).

        Examples
        --------
        >>> one = Candidates.of_arrays([(np.array([[1], [-1]]), np.array([1, 0]), np.array([-1.0, -2.0])),
        ...                             (np.array([[-1]]), np.array([0]), np.array([-3.0]))])
        >>> one.parents.tolist(), one.offsets.tolist()
        ([[1], [-1], [-1]], [0, 2, 3])
        """
        self = cls.__new__(cls)
        self._pack(packed, shape, spare)
        return self

    def _pack(self, packed, shape=None, spare=0):
        """Fill the flat arrays from ``packed`` (see :meth:`of_arrays`), as wide as the largest set."""
        if shape is None:
            shape = [len(sizes) for _, sizes, _ in packed], max([0] + [int(s.max(initial=0)) for _, s, _ in packed])
        counts, width = shape
        self.offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self._allocate(int(self.offsets[-1]), max(1, width), spare)
        for (parents, sizes, scores), start, stop in zip(packed, self.offsets[:-1].tolist(), self.offsets[1:].tolist()):
            columns = min(parents.shape[1], width)
            self.parents[start:stop, :columns] = parents[:, :columns]
            self.sizes[start:stop] = sizes
            self.scores[start:stop] = scores
        self._finish()

    def packed(self, v):
        """``(parents, sizes, scores)`` of node ``v``, best first: views of the flat arrays."""
        start, stop = int(self.offsets[v]), int(self.offsets[v + 1])
        return self.parents[start:stop], self.sizes[start:stop], self.scores[start:stop]

    def revise(self, revisions):
        """Change some nodes' rows in place: ``revisions[v] = (stay, (parents, sizes, scores))`` keeps node
        ``v``'s rows where ``stay`` is True and adds those sets (:func:`~bnexplore.parents.candidates.pack_items`
        arrays), its rows then put :func:`~bnexplore.parents.candidates.best_first`; the other nodes keep theirs.

        No second copy of the candidates is made (on DEBD's voting one is 60 MB) while their buffers have room
        (:meth:`of_arrays`' ``spare``; else new ones get an eighth more): every node's kept rows move down,
        first node to last; then every node moves up to its place, last node to first, a revised one with its
        new sets. Neither pass writes over rows it has still to read (a node only moves down in the first
        pass, and up in the second, past rows already moved).

        Examples
        --------
        >>> c = Candidates.of_arrays([(np.array([[-1]]), np.array([0]), np.array([-2.0])),
        ...                           (np.array([[0], [-1]]), np.array([1, 0]), np.array([-1.0, -3.0]))])
        >>> c.revise({0: (np.array([True]), (np.array([[1]]), np.array([1]), np.array([-0.5])))})
        >>> c.parents.tolist(), c.offsets.tolist()
        ([[1], [-1], [0], [-1]], [0, 2, 4])
        """
        offsets, n = self.offsets.tolist(), self.n
        kept = np.diff(self.offsets)
        joining = np.zeros(n, np.int64)
        width = self.parents.shape[1]
        for v, (stay, (_, sizes, _)) in revisions.items():
            kept[v], joining[v] = int(stay.sum()), len(sizes)
            width = max(width, int(sizes.max(initial=0)))
        if width > self.parents.shape[1]:  # a set larger than every packed one: a wider copy, once per width
            wider = np.full((len(self._buffers[0]), width), -1, PARENT_DTYPE)
            wider[:, :self.parents.shape[1]] = self._buffers[0]
            self._buffers = (wider,) + self._buffers[1:]
            self.parents = wider[:len(self.sizes)]
        low = np.concatenate([[0], np.cumsum(kept)]).tolist()
        for v in range(n):  # down: node v's kept rows to low[v] (never above where they were)
            if v in revisions or low[v] != offsets[v]:
                self._move(low[v], slice(offsets[v], offsets[v + 1]), revisions[v][0] if v in revisions else None)
        self.offsets = np.concatenate([[0], np.cumsum(kept + joining)]).astype(np.int64)
        high = self.offsets.tolist()
        self._resize(high[-1])  # never below the kept rows: only sets join
        for v in range(n - 1, -1, -1):  # up: node v to high[v] (never below low[v]), a revised one re-sorted
            if v in revisions:
                block = _joined((self.parents[low[v]:low[v + 1]], self.sizes[low[v]:low[v + 1]],
                                 self.scores[low[v]:low[v + 1]]), revisions[v][1])
                self.parents[high[v]:high[v + 1]] = -1
                self.parents[high[v]:high[v + 1], :block[0].shape[1]] = block[0]
                self.sizes[high[v]:high[v + 1]], self.scores[high[v]:high[v + 1]] = block[1], block[2]
            elif high[v] != low[v]:
                self._move(high[v], slice(low[v], low[v + 1]))
        self._finish()

    def _move(self, start, rows, stay=None):
        """Rows ``rows`` of the flat arrays (those where ``stay``, when given) copied to start at ``start``."""
        for name in ("parents", "sizes", "scores"):
            array = getattr(self, name)
            moved = array[rows] if stay is None else array[rows][stay]
            array[start:start + len(moved)] = moved

    def _allocate(self, rows, width, spare):
        """Flat arrays of ``rows`` rows (parents -1) as views of buffers with room for ``spare`` more."""
        self._buffers = (np.full((rows + spare, width), -1, PARENT_DTYPE), np.empty(rows + spare, np.int64),
                         np.empty(rows + spare, np.float64))
        self.parents, self.sizes, self.scores = (buffer[:rows] for buffer in self._buffers)

    def _resize(self, rows):
        """The flat arrays made ``rows`` long: views of the same buffers while they have room (numpy's own
        resizing copies), else of new ones with an eighth more room, the rows copied over."""
        if rows > len(self._buffers[1]):
            old = (self.parents, self.sizes, self.scores)
            self._allocate(rows, self.parents.shape[1], rows // 8)
            for array, before in zip(self._buffers, old):
                array[:len(before)] = before
        self.parents, self.sizes, self.scores = (buffer[:rows] for buffer in self._buffers)

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


def _joined(kept, joining):
    """One node's kept rows and joining sets (each ``(parents, sizes, scores)`` arrays) as one block,
    :func:`~bnexplore.parents.candidates.best_first`.

    Examples
    --------
    >>> parents, sizes, scores = _joined((np.array([[-1]]), np.array([0]), np.array([-2.0])),
    ...                                 (np.array([[1]]), np.array([1]), np.array([-0.5])))
    >>> parents.tolist(), scores.tolist()
    ([[1], [-1]], [-0.5, -2.0])
    """
    both = np.full((len(kept[1]) + len(joining[1]), max(kept[0].shape[1], joining[0].shape[1])), -1, np.int64)
    both[:len(kept[1]), :kept[0].shape[1]] = kept[0]
    both[len(kept[1]):, :joining[0].shape[1]] = joining[0]
    return best_first(both, np.concatenate([kept[1], joining[1]]), np.concatenate([kept[2], joining[2]]))


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
    """The candidate parent sets of a search, growing as it goes, held as the packed :class:`Candidates` the
    kernels read and little else: the explored sets as Python tuples and floats beside them made the learner's
    peak on dense wide data (DEBD's voting: 1.58 million sets, about 50 MB packed; the run peaked at 434 MiB
    with them, against BLIP's 294).

    It starts from the explored sets and gains, for every graph the search adopts (the empty graph first),
    the sets :func:`~bnexplore.search.pool_sets.around` its parent sets (scored, not cached by the scorer:
    the pool keeps what it needs), so the OBS choice on a topological order of that graph reproduces it and
    an ordering climb can only improve on it. Sets scored since the last packing wait beside it, per node, as
    arrays (on voting a quarter of a million one-parent sets the explorer had not kept); :meth:`candidates`
    packs them with the rest, keeping of each node with waiting sets its
    :func:`~bnexplore.search.pool_sets.undominated` ones (the others are remembered apart, so they are not
    scored again). The first packing reads the explorer's sets, letting each node's go once packed; the
    later ones revise the packed candidates in place (:meth:`Candidates.revise`). With ``bound`` (a
    BoundKnowledge) only sets honouring it are kept, and the smallest, the required parents, is always
    there. With ``control`` the long passes (every node's one-parent sets: ``n (n - 1)``) check its stop
    flag and clock, and report progress, every :func:`~bnexplore.scores.kernels.families_per_check` sets and
    end early once it says stop: the pool then holds fewer sets, and a node whose sets were not sorted out
    keeps them all (a set no better than a subset it contains is never chosen over it).
    """

    def __init__(self, scorer, parent_sets, max_indegree, bound=None, control=None):
        n = scorer.n_vars
        self.scorer = scorer
        self.bound = bound
        self.control = control
        self.per_check = kernels.families_per_check(scorer.rows)
        self.cap = n if max_indegree is None else int(max_indegree)
        self.added = 0
        self._expanded = [set() for _ in range(n)]  # per node, the parent sets added around
        self._waiting = [[] for _ in range(n)]  # per node, the sets scored since the last packing (as pack_items)
        self._dominated = [{} for _ in range(n)]  # per node, {set: score} scored and never chosen
        self._explored = [self._honoured(parent_sets, v) for v in range(n)]  # until the first packing
        self._cands = None
        self.add([[] if bound is None else bound.required_parents(v).tolist() for v in range(n)])

    def _honoured(self, parent_sets, v):
        """Node ``v``'s arrays of ``parent_sets`` (views), but the sets that break the knowledge."""
        packed = parent_sets.packed(v)
        if self.bound is None:
            return packed
        keep = np.array([self._ok(v, c) for c in parent_sets.sets(v)], bool)
        return tuple(array[keep] for array in packed)

    def _ok(self, v, parents):
        return self.bound is None or self.bound.parents_ok(v, parents)

    def _stopped(self):
        return self.control is not None and self.control.should_stop()

    def _packed(self, v):
        """Node ``v``'s ``(parents, sizes, scores)`` as packed (before the first packing, as explored)."""
        return self._explored[v] if self._cands is None else self._cands.packed(v)

    def _pairs(self, v):
        """Node ``v``'s packed sets as tuples and their scores, and its waiting ones as ``{set: score}``."""
        parents, sizes, scores = self._packed(v)
        waiting = {}
        for chunk_parents, chunk_sizes, chunk_scores in self._waiting[v]:
            waiting.update(zip(set_tuples(chunk_parents, chunk_sizes), chunk_scores.tolist()))
        return set_tuples(parents, sizes), scores.tolist(), waiting

    def scored(self, v):
        """``{set: score}`` of every set of node ``v`` the pool has scored: packed, waiting or dominated."""
        sets, scores, waiting = self._pairs(v)
        return {**dict(zip(sets, scores)), **waiting, **self._dominated[v]}

    def _holds(self, v, parents):
        """Whether the pool has scored ``parents`` for node ``v`` (one set: the rows compared as arrays)."""
        return parents in self._dominated[v] or any(_has_row(*arrays, parents)
                                                    for arrays in [self._packed(v)] + self._waiting[v])

    def add(self, parent_lists):
        """Add the sets around a graph's parent sets not expanded before, scored in batches between stop
        checks; after a stop, only the graph's own parent sets of the nodes not reached. A set one parent
        larger than the graph's is kept only when it scores above it (else no ordering would choose it)."""
        n, keys, floors = self.scorer.n_vars, [], {}
        centres = [tuple(sorted(ps)) for ps in parent_lists]
        for v, centre in enumerate(centres):
            if centre not in self._expanded[v]:
                self._expanded[v].add(centre)
                held = self.scored(v)
                floors[v] = held.get(centre, -np.inf)
                sets = [c for c in around(centre, v, n, self.cap) if c not in held and self._ok(v, c)]
                keys += sorted(((v, c) for c in sets), key=lambda key: len(key[1]) > len(centre))
            if len(keys) >= self.per_check or v == n - 1:
                self._score(keys, centres, floors)
                keys = []
                if v < n - 1 and self._stopped():
                    own = [(w, c) for w, c in enumerate(centres) if w > v]
                    self._score([(w, c) for w, c in own if not self._holds(w, c) and self._ok(w, c)], centres, {})
                    return
                if self.control is not None:
                    self.control.report(message=f"candidate pool: {v + 1:,} of {n:,} nodes, {self.added:,} sets")

    def _score(self, keys, centres, floors):
        """Score ``keys`` (each node's sets up to its centre first) and keep them, but the sets larger
        than the centre that score no higher than it (``floors[v]``, the centre's score once known)."""
        if keys:
            kept = {}
            for (v, c), value in zip(keys, self.scorer.lookup(keys, remember=False).tolist()):
                if c == centres[v]:
                    floors[v] = value
                if len(c) <= len(centres[v]) or value > floors.get(v, -np.inf):
                    kept.setdefault(v, []).append((c, value))
            for v, pairs in kept.items():
                self._waiting[v].append(pack_items(pairs))
            self.added += len(keys)

    def _revision(self, v, sort_out):
        """Node ``v``'s revision for :meth:`Candidates.revise`: which packed rows stay, and the waiting sets that
        join them; with ``sort_out`` only the undominated stay, the others set apart. Its waiting sets are
        cleared."""
        sets, scores, waiting = self._pairs(v)
        held = dict(zip(sets, scores))
        held.update(waiting)
        kept = set(undominated(held)) if sort_out else set(held)
        self._dominated[v].update((c, score) for c, score in held.items() if c not in kept)
        self._waiting[v] = []
        return (np.fromiter((c in kept for c in sets), bool, len(sets)),
                pack_items([(c, score) for c, score in waiting.items() if c in kept]))

    def _first_packing(self, revisions, shape):
        """Node by node, the explorer's arrays revised, each node's let go once read, and every eighth of
        the nodes the memory freed given back: the explorer's sets (small arrays, one node's each) and the
        packed ones (one allocation) are not held in full at once."""
        n = len(self._explored)
        for v in range(n):
            parents, sizes, scores = self._explored[v]
            self._explored[v] = None
            if v in revisions:
                stay, joining = revisions.pop(v)
                parents, sizes, scores = _joined((parents[stay], sizes[stay], scores[stay]), joining)
            yield parents, sizes, scores
            if (v + 1) % max(1, n // 8) == 0:
                return_freed_memory()

    def candidates(self):
        """The packed candidates with the waiting sets added (the first time in one allocation with an
        eighth to spare, then revised in place), and the memory freed since given back
        (:func:`~bnexplore.resources.return_freed_memory`)."""
        if self._cands is None or any(self._waiting):
            work, stopped, revisions, counts, width = 0, False, {}, [], 0
            for v, waiting in enumerate(self._waiting):
                sizes = self._packed(v)[1]
                if waiting:
                    if work >= self.per_check:
                        work, stopped = 0, stopped or self._stopped()
                    work += len(sizes) + sum(len(chunk[1]) for chunk in waiting)
                    revisions[v] = stay, (_, joining, _) = self._revision(v, sort_out=not stopped)
                    sizes = np.concatenate([sizes[stay], joining])
                counts.append(len(sizes))
                width = max(width, int(sizes.max(initial=0)))
            if self._cands is None:
                self._cands = Candidates.of_arrays(self._first_packing(revisions, (counts, width)), (counts, width),
                                                   spare=sum(counts) // 8)
                self._explored = None
            else:
                self._cands.revise(revisions)
            return_freed_memory()
        return self._cands


def _has_row(parents, sizes, scores, c):
    """Whether the packed sets ``(parents, sizes, scores)`` hold the set ``c``."""
    k = len(c)
    if k > parents.shape[1]:
        return False
    return bool(((sizes == k) & (parents[:, :k] == np.array(c, parents.dtype)).all(axis=1)).any())


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
    check_scorer(scorer, "ordering_search")
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
        return_freed_memory()  # the seed climb's, before the explorer's sets pile up
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
        return_freed_memory()  # the explorer's sets, each node's apart
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
