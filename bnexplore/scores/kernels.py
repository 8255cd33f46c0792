"""Numba kernels for counting and local scores of discrete data.

Every kernel takes plain arrays: ``cols`` is the ``(n_vars, n_rows)`` integer
code matrix, one C-contiguous row per variable (``Dataset.codes.T``, a free view
of the column-contiguous codes), ``arities`` the number of states of each
variable (int64), ``parents`` an int64 array of column indices. Each kernel has a plain-Python twin in
``tests/naive.py`` that the tests compare it with on random inputs.

Counting works in two passes (see :func:`family_counts`): first the
(configuration, child state) of every row as a mixed-radix key, then a
histogram of the keys. When the
number of possible configurations is large compared with the number of rows,
the keys are compressed to the configurations that occur (by sorting), so a
parent set of 10 variables with 5 states never allocates 5**10 cells.

Weighted data (a completed table whose rows carry weights, as structural EM's
E-step makes it) is counted by the ``weighted_`` twin of each kernel: the same
keys, but each row adds its weight instead of 1, so the count tables are
float64 and the sample size ``N`` of BIC is the total weight. Both share one
private implementation whose ``weights`` argument is None for plain counts;
:func:`_tally` picks the histogram from the type of ``weights`` when numba
compiles it, so the unweighted kernels run the integer code they always ran.
"""

import math

import numpy as np
from numba import config, prange, types
from numba.extending import overload

from ..compiling import njit
from .registry import AIC, BDEU, BIC, K2  # the codes the kernels branch on, as the score registry numbers them

_KEY_LIMIT = 1 << 40
"""Compress configuration keys before they could exceed this (int64-safe)."""



def dense_cells(n_rows):
    """Largest count table the kernels allocate densely for ``n_rows`` rows.

    A table of ``4 * n_rows`` cells (at least 4,096) costs about as much to
    scan as the rows cost to count; larger tables are compressed to the
    configurations that occur.
    """
    return max(1 << 12, 4 * int(n_rows))


@njit(cache=True)
def _compress(keys):
    """Replace keys by their rank among the distinct keys; return (ranks, m)."""
    order = np.argsort(keys)
    ranks = np.empty_like(keys)
    m = 0
    prev = -1
    for t in range(order.shape[0]):
        i = order[t]
        k = keys[i]
        if t == 0 or k != prev:
            m += 1
            prev = k
        ranks[i] = m - 1
    return ranks, m


@njit(cache=True)
def _dense_keys(cols, arities, child, parents, extra):
    """Mixed-radix key (parents..., extra, child) of every row, as int32.

    The first parent is the most significant digit and the child the least,
    so the key is ``(config * n_extra + extra) * r + child_state``.
    """
    n_rows = cols.shape[1]
    keys = np.zeros(n_rows, np.int32)
    for t in range(parents.shape[0]):
        p = parents[t]
        r = np.int32(arities[p])
        col = cols[p]
        for i in range(n_rows):
            keys[i] = keys[i] * r + np.int32(col[i])
    if extra.shape[0] > 0:
        for i in range(n_rows):
            keys[i] = keys[i] * 2 + np.int32(extra[i])
    if child >= 0:
        r = np.int32(arities[child])
        col = cols[child]
        for i in range(n_rows):
            keys[i] = keys[i] * r + np.int32(col[i])
    return keys


@njit(cache=True)
def _histogram(keys, cells):
    """Counts of each key in ``0 .. cells-1`` (four interleaved tables, so
    repeated keys do not serialise on one counter)."""
    part = np.zeros((4, cells), np.int32)
    n = keys.shape[0]
    n4 = n - n % 4
    for i in range(0, n4, 4):
        part[0, keys[i]] += 1
        part[1, keys[i + 1]] += 1
        part[2, keys[i + 2]] += 1
        part[3, keys[i + 3]] += 1
    for i in range(n4, n):
        part[0, keys[i]] += 1
    counts = np.empty(cells, np.int64)
    for j in range(cells):
        counts[j] = part[0, j] + part[1, j] + part[2, j] + part[3, j]
    return counts


@njit(cache=True)
def _key_counts(keys, cells):
    """Counts of each key in ``0 .. cells-1`` in one table (for the compressed
    keys, whose table can be as long as the rows: four copies would cost more
    than they save)."""
    counts = np.zeros(cells, np.int64)
    for i in range(keys.shape[0]):
        counts[keys[i]] += 1
    return counts


