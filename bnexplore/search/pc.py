"""PC-stable: the constraint-based search, from the complete graph to an equivalence class.

Three phases (Spirtes, Glymour & Scheines 2000, Section 5.4.2, the PC
algorithm; Colombo & Maathuis 2014, the order-independent "stable" skeleton):
remove every edge whose end points a conditional independence test finds
independent given some of their neighbours, orient the v-structures, then
close the pattern under Meek's rules (:func:`bnexplore.graphs.meek_orient`).
Background knowledge is honoured as pcalg and Tetrad do. Every step is recorded
for the replay (DESIGN.md, "Trajectories").

References
----------
.. [1] P. Spirtes, C. Glymour and R. Scheines (2000). Causation, Prediction, and
   Search, 2nd ed. MIT Press. Section 5.4.2 (PC), Section 5.8 (tiers).
.. [2] D. Colombo and M. H. Maathuis (2014). Order-independent constraint-based
   causal structure learning. JMLR 15, 3741-3782. Algorithm 4.1 (PC-stable
   skeleton), Section 4.2 (the majority rule), Section 4.3 (conflicts).
.. [3] J. Ramsey, J. Zhang and P. Spirtes (2006). Adjacency-faithfulness and
   conservative causal inference. UAI. Section 4 (CPC, the conservative rule).
.. [4] C. Meek (1995). Causal inference and causal explanation with background
   knowledge. UAI. Rules R1-R4.
"""

import itertools

import numpy as np

from ..control import Control
from ..errors import ScoreError, SearchError, subject
from ..graphs import CPDAG, DAG, PDAG, meek_orient, pdag_extension
from ..independence import independence_test
from ..knowledge import knowledge_params
from ..options import positive_number, whole_number
from ..scores.scorer import check_scorer
from .registry import V_STRUCTURES
from .run import SearchRun


