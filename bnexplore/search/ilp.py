"""The optimal network and the credible set by branch and cut on SCIP.

The integer programme of Jaakkola, Sontag, Globerson & Meila (2010,
"Learning Bayesian network structure using LP relaxations", AISTATS), Cussens
(2011, UAI) and Bartlett & Cussens (2017, "Integer linear programming for the
Bayesian network structure learning problem", AIJ 244), over the candidate
parent sets of :func:`bnexplore.parents.pruning.candidate_parent_sets`
instead of the subset lattice of :mod:`bnexplore.search.exact`:

* one binary *family variable* ``x[v, J]`` per node ``v`` and candidate parent
  set ``J``, with the local score as its objective coefficient, and one parent
  set per node: ``sum over J of x[v, J] = 1`` (Section 3 of Bartlett & Cussens);
* binary *arrow variables* ``a[u, v] = sum over J containing u of x[v, J]``,
  which the branching prefers (GOBNILP's default), and, to optimise, binary
  *adjacency variables* ``e[u, v] = a[u, v] + a[v, u]`` (pygobnilp's
  adjacency constraints), branched on first: for a score-equivalent score a
  decision on the skeleton moves the bound where a decision on an arrow is
  often answered by the reversed arrow; the two-node cluster constraints
  ``a[u, v] + a[v, u] <= 1`` and the three-node set-packing constraints (at
  most one node of a triple has the other two as parents; Section 4.3) from
  the start;
* acyclicity by the *cluster constraints* (Section 3.1: every set of nodes has
  a node with no parent inside it) and their *k-cluster* generalisation
  (Jaakkola et al. 2010, Section 3.1), added as cutting planes by a
  constraint handler: separated from the LP solution by the kernels of
  :mod:`bnexplore.search.cuts` and enforced exactly on every integer solution
  (a cycle found is cut off); when no cluster constraint is violated, the
  *4B inequalities* on four nodes (Cussens, Jaervisalo, Korhonen & Bartlett
  2017, JAIR 58; :func:`bnexplore.search.cuts.four_b_value`), which cut the
  LP points of large samples that every cluster constraint allows (alarm,
  N = 20,000: the root gap falls by a third); SCIP's zero-half ({0, 1/2}-Chvatal-Gomory)
  separator runs every round on those rows (:data:`OPTIMUM_SETTINGS`): the LP
  points no cluster constraint cuts are mostly half-integral;
* a primal heuristic: Cussens's sink-finding heuristic on the LP solution
  (Section 5) gives an ordering, every node then takes its best candidate
  among the nodes before it (OBS), and the ordering is improved by the swaps
  and insertions of :mod:`bnexplore.search.ordering`; the search starts from
  an ASOBS incumbent (Scanagatta et al. 2015) found on the same candidates.

For the credible set (Liao, Sharma, Cussens & van Beek 2019) the same tree
search continues past each network: with the objective limit at
``OPT - epsilon``, every integer LP solution that is a DAG is recorded and
then excluded by branching (children ``x1 = 0``; ``x1 = 1, x2 = 0``; ... over
its family variables not yet fixed), so the subtrees partition what is left
and every DAG is met once; no solution is ever handed to SCIP, and the
reductions that assume a fixed feasible set (strong dual reductions, symmetry
handling, restarts, conflict analysis, presolving) are turned off, while
reduced-cost fixing against the objective limit stays on. For a
score-equivalent score (BIC, BDeu) the search also forbids covered arcs from
a higher to a lower index, which leaves one or a few members of every Markov
equivalence class, and the first member met brings its whole class, listed by
covered-arc reversals (Chickering 1995). When more than ``limit`` DAGs are
credible the search keeps the best ``limit``, and once one more has been met
the objective limit follows the worst kept score plus
:func:`bnexplore.search.credible.tie_slack`, so DAGs tied with it (which the
finished set drops) are pruned instead of met one by one (:class:`Collector`).
Beside the tree, the search explores: from the optimum, and from every class
the tree meets, a best-first search over one-family changes records the
credible DAGs nearby (:meth:`Run.explore`; a primal heuristic for the
enumeration, where the optimisation's is sink finding). The tree, which
still proves the set complete, later meets those classes as known ones and
only branches. Credible sets are mostly connected by such changes, so the set
fills within seconds where the tree needs minutes (lung-cancer: 150,000 DAGs
at 2 s instead of 79 s), and a full set's threshold, and with it the
objective limit, rises early.

SCIP is used through PySCIPOpt (the optional ``exact`` extra: ``pip install
pyscipopt``).
"""

import heapq
import math
import time

import numpy as np

from ..control import Control
from ..errors import SearchError
from ..numerics import tie_tolerance
from . import cuts
from .credible import class_keys, digest, heapify, lp_margin, sift_down, tie_slack

try:  # the optional [exact] extra
    from pyscipopt import (SCIP_EVENTTYPE, SCIP_HEURTIMING, SCIP_LPSOLSTAT, SCIP_PARAMSETTING, SCIP_RESULT, Conshdlr,
                           Eventhdlr, Heur, Model, Variable, quicksum)
except ImportError:  # pragma: no cover - exercised only without pyscipopt
    Model = Variable = None
    Conshdlr = Eventhdlr = Heur = object

INSTALL_HINT = "the integer-programming engine needs PySCIPOpt: pip install pyscipopt"

MIN_VIOLATION = 1e-4
"""Least violation ``1 - g(C)`` of a cluster cut worth adding."""

TAUS = np.array([1e-6, 0.05, 0.15, 0.3, 0.5])
"""Thresholds of the peeling separator (:func:`bnexplore.search.cuts.separate`)."""

EXACT_BUDGET = 1_000_000
"""Search nodes of the exact cluster search per strongly connected component and k."""

KMAX = 2
"""Largest k of the k-cluster constraints separated."""

ARROW_PRIORITY = 10
"""SCIP branching priority of the arrow variables (families have 0)."""

ADJACENCY_PRIORITY = 20
"""Branching priority of the adjacency variables, branched on first: for a score-equivalent score a
skeleton decision moves the bound where an arrow decision often meets the reversed, equally scoring arrow."""

MAX_CUTS = 64
"""Cluster (or 4B) cuts added per separation round."""

FOUR_B_VIOLATION = 1e-3
"""Least violation of a 4B cut worth adding (:func:`bnexplore.search.cuts.separate_four_b`)."""

OBJECTIVE_LIMIT_STEP = 0.01
"""Rise of a full enumeration's threshold (score units) that is passed on to SCIP's objective limit.

Once ``limit`` DAGs are held the threshold follows the worst one kept; SCIP's objective limit follows it
in steps (each call walks SCIP's open nodes), so its node pruning and reduced-cost fixing stay close
behind the exact test of :meth:`Run.below_threshold`."""

TRAJECTORY_INTERVAL = 0.05
"""Seconds between two trajectory points that only record a lower bound (incumbents are all recorded)."""

_ACTIVE = ("LOOSE", "COLUMN")
"""Statuses of variables a solution may set (not fixed or aggregated by presolving)."""

ENUMERATION_SETTINGS = {
    "misc/allowstrongdualreds": False,
    "presolving/maxrestarts": 0,
    "misc/usesymmetry": 0,
    "conflict/enable": False,
    "separating/rapidlearning/freq": -1,
    "branching/relpscost/inititer": 20,
    "branching/relpscost/initcand": 20,
    "branching/relpscost/maxlookahead": 4,
}
"""SCIP settings under which no reduction assumes the feasible set is fixed while DAGs are collected.

Strong dual reductions (which may drop optimal solutions as long as one remains) are off; weak ones,
which only drop solutions no better than the cutoff, stay on: the cutoff is the objective limit
``OPT - epsilon`` lowered by the margin, so they remove nothing the credible set holds, and
reduced-cost fixing (SCIP's ``redcost`` propagator, which needs them) shrinks every node's LP
(bands, BF 3: the whole set in 23 s instead of a third of it in 60 s). Strong branching is as cheap as in
:data:`OPTIMUM_SETTINGS`: wdbc's node LPs take a third of a second, and with SCIP's defaults strong
branching took 225 of 300 s (BF 3, from the optimisation's cuts: 24 nodes, 15 DAGs; 207 DAGs with
these settings)."""