@njit(cache=True)
def _weighted_histogram(keys, weights, cells):
    """Sum of ``weights`` of the rows with each key in ``0 .. cells-1`` (float64)."""
    counts = np.zeros(cells)
    for i in range(keys.shape[0]):
        counts[keys[i]] += weights[i]
    return counts


def _tally(keys, cells, weights, dense):
    """Count table of ``keys``: int64 counts when ``weights`` is None, else
    float64 sums of the rows' weights.

    In the kernels numba compiles the implementation :func:`_tally_for`
    picks from the type of ``weights`` (``dense`` chooses the interleaved
    :func:`_histogram` for plain counts; compressed keys use one table); this
    body is what runs with numba's JIT disabled.
    """
    return np.bincount(keys, weights, minlength=cells)


@overload(_tally)
def _tally_for(keys, cells, weights, dense):
    """The implementation of :func:`_tally` for the type of ``weights``."""
    if isinstance(weights, types.NoneType):
        return lambda keys, cells, weights, dense: _histogram(keys, cells) if dense else _key_counts(keys, cells)
    return lambda keys, cells, weights, dense: _weighted_histogram(keys, weights, cells)


@njit(cache=True)
def _sparse_keys(cols, arities, child, parents, extra):
    """Keys like :func:`_dense_keys`, but with the parent configurations
    compressed to the ``m`` that occur (ranks in sorted order); returns
    ``(keys, m)``. Used when the dense table would be too large."""
    n_rows = cols.shape[1]
    keys = np.zeros(n_rows, np.int64)
    m = 1
    for t in range(parents.shape[0]):
        p = parents[t]
        r = arities[p]
        if m * r > _KEY_LIMIT:
            keys, m = _compress(keys)
        col = cols[p]
        for i in range(n_rows):
            keys[i] = keys[i] * r + col[i]
        m *= r
    keys, m = _compress(keys)
    if extra.shape[0] > 0:
        for i in range(n_rows):
            keys[i] = keys[i] * 2 + extra[i]
    if child >= 0:
        r = arities[child]
        col = cols[child]
        for i in range(n_rows):
            keys[i] = keys[i] * r + col[i]
    return keys, m


@njit(cache=True)
def _counts(cols, arities, child, parents, extra, dense_cells, weights):
    """:func:`family_counts` (``weights`` None) and :func:`weighted_family_counts`."""
    r = 1 if child < 0 else arities[child]
    n_extra = 2 if extra.shape[0] > 0 else 1
    q = _n_configs(arities, parents)
    if q * n_extra * r <= dense_cells:
        m = int(q) * n_extra
        keys = _dense_keys(cols, arities, child, parents, extra)
        return _tally(keys, m * r, weights, True).reshape((m, r))
    keys, m = _sparse_keys(cols, arities, child, parents, extra)
    m *= n_extra
    return _tally(keys, m * r, weights, False).reshape((m, r))


@njit(cache=True)
def family_counts(cols, arities, child, parents, extra, dense_cells):
    """Counts ``n_jk`` of child state k under parent configuration j.

    Parameters
    ----------
    cols : (n_vars, n_rows) integer array
        The data, one C-contiguous row per variable (``Dataset.codes.T``).
    child : int
        The child column, or -1 to count parent configurations alone.
    parents : int64 array
    extra : uint8 array
        Empty, or a 0 / 1 value per row that splits every configuration in
        two (the class label of the BNKL statistic): configuration j becomes
        rows ``2 j`` and ``2 j + 1``.
    dense_cells : int
        Largest table counted densely (see :func:`dense_cells`).

    Returns
    -------
    counts : (m, r) int64 array
        Rows are every possible configuration when the table is small, else
        only the configurations that occur, in sorted order.
    """
    return _counts(cols, arities, child, parents, extra, dense_cells, None)


@njit(cache=True)
def weighted_family_counts(cols, arities, child, parents, weights, dense_cells):
    """Weighted counts: the sum of ``weights`` over the rows of each cell.

    As :func:`family_counts` (without the class split), with ``weights`` a
    float64 array of one weight per row; returns a float64 ``(m, r)`` table.
    With integer weights it equals the counts of the data with each row
    repeated ``weights[i]`` times.
    """
    return _counts(cols, arities, child, parents, np.zeros(0, np.uint8), dense_cells, weights)


