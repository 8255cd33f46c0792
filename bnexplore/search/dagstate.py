"""A DAG under local search: parent sets, reachability and one-arc deltas.

Shared by hill climbing and tabu search (:mod:`bnexplore.search.hillclimb`).
The state keeps, for every ordered pair ``(u, v)``, the *toggle delta*
``D[u, v] = s(v, Pa(v) xor {u}) - s(v, Pa(v))``: the score change of adding
``u -> v`` when it is absent, of deleting it when present. A reversal of
``u -> v`` changes the score by ``D[u, v] + D[v, u]``. After a move only the
columns of the children whose parent sets changed are recomputed (one column
for an addition or deletion, two for a reversal), so each step costs at most
``2 (n - 1)`` local scores, most of them answered by the cache.
"""

import numpy as np

from ..compiling import njit
from ..errors import SearchError
from ..graphs import find_cycle
from ..resources import check_memory, format_bytes
from ..scores import kernels

PAIR_BYTES = 260
"""Bytes per ordered pair of variables the first pass of a search that caches every arc's score
holds (RPDAG search, GES): the cached local score of the arc (a dict entry keyed by a tuple in a
tuple, about 200), its delta (8), and the n x n masks and temporaries of the move choice."""

DAG_PAIR_BYTES = 40
"""Bytes per ordered pair of variables a DAG local search (:class:`DagState`) holds: its delta (8),
the n x n boolean masks of the state and of the move choice (adjacency, reachability, allowed,
required, the legal additions, deletions and reversals: 7) and a step's temporaries (measured: 29
on 1,556 variables, the capped cache included). Its first pass does not cache every score
(:data:`bnexplore.scores.scorer.CACHED_ADDITIONS`)."""


def memory_needed(n, pair_bytes=PAIR_BYTES):
    """Bytes a search over ``n`` variables needs for its first pass over all ``n (n - 1)`` arcs."""
    return pair_bytes * n * (n - 1)


def check_pass_memory(n, what, pair_bytes=PAIR_BYTES):
    """Refuse, before anything is allocated, a search whose first pass over all arcs cannot fit in memory.

    Raises
    ------
    ResourceError
        Naming the search, the number of arcs and what they need (see
        :func:`bnexplore.resources.check_memory`).
    """
    check_memory(memory_needed(n, pair_bytes), f"{what} over {n:,} variables (a score for each of the "
                                               f"{n * (n - 1):,} possible arcs, {format_bytes(pair_bytes)} each)",
                 "use fewer variables (select the columns to learn from)")


def first_pass_seconds(scorer, clock):
    """Seconds the first pass of a :class:`DagState` (every one of the ``n (n - 1)`` arcs) would take.

    Projected from the columns after the first, at least one stop check's worth of families
    (:func:`~bnexplore.scores.kernels.families_per_check`), timed on ``clock``: the run's Control clock, so
    a fake clock (one step per reading) projects the number of checks the pass makes. The first column is
    scored untimed: it loads the kernels the pass uses, and in a fresh process loading them from numba's
    cache took 0.5-0.7 s, which projected a 0.5 s pass at 50-65 s (DEBD's kosarek, 190 variables) and
    skipped seeds that finish in seconds. The scores computed stay in the scorer's cache for the pass itself
    (unless the caller runs under :meth:`~bnexplore.scores.Scorer.forgetting`, as the ordering search does).

    Examples
    --------
    >>> import itertools
    >>> from bnexplore.data import Dataset
    >>> from bnexplore.scores import Scorer
    >>> codes = np.random.default_rng(0).integers(0, 2, (500, 8)).astype(np.int8)
    >>> ticks = itertools.count()  # a clock one second on at every reading
    >>> round(first_pass_seconds(Scorer(Dataset.from_codes(codes, arities=[2] * 8), "bic"), lambda: next(ticks)), 3)
    1.143
    """
    n = scorer.n_vars
    if n < 2:
        return 0.0
    scorer.toggles(0, set(), np.arange(1, n))  # untimed: the kernels' loading is no part of the pass
    per_check, done, v = kernels.families_per_check(scorer.rows), 0, 1
    start = clock()
    while v < n and done < per_check:
        scorer.toggles(v, set(), np.delete(np.arange(n), v))
        done, v = done + n - 1, v + 1
    return (clock() - start) * n * (n - 1) / done


STEP_SAMPLE = 2000
"""Most variables of the state :func:`step_seconds` times a step on (the step's n x n work is scaled from it):
its 32 MB of deltas are past the processor's caches, as a wide search's are (a 1,000-variable state's 8 MB
projected a step on 10,000 variables at 0.4-0.8 s, 2,000 at 0.7-0.8 s; the search's own steps took 2-3 s)."""