OPTIMUM_SETTINGS = {
    "separating/zerohalf/freq": 1,
    "separating/zerohalf/maxroundsroot": -1,
    "separating/zerohalf/maxrowdensity": 1.0,
    "separating/maxstallroundsroot": 50,
    "separating/gomory/freq": -1,
    "separating/aggregation/freq": -1,
    "separating/clique/freq": -1,
    "constraints/knapsack/sepafreq": -1,
    "branching/relpscost/inititer": 20,
    "branching/relpscost/initcand": 20,
    "branching/relpscost/maxlookahead": 4,
}
"""SCIP settings of an optimisation. The LP points that no cluster constraint cuts are largely
half-integral, and {0, 1/2}-Chvatal-Gomory cuts over the cluster rows cut them (GOBNILP also runs the
zero-half separator aggressively): every round at the root and in the tree, over rows of any density
(SCIP skips rows denser than 5% by default, which leaves out most cluster cuts). Gomory, aggregation
(MIR), clique and knapsack-cover separation found next to nothing here and took up to half of the time.
Strong branching is cheaper than SCIP's default: at most 20 LP iterations per candidate, 20
candidates, and a look-ahead of 4 (alarm N = 20,000, BIC, from the optimal seed: 45 s and 123 nodes
against 69 s and 149 nodes, half of it in strong branching; the same gap on the BDeu row).
SCIP's own primal heuristics are off too (:func:`_configure`): the diving heuristics took a quarter of
soybean's minute and alarm's incumbents come from the ASOBS seed and the sink heuristic."""


def available():
    """True when PySCIPOpt (and so SCIP) can be imported."""
    return Model is not None


def require_scip():
    """Raise SearchError with the install hint when PySCIPOpt is missing."""
    if Model is None:
        raise SearchError(INSTALL_HINT)


# -- the model -------------------------------------------------------------------


class Problem:
    """The integer programme of one set of candidate parent sets, in one SCIP model.

    Parameters
    ----------
    candidates : bnexplore.search.exact.Candidates
        Families (masks, scores, offsets), best first per node.
    allowed : (n, n) bool array, optional
        ``allowed[u, v]`` False forbids the arc u -> v: families with a
        forbidden parent are fixed to 0 (the hook for background knowledge:
        required arcs and tiers reduce to such a matrix and to families fixed
        to 0, see :func:`forbidden_families`).
    required : (n, n) bool array, optional
        ``required[u, v]`` True requires the arc u -> v.
    covered : bool
        Add ``x[v, K] + x[u, K - u] <= 1`` for ``u`` in ``K``, ``u > v``: no
        covered arc points from a higher to a lower index. For a
        score-equivalent score (BIC, BDeu) every Markov equivalence class
        keeps at least one member (:func:`bnexplore.search.cuts.canonical_member`),
        so the optimum is kept, and an enumeration meets each class at a few
        members instead of all and adds the rest itself. Not with arc
        constraints (a reversal may create a forbidden arc). The rows enter
        the LP only once violated (wdbc has 36,573: its root LP took 35 s
        with all of them in it, 19 s so).
    branching : bool
        Add the binary *arrow variables* ``a[u, v]`` and, per pair of nodes
        that may be adjacent, an *adjacency variable* ``e[u, v] = a[u, v] +
        a[v, u]``, branched on before the arrows (for an optimisation: it
        proves alarm-size optima with far fewer nodes). Without them only the
        family variables, with the two-node cluster constraints written over
        them (an enumeration: the smaller LP enumerates lung-cancer's credible
        DAGs twice as fast).

    Attributes
    ----------
    model : pyscipopt.Model
    x : list of Variable
        Family variables, in the order of ``candidates``.
    arrows : dict
        ``(u, v) -> Variable`` for every arc some candidate allows (empty without ``branching``).
    adjacencies : dict
        ``(u, v) -> Variable``, ``u < v``, for every pair both of whose arcs some candidate allows
        (empty without ``branching``).
    known_rows : list of (int64 array, float or None, float or None)
        ``(families, lhs, rhs)`` of the cuts given by :meth:`add_known_cuts`.
    sorted_masks, sorted_index : int64 arrays
        Every node's candidate parent sets in ascending order (within the
        node's ``offsets`` range) and their family indices, for
        :func:`bnexplore.search.cuts.member_families`.
    """

    def __init__(self, candidates, allowed=None, required=None, covered=False, branching=True):
        require_scip()
        self.cands = candidates
        self.n = candidates.n
        self.index = {(v, int(m)): f for v in range(self.n)
                      for f, m in zip(range(candidates.offsets[v], candidates.offsets[v + 1]),
                                      candidates.masks[candidates.offsets[v]:candidates.offsets[v + 1]].tolist())}
        self.sorted_masks, self.sorted_index = sorted_families(candidates.masks, candidates.offsets)
        self.model = Model()
        self.model.hideOutput()
        self.model.setMinimize()
        masks, scores, offsets = candidates.masks, candidates.scores, candidates.offsets
        zero = forbidden_families(candidates, allowed, required)
        model = self.model
        self.x = [model.addVar(vtype="B", obj=-float(scores[f]), ub=0.0 if zero[f] else 1.0)
                  for f in range(len(masks))]
        for v in range(self.n):
            model.addCons(quicksum(self.x[f] for f in range(offsets[v], offsets[v + 1])) == 1)
        with_parent = {}  # (u, v) -> the family variables of v that contain u
        for v in range(self.n):
            for f in range(offsets[v], offsets[v + 1]):
                for u in bits(masks[f]):
                    with_parent.setdefault((u, v), []).append(self.x[f])
        pairs = sorted(with_parent, key=lambda arc: (arc[1], arc[0]))  # by child, then parent
        self.arrows, self.adjacencies = {}, {}
        if branching:
            for u, v in pairs:
                a = model.addVar(vtype="B")
                model.chgVarBranchPriority(a, ARROW_PRIORITY)
                model.addCons(a - quicksum(with_parent[u, v]) == 0)
                self.arrows[u, v] = a
        for u, v in pairs:
            if u < v and (v, u) in with_parent:
                if branching:
                    e = model.addVar(vtype="B")
                    model.chgVarBranchPriority(e, ADJACENCY_PRIORITY)
                    model.addCons(self.arrows[u, v] + self.arrows[v, u] - e == 0)
                    self.adjacencies[u, v] = e
                else:
                    model.addCons(quicksum(with_parent[u, v]) + quicksum(with_parent[v, u]) <= 1)
        triples = {}
        for v in range(self.n):
            for f in range(offsets[v], offsets[v + 1]):
                parents = bits(masks[f])
                for i in range(len(parents)):
                    for j in range(i + 1, len(parents)):
                        key = tuple(sorted((v, parents[i], parents[j])))
                        triples.setdefault(key, {}).setdefault(v, []).append(self.x[f])
        self.n_triples = 0
        for by_node in triples.values():
            if len(by_node) >= 2:
                model.addCons(quicksum(var for fams in by_node.values() for var in fams) <= 1)
                self.n_triples += 1
        self.known_rows = []
        self.covered = covered
        self.n_covered = 0
        if covered:  # no covered arc u -> v with u > v: one or a few members per equivalence class
            for v in range(self.n):
                for f in range(offsets[v], offsets[v + 1]):
                    for u in bits(masks[f]):
                        g = self.index.get((u, int(masks[f]) & ~(1 << u))) if u > v else None
                        if g is not None:
                            model.addCons(self.x[f] + self.x[g] <= 1, initial=False)  # in the LP once violated
                            self.n_covered += 1

    def add_known_cuts(self, known):
        """Give the search the cuts of ``known`` (:class:`KnownCuts`): they go to SCIP's cut pool when the
        first LP is built (:meth:`Run.add_row`) and enter an LP only where they are violated."""
        self.known_rows += [cluster_row(self.cands, cluster, k) for cluster, k in known.clusters.tolist()]
        self.known_rows += [four_b_row(self.cands, *quad) for quad in known.four_b.tolist()]

    def dag_variables(self, chosen):
        """The (original) variables equal to 1 in the DAG with these chosen families: families, arrows, adjacencies."""
        masks = self.cands.masks
        out = [self.x[f] for f in chosen.tolist()]
        for (u, v), a in self.arrows.items():
            if (int(masks[chosen[v]]) >> u) & 1:
                out.append(a)
                e = self.adjacencies.get((min(u, v), max(u, v)))
                if e is not None:
                    out.append(e)
        return out

    def families(self, parents):
        """Family index of every node of the DAG with these parent bitmasks (None if one is not a candidate)."""
        out = [self.index.get((v, int(m))) for v, m in enumerate(parents)]
        return None if None in out else np.array(out, np.int64)

    def representable(self, chosen):
        """``chosen`` families, made to satisfy the covered-arc constraints (None when not possible)."""
        if not self.covered:
            return chosen
        return self.families(cuts.canonical_member(self.cands.masks[chosen]))