@njit(cache=True)
def _score_from_counts(counts, q, n_rows, score, ess):
    """Local score of one family from its ``(m, r)`` count table.

    ``counts`` are int64 counts or float64 weighted counts (numba compiles
    each); ``n_rows`` is the sample size ``N`` of BIC, the total weight of
    weighted data. The formulas below hold for real counts as they stand
    (``lgamma`` and ``log`` of a weighted count).

    ``q`` is the number of possible parent configurations (product of the
    parent arities, as a float so it cannot overflow); configurations that do
    not occur contribute nothing to any of these scores.

    BDeu (Heckerman, Geiger & Chickering 1995) with ``a_j = ess / q`` and
    ``a_jk = ess / (q r)``: ``sum_j [lgamma(a_j) - lgamma(a_j + n_j)] +
    sum_jk [lgamma(a_jk + n_jk) - lgamma(a_jk)]``. K2 is the same with
    ``a_jk = 1``. LL is ``sum_jk n_jk log(n_jk / n_j)``; BIC subtracts
    ``log(N) / 2 * q (r - 1)`` and AIC ``q (r - 1)``.
    """
    m, r = counts.shape
    total = 0.0
    if score == BDEU or score == K2:
        if score == BDEU:
            a_jk = ess / (q * r)
            a_j = ess / q
        else:
            a_jk = 1.0
            a_j = float(r)
        lg_a_jk = math.lgamma(a_jk)
        lg_a_j = math.lgamma(a_j)
        for j in range(m):
            n_j = 0
            for k in range(r):
                c = counts[j, k]
                if c > 0:
                    n_j += c
                    total += math.lgamma(a_jk + c) - lg_a_jk
            if n_j > 0:
                total += lg_a_j - math.lgamma(a_j + n_j)
        return total
    for j in range(m):
        n_j = 0
        for k in range(r):
            n_j += counts[j, k]
        if n_j == 0:
            continue
        log_n_j = math.log(n_j)
        for k in range(r):
            c = counts[j, k]
            if c > 0:
                total += c * (math.log(c) - log_n_j)
    if score == BIC:
        total -= 0.5 * math.log(n_rows) * q * (r - 1)
    elif score == AIC:
        total -= q * (r - 1)
    return total


@njit(cache=True)
def _n_configs(arities, parents):
    """Number of possible parent configurations, as a float."""
    q = 1.0
    for t in range(parents.shape[0]):
        q *= arities[parents[t]]
    return q


@njit(cache=True)
def _local(cols, arities, child, parents, score, ess, dense_cells, weights, n):
    """:func:`local_score` (``weights`` None) and :func:`weighted_local_score`; ``n`` the sample size."""
    counts = _counts(cols, arities, child, parents, np.zeros(0, np.uint8), dense_cells, weights)
    return _score_from_counts(counts, _n_configs(arities, parents), n, score, ess)


@njit(cache=True)
def _total_weight(cols, weights):
    """Sample size: the number of rows, or the total weight."""
    return float(cols.shape[1]) if weights is None else weights.sum()


@njit(cache=True)
def local_score(cols, arities, child, parents, score, ess, dense_cells):
    """Local score ``s(child, parents)`` (natural log, higher is better)."""
    return _local(cols, arities, child, parents, score, ess, dense_cells, None, cols.shape[1])


@njit(cache=True)
def weighted_local_score(cols, arities, child, parents, weights, score, ess, dense_cells):
    """:func:`local_score` of weighted data (``weights`` float64, one per row):
    every count is a weighted count and BIC's ``N`` is ``weights.sum()``."""
    return _local(cols, arities, child, parents, score, ess, dense_cells, weights, weights.sum())


@njit(cache=True, parallel=True)
def _batch(cols, arities, children, parents, sizes, score, ess, dense_cells, weights):
    """The batch kernels in parallel, ``weights`` None or per row."""
    n = _total_weight(cols, weights)
    out = np.empty(children.shape[0])
    for t in prange(children.shape[0]):
        out[t] = _local(cols, arities, children[t], parents[t, : sizes[t]], score, ess, dense_cells, weights, n)
    return out


@njit(cache=True)
def _batch_serial(cols, arities, children, parents, sizes, score, ess, dense_cells, weights):
    """:func:`_batch` on one thread."""
    n = _total_weight(cols, weights)
    out = np.empty(children.shape[0])
    for t in range(children.shape[0]):
        out[t] = _local(cols, arities, children[t], parents[t, : sizes[t]], score, ess, dense_cells, weights, n)
    return out


@njit(cache=True)
def local_scores(cols, arities, children, parents, sizes, score, ess, dense_cells):
    """Batched :func:`local_score`, parallel over the candidates.

    ``parents`` is a ``(m, k)`` int64 array whose row t holds the parent set of
    ``children[t]`` in its first ``sizes[t]`` entries.
    """
    return _batch(cols, arities, children, parents, sizes, score, ess, dense_cells, None)


