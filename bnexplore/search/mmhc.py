"""MMHC, the max-min hill-climbing search: MMPC's skeleton, then hill climbing or tabu search on it.

Tsamardinos, Brown & Aliferis (2006), "The max-min hill-climbing Bayesian
network structure learning algorithm", Machine Learning 65, 31-78. Section 3
finds each variable's candidate parents and children with conditional
independence tests (MMPC, Algorithms 1 and 2); Section 4 climbs the score over
the DAGs whose arcs all lie on the skeleton those candidates make. The climb is
this package's own :func:`~bnexplore.search.hillclimb.hill_climb` (or
:func:`~bnexplore.search.hillclimb.tabu_search`) with every arc off the
skeleton blacklisted, so MMHC's moves are exactly those searches' moves.
"""

import itertools

import numpy as np

from ..compiling import search_clock
from ..control import Control
from ..errors import SearchError, subject
from ..independence import independence_test
from ..options import positive_number, seed_number, whole_number
from ..scores.scorer import check_scorer
from .hillclimb import hill_climb, tabu_search
from .registry import CLIMBS

__all__ = ["mmhc", "mmpc"]

CLIMBERS = {"hc": hill_climb, "tabu": tabu_search}
"""The score search run on the skeleton, by its name in :data:`~bnexplore.search.registry.CLIMBS`."""


class _Stopped(Exception):
    """The control said stop before an independence test (unwinds one target's MMPC)."""


class CachedTest:
    """An independence test whose answers are kept, asked through the key MMPC ranks by.

    MMPC asks the same question many times: (x, y | z) for target x is
    (y, x | z) for target y, and the backward phase repeats the forward
    phase's subsets. Each distinct question runs the test once.

    Parameters
    ----------
    test : callable
        ``test(x, y, z) -> (p_value, statistic, dof)`` (an
        :class:`bnexplore.independence.IndependenceTest` or any object of
        that protocol).
    control : Control
        Checked before every test that is run (not before cached answers).

    Attributes
    ----------
    calls : int
        Tests run.
    hits : int
        Questions answered from the cache.
    """

    def __init__(self, test, control):
        self.test = test
        self.control = control
        self.cache = {}
        self.calls = 0
        self.hits = 0

    def __call__(self, x, y, z):
        """The key ``(p_value, -statistic)`` of ``x`` against ``y`` given the sorted tuple ``z``.

        Smaller keys are stronger associations (see :func:`mmpc`).
        """
        key = (x, y, z) if x < y else (y, x, z)
        found = self.cache.get(key)
        if found is not None:
            self.hits += 1
            return found
        if self.control.should_stop():
            raise _Stopped
        p_value, statistic, _ = self.test(x, y, z)
        found = self.cache[key] = (float(p_value), -float(statistic))
        self.calls += 1
        return found


def subsets_with(members, new, largest):
    """Sorted tuples: every subset of ``members`` holding ``new`` (all of them, ``()`` included, when
    ``new`` is None), of at most ``largest`` elements, smallest first."""
    others = sorted(m for m in members if m != new)
    if new is None:
        return [s for k in range(min(largest, len(others)) + 1) for s in itertools.combinations(others, k)]
    return [tuple(sorted((*s, new))) for k in range(min(largest, len(others) + 1))
            for s in itertools.combinations(others, k)]


def mmpc_bar(test, target, candidates, alpha, required=(), max_condition=None):
    """MMPC-bar (Algorithm 1 of Tsamardinos et al. 2006): the candidate parents and children of ``target``.

    Forward phase: add to CPC, one at a time, the candidate whose minimum
    association with the target over the subsets of CPC is largest (the
    max-min heuristic, Section 3); a candidate found independent of the
    target given some subset is dropped for good (a variable separated from
    the target by some set is not adjacent to it, so it cannot be a parent or
    child). Each time a variable joins CPC only the subsets
    holding it are new, so each candidate's minimum is updated with those
    alone. Backward phase: remove each member independent of the target
    given some subset of the other members.

    Parameters
    ----------
    test : CachedTest
    target : int
    candidates : iterable of int
        The variables that may enter CPC.
    alpha : float
        Independent means ``p_value > alpha``.
    required : iterable of int
        Members from the start, never tested out (the neighbours a required
        arc gives the target).
    max_condition : int, optional
        Largest subset tested (None: no limit).

    Returns
    -------
    list of int
        CPC in the order its members joined.
    """
    largest = np.inf if max_condition is None else max_condition
    cpc = []
    weakest = {x: (-np.inf, -np.inf) for x in candidates}  # the largest key (weakest association) so far

    def join(new):
        if new is not None:
            cpc.append(new)
            weakest.pop(new, None)
        subsets = subsets_with(cpc, new, largest)
        for x in list(weakest):
            for z in subsets:
                key = test(target, x, z)
                if key[0] > alpha:
                    del weakest[x]
                    break
                if key > weakest[x]:
                    weakest[x] = key

    join(None)
    for x in required:
        join(x)
    while weakest:
        join(min(weakest, key=lambda x: (weakest[x], x)))  # ties (e.g. p-values 0) to the lower index
    fixed = set(required)
    for x in list(cpc):
        if x in fixed:
            continue
        rest = [c for c in cpc if c != x]
        if any(test(target, x, z)[0] > alpha for z in subsets_with(rest, None, largest)):
            cpc.remove(x)
    return cpc


