"""Candidate parent sets that keep every network within a Bayes factor of optimal.

:func:`candidate_parent_sets` scores the parent sets of every node level by
level (size 0, 1, 2, ...) in large parallel batches and removes the sets that
cannot be the parent set of their node in any *credible* network: a DAG whose
score is at least ``OPT - epsilon`` (Liao, Sharma, Cussens & van Beek 2019,
"Finding all Bayesian network structures within a factor of optimal", AAAI,
Section "Pruning rules for candidate parent sets" and the supplement). With
``epsilon = 0`` the rules are the classic ones for the optimum alone.

Notation (bnexplore's convention: natural log, higher is better). For a child
``X`` with ``r`` states and a parent set ``P``: ``s(P)`` the local score,
``q(P)`` the product of the parents' arities, ``LL(P) <= 0`` the maximised
log-likelihood, ``H(X | P) = -LL(P) / N`` the empirical conditional entropy,
and for BIC ``s(P) = LL(P) - w t(P)`` with ``w = log(N) / 2`` and
``t(P) = q(P) (r - 1)`` (AIC is the same with ``w = 1``).

Why pruning is safe (the one lemma every rule ends in; the paper's Lemma 1):
if ``P`` is a proper subset of ``P'`` and ``s(P') < s(P) - epsilon``, no
credible DAG gives ``X`` the parents ``P'``. Swapping ``P'`` for ``P`` in such a
DAG removes arcs, so it stays acyclic (and within any in-degree bound), and
raises the score by more than ``epsilon``; the swapped DAG scores at most OPT,
so the original scores below ``OPT - epsilon``. ``P`` need not be a candidate
itself. The inequality is strict (a DAG at exactly ``OPT - epsilon`` is
credible) and, against floating-point rounding, a set is removed only when the
margin exceeds ``epsilon`` by :func:`tolerance` of the empty graph's score.

The rules, each a way to establish that inequality (``best(P')`` is the best
score over the proper subsets of ``P'``):

``"subset"`` (Teyssier & Koller 2005; the paper's Lemma 1/2), any score:
    remove ``P'`` when ``s(P') < best(P') - epsilon``. Its supersets are still
    generated: they may score better.
``"penalty"`` (de Campos & Ji 2011; the paper's Theorem 1/2), BIC and AIC:
    ``LL <= 0`` gives ``s(P') <= -w t(P')``, so ``-w t(P') < best(P') - epsilon``
    removes ``P'`` without scoring it. ``t`` never decreases when parents are
    added, so every superset ``P''`` satisfies the same inequality (with the
    subsets of ``P'`` among its own) and is removed too. Once ``P`` is scored,
    its supersets all have ``t >= a t(P)`` where ``a`` is the smallest arity of
    another variable, so ``-w a t(P) < max(s(P), best(P)) - epsilon`` removes
    every proper superset of ``P`` at once. With ``P = {}`` this bounds the
    parent-set size from the sample size alone (the paper's Corollary 1,
    reported per node as ``size_bound``).
``"entropy"`` (de Campos, Scanagatta, Corani & Zaffalon 2018; the paper's
    Theorems 2/3 and 5), BIC and AIC, two bounds:

    * from the subset's entropy: for a proper superset ``P'`` of ``P``,
      ``s(P') - s(P) = [LL(P') - LL(P)] - w [t(P') - t(P)]
      <= N H(X | P) - w (a - 1) t(P)``, using ``LL(P') <= 0`` and
      ``t(P') >= a t(P)``. So when ``w (a - 1) t(P) > N H(X | P) + epsilon``
      every proper superset of ``P`` is removed (``P`` itself is kept or not
      by the subset rule). With a one-state variable (``a = 1``) it never fires.
    * for one added variable ``Y``: ``LL(P + Y) - LL(P) = N I(X; Y | P) <=
      N min{H(X | P), H(Y | P)}`` and ``t(P + Y) - t(P) = q(P) (r_Y - 1)(r - 1)``,
      so when ``w q(P) (r_Y - 1)(r - 1) - N min{H(X | P), H(Y | P)} > epsilon``,
      ``P + Y`` is removed. So is every ``P + T + Y``: compared with ``P + T``
      the penalty gap is at least as large (``q(P + T) >= q(P)``) and the
      entropies no larger (conditioning never raises entropy).
      ``H(Y | P) = H(P + Y) - H(P)`` uses joint entropies of the parent sets,
      shared by all children and computed once per set.
``"bdeu"`` (Cussens & Bartlett 2012, GOBNILP manual; the paper's Theorem 4/6),
    BDeu: each parent configuration that occurs in the data contributes at
    most ``-log r`` to the BDeu score (the paper's Corollary 6D), so
    ``s(P') <= -k(P') log r`` with ``k(P')`` the number of occurring
    configurations of ``P'``. When ``-k(P') log r < best(P') - epsilon``,
    ``P'`` is removed, and so is every superset ``P''``: refining the
    configurations can only raise ``k`` (``k(P'') >= k(P')``; the paper's text
    states this inequality the wrong way round).

Every rule that removes supersets marks the set *dead* (or, for the bounds
that only speak of proper supersets, *closed*); a set of size ``k`` is
generated only when all its subsets of size ``k - 1`` were generated and none
of them is dead or closed. Each generated set has exactly one fate in
:attr:`ParentSets.stats`: kept, or removed by the first rule that applies.
A set not generated because a subset is dead or closed is counted once, under
the rule that made that subset dead or closed, and its own supersets are not
counted again.

Parent sets are stored per level as sorted rows of node indices and keyed by
their colexicographic rank ``sum_i C(c_i, i + 1)`` (``c_0 < c_1 < ...``), an
integer that works for any number of variables.
"""