def cluster_row(candidates, cluster, k):
    """The ``k``-cluster constraint of ``cluster`` as ``(families, lhs, rhs)``: ``lhs <= sum of x[f] <= rhs``.

    At least ``k`` nodes of the cluster have at most ``k - 1`` parents inside
    it, written over whichever side has fewer families
    (:func:`bnexplore.search.cuts.cut_families`)."""
    families, inside = cuts.cut_families(candidates.masks, candidates.offsets, np.int64(cluster), int(k))
    if inside:
        return families, None, float(cuts.popcount(np.int64(cluster)) - k)
    return families, float(k), None


def four_b_row(candidates, a, b, c, d):
    """The 4B inequality of the pairs ``{a, b}`` and ``{c, d}`` as ``(families, None, 2.0)`` (:func:`cluster_row`'s form)."""
    return cuts.four_b_families(candidates.masks, candidates.offsets, a, b, c, d), None, 2.0


def bits(mask):
    """Node indices of a bitmask, ascending (plain Python)."""
    mask = int(mask)
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def sorted_families(masks, offsets):
    """Every node's candidate parent sets in ascending order and their family indices (two int64 arrays).

    The families of node ``v`` stay within ``offsets[v]:offsets[v + 1]``; the
    search structure of :func:`bnexplore.search.cuts.member_families`.
    """
    index = np.arange(len(masks), dtype=np.int64)
    for lo, hi in zip(offsets[:-1].tolist(), offsets[1:].tolist()):
        index[lo:hi] = lo + np.argsort(masks[lo:hi], kind="stable")
    return masks[index], index


def forbidden_families(candidates, allowed=None, required=None):
    """Families excluded by arc constraints (bool array over the families).

    ``allowed[u, v]`` False forbids u -> v: a family of ``v`` containing ``u``
    is excluded. ``required[u, v]`` True requires u -> v: a family of ``v``
    without ``u`` is excluded. (With required arcs the candidate sets must
    have been pruned knowing them: a set pruned because a subset without the
    required parent scored better is needed again.)
    """
    masks, offsets, n = candidates.masks, candidates.offsets, candidates.n
    out = np.zeros(len(masks), bool)
    for v in range(n):
        lo, hi = offsets[v], offsets[v + 1]
        if allowed is not None:
            banned = sum(1 << u for u in range(n) if u != v and not allowed[u, v])
            out[lo:hi] |= (masks[lo:hi] & banned) != 0
        if required is not None:
            needed = sum(1 << u for u in range(n) if u != v and required[u, v])
            out[lo:hi] |= (masks[lo:hi] & needed) != needed
    return out


# -- one solve -------------------------------------------------------------------------


class Collector:
    """The DAGs an enumeration records: every one at or above ``threshold``, or the best ``limit``.

    Until ``limit`` DAGs are held every one is kept; then the arrays become a
    min-heap on the score (:func:`bnexplore.search.credible.heapify`), a better
    DAG replaces the worst kept one and, from the first DAG met while full
    (``overflow``), ``threshold`` follows the worst kept score, as in
    :func:`bnexplore.search.credible.enumerate_dags`.

    The finished set then drops every DAG scoring below the worst kept plus
    ``slack`` (:func:`bnexplore.search.credible.limited_set`), so from the
    overflow on only a DAG scoring at least :meth:`floor` can still change it,
    and the search prunes below that: DAGs tied with the worst kept (2.8
    million class members on hailfinder500 in 20 s) are no longer listed and
    branched on one by one.

    ``clock`` (optional, a callable returning seconds) dates the moment ``limit``
    DAGs were first held (``full_at``): where the paper's GOBNILP stops counting
    (SCIP's ``constraints/countsols/sollimit``), while this search goes on to
    keep the best ``limit``.
    """

    def __init__(self, n, threshold, limit, slack=0.0, clock=None):
        self.threshold = threshold
        self.limit = limit
        self.slack = slack
        self.capacity = min(limit, 1 << 12)
        self.masks = np.zeros((self.capacity, n), np.int64)
        self.scores = np.empty(self.capacity)
        self.count = 0
        self.heap = None
        self.overflow = 0
        self.best = None
        self.clock = clock
        self.full_at = None

    def floor(self):
        """Least score a DAG needs to change the finished set: ``threshold``, plus ``slack`` after an overflow."""
        return self.threshold + self.slack if self.overflow else self.threshold

    def rejects(self, score):
        """True when the set is full and a DAG scoring ``score`` (up to round-off) cannot change it.

        Then no Markov equivalent DAG can either, so an enumeration need not list
        the class; the overflow is marked as :meth:`add` would mark it."""
        if self.heap is None:
            return False
        worst = float(self.scores[self.heap[0]])
        needed = max(worst, self.floor())
        if score > needed - tie_tolerance(needed):
            return False
        if score >= self.threshold:
            self.overflow += 1
            self.threshold = max(self.threshold, worst)
        return True

    def add(self, parent_masks, score):
        """Keep one DAG (its parent bitmasks and score) if it is good enough; True if kept."""
        if score < self.threshold:
            return False
        self.best = score if self.best is None else max(self.best, score)
        if self.count == self.capacity and self.capacity < self.limit:
            self.capacity = min(2 * self.capacity, self.limit)
            self.masks = np.concatenate([self.masks, np.zeros((self.capacity - len(self.masks),
                                                               self.masks.shape[1]), np.int64)])
            self.scores = np.concatenate([self.scores, np.empty(self.capacity - len(self.scores))])
        if self.count < self.capacity:
            self.masks[self.count] = parent_masks
            self.scores[self.count] = score
            self.count += 1
            if self.count == self.limit:
                self.heap = heapify(self.scores)
                self.full_at = None if self.clock is None else self.clock()
            return True
        self.overflow += 1  # more than limit DAGs exist: the search may now skip what cannot be kept
        row = self.heap[0]
        self.threshold = max(self.threshold, float(self.scores[row]))
        if score <= self.scores[row]:
            return False
        self.masks[row] = parent_masks
        self.scores[row] = score
        sift_down(self.heap, self.scores, 0)
        self.threshold = max(self.threshold, float(self.scores[self.heap[0]]))
        return True


