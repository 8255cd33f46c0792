"""Cached local scores of a data set: the object every search asks.

A :class:`Scorer` wraps the counting kernels of :mod:`bnexplore.scores.kernels`
with name resolution, argument checks, a cache keyed by (child, sorted parents)
and the counters the RPDAG paper reports (Acid & de Campos 2003, Section 6):
distinct local scores computed (EstEv), total look-ups (TEst) and the average
number of variables per computed statistic (NVar).

On a weighted data set (a completed table, each row with a weight, as
structural EM's E-step makes it) every count is a weighted count: the Scorer
calls the ``weighted_`` kernels, and the sample size ``N`` is the total weight.
Data with blank cells is refused: its placeholder codes must not be counted.
"""

import contextlib

import numpy as np

from ..data import check_dataset, require_complete
from ..errors import ScoreError
from . import kernels
from .registry import ESS, LL, MAX_ESS, SCORES, score_spec


CACHED_ADDITIONS = 100_000
"""Cache entries below which :meth:`Scorer.toggles` caches the scores of added parents: about
20 MB of dict entries (a tuple key in a tuple, a float). A local search on a few dozen variables
stays below it for many restarts, which meet cached families again; its first pass over wide data
(2.4 million one-parent families on 1,556 variables) goes past it, and there the cache would only
hold families never met again."""


def pack_parent_sets(parent_sets):
    """Pack parent sets into the ``(parents, sizes)`` arrays the kernels take.

    Parameters
    ----------
    parent_sets : sequence of sequences of int

    Returns
    -------
    parents : ndarray of int64, shape (m, max size)
        Row t holds parent set t, padded with -1.
    sizes : ndarray of int64, shape (m,)
    """
    sizes = np.fromiter((len(ps) for ps in parent_sets), np.int64, len(parent_sets))
    width = int(sizes.max()) if sizes.size else 0
    parents = np.full((len(parent_sets), max(width, 1)), -1, np.int64)
    for t, ps in enumerate(parent_sets):
        parents[t, : len(ps)] = ps
    return parents, sizes


def _row_weights(data, n_rows):
    """The row weights of ``data`` as float64 (None when it has none), each finite and > 0."""
    weights = getattr(data, "weights", None)
    if weights is None:
        return None
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if weights.shape != (n_rows,):
        raise ScoreError(f"the data has {n_rows} rows but {weights.size} row weights; give one weight per row")
    bad = ~np.isfinite(weights) | (weights <= 0)
    if bad.any():
        row = int(np.argmax(bad))
        raise ScoreError(f"row weight {float(weights[row])!r} at row {row + 1} is not a finite number > 0")
    return weights


