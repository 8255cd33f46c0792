"""Branch and cut on SCIP, shared by the optimisation and the enumeration.

The integer programme (:class:`bnexplore.search.ilp.model.Problem`) keeps
acyclicity out of its rows: a constraint handler (:class:`Acyclicity`) adds
the *cluster constraints* (Bartlett & Cussens 2017, AIJ 244, Section 3.1)
and their *k-cluster* generalisation (Jaakkola et al. 2010, Section 3.1) as
cutting planes, separated from the LP solution by the kernels of
:mod:`bnexplore.search.cuts`, and when none is violated the *4B
inequalities* (Cussens, Jaervisalo, Korhonen & Bartlett 2017, JAIR 58); it
checks every integer solution exactly (a cycle found is cut off). A
:class:`Run` is what these plugins share in one solve; the optimisation's
(:class:`bnexplore.search.ilp.optimisation.OptimisationRun`) and the
enumeration's (:class:`bnexplore.search.ilp.enumeration.EnumerationRun`)
add what only they do. :func:`solve` runs one.

Imports PySCIPOpt (the plugins subclass its classes): loaded only where a
search runs (:mod:`bnexplore.search.ilp.search`).
"""

import json
import math
import os
import tempfile

import numpy as np
from pyscipopt import SCIP_EVENTTYPE, SCIP_PARAMSETTING, SCIP_RESULT, Conshdlr, Eventhdlr, Variable

from .. import cuts
from ...compiling import search_clock
from .families import KnownCuts, cluster_row, four_b_row
from .outcome import Outcome, gap

MIN_VIOLATION = 1e-4
"""Least violation ``1 - g(C)`` of a cluster cut worth adding."""


TAUS = np.array([1e-6, 0.05, 0.15, 0.3, 0.5])
"""Thresholds of the peeling separator (:func:`bnexplore.search.cuts.separate`)."""


EXACT_BUDGET = 1_000_000
"""Search nodes of the exact cluster search per strongly connected component and k."""


KMAX = 2
"""Largest k of the k-cluster constraints separated."""


MAX_CUTS = 64
"""Cluster (or 4B) cuts added per separation round."""


FOUR_B_VIOLATION = 1e-3
"""Least violation of a 4B cut worth adding (:func:`bnexplore.search.cuts.separate_four_b`)."""