class Run:
    """What the plugins of one solve share: the problem, the control, counters, the trajectory.

    Parameters
    ----------
    problem : Problem
    control : Control
    collector : Collector, optional
        Given for an enumeration (every DAG at or above its threshold is
        recorded and excluded by branching); None to optimise.
    margin : float
        Slack below the enumeration threshold for LP bounds (LP round-off).
    order_candidates : bnexplore.search.ordering.Candidates
        The same families for the ordering climb of the primal heuristic.
    explore : bool
        In an enumeration under the covered-arc constraints, explore the
        credible DAGs around every newly recorded class (:meth:`explore`).
    """

    def __init__(self, problem, control, collector=None, margin=0.0, order_candidates=None, explore=False):
        self.problem = problem
        self.model = problem.model
        self.cands = problem.cands
        self.control = control
        self.collector = collector
        self.margin = margin
        self.order_candidates = order_candidates
        self.exploring = explore and problem.covered and collector is not None
        self.tx = None
        self.start = time.perf_counter()
        self.trajectory = []
        self.counts = {"cluster_cuts": 0, "four_b_cuts": 0, "separation_rounds": 0, "cycles_cut": 0,
                       "heuristic_calls": 0, "heuristic_improved": 0, "dags_recorded": 0, "enumeration_branches": 0,
                       "objective_limit_raised": 0, "known_cuts": 0, "explored": 0}
        self.seconds = {"separation": 0.0, "heuristic": 0.0, "enforcement": 0.0, "exploration": 0.0}
        self.stopped = False
        self.seen = set()
        self.clusters_added = []  # (cluster, k) of every cluster cut, and (a, b, c, d) of every 4B cut
        self.four_b_added = []
        self.objective_limit = -math.inf if collector is None else collector.threshold

    # -- values -----------------------------------------------------------
    def transform(self):
        """Map the family variables to the transformed problem (once solving starts)."""
        model = self.model
        self.tx = [model.getTransformedVar(v) for v in self.problem.x]

    def lp_values(self):
        # map over the unbound method: 1.7x faster than a generator (lung-cancer: a third of an enumeration)
        return np.fromiter(map(Variable.getLPSol, self.tx), np.float64, len(self.tx))

    def sol_values(self, sol):
        model = self.model
        return np.fromiter((model.getSolVal(sol, v) for v in self.tx), np.float64, len(self.tx))

    # -- bounds and progress ------------------------------------------------
    def incumbent(self):
        """Best score found (None when there is none yet)."""
        if self.collector is not None:
            return self.best_recorded()
        value = -self.model.getPrimalbound()
        return value if self.model.getNSols() > 0 and abs(value) < 1e19 else None

    def best_recorded(self):
        return self.collector.best

    def bound(self):
        """Proven upper bound on the score of any DAG still in the search."""
        value = -self.model.getDualbound()
        return None if not math.isfinite(value) or abs(value) >= 1e19 else value

    def tick(self):
        """Check the stop flag (interrupting SCIP), record the trajectory, report progress."""
        if self.stopped:
            return True
        score, bound = self.incumbent(), self.bound()
        last = self.trajectory[-1] if self.trajectory else None
        now = time.perf_counter() - self.start
        new_score = last is None or score != last["score"]
        new_bound = bound is not None and (last is None or last["bound"] is None or bound < last["bound"] - 1e-9)
        if new_score or (new_bound and now - last["seconds"] >= TRAJECTORY_INTERVAL):
            self.trajectory.append({"step": len(self.trajectory) + 1, "op": "incumbent" if new_score else "bound",
                                    "args": [], "delta": None if last is None or score is None
                                    or last["score"] is None else score - last["score"],
                                    "score": score, "bound": bound, "gap": gap(score, bound), "seconds": now,
                                    "nodes": self.model.getNNodes()})
        info = {"score": score, "bound": bound, "gap": gap(score, bound), "nodes": self.model.getNNodes()}
        if self.collector is not None:
            info["found"] = self.collector.count
            message = f"credible set (ILP): {self.collector.count:,} DAGs found"
        else:
            message = "exact (ILP): " + describe_gap(score, bound)
        self.control.report(done=None, message=message, **info)
        if self.control.should_stop():
            self.stopped = True
            self.model.interruptSolve()
        return self.stopped

    # -- cuts ------------------------------------------------------------------
    def add_row(self, name, families, lhs, rhs, lp=True):
        """Add ``lhs <= sum of x[f] over families <= rhs`` as a global cut to SCIP's cut pool and, with
        ``lp``, to the LP; True when it cuts off the node."""
        model = self.model
        row = model.createEmptyRowUnspec(name=name, lhs=lhs, rhs=rhs, local=False, removable=True)
        model.cacheRowExtensions(row)
        for f in families.tolist():
            model.addVarToRow(row, self.tx[f], 1.0)
        model.flushRowExtensions(row)
        infeasible = model.addCut(row, forcecut=True) if lp else False
        model.addPoolCut(row)
        model.releaseRow(row)
        return infeasible

    def add_cluster_cut(self, cluster, k=1):
        """Add the ``k``-cluster constraint of ``cluster`` as a global cut; True when it cuts off the node."""
        self.counts["cluster_cuts"] += 1
        self.clusters_added.append((cluster, k))
        return self.add_row("cluster", *cluster_row(self.cands, cluster, k))

    def separate(self, x, exact=True):
        """Add the violated cluster cuts at ``x``, or when there are none the violated 4B cuts; a SCIP result."""
        t0 = time.perf_counter()
        c = self.cands
        found, ks, _ = cuts.separate(x, c.masks, c.offsets, KMAX, MIN_VIOLATION, MAX_CUTS, TAUS,
                                     EXACT_BUDGET if exact else 0)
        self.counts["separation_rounds"] += 1
        result = SCIP_RESULT.DIDNOTFIND
        for cluster, k in zip(found.tolist(), ks.tolist()):
            result = SCIP_RESULT.SEPARATED
            if self.add_cluster_cut(cluster, k):
                result = SCIP_RESULT.CUTOFF
                break
        if result == SCIP_RESULT.DIDNOTFIND and self.collector is None:  # optimisation only (no gain when enumerating)
            quads, _ = cuts.separate_four_b(x, c.masks, c.offsets, FOUR_B_VIOLATION, MAX_CUTS)
            for a, b, cc, d in quads.tolist():
                result = SCIP_RESULT.SEPARATED
                self.counts["four_b_cuts"] += 1
                self.four_b_added.append((a, b, cc, d))
                if self.add_row("4B", *four_b_row(c, a, b, cc, d)):
                    result = SCIP_RESULT.CUTOFF
                    break
        self.seconds["separation"] += time.perf_counter() - t0
        return result

    def below_threshold(self, cost_bound):
        """In an enumeration, True when a node whose cost bound is ``cost_bound`` holds no DAG worth keeping."""
        return self.collector is not None and -cost_bound < self.collector.floor() - self.margin

    # -- integer points -------------------------------------------------------------
    def enforce(self, x, solinfeasible):
        """Enforce acyclicity at an integral point: cut cycles; in an enumeration record the DAG and branch.

        The handler enforces after SCIP's integrality handler (which branches
        on fractional points), so ``x`` is integral up to SCIP's tolerance."""
        t0 = time.perf_counter()
        try:
            c = self.cands
            parents = cuts.chosen_parents(x, c.masks, c.offsets)
            if (parents < 0).any():
                return SCIP_RESULT.INFEASIBLE
            cycles = cuts.integer_cycles(parents)
            if len(cycles):
                self.counts["cycles_cut"] += len(cycles)
                for cluster in cycles.tolist():
                    if self.add_cluster_cut(cluster):
                        return SCIP_RESULT.CUTOFF
                return SCIP_RESULT.SEPARATED
            if self.collector is None or solinfeasible:
                return SCIP_RESULT.FEASIBLE
            return self.record_and_branch(x, parents)
        finally:
            self.seconds["enforcement"] += time.perf_counter() - t0

    def record_and_branch(self, x, parents):
        """Record the DAG of the integral point and exclude it: children partition the rest of the node.

        Under the covered-arc constraints (:class:`Problem`) the first member of
        a Markov equivalence class met records the whole class (:meth:`record_class`)
        and explores the credible DAGs around it (:meth:`explore`); later members
        only branch."""
        model = self.model
        chosen = np.flatnonzero(x > 0.5)
        score = float(self.cands.scores[chosen].sum())
        if self.problem.covered:
            recorded = self.record_class(parents, score)
            if recorded is not None and self.exploring:
                self.explore(recorded)
        elif self.collector.add(parents, score):
            self.counts["dags_recorded"] += 1
        self.follow_floor()
        free = [f for f in chosen.tolist() if self.tx[f].getLbLocal() < 0.5]
        if not free:
            return SCIP_RESULT.CUTOFF
        estimate = model.getLocalEstimate()
        for i, f in enumerate(free):
            child = model.createChild(0.0, estimate)
            for g in free[:i]:
                model.chgVarLbNode(child, self.tx[g], 1.0)
            model.chgVarUbNode(child, self.tx[f], 0.0)
        self.counts["enumeration_branches"] += 1
        return SCIP_RESULT.BRANCHED

    def follow_floor(self):
        """Raise SCIP's objective limit to the collector's :meth:`Collector.floor` once it has risen by
        :data:`OBJECTIVE_LIMIT_STEP` (its node pruning and reduced-cost fixing then use it)."""
        if self.collector.floor() > self.objective_limit + OBJECTIVE_LIMIT_STEP:
            self.objective_limit = self.collector.floor()
            self.model.setObjlimit(-(self.objective_limit - self.margin))
            self.counts["objective_limit_raised"] += 1

    def record_class(self, parents, score, key=None):
        """Record every member of the Markov equivalence class of a DAG (parent bitmasks ``parents``, score
        ``score``, class key ``key`` when known) whose parent sets are candidates; the family indices of those
        members (rows), or None when the class was recorded before or cannot change the set.
        Score-equivalent scores only."""
        if key is None:
            key = class_keys(parents[None, :], False)[0].tobytes()
        if key in self.seen or self.collector.rejects(score):
            return None
        self.seen.add(key)
        members = cuts.equivalence_class(parents)
        fams = cuts.member_families(members, self.problem.sorted_masks, self.problem.sorted_index,
                                    self.cands.offsets)
        kept = (fams >= 0).all(axis=1)
        for member, member_score in zip(members[kept], self.cands.scores[fams[kept]].sum(axis=1).tolist()):
            self.counts["dags_recorded"] += self.collector.add(member, member_score)
        return fams[kept]

    def explore(self, start):
        """Record the credible DAGs reachable by one-family changes from ``start`` (rows of family indices,
        recorded already).

        A best-first search (the best DAG met first) over
        :func:`bnexplore.search.cuts.family_changes`, each step keeping the
        score at or above the collector's :meth:`Collector.floor`: it records
        whole equivalence classes (:meth:`record_class`), so the tree search,
        which still proves the set complete, later meets them as known classes
        and only branches. It fills the set with good DAGs long before the tree
        reaches them (the tree spends most of its nodes on fractional LP points),
        so a stopped enumeration holds more, and a full set raises its floor,
        and with it the tree's objective limit, early. Stops when the
        :class:`Control` says so (the tree search then stops too). Its seconds
        are counted apart (``seconds_exploration``; when the tree calls it, also
        within ``seconds_enforcement``).
        """
        t0 = time.perf_counter()
        try:
            self._explore(start)
        finally:
            self.seconds["exploration"] += time.perf_counter() - t0

    def _explore(self, start):
        c = self.cands
        heap = [(-float(c.scores[row].sum()), i, row) for i, row in enumerate(start)]
        heapq.heapify(heap)
        pushed = len(heap)
        while heap:
            count = self.collector.count
            self.control.report(done=None, message=f"credible set (ILP): {count:,} DAGs found",
                                score=self.collector.best, found=count)
            if self.control.should_stop():
                return
            negative, _, chosen = heapq.heappop(heap)
            score, floor = -negative, self.collector.floor()
            if score < floor:
                return  # the heap is best first: nothing left in it can be kept
            self.counts["explored"] += 1
            nodes, families = cuts.family_changes(chosen, c.masks, c.scores, c.offsets,
                                                  floor - score - tie_tolerance(floor))
            changed = np.repeat(chosen[None, :], len(nodes), axis=0)
            changed[np.arange(len(nodes)), nodes] = families
            parents = c.masks[changed]
            keys = class_keys(parents, False)
            for i, changed_score in enumerate(c.scores[changed].sum(axis=1).tolist()):
                rows = self.record_class(parents[i], changed_score, keys[i].tobytes())
                if rows is not None:
                    for row in rows:
                        heapq.heappush(heap, (-changed_score, pushed, row))
                        pushed += 1
            if len(heap) > 2 * self.collector.limit:  # what no longer reaches the floor is never expanded
                floor = self.collector.floor()
                heap = [entry for entry in heap if -entry[0] >= floor]
                heapq.heapify(heap)

    # -- the primal heuristic ------------------------------------------------------------
    def heuristic(self, heur):
        """Sink finding on the LP point, OBS parents, an ordering climb; hands a better DAG to SCIP."""
        from .ordering import Climb

        t0 = time.perf_counter()
        self.counts["heuristic_calls"] += 1
        try:
            c = self.cands
            x = self.lp_values()
            order = cuts.sink_order(x, c.scores, c.masks, c.offsets)
            if len(order) < c.n:
                return SCIP_RESULT.DIDNOTFIND
            chosen = cuts.order_families(c.masks, c.offsets, order)
            if self.order_candidates is not None:
                climb = Climb(self.order_candidates, order)
                climb.run(Control(), {"swaps": 0, "insertions": 0})
                chosen = climb.chosen
            score = float(c.scores[chosen].sum())
            best = self.incumbent()
            if best is not None and score <= best + tie_tolerance(best):
                return SCIP_RESULT.DIDNOTFIND
            chosen = self.problem.representable(chosen)
            if chosen is None:
                return SCIP_RESULT.DIDNOTFIND
            sol = self.model.createSol(heur)
            self.set_dag(sol, chosen)
            if self.model.trySol(sol, printreason=False):
                self.counts["heuristic_improved"] += 1
                return SCIP_RESULT.FOUNDSOL
            return SCIP_RESULT.DIDNOTFIND
        finally:
            self.seconds["heuristic"] += time.perf_counter() - t0

    def set_dag(self, sol, chosen):
        """Set a solution's family, arrow and adjacency variables to the DAG with these chosen families.

        Only active variables are set (presolving may have aggregated some; SCIP
        derives those)."""
        model = self.model
        for var in self.problem.dag_variables(chosen):
            t = model.getTransformedVar(var)
            if t.getStatus() in _ACTIVE:
                model.setSolVal(sol, t, 1.0)


