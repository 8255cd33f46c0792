"""Anytime exploration of the candidate parent sets of each variable.

Scanagatta, de Campos, Corani & Zaffalon, "Learning Bayesian Networks with
Thousands of Variables", NIPS 2015, Section 3: three explorers that score
parent sets of one variable, best candidates first, until a budget runs out:

- ``"sequential"``: every set of size 1, then of size 2, ... (lexicographic);
- ``"greedy"`` (greedy selection): pop the best-scoring set found so far and
  score all its one-variable extensions;
- ``"independence"`` (independence selection, Section 3.2): an open list of
  unscored sets ordered by the constant-time estimate BIC* (Eq. 1).

Budgets are per variable: a number of scored parent sets (deterministic, the
same on every machine) and / or seconds. Every explorer drops sets that
provably cannot be optimal (de Campos, Zeng & Ji 2009; de Campos & Ji 2011,
Theorem 4: with BIC a set is beaten by a subset ``S`` when ``s(S) +
log(N)/2 (|X| - 1) |Pi| > 0``, and so are all its supersets) and, at the end,
every set that scores no better than one of its scored subsets. The bounds
need a penalised log-likelihood (``"bic"``, ``"aic"``, ``"ll"``); with
``"bdeu"`` and ``"k2"`` they are off and BIC* is only a heuristic priority.

With background knowledge (:class:`bnexplore.knowledge.Knowledge`) a
variable's exploration starts from its required parents instead of the empty
set and adds only allowed parents: the explorers run over the sets ``X`` of
allowed, not required parents and score ``R ∪ X`` (``R`` the required ones),
so every set found honours the knowledge and each is compared only with
subsets that do. The bounds hold there with the penalty of ``R ∪ X``; the
Theorem 2 estimate (a split into two disjoint scored sets) is not used.
"""

import heapq
import math
from dataclasses import dataclass

import numpy as np

from ..collector import old_objects_skipped
from ..compiling import search_clock
from ..control import Control
from ..errors import SearchError
from ..scores import pack_parent_sets, penalty_weight
from .candidates import ParentSets, pack_items

METHODS = ("independence", "greedy", "sequential")
"""Names of the explorers."""

POP_BATCH = 16
"""Sets independence selection pops from its open list per scoring call.

The paper pops one at a time; scoring a few at once amortises the cost of a
kernel call. A constant, so results do not depend on the machine."""

def score_weight(scorer):
    """Weight ``w`` of the penalty ``w (|X| - 1) |Pi|`` of the scorer's score
    (:func:`bnexplore.scores.penalty_weight`): ``log(N) / 2`` for BIC, 1 for AIC,
    0 for the log-likelihood; None for BDeu and K2, which have no such form (the
    bounds are then switched off)."""
    return penalty_weight(scorer.score_name, scorer.n_rows)


def interaction(scorer, child, q1, q2, empty_score):
    """``inter(X, P1, P2)`` of Eq. (1), Scanagatta et al. (2015), Section 3.1.

    ``inter(X, P1, P2) = log(N)/2 (|X| - 1) (|P1| + |P2| - |P1| |P2| - 1) - BIC(X, {})``

    where ``|.|`` is the number of joint states (product of arities), so
    ``|P1| + |P2| - |P1| |P2| - 1 = -(|P1| - 1)(|P2| - 1)``. With this sign
    Theorem 1 holds exactly: ``BIC(X, P1 u P2) = BIC*(X, P1, P2) + N
    ii(P1; P2; X)``. For AIC and LL ``log(N)/2`` becomes their penalty weight
    (:func:`score_weight`); BDeu and K2 use ``log(N)/2`` as a heuristic.

    Parameters
    ----------
    scorer : Scorer
    child : int
    q1, q2 : float or ndarray
        ``|P1|`` and ``|P2|``.
    empty_score : float
        ``s(X, {})``.
    """
    return _interaction(_star_weight(scorer), int(scorer.arities[child]), q1, q2, empty_score)