@njit(cache=True)
def local_scores_serial(cols, arities, children, parents, sizes, score, ess, dense_cells):
    """:func:`local_scores` on one thread, for small batches (where starting
    the parallel threads costs more than it saves)."""
    return _batch_serial(cols, arities, children, parents, sizes, score, ess, dense_cells, None)


@njit(cache=True)
def weighted_local_scores(cols, arities, children, parents, sizes, weights, score, ess, dense_cells):
    """Batched :func:`weighted_local_score`, parallel over the candidates (see :func:`local_scores`)."""
    return _batch(cols, arities, children, parents, sizes, score, ess, dense_cells, weights)


@njit(cache=True)
def weighted_local_scores_serial(cols, arities, children, parents, sizes, weights, score, ess, dense_cells):
    """:func:`weighted_local_scores` on one thread, for small batches."""
    return _batch_serial(cols, arities, children, parents, sizes, score, ess, dense_cells, weights)


PARALLEL_WORK = 1 << 16
"""Row visits (families times rows) from which a batch runs on the parallel kernels.

Each parallel region wakes the other threads and waits for the last of them;
below about 65,000 row visits (a fraction of a millisecond of counting) that
costs more than the second core saves, and on a machine where another
process holds the cores the wait for a thread to be scheduled costs far more
(:mod:`bnexplore.threads`)."""


def parallel_pays(families, n_rows):
    """True when a batch of ``families`` over ``n_rows`` rows is worth a parallel region (:data:`PARALLEL_WORK`)
    and numba may run more than one thread.

    With one thread (``NUMBA_NUM_THREADS=1``, or a one-core machine) a parallel region only adds its own
    cost, and loading a parallel kernel starts numba's threading layer: about 2 MiB of memory for each of
    the two batch kernels (measured with one thread), which the serial kernels save. It reads the configured
    count (``numba.config.NUMBA_NUM_THREADS``), not ``numba.get_num_threads()``, which would itself start
    the threading layer.
    """
    return families > 1 and families * n_rows >= PARALLEL_WORK and config.NUMBA_NUM_THREADS > 1


CHECK_WORK = 1 << 22
"""Row visits a long pass of local scores makes between two checks of the stop flag and the clock.

About 4 million, tens of milliseconds with the Python around each score, so
Stop and a time limit act at once: the first pass of a local search over
wide data scores every one of the ``n (n - 1)`` arcs, which for thousands of
variables is long; a small problem's whole pass is one piece, so its stop
checks are as before."""