TRAJECTORY_INTERVAL = 0.05
"""Seconds between two trajectory points that only record a lower bound (incumbents are all recorded)."""


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
several-fold. Strong branching is as cheap as in :data:`OPTIMUM_SETTINGS`: where node LPs are slow,
SCIP's default strong branching takes most of the time and the tree hardly moves."""


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
candidates, and a look-ahead of 4 (SCIP's default spends about half of a proof in strong branching and
needs more nodes, not fewer). SCIP's own primal heuristics are off too (:func:`configure`): its diving
heuristics cost a large share of the time, and the incumbents come from the ASOBS seed and the sink
heuristic."""


class Run:
    """What the plugins of one solve share: the problem, the control, counters, the trajectory.

    The base of :class:`~bnexplore.search.ilp.optimisation.OptimisationRun`
    and :class:`~bnexplore.search.ilp.enumeration.EnumerationRun`: the cuts
    and the check of integer points are the same for both; what an integer
    DAG means (:meth:`accept`), what the incumbent is, what progress says and
    how a search starts and ends differ.

    Parameters
    ----------
    problem : Problem
    control : Control
    """

    enumerating = False
    """True for an enumeration: SCIP is never handed a solution, every DAG is recorded and branched away."""

    def __init__(self, problem, control):
        self.problem = problem
        self.model = problem.model
        self.cands = problem.cands
        self.control = control
        self.tx = None
        self.start = search_clock()
        self.trajectory = []
        self.counts = {"cluster_cuts": 0, "four_b_cuts": 0, "separation_rounds": 0, "cycles_cut": 0,
                       "heuristic_calls": 0, "heuristic_improved": 0, "dags_recorded": 0, "enumeration_branches": 0,
                       "objective_limit_raised": 0, "known_cuts": 0, "explored": 0}
        self.seconds = {"separation": 0.0, "heuristic": 0.0, "enforcement": 0.0, "exploration": 0.0}
        self.stopped = False
        self.clusters_added = []  # (cluster, k) of every cluster cut, and (a, b, c, d) of every 4B cut
        self.four_b_added = []

    # -- what the two searches do differently -----------------------------
    def incumbent(self):
        """Best score found (None when there is none yet)."""
        raise NotImplementedError

    def progress(self, info):
        """The progress message of :meth:`tick` (``info`` may gain keys)."""
        raise NotImplementedError

    def prepare(self, seed):
        """Before SCIP starts: plugins of this search only, and the starting DAG ``seed`` (chosen families)."""
        raise NotImplementedError

    def accept(self, x, parents, infeasible):
        """A SCIP result for the integral DAG ``x`` (its ``parents``), acyclic; ``infeasible``: SCIP's own
        constraints reject the point."""
        raise NotImplementedError

    def conclude(self, out, started):
        """Fill ``out`` (:class:`Outcome`): the best DAG and its score."""
        raise NotImplementedError

    def below_threshold(self, cost_bound):
        """True when a node whose cost bound is ``cost_bound`` holds nothing this search wants."""
        return False

    # -- values -----------------------------------------------------------
    def transform(self):
        """Map the family variables to the transformed problem (once solving starts)."""
        model = self.model
        self.tx = [model.getTransformedVar(v) for v in self.problem.x]

    def lp_values(self):
        """The family variables' LP values (map over the unbound method: much faster than a generator)."""
        return np.fromiter(map(Variable.getLPSol, self.tx), np.float64, len(self.tx))

    def sol_values(self, sol):
        """The family variables' values in ``sol`` (None: the current pseudo solution)."""
        model = self.model
        return np.fromiter((model.getSolVal(sol, v) for v in self.tx), np.float64, len(self.tx))

    # -- bounds and progress ------------------------------------------------
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
        now = search_clock() - self.start
        new_score = last is None or score != last["score"]
        new_bound = bound is not None and (last is None or last["bound"] is None or bound < last["bound"] - 1e-9)
        if new_score or (new_bound and now - last["seconds"] >= TRAJECTORY_INTERVAL):
            self.trajectory.append({"step": len(self.trajectory) + 1, "op": "incumbent" if new_score else "bound",
                                    "args": [], "delta": None if last is None or score is None
                                    or last["score"] is None else score - last["score"],
                                    "score": score, "bound": bound, "gap": gap(score, bound), "seconds": now,
                                    "nodes": self.model.getNNodes()})
        info = {"score": score, "bound": bound, "gap": gap(score, bound), "nodes": self.model.getNNodes()}
        message = self.progress(info)
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
        t0 = search_clock()
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
        if result == SCIP_RESULT.DIDNOTFIND and not self.enumerating:  # no gain when enumerating
            quads, _ = cuts.separate_four_b(x, c.masks, c.offsets, FOUR_B_VIOLATION, MAX_CUTS)
            for a, b, cc, d in quads.tolist():
                result = SCIP_RESULT.SEPARATED
                self.counts["four_b_cuts"] += 1
                self.four_b_added.append((a, b, cc, d))
                if self.add_row("4B", *four_b_row(c, a, b, cc, d)):
                    result = SCIP_RESULT.CUTOFF
                    break
        self.seconds["separation"] += search_clock() - t0
        return result

    # -- integer points -------------------------------------------------------------
    def enforce(self, x, solinfeasible):
        """Enforce acyclicity at an integral point: cut cycles, else :meth:`accept` the DAG.

        The handler enforces after SCIP's integrality handler (which branches
        on fractional points), so ``x`` is integral up to SCIP's tolerance."""
        t0 = search_clock()
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
            return self.accept(x, parents, solinfeasible)
        finally:
            self.seconds["enforcement"] += search_clock() - t0


