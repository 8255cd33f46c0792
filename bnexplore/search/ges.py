"""Greedy equivalence search (GES): Chickering (2002) [1]_, in the space of CPDAGs.

The state is a CPDAG (completed PDAG: the essential graph of a Markov
equivalence class). The two operators of [1]_, Section 4:

- ``Insert(X, Y, T)`` (Definition 12): X and Y not adjacent, T a subset of
  the neighbours of Y not adjacent to X; add X -> Y and turn each T -- Y into
  T -> Y. Valid (Theorem 15) when ``NA_YX ∪ T`` is a clique and every
  semi-directed path from Y to X has a node in ``NA_YX ∪ T``, where ``NA_YX``
  are the neighbours of Y adjacent to X. Score change (Corollary 16)
  ``s(Y, NA_YX ∪ T ∪ Pa_Y ∪ {X}) - s(Y, NA_YX ∪ T ∪ Pa_Y)``.
- ``Delete(X, Y, H)`` (Definition 13): X -> Y or X -- Y, H a subset of
  ``NA_YX``; remove the edge, turn each Y -- H into Y -> H and each X -- H
  into X -> H. Valid (Theorem 17) when ``NA_YX \\ H`` is a clique. Score
  change (Corollary 18) ``s(Y, (NA_YX \\ H) ∪ Pa_Y \\ {X}) - s(Y, (NA_YX \\ H)
  ∪ Pa_Y ∪ {X})`` (``Pa_Y`` holds X when X -> Y is an arc).

After an operator the PDAG is completed as in [1]_, Section 4.1: a
consistent extension (Dor & Tarsi 1992) of the modified PDAG is made and its
CPDAG taken (:func:`apply_operator`).

The search (:func:`ges`) applies the best valid Insert while one raises the
score (forward phase), then the best valid Delete while one does (backward
phase), as in [1]_, Section 5. The two phases are repeated until neither
changes the class, as pcalg's ``ges(iterate = TRUE)`` does: with large samples
the first pass already ends it, and the result is then a local optimum of
both operators (no class one edge away scores higher).

Only what an operator changed is recomputed: the candidates (X, T) or (X, H)
of a node Y depend on Y's parents and neighbours and the adjacencies among
them and X, so after an operator only the nodes whose edges changed in the
completed CPDAG, and their neighbours, are refreshed (the idea of
Chickering's and of fGES's caching, Ramsey et al. 2017); local scores come
from the :class:`~bnexplore.scores.Scorer`'s cache. The semi-directed path
condition is global, so it is tested (one graph search) on the best
candidates only, at selection, in order of gain until one passes: the search
takes exactly the best valid operator of the paper.

Notes
-----
- Subsets T and H are enumerated exactly. ``NA_YX ∪ T`` must be a clique,
  and a subset that is not a clique cannot grow into one, so only cliques of
  Y's neighbours are listed (and under ``max_indegree`` only those small
  enough): the work is exponential only in the size of the cliques among
  one node's neighbours, which stay small on sparse networks. More than
  :data:`MAX_SUBSETS` for one pair is refused (asking for ``max_indegree``)
  rather than listed.
- Background knowledge (:class:`bnexplore.knowledge.Knowledge`): the search
  starts from the class of the required arcs (``extra["start"]``), never
  deletes a required edge, never inserts an edge both of whose directions are
  forbidden, and takes an operator only when the class it gives has a
  consistent extension honouring the knowledge (required arcs as arcs, no
  forbidden arc, tiers); otherwise the next best is taken. The returned DAG
  is such an extension.
- ``max_indegree``: an Insert giving Y more than ``max_indegree`` parents
  (``|NA_YX ∪ T ∪ Pa_Y| + 1``) is not offered, and an operator is taken only
  when the extension returned for its class keeps every node within the
  bound, so the returned DAG does.

References
----------
.. [1] D. M. Chickering (2002). Optimal structure identification with greedy
   search. JMLR 3, 507-554.
"""

import numpy as np

from ..control import Control
from ..errors import SearchError
from ..graphs import CPDAG, PDAG
from ..graphs.equivalence import consistent_extension, essential_graph
from ..knowledge import knowledge_params
from ..numerics import tie_tolerance
from ..options import whole_number
from ..scores import kernels
from ..scores.registry import equivalent_names
from ..scores.scorer import check_scorer
from .dagstate import check_pass_memory
from .run import SearchRun, first_best

