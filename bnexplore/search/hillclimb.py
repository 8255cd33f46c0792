"""Local search in the space of DAGs: greedy hill climbing and tabu search.

The neighbourhood is the classic one: add, delete or reverse one arc, keeping
the graph acyclic (Heckerman, Geiger & Chickering 1995). Both searches are the
DAG baselines of Acid & de Campos (2003), Section 6 ("DAG" and "TS-DAG"),
including the tabu search's defaults: a tabu list of ``n`` operators and
``n (n - 1)`` iterations.
"""

from collections import deque

import numpy as np

from ..control import Control
from ..errors import SearchError
from ..graphs import DAG
from ..knowledge import knowledge_params
from ..numerics import tie_tolerance
from ..scores.scorer import check_scorer
from .dagstate import DagState, best_move, legal_moves
from .run import SearchRun

OPS = ("add", "delete", "reverse")
_PERTURB_CAP = 100
"""Most random moves in a default restart perturbation."""
_INVERSE = {"add": "delete", "delete": "add", "reverse": "reverse"}


def _arc_matrix(scorer, arcs, what):
    """Boolean matrix of arcs given as (u, v) pairs of names or indices."""
    m = np.zeros((scorer.n_vars, scorer.n_vars), np.bool_)
    for arc in arcs or ():
        if isinstance(arc, str) or not hasattr(arc, "__len__") or len(arc) != 2:
            raise SearchError(f"{what} entries must be (parent, child) pairs, got {arc!r}")
        m[scorer.index(arc[0]), scorer.index(arc[1])] = True
    return m


class _Constraints:
    """Blacklist, whitelist, background knowledge and in-degree bound shared by every move.

    The knowledge (:class:`bnexplore.knowledge.Knowledge`) joins the lists:
    its forbidden arcs (arcs, edges, tiers) the blacklist, its required arcs
    the whitelist (DESIGN.md, "Knowledge").
    """

    def __init__(self, scorer, blacklist, whitelist, max_indegree, knowledge=None):
        if max_indegree is not None and (int(max_indegree) != max_indegree or max_indegree < 0):
            raise SearchError(f"max_indegree must be a whole number >= 0, got {max_indegree!r}")
        black = _arc_matrix(scorer, blacklist, "blacklist")
        self.white = _arc_matrix(scorer, whitelist, "whitelist")
        self.bound = None if not knowledge else knowledge.bind(scorer, max_indegree)
        if self.bound is not None:
            black |= ~self.bound.allowed & ~np.eye(scorer.n_vars, dtype=np.bool_)
            self.white |= self.bound.required
        clash = np.argwhere(black & self.white)
        if len(clash):
            u, v = clash[0]
            raise SearchError(f"arc {scorer.names[u]} -> {scorer.names[v]} is both blacklisted and whitelisted"
                              f"{self._why(u, v)}")
        self.allow_add = ~black & ~np.eye(scorer.n_vars, dtype=np.bool_)
        self.max_indegree = max_indegree

    def _why(self, u, v):
        """`` (the knowledge's reason)`` when the knowledge forbids the arc u -> v."""
        reason = "" if self.bound is None else self.bound.forbidden_because(u, v)
        return f" (by the {reason})" if reason else ""

    def start(self, scorer, start):
        """Parent sets of the start graph with the whitelist added."""
        if start is None:
            parents = [set() for _ in range(scorer.n_vars)]
        else:
            parents = [set(ps) for ps in scorer.parent_lists(start)]
        for u, v in np.argwhere(self.white):
            parents[v].add(int(u))
        for v, ps in enumerate(parents):
            for u in ps:
                if not self.allow_add[u, v]:
                    arc = f"{scorer.names[u]} -> {scorer.names[v]}"
                    raise SearchError(f"the start graph contains the arc {arc}, forbidden{self._why(u, v)}"
                                      if self._why(u, v) else f"the start graph contains the blacklisted arc {arc}")
            if self.max_indegree is not None and len(ps) > self.max_indegree:
                raise SearchError(f"node {scorer.names[v]!r} has {len(ps)} parents in the start graph, "
                                  f"more than max_indegree={self.max_indegree}")
        return parents

    def legal(self, state):
        """Masks of the legal adds, deletes and reversals of ``state`` (see
        :func:`~bnexplore.search.dagstate.legal_moves`)."""
        room = state.indegree() < state.max_indegree
        return legal_moves(state.adj, state.reach, self.allow_add, self.white, room)