import math
import time

import numpy as np
from numba import njit, prange

from ..control import Control
from ..errors import ResourceError, SearchError
from ..scores import kernels
from .candidates import ParentSets

RULES = ("subset", "penalty", "entropy", "bdeu")
"""Names of the pruning rules, in the order they are tried."""

_PENALTY, _ENTROPY, _BDEU = 1, 2, 3
_REASONS = {_PENALTY: "penalty", _ENTROPY: "entropy", _BDEU: "bdeu"}
"""Codes of the rules that remove supersets (0: the set may be extended)."""

MAX_SETS_PER_LEVEL = 6_000_000
"""Refuse a level with more generated sets than this over all nodes (memory)."""

_SCORE_BATCH = 200_000
"""Families scored per call, between two checks of the stop flag."""

_RELATIVE_TOLERANCE = 1e-10


def tolerance(scale):
    """Absolute slack for comparing sums of local scores near ``scale``.

    Two sums of the same local scores in different orders differ by at most a
    few units in the last place; ``1e-10 * max(1, |scale|)`` is far above that
    and far below any meaningful score difference. A DAG is credible when its
    score is at least ``OPT - epsilon - tolerance(OPT)``.
    """
    return _RELATIVE_TOLERANCE * max(1.0, abs(float(scale)))


def penalty_weight(score_name, n_rows):
    """``w`` of the penalty ``w q (r - 1)``: ``log(N)/2`` for BIC, 1 for AIC, else None."""
    if score_name == "bic":
        return 0.5 * math.log(n_rows)
    if score_name == "aic":
        return 1.0
    return None


