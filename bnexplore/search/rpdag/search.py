"""Greedy and tabu search over RPDAGs (Acid & de Campos 2003 [1]_: "RPDAG" and "TS-RPDAG", Section 6).

The loops here pick the best operator of :class:`~bnexplore.search.rpdag.scoring.RpdagState`
each iteration, apply it through a :class:`~bnexplore.search.run.SearchRun` (which
records the trajectory a replay follows: the operator, its Table 1 state and
its post-processing) and return the learned RPDAG with one of its extensions.

Notes
-----
- The tabu list (Section 6 only says it "stores forbidden operators") holds
  node pairs: after an edge between x and y is added, deleting it is tabu;
  after it is deleted, adding any edge between x and y is. A pair-level
  inverse is needed because Undo / Complete can change the kind of an edge,
  so the exact inverse operator is not always the same. A tabu operator is
  allowed when it reaches a new best RPDAG (aspiration, Glover 1989): without
  it the tabu list forbade the greedy climb's own later moves (alarm, N =
  5,000: deleting an arc added 40 steps earlier), and TS-RPDAG ended below
  the greedy search from the same start.
- Background knowledge (:class:`bnexplore.knowledge.Knowledge`; the paper
  only says, Section 4, that prior knowledge may give the start): the search
  starts from the RPDAG of the required arcs (added to the start graph) and
  offers an operator only when its result still has an extension that
  honours the knowledge (:func:`~bnexplore.search.rpdag.operators.honouring_extension`):
  cheap masks first (no forbidden arc added, no link both of whose directions
  are forbidden, no required edge deleted), then, for the operator chosen, the
  full test on the result of its post-processing (Complete may orient a link
  the wrong way); a failing operator is dropped and the next best taken. Edges
  are never deleted when required, so every required arc stays, as an arc or a
  link, and the result is an extension that honours the knowledge.

References
----------
.. [1] S. Acid and L. M. de Campos (2003). Searching for Bayesian network
   structures in the space of restricted acyclic partially directed graphs.
   JAIR 18, 445-490.
"""

from collections import deque

import numpy as np

from ...control import Control
from ...errors import SearchError
from ...graphs import DAG, PDAG, RPDAG
from ...knowledge import knowledge_params
from ...numerics import tie_tolerance
from ...options import whole_number
from ...scores.registry import equivalent_names
from ...scores.scorer import check_scorer
from ..run import SearchRun
from .operators import checked_rpdag, honouring_extension
from .scoring import RpdagState

SCORE_EQUIVALENT = equivalent_names()
"""Scores that give equivalent DAGs equal scores, which the RPDAG search needs (from the score registry)."""




def _aligned(graph, names):
    """The graph with its nodes in the data's order (matched by name)."""
    if list(graph.names) == names:
        return graph
    if sorted(graph.names) != sorted(names):
        extra = sorted(set(graph.names) - set(names))[:5]
        missing = sorted(set(names) - set(graph.names))[:5]
        raise SearchError(f"the start graph's nodes do not match the data's variables (only in the graph: "
                          f"{extra}, only in the data: {missing}); give a graph over the data's columns")
    order = [graph.index(name) for name in names]
    return type(graph)(graph.adj[np.ix_(order, order)], names)


def start_rpdag(scorer, start=None, max_indegree=None):
    """The RPDAG a search starts from.

    Parameters
    ----------
    scorer : Scorer
    start : None, RPDAG, DAG, PDAG or parent lists
        None gives the empty graph; a DAG (or parent lists, as for
        :func:`~bnexplore.search.hillclimb.hill_climb`) is converted with
        :meth:`DAG.rpdag` (Proposition 2); another PDAG (e.g. a CPDAG) through
        its consistent extension. Graph nodes are matched to the data by name.
    max_indegree : int, optional

    Returns
    -------
    RPDAG
    """
    names = scorer.names
    if start is None:
        rpdag = RPDAG(np.zeros((scorer.n_vars, scorer.n_vars), np.uint8), names)
    elif isinstance(start, RPDAG):
        rpdag = checked_rpdag(_aligned(start, names))
    elif isinstance(start, DAG):
        rpdag = _aligned(start, names).rpdag()
    elif isinstance(start, PDAG):
        rpdag = _aligned(start, names).extension().rpdag()
    else:
        rpdag = DAG.from_parents(scorer.parent_lists(start), names).rpdag()
    if max_indegree is not None:
        adj = rpdag.adj.astype(np.bool_)
        arc, link = adj & ~adj.T, adj & adj.T
        indegree = np.where(arc.any(axis=0), arc.sum(axis=0), link.any(axis=0))
        v = int(np.argmax(indegree))
        if indegree[v] > max_indegree:
            raise SearchError(f"node {names[v]!r} has {indegree[v]} parents in the start graph's extensions, "
                              f"more than max_indegree={max_indegree}")
    return rpdag