def gap(score, bound):
    """``bound - score`` (0 when proven optimal), or None while either is unknown."""
    if score is None or bound is None:
        return None
    return max(0.0, bound - score)


def describe_gap(score, bound):
    """One line for progress and results: the incumbent and how far from optimal it may be."""
    if score is None:
        return "no network found yet" if bound is None else f"no network yet, bound {bound:.4f}"
    g = gap(score, bound)
    if g is None:
        return f"best {score:.4f}, no bound yet"
    if g <= tie_tolerance(score):
        return f"optimal {score:.4f}"
    return f"best {score:.4f}, within {g:.4g} of optimal (bound {bound:.4f})"


class _Acyclicity(Conshdlr):
    """Cluster constraints as cutting planes; exact acyclicity on integer points (see :class:`Run`)."""

    def __init__(self, run):
        self.run = run

    def consinitsol(self, constraints):
        self.run.transform()

    def consinitlp(self, constraints):
        run = self.run
        for families, lhs, rhs in run.problem.known_rows:
            run.add_row("known", families, lhs, rhs, lp=False)
            run.counts["known_cuts"] += 1
        return {}

    def conslock(self, constraint, locktype, nlockspos, nlocksneg):
        # any family may close or open a cycle: lock every variable both ways
        problem = self.run.problem
        variables = problem.x if constraint is not None and constraint.isOriginal() else \
            [self.model.getTransformedVar(v) for v in problem.x]
        both = nlockspos + nlocksneg
        for var in variables:
            self.model.addVarLocksType(var, locktype, both, both)

    def conscheck(self, constraints, solution, checkintegrality, checklprows, printreason, completely):
        run = self.run
        if run.collector is not None:  # an enumeration hands no solution to SCIP
            return {"result": SCIP_RESULT.INFEASIBLE}
        if run.tx is None:
            run.transform()
        x = run.sol_values(solution)
        parents = cuts.chosen_parents(x, run.cands.masks, run.cands.offsets)
        if (parents < 0).any() or len(cuts.integer_cycles(parents)):
            return {"result": SCIP_RESULT.INFEASIBLE}
        return {"result": SCIP_RESULT.FEASIBLE}

    def consprop(self, constraints, nusefulconss, nmarkedconss, proptiming):
        run = self.run
        if run.collector is not None and run.below_threshold(self.model.getCurrentNode().getLowerbound()):
            return {"result": SCIP_RESULT.CUTOFF}
        return {"result": SCIP_RESULT.DIDNOTFIND}

    def conssepalp(self, constraints, nusefulconss):
        run = self.run
        if run.tick():
            return {"result": SCIP_RESULT.DIDNOTRUN}
        if run.below_threshold(self.model.getLPObjVal()):
            return {"result": SCIP_RESULT.CUTOFF}
        return {"result": run.separate(run.lp_values())}

    def consenfolp(self, constraints, nusefulconss, solinfeasible):
        run = self.run
        if run.below_threshold(self.model.getLPObjVal()):
            return {"result": SCIP_RESULT.CUTOFF}
        return {"result": run.enforce(run.lp_values(), solinfeasible)}

    def consenfops(self, constraints, nusefulconss, solinfeasible, objinfeasible):
        run = self.run
        x = run.sol_values(None)
        parents = cuts.chosen_parents(x, run.cands.masks, run.cands.offsets)
        if (parents < 0).any() or len(cuts.integer_cycles(parents)):
            return {"result": SCIP_RESULT.INFEASIBLE}
        if run.collector is None or solinfeasible or objinfeasible:
            return {"result": SCIP_RESULT.FEASIBLE}
        return {"result": run.record_and_branch(x, parents)}