def _star_weight(scorer):
    weight = score_weight(scorer)
    return math.log(scorer.n_rows) / 2 if weight is None else weight


def _interaction(weight, child_arity, q1, q2, empty_score):
    return weight * (child_arity - 1) * (q1 + q2 - q1 * q2 - 1) - empty_score


def bic_star(scorer, child, parents1, parents2):
    """``BIC*(X, P1, P2) = BIC(X, P1) + BIC(X, P2) + inter(X, P1, P2)`` (Eq. 1).

    Parameters
    ----------
    scorer : Scorer
    child : int or str
    parents1, parents2 : sequences
        Disjoint, non-empty parent sets.
    """
    child, p1 = scorer.family(child, parents1)
    _, p2 = scorer.family(child, parents2)
    if not p1 or not p2 or set(p1) & set(p2):
        raise SearchError(f"BIC* needs two disjoint non-empty parent sets, got {list(p1)} and {list(p2)}")
    q1, q2 = _configs(scorer.arities, p1), _configs(scorer.arities, p2)
    return scorer.local(child, p1) + scorer.local(child, p2) + interaction(scorer, child, q1, q2,
                                                                             scorer.local(child, ()))


def bic_star_bound(scorer, child, parents1, parents2):
    """``N min{H(X), H(P1), H(P2)}``, which bounds ``|BIC - BIC*|`` (Corollary 1)."""
    entropies = [scorer.entropy([child]), scorer.entropy(parents1), scorer.entropy(parents2)]
    return scorer.n_rows * min(entropies)


def _configs(arities, parents):
    """Number of joint states of a parent set (as a float)."""
    return float(math.prod(int(arities[p]) for p in parents))


def _immediate_subsets(parents):
    return [parents[:i] + parents[i + 1:] for i in range(len(parents))]


def _added(parents, y):
    return tuple(sorted(parents + (y,)))


@dataclass(frozen=True)
class ExploreSettings:
    """Validated settings of an exploration (shipped as is to Dask workers)."""

    method: str = "independence"
    max_indegree: int = None
    time_per_variable: float = None
    max_evaluations: int = None

    def __post_init__(self):
        if self.method not in METHODS:
            raise SearchError(f"unknown parent-set explorer {self.method!r}: choose one of {', '.join(METHODS)}")
        if self.max_indegree is not None and (int(self.max_indegree) != self.max_indegree or self.max_indegree < 0):
            raise SearchError(f"max_indegree must be a whole number >= 0, got {self.max_indegree!r}")
        if self.time_per_variable is not None and not self.time_per_variable > 0:
            raise SearchError(f"time_per_variable must be a positive number of seconds, got {self.time_per_variable!r}")
        if self.max_evaluations is not None and (int(self.max_evaluations) != self.max_evaluations
                                                 or self.max_evaluations < 1):
            raise SearchError(f"max_evaluations must be a whole number >= 1, got {self.max_evaluations!r}")

    def size_limit(self, n_vars):
        """Largest parent set explored."""
        return n_vars - 1 if self.max_indegree is None else min(int(self.max_indegree), n_vars - 1)