OPERATORS = ("insert", "delete")
"""The operators of [1]_, Section 4: Insert(X, Y, T) and Delete(X, Y, H)."""

PHASES = {"insert": "forward", "delete": "backward"}
"""The phase of the search each operator belongs to."""


MAX_SUBSETS = 2 ** 16
"""Most subsets T or H listed for one pair of nodes: a clique of 16 neighbours of one node, whose local
scores would have 17 parents or more; beyond, the search asks for ``max_indegree`` rather than run for hours."""


def _cliques(candidates, adjacent, limit):
    """Every subset of ``candidates`` (ascending list) that is a clique, of at most ``limit`` nodes.

    Depth first: a node joins only when it is adjacent to every node chosen, so
    a subset that is not a clique is never extended (no superset of it is one).
    SearchError beyond :data:`MAX_SUBSETS` subsets.
    """
    out = []

    def grow(start, chosen, common):
        if len(out) >= MAX_SUBSETS:
            raise SearchError(f"GES would list more than {MAX_SUBSETS} subsets T or H for one pair of nodes "
                              f"(cliques among {len(candidates)} neighbours of one node); give max_indegree to bound them")
        out.append(tuple(chosen))
        if len(chosen) >= limit:
            return
        for i in range(start, len(candidates)):
            c = candidates[i]
            if c in common:
                grow(i + 1, chosen + [c], common & adjacent[c])

    grow(0, [], set(candidates))
    return out


class GesGraph:
    """A CPDAG as sets of parents, children and neighbours, with Chickering's operator tests.

    Parameters
    ----------
    adj : array_like, shape (n, n)
        Adjacency of a CPDAG (``adj[u, v]`` and not ``adj[v, u]``: the arc
        u -> v; both: the link u -- v). Not checked.
    """

    def __init__(self, adj):
        self.set_adjacency(adj)

    def set_adjacency(self, adj):
        """Replace the graph (and its sets)."""
        a = np.asarray(adj, dtype=np.bool_)
        self.adj = a.copy()
        self.n = a.shape[0]
        self.pa = [set() for _ in range(self.n)]
        self.ch = [set() for _ in range(self.n)]
        self.ne = [set() for _ in range(self.n)]
        for u, v in zip(*np.nonzero(a)):
            if a[v, u]:
                self.ne[u].add(int(v))
            else:
                self.ch[u].add(int(v))
                self.pa[v].add(int(u))
        self.adjacent = [self.pa[v] | self.ch[v] | self.ne[v] for v in range(self.n)]

    def is_clique(self, nodes):
        """True when every two of ``nodes`` are adjacent."""
        nodes = list(nodes)
        return all(nodes[j] in self.adjacent[nodes[i]] for i in range(len(nodes)) for j in range(i + 1, len(nodes)))

    def na(self, x, y):
        """``NA_YX``: the neighbours of y (links) adjacent to x."""
        return self.ne[y] & self.adjacent[x]

    def insert_subsets(self, x, y, limit):
        """The subsets T of Insert(x, y, T) with ``NA_YX ∪ T`` a clique, of at most ``limit`` nodes.

        The first condition of Theorem 15; the second (:meth:`blocks_paths`)
        is global and tested apart.
        """
        na = self.na(x, y)
        if not self.is_clique(na):
            return []
        t0 = sorted(t for t in self.ne[y] - self.adjacent[x] if na <= self.adjacent[t])
        return _cliques(t0, self.adjacent, limit)

    def blocks_paths(self, x, y, blocked):
        """True when every semi-directed path from y to x meets ``blocked`` (Theorem 15's second condition).

        A semi-directed path follows arcs forwards and links either way; one
        graph search from y that does not enter ``blocked``.
        """
        seen = {y} | set(blocked)
        stack = [y]
        while stack:
            u = stack.pop()
            for v in self.ch[u] | self.ne[u]:
                if v == x:
                    return False
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        return True

    def delete_subsets(self, x, y):
        """The subsets H of Delete(x, y, H) with ``NA_YX \\ H`` a clique (Theorem 17)."""
        na = sorted(self.na(x, y))
        return [tuple(v for v in na if v not in keep) for keep in _cliques(na, self.adjacent, len(na))]

    def insert_family(self, x, y, subset):
        """``(y, S)``: Insert(x, y, subset) changes the score by ``s(y, S ∪ {x}) - s(y, S)`` (Corollary 16)."""
        return tuple(sorted(self.na(x, y) | set(subset) | self.pa[y]))

    def delete_family(self, x, y, subset):
        """``S``: Delete(x, y, subset) changes the score by ``s(y, S) - s(y, S ∪ {x})`` (Corollary 18)."""
        return tuple(sorted((self.na(x, y) - set(subset) | self.pa[y]) - {x}))

    def problem(self, op, x, y, subset):
        """Why ``op(x, y, subset)`` is not a valid operator here, or None (Theorems 15 and 17)."""
        subset = set(subset)
        if op == "insert":
            if x == y or y in self.adjacent[x]:
                return "x and y must be distinct and not adjacent"
            if not subset <= self.ne[y] - self.adjacent[x]:
                return "T must hold neighbours of y that are not adjacent to x"
            if not self.is_clique(self.na(x, y) | subset):
                return "NA_YX ∪ T is not a clique"
            if not self.blocks_paths(x, y, self.na(x, y) | subset):
                return "a semi-directed path from y to x avoids NA_YX ∪ T"
            return None
        if x not in self.pa[y] and x not in self.ne[y]:
            return "there must be an arc x -> y or a link x -- y"
        if not subset <= self.na(x, y):
            return "H must hold neighbours of y adjacent to x"
        if not self.is_clique(self.na(x, y) - subset):
            return "NA_YX \\ H is not a clique"
        return None

    def applied(self, op, x, y, subset):
        """Adjacency (uint8) of the completed CPDAG after a valid operator ([1]_, Section 4.1)."""
        a = self.adj.copy()
        if op == "insert":
            a[x, y], a[y, x] = True, False
            for t in subset:
                a[y, t] = False
        else:
            a[x, y] = a[y, x] = False
            for h in subset:
                a[h, y] = False
                if a[h, x] and a[x, h]:
                    a[h, x] = False
        dag = consistent_extension(a & ~a.T, a & a.T, [str(v) for v in range(self.n)])
        return essential_graph(dag.astype(np.bool_))