def _pick(state, add, delete, reverse, tol):
    """The best move allowed by the masks as ``(op, (u, v), delta)``, or None.

    Moves within ``tol`` of the best count as tied and the first wins (see
    :func:`~bnexplore.search.dagstate.best_move`).
    """
    op, u, v, delta = best_move(state.delta, add, delete, reverse, state.adj, state.reach, tol)
    return None if op < 0 else (OPS[op], (int(u), int(v)), float(delta))


def _best_move(state, constraints, tol, tabu=None, aspiration=np.inf):
    """The best legal move as ``(op, (u, v), delta, evaluated)``, or None.

    Without ``tabu`` this is the greedy choice. With ``tabu`` (masks of the
    forbidden moves per operator) the greedy choice is kept when its gain
    exceeds ``aspiration`` (it reaches a new best graph: the aspiration
    criterion of tabu search, Glover 1989) or when it is not tabu; otherwise
    the best move that is not tabu. So tabu search makes the greedy climb's
    moves for as long as they improve on the best graph seen.
    ``evaluated`` counts the neighbours considered (the paper's Ind).
    """
    add, delete, reverse = constraints.legal(state)
    evaluated = np.count_nonzero(add) + np.count_nonzero(delete) + np.count_nonzero(reverse)
    best = _pick(state, add, delete, reverse, tol)
    if tabu is not None and best is not None and best[2] <= aspiration:
        op, (u, v) = best[:2]
        if tabu[op][u, v]:
            best = _pick(state, add & ~tabu["add"], delete & ~tabu["delete"], reverse & ~tabu["reverse"], tol)
    if best is None:
        return None
    return (*best, evaluated)


def _climb(state, constraints, run, tol):
    """Greedy ascent until no legal move improves by more than ``tol``."""
    while not run.control.should_stop():
        move = _best_move(state, constraints, tol)
        if move is None or move[2] <= tol:
            if move is not None:
                run.evaluated += move[3]
            return
        run.step(state, *move)


def _perturb(state, constraints, run, rng, moves):
    """Apply ``moves`` random legal moves (score ignored), for a restart."""
    for _ in range(moves):
        if run.control.should_stop():
            return
        masks = constraints.legal(state)
        cells = [np.flatnonzero(mask) for mask in masks]
        ops = np.repeat(np.arange(3), [len(c) for c in cells])
        flat = np.concatenate(cells)
        for t in rng.permutation(len(flat)):
            op = OPS[ops[t]]
            u, v = divmod(int(flat[t]), state.n)
            if op != "reverse" or state.reversal_is_acyclic(u, v):
                delta = state.delta[u, v] + (state.delta[v, u] if op == "reverse" else 0.0)
                run.step(state, op, (u, v), float(delta), 0, kind="perturb")
                break


def _start_extra(state, scorer):
    """``{"start": DAG}`` when the search starts from a non-empty graph (a given start, or the
    whitelisted / required arcs), so its trajectory can be replayed from there; else ``{}``."""
    return {"start": DAG.from_parents(state.parent_lists(), scorer.names)} if state.adj.any() else {}


def _tolerance(state):
    return tie_tolerance(state.score)


def hill_climb(scorer, start=None, max_indegree=None, blacklist=None, whitelist=None, knowledge=None, restarts=0,
               perturb=None, seed=None, progress=None, time_limit=None, stop=None, control=None):
    """Greedy hill climbing over DAGs with add / delete / reverse.

    Each step applies the single legal move with the largest score gain and
    stops at a local optimum (no legal move improves the score). Deltas are
    incremental: a move recomputes only the local scores of the children
    whose parent sets changed (see :class:`DagState`).

    Parameters
    ----------
    scorer : Scorer
    start : DAG or parent lists, optional
        Start graph (default: the empty graph), its nodes matched to the
        data's by name (:meth:`~bnexplore.scores.Scorer.parent_lists`).
        Whitelisted and required arcs are added.
    max_indegree : int, optional
    blacklist, whitelist : iterables of (parent, child) pairs, optional
        Arcs that may never appear / must always appear.
    knowledge : Knowledge, optional
        Background knowledge (:class:`bnexplore.knowledge.Knowledge`),
        checked first: its forbidden arcs join the blacklist, its required
        arcs the whitelist, so every graph of the search honours it.
    restarts : int
        Number of random restarts: from the best graph so far apply
        ``perturb`` random legal moves, climb again, keep the best.
    perturb : int, optional
        Moves per perturbation (default n, the number of variables, at most
        100: with n / 4 moves most restarts climbed back into the same
        optimum on the benchmark networks, with n they found better ones, see
        benchmarks/BENCHMARKS.md; each move rescores up to n families, hence
        the cap on large networks).
    seed : int, optional
        Seed of the perturbations.
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`.

    Returns
    -------
    Result
        ``stats`` holds the paper's counters; ``trajectory`` every step,
        perturbation moves marked ``kind="perturb"``; ``extra["start"]`` the
        start graph (whitelisted and required arcs included) unless empty.
    """
    check_scorer(scorer, "hill_climb")
    control = Control.of(control, progress, time_limit, stop)
    if int(restarts) != restarts or restarts < 0:
        raise SearchError(f"restarts must be a whole number >= 0, got {restarts!r}")
    perturb = max(1, min(scorer.n_vars, _PERTURB_CAP)) if perturb is None else int(perturb)
    constraints = _Constraints(scorer, blacklist, whitelist, max_indegree, knowledge)
    run = SearchRun(scorer, control, "hc", {"max_indegree": max_indegree, "restarts": restarts,
                                       "perturb": perturb, "seed": seed, **knowledge_params(knowledge)})
    state = DagState(scorer, constraints.start(scorer, start), max_indegree, control, constraints.allow_add)
    extra = _start_extra(state, scorer)
    _climb(state, constraints, run, _tolerance(state))
    best = state  # never changed again: each restart climbs a copy (one state fewer held on wide data)
    rng = np.random.default_rng(seed)
    for _ in range(int(restarts)):
        if control.should_stop():
            break
        state = best.copy()
        _perturb(state, constraints, run, rng, perturb)
        _climb(state, constraints, run, _tolerance(state))
        if state.score > best.score + _tolerance(state):
            best = state
    return run.result(best.parent_lists(), extra=extra)