class _Family:
    """Exploration state of one variable: scored sets, pruned sets, budget.

    ``floor[S]`` is the best score among the scored subsets of a scored set
    ``S`` found so far (itself included): a lower bound on what any superset
    of ``S`` must beat.
    """

    def __init__(self, scorer, child, settings, control, entropies, required=()):
        self.scorer = scorer
        self.child = child
        self.required = tuple(sorted(int(u) for u in required))
        self.arities = scorer.arities.tolist()
        self.weight = score_weight(scorer)
        self.star_weight = _star_weight(scorer)
        self.control = control
        self.entropies = entropies
        self.budget = math.inf if settings.max_evaluations is None else int(settings.max_evaluations)
        self.start = control.clock()
        self.deadline = math.inf if settings.time_per_variable is None else self.start + settings.time_per_variable
        self.scores = {}
        self.floor = {}
        self.dead = set()
        self.evaluated = 0
        self.pruned = 0
        self.empty = self.score([()])[0][1]

    # -- budget ---------------------------------------------------------------
    def room(self):
        return self.budget - self.evaluated

    def stopped(self):
        return self.room() <= 0 or self.control.clock() >= self.deadline or self.control.should_stop()

    def seen(self, parents):
        return parents in self.scores or parents in self.dead

    # -- scores and bounds ------------------------------------------------------
    def score(self, sets):
        """Score ``sets`` (as many as the budget allows); return ``[(set, score)]``."""
        room = self.room()
        if room < len(sets):
            sets = sets[: int(room)]
        if not sets:
            return []
        parents, sizes = pack_parent_sets([self.full(c) for c in sets])
        values = self.scorer.score_packed(np.full(len(sets), self.child, np.int64), parents, sizes).tolist()
        for c, s in zip(sets, values):
            self.scores[c] = s
            below = [self.floor[sub] for sub in _immediate_subsets(c) if sub in self.floor]
            self.floor[c] = max([s, self.floor.get((), s)] + below)
        self.evaluated += len(sets)
        return list(zip(sets, values))

    def full(self, parents):
        """The parent set itself: ``parents`` (not required ones) with the required parents."""
        return tuple(sorted(self.required + parents)) if self.required else parents

    def configs(self, parents):
        """Joint states of the full parent set (see :meth:`full`)."""
        return _configs(self.arities, self.full(parents))

    def penalty(self, parents):
        return self.weight * (self.arities[self.child] - 1) * self.configs(parents)

    def alive(self, parents, estimates=False):
        """False when ``parents`` provably cannot be an optimal parent set.

        A superset of a pruned set is pruned. With a penalised score, the set
        is pruned when ``L + w (|X| - 1) |Pi| > 0`` for a lower bound ``L`` on
        the score of one of its subsets (de Campos & Ji 2011, Theorem 4): the
        exact floor of a scored immediate subset, or, with ``estimates``, the
        BIC* estimate of an unscored one minus its Corollary 1 error bound
        (Scanagatta et al. 2015, Theorem 2).
        """
        subsets = _immediate_subsets(parents)
        if any(sub in self.dead for sub in subsets):
            return self._prune(parents)
        if self.weight is None:
            return True
        bound = self.floor[()]
        for sub in subsets:
            if sub in self.floor:
                bound = max(bound, self.floor[sub])
            elif estimates:
                bound = max(bound, self._estimated_floor(sub))
        if bound + self.penalty(parents) > 0:
            return self._prune(parents)
        return True

    def _prune(self, parents):
        self.dead.add(parents)
        self.pruned += 1
        return False

    def estimate(self, score1, q1, score2, q2):
        """BIC* of the union of two scored, disjoint sets (Eq. 1)."""
        return score1 + score2 + _interaction(self.star_weight, self.arities[self.child], q1, q2, self.empty)

    def _estimated_floor(self, parents):
        """Lower bound on ``BIC(parents)`` from Corollary 1: ``BIC* - N min{H(X), H(P1), H(P2)}``
        over the splits ``P1 = parents - {y}`` (scored), ``P2 = {y}``.

        ``H(P1)`` is replaced by the upper bound ``min(log |P1|, sum of the
        marginal entropies)``, which keeps the bound valid without a pass
        over the data.
        """
        best = -math.inf
        if self.required:  # the scored sets hold the required parents: no split into two disjoint ones
            return best
        for y, rest in zip(parents, _immediate_subsets(parents)):
            if not rest or rest not in self.scores or (y,) not in self.scores:
                continue
            q_rest = _configs(self.arities, rest)
            h_rest = min(math.log(q_rest), sum(self.entropies[p] for p in rest))
            error = self.scorer.n_rows * min(self.entropies[self.child], h_rest, self.entropies[y])
            star = self.estimate(self.scores[rest], q_rest, self.scores[(y,)], self.arities[y])
            best = max(best, star - error)
        return best

    # -- result -----------------------------------------------------------------
    def kept(self):
        """Scored sets that beat every scored subset (the empty set, or the required
        parents, always kept), as full parent sets."""
        best_within = {}
        out = []
        for c in sorted(self.scores, key=len):
            s = self.scores[c]
            below = max([best_within[sub] for sub in _immediate_subsets(c) if sub in best_within]
                        + [self.empty if c else -math.inf])
            best_within[c] = max(s, below)
            if s > below:
                out.append((self.full(c), s))
        return out

    def stats(self, kept):
        return {"evaluated": self.evaluated, "kept": len(kept), "pruned": self.pruned,
                "seconds": self.control.clock() - self.start}