@njit(cache=True, parallel=True)
def set_statistics(cols, arities, sets, sizes, dense_cells):
    """Joint entropy and number of occurring configurations of variable sets.

    Parameters
    ----------
    cols : (n_vars, n_rows) integer array
        The data, one row per variable (see :mod:`bnexplore.scores.kernels`).
    arities : int64 array
    sets : (m, k) int64 array
        Row t holds set t in its first ``sizes[t]`` entries.
    sizes : int64 array
    dense_cells : int
        See :func:`bnexplore.scores.kernels.dense_cells`.

    Returns
    -------
    entropy : float64 array
        Empirical joint entropy ``H(set)`` in nats (0 for the empty set).
    occurring : int64 array
        Number of configurations of the set seen in at least one row.
    """
    m = sets.shape[0]
    n_rows = cols.shape[1]
    entropy = np.empty(m)
    occurring = np.empty(m, np.int64)
    for t in prange(m):
        counts = kernels.family_counts(cols, arities, -1, sets[t, : sizes[t]], np.zeros(0, np.uint8),
                                        dense_cells)
        h = 0.0
        seen = 0
        for j in range(counts.shape[0]):
            c = counts[j, 0]
            if c > 0:
                seen += 1
                p = c / n_rows
                h -= p * math.log(p)
        entropy[t] = h
        occurring[t] = seen
    return entropy, occurring


def _binomials(n):
    """``C(a, b)`` for ``0 <= a <= n``, ``0 <= b <= n + 1`` as int64 (saturated at 2**62)."""
    table = np.zeros((n + 1, n + 2), np.int64)
    cap = 1 << 62
    for a in range(n + 1):
        for b in range(min(a, n + 1) + 1):
            table[a, b] = min(math.comb(a, b), cap)
    return table


class _Level:
    """One node's generated parent sets of one size, sorted by colex rank.

    ``best`` is ``max(s(P), best proper subset)`` for scored sets, ``ll`` the
    log-likelihood ``LL(P)`` (penalised scores only), ``block`` 0 when the set
    may be extended, else the code of the rule that removed its supersets.
    """

    def __init__(self, elems, ranks, best, ll, block):
        self.elems, self.ranks, self.best, self.ll, self.block = elems, ranks, best, ll, block

    def __len__(self):
        return len(self.ranks)


class _Family:
    """Per-node constants: arity, penalty per configuration, smallest other arity."""

    def __init__(self, v, arities, w):
        self.r = int(arities[v])
        others = np.delete(arities, v)
        self.a = int(others.min()) if others.size else 1
        self.log_r = math.log(self.r)
        self.unit = None if w is None else w * (self.r - 1)


def _generate(prev, child, n, k, binom):
    """Sets of size ``k`` whose ``k - 1``-subsets were all generated.

    Returns ``(elems, ranks, pos)``: sorted rows, colex ranks (ascending) and
    for every row ``pos[t, j]``, the index in ``prev`` of the subset without
    element ``j``.
    """
    m = len(prev)
    top = prev.elems[:, -1] if k > 1 else np.full(m, -1, np.int64)
    width = n - 1 - top
    total = int(width.sum())
    rows = np.repeat(np.arange(m), width)
    starts = np.repeat(np.cumsum(width) - width, width)
    u = top[rows] + 1 + (np.arange(total) - starts)
    keep = u != child
    rows, u = rows[keep], u[keep]
    elems = np.concatenate([prev.elems[rows], u[:, None]], axis=1)
    ranks = prev.ranks[rows] + binom[u, k]
    order = np.argsort(ranks, kind="stable")
    elems, ranks = elems[order], ranks[order]
    up = binom[elems, np.arange(1, k + 1)]
    down = binom[elems, np.arange(k)]
    before = np.cumsum(up, axis=1) - up
    after = np.cumsum(down[:, ::-1], axis=1)[:, ::-1] - down
    sub = before + after
    pos = np.minimum(np.searchsorted(prev.ranks, sub), m - 1)
    present = (prev.ranks[pos] == sub).all(axis=1)
    return elems[present], ranks[present], pos[present]


class _Stopped(Exception):
    """Raised inside a run when the stop flag or the time limit fires."""