def _check_cpdag(cpdag):
    """SearchError unless ``cpdag`` is the CPDAG of some DAG (the operators are defined on CPDAGs only)."""
    if not isinstance(cpdag, PDAG):
        raise SearchError(f"expected a CPDAG, got {type(cpdag).__name__}; convert a DAG with dag.cpdag()")
    if not CPDAG(cpdag.adj, cpdag.names).is_valid():
        raise SearchError("the graph is not a completed PDAG (it differs from the CPDAG of its own consistent "
                          "extension); build it with DAG.cpdag()")


def _operator_arguments(cpdag, op, x, y, subset):
    """``(graph, op, x, y, subset)`` checked: a PDAG, a known operator, nodes as sorted indices."""
    _check_cpdag(cpdag)
    if op not in OPERATORS:
        raise SearchError(f"unknown GES operator {op!r}; use one of {', '.join(OPERATORS)}")
    if isinstance(subset, (str, int, np.integer)):
        raise SearchError(f"the subset of {op} must be a list of nodes, got {subset!r}")
    x, y = cpdag.index(x), cpdag.index(y)
    nodes = sorted(cpdag.index(v) for v in subset)
    if len(set(nodes)) != len(nodes):
        raise SearchError(f"the subset of {op} lists a node twice: {[cpdag.names[v] for v in nodes]}")
    return GesGraph(cpdag.adj), x, y, tuple(nodes)


def _checked(cpdag, op, x, y, subset):
    """The graph and arguments of a valid operator (SearchError naming the broken condition)."""
    graph, x, y, subset = _operator_arguments(cpdag, op, x, y, subset)
    problem = graph.problem(op, x, y, subset)
    if problem is not None:
        names = cpdag.names
        call = f"{op}({names[x]}, {names[y]}, {{{', '.join(names[v] for v in subset)}}})"
        raise SearchError(f"{call} is not a valid operator: {problem}")
    return graph, x, y, subset