def _sequential(family, others, max_size):
    """All sets of size 1, then 2, ... in lexicographic order (the paper's
    "sequential ordering"). Sets of size ``s`` are the scored sets of size
    ``s - 1`` extended by a larger variable, so pruned branches are never
    enumerated."""
    level = [()]
    for _ in range(max_size):
        following = []
        for prefix in level:
            last = prefix[-1] if prefix else -1
            sets = [prefix + (y,) for y in others if y > last]
            following += [c for c, _ in family.score([c for c in sets if family.alive(c)])]
            if family.stopped():
                return
        level = following
        if not level:
            return


def _greedy(family, others, max_size):
    """Greedy selection (Section 3): pop the best-scoring set found so far,
    score all its one-variable extensions, push them."""
    heap = []

    def push(scored):
        for c, s in scored:
            if len(c) < max_size:
                heapq.heappush(heap, (-s, c))

    push(family.score([(y,) for y in others if family.alive((y,))]))
    while heap and not family.stopped():
        _, base = heapq.heappop(heap)
        extensions = [_added(base, y) for y in others if y not in base]
        push(family.score([c for c in extensions if not family.seen(c) and family.alive(c)]))


class _Streams:
    """The open list of independence selection, kept lazily.

    Every scored set ``P`` (below the size limit) opens streams of its
    extensions ``P + {Y}`` in decreasing BIC*(X, P, {Y}) order. Among the
    ``Y`` of one arity, BIC* differs only by ``BIC(X, {Y})``, so each set
    opens one stream per arity over the same shared list (the ``Y`` of that
    arity by decreasing singleton score), and arities the pruning bound rules
    out for ``P`` are not opened at all. A heap holds the head of every
    stream; popping the best head pops the best BIC* of the open list. A set
    reachable from several scored subsets is popped at the best of their
    estimates (the paper keeps the first one computed).
    """

    def __init__(self, family, singles):
        self.family = family
        self.heap = []
        self.opened = 0
        self.groups = {}
        for (y,), s in sorted(singles, key=lambda item: -item[1]):
            ys, scores = self.groups.setdefault(family.arities[y], ([], []))
            ys.append(y)
            scores.append(s)

    def open(self, base, score):
        family = self.family
        q = family.configs(base)
        max_arity = math.inf
        denominator = (family.weight or 0.0) * (family.arities[family.child] - 1) * q
        if denominator > 0:
            max_arity = -family.floor[base] / denominator
        for r, (ys, scores) in self.groups.items():
            if r <= max_arity:
                self.opened += 1
                self._push([base, score + family.estimate(0.0, q, 0.0, r), ys, scores, -1, self.opened])

    def _push(self, stream):
        base, _, ys, _, at, _ = stream
        at += 1
        while at < len(ys) and ys[at] in base:
            at += 1
        if at < len(ys):
            stream[4] = at
            heapq.heappush(self.heap, (-(stream[1] + stream[3][at]), stream[5], stream))

    def pop(self):
        """The next unseen candidate of the open list, or None when it is empty."""
        while self.heap:
            _, _, stream = heapq.heappop(self.heap)
            candidate = _added(stream[0], stream[2][stream[4]])
            self._push(stream)
            if not self.family.seen(candidate):
                return candidate
        return None