class _Counter:
    """Fates of the generated sets, per node and per level."""

    def __init__(self, n):
        self.considered = np.zeros(n, np.int64)
        self.scored = np.zeros(n, np.int64)
        self.kept = np.zeros(n, np.int64)
        self.removed = {rule: np.zeros(n, np.int64) for rule in RULES}
        self.levels = []

    def remove(self, rule, v, count):
        self.removed[rule][v] += int(count)

    def totals(self):
        return {"considered": int(self.considered.sum()), "scored": int(self.scored.sum()),
                "kept": int(self.kept.sum()),
                "removed": {rule: int(c.sum()) for rule, c in self.removed.items()}}


class _Pruner:
    """State of one run of :func:`candidate_parent_sets`."""

    def __init__(self, scorer, epsilon, max_indegree, rules, control):
        self.scorer = scorer
        self.epsilon = epsilon
        self.control = control
        self.n = scorer.n_vars
        self.max_size = self.n - 1 if max_indegree is None else min(int(max_indegree), self.n - 1)
        self.w = penalty_weight(scorer.score_name, scorer.n_rows)
        penalised = self.w is not None
        self.use = {"subset": "subset" in rules, "penalty": penalised and "penalty" in rules,
                    "entropy": penalised and "entropy" in rules,
                    "bdeu": scorer.score_name == "bdeu" and "bdeu" in rules}
        self.families = [_Family(v, scorer.arities, self.w) for v in range(self.n)]
        self.binom = _binomials(self.n)
        self.counter = _Counter(self.n)
        self.kept = [[] for _ in range(self.n)]
        self.slack = None

    # -- helpers ------------------------------------------------------------
    def _q(self, elems):
        """Number of parent configurations of each row (float)."""
        return np.prod(self.scorer.arities[elems].astype(float), axis=1)

    def _score(self, children, elems, check=True):
        """Local scores of many families, in batches between stop checks."""
        out = np.empty(len(children))
        sizes = np.full(len(children), elems.shape[1], np.int64)
        padded = elems if elems.shape[1] else np.full((len(children), 1), -1, np.int64)
        for lo in range(0, len(children), _SCORE_BATCH):
            if check and self.control.should_stop():
                raise _Stopped
            hi = min(lo + _SCORE_BATCH, len(children))
            out[lo:hi] = self.scorer.score_packed(children[lo:hi], padded[lo:hi], sizes[lo:hi])
        return out

    def _set_stats(self, elems_list):
        """``(ranks, entropy, occurring)`` of the distinct sets among the given rows."""
        k = elems_list[0][0].shape[1]
        ranks = np.concatenate([r for _, r in elems_list])
        elems = np.concatenate([e for e, _ in elems_list])
        ranks, first = np.unique(ranks, return_index=True)
        elems = elems[first]
        s = self.scorer
        h, occ = set_statistics(s.cols, s.arities, elems if k else np.full((1, 1), -1, np.int64),
                                np.full(len(ranks), k, np.int64), s.dense_cells)
        return ranks, h, occ

    # -- level 0 ----------------------------------------------------------------
    def empty_level(self):
        children = np.arange(self.n, dtype=np.int64)
        scores = self._score(children, np.zeros((self.n, 0), np.int64), check=False)
        self.slack = 2 * tolerance(scores.sum())
        levels = []
        for v, fam in enumerate(self.families):
            s = float(scores[v])
            ll = s + self.w * (fam.r - 1) if self.w is not None else np.nan
            level = _Level(np.zeros((1, 0), np.int64), np.zeros(1, np.int64), np.array([s]),
                           np.array([ll]), np.zeros(1, np.int8))
            self._close(fam, level, np.array([s]), np.array([-np.inf]), np.ones(1))
            levels.append(level)
            self.kept[v].append(((), s))
            self.counter.considered[v] += 1
            self.counter.scored[v] += 1
            self.counter.kept[v] += 1
        return levels

    def size_bound(self, v, empty_score):
        """Largest parent-set size the penalty bound allows given the empty set."""
        fam = self.families[v]
        if fam.unit is None or fam.unit == 0:
            return self.n - 1
        smallest = np.sort(np.delete(self.scorer.arities, v)).astype(float)
        limit = empty_score - self.epsilon - self.slack
        size = 0
        q = 1.0
        for r in smallest:
            q *= r
            if -fam.unit * q < limit:
                break
            size += 1
        return size

    # -- closing rules after scoring ------------------------------------------------
    def _close(self, fam, level, scores, best_sub, q):
        """Mark scored sets whose proper supersets all fall to the penalty or entropy bound."""
        if fam.unit is None:
            return
        limit = self.epsilon + self.slack
        best = np.maximum(scores, best_sub)
        penalty = fam.unit * q
        if self.use["penalty"]:
            dead = (level.block == 0) & (-fam.a * penalty < best - limit)
            level.block[dead] = _PENALTY
        if self.use["entropy"]:
            dead = (level.block == 0) & ((fam.a - 1) * penalty > -level.ll + limit)
            level.block[dead] = _ENTROPY

    # -- one level ---------------------------------------------------------------------
    def next_level(self, levels, k, prev_stats):
        """Generate, bound, score and prune every node's sets of size ``k``."""
        n, counter = self.n, self.counter
        if self.binom[n, k] >= 1 << 62:
            raise ResourceError(f"parent sets of size {k} over {n} variables are too many to index; "
                                f"set max_indegree={k - 1}")
        limit = self.epsilon + self.slack
        work = {}
        total = 0
        for v, prev in enumerate(levels):
            if prev is None or len(prev) == 0:
                continue
            elems, ranks, pos = _generate(prev, v, n, k, self.binom)
            total += len(ranks)
            if total > MAX_SETS_PER_LEVEL:
                self._too_many(k, total)
            counter.considered[v] += len(ranks)
            sub_block = prev.block[pos]
            blocked = (sub_block != 0).any(axis=1)
            reason = sub_block[np.arange(len(ranks)), np.argmax(sub_block != 0, axis=1)]
            for code, rule in _REASONS.items():
                counter.remove(rule, v, np.count_nonzero(blocked & (reason == code)))
            live = ~blocked
            elems, ranks, pos = elems[live], ranks[live], pos[live]
            best_sub = prev.best[pos].max(axis=1)
            q = self._q(elems)
            dead = np.zeros(len(ranks), np.int8)
            fam = self.families[v]
            if self.use["penalty"]:
                dead[-fam.unit * q < best_sub - limit] = _PENALTY
            work[v] = [elems, ranks, pos, best_sub, q, dead]
        if not work:
            return None, prev_stats
        stats = None
        if self.use["entropy"] or self.use["bdeu"]:
            todo = [(w[0][w[5] == 0], w[1][w[5] == 0]) for w in work.values()]
            if sum(len(r) for _, r in todo):
                stats = self._set_stats(todo)
        if stats is not None:
            for v, (elems, ranks, pos, best_sub, q, dead) in work.items():
                self._bound(v, levels[v], prev_stats, stats, elems, ranks, pos, best_sub, q, dead)
        return self._score_level(work), stats

    @staticmethod
    def _lookup(stats, ranks):
        """Positions of ``ranks`` in the sorted ranks of ``stats`` (all present)."""
        return np.minimum(np.searchsorted(stats[0], ranks), len(stats[0]) - 1)

    def _bound(self, v, prev, prev_stats, stats, elems, ranks, pos, best_sub, q, dead):
        """The BDeu bound and the entropy bound for one added variable, before scoring."""
        fam = self.families[v]
        limit = self.epsilon + self.slack
        open_ = dead == 0
        here = self._lookup(stats, ranks)
        if self.use["bdeu"]:
            occurring = stats[2][here]
            dead[open_ & (-occurring * fam.log_r < best_sub - limit)] = _BDEU
        if self.use["entropy"]:
            n_rows = self.scorer.n_rows
            h_w = stats[1][here]
            arity = self.scorer.arities[elems].astype(float)
            fires = np.zeros(len(ranks), bool)
            for j in range(elems.shape[1]):
                sub = pos[:, j]
                h_p = prev_stats[1][self._lookup(prev_stats, prev.ranks[sub])]
                gain = np.minimum(-prev.ll[sub], n_rows * (h_w - h_p))
                fires |= fam.unit * (q / arity[:, j]) * (arity[:, j] - 1) - gain > limit
            dead[(dead == 0) & fires] = _ENTROPY

    def _score_level(self, work):
        """Score the sets no bound removed; apply the subset rule and the closing rules."""
        counter = self.counter
        limit = self.epsilon + self.slack
        order = list(work)
        pick = [work[v][5] == 0 for v in order]
        children = np.concatenate([np.full(np.count_nonzero(p), v, np.int64) for v, p in zip(order, pick)])
        elems = np.concatenate([work[v][0][p] for v, p in zip(order, pick)])
        scores_all = self._score(children, elems) if len(children) else np.empty(0)
        new_levels = [None] * self.n
        start = 0
        for v, p in zip(order, pick):
            elems, ranks, pos, best_sub, q, dead = work[v]
            fam = self.families[v]
            for code, rule in _REASONS.items():
                counter.remove(rule, v, np.count_nonzero(dead == code))
            m = np.count_nonzero(p)
            scores = np.full(len(ranks), -np.inf)
            scores[p] = scores_all[start:start + m]
            start += m
            counter.scored[v] += m
            keep = p & ~(scores < best_sub - limit) if self.use["subset"] else p.copy()
            counter.remove("subset", v, np.count_nonzero(p & ~keep))
            counter.kept[v] += np.count_nonzero(keep)
            ll = scores + fam.unit * q if fam.unit is not None else np.full(len(ranks), np.nan)
            level = _Level(elems, ranks, np.maximum(scores, best_sub), ll, dead.copy())
            self._close(fam, level, scores, best_sub, q)
            new_levels[v] = level
            for row, s in zip(elems[keep].tolist(), scores[keep].tolist()):
                self.kept[v].append((tuple(row), s))
        return new_levels

    def _too_many(self, k, total):
        names = self.scorer.names
        constant = [names[v] for v in range(self.n) if self.scorer.arities[v] < 2]
        hint = (f"; the columns {', '.join(map(repr, constant))} have a single observed value and "
                "tie every parent set: drop them") if constant else ""
        raise ResourceError(f"more than {MAX_SETS_PER_LEVEL:,} candidate parent sets of size {k} "
                            f"({total:,} so far); set max_indegree={k - 1} or use a smaller Bayes factor{hint}")