def step_seconds(n, clock):
    """Seconds one step of a :class:`DagState` over ``n`` variables spends in its ``n x n`` work.

    A step builds the legal-move masks (:func:`legal_moves`), picks the best move (:func:`best_move`) and
    updates the reachability matrix, each a pass over all pairs: on 10,000 variables a step took seconds,
    so the climb after the first pass cannot be left out of what hill climbing would cost. Timed on an
    empty state of at most :data:`STEP_SAMPLE` variables (the faster of two steps after one untimed,
    which loads the kernels) and scaled by ``(n / m)^2``, on ``clock`` (the run's Control clock).

    Examples
    --------
    >>> import itertools
    >>> ticks = itertools.count()  # a clock one second on at every reading
    >>> step_seconds(10, lambda: next(ticks)), step_seconds(2 * STEP_SAMPLE, lambda: next(ticks))
    (1.0, 4.0)
    """
    m = max(1, min(int(n), STEP_SAMPLE))
    adj = np.zeros((m, m), np.bool_)
    reach, white = adj.copy(), adj.copy()
    allowed, room, delta = np.ones((m, m), np.bool_), np.ones(m, np.bool_), np.zeros((m, m))
    times = []
    for _ in range(3):  # the first untimed: it loads the kernels
        start = clock()
        add, delete, reverse = legal_moves(adj, reach, allowed, white, room)
        best_move(delta, add, delete, reverse, adj, reach, 0.0)
        np.logical_or(reach, np.outer(room, room), out=white)
        times.append(clock() - start)
    return min(times[1:]) * (n / m) ** 2


@njit(cache=True)
def reachability(adj):
    """Transitive closure of a DAG: ``R[a, b]`` is True when a path ``a -> ... -> b`` exists.

    Nodes are processed in reverse topological order (Kahn), each taking the
    union of its children's rows: O(n e) time. ``adj`` must be acyclic.
    """
    n = adj.shape[0]
    indegree = np.zeros(n, np.int64)
    for u in range(n):
        for v in range(n):
            if adj[u, v]:
                indegree[v] += 1
    order = np.empty(n, np.int64)
    head = 0
    tail = 0
    for v in range(n):
        if indegree[v] == 0:
            order[tail] = v
            tail += 1
    while head < tail:
        u = order[head]
        head += 1
        for v in range(n):
            if adj[u, v]:
                indegree[v] -= 1
                if indegree[v] == 0:
                    order[tail] = v
                    tail += 1
    reach = np.zeros((n, n), np.bool_)
    for t in range(n - 1, -1, -1):
        v = order[t]
        for c in range(n):
            if adj[v, c]:
                reach[v, c] = True
                for w in range(n):
                    if reach[c, w]:
                        reach[v, w] = True
    return reach


@njit(cache=True)
def legal_moves(adj, reach, allow_add, white, room):
    """Masks of the legal additions, deletions and reversals of a DAG.

    An addition ``u -> v`` must be allowed (``allow_add``), absent in both
    directions, must not close a cycle (no path ``v -> ... -> u``:
    ``reach[v, u]``) and ``v`` must have room for a parent (``room[v]``); a
    deletion must not remove a required arc (``white``); a reversal is a
    deletion whose reverse arc is allowed and whose tail has room. Reversals
    are checked for cycles only when chosen (:func:`best_move`).

    Returns
    -------
    add, delete, reverse : bool arrays (n, n)
    """
    n = adj.shape[0]
    add = np.zeros((n, n), np.bool_)
    delete = np.zeros((n, n), np.bool_)
    reverse = np.zeros((n, n), np.bool_)
    for u in range(n):
        for v in range(n):
            if adj[u, v]:
                if not white[u, v]:
                    delete[u, v] = True
                    reverse[u, v] = allow_add[v, u] and room[u]
            elif allow_add[u, v] and room[v] and not adj[v, u] and not reach[v, u]:
                add[u, v] = True
    return add, delete, reverse


@njit(cache=True)
def _first_best(delta, mask, tol):
    """Flat index of the first masked delta within ``tol`` of the largest masked one, or -1."""
    n = delta.shape[0]
    top = -np.inf
    for u in range(n):
        for v in range(n):
            if mask[u, v] and delta[u, v] > top:
                top = delta[u, v]
    if top == -np.inf:
        return -1
    for u in range(n):
        for v in range(n):
            if mask[u, v] and delta[u, v] >= top - tol:
                return u * n + v
    return -1


@njit(cache=True)
def best_move(delta, add, delete, reverse, adj, reach, tol):
    """The best move the masks allow: ``(op, u, v, gain)``, op 0 add, 1 delete, 2 reverse, -1 none.

    The gain of an addition or deletion of ``u -> v`` is ``delta[u, v]``, of
    a reversal ``delta[u, v] + delta[v, u]``. Moves within ``tol`` of the
    best of their kind tie and the first in row-major order wins; a deletion
    must beat the best addition, and a reversal the better of both, by more
    than ``tol``. A reversal that would close a cycle (another path from u to
    v) is skipped and the next best taken.
    """
    n = delta.shape[0]
    op, bu, bv, gain = -1, -1, -1, -np.inf
    for kind, mask in ((0, add), (1, delete)):
        t = _first_best(delta, mask, tol)
        if t >= 0:
            u, v = t // n, t % n
            if op < 0 or delta[u, v] > gain + tol:
                op, bu, bv, gain = kind, u, v, delta[u, v]
    floor = gain + tol if op >= 0 else -np.inf
    tails, heads = np.nonzero(reverse)
    gains = np.empty(len(tails))
    for k in range(len(tails)):
        gains[k] = delta[tails[k], heads[k]] + delta[heads[k], tails[k]]
    alive = gains > floor
    while True:
        top = -np.inf
        for k in range(len(gains)):
            if alive[k] and gains[k] > top:
                top = gains[k]
        if top == -np.inf:
            break
        k = 0
        while not (alive[k] and gains[k] >= top - tol):
            k += 1
        u, v = tails[k], heads[k]
        cycle = False
        for w in range(n):
            if adj[u, w] and reach[w, v]:
                cycle = True
                break
        if not cycle:
            return 2, u, v, gains[k]
        alive[k] = False
    return op, bu, bv, gain