def apply_operator(cpdag, op, x, y, subset=()):
    """The completed CPDAG after Insert(x, y, T) or Delete(x, y, H) (Chickering 2002, Section 4).

    The PDAG is modified as Definition 12 or 13 says, then completed: the
    CPDAG of a consistent extension (Section 4.1). :func:`ges` applies its
    operators through this function, so a replay of its trajectory rebuilds
    the same graphs.

    Parameters
    ----------
    cpdag : CPDAG
    op : {"insert", "delete"}
    x, y : int or str
        Nodes, by index or name.
    subset : iterable of int or str
        T for an insertion, H for a deletion.

    Returns
    -------
    CPDAG

    Raises
    ------
    SearchError
        When the operator is not valid (Theorems 15 and 17): the message
        names the condition it breaks.

    Examples
    --------
    >>> from bnexplore.graphs import DAG
    >>> empty = DAG.empty(["a", "b", "c"]).cpdag()
    >>> one = apply_operator(empty, "insert", "a", "b")
    >>> one
    CPDAG(3 nodes, 1 edges: a -- b)
    >>> apply_operator(apply_operator(one, "insert", "c", "b"), "delete", "c", "b")
    CPDAG(3 nodes, 1 edges: a -- b)
    """
    graph, x, y, subset = _checked(cpdag, op, x, y, subset)
    return CPDAG(graph.applied(op, x, y, subset), cpdag.names)


def valid_operators(cpdag, max_indegree=None):
    """Every valid Insert and Delete of a CPDAG (Theorems 15 and 17 of Chickering 2002).

    Parameters
    ----------
    cpdag : CPDAG
    max_indegree : int, optional
        Leave out insertions that give y more than this many parents
        (``|NA_YX ∪ T ∪ Pa_Y| + 1``).

    Returns
    -------
    list of tuple
        ``(op, x, y, subset)`` with ints, insertions first, then by y, x and subset.

    Examples
    --------
    >>> from bnexplore.graphs import DAG
    >>> chain = DAG.from_arcs([("a", "b")], ["a", "b", "c"]).cpdag()
    >>> [op for op in valid_operators(chain) if op[0] == "delete"]
    [('delete', 1, 0, ()), ('delete', 0, 1, ())]
    """
    _check_cpdag(cpdag)
    graph = GesGraph(cpdag.adj)
    bound = graph.n if max_indegree is None else whole_number(max_indegree, "max_indegree", 0, error=SearchError)
    out = []
    for y in range(graph.n):
        for x in range(graph.n):
            if x != y and x not in graph.adjacent[y]:
                limit = bound - 1 - len(graph.pa[y] | graph.na(x, y))
                out.extend(("insert", x, y, t) for t in graph.insert_subsets(x, y, limit) if limit >= 0
                           and graph.blocks_paths(x, y, graph.na(x, y) | set(t)))
    for y in range(graph.n):
        for x in sorted(graph.pa[y] | graph.ne[y]):
            out.extend(("delete", x, y, h) for h in graph.delete_subsets(x, y))
    return out


def operator_delta(scorer, cpdag, op, x, y, subset=()):
    """The score change of a valid operator from two local scores (Corollaries 16 and 18).

    Parameters
    ----------
    scorer : Scorer
        A score-equivalent scorer over the CPDAG's nodes (same order).
    cpdag : CPDAG
    op, x, y, subset
        As in :func:`apply_operator`.

    Returns
    -------
    float
        The score of the class after the operator less the score before.

    Examples
    --------
    >>> import numpy as np
    >>> from bnexplore.data import Dataset
    >>> from bnexplore.graphs import DAG
    >>> from bnexplore.scores import Scorer
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 300)
    >>> data = Dataset.from_codes(np.column_stack([a, a ^ (rng.random(300) < 0.1)]), names=["a", "b"])
    >>> scorer = Scorer(data, "bic")
    >>> empty = DAG.empty(["a", "b"]).cpdag()
    >>> delta = operator_delta(scorer, empty, "insert", "a", "b")
    >>> bool(abs(delta - (scorer.local("b", ["a"]) - scorer.local("b"))) < 1e-9)
    True
    """
    graph, x, y, subset = _checked(cpdag, op, x, y, subset)
    if op == "insert":
        family = graph.insert_family(x, y, subset)
        return float(scorer.local(y, family + (x,)) - scorer.local(y, family))
    family = graph.delete_family(x, y, subset)
    return float(scorer.local(y, family) - scorer.local(y, family + (x,)))


