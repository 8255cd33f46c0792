"""The optimisation's branch and cut: the best DAG, with a primal heuristic.

Cussens's sink-finding heuristic on the LP solution (Bartlett & Cussens 2017,
AIJ 244, Section 5) gives an ordering, every node then takes its best
candidate among the nodes before it (OBS), and the ordering is improved by
the swaps and insertions of :mod:`bnexplore.search.ordering`
(:meth:`OptimisationRun.heuristic`); the search starts from an ASOBS
incumbent (Scanagatta et al. 2015) found on the same candidates
(:func:`bnexplore.search.ilp.search.seed_incumbent`).

Imports PySCIPOpt: loaded only where a search runs (:mod:`bnexplore.search.ilp.search`).
"""


import numpy as np
from pyscipopt import SCIP_HEURTIMING, SCIP_LPSOLSTAT, SCIP_RESULT, Heur

from ...compiling import search_clock
from ...control import Control
from ...numerics import tie_tolerance
from .. import cuts
from ..ordering import Climb
from .branch_and_cut import Run
from .outcome import describe_gap

_ACTIVE = ("LOOSE", "COLUMN")
"""Statuses of variables a solution may set (not fixed or aggregated by presolving)."""


class OptimisationRun(Run):
    """One optimisation: SCIP's incumbent is the best DAG, improved by :meth:`heuristic`.

    Parameters
    ----------
    problem : Problem
    control : Control
    order_candidates : bnexplore.search.ordering.Candidates, optional
        The same families for the ordering climb of the primal heuristic.
    """

    def __init__(self, problem, control, order_candidates=None):
        super().__init__(problem, control)
        self.order_candidates = order_candidates

    def incumbent(self):
        """SCIP's best score (None when it has no solution yet)."""
        value = -self.model.getPrimalbound()
        return value if self.model.getNSols() > 0 and abs(value) < 1e19 else None

    def progress(self, info):
        return "exact (ILP): " + describe_gap(info["score"], info["bound"])

    def prepare(self, seed):
        """Add the sink-finding heuristic, and the DAG of ``seed`` (chosen families) as SCIP's first solution."""
        model, problem = self.model, self.problem
        model.includeHeur(Sinks(self), "sinks", "sink finding on the LP solution", "K", priority=1000, freq=1,
                          timingmask=SCIP_HEURTIMING.AFTERLPNODE)
        seed = None if seed is None else problem.representable(seed)
        if seed is not None:
            sol = model.createSol()
            for var in problem.dag_variables(seed):
                model.setSolVal(sol, var, 1.0)
            model.addSol(sol)

    def accept(self, x, parents, infeasible):
        return SCIP_RESULT.FEASIBLE

    def conclude(self, out, started):
        """The best solution's DAG and score."""
        model, c = self.model, self.cands
        if started and model.getNSols() > 0:
            best = model.getBestSol()
            x = np.array([model.getSolVal(best, v) for v in self.problem.x])
            out.parents = cuts.chosen_parents(x, c.masks, c.offsets)
            out.score = float(c.scores[np.flatnonzero(x > 0.5)].sum())

    # -- the primal heuristic ------------------------------------------------------------
    def heuristic(self, heur):
        """Sink finding on the LP point, OBS parents, an ordering climb; hands a better DAG to SCIP."""
        t0 = search_clock()
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
            self.seconds["heuristic"] += search_clock() - t0

    def set_dag(self, sol, chosen):
        """Set a solution's family, arrow and adjacency variables to the DAG with these chosen families.

        Only active variables are set (presolving may have aggregated some; SCIP
        derives those)."""
        model = self.model
        for var in self.problem.dag_variables(chosen):
            t = model.getTransformedVar(var)
            if t.getStatus() in _ACTIVE:
                model.setSolVal(sol, t, 1.0)


class Sinks(Heur):
    """The sink-finding primal heuristic on the LP solution (see :meth:`OptimisationRun.heuristic`)."""

    def __init__(self, run):
        self.run = run

    def heurexec(self, heurtiming, nodeinfeasible):
        if self.run.tx is None or self.model.getLPSolstat() != SCIP_LPSOLSTAT.OPTIMAL:
            return {"result": SCIP_RESULT.DIDNOTRUN}
        return {"result": self.run.heuristic(self)}