def mmpc(test, n_vars, alpha, max_condition=None, allowed=None, required=None, on_target=None):
    """MMPC with the symmetry correction (Algorithm 2 of Tsamardinos et al. 2006): the skeleton.

    Runs :func:`mmpc_bar` for every variable; ``x — y`` is an edge when
    ``y`` is in CPC(x) and ``x`` in CPC(y). The association the max-min
    heuristic ranks by is the test's p-value, smaller meaning stronger, as in
    the paper (Section 3): unlike the statistic, the p-value is comparable
    across pairs of variables whose tests have different degrees of freedom;
    on large samples strong associations' p-values underflow to 0 and tie,
    and the larger statistic breaks the tie, then the lower column index.

    Parameters
    ----------
    test : callable
        ``test(x, y, z) -> (p_value, statistic, dof)``; wrapped in a
        :class:`CachedTest` unless it is one.
    n_vars : int
    alpha : float
    max_condition : int, optional
    allowed : bool array (n_vars, n_vars), optional
        Pairs that may be adjacent (symmetric; default all): the others are
        never tested and never enter a CPC.
    required : bool array (n_vars, n_vars), optional
        Pairs that are adjacent whatever the tests say (symmetric): each is
        in both CPCs from the start.
    on_target : callable, optional
        ``on_target(t, cpc)`` after each target's MMPC-bar.

    Returns
    -------
    edges : list of (int, int)
        The skeleton, ``x < y``, sorted.
    dropped : list of (int, int)
        ``(x, y)`` with y in CPC(x) but x not in CPC(y).
    cpcs : dict of int to list of int
        MMPC-bar of every target reached (all unless the control stopped it).

    Examples
    --------
    A d-separation oracle on the chain a -> b -> c: a and c are independent given b.

    >>> def chain(x, y, z):
    ...     return (1.0 if {x, y} == {0, 2} and 1 in z else 0.0), 0.0, 0
    >>> edges, dropped, cpcs = mmpc(chain, 3, alpha=0.05)
    >>> edges, cpcs
    ([(0, 1), (1, 2)], {0: [1], 1: [0, 2], 2: [1]})
    """
    if not isinstance(test, CachedTest):
        test = CachedTest(test, Control())
    everything = np.ones((n_vars, n_vars), np.bool_)
    allowed = everything if allowed is None else np.asarray(allowed, np.bool_)
    required = ~everything if required is None else np.asarray(required, np.bool_)
    cpcs = {}
    for t in range(n_vars):
        try:
            cpc = mmpc_bar(test, t, [x for x in range(n_vars) if x != t and allowed[t, x] and not required[t, x]],
                           alpha, [int(x) for x in np.flatnonzero(required[t])], max_condition)
        except _Stopped:
            break
        cpcs[t] = cpc
        if on_target is not None:
            on_target(t, cpc)
    member = {(t, x) for t, cpc in cpcs.items() for x in cpc}
    member |= {(int(x), int(y)) for x, y in np.argwhere(required)}  # a stop may leave their targets unreached
    edges = sorted((x, y) for x, y in member if x < y and (y, x) in member)
    dropped = sorted((x, y) for x, y in member if (y, x) not in member and y in cpcs)
    return edges, dropped, cpcs


