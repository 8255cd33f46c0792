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
    BDeu and K2: each parent configuration that occurs in the data contributes
    at most ``-log r`` to the score (the paper's Corollary 6D for BDeu; it holds
    for any Bayesian Dirichlet score whose prior is the same for every state of
    a configuration, since the configuration's first row has predictive
    probability ``1/r`` and each later one at most 1), so
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

Background knowledge (:class:`bnexplore.knowledge.Knowledge`) changes the
lattice, not the rules: node ``v`` gets the sets ``R ∪ X`` with ``R`` its
required parents and ``X`` any subset of its other allowed parents, generated
from ``R`` up (level ``k`` holds the sets with ``|X| = k``), and each set is
compared only with its subsets in that lattice. Lemma 1 holds there with the
best score over DAGs honouring the knowledge in place of OPT: swapping a set
for a lattice subset keeps every required parent and adds no arc, so the DAG
still honours the knowledge. Filtering sets pruned without the knowledge is
not enough: the subset that removed a set may lack a required parent.
"""

import math

import numpy as np
from numba import prange

from ..compiling import njit, search_clock
from ..control import Control
from ..errors import ResourceError, SearchError
from ..knowledge import knowledge_params
from ..scores import kernels, penalty_weight
from ..scores.scorer import check_scorer
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
    may be extended, else the code of the rule that removed its supersets,
    ``top`` the largest parent that is not required (-1 for none): sets are
    extended only beyond it, so each is generated once.
    """

    def __init__(self, elems, ranks, best, ll, block, top):
        self.elems, self.ranks, self.best, self.ll, self.block, self.top = elems, ranks, best, ll, block, top

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