def _independence(family, others, max_size):
    """Independence selection (Section 3.2): score the singletons, then
    repeatedly score the open sets of best BIC* (``POP_BATCH`` at a time),
    opening the extensions of each newly scored set. Candidates are dropped
    by the bounds of :meth:`_Family.alive`, Theorem 2 included."""
    singles = family.score([(y,) for y in others if family.alive((y,))])
    streams = _Streams(family, singles)

    def open_extensions(scored):
        for c, s in scored:
            if len(c) < max_size:
                streams.open(c, s)

    open_extensions(singles)
    while streams.heap and not family.stopped():
        batch = {}
        while len(batch) < min(POP_BATCH, family.room()):
            candidate = streams.pop()
            if candidate is None:
                break
            if candidate not in batch and family.alive(candidate, estimates=True):
                batch[candidate] = None
        open_extensions(family.score(list(batch)))


_EXPLORERS = {"sequential": _sequential, "greedy": _greedy, "independence": _independence}


def explore_variable(scorer, child, settings, control, entropies=None, knowledge=None):
    """Candidate parent sets of one variable.

    Parameters
    ----------
    scorer : Scorer
    child : int
    settings : ExploreSettings
    control : Control
        Its stop flag and time limit end the exploration early.
    entropies : sequence of float, optional
        ``H(v)`` of every variable (see :func:`singleton_entropies`); needed
        by independence selection's Theorem 2 bound with a penalised score.
    knowledge : BoundKnowledge, optional
        Background knowledge bound to the scorer's variables
        (:meth:`bnexplore.knowledge.Knowledge.bind`): the exploration starts
        from ``child``'s required parents and adds only allowed ones.

    Returns
    -------
    items : list of (tuple, float)
        The kept parent sets and their scores, the empty set (or the
        required parents) included.
    stats : dict
        ``evaluated`` (sets scored), ``kept``, ``pruned``, ``seconds``.
    """
    if entropies is None and settings.method == "independence" and score_weight(scorer) is not None:
        entropies = singleton_entropies(scorer)
    required = () if knowledge is None else knowledge.required_parents(child).tolist()
    family = _Family(scorer, child, settings, control, entropies, required)
    if knowledge is None:
        others = [v for v in range(scorer.n_vars) if v != child]
    else:
        others = [v for v in knowledge.allowed_parents(child).tolist() if v not in required]
    max_size = settings.size_limit(scorer.n_vars) - len(required)
    if max_size > 0 and not family.stopped():
        _EXPLORERS[settings.method](family, others, max_size)
    kept = family.kept()
    return kept, family.stats(kept)


def singleton_entropies(scorer):
    """Empirical entropy ``H(v)`` of every variable, in nats (a list)."""
    return [scorer.entropy([v]) for v in range(scorer.n_vars)]


def check_budget(settings, control):
    """Refuse an exploration that no budget would ever end."""
    if (settings.max_indegree is None and settings.time_per_variable is None
            and settings.max_evaluations is None and control.time_limit is None):
        raise SearchError("parent-set exploration needs a budget: give max_indegree, time_per_variable, "
                          "max_evaluations or time_limit")


def variable_list(scorer, variables):
    """The variables to explore, as sorted distinct ints (all when None)."""
    if variables is None:
        return list(range(scorer.n_vars))
    return sorted({scorer.index(v) for v in variables})


