"""The integer programme of one set of candidate parent sets, as one SCIP model (:class:`Problem`).

Imports PySCIPOpt: the modules that solve (:mod:`~bnexplore.search.ilp.search`)
load this one where they build a model, so that importing :mod:`bnexplore`
does not load SCIP.
"""

import numpy as np
from pyscipopt import Model, quicksum

from ..classes import canonical_member
from .families import bits, cluster_row, forbidden_families, four_b_row, sorted_families

ARROW_PRIORITY = 10
"""SCIP branching priority of the arrow variables (families have 0)."""


ADJACENCY_PRIORITY = 20
"""Branching priority of the adjacency variables, branched on first: for a score-equivalent score a
skeleton decision moves the bound where an arrow decision often meets the reversed, equally scoring arrow."""


class Problem:
    """The integer programme of one set of candidate parent sets, in one SCIP model.

    Parameters
    ----------
    candidates : bnexplore.search.subsets.CandidateArrays
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
        keeps at least one member (:func:`bnexplore.search.classes.canonical_member`),
        so the optimum is kept, and an enumeration meets each class at a few
        members instead of all and adds the rest itself. Not with arc
        constraints (a reversal may create a forbidden arc). The rows enter
        the LP only once violated (tens of thousands of them would slow
        every LP from the root on).
    branching : bool
        Add the binary *arrow variables* ``a[u, v]`` and, per pair of nodes
        that may be adjacent, an *adjacency variable* ``e[u, v] = a[u, v] +
        a[v, u]``, branched on before the arrows (for an optimisation: it
        proves optima with far fewer nodes). Without them only the
        family variables, with the two-node cluster constraints written over
        them (an enumeration: the smaller LP enumerates faster).

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
        :func:`bnexplore.search.classes.member_families`.
    """

    def __init__(self, candidates, allowed=None, required=None, covered=False, branching=True):
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
        """Give the search the cuts of ``known`` (:class:`~bnexplore.search.ilp.families.KnownCuts`): they go
        to SCIP's cut pool when the first LP is built (:meth:`bnexplore.search.ilp.branch_and_cut.Run.add_row`)
        and enter an LP only where they are violated."""
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
        return self.families(canonical_member(self.cands.masks[chosen]))