def tabu_search(scorer, start=None, max_indegree=None, blacklist=None, whitelist=None, knowledge=None,
                tabu_length=None, iterations=None, progress=None, time_limit=None, stop=None, control=None):
    """Tabu search over DAGs (TS-DAG of Acid & de Campos 2003, Section 6).

    Every iteration applies the best legal move whose operator is not tabu,
    even when it lowers the score, then makes its inverse tabu (after adding
    u -> v deleting it is tabu, after deleting adding it, after reversing
    reversing it back); the list keeps the last ``tabu_length`` operators.
    A tabu move is allowed when it reaches a graph better than every graph
    seen (aspiration, Glover 1989), and the best graph seen is returned.
    From the same start the search therefore makes exactly the moves of
    :func:`hill_climb` up to its local optimum, and ends at or above it.

    Parameters
    ----------
    tabu_length : int, optional
        Length of the tabu list (default ``n``, as in the paper).
    iterations : int, optional
        Number of iterations (default ``n (n - 1)``, as in the paper). The
        search never stops while its move reaches a new best graph, so it
        always completes the greedy climb (``iterations=0`` is hill
        climbing).
    Other parameters as in :func:`hill_climb`.

    Returns
    -------
    Result
        ``stats["best_iteration"]``: the iteration that reached the returned
        graph; each trajectory step has ``tabu`` (True when a tabu move was
        let through by aspiration).
    """
    check_scorer(scorer, "tabu_search")
    control = Control.of(control, progress, time_limit, stop)
    n = scorer.n_vars
    tabu_length = n if tabu_length is None else int(tabu_length)
    iterations = n * (n - 1) if iterations is None else int(iterations)
    if tabu_length < 0 or iterations < 0:
        raise SearchError("tabu_length and iterations must be >= 0")
    constraints = _Constraints(scorer, blacklist, whitelist, max_indegree, knowledge)
    run = SearchRun(scorer, control, "tabu", {"max_indegree": max_indegree, "tabu_length": tabu_length,
                                         "iterations": iterations, **knowledge_params(knowledge)})
    state = DagState(scorer, constraints.start(scorer, start), max_indegree, control, constraints.allow_add)
    extra = _start_extra(state, scorer)
    tol = _tolerance(state)
    best_parents, best_score, best_iteration = state.parent_lists(), state.score, 0
    recent = deque(maxlen=tabu_length)
    it = 0
    while not control.should_stop():
        tabu = {op: np.zeros((n, n), np.bool_) for op in OPS}
        for op, u, v in recent:
            tabu[op][u, v] = True
        aspiration = best_score + tol - state.score
        move = _best_move(state, constraints, tol, tabu, aspiration)
        if move is None or (it >= iterations and move[2] <= aspiration):
            break
        it += 1
        op, (u, v) = move[:2]
        run.step(state, *move, done=min(1.0, it / max(iterations, 1)), tabu=bool(tabu[op][u, v]))
        recent.append((_INVERSE[op], *((v, u) if op == "reverse" else (u, v))))
        if state.score > best_score + tol:
            best_parents, best_score, best_iteration = state.parent_lists(), state.score, it
    return run.result(best_parents, extra=extra, best_iteration=best_iteration)