def mmhc(scorer, test="g2", alpha=0.05, max_condition=None, climb="hc", permutations=500, seed=None,
         max_indegree=None, knowledge=None, progress=None, time_limit=None, stop=None, control=None):
    """Max-min hill climbing (Tsamardinos, Brown & Aliferis 2006, Section 4, Algorithm 3).

    First the skeleton: MMPC (Section 3, Algorithms 1 and 2, see
    :func:`mmpc`) finds each variable's candidate parents and children with
    conditional independence tests, and keeps ``x — y`` when each is in the
    other's set. Then the score: :func:`~bnexplore.search.hillclimb.hill_climb`
    (``climb="hc"``, the paper's choice) or
    :func:`~bnexplore.search.hillclimb.tabu_search` from the empty graph,
    with every arc off the skeleton blacklisted, so it adds, deletes and
    reverses arcs along the skeleton only.

    Background knowledge: a pair the knowledge keeps apart (a forbidden edge,
    or both arcs forbidden) is never tested and never in a CPC; a pair a
    required arc joins is in both CPCs from the start, never tested out, so
    it is on the skeleton whatever the tests say (as pcalg's fixed edges);
    the climb then honours the rest (directions, tiers, the required arcs).

    Parameters
    ----------
    scorer : Scorer
    test : {"g2", "chi2", "mi-perm"} or test object
        The conditional independence test
        (:class:`bnexplore.independence.IndependenceTest` built on
        ``scorer.data``), or any object with ``names``, ``n_vars`` and
        ``__call__(x, y, z) -> (p_value, statistic, dof)``.
    alpha : float
        Significance level: independent means ``p_value > alpha``.
    max_condition : int, optional
        Largest conditioning set tested (None: no limit). Without a bound a
        variable whose CPC holds ``k`` members costs up to ``2^(k-1)`` tests
        per member, so data from a network with a hub (a variable with dozens
        of neighbours) needs one, such as 3.
    climb : {"hc", "tabu"}
    permutations : int
        Permutations of the "mi-perm" test.
    seed : int, optional
        Seed of the permutation test.
    max_indegree : int, optional
        Passed to the climb.
    knowledge : Knowledge, optional
    progress, time_limit, stop, control
        One :class:`bnexplore.control.Control` for both phases: the time
        limit covers both; progress says "mmhc: skeleton, 12 of 37
        variables" per target, then the climb's own reports. A stop during
        the skeleton keeps the targets finished (their edges form the
        skeleton) and the climb, asked to stop too, returns its start: the
        empty graph, or the required arcs; ``stats["stopped"]`` says so.

    Returns
    -------
    Result
        ``algorithm`` "mmhc"; ``params`` the tests' settings and the climb's;
        ``stats`` the climb's (``seconds`` covers both phases) with ``tests``
        (independence tests run), ``tests_cached`` (questions asked again)
        and ``skeleton_edges``; ``extra["skeleton"]`` the edges
        ``[[x, y], ...]``; ``trajectory`` one ``"mmpc"`` step per target
        (its CPC), one ``"skeleton"`` step (edges, and the pairs the symmetry
        correction dropped), then the climb's steps.

    Examples
    --------
    >>> import numpy as np
    >>> from bnexplore.data import Dataset
    >>> from bnexplore.scores import Scorer
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 2000)
    >>> b = (a + (rng.random(2000) < 0.1)) % 2           # b copies a, with 10% noise
    >>> c = (b + (rng.random(2000) < 0.1)) % 2           # c copies b
    >>> data = Dataset.from_codes(np.column_stack([a, b, c]), names=["a", "b", "c"])
    >>> result = mmhc(Scorer(data, "bic"))
    >>> result.extra["skeleton"]                         # a and c are independent given b
    [['a', 'b'], ['b', 'c']]
    >>> [step["op"] for step in result.trajectory][:4]
    ['mmpc', 'mmpc', 'mmpc', 'skeleton']
    """
    check_scorer(scorer, "mmhc")
    control = Control.of(control, progress, time_limit, stop)
    started = search_clock()
    if climb not in CLIMBS:
        raise SearchError(f"{subject('climb')} must be one of {', '.join(CLIMBS)}, got {climb!r}")
    alpha = positive_number(alpha, "alpha", high=1.0)
    max_condition = None if max_condition is None else whole_number(max_condition, "max_condition", 0)
    permutations = whole_number(permutations, "permutations", 1)
    seed = seed_number(seed)
    if max_indegree is not None:  # checked here too, not only by the climb after the tests
        max_indegree = whole_number(max_indegree, "max_indegree", 0)
    n, names = scorer.n_vars, scorer.names
    bound = knowledge.bind(scorer, max_indegree) if knowledge else None
    allowed = None if bound is None else bound.allowed | bound.allowed.T
    required = None if bound is None else bound.required | bound.required.T
    cached = CachedTest(independence_test(test, scorer.data, alpha, permutations, seed), control)
    trajectory = []

    def on_target(t, cpc):
        trajectory.append({"step": len(trajectory) + 1, "op": "mmpc", "args": [names[t]],
                           "cpc": [names[x] for x in cpc], "seconds": search_clock() - started})
        control.report(done=(t + 1) / n, message=f"mmhc: skeleton, {t + 1} of {n} variables")

    edges, dropped, _ = mmpc(cached, n, alpha, max_condition, allowed, required, on_target)
    skeleton = [[names[x], names[y]] for x, y in edges]
    trajectory.append({"step": len(trajectory) + 1, "op": "skeleton", "args": [], "edges": skeleton,
                       "dropped": [[names[x], names[y]] for x, y in dropped],
                       "seconds": search_clock() - started})
    on = np.eye(n, dtype=np.bool_)
    for x, y in edges:
        on[x, y] = on[y, x] = True
    result = CLIMBERS[climb](scorer, max_indegree=max_indegree, blacklist=np.argwhere(~on).tolist(),
                             knowledge=knowledge, control=control)
    skeleton_seconds = trajectory[-1]["seconds"]
    for step in result.trajectory:
        trajectory.append({**step, "step": len(trajectory) + 1, "seconds": step["seconds"] + skeleton_seconds})
    result.algorithm = "mmhc"
    result.params = {**result.params, "test": getattr(cached.test, "test", type(cached.test).__name__),
                     "alpha": alpha, "max_condition": max_condition, "climb": climb,
                     "permutations": permutations, "seed": seed}
    result.stats.update(seconds=search_clock() - started, tests=cached.calls, tests_cached=cached.hits,
                        skeleton_edges=len(edges), stopped=control.reason)
    result.trajectory = trajectory
    result.extra = {**result.extra, "skeleton": skeleton}
    control.finish(message="mmhc: done", score=result.score)
    return result