class Scorer:
    """Local scores ``s(child, parents)`` of one data set, with a cache.

    Parameters
    ----------
    data : Dataset
        Anything with ``codes`` (n_rows x n_vars integer codes), ``arities``
        and ``names``; with ``weights`` (float64, one per row, finite and
        > 0) every count is the sum of the weights of its rows. Data with
        blank cells (``blank`` not None) is refused with a DataError
        (:func:`bnexplore.data.require_complete`).
    score : str
        A name in :data:`bnexplore.scores.SCORES` ("bdeu", "k2", "bic", "aic",
        "ll"): BDeu log marginal likelihood with equivalent sample size ``ess``;
        K2; BIC ``= LL - log(N)/2 * q (r - 1)``; AIC ``= LL - q (r - 1)``; the
        maximised log-likelihood LL. All natural log, higher is better.
    ess : float
        Equivalent sample size of BDeu (ignored by the other scores): a
        number in ``[MIN_ESS, MAX_ESS]`` (:mod:`bnexplore.scores.registry`), else a ScoreError naming
        ``ess``.
    cache : bool
        Keep every computed local score (turn off only to measure kernels).

    Attributes
    ----------
    weighted : bool
        The data has row weights.
    weights : ndarray of float64 or None
        The row weights of weighted data.
    n_rows : int or float
        The sample size ``N`` the scores use (BIC's penalty, the entropies):
        the number of rows, or the total weight of weighted data.
    rows : int
        The number of data rows (what a pass of counting visits).
    computed : int
        Distinct local scores computed (EstEv in the RPDAG paper).
    hits : int
        Look-ups answered from the cache; ``lookups = computed + hits`` (TEst).
    """

    _forgetting = 0  # how many forgetting() blocks are open (class default: CacheScorer sets no __init__ of ours)

    def __init__(self, data, score="bdeu", ess=1.0, cache=True):
        data = check_dataset(data)
        spec = score_spec(score)
        ess = ESS.check(ess, error=ScoreError)
        codes = np.asarray(data.codes)
        if codes.ndim != 2 or codes.shape[0] == 0:
            raise ScoreError("the data set has no rows: load data before scoring")
        require_complete(data, "scoring")
        self.data = data
        self.spec = spec
        self.score_name = spec.name
        self.ess = float(ess)
        self.cols = np.ascontiguousarray(codes.T)
        self.arities = np.ascontiguousarray(data.arities, dtype=np.int64)
        self.names = [str(v) for v in data.names]
        self.rows, self.n_vars = codes.shape
        self.weights = _row_weights(data, self.rows)
        self.weighted = self.weights is not None
        self.n_rows = float(self.weights.sum()) if self.weighted else self.rows
        self._code = spec.code
        self.dense_cells = kernels.dense_cells(self.rows)  # largest count table built densely
        self._position = {v: i for i, v in enumerate(self.names)}
        self._cache = {} if cache else None
        self.reset_stats()

    def __repr__(self):
        weight = f" of total weight {self.n_rows:g}" if self.weighted else ""
        return (f"Scorer({self.score_name}, ess={self.ess:g}, {self.n_vars} variables, "
                f"{self.rows} rows{weight}, {self.computed} computed, {self.hits} hits)")

    @property
    def params(self):
        """The score settings as a dict (for results and JSON)."""
        return {"score": self.score_name, **{h.name: getattr(self, h.name) for h in self.spec.hyperparameters}}

    # -- names and checks -------------------------------------------------
    def index(self, variable):
        """Column index of a variable given by name or index."""
        if isinstance(variable, (int, np.integer)) and not isinstance(variable, bool):
            i = int(variable)
            if 0 <= i < self.n_vars:
                return i
            raise ScoreError(f"variable index {i} is out of range: the data has {self.n_vars} variables")
        try:
            return self._position[variable]
        except (KeyError, TypeError):
            raise ScoreError(f"unknown variable {variable!r}: the data has no column of that name") from None

    def family(self, child, parents=()):
        """Normalise ``(child, parents)`` to ``(int, sorted tuple of ints)``."""
        c = self.index(child)
        ps = tuple(sorted(self.index(p) for p in parents))
        if c in ps:
            raise ScoreError(f"variable {self.names[c]!r} cannot be its own parent")
        if len(set(ps)) != len(ps):
            raise ScoreError(f"parent set of {self.names[c]!r} lists a variable twice: "
                             f"{[self.names[p] for p in ps]}")
        if len(ps) > 30 and np.log10(self.arities[list(ps)]).sum() > 300:
            raise ScoreError(f"the {len(ps)} parents of {self.names[c]!r} have more than 1e300 joint states, "
                             "beyond what a local score can represent; use fewer parents")
        return c, ps

    # -- scores -----------------------------------------------------------
    def local(self, child, parents=()):
        """Local score ``s(child, parents)``, from the cache when possible."""
        key = self.family(child, parents)
        cache = self._cache
        if cache is not None:
            value = cache.get(key)
            if value is not None:
                self.hits += 1
                return value
        value = self._local_score(key[0], np.array(key[1], np.int64), self._code)
        self._count(1, len(key[1]) + 1)
        if cache is not None and not self._forgetting:
            cache[key] = value
        return value

    def local_many(self, children, parent_sets):
        """Local scores of many families at once, in parallel.

        Parameters
        ----------
        children : int, str or sequence
            One child for every parent set, or a single child for all.
        parent_sets : sequence of sequences

        Returns
        -------
        ndarray of float64
        """
        if isinstance(children, (int, np.integer, str)):
            children = [children] * len(parent_sets)
        if len(children) != len(parent_sets):
            raise ScoreError(f"local_many got {len(children)} children but {len(parent_sets)} parent sets")
        return self.lookup([self.family(c, ps) for c, ps in zip(children, parent_sets)])

    def toggles(self, child, parents, others):
        """``s(child, parents xor {u})`` for every ``u`` in ``others``.

        The scores a local search needs to add or delete one parent; all
        arguments are trusted (no checks), ``parents`` a set of ints,
        ``others`` an int array. The additions are computed together by
        :func:`~bnexplore.scores.kernels.added_parent_scores`, which counts
        the shared parents once; the deletions (and additions too large for a
        dense table) are looked up. Additions are cached, and looked up first,
        only while the cache holds fewer than :data:`CACHED_ADDITIONS`
        entries: a local search's first pass over wide data scores all
        ``n (n - 1)`` one-parent families and meets almost none of them
        again, so caching them would cost memory and time for nothing.
        """
        others = np.asarray(others, np.int64)
        base = np.array(sorted(parents), np.int64)
        room = self.dense_cells / (float(np.prod(self.arities[base], dtype=np.float64)) * self.arities[child])
        adding = ~np.isin(others, base) & (self.arities[others] <= room)
        cache = self._cache if self._cache is not None and len(self._cache) < CACHED_ADDITIONS else None
        keys = {}
        if cache is not None:
            for t in np.flatnonzero(adding).tolist():
                keys[t] = key = (child, tuple(sorted(parents | {int(others[t])})))
                adding[t] = key not in cache
        out = np.empty(len(others))
        rest = np.flatnonzero(~adding)
        if len(rest):
            out[rest] = self.lookup([keys.get(t) or (child, tuple(sorted(parents ^ {int(others[t])})))
                                     for t in rest.tolist()])
        extras = others[adding]
        if len(extras):
            out[adding] = values = self._added_parent_scores(child, base, extras)
            self._count(len(extras), len(extras) * (len(base) + 2))
            if cache is not None and not self._forgetting:
                cache.update(zip((keys[t] for t in np.flatnonzero(adding).tolist()), values.tolist()))
        return out

    def _added_parent_scores(self, child, base, extras):
        """``s(child, base + {u})`` for every ``u`` in ``extras`` (dense tables), in parallel when it pays."""
        parallel = kernels.parallel_pays(len(extras), self.rows)
        if self.weighted:
            kernel = kernels.weighted_added_parent_scores if parallel else kernels.weighted_added_parent_scores_serial
            return kernel(self.cols, self.arities, child, base, extras, self.weights, self._code, self.ess)
        kernel = kernels.added_parent_scores if parallel else kernels.added_parent_scores_serial
        return kernel(self.cols, self.arities, child, base, extras, self._code, self.ess)

    def lookup(self, keys, remember=True):
        """Scores of ``(child, sorted parent tuple)`` keys (trusted, no checks).

        The cache is read; with ``remember`` (the default) the scores computed
        join it. A caller that keeps what it needs itself and meets most keys
        once (the ordering search's pool: every set one parent larger than a
        graph's) passes False, so the cache does not grow by millions.
        """
        out = np.empty(len(keys))
        cache = self._cache
        if cache is None:
            missing = list(range(len(keys)))
        else:
            missing = []
            for t, key in enumerate(keys):
                value = cache.get(key)
                if value is None:
                    missing.append(t)
                else:
                    out[t] = value
            self.hits += len(keys) - len(missing)
        if missing:
            todo = list(dict.fromkeys(keys[t] for t in missing))
            values = self.score_packed(np.array([k[0] for k in todo], np.int64),
                                       *pack_parent_sets([k[1] for k in todo]))
            found = dict(zip(todo, values.tolist()))
            if cache is not None:
                if remember and not self._forgetting:
                    cache.update(found)
                self.hits += len(missing) - len(todo)
            for t in missing:
                out[t] = found[keys[t]]
        return out

    @contextlib.contextmanager
    def forgetting(self):
        """A block in which the scores computed are not added to the cache (the entries already there are
        still read, so a :class:`~bnexplore.parents.cached.CacheScorer` answers as before).

        For a search that meets few families twice: the large-network learner
        (:func:`bnexplore.search.ordering.ordering_search`) runs under it. Its hill climbs' first passes over
        wide data filled the cache to :data:`CACHED_ADDITIONS` entries and more (about 25 MB on DEBD's cr52
        and bbc, 889 and 1,058 variables, at the run's peak) and found 1 % of their look-ups there.
        Blocks nest, and the cache fills again once the last one ends.

        Examples
        --------
        >>> from bnexplore.data import Dataset
        >>> scorer = Scorer(Dataset.from_codes(np.array([[0, 1], [1, 1], [1, 0]]), arities=[2, 2]), "bic")
        >>> with scorer.forgetting():
        ...     first = scorer.local(0, [1])
        >>> scorer.local(0, [1]) == first, scorer.stats()["cache_hits"]
        (True, 0)
        >>> scorer.local(0, [1]) == first, scorer.stats()["cache_hits"]
        (True, 1)
        """
        self._forgetting += 1
        try:
            yield self
        finally:
            self._forgetting -= 1

    def score_packed(self, children, parents, sizes):
        """Score already-packed families with no cache and no checks.

        For callers that generate millions of candidate parent sets as arrays
        (see :func:`pack_parent_sets`); the counters are updated.
        """
        if children.shape[0] == 0:
            return np.empty(0)
        parallel = kernels.parallel_pays(children.shape[0], self.rows)
        if self.weighted:
            kernel = kernels.weighted_local_scores if parallel else kernels.weighted_local_scores_serial
            values = kernel(self.cols, self.arities, children, parents, sizes, self.weights, self._code, self.ess,
                            self.dense_cells)
        else:
            kernel = kernels.local_scores if parallel else kernels.local_scores_serial
            values = kernel(self.cols, self.arities, children, parents, sizes, self._code, self.ess, self.dense_cells)
        self._count(children.shape[0], int(sizes.sum()) + children.shape[0])
        return values

    def parent_lists(self, graph):
        """Parent lists (ints) of a graph.

        ``graph`` is a DAG (anything with ``parent_sets()`` and ``names``:
        its nodes are matched to the data's variables by name, in any order),
        a sequence of parent sequences (one per variable, names or ints), or a
        dict ``{child: parents}`` (missing children have no parents).
        """
        if hasattr(graph, "parent_sets"):
            lists = list(graph.parent_sets())
            names = [str(name) for name in graph.names]
            if names == self.names:  # ascending indices of other nodes: only the size bound to check
                return [self.family(c, ps)[1] if len(ps) > 30 else ps for c, ps in enumerate(lists)]
            self._check_nodes(names)
            graph = {names[c]: [names[p] for p in ps] for c, ps in enumerate(lists)}  # by name: any node order
        if isinstance(graph, dict):
            lists = [()] * self.n_vars
            for child, parents in graph.items():
                lists[self.index(child)] = tuple(parents)
        else:
            lists = list(graph)
        if len(lists) != self.n_vars:
            raise ScoreError(f"the graph has {len(lists)} nodes but the data has {self.n_vars} variables")
        return [self.family(c, ps)[1] for c, ps in enumerate(lists)]

    def _check_nodes(self, names):
        """A ScoreError unless a graph's node ``names`` are the data's variables (in any order)."""
        given = set(names)
        extra = [name for name in names if name not in self._position]
        missing = [name for name in self.names if name not in given]
        if extra or missing:
            raise ScoreError(f"the graph's nodes are not the data's variables (only in the graph: "
                             f"{', '.join(extra[:8]) or 'none'}; only in the data: "
                             f"{', '.join(missing[:8]) or 'none'}); score a graph over the data's columns")

    def local_scores(self, graph):
        """Local score of every node of ``graph`` (see :meth:`parent_lists`)."""
        return self.lookup(list(enumerate(self.parent_lists(graph))))

    def total(self, graph):
        """Score of a graph: the sum of its local scores (decomposability)."""
        return float(self.local_scores(graph).sum())

    # -- information quantities (pruning rules, independence selection) ---
    def entropy(self, variables):
        """Empirical joint entropy ``H(variables)`` in nats."""
        vs = np.array(sorted(self.index(v) for v in variables), np.int64)
        if self.weighted:
            return kernels.weighted_entropy(self.cols, self.arities, vs, self.weights, self.dense_cells)
        return kernels.entropy(self.cols, self.arities, vs, self.dense_cells)

    def conditional_entropy(self, child, parents=()):
        """Empirical ``H(child | parents) = -LL(child, parents) / N`` in nats."""
        c, ps = self.family(child, parents)
        return -self._local_score(c, np.array(ps, np.int64), LL) / self.n_rows

    def _local_score(self, child, parents, code):
        """One local score from the kernels (weighted when the data is), no cache, no counters."""
        if self.weighted:
            return kernels.weighted_local_score(self.cols, self.arities, child, parents, self.weights, code,
                                                self.ess, self.dense_cells)
        return kernels.local_score(self.cols, self.arities, child, parents, code, self.ess, self.dense_cells)

    # -- counters ---------------------------------------------------------
    def _count(self, families, variables):
        self.computed += families
        self._variables += variables

    @property
    def lookups(self):
        """Total local-score look-ups (TEst)."""
        return self.computed + self.hits

    @property
    def nvar(self):
        """Average number of variables per computed statistic (NVar)."""
        return self._variables / self.computed if self.computed else 0.0

    def snapshot(self):
        """The counters now, to pass to :meth:`stats` as ``since``."""
        return self.computed, self.hits, self._variables

    def stats(self, since=(0, 0, 0)):
        """The counters (since a :meth:`snapshot`) as a dict, named as in every search result."""
        computed = self.computed - since[0]
        hits = self.hits - since[1]
        variables = self._variables - since[2]
        return {"local_scores_computed": computed, "local_score_lookups": computed + hits,
                "cache_hits": hits, "nvar": variables / computed if computed else 0.0}

    def reset_stats(self):
        """Zero the counters (the cache is kept)."""
        self.computed = 0
        self.hits = 0
        self._variables = 0


__all__ = ["MAX_ESS", "SCORES", "Scorer", "pack_parent_sets"]  # MAX_ESS and SCORES live in .registry


def check_scorer(scorer, door):
    """``scorer`` when it is a :class:`Scorer`; else a ScoreError saying how ``door`` is called.

    The search functions take a Scorer (its cache is shared between calls);
    :func:`bnexplore.search.learn` takes the data. Each search calls this
    first, so ``exact_search(data)`` is refused in words rather than by an
    ``AttributeError`` inside.

    Parameters
    ----------
    scorer : object
    door : str
        The function, as the message names it ("exact_search").

    Returns
    -------
    Scorer

    Examples
    --------
    >>> try:
    ...     check_scorer("data.csv", "hill_climb")
    ... except ScoreError as error:
    ...     print(error)
    hill_climb takes a Scorer, not a str: hill_climb(bnexplore.Scorer(data, score='bdeu')); learn(data, ...) builds it
    """
    if isinstance(scorer, Scorer):
        return scorer
    raise ScoreError(f"{door} takes a Scorer, not a {type(scorer).__name__}: {door}(bnexplore.Scorer(data, "
                     "score='bdeu')); learn(data, ...) builds it")