def _knowledge_start(rpdag, bound, scorer, max_indegree):
    """The start RPDAG with the required arcs added (an extension honouring the rest of the knowledge,
    plus the required arcs, made an RPDAG again); SearchError when the start cannot honour it."""
    parents = honouring_extension(rpdag.adj, bound, require=False)
    if parents is None:
        adj = rpdag.adj.astype(np.bool_)
        names = scorer.names
        arcs = np.argwhere(adj & ~adj.T & ~bound.allowed)
        links = np.argwhere(adj & adj.T & ~bound.allowed & ~bound.allowed.T)
        problem = (f"arc {names[arcs[0][0]]} -> {names[arcs[0][1]]} breaks the "
                   f"{bound.forbidden_because(*arcs[0])}" if len(arcs) else
                   f"link {names[links[0][0]]} - {names[links[0][1]]} breaks the "
                   f"{bound.forbidden_because(*links[0])}" if len(links) else
                   "its links cannot be oriented to honour the required and forbidden arcs together")
        raise SearchError(f"the start graph cannot honour the knowledge: {problem}")
    parents = [sorted(set(ps) | set(bound.required_parents(v).tolist())) for v, ps in enumerate(parents)]
    return start_rpdag(scorer, DAG.from_parents(parents, scorer.names), max_indegree)


def _step(run, state, move, done=None, **extra):
    """Apply a move through the run, recording Table 1's state and the post-processing."""
    op, nodes, delta, evaluated = move
    letter = state.pair_state(*nodes[:2]) if op.startswith("A_") else None
    run.step(state, op, nodes, delta, evaluated, done=done, **extra)
    run.trajectory[-1].update(state=letter, **state.last_post)


def _climb(state, run):
    """Greedy ascent: apply the best operator while it improves the score."""
    tolerance = tie_tolerance(state.score)
    while not run.control.should_stop():
        move = state.best_move()
        if move is None or move[2] <= tolerance:
            if move is not None:
                run.evaluated += move[3]
            return
        _step(run, state, move)


def _tabu(state, run, tabu_length, iterations):
    """TS-RPDAG: the best operator that is not tabu each iteration, a tabu one
    when it reaches a new best (aspiration); never stops while a move reaches
    a new best. Returns the best RPDAG seen and its iteration."""
    names = state.scorer.names
    tolerance = tie_tolerance(state.score)
    best, best_score, best_iteration = state.rpdag(names), state.score, 0
    recent = deque(maxlen=tabu_length)
    it = 0
    while not run.control.should_stop():
        blocked = np.zeros((2, state.n, state.n), np.bool_)
        for kind, x, y in recent:
            blocked[kind, x, y] = blocked[kind, y, x] = True
        aspiration = best_score + tolerance - state.score
        move = state.best_move(tuple(blocked), aspiration)
        if move is None or (it >= iterations and move[2] <= aspiration):
            break
        it += 1
        op, (x, y) = move[0], move[1][:2]
        addition = op.startswith("A_")
        _step(run, state, move, done=min(1.0, it / max(iterations, 1)), tabu=bool(blocked[1 - addition, x, y]))
        recent.append((int(addition), x, y))  # after an addition deleting is tabu (1), after a deletion adding (0)
        if state.score > best_score + tolerance:
            best, best_score, best_iteration = state.rpdag(names), state.score, it
    return best, best_iteration