class DagState:
    """The current DAG of a local search and everything its moves need.

    Parameters
    ----------
    scorer : Scorer
    parents : list of sets of int
        Start graph (must be acyclic).
    max_indegree : int or None
    control : Control, optional
        Checked while the first pass scores every arc (see :meth:`_refresh`):
        after a stop the columns not reached offer no move, and the search,
        which checks the same flag before every move, ends on the start graph.
    allowed : bool array (n, n), optional
        The arcs ``u -> v`` that may be added (default all): the others are
        never scored, their deltas stay minus infinity (MMHC's climb on a
        skeleton scores the arcs along it only).
    """

    def __init__(self, scorer, parents, max_indegree=None, control=None, allowed=None):
        n = scorer.n_vars
        check_pass_memory(n, "the local search", DAG_PAIR_BYTES)
        self.scorer = scorer
        self.n = n
        self.max_indegree = n if max_indegree is None else int(max_indegree)
        self.allowed = np.ones((n, n), np.bool_) if allowed is None else allowed
        self.parents = [set(p) for p in parents]
        self.adj = np.zeros((n, n), np.bool_)
        for v, ps in enumerate(self.parents):
            self.adj[list(ps), v] = True
        cycle = find_cycle(self.adj)
        if cycle is not None:
            names = [scorer.names[v] for v in cycle + cycle[:1]]
            raise SearchError(f"the start graph has a directed cycle: {' -> '.join(names)}")
        self.reach = reachability(self.adj)
        self.local = scorer.lookup([(v, tuple(sorted(ps))) for v, ps in enumerate(self.parents)])
        self.delta = np.full((n, n), -np.inf)
        self._refresh(range(n), control)

    def copy(self):
        """An independent copy (restarts begin from a copy of the best state)."""
        other = object.__new__(DagState)
        other.__dict__.update(self.__dict__)
        other.parents = [set(p) for p in self.parents]
        for name in ("adj", "reach", "local", "delta"):
            setattr(other, name, getattr(self, name).copy())
        return other

    @property
    def score(self):
        return float(self.local.sum())

    def indegree(self):
        return np.fromiter((len(p) for p in self.parents), np.int64, self.n)

    def parent_lists(self):
        return [sorted(p) for p in self.parents]

    def _refresh(self, children, control=None):
        """Recompute the delta columns of ``children``.

        With ``control`` its stop flag and clock are checked, and progress
        reported, every :func:`~bnexplore.scores.kernels.families_per_check`
        local scores (the first pass over wide data is long); once it says
        stop the remaining columns stay minus infinity.
        """
        per_check = kernels.families_per_check(self.scorer.rows)
        work = 0
        for done, v in enumerate(children):
            if control is not None and work >= per_check:
                if control.should_stop():
                    return
                control.report(message=f"scoring every arc: {done:,} of {len(children):,} columns")
                work = 0
            ps = self.parents[v]
            mask = self.allowed[:, v].copy() if len(ps) < self.max_indegree else np.zeros(self.n, np.bool_)
            mask[list(ps)] = True
            mask[v] = False
            others = np.flatnonzero(mask)
            self.delta[:, v] = -np.inf
            if len(others):
                self.delta[others, v] = self.scorer.toggles(v, ps, others) - self.local[v]
            work += len(others)

    def reversal_is_acyclic(self, u, v):
        """Reversing ``u -> v`` is legal when no other path leads from u to v."""
        return not np.any(self.adj[u] & self.reach[:, v])

    def apply(self, op, u, v):
        """Apply ``op`` ("add", "delete" or "reverse") to the arc ``u -> v``."""
        if op == "add":
            self.parents[v].add(u)
            self.adj[u, v] = True
            ancestors = self.reach[:, u].copy()
            ancestors[u] = True
            descendants = self.reach[v].copy()
            descendants[v] = True
            self.reach |= np.outer(ancestors, descendants)
            changed = (v,)
        elif op == "delete":
            self.parents[v].discard(u)
            self.adj[u, v] = False
            self.reach = reachability(self.adj)
            changed = (v,)
        elif op == "reverse":
            self.parents[v].discard(u)
            self.parents[u].add(v)
            self.adj[u, v] = False
            self.adj[v, u] = True
            self.reach = reachability(self.adj)
            changed = (u, v)
        else:
            raise ValueError(op)
        self.local[list(changed)] = self.scorer.lookup([(c, tuple(sorted(self.parents[c]))) for c in changed])
        self._refresh(changed)