class _PC:
    """The state of one PC-stable run: the pattern (a 0/1 matrix), separating sets, the record."""

    def __init__(self, scorer, test, alpha, max_condition, control, run, bound):
        n = scorer.n_vars
        self.names = scorer.names
        self.test = test
        self.alpha = alpha
        self.max_condition = max_condition
        self.control = control
        self.run = run
        self.adj = np.ones((n, n), np.uint8) - np.eye(n, dtype=np.uint8)
        self.sepset = {}  # (x, y), x < y -> separating set found by the skeleton phase
        self.tests = 0
        self.stopped = False
        self.conflicts = []
        self.ambiguous = []
        self.contested = []  # links two v-structures orient both ways: Meek's rules leave them
        self.fixed = np.zeros((n, n), bool)  # arcs oriented by the knowledge
        self.required = np.zeros((n, n), bool) if bound is None else bound.required
        self.allowed = ~np.eye(n, dtype=bool) if bound is None else bound.allowed

    # -- the record ------------------------------------------------------
    def record(self, op, args, **fields):
        """Append a step (names in ``args``)."""
        trajectory = self.run.trajectory
        trajectory.append({"step": len(trajectory) + 1, "op": op, "args": [self.names[v] for v in args], **fields})

    def independent(self, x, y, z):
        """``(independent, (p_value, statistic, dof))``; None when the run was stopped first."""
        if self.control.should_stop():
            self.stopped = True
            return None
        self.tests += 1
        p, statistic, dof = tuple(self.test(x, y, z))[:3]
        return p > self.alpha, (float(p), float(statistic), int(dof))

    # -- phase 1: the skeleton --------------------------------------------
    def forbid_edges(self):
        """Remove the edges the knowledge forbids in both directions, first ([1]_, Section 5.8)."""
        gone = ~self.allowed & ~self.allowed.T & ~np.eye(len(self.names), dtype=bool)
        for x, y in np.argwhere(np.triu(gone, 1)).tolist():
            self.adj[x, y] = self.adj[y, x] = 0
            self.record("remove", (x, y), sepset=[], p_value=None, statistic=None, dof=None, level=None,
                        reason="knowledge")

    def skeleton(self):
        """PC-stable's skeleton ([2]_, Algorithm 4.1).

        At each level ``l`` the neighbour sets are frozen first; every ordered
        pair (x, y) still adjacent is tested given the subsets of size ``l`` of
        x's frozen neighbours but y (``itertools.combinations`` in index
        order) and the edge removed at the first independence, its separating
        set kept. Removals within a level do not change what the level tests,
        so which edges go does not depend on the order of the variables. A
        subset already tested for the pair from the other end is not tested
        again (the tests are symmetric in x and y). Required arcs are never
        tested. The levels stop after ``max_condition`` or when no pair has
        ``l`` other neighbours.
        """
        n = len(self.names)
        keep = self.required | self.required.T
        level = 0
        while self.max_condition is None or level <= self.max_condition:
            frozen = [np.flatnonzero(row).tolist() for row in self.adj]
            if not any(len(frozen[x]) - 1 >= level for x in range(n)
                       if any(not keep[x, y] for y in frozen[x])):
                break
            self.control.report(done=None, message=f"pc: level {level}, {int(self.adj.sum()) // 2} edges, "
                                f"{self.tests} tests", iteration=level)
            seen = set()
            for x in range(n):
                for y in frozen[x]:
                    if not self.adj[x, y] or keep[x, y] or len(frozen[x]) - 1 < level:
                        continue
                    if self.remove_if_separated(x, y, [v for v in frozen[x] if v != y], level, seen):
                        return
            level += 1

    def remove_if_separated(self, x, y, candidates, level, seen):
        """Test x, y given the ``level``-subsets of ``candidates``; True when the run was stopped."""
        pair = (min(x, y), max(x, y))
        for z in itertools.combinations(candidates, level):
            if (pair, z) in seen:
                continue
            seen.add((pair, z))
            answer = self.independent(x, y, z)
            if answer is None:
                return True
            if answer[0]:
                self.adj[x, y] = self.adj[y, x] = 0
                self.sepset[pair] = z
                p, statistic, dof = answer[1]
                self.record("remove", (x, y), sepset=[self.names[v] for v in z], p_value=p, statistic=statistic,
                            dof=dof, level=level)
                return False
        return False

    # -- phase 2: knowledge, then v-structures ------------------------------
    def orient_knowledge(self):
        """Orient the edges the knowledge directs: a required arc, the reverse of a forbidden arc, the tiers."""
        skeleton = self.adj.astype(bool)
        directed = skeleton & (self.required | (self.allowed & ~self.allowed.T))
        self.fixed = directed
        for u, v in np.argwhere(directed).tolist():
            self.adj[v, u] = 0
            self.record("knowledge", (u, v))

    def separating_sets(self, x, y, first_only):
        """Separating sets of x, y among the subsets of their current neighbours ([3]_, Section 4).

        Subsets of x's neighbours but y, then of y's but x, smallest first and
        each set once, up to ``max_condition`` in size. With ``first_only``
        the first found is returned. None when the run was stopped.
        """
        found = []
        done = set()
        for a, b in ((x, y), (y, x)):
            around = [v for v in np.flatnonzero(self.adj[a] | self.adj[:, a]).tolist() if v != b]
            top = len(around) if self.max_condition is None else min(len(around), self.max_condition)
            for size in range(top + 1):
                for z in itertools.combinations(around, size):
                    if z in done:
                        continue
                    done.add(z)
                    answer = self.independent(x, y, z)
                    if answer is None:
                        return None
                    if answer[0]:
                        found.append(z)
                        if first_only:
                            return found
        return found

    def unshielded_triples(self):
        """Pairs x < y not adjacent with their common neighbours z: ``[(x, y, [z, ...]), ...]``."""
        skeleton = self.adj.astype(bool) | self.adj.T.astype(bool)
        common = skeleton.astype(np.float32) @ skeleton.astype(np.float32)
        out = []
        for x, y in np.argwhere(np.triu((common > 0) & ~skeleton, 1)).tolist():
            out.append((x, y, np.flatnonzero(skeleton[x] & skeleton[y]).tolist()))
        return out

    def decide_triples(self, rule):
        """Each unshielded triple's verdict: ``[(x, z, y, verdict, m, k)]``, verdict "v", "no" or "ambiguous".

        ``m`` separating sets of x, y were considered, ``k`` of them hold z.
        None when the run was stopped.
        """
        verdicts = []
        for x, y, middle in self.unshielded_triples():
            recorded = self.sepset.get((x, y))
            if rule == "standard" and recorded is not None:
                sets = [recorded]
            else:
                sets = self.separating_sets(x, y, first_only=rule == "standard")
                if sets is None:
                    return None
                if not sets and recorded is not None:
                    sets = [recorded]
            for z in middle:
                m, k = len(sets), sum(z in s for s in sets)
                if m == 0:
                    verdict = "ambiguous"
                elif rule == "majority":
                    verdict = "v" if 2 * k < m else "no" if 2 * k > m else "ambiguous"
                else:
                    verdict = "v" if k == 0 else "no" if k == m else "ambiguous"
                verdicts.append((x, z, y, verdict, m, k))
        return verdicts

    def orient_v_structures(self, rule):
        """Orient x -> z <- y for each triple judged a v-structure.

        Conflicts ([2]_, Section 4.3) are settled without regard to the order
        of the triples: an edge two v-structures would orient in opposite
        directions stays a link, and an arc against an orientation by the
        knowledge is refused; each refusal is listed in the step's
        ``conflicts`` and in :attr:`conflicts`.
        """
        self.control.report(done=None, message=f"pc: v-structures ({rule} rule), {self.tests} tests")
        verdicts = self.decide_triples(rule)
        if verdicts is None:
            return
        wanted = np.zeros(self.adj.shape, bool)
        for x, z, y, verdict, _, _ in verdicts:
            if verdict == "v":
                wanted[x, z] = wanted[y, z] = True
        contested = wanted & wanted.T
        for x, z, y, verdict, m, k in verdicts:
            if verdict == "ambiguous":
                self.ambiguous.append((x, z, y))
                self.record("ambiguous", (x, z, y))
                continue
            if verdict != "v":
                continue
            refused = []
            for a in (x, y):
                if self.adj[a, z] and not self.adj[z, a]:
                    continue
                if contested[a, z] or not self.adj[a, z]:
                    against = "knowledge" if not self.adj[a, z] else "v-structure"
                    if against == "v-structure":
                        self.contested.append((a, z))
                    refused.append([self.names[a], self.names[z]])
                    self.conflicts.append({"arc": refused[-1], "triple": [self.names[v] for v in (x, z, y)],
                                           "against": against})
                else:
                    self.adj[z, a] = 0
            self.record("v_structure", (x, z, y), rule=rule, sepsets=m, with_z=k, conflicts=refused)

    # -- phase 3: Meek's rules ----------------------------------------------
    def close(self):
        """Meek's rules R1-R4 ([4]_), each orientation recorded with its rule; ambiguous triples are not
        read as non-colliders and contested links stay links."""
        self.control.report(done=None, message="pc: Meek's rules")
        graph, applied = meek_orient(PDAG(self.adj, self.names), self.ambiguous, self.contested)
        self.adj = graph.adj.copy()
        for u, v, rule in applied:
            self.record("meek", (u, v), rule=rule)