class _Sinks(Heur):
    """The sink-finding primal heuristic on the LP solution (see :meth:`Run.heuristic`)."""

    def __init__(self, run):
        self.run = run

    def heurexec(self, heurtiming, nodeinfeasible):
        if self.run.tx is None or self.model.getLPSolstat() != SCIP_LPSOLSTAT.OPTIMAL:
            return {"result": SCIP_RESULT.DIDNOTRUN}
        return {"result": self.run.heuristic(self)}


class _Monitor(Eventhdlr):
    """Checks the stop flag, reports progress and records the trajectory after every node."""

    def __init__(self, run):
        self.run = run

    def eventinit(self):
        self.model.catchEvent(SCIP_EVENTTYPE.NODESOLVED | SCIP_EVENTTYPE.BESTSOLFOUND, self)

    def eventexit(self):
        self.model.dropEvent(SCIP_EVENTTYPE.NODESOLVED | SCIP_EVENTTYPE.BESTSOLFOUND, self)

    def eventexec(self, event):
        self.run.tick()


# -- solving -----------------------------------------------------------------------------


class KnownCuts:
    """Cluster and 4B cuts one search found, to start another search over the same candidates.

    Every cut holds for every DAG (they describe acyclicity, not the
    objective), so an enumeration may start from the cuts that closed the
    optimisation's gap instead of finding them again (wdbc, BF 3: no credible
    DAG in 300 s without them, all 398 in 205 s with them). Stored as a few
    integers per cut, not as rows.

    Parameters
    ----------
    clusters : iterable of (int, int)
        ``(cluster bitmask, k)`` of every k-cluster cut (duplicates dropped).
    four_b : iterable of (int, int, int, int)
        The four nodes of every 4B cut, in the order of :func:`bnexplore.search.cuts.four_b_families`.
    """

    def __init__(self, clusters=(), four_b=()):
        self.clusters = np.array(sorted(set(map(tuple, clusters))), np.int64).reshape(-1, 2)
        self.four_b = np.array(sorted(set(map(tuple, four_b))), np.int64).reshape(-1, 4)

    def __len__(self):
        return len(self.clusters) + len(self.four_b)


class Outcome:
    """What one solve found.

    Attributes
    ----------
    parents : int64 array or None
        Parent bitmask of every node of the best DAG (optimisation), None when
        there is none.
    score, bound, gap : float or None
        The best DAG's score (sum of its candidates' scores), the proven upper
        bound, ``bound - score``.
    optimal : bool
        Proven optimal (optimisation) or the enumeration ran to the end.
    status : str
        SCIP's status.
    stats : dict
        Nodes, LP iterations, cut and heuristic counters, seconds by phase.
    trajectory : list of dict
        ``(seconds, score, bound, gap, nodes)`` points, one per change.
    collector : Collector or None
    cuts : KnownCuts
        Every cluster and 4B cut the search added: valid for every DAG, so
        another search over the same candidates may start from them.
    """


def _configure(model, enumeration, time_limit):
    if not enumeration:
        model.setHeuristics(SCIP_PARAMSETTING.OFF)  # ours (added later) and the ASOBS seed find the incumbents
        for name, value in OPTIMUM_SETTINGS.items():
            model.setParam(name, value)
    else:
        for name, value in ENUMERATION_SETTINGS.items():
            model.setParam(name, value)
        model.setPresolve(SCIP_PARAMSETTING.OFF)
        model.setHeuristics(SCIP_PARAMSETTING.OFF)
        model.setSeparating(SCIP_PARAMSETTING.OFF)  # SCIP's own cuts cost more than they save here
    if time_limit is not None:
        model.setParam("limits/time", max(1.0, float(time_limit)))