def _checked_arguments(scorer, epsilon, max_indegree, rules):
    if not (isinstance(epsilon, (int, float, np.integer, np.floating)) and math.isfinite(epsilon) and epsilon >= 0):
        raise SearchError(f"epsilon must be a finite number >= 0 (the log of a Bayes factor), got {epsilon!r}")
    if max_indegree is not None and (isinstance(max_indegree, bool) or int(max_indegree) != max_indegree
                                     or max_indegree < 0):
        raise SearchError(f"max_indegree must be a whole number >= 0, got {max_indegree!r}")
    if isinstance(rules, str):
        rules = (rules,)
    unknown = [r for r in rules if r not in RULES]
    if unknown:
        raise SearchError(f"unknown pruning rule {unknown[0]!r}: choose from {', '.join(RULES)}")
    if scorer.n_vars == 0:
        raise SearchError("the data set has no variables")
    return float(epsilon), tuple(rules)


def candidate_parent_sets(scorer, epsilon=0.0, max_indegree=None, rules=RULES, progress=None,
                          time_limit=None, stop=None, control=None):
    """Candidate parent sets of every node, pruned so no credible network is lost.

    Every parent set (up to ``max_indegree`` parents) is either scored and
    kept, or removed by a rule proving that it is the parent set of its node
    in no DAG scoring at least ``OPT - epsilon`` (see the module docstring for
    each rule and its proof; Liao et al. 2019, Section "Pruning rules").

    Parameters
    ----------
    scorer : Scorer
    epsilon : float
        The credible-set margin ``log(BF)``; 0 keeps what the optimum needs.
    max_indegree : int, optional
        Largest parent-set size considered.
    rules : sequence of str
        Rules to use, from :data:`RULES`; those that do not apply to the score
        are skipped ("penalty" and "entropy" need BIC or AIC, "bdeu" BDeu).
        An empty sequence scores every parent set.
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`. When stopped, the sets found
        so far are returned and ``stats["complete"]`` is False.

    Returns
    -------
    ParentSets
        With ``stats``: ``considered``, ``scored``, ``kept``, ``removed``
        (per rule) in total, the same per node in ``per_node`` (with
        ``size_bound``, the size the penalty bound allows from the sample size,
        and ``largest``, the largest kept set), per size in ``levels``, and
        ``seconds``, ``rules`` (those applied), ``epsilon``, ``tolerance``,
        ``complete``, ``stopped``.

    Raises
    ------
    SearchError
        On a negative epsilon, a bad max_indegree or an unknown rule.
    ResourceError
        When one size has more than :data:`MAX_SETS_PER_LEVEL` sets to consider.
    """
    epsilon, rules = _checked_arguments(scorer, epsilon, max_indegree, rules)
    control = Control.of(control, progress, time_limit, stop)
    start = time.perf_counter()
    snapshot = scorer.snapshot()
    pruner = _Pruner(scorer, epsilon, max_indegree, rules, control)
    levels = pruner.empty_level()
    counter = pruner.counter
    bounds = [pruner.size_bound(v, pruner.kept[v][0][1]) for v in range(pruner.n)]
    prev_stats = (np.zeros(1, np.int64), np.zeros(1), np.ones(1, np.int64))
    k = 1
    while k <= pruner.max_size:
        t0 = time.perf_counter()
        before = counter.totals()
        try:
            new_levels, prev_stats = pruner.next_level(levels, k, prev_stats)
        except _Stopped:
            break
        if new_levels is None:
            break
        levels = new_levels
        after = counter.totals()
        counter.levels.append({"size": k, **{key: after[key] - before[key] for key in ("considered", "scored", "kept")},
                               "seconds": time.perf_counter() - t0})
        control.report(done=None, message=f"candidate parent sets: size {k} done, {after['kept']:,} kept "
                                          f"of {after['scored']:,} scored")
        k += 1
    stats = _stats(pruner, bounds, start, snapshot)
    return ParentSets(scorer.names, pruner.kept, scorer.score_name, stats)


def _stats(pruner, bounds, start, snapshot):
    """The JSON-ready statistics of a run (see :func:`candidate_parent_sets`)."""
    counter, names = pruner.counter, pruner.scorer.names
    per_node = []
    for v in range(pruner.n):
        largest = max(len(ps) for ps, _ in pruner.kept[v])
        per_node.append({"node": names[v], "considered": int(counter.considered[v]),
                         "scored": int(counter.scored[v]), "kept": int(counter.kept[v]),
                         "removed": {rule: int(c[v]) for rule, c in counter.removed.items()},
                         "size_bound": int(bounds[v]), "largest": largest})
    return {"score": pruner.scorer.score_name, "epsilon": pruner.epsilon,
            "max_indegree": None if pruner.max_size == pruner.n - 1 else pruner.max_size,
            "rules": [rule for rule in RULES if pruner.use[rule]], "tolerance": pruner.slack,
            **counter.totals(), "per_node": per_node, "levels": counter.levels,
            "seconds": time.perf_counter() - start, "complete": pruner.control.reason is None,
            "stopped": pruner.control.reason, **pruner.scorer.stats(snapshot)}