def _generate(prev, free, required, n, binom):
    """The next level of one node: each set of ``prev`` plus one free parent
    beyond its ``top``, kept when all its subsets one free parent smaller were
    generated.

    ``free`` (bool, length n) marks the parents that may be added (neither the
    node, nor required, nor forbidden); ``required`` is the number of required
    parents (with some, the rows need sorting). Returns ``(elems, ranks,
    pos, dropped, top)``: sorted rows, colex ranks (ascending), for every row
    ``pos[t, j]`` the index in ``prev`` of the subset without the free parent
    ``dropped[t, j]``, and the new tops.
    """
    m = len(prev)
    width = n - 1 - prev.top
    total = int(width.sum())
    rows = np.repeat(np.arange(m), width)
    starts = np.repeat(np.cumsum(width) - width, width)
    u = prev.top[rows] + 1 + (np.arange(total) - starts)
    keep = free[u]
    rows, u = rows[keep], u[keep]
    elems = np.concatenate([prev.elems[rows], u[:, None]], axis=1)
    if required:
        elems.sort(axis=1)
    k = elems.shape[1]
    up = binom[elems, np.arange(1, k + 1)]
    ranks = up.sum(axis=1)
    order = np.argsort(ranks, kind="stable")
    elems, ranks, up, u = elems[order], ranks[order], up[order], u[order]
    down = binom[elems, np.arange(k)]
    before = np.cumsum(up, axis=1) - up
    after = np.cumsum(down[:, ::-1], axis=1)[:, ::-1] - down
    sub = before + after
    dropped = elems
    if required:
        mask = free[elems]
        sub = sub[mask].reshape(len(elems), k - required)
        dropped = elems[mask].reshape(len(elems), k - required)
    pos = np.minimum(np.searchsorted(prev.ranks, sub), m - 1)
    present = (prev.ranks[pos] == sub).all(axis=1)
    return elems[present], ranks[present], pos[present], dropped[present], u[present]


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

    def __init__(self, scorer, epsilon, max_indegree, rules, control, knowledge=None):
        self.scorer = scorer
        self.epsilon = epsilon
        self.control = control
        self.n = scorer.n_vars
        self.max_size = self.n - 1 if max_indegree is None else min(int(max_indegree), self.n - 1)
        self.knowledge = knowledge or None
        if self.knowledge is None:
            self.base = [np.zeros(0, np.int64)] * self.n
            self.free = ~np.eye(self.n, dtype=bool)
        else:
            bound = self.knowledge.bind(scorer, max_indegree)
            self.base = [bound.required_parents(v).astype(np.int64) for v in range(self.n)]
            self.free = bound.allowed & ~bound.required
        self.w = penalty_weight(scorer.score_name, scorer.n_rows)
        applicable = scorer.spec.pruning_rules  # the score registry says which rules can fire
        self.use = {rule: rule in rules and rule in applicable for rule in RULES}
        self.families = [_Family(v, scorer.arities, self.w) for v in range(self.n)]
        self.binom = _binomials(self.n)
        self.counter = _Counter(self.n)
        self.kept = [[] for _ in range(self.n)]
        self.slack = None

    # -- helpers ------------------------------------------------------------
    def _q(self, elems):
        """Number of parent configurations of each row (float)."""
        return np.prod(self.scorer.arities[elems].astype(float), axis=1)

    def _score(self, children, elems, sizes=None, check=True):
        """Local scores of many families (rows of ``elems`` padded with -1 beyond
        ``sizes``, by default full), in batches between stop checks."""
        out = np.empty(len(children))
        sizes = np.full(len(children), elems.shape[1], np.int64) if sizes is None else sizes
        padded = elems if elems.shape[1] else np.full((len(children), 1), -1, np.int64)
        for lo in range(0, len(children), _SCORE_BATCH):
            if check and self.control.should_stop():
                raise _Stopped
            hi = min(lo + _SCORE_BATCH, len(children))
            out[lo:hi] = self.scorer.score_packed(children[lo:hi], padded[lo:hi], sizes[lo:hi])
        return out

    def _set_stats(self, elems_list):
        """``{size: (ranks, entropy, occurring)}`` of the distinct sets among the given rows
        (one size without knowledge; with it the required parents make sizes differ), in
        batches of :data:`_SCORE_BATCH` sets with a stop check between two."""
        by_size = {}
        for elems, ranks in elems_list:
            if len(ranks):
                by_size.setdefault(elems.shape[1], []).append((elems, ranks))
        out = {}
        s = self.scorer
        for k, items in by_size.items():
            ranks = np.concatenate([r for _, r in items])
            elems = np.concatenate([e for e, _ in items])
            ranks, first = np.unique(ranks, return_index=True)
            elems = elems[first] if k else np.full((len(ranks), 1), -1, np.int64)
            h, occ = np.empty(len(ranks)), np.empty(len(ranks), np.int64)
            for lo in range(0, len(ranks), _SCORE_BATCH):
                if lo and self.control.should_stop():
                    raise _Stopped
                hi = min(lo + _SCORE_BATCH, len(ranks))
                h[lo:hi], occ[lo:hi] = set_statistics(s.cols, s.arities, elems[lo:hi], np.full(hi - lo, k, np.int64),
                                                      s.dense_cells)
            out[k] = (ranks, h, occ)
        return out

    # -- level 0 ----------------------------------------------------------------
    def base_level(self):
        """Level 0: every node's smallest set, the empty set or (with knowledge) its required parents.

        Returns the levels and the set statistics of their sets (for the
        entropy bound of level 1)."""
        n = self.n
        sizes = np.array([len(b) for b in self.base], np.int64)
        padded = np.full((n, max(1, int(sizes.max()))), -1, np.int64)
        for v, base in enumerate(self.base):
            padded[v, :len(base)] = base
        scores = self.scorer.score_packed(np.arange(n, dtype=np.int64), padded, sizes)
        self.slack = 2 * tolerance(scores.sum())
        levels = []
        for v, (fam, base) in enumerate(zip(self.families, self.base)):
            s = float(scores[v])
            q = float(np.prod(self.scorer.arities[base].astype(float)))
            ll = s + fam.unit * q if fam.unit is not None else np.nan
            rank = int(self.binom[base, np.arange(1, len(base) + 1)].sum())
            level = _Level(base[None, :], np.array([rank], np.int64), np.array([s]), np.array([ll]),
                           np.zeros(1, np.int8), np.full(1, -1, np.int64))
            self._close(fam, level, np.array([s]), np.array([-np.inf]), np.array([q]))
            levels.append(level)
            self.kept[v].append((tuple(base.tolist()), s))
            self.counter.considered[v] += 1
            self.counter.scored[v] += 1
            self.counter.kept[v] += 1
        stats = {0: (np.zeros(1, np.int64), np.zeros(1), np.ones(1, np.int64))}
        if self.use["entropy"] and sizes.any():
            stats = self._set_stats([(level.elems, level.ranks) for level in levels])
        return levels, stats

    def size_bound(self, v, base_score):
        """Largest parent-set size the penalty bound allows given the smallest set (empty or required)."""
        fam = self.families[v]
        base = self.base[v]
        if fam.unit is None or fam.unit == 0:
            return len(base) + int(self.free[:, v].sum())
        smallest = np.sort(self.scorer.arities[self.free[:, v]]).astype(float)
        limit = base_score - self.epsilon - self.slack
        size = 0
        q = float(np.prod(self.scorer.arities[base].astype(float)))
        for r in smallest:
            q *= r
            if -fam.unit * q < limit:
                break
            size += 1
        return len(base) + size

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
        """Generate, bound, score and prune every node's sets of size ``k`` (beyond the
        required parents, with knowledge)."""
        n, counter = self.n, self.counter
        largest = min(k + max(len(b) for b in self.base), n)
        if self.binom[n, largest] >= 1 << 62:
            raise ResourceError(f"parent sets of size {largest} over {n} variables are too many to index; "
                                f"set max_indegree={largest - 1}")
        limit = self.epsilon + self.slack
        work = {}
        total = 0
        for v, prev in enumerate(levels):
            if prev is None or len(prev) == 0 or len(self.base[v]) + k > self.max_size:
                continue
            if self.control.should_stop():  # generating a node's level can take long even when nothing is scored
                raise _Stopped
            elems, ranks, pos, dropped, top = _generate(prev, self.free[:, v], len(self.base[v]), n,
                                                        self.binom)
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
            elems, ranks, pos, dropped, top = elems[live], ranks[live], pos[live], dropped[live], top[live]
            best_sub = prev.best[pos].max(axis=1)
            q = self._q(elems)
            dead = np.zeros(len(ranks), np.int8)
            fam = self.families[v]
            if self.use["penalty"]:
                dead[-fam.unit * q < best_sub - limit] = _PENALTY
            work[v] = [elems, ranks, pos, best_sub, q, dead, dropped, top]
        if not work:
            return None, prev_stats
        stats = None
        if self.use["entropy"] or self.use["bdeu"]:
            todo = [(w[0][w[5] == 0], w[1][w[5] == 0]) for w in work.values()]
            if sum(len(r) for _, r in todo):
                stats = self._set_stats(todo)
        if stats is not None:
            for v, (elems, ranks, pos, best_sub, q, dead, dropped, _) in work.items():
                self._bound(v, levels[v], prev_stats, stats, elems, ranks, pos, best_sub, q, dead, dropped)
        return self._score_level(work), stats

    @staticmethod
    def _lookup(stats, ranks):
        """Positions of ``ranks`` in the sorted ranks of ``stats`` (one size's; all present)."""
        return np.minimum(np.searchsorted(stats[0], ranks), len(stats[0]) - 1)

    def _bound(self, v, prev, prev_stats, stats, elems, ranks, pos, best_sub, q, dead, dropped):
        """The BDeu bound and the entropy bound for one added variable, before scoring."""
        fam = self.families[v]
        limit = self.epsilon + self.slack
        open_ = dead == 0
        k = elems.shape[1]
        if not len(ranks) or k not in stats:
            return
        here = self._lookup(stats[k], ranks)
        if self.use["bdeu"]:
            occurring = stats[k][2][here]
            dead[open_ & (-occurring * fam.log_r < best_sub - limit)] = _BDEU
        if self.use["entropy"]:
            n_rows = self.scorer.n_rows
            h_w = stats[k][1][here]
            arity = self.scorer.arities[dropped].astype(float)
            fires = np.zeros(len(ranks), bool)
            for j in range(dropped.shape[1]):
                sub = pos[:, j]
                h_p = prev_stats[k - 1][1][self._lookup(prev_stats[k - 1], prev.ranks[sub])]
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
        width = max(work[v][0].shape[1] for v in order)
        elems = np.concatenate([np.pad(work[v][0][p], ((0, 0), (0, width - work[v][0].shape[1])), constant_values=-1)
                                for v, p in zip(order, pick)])
        sizes = np.concatenate([np.full(np.count_nonzero(p), work[v][0].shape[1], np.int64)
                                for v, p in zip(order, pick)])
        scores_all = self._score(children, elems, sizes) if len(children) else np.empty(0)
        new_levels = [None] * self.n
        start = 0
        for v, p in zip(order, pick):
            elems, ranks, pos, best_sub, q, dead, _, top = work[v]
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
            level = _Level(elems, ranks, np.maximum(scores, best_sub), ll, dead.copy(), top)
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
    if getattr(scorer, "weighted", False):
        raise SearchError("candidate parent sets (of the exact and credible searches) cannot use row weights: "
                          "their entropy and BDeu bounds count whole rows; learn from a weighted (completed) data "
                          "set with hill climbing, tabu, RPDAG search or GES")
    return float(epsilon), tuple(rules)