def _extension(adj, bound, max_indegree):
    """Parent lists of a consistent extension of a CPDAG honouring the knowledge and the in-degree bound, or None.

    With knowledge, the links a required arc or a forbidden direction fixes
    are oriented first; a consistent extension (Dor & Tarsi) of that PDAG is
    in the class exactly when some member of the class honours the knowledge
    (every such member contains those orientations, so it has the PDAG's
    v-structures, which are then the class's). The in-degree bound is
    checked on the extension found.
    """
    a = np.asarray(adj, dtype=np.bool_)
    arc, link = a & ~a.T, a & a.T
    if bound is not None:
        if (arc & ~bound.allowed).any() or (bound.required & ~a).any():
            return None
        fixed = link & (bound.required | ~bound.allowed.T)  # u -- v must become u -> v
        if (fixed & fixed.T).any():
            return None
        arc, link = arc | fixed, link & ~fixed & ~fixed.T
    try:
        dag = consistent_extension(arc, link, [str(v) for v in range(a.shape[0])]).astype(np.bool_)
    except SearchError:
        return None
    if bound is not None and not np.array_equal(essential_graph(dag).astype(np.bool_), a):
        return None
    if max_indegree is not None and dag.sum(axis=0).max(initial=0) > max_indegree:
        return None
    return [np.flatnonzero(dag[:, v]).tolist() for v in range(a.shape[0])]