def solve(problem, control, collector=None, seed=None, order_candidates=None, margin=0.0, scip_time_limit=None,
          statistics=False, explore=False):
    """Run branch and cut on ``problem``; returns an :class:`Outcome`.

    Parameters
    ----------
    problem : Problem
    control : Control
        Checked after every node and separation round; a stop interrupts SCIP.
    collector : Collector, optional
        Enumerate: record every DAG at or above ``collector.threshold`` (its
        objective limit) and exclude it by branching.
    seed : int array, optional
        Chosen family of every node of a starting DAG: the optimisation's
        incumbent, or where an enumeration under the covered-arc constraints
        starts exploring (:meth:`Run.explore`).
    order_candidates : bnexplore.search.ordering.Candidates, optional
        Enables the ordering climb in the primal heuristic.
    margin : float
        LP round-off slack of the enumeration's bound tests.
    scip_time_limit : float, optional
        Wall-clock backstop for SCIP (the Control's limit is the one that
        counts; it is checked in the callbacks).
    statistics : bool
        Add SCIP's own time breakdown (LP, separation, branching) to the stats.
    explore : bool
        Enumerate with :meth:`Run.explore` (from ``seed`` first, when given).
    """
    model = problem.model
    run = Run(problem, control, collector=collector, margin=margin, order_candidates=order_candidates,
              explore=explore)
    enumeration = collector is not None
    _configure(model, enumeration, scip_time_limit)
    handler = _Acyclicity(run)
    model.includeConshdlr(handler, "acyclic", "cluster constraints of acyclicity", sepapriority=100000,
                          enfopriority=-2000000, chckpriority=-2000000, sepafreq=1,
                          propfreq=1 if enumeration else -1, eagerfreq=100, needscons=True)
    model.addPyCons(model.createCons(handler, "acyclic"))
    model.includeEventhdlr(_Monitor(run), "monitor", "stop flag, progress and trajectory")
    if enumeration:
        model.setObjlimit(-(collector.threshold - margin))
        if seed is not None and run.exploring:
            recorded = run.record_class(problem.cands.masks[seed], float(problem.cands.scores[seed].sum()))
            if recorded is not None:
                run.explore(recorded)
            run.follow_floor()
    else:
        model.includeHeur(_Sinks(run), "sinks", "sink finding on the LP solution", "K", priority=1000, freq=1,
                          timingmask=SCIP_HEURTIMING.AFTERLPNODE)
        seed = None if seed is None else problem.representable(seed)
        if seed is not None:
            sol = model.createSol()
            for var in problem.dag_variables(seed):
                model.setSolVal(sol, var, 1.0)
            model.addSol(sol)
    t0 = time.perf_counter()
    started = not control.should_stop()
    if started:
        model.optimize()
    else:
        run.stopped = True
    out = Outcome()
    out.status = model.getStatus() if started else "not started"
    out.collector = collector
    out.cuts = KnownCuts(run.clusters_added, run.four_b_added)
    out.trajectory = run.trajectory
    out.stopped = run.stopped
    c = problem.cands
    out.parents = None
    out.score = None
    out.bound = None
    if enumeration:
        out.score = run.best_recorded()
    elif started and model.getNSols() > 0:
        best = model.getBestSol()
        x = np.array([model.getSolVal(best, v) for v in problem.x])
        out.parents = cuts.chosen_parents(x, c.masks, c.offsets)
        out.score = float(c.scores[np.flatnonzero(x > 0.5)].sum())
    out.optimal = out.status in ("optimal", "infeasible") and not run.stopped
    if out.optimal:
        out.bound = out.score
    elif started:
        value = -model.getDualbound()
        out.bound = value if math.isfinite(value) and abs(value) < 1e19 else None
    out.gap = gap(out.score, out.bound)
    nodes = model.getNNodes() if started else 0
    run.trajectory.append({"step": len(run.trajectory) + 1, "op": "end", "args": [], "delta": None,
                           "score": out.score, "bound": out.bound, "gap": out.gap,
                           "seconds": time.perf_counter() - run.start, "nodes": nodes})
    out.stats = {"status": out.status, "nodes": nodes, "lp_iterations": model.getNLPIterations() if started else 0,
                 "seconds_scip": time.perf_counter() - t0, "variables": len(problem.x),
                 "arrow_variables": len(problem.arrows), "set_packing_rows": problem.n_triples,
                 "covered_arc_rows": problem.n_covered,
                 **run.counts, **{f"seconds_{k}": v for k, v in run.seconds.items()}}
    if statistics and started:
        out.stats["scip"] = scip_statistics(model)
    return out


def scip_statistics(model):
    """SCIP's own time breakdown: seconds in presolving, LP solving, separation, branching, heuristics."""
    import json
    import os
    import tempfile

    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        model.writeStatisticsJson(path)
        with open(path) as f:
            return json.load(f)
    finally:
        os.unlink(path)


# -- entry points ------------------------------------------------------------------------

SEED_WORK = 10_000_000
"""Family visits the ASOBS restarts of the starting incumbent may spend (:func:`seed_restarts`)."""

SEED_RESTARTS = (10, 300)
"""Fewest and most ASOBS restarts for the starting incumbent (seeded, so runs repeat).

Each restart costs about a tenth of a microsecond per family (alarm N = 20,000, 7,362 families:
0.9 ms). Ten restarts missed the optimum of alarm N = 20,000 by 14.3 (thirty found it; the proof then
takes 149 tree nodes instead of 276); three hundred improved the seeds of wdbc (-6611.9 to -6602.6,
OPT -6602.1) and soybean (-3125.34 to -3125.04) in under a second."""

BYTES_PER_FAMILY = 6 << 10
"""Rough memory of one family in SCIP (variable, column, its share of rows and cuts)."""

_BASE_MEMORY = 128 << 20


SCORE_EQUIVALENT = ("bic", "bdeu", "aic", "ll")
"""Scores that give Markov equivalent DAGs the same score (the covered-arc constraints rely on it)."""


def score_equivalent(score_name):
    """True for the scores of :data:`SCORE_EQUIVALENT`."""
    return score_name in SCORE_EQUIVALENT


def exploration_memory(n, limit):
    """Bytes :meth:`Run.explore` may hold: at most twice ``limit`` DAGs waiting, as family rows in tuples."""
    return 2 * limit * (8 * n + 200)


def memory_needed(n_families):
    """Rough bytes the integer programme over ``n_families`` family variables needs."""
    return _BASE_MEMORY + BYTES_PER_FAMILY * int(n_families)