def assemble(scorer, found, settings, control, seconds, knowledge=None):
    """A :class:`ParentSets` from ``{variable: (packed, stats)}`` (``packed``: its kept sets as
    :func:`~bnexplore.parents.candidates.pack_items` gives them, packed as each variable is done), taken out
    of ``found`` node by node as they are sorted (both copies of every set at once were the explorer's peak).

    Variables not in ``found`` (not asked for, or not reached before a stop)
    get the empty set only (with ``knowledge``, a BoundKnowledge: their
    required parents only).
    """
    missing = [v for v in range(scorer.n_vars) if v not in found]
    if missing:
        smallest = [tuple(knowledge.required_parents(v).tolist()) if knowledge is not None else ()
                    for v in missing]
        parents, sizes = pack_parent_sets(smallest)
        empty = scorer.score_packed(np.array(missing, np.int64), parents, sizes).tolist()
        for v, ps, s in zip(missing, smallest, empty):
            found[v] = (pack_items([(ps, s)]), None)
    per_node = {key: [found[v][1][key] if found[v][1] else 0 for v in range(scorer.n_vars)]
                for key in ("evaluated", "kept", "pruned", "seconds")}
    stats = {"method": settings.method, "max_indegree": settings.max_indegree,
             "time_per_variable": settings.time_per_variable, "max_evaluations": settings.max_evaluations,
             "explored": [found[v][1] is not None for v in range(scorer.n_vars)],
             "evaluated": int(sum(per_node["evaluated"])), "seconds": seconds, "stopped": control.reason,
             "per_node": per_node}
    if knowledge is not None:
        stats["knowledge"] = knowledge.knowledge.to_json()
    return ParentSets.of_packed(scorer.names, (found.pop(v)[0] for v in range(scorer.n_vars)), scorer.score_name,
                                stats)


def explore_parent_sets(scorer, method="independence", max_indegree=None, time_per_variable=None,
                        max_evaluations=None, variables=None, knowledge=None, progress=None, time_limit=None,
                        stop=None, control=None):
    """Candidate parent sets of every variable, found by an anytime explorer.

    Scanagatta et al. (2015), Section 3. Each variable is explored on its own
    (see :func:`bnexplore.distributed.explore_distributed` to spread them
    over Dask workers) until its budget runs out or every set up to
    ``max_indegree`` has been scored or pruned.

    Parameters
    ----------
    scorer : Scorer
    method : {"independence", "greedy", "sequential"}
    max_indegree : int, optional
        Largest parent set (default: no limit besides the pruning bounds).
    time_per_variable : float, optional
        Seconds per variable (results then depend on the machine's speed).
    max_evaluations : int, optional
        Parent sets scored per variable, the empty set included (results are
        then the same on every machine).
    variables : sequence of names or ints, optional
        Explore only these; the others get the empty set only.
    knowledge : Knowledge, optional
        Background knowledge (checked first): each variable's exploration
        starts from its required parents and adds only allowed ones, so every
        set found honours it (the smallest, the required parents, is always
        kept); ``stats["knowledge"]`` records it.
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`; reports carry
        ``variables_done``. A stop or the time limit ends the variable being
        explored and gives the rest the empty set (their required parents) only.

    Returns
    -------
    ParentSets
        ``stats`` holds the settings, ``evaluated`` (total), ``seconds``,
        ``stopped`` and ``per_node`` lists ``evaluated``, ``kept``,
        ``pruned``, ``seconds``.
    """
    control = Control.of(control, progress, time_limit, stop)
    settings = ExploreSettings(method, max_indegree, time_per_variable, max_evaluations)
    check_budget(settings, control)
    bound = knowledge.bind(scorer, max_indegree) if knowledge else None
    todo = variable_list(scorer, variables)
    entropies = singleton_entropies(scorer) if method == "independence" and score_weight(scorer) is not None \
        else None
    start = search_clock()
    found = {}
    with old_objects_skipped():  # full collections: most of 9 s in 120 on 10,000 variables (bnexplore.collector)
        for i, v in enumerate(todo):
            if control.should_stop():
                break
            items, stats = explore_variable(scorer, v, settings, control, entropies, bound)
            found[v] = (pack_items(items), stats)
            control.report(done=(i + 1) / len(todo), message=f"parent sets: {i + 1}/{len(todo)} variables",
                           variables_done=i + 1, time_left=control.remaining)
    return assemble(scorer, found, settings, control, search_clock() - start, bound)