class GesState(GesGraph):
    """The current class of a GES run, with the scored candidates of every node.

    ``candidates[op][y]`` lists ``(x, subset)`` and ``gains[op][y]`` their
    score changes (Corollaries 16 and 18), for the operators whose local
    validity conditions hold (the clique conditions); they are refreshed for
    the nodes an operator touched (see the module docstring).

    Parameters
    ----------
    scorer : Scorer
    adj : array_like
        The start CPDAG.
    max_indegree : int or None
    bound : BoundKnowledge or None
    """

    def __init__(self, scorer, adj, max_indegree=None, bound=None):
        super().__init__(adj)
        self.scorer = scorer
        self.max_indegree = max_indegree
        self.bound = bound
        self.parents = _extension(self.adj, bound, max_indegree)
        self.score = scorer.total(self.parents)
        self.candidates = {op: [[] for _ in range(self.n)] for op in OPERATORS}
        self.gains = {op: [np.empty(0) for _ in range(self.n)] for op in OPERATORS}
        self.staged = None

    def _insert_moves(self, y):
        limit_all = self.n if self.max_indegree is None else self.max_indegree
        moves, keys = [], []
        lonely = not self.ne[y]  # no neighbour: T and NA_YX are empty for every x
        parents = tuple(sorted(self.pa[y]))
        for x in range(self.n):
            if x == y or x in self.adjacent[y]:
                continue
            if self.bound is not None and not (self.bound.allowed[x, y] or self.bound.allowed[y, x]):
                continue
            if lonely:
                if len(parents) < limit_all:
                    moves.append((x, ()))
                    keys += [(y, tuple(sorted(parents + (x,)))), (y, parents)]
                continue
            base = self.pa[y] | self.na(x, y)
            limit = limit_all - 1 - len(base)
            if limit < 0:
                continue
            for t in self.insert_subsets(x, y, limit):
                family = tuple(sorted(base.union(t)))
                moves.append((x, t))
                keys += [(y, tuple(sorted(family + (x,)))), (y, family)]
        return moves, keys

    def _delete_moves(self, y):
        moves, keys = [], []
        for x in sorted(self.pa[y] | self.ne[y]):
            if self.bound is not None and (self.bound.required[x, y] or self.bound.required[y, x]):
                continue
            for h in self.delete_subsets(x, y):
                family = self.delete_family(x, y, h)
                moves.append((x, h))
                keys += [(y, family), (y, tuple(sorted(family + (x,))))]
        return moves, keys

    def refresh(self, op, nodes, control=None):
        """Recompute the candidates of ``op`` for the target nodes ``nodes``, in batched score look-ups.

        With ``control`` its stop flag is checked between batches; once it says
        stop, False is returned and the candidates are incomplete.
        """
        per_check = kernels.families_per_check(self.scorer.rows)
        make = self._insert_moves if op == "insert" else self._delete_moves
        batch, keys = [], []
        for y in nodes:
            moves, more = make(y)
            batch.append((y, moves))
            keys += more
            if len(keys) >= per_check:
                self._store(op, batch, keys)
                batch, keys = [], []
                if control is not None and control.should_stop():
                    return False
        self._store(op, batch, keys)
        return True

    def _store(self, op, batch, keys):
        values = self.scorer.lookup(keys) if keys else np.empty(0)
        t = 0
        for y, moves in batch:
            pair = values[t: t + 2 * len(moves)]
            self.candidates[op][y] = moves
            self.gains[op][y] = pair[0::2] - pair[1::2]
            t += 2 * len(moves)

    def best(self, op, tol):
        """The best valid operator ``(x, y, subset, delta, adjacency after, parents after)`` gaining
        more than ``tol``, or None; and the number of candidates considered.

        Candidates are taken in order of gain (ties within ``tol``: the first
        by y, x, subset); for an insertion the semi-directed path condition is
        tested, and under knowledge or an in-degree bound the completed class
        must have an extension honouring them; a failing candidate is dropped
        and the next taken.
        """
        gains = self.gains[op]
        evaluated = sum(len(g) for g in gains)
        tops = np.array([g.max() if len(g) else -np.inf for g in gains])
        dropped = []  # (y, i, gain) of the candidates that failed, restored at the end
        try:
            while True:
                y = first_best(tops, tol)
                if y < 0 or tops[y] <= tol:
                    return None, evaluated
                i = int(np.argmax(gains[y] >= tops[y] - tol))  # the first candidate of y tied with the best
                x, subset = self.candidates[op][y][i]
                delta = float(gains[y][i])
                dropped.append((y, i, delta))
                gains[y][i] = -np.inf
                tops[y] = gains[y].max()
                if op == "insert" and not self.blocks_paths(x, y, self.na(x, y) | set(subset)):
                    continue
                after = self.applied(op, x, y, subset)
                parents = _extension(after, self.bound, self.max_indegree)
                if parents is not None:
                    return (x, y, subset, delta, after, parents), evaluated
        finally:
            for y, i, gain in dropped:
                gains[y][i] = gain

    def apply(self, op, x, y):
        """Install the operator staged by :meth:`stage` (the trajectory records it through
        :meth:`SearchRun.step <bnexplore.search.run.SearchRun.step>`)."""
        staged_op, move = self.staged
        assert (staged_op, move[0], move[1]) == (op, x, y)
        _, _, _, delta, after, parents = move
        old = self.adj
        self.set_adjacency(after)
        self.parents = parents
        self.score += delta
        changed = (old != self.adj).any(axis=0) | (old != self.adj).any(axis=1)
        touched = set(np.flatnonzero(changed).tolist())
        self.touched = sorted(touched | {v for v in range(self.n) if self.ne[v] & touched})
        self.staged = None

    def stage(self, op, move):
        """Remember the operator :meth:`apply` installs next."""
        self.staged = (op, move)


def _start(scorer, bound):
    """Adjacency of the start class: the CPDAG of the required arcs (empty without knowledge)."""
    arcs = np.zeros((scorer.n_vars, scorer.n_vars), np.bool_) if bound is None else bound.required
    return essential_graph(arcs)


def _phase(state, run, op):
    """Apply the best valid operator of one kind while it raises the score; the steps taken."""
    names = state.scorer.names
    steps = 0
    while not run.control.should_stop():
        move, evaluated = state.best(op, tie_tolerance(state.score))
        if move is None:
            run.evaluated += evaluated
            return steps
        state.stage(op, move)
        x, y, subset, delta = move[:4]
        run.step(state, op, (x, y), delta, evaluated, label=PHASES[op],
                 **{"T" if op == "insert" else "H": [names[v] for v in subset], "phase": PHASES[op]})
        steps += 1
        if not state.refresh(op, state.touched, run.control):
            break
    return steps