def families_per_check(n_rows):
    """Local scores a long pass computes between two stop checks (:data:`CHECK_WORK`), at least 1."""
    return max(1, CHECK_WORK // max(1, int(n_rows)))


@njit(cache=True)
def _added_parent_score(cols, arities, child, base, q, u, score, ess, weights, n):
    """``s(child, parents + {u})`` from the parents' configuration keys ``base``
    (``q`` configurations): one fused pass extending the key by ``u`` and the
    child, then the histogram (of ``weights`` when not None; ``n`` the sample size)."""
    n_rows = cols.shape[1]
    r_child = arities[child]
    r = np.int32(r_child)
    r_u = np.int32(arities[u])
    col = cols[u]
    child_col = cols[child]
    keys = np.empty(n_rows, np.int32)
    for i in range(n_rows):
        keys[i] = (base[i] * r_u + np.int32(col[i])) * r + np.int32(child_col[i])
    m = int(q) * arities[u]
    counts = _tally(keys, m * r_child, weights, True).reshape((m, r_child))
    return _score_from_counts(counts, q * arities[u], n, score, ess)


@njit(cache=True, parallel=True)
def _added(cols, arities, child, parents, extras, score, ess, weights):
    """The added-parent kernels in parallel, ``weights`` None or per row."""
    base = _dense_keys(cols, arities, -1, parents, np.zeros(0, np.uint8))
    q = _n_configs(arities, parents)
    n = _total_weight(cols, weights)
    out = np.empty(extras.shape[0])
    for t in prange(extras.shape[0]):
        out[t] = _added_parent_score(cols, arities, child, base, q, extras[t], score, ess, weights, n)
    return out


@njit(cache=True)
def _added_serial(cols, arities, child, parents, extras, score, ess, weights):
    """:func:`_added` on one thread."""
    base = _dense_keys(cols, arities, -1, parents, np.zeros(0, np.uint8))
    q = _n_configs(arities, parents)
    n = _total_weight(cols, weights)
    out = np.empty(extras.shape[0])
    for t in range(extras.shape[0]):
        out[t] = _added_parent_score(cols, arities, child, base, q, extras[t], score, ess, weights, n)
    return out


@njit(cache=True)
def added_parent_scores(cols, arities, child, parents, extras, score, ess):
    """``s(child, parents + {u})`` for every ``u`` in ``extras``, in parallel.

    The moves of a local search add one parent to a fixed set, so the key of
    ``parents`` is computed once and shared. Dense tables only: the caller
    makes sure every ``q * r_u * r`` fits.
    """
    return _added(cols, arities, child, parents, extras, score, ess, None)


@njit(cache=True)
def added_parent_scores_serial(cols, arities, child, parents, extras, score, ess):
    """:func:`added_parent_scores` on one thread, for small batches."""
    return _added_serial(cols, arities, child, parents, extras, score, ess, None)


@njit(cache=True)
def weighted_added_parent_scores(cols, arities, child, parents, extras, weights, score, ess):
    """:func:`added_parent_scores` of weighted data (``weights`` float64, one per row)."""
    return _added(cols, arities, child, parents, extras, score, ess, weights)


@njit(cache=True)
def weighted_added_parent_scores_serial(cols, arities, child, parents, extras, weights, score, ess):
    """:func:`weighted_added_parent_scores` on one thread, for small batches."""
    return _added_serial(cols, arities, child, parents, extras, score, ess, weights)


@njit(cache=True)
def _entropy(cols, arities, variables, dense_cells, weights):
    """:func:`entropy` (``weights`` None) and :func:`weighted_entropy`."""
    counts = _counts(cols, arities, -1, variables, np.zeros(0, np.uint8), dense_cells, weights)
    n = _total_weight(cols, weights)
    h = 0.0
    for j in range(counts.shape[0]):
        c = counts[j, 0]
        if c > 0:
            p = c / n
            h -= p * math.log(p)
    return h


@njit(cache=True)
def entropy(cols, arities, variables, dense_cells):
    """Empirical joint entropy ``H(variables)`` in nats (0 for the empty set)."""
    return _entropy(cols, arities, variables, dense_cells, None)


@njit(cache=True)
def weighted_entropy(cols, arities, variables, weights, dense_cells):
    """:func:`entropy` of weighted data: cell probabilities are weighted counts over the total weight."""
    return _entropy(cols, arities, variables, dense_cells, weights)


@njit(cache=True)
def kl_statistic(cols, arities, labels, child, parents, dense_cells):
    """The BNKL statistic ``R_i`` and complexity ``df_i`` of one family.

    Balov (2013), Eq. (3): ``R_i = (1/n) sum_j sum_k n_jk log(P_jk / P0_jk)``
    with ``P_jk = n_jk / n_j`` from all rows and ``P0_jk = n0_jk / n0_j`` from
    the rows with ``labels == 0``. Empty cells as the sdnet package treats
    them: a cell with ``n_jk = 0`` or ``n0_jk = 0`` contributes nothing, and a
    configuration without class-0 rows is skipped. ``df_i = q (r - 1)``.
    ``labels`` holds 0 / 1 per row.
    """
    counts = family_counts(cols, arities, child, parents, labels, dense_cells)
    r = counts.shape[1]
    total = 0.0
    for j in range(counts.shape[0] // 2):
        n_j = 0
        n0_j = 0
        for k in range(r):
            n0_j += counts[2 * j, k]
            n_j += counts[2 * j, k] + counts[2 * j + 1, k]
        if n0_j == 0:
            continue
        for k in range(r):
            c0 = counts[2 * j, k]
            c = c0 + counts[2 * j + 1, k]
            if c0 > 0:
                total += c * math.log((c / n_j) / (c0 / n0_j))
    return total / cols.shape[1], _n_configs(arities, parents) * (r - 1)


@njit(cache=True, parallel=True)
def kl_statistics(cols, arities, labels, children, parents, sizes, dense_cells):
    """Batched :func:`kl_statistic`; returns the arrays ``(R, df)``."""
    m = children.shape[0]
    r_out = np.empty(m)
    df_out = np.empty(m)
    for t in prange(m):
        ps = parents[t, : sizes[t]]
        r_out[t], df_out[t] = kl_statistic(cols, arities, labels, children[t], ps, dense_cells)
    return r_out, df_out