def _ordered_extension(pattern, fixed, required):
    """A DAG from a pattern without consistent extension: ``(dag, reversed arcs, dropped arcs)``.

    Nodes are taken in the order of Kahn's algorithm on the pattern's arcs
    (smallest index first). When every node left has an incoming arc (the
    arcs hold a directed cycle), the next is the one with the fewest incoming
    ``required`` arcs (none exists: they are acyclic), then ``fixed`` arcs
    (the knowledge's orientations), then arcs, then the smallest index; its
    incoming arcs are reversed, except the ``fixed`` ones, whose edges are left
    out: no DAG on the pattern's skeleton honours knowledge whose forbidden
    directions close a cycle. Every other edge points forward in the order, so
    the DAG keeps every arc outside a directed cycle and honours the knowledge.
    """
    arc = pattern.adj.astype(bool) & ~pattern.adj.T.astype(bool)
    n = pattern.n
    left = np.ones(n, bool)
    order = []
    dropped = np.zeros((n, n), bool)
    while left.any():
        into = arc & left[:, None]
        candidates = np.flatnonzero(left)
        keys = np.stack([(into & required).sum(axis=0), (into & fixed).sum(axis=0), into.sum(axis=0)])[:, candidates]
        v = int(candidates[np.lexsort(keys[::-1])[0]])
        dropped[:, v] = into[:, v] & fixed[:, v]
        order.append(v)
        left[v] = False
    position = np.empty(n, np.int64)
    position[order] = np.arange(n)
    skeleton = pattern.skeleton() & ~dropped & ~dropped.T
    dag = skeleton & (position[:, None] < position[None, :])
    names = pattern.names
    reversed_arcs = [[names[u], names[v]] for u, v in np.argwhere(arc & ~dag & ~dropped).tolist()]
    return DAG(dag.astype(np.uint8), names), reversed_arcs, [[names[u], names[v]] for u, v in np.argwhere(dropped)]