def ges(scorer, max_indegree=None, knowledge=None, progress=None, time_limit=None, stop=None, control=None):
    """Greedy equivalence search (Chickering 2002): forward insertions, then backward deletions.

    Starting from the empty class (or the class of the required arcs), the
    forward phase applies the valid Insert(X, Y, T) with the largest score
    gain while one is positive; the backward phase then applies the valid
    Delete(X, Y, H) with the largest gain while one is positive ([1]_,
    Sections 4-5); the phases are repeated until neither changes the class.
    See the module docstring for the operators, the caching and the bounds.

    Parameters
    ----------
    scorer : Scorer
        A score-equivalent score (bdeu, bic, aic, ll): a class is scored as
        any of its DAGs.
    max_indegree : int, optional
        Bound on the parents of every node of the returned DAG.
    knowledge : Knowledge, optional
        Required and forbidden arcs and tiers; the returned DAG honours them
        (module docstring, Notes).
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`; checked between batches of
        scored candidates and between steps. A stopped search returns the
        class reached.

    Returns
    -------
    Result
        ``graph``: a consistent extension of the class found, which is
        ``extra["cpdag"]``; ``extra["start"]``: the start class when it is
        not empty (knowledge requiring arcs); ``score``: the scorer's total of
        ``graph``. ``stats``: the common ones plus ``forward_steps`` and
        ``backward_steps``. ``trajectory``: per operator ``op`` ("insert" or
        "delete"), ``args`` [x, y], ``T`` or ``H`` (names), ``delta``,
        ``score`` and ``phase`` ("forward" or "backward").

    Raises
    ------
    SearchError
        For a score that is not score-equivalent (k2), a bad ``max_indegree``
        or knowledge that contradicts itself.

    Examples
    --------
    >>> import numpy as np
    >>> from bnexplore.data import Dataset
    >>> from bnexplore.scores import Scorer
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 1000)
    >>> c = rng.integers(0, 2, 1000)
    >>> b = (a + c + (rng.random(1000) < 0.05)) % 3       # b depends on a and c
    >>> data = Dataset.from_codes(np.column_stack([a, b, c]), names=["a", "b", "c"])
    >>> result = ges(Scorer(data, "bic"))
    >>> result.extra["cpdag"]          # a v-structure: both arcs compelled
    CPDAG(3 nodes, 2 edges: a -> b, c -> b)
    >>> [(step["op"], step["args"], step["phase"]) for step in result.trajectory]
    [('insert', ['b', 'a'], 'forward'), ('insert', ['c', 'b'], 'forward')]

    References
    ----------
    .. [1] D. M. Chickering (2002). Optimal structure identification with
       greedy search. JMLR 3, 507-554.
    """
    check_scorer(scorer, "ges")
    equivalent = equivalent_names()
    if scorer.score_name not in equivalent:
        raise SearchError(f"GES needs a score-equivalent score ({', '.join(equivalent)}); "
                          f"{scorer.score_name} scores equivalent DAGs differently")
    max_indegree = None if max_indegree is None else whole_number(max_indegree, "max_indegree", 0, error=SearchError)
    bound = knowledge.bind(scorer, max_indegree) if knowledge else None
    check_pass_memory(scorer.n_vars, "GES")
    control = Control.of(control, progress, time_limit, stop)
    run = SearchRun(scorer, control, "ges", {"max_indegree": max_indegree, **knowledge_params(knowledge)})
    start = _start(scorer, bound)
    state = GesState(scorer, start, max_indegree, bound)
    if state.parents is None:
        raise SearchError(f"the class of the required arcs has no extension with at most {max_indegree} parents "
                          "per node; raise max_indegree")
    steps = {op: 0 for op in OPERATORS}
    phases = 0
    while not control.should_stop():  # forward, backward, forward, ... until a phase changes nothing
        op = OPERATORS[phases % 2]
        if not state.refresh(op, range(state.n), control):
            break
        done = _phase(state, run, op)
        steps[op] += done
        phases += 1
        if done == 0 and phases > 1:
            break
    names = scorer.names
    extra = {"cpdag": CPDAG(state.adj.astype(np.uint8), names),
             **({"start": CPDAG(start, names)} if start.any() else {})}
    return run.result(state.parents, extra=extra, forward_steps=steps["insert"], backward_steps=steps["delete"])