def rpdag_search(scorer, start=None, max_indegree=None, tabu=False, tabu_length=None, iterations=None,
                 knowledge=None, progress=None, time_limit=None, stop=None, control=None):
    """Greedy or tabu search in the space of RPDAGs (Acid & de Campos 2003).

    Greedy (``tabu=False``, the paper's "RPDAG"): apply the applicable
    operator (Table 2) with the largest score gain until none improves the
    score. Tabu (``tabu=True``, "TS-RPDAG", Section 6): each iteration apply
    the best operator that is not tabu, even when it lowers the score; after
    adding an edge between x and y deleting the edge between them is tabu,
    after deleting it adding any edge between them is, for the next
    ``tabu_length`` iterations. A tabu operator is applied when it reaches
    an RPDAG better than every one seen (aspiration), and the best RPDAG
    seen is returned, so from the same start tabu search makes the greedy
    search's moves up to its local optimum and ends at or above it.

    Each neighbour is scored from at most two local scores (Proposition 6);
    see :mod:`bnexplore.search.rpdag.scoring` and
    :mod:`bnexplore.search.rpdag.operators` for the per-iteration algorithm.

    Parameters
    ----------
    scorer : Scorer
        Score-equivalent score: bdeu, bic, aic or ll (not k2).
    start : None, RPDAG, DAG, PDAG or parent lists, optional
        Start graph (default empty); see :func:`start_rpdag`.
    max_indegree : int, optional
        Bound on the parents of every node in every DAG of the result's
        extension: a node with parents in the RPDAG has exactly those, a
        parentless node with links has one in all but one of them
        (Proposition 5), so links need a bound of 1, A_hh one of 2.
    tabu : bool
        Tabu search instead of greedy search.
    tabu_length : int, optional
        Tabu list length (default n, as in the paper). Tabu search only.
    iterations : int, optional
        Iterations of tabu search (default n (n - 1), as in the paper); it
        never stops while its move reaches a new best, so it always completes
        the greedy climb (``iterations=0`` is the greedy search).
    knowledge : Knowledge, optional
        Background knowledge (:class:`bnexplore.knowledge.Knowledge`, checked
        first): the search starts from the start graph plus the required
        arcs, offers only operators whose result can still honour it, and
        returns an extension that does (see the module docstring).
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`.

    Returns
    -------
    Result
        ``graph``: a consistent extension (DAG) of the learned RPDAG, which is
        in ``extra["rpdag"]`` (under knowledge, an extension honouring it);
        ``extra["start"]``: the start RPDAG unless empty (the trajectory
        starts there); ``score``: the scorer's total of ``graph``.
        ``stats``: seconds, iterations, structures_evaluated (Ind: neighbours
        scored), local_scores_computed (EstEv), local_score_lookups (TEst),
        nvar (NVar), cache_hits, edges, stopped, and for tabu search
        best_iteration (trajectory steps then also have ``tabu``: True for
        a tabu operator let through by aspiration). ``trajectory``: per applied operator ``op``, ``args``
        (x, y, and z for A_hh), ``delta``, ``score``, ``state`` (Table 1 state
        of (x, y) for additions, else None), ``post`` ("Complete", "Undo" or
        None) and ``post_edges`` (arcs made by Complete / turned into links by
        Undo).
    """
    check_scorer(scorer, "rpdag_search")
    if scorer.score_name not in SCORE_EQUIVALENT:
        raise SearchError(f"the RPDAG search needs a score-equivalent score ({', '.join(SCORE_EQUIVALENT)}); "
                          f"{scorer.score_name} scores equivalent DAGs differently")
    n = scorer.n_vars
    max_indegree = None if max_indegree is None else whole_number(max_indegree, "max_indegree", 0, error=SearchError)
    if not tabu and (tabu_length is not None or iterations is not None):
        raise SearchError("tabu_length and iterations apply to tabu search only; pass tabu=True")
    bound = knowledge.bind(scorer, max_indegree) if knowledge else None
    control = Control.of(control, progress, time_limit, stop)
    if tabu:
        tabu_length = n if tabu_length is None else whole_number(tabu_length, "tabu_length", 0, error=SearchError)
        iterations = n * (n - 1) if iterations is None else whole_number(iterations, "iterations", 0, error=SearchError)
        params = {"max_indegree": max_indegree, "tabu_length": tabu_length, "iterations": iterations,
                  **knowledge_params(knowledge)}
        run = SearchRun(scorer, control, "rpdag-tabu", params)
    else:
        run = SearchRun(scorer, control, "rpdag", {"max_indegree": max_indegree, **knowledge_params(knowledge)})
    rpdag = start_rpdag(scorer, start, max_indegree)
    if bound is not None:
        rpdag = _knowledge_start(rpdag, bound, scorer, max_indegree)
    state = RpdagState(scorer, rpdag, max_indegree, bound, control)
    if tabu:
        best, best_iteration = _tabu(state, run, tabu_length, iterations)
        stats = {"best_iteration": best_iteration}
    else:
        _climb(state, run)
        best, stats = state.rpdag(scorer.names), {}
    parents = best.extension().parent_sets() if bound is None else honouring_extension(best.adj, bound)
    extra = {"rpdag": best, **({"start": rpdag} if rpdag.adj.any() else {})}
    return run.result(parents, extra=extra, **stats)


def rpdag_hill_climb(scorer, start=None, max_indegree=None, knowledge=None, progress=None, time_limit=None,
                     stop=None, control=None):
    """Greedy RPDAG search: :func:`rpdag_search` with ``tabu=False`` (``learn(..., algorithm="rpdag")``)."""
    check_scorer(scorer, "rpdag_hill_climb")
    return rpdag_search(scorer, start=start, max_indegree=max_indegree, knowledge=knowledge, progress=progress,
                        time_limit=time_limit, stop=stop, control=control)


def rpdag_tabu_search(scorer, start=None, max_indegree=None, tabu_length=None, iterations=None, knowledge=None,
                      progress=None, time_limit=None, stop=None, control=None):
    """TS-RPDAG: :func:`rpdag_search` with ``tabu=True`` (``learn(..., algorithm="rpdag-tabu")``)."""
    check_scorer(scorer, "rpdag_tabu_search")
    return rpdag_search(scorer, start=start, max_indegree=max_indegree, tabu=True, tabu_length=tabu_length,
                        iterations=iterations, knowledge=knowledge, progress=progress, time_limit=time_limit,
                        stop=stop, control=control)