def seed_restarts(n_families):
    """ASOBS restarts for the starting incumbent over ``n_families`` families: :data:`SEED_WORK` spread
    over them, within :data:`SEED_RESTARTS` (a count, not a clock, so runs repeat on any machine)."""
    fewest, most = SEED_RESTARTS
    return int(min(most, max(fewest, SEED_WORK // max(1, int(n_families)))))


def seed_incumbent(order_candidates, control, restarts=None, seed=0):
    """Chosen family of every node of the best ASOBS DAG over the candidates (Scanagatta et al. 2015).

    ``restarts`` defaults to :func:`seed_restarts` of the family count."""
    from .ordering import climb_restart

    if restarts is None:
        restarts = seed_restarts(len(order_candidates.scores))
    rng = np.random.default_rng(seed)
    counters = {"swaps": 0, "insertions": 0, "orderings": 0}
    best, best_score = None, -np.inf
    for r in range(restarts):
        chosen, score = climb_restart(order_candidates, rng.permutation(order_candidates.n), "asobs", control, counters)
        if score > best_score:
            best, best_score = chosen, score
        if control.should_stop():
            break
    return np.asarray(best, np.int64), float(best_score)


PROVEN_KEPT = 16
"""Proven optima this process remembers for :func:`optimum` (``reuse=True``)."""

_proven = {}


def _problem_key(candidates, zero, covered):
    """A digest of everything the optimum depends on: the families, their scores, the excluded ones."""
    return digest((candidates.masks, candidates.scores, candidates.offsets, zero), "covered" if covered else "all")


def _reused(proven):
    """A fresh :class:`Outcome` for a remembered proven optimum: no search, so every counter is 0."""
    out = Outcome()
    out.parents, out.score, out.bound, out.gap = proven.parents.copy(), proven.score, proven.score, 0.0
    out.optimal, out.stopped, out.status, out.collector = True, False, "optimal", None
    out.cuts = proven.cuts
    out.seed_score = proven.seed_score
    out.trajectory = [{"step": 1, "op": "end", "args": [], "delta": None, "score": out.score, "bound": out.score,
                       "gap": 0.0, "seconds": 0.0, "nodes": 0}]
    out.stats = {**{k: 0 for k, v in proven.stats.items() if isinstance(v, (int, float)) and not isinstance(v, bool)},
                 "status": "optimal", "seed_score": proven.seed_score, "reused": True}
    return out


def optimum(candidates, order_candidates, control, allowed=None, required=None, covered=False, statistics=False,
            reuse=False):
    """The best DAG over the candidates by branch and cut: an :class:`Outcome` with ``seed_score`` and ``seconds``.

    Starts from an ASOBS incumbent; a stopped search returns the incumbent
    with its proven bound (at worst the sum of every node's best score).
    Every proven optimum is remembered (the last :data:`PROVEN_KEPT`); with
    ``reuse`` one remembered for the same families and scores is returned
    without a search (``stats["reused"]`` True): the credible sets of one
    data set at several Bayes factors prove their optimum once.
    """
    require_scip()
    t0 = time.perf_counter()
    zero = forbidden_families(candidates, allowed, required)
    key = _problem_key(candidates, zero, covered)
    if reuse and key in _proven:
        return _reused(_proven[key])
    if zero.any():
        order_candidates = None  # the climb would not know the excluded families
    seed, seed_score = (None, None) if order_candidates is None else seed_incumbent(order_candidates, control)
    t_seed = time.perf_counter()
    problem = Problem(candidates, allowed, required, covered=covered and not zero.any())
    out = solve(problem, control, seed=seed, order_candidates=order_candidates, statistics=statistics)
    if out.parents is None and seed is not None:  # stopped before SCIP took the seed
        out.parents = candidates.masks[seed]
        out.score = seed_score
    trivial = float(candidates.top.sum())
    out.bound = trivial if out.bound is None else min(out.bound, trivial)
    if out.score is not None and out.optimal:
        out.bound = out.score
    out.gap = gap(out.score, out.bound)
    out.seed_score = seed_score
    out.stats.update(seconds_seed=t_seed - t0, seed_score=seed_score)
    if out.optimal and out.parents is not None:
        _proven.pop(key, None)
        _proven[key] = _reused(out)  # its own copy: what the caller does with ``out`` cannot change it
        while len(_proven) > PROVEN_KEPT:
            del _proven[next(iter(_proven))]
    return out


def enumerate_dags(candidates, threshold, limit, control, scale, covered=False, known=None, statistics=False,
                   start=None, explore=True):
    """Every DAG over the candidates scoring at least ``threshold`` (the best ``limit``), by branch and cut.

    ``covered`` (score-equivalent scores only) searches with the covered-arc
    constraints of :class:`Problem` and adds each equivalence class whole.
    ``known`` (:class:`KnownCuts`, e.g. the optimisation's ``Outcome.cuts``)
    go to SCIP's cut pool from the start; ``statistics`` adds SCIP's time breakdown to the outcome's
    stats (:func:`solve`). With ``covered`` and ``explore`` the search also explores the credible DAGs
    around every class it records (:meth:`Run.explore`), first around ``start`` (parent bitmasks of a DAG,
    e.g. the optimum); ``explore=False`` leaves the tree search alone. Returns ``(collector, outcome)``;
    ``outcome.optimal`` is True when the tree search ran to the end; ``collector.full_at`` is
    ``control.clock()`` when ``limit`` DAGs were first held.
    """
    require_scip()
    problem = Problem(candidates, covered=covered, branching=False)
    if known is not None:
        problem.add_known_cuts(known)
    collector = Collector(candidates.n, threshold, limit, slack=tie_slack(scale), clock=control.clock)
    seed = None if start is None else problem.families(start)
    out = solve(problem, control, collector=collector, seed=seed, margin=lp_margin(scale), statistics=statistics,
                explore=explore)
    return collector, out


def ilp_search(scorer, max_indegree=None, parent_sets=None, knowledge=None, progress=None, time_limit=None,
               stop=None, control=None, statistics=False):
    """The highest-scoring DAG by branch and cut on SCIP (see the module docstring).

    The ILP engine of :func:`bnexplore.search.exact.exact_search` (which
    chooses it automatically for large problems): the same arguments, the same
    :class:`~bnexplore.result.Result`.

    Parameters
    ----------
    scorer : Scorer
    max_indegree : int, optional
    parent_sets : ParentSets, optional
        Candidate parent sets (computed, pruned for the optimum, when not given).
    knowledge : Knowledge, optional
        Background knowledge: the candidates are built under it (see
        :func:`bnexplore.search.exact.prepare_parent_sets`), so every family
        honours it.
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`. Reports carry ``score`` (the
        incumbent), ``bound`` (proven upper bound), ``gap`` and ``nodes``.
        When stopped the incumbent is returned with its proven gap.
    statistics : bool
        Add SCIP's own statistics (time in LP, separation, branching) as
        ``stats["scip"]``.

    Returns
    -------
    Result
        ``algorithm = "exact"``; ``stats`` add ``engine`` ("ilp"),
        ``bound``, ``gap`` (0 when proven optimal), ``exact``, ``opt`` (None
        unless proven), ``message``, ``seconds_candidates``, ``seconds_seed``,
        ``seconds_ilp``, ``nodes``, ``lp_iterations``, ``cluster_cuts`` and the
        separation and heuristic counters; ``trajectory`` holds one entry per
        change of the incumbent or the bound (``seconds``, ``score``,
        ``bound``, ``gap``, ``nodes``).

    Raises
    ------
    SearchError
        When PySCIPOpt is not installed (``pip install pyscipopt``).
    ResourceError
        When the programme would need more memory than is available.
    """
    from ..graphs import DAG
    from ..knowledge import knowledge_params
    from ..result import Result
    from .exact import Candidates, check_memory, format_bytes, mask_to_parents, prepare_parent_sets
    from .ordering import Candidates as OrderCandidates

    require_scip()
    control = Control.of(control, progress, time_limit, stop)
    start = time.perf_counter()
    snapshot = scorer.snapshot()
    parent_sets = prepare_parent_sets(scorer, parent_sets, max_indegree, 0.0, control, knowledge=knowledge)
    needed = memory_needed(len(parent_sets))
    check_memory(needed, f"the integer programme over {len(parent_sets):,} candidate parent sets",
                 "set max_indegree (fewer candidate parent sets) or use a heuristic search")
    control.report(done=None, message=f"exact (ILP): {len(parent_sets):,} candidate parent sets, "
                                      f"about {format_bytes(needed)}")
    t_candidates = time.perf_counter()
    candidates = Candidates(parent_sets)
    out = optimum(candidates, OrderCandidates(parent_sets), control, statistics=statistics)
    parents = [mask_to_parents(m, scorer.n_vars) for m in out.parents]
    graph = DAG.from_parents(parents, scorer.names)
    score = scorer.total(parents)
    complete = parent_sets.stats.get("complete", True) is not False
    proven = out.optimal and not out.stopped and complete
    bound = score if proven else (out.bound if complete else None)  # no bound over a part of the candidates
    message = describe_gap(score, bound) if complete else (
        f"best {score:.4f} over the candidate parent sets found before the stop (no optimality bound)")
    stats = {"seconds": time.perf_counter() - start, "seconds_candidates": t_candidates - start,
             "seconds_ilp": time.perf_counter() - t_candidates, "iterations": out.stats["nodes"],
             "structures_evaluated": out.stats["nodes"], **scorer.stats(snapshot),
             "candidate_sets": len(parent_sets), "memory_bytes": needed, "engine": "ilp",
             "opt": score if proven else None, "exact": proven, "message": message, "edges": graph.n_edges,
             "stopped": control.reason, **out.stats, "bound": bound, "gap": gap(score, bound)}
    params = {**scorer.params, "max_indegree": max_indegree, "engine": "ilp", **knowledge_params(knowledge)}
    control.finish(message=f"exact (ILP): {message}", score=score, bound=bound, gap=stats["gap"])
    return Result(graph=graph, score=score, score_name=scorer.score_name, algorithm="exact", params=params,
                  stats=stats, trajectory=out.trajectory, extra={"candidates": parent_sets.stats})