def candidate_parent_sets(scorer, epsilon=0.0, max_indegree=None, rules=RULES, knowledge=None, progress=None,
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
        Rules to use, from :data:`RULES`; those that cannot fire under the
        score are skipped (the score's ``pruning_rules`` in
        :data:`bnexplore.scores.SCORES`: "penalty" and "entropy" need a
        penalty weight above 0, BIC or AIC; "bdeu" a Bayesian Dirichlet score,
        BDeu or K2).
        An empty sequence scores every parent set.
    knowledge : Knowledge, optional
        Background knowledge (:class:`bnexplore.knowledge.Knowledge`, checked
        first): only sets holding every required parent and no forbidden one
        are generated, each compared with its subsets among those (see the
        module docstring), so the result keeps every set a DAG honouring the
        knowledge within ``epsilon`` of the best such DAG needs. Level sizes
        in ``stats["levels"]`` then count the parents beyond the required ones.
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
        ``complete``, ``stopped``, and ``knowledge`` (its JSON) when given.

    Raises
    ------
    SearchError
        On a negative epsilon, a bad max_indegree, an unknown rule,
        contradictory knowledge, or a scorer of weighted data (the entropy
        bound counts rows, and the BDeu bound needs whole counts).
    ResourceError
        When one size has more than :data:`MAX_SETS_PER_LEVEL` sets to consider.

    Examples
    --------
    >>> import numpy as np
    >>> from bnexplore.data import Dataset
    >>> from bnexplore.scores import Scorer
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 500)
    >>> b = (a + (rng.random(500) < 0.1)) % 2          # b copies a, with 10% noise
    >>> c = rng.integers(0, 3, 500)                      # c is on its own
    >>> data = Dataset.from_codes(np.column_stack([a, b, c]), names=["a", "b", "c"])
    >>> found = candidate_parent_sets(Scorer(data, "bic"))
    >>> found.sets(1), found.sets(2)                     # b may have a as parent; c has no use for one
    ([(0,), ()], [()])
    >>> found.stats["rules"], found.stats["removed"]["subset"]
    (['subset', 'penalty', 'entropy'], 7)
    """
    check_scorer(scorer, "candidate_parent_sets")
    epsilon, rules = _checked_arguments(scorer, epsilon, max_indegree, rules)
    control = Control.of(control, progress, time_limit, stop)
    start = search_clock()
    snapshot = scorer.snapshot()
    pruner = _Pruner(scorer, epsilon, max_indegree, rules, control, knowledge)
    levels, prev_stats = pruner.base_level()
    counter = pruner.counter
    bounds = [pruner.size_bound(v, pruner.kept[v][0][1]) for v in range(pruner.n)]
    k = 1
    while k <= pruner.max_size:
        t0 = search_clock()
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
                               "seconds": search_clock() - t0})
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
            "seconds": search_clock() - start, "complete": pruner.control.reason is None,
            "stopped": pruner.control.reason, **pruner.scorer.stats(snapshot),
            **knowledge_params(pruner.knowledge)}
