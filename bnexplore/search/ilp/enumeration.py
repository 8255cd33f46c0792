"""The enumeration's branch and cut: every DAG above a threshold, or the best ``limit``.

For the credible set (Liao, Sharma, Cussens & van Beek 2019) the tree search
continues past each network: with the objective limit at ``OPT - epsilon``,
every integer LP solution that is a DAG is recorded and then excluded by
branching (children ``x1 = 0``; ``x1 = 1, x2 = 0``; ... over its family
variables not yet fixed), so the subtrees partition what is left and every
DAG is met once; no solution is ever handed to SCIP
(:data:`bnexplore.search.ilp.branch_and_cut.ENUMERATION_SETTINGS` turns off
the reductions that assume a fixed feasible set). For a score-equivalent
score the search also forbids covered arcs from a higher to a lower index,
which leaves one or a few members of every Markov equivalence class, and the
first member met brings its whole class, listed by covered-arc reversals
(Chickering 1995; :meth:`EnumerationRun.record_class`). When more than
``limit`` DAGs are credible the collector keeps the best ``limit``
(:class:`bnexplore.search.kbest.Collector`) and the objective limit follows
its floor, so DAGs tied with the worst kept one are pruned instead of met one
by one. Beside the tree, the search explores: from the optimum, and from every
class the tree meets, a best-first search over one-family changes records the
credible DAGs nearby (:meth:`EnumerationRun.explore`); credible sets are
mostly connected by such changes, so the set fills long before the tree
reaches its DAGs, and a full set's floor, and with it the objective limit,
rises early. The tree still proves the set complete.

Imports PySCIPOpt: loaded only where a search runs (:mod:`bnexplore.search.ilp.search`).
"""

import heapq

import numpy as np
from pyscipopt import SCIP_RESULT

from ...compiling import search_clock
from ...numerics import tie_tolerance
from ..classes import class_keys, equivalence_class, member_families
from ..neighbours import family_changes
from .branch_and_cut import Run

OBJECTIVE_LIMIT_STEP = 0.01
"""Rise of a full enumeration's threshold (score units) that is passed on to SCIP's objective limit.

Once ``limit`` DAGs are held the threshold follows the worst one kept; SCIP's objective limit follows it
in steps (each call walks SCIP's open nodes), so its node pruning and reduced-cost fixing stay close
behind the exact test of :meth:`EnumerationRun.below_threshold`."""


class EnumerationRun(Run):
    """One enumeration: every DAG at or above the collector's threshold is recorded and excluded by branching.

    Parameters
    ----------
    problem : Problem
    control : Control
    collector : bnexplore.search.kbest.Collector
        Receives the DAGs.
    margin : float
        Slack below the enumeration threshold for LP bounds (LP round-off).
    explore : bool
        Under the covered-arc constraints, explore the credible DAGs around
        every newly recorded class (:meth:`explore`).
    """

    enumerating = True

    def __init__(self, problem, control, collector, margin=0.0, explore=False):
        super().__init__(problem, control)
        self.collector = collector
        self.margin = margin
        self.exploring = explore and problem.covered
        self.seen = set()
        self.objective_limit = collector.threshold

    def incumbent(self):
        """The best DAG recorded (None before the first)."""
        return self.collector.best

    def progress(self, info):
        info["found"] = self.collector.count
        return f"credible set (ILP): {self.collector.count:,} DAGs found"

    def prepare(self, seed):
        """Set the objective limit; with exploration, record and explore the class of ``seed`` first."""
        self.model.setObjlimit(-(self.collector.threshold - self.margin))
        if seed is not None and self.exploring:
            cands = self.problem.cands
            recorded = self.record_class(cands.masks[seed], float(cands.scores[seed].sum()))
            if recorded is not None:
                self.explore(recorded)
            self.follow_floor()

    def accept(self, x, parents, infeasible):
        """Record the DAG and branch it away (unless SCIP's own rows reject the point)."""
        return SCIP_RESULT.FEASIBLE if infeasible else self.record_and_branch(x, parents)

    def conclude(self, out, started):
        out.collector = self.collector
        out.score = self.collector.best

    def below_threshold(self, cost_bound):
        """In an enumeration, True when a node whose cost bound is ``cost_bound`` holds no DAG worth keeping."""
        return -cost_bound < self.collector.floor() - self.margin

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
        """Raise SCIP's objective limit to the collector's floor (:meth:`bnexplore.search.kbest.Collector.floor`)
        once it has risen by :data:`OBJECTIVE_LIMIT_STEP` (its node pruning and reduced-cost fixing then use it)."""
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
        members = equivalence_class(parents)
        fams = member_families(members, self.problem.sorted_masks, self.problem.sorted_index,
                                    self.cands.offsets)
        kept = (fams >= 0).all(axis=1)
        for member, member_score in zip(members[kept], self.cands.scores[fams[kept]].sum(axis=1).tolist()):
            self.counts["dags_recorded"] += self.collector.add(member, member_score)
        return fams[kept]

    def explore(self, start):
        """Record the credible DAGs reachable by one-family changes from ``start`` (rows of family indices,
        recorded already).

        A best-first search (the best DAG met first) over
        :func:`bnexplore.search.neighbours.family_changes`, each step keeping the
        score at or above the collector's floor: it records
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
        t0 = search_clock()
        try:
            self._explore(start)
        finally:
            self.seconds["exploration"] += search_clock() - t0

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
            nodes, families = family_changes(chosen, c.masks, c.scores, c.offsets,
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