def pc_stable(scorer, test="g2", alpha=0.05, max_condition=None, v_structures="standard", permutations=500,
              seed=None, max_indegree=None, knowledge=None, progress=None, time_limit=None, stop=None,
              control=None):
    """PC-stable ([1]_, [2]_): an equivalence class from conditional independence tests.

    1. Skeleton: from the complete graph, remove x -- y when x and y test
       independent given a subset of x's neighbours, for subsets of size 0,
       1, 2, ... with the neighbour sets frozen at the start of each size
       (PC-stable, [2]_ Algorithm 4.1: the skeleton does not depend on the
       order of the variables).
    2. V-structures: for each unshielded triple x -- z -- y (x, y not
       adjacent) orient x -> z <- y by the ``v_structures`` rule.
    3. Meek's rules R1-R4 ([4]_) orient every further edge that has the same
       direction in the whole class.

    Knowledge (as pcalg and Tetrad): a forbidden edge (both directions
    forbidden) is removed before any test; the edge of a required arc is
    never tested nor removed. After the skeleton, an edge is oriented by a
    required arc, by the reverse of a forbidden arc or by the tiers, before
    the v-structures and Meek's rules, and never overturned: a v-structure
    against it is a conflict.

    Conflicts (two v-structures orienting one edge both ways, or one against
    the knowledge) never pass silently: the contested edge stays a link (each
    side's arc is refused, whatever the order of the triples: the
    order-independent counterpart of [2]_ Section 4.3's bi-directed edges,
    which Meek's rules do not orient either), the refusal is listed in the step's ``conflicts`` and in
    ``extra["conflicts"]``.

    Parameters
    ----------
    scorer : Scorer
        The data (``scorer.data``) and the score the result is scored with.
    test : {"g2", "chi2", "mi-perm"} or test object
        The conditional independence test
        (:class:`bnexplore.independence.IndependenceTest`), or any object with
        ``n_vars`` and ``test(x, y, z) -> (p_value, statistic, dof)`` (a
        d-separation oracle, for instance).
    alpha : float
        Significance level: x and y are independent when ``p_value > alpha``.
    max_condition : int, optional
        Largest conditioning set tested (default: no limit).
    v_structures : {"standard", "conservative", "majority"}
        "standard": z is not in the separating set the skeleton phase found.
        "conservative" (CPC, [3]_ Section 4): every subset of x's and of y's
        neighbours is tested; z in none of the separating sets found: a
        v-structure, in all: not, otherwise ambiguous (recorded, no change,
        and R1 and R3 do not use the triple). "majority" ([2]_ Section 4.2):
        the same sets; a v-structure when z is in fewer than half of them,
        ambiguous at exactly half. When no separating set is found among the
        neighbours, the skeleton phase's set is used; for a pair the knowledge
        forbade (no test separated it) the first set found is, and none
        found makes the triple ambiguous.
    permutations, seed
        Of the permutation test ("mi-perm").
    max_indegree : int, optional
        Not applied: a constraint-based search cannot bound in-degrees
        without dropping edges its tests keep. It is recorded in ``params``
        (every door passes its in-degree bound to every search).
    knowledge : Knowledge, optional
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`; checked before every test. A
        stopped run returns the graph reached, the later phases not run.

    Returns
    -------
    Result
        ``graph``: a consistent extension of the pattern found
        (:func:`bnexplore.graphs.pdag_extension`). When conflicts leave a
        pattern without one, the DAG orients every edge along an order of the
        nodes that keeps every arc outside a directed cycle and honours the
        knowledge (``extra["extension"] = "ordered"``, ``extra["reversed"]``
        the arcs it turned, ``extra["dropped"]`` the edges it left out
        because the knowledge's orientations alone close a cycle; both empty
        otherwise).
        ``extra["cpdag"]``: the pattern (a CPDAG when it is one, else a PDAG);
        ``extra["conflicts"]``: each refused arc as ``{"arc": [a, b],
        "triple": [x, z, y], "against": "v-structure" | "knowledge"}``;
        ``extra["ambiguous"]``: the ambiguous triples ``[x, z, y]`` (names);
        ``stats["tests"]``: tests run (also in ``structures_evaluated``);
        ``stats["iterations"]``: steps recorded.

    Raises
    ------
    SearchError
        On an unknown test or v-structure rule, a test object that does not
        fit the data, or contradictory knowledge.
    OptionError
        On an impossible ``alpha`` or ``max_condition``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, bnexplore as bx
    >>> rng = np.random.default_rng(0)
    >>> a, c = rng.integers(0, 2, 2000), rng.integers(0, 2, 2000)
    >>> b = np.where(rng.random(2000) < 0.9, a | c, 1 - (a | c))  # a -> b <- c, with noise
    >>> data = bx.Dataset.from_frame(pd.DataFrame({"a": a, "b": b, "c": c}))
    >>> result = pc_stable(bx.Scorer(data, "bic"))
    >>> result.extra["cpdag"]
    CPDAG(3 nodes, 2 edges: a -> b, c -> b)
    >>> [(step["op"], step["args"]) for step in result.trajectory]
    [('remove', ['a', 'c']), ('v_structure', ['a', 'b', 'c'])]
    """
    check_scorer(scorer, "pc_stable")
    control = Control.of(control, progress, time_limit, stop)
    alpha = positive_number(alpha, "alpha", high=1.0)
    if max_condition is not None:
        max_condition = whole_number(max_condition, "max_condition", 0)
    if v_structures not in V_STRUCTURES:
        raise SearchError(f"unknown rule {subject('v_structures', v_structures)}: choose one of "
                          f"{', '.join(V_STRUCTURES)}")
    test_name = test if isinstance(test, str) else type(test).__name__
    test = independence_test(test, scorer.data, alpha, permutations, seed)
    bound = knowledge.bind(scorer.names, max_indegree) if knowledge else None
    run = SearchRun(scorer, control, "pc", {
        "test": test_name, "alpha": alpha,
        "max_condition": max_condition, "v_structures": v_structures, "permutations": permutations, "seed": seed,
        "max_indegree": max_indegree, **knowledge_params(knowledge)})
    pc = _PC(scorer, test, alpha, max_condition, control, run, bound)
    pc.forbid_edges()
    pc.skeleton()
    pc.orient_knowledge()
    if not pc.stopped:
        pc.orient_v_structures(v_structures)
    if not pc.stopped:
        pc.close()
    pattern = PDAG(pc.adj, scorer.names)
    extra = {"conflicts": pc.conflicts, "ambiguous": [[scorer.names[v] for v in t] for t in pc.ambiguous],
             "reversed": [], "dropped": []}
    try:
        dag = pdag_extension(pattern)
        extra["extension"] = "consistent"
        if bound is None and dag.cpdag() == pattern:
            pattern = CPDAG(pattern.adj, pattern.names)
    except SearchError:
        dag, extra["reversed"], extra["dropped"] = _ordered_extension(pattern, pc.fixed, pc.required)
        extra["extension"] = "ordered"
    extra["cpdag"] = pattern
    run.iterations = len(run.trajectory)
    run.evaluated = pc.tests
    try:
        return run.result(dag.parent_sets(), extra=extra, tests=pc.tests)
    except ScoreError as error:  # a skeleton stopped early can leave a node nearly every other as parent
        if not pc.stopped:
            raise
        raise SearchError(f"pc was stopped after {pc.tests:,} tests, before its skeleton was done, and the "
                          f"{pattern.n_edges:,} edges not yet removed cannot make a network to keep ({error}); "
                          "give it more time, or a smaller largest conditioning set (max_condition)") from None