class Acyclicity(Conshdlr):
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
        if run.enumerating:  # an enumeration hands no solution to SCIP
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
        if run.below_threshold(self.model.getCurrentNode().getLowerbound()):
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
        return {"result": run.accept(x, parents, solinfeasible or objinfeasible)}


class Monitor(Eventhdlr):
    """Checks the stop flag, reports progress and records the trajectory after every node."""

    def __init__(self, run):
        self.run = run

    def eventinit(self):
        self.model.catchEvent(SCIP_EVENTTYPE.NODESOLVED | SCIP_EVENTTYPE.BESTSOLFOUND, self)

    def eventexit(self):
        self.model.dropEvent(SCIP_EVENTTYPE.NODESOLVED | SCIP_EVENTTYPE.BESTSOLFOUND, self)

    def eventexec(self, event):
        self.run.tick()


def configure(model, enumeration, time_limit):
    """Set SCIP's parameters for an optimisation or an enumeration, and its wall-clock backstop."""
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


def solve(run, seed=None, scip_time_limit=None, statistics=False):
    """Run branch and cut for ``run`` (an optimisation's or an enumeration's); returns an :class:`Outcome`.

    Parameters
    ----------
    run : Run
        Its :class:`~bnexplore.control.Control` is checked after every node
        and separation round; a stop interrupts SCIP.
    seed : int array, optional
        Chosen family of every node of a starting DAG: the optimisation's
        incumbent, or where an enumeration under the covered-arc constraints
        starts exploring.
    scip_time_limit : float, optional
        Wall-clock backstop for SCIP (the Control's limit is the one that
        counts; it is checked in the callbacks).
    statistics : bool
        Add SCIP's own time breakdown (LP, separation, branching) to the stats.
    """
    problem, control = run.problem, run.control
    model = problem.model
    enumeration = run.enumerating
    configure(model, enumeration, scip_time_limit)
    handler = Acyclicity(run)
    model.includeConshdlr(handler, "acyclic", "cluster constraints of acyclicity", sepapriority=100000,
                          enfopriority=-2000000, chckpriority=-2000000, sepafreq=1,
                          propfreq=1 if enumeration else -1, eagerfreq=100, needscons=True)
    model.addPyCons(model.createCons(handler, "acyclic"))
    model.includeEventhdlr(Monitor(run), "monitor", "stop flag, progress and trajectory")
    run.prepare(seed)
    t0 = search_clock()
    started = not control.should_stop()
    if started:
        model.optimize()
    else:
        run.stopped = True
    out = Outcome()
    out.status = model.getStatus() if started else "not started"
    out.collector = None
    out.cuts = KnownCuts(run.clusters_added, run.four_b_added)
    out.trajectory = run.trajectory
    out.stopped = run.stopped
    out.parents = None
    out.score = None
    out.bound = None
    run.conclude(out, started)
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
                           "seconds": search_clock() - run.start, "nodes": nodes})
    out.stats = {"status": out.status, "nodes": nodes, "lp_iterations": model.getNLPIterations() if started else 0,
                 "seconds_scip": search_clock() - t0, "variables": len(problem.x),
                 "arrow_variables": len(problem.arrows), "set_packing_rows": problem.n_triples,
                 "covered_arc_rows": problem.n_covered,
                 **run.counts, **{f"seconds_{k}": v for k, v in run.seconds.items()}}
    if statistics and started:
        out.stats["scip"] = scip_statistics(model)
    return out


def scip_statistics(model):
    """SCIP's own time breakdown: seconds in presolving, LP solving, separation, branching, heuristics."""
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        model.writeStatisticsJson(path)
        with open(path) as f:
            return json.load(f)
    finally:
        os.unlink(path)
