"""How far the two classes differ, variable by variable, and the IDE node order it gives (Balov 2013, Eq. 7).

The marginal class-difference tests (Welch's t-test on numeric columns, the
G-test on categorical ones) order the variables least differential first
(:func:`ide_order`); :func:`marginal_divergence` measures each variable's
difference as a true KL divergence. p-values are kept on the log scale, with
tail series where the distribution functions underflow, so strongly
differential variables do not all tie at p = 0.
"""

import math

import numpy as np
from scipy import special


def _log_sf(sf, cdf):
    """``log P(X > x)`` from the survival and distribution functions at x, the way ``scipy.stats``' ``logsf`` takes it.

    ``log(sf)`` where ``sf < 1/2``, else ``log1p(-cdf)`` (accurate where ``sf``
    is near one), as :meth:`scipy.stats.rv_continuous.logsf` does above and
    below the median; from :mod:`scipy.special`, so that ``import bnexplore``
    does not load :mod:`scipy.stats` (far slower to import).
    ``-inf`` when ``sf`` underflows to 0.
    """
    with np.errstate(divide="ignore"):
        return float(np.log(sf)) if sf < 0.5 else float(np.log1p(-cdf))


def _t_tail_log_sf(t, dof):
    """``log P(T > t)`` for Student's t far in the tail (t > 0), without underflow.

    ``2 P(T > t) = I_x(dof / 2, 1 / 2)`` with ``x = dof / (dof + t^2)``, and
    ``I_x(a, b) = x^a (1 - x)^b F(a + b, 1; a + 1; x) / (a B(a, b))``
    (DLMF 8.17.8), taken on the log scale.
    """
    a = dof / 2
    log_x = math.log(dof) - 2 * math.log(t) - math.log1p(dof / (t * t))
    x = math.exp(log_x)
    return (math.log(0.5) + a * log_x + 0.5 * math.log1p(-x) - math.log(a) - float(special.betaln(a, 0.5))
            + math.log(float(special.hyp2f1(a + 0.5, 1.0, a + 1.0, x))))


def _chi2_tail_log_sf(g, k):
    """``log P(chi2_k > g)`` far in the tail (``g / 2 > k / 2 + 1``), without underflow.

    ``Q(s, x) = Gamma(s, x) / Gamma(s)`` with ``s = k / 2``, ``x = g / 2``;
    ``Gamma(s, x) = e^-x x^s / (x + 1 - s - 1 (1 - s) / (x + 3 - s - ...))``,
    the continued fraction evaluated by the modified Lentz method (Press et
    al., Numerical Recipes, Section 6.2).
    """
    s, x = k / 2, g / 2
    tiny = 1e-300
    b = x + 1 - s
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - s)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        h *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return -x + s * math.log(x) - math.lgamma(s) + math.log(h)


def welch_log_pvalue(a, b):
    """Natural log of the two-sided Welch t-test p-value of two samples.

    Welch's unequal-variance test is what R's ``t.test`` does by default, and
    sdnet is an R package; it also does not assume that a differential
    variable has the same spread in both classes. NaNs are ignored. A sample
    with fewer than two values gives p = 1 (no evidence); two constant
    samples give p = 1 when their values are equal and p = 0 otherwise.
    The log is taken from the t distribution's survival function (from a tail
    series where that underflows), so strongly differential variables do not all
    tie at p = 0.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    if a.size < 2 or b.size < 2:
        return 0.0
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    diff = a.mean() - b.mean()
    se2 = va + vb
    if se2 == 0:
        return 0.0 if diff == 0 else -math.inf
    t = diff / math.sqrt(se2)
    dof = se2 ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    log_sf = _log_sf(special.stdtr(dof, -abs(t)), special.stdtr(dof, abs(t)))
    if not math.isfinite(log_sf):
        log_sf = _t_tail_log_sf(abs(t), dof)
    return min(0.0, math.log(2.0) + log_sf)


def g_test_log_pvalue(codes, labels, arity):
    """Natural log of the p-value of the G-test (likelihood-ratio chi-square)
    of independence between a categorical variable and the class.

    ``G = 2 sum obs log(obs / expected)`` over the (state x class) table, with
    ``(states that occur - 1)`` degrees of freedom; fewer than two occurring
    states give p = 1. Log scale throughout, like :func:`welch_log_pvalue`.
    """
    counts = np.bincount(np.asarray(codes, np.int64) * 2 + np.asarray(labels, np.int64),
                         minlength=2 * int(arity)).reshape(-1, 2).astype(np.float64)
    counts = counts[counts.sum(axis=1) > 0]
    if counts.shape[0] < 2:
        return 0.0
    expected = np.outer(counts.sum(axis=1), counts.sum(axis=0)) / counts.sum()
    seen = counts > 0
    g = 2.0 * float(np.sum(counts[seen] * np.log(counts[seen] / expected[seen])))
    dof = counts.shape[0] - 1
    log_sf = _log_sf(special.chdtrc(dof, max(g, 0.0)), special.chdtr(dof, max(g, 0.0)))
    return min(0.0, log_sf if math.isfinite(log_sf) else _chi2_tail_log_sf(g, dof))


def class_difference_tests(data, labels, values=None):
    """Per-variable test of a marginal class difference.

    Parameters
    ----------
    data : Dataset
    labels : array of 0 / 1
    values : dict of str to array_like, optional
        Raw numeric values of the variables that were discretized (one per
        row); these get the Welch t-test of :func:`welch_log_pvalue`, every
        other variable the G-test of :func:`g_test_log_pvalue` on its codes.

    Returns
    -------
    log_pvalues : ndarray of float64
    tests : list of str
        ``"welch-t"`` or ``"g-test"`` per variable.
    """
    values = values or {}
    labels = np.asarray(labels)
    log_p, tests = np.zeros(data.n_vars), []
    for i, name in enumerate(data.names):
        if name in values:
            x = np.asarray(values[name], dtype=np.float64)
            log_p[i] = welch_log_pvalue(x[labels == 0], x[labels == 1])
            tests.append("welch-t")
        else:
            log_p[i] = g_test_log_pvalue(data.codes[:, i], labels, data.arities[i])
            tests.append("g-test")
    return log_p, tests


def ide_order(log_pvalues):
    """The order of increasing differential expression (Balov 2013, Eq. 7).

    Variables by decreasing p-value: the least differential first (upstream),
    the most differential last. Ties keep the column order.

    Parameters
    ----------
    log_pvalues : array_like of float
        Log p-values of the marginal class-difference tests.

    Returns
    -------
    list of int
    """
    return np.argsort(-np.asarray(log_pvalues, dtype=np.float64), kind="stable").tolist()


def marginal_divergence(data, labels):
    """How far each variable's own distribution is from the reference class's, as a true KL divergence.

    ``D_i = sum_k P_k log(P_k / P0_k)`` with ``P_k`` the share of all rows in
    state k and ``P0_k`` that of the class-0 rows, a zero ``P0_k`` reset to
    ``1 / (3 n)`` and the distribution renormalised, as the classifier does
    (Balov 2013, Algorithm 1(d)). Unlike the statistic ``R_i`` of the score,
    whose sdnet convention skips the cells without class-0 rows (and can then
    go negative), ``D_i >= 0``, with 0 only when the two distributions agree.

    Parameters
    ----------
    data : Dataset
    labels : ndarray of 0 / 1

    Returns
    -------
    ndarray of float64, one value per variable
    """
    labels = np.asarray(labels)
    n = data.n_rows
    floor = 1.0 / (3.0 * n)
    out = np.empty(data.n_vars)
    for v in range(data.n_vars):
        codes = np.asarray(data.codes[:, v], np.int64)
        r = int(data.arities[v])
        p = np.bincount(codes, minlength=r) / n
        p0 = np.bincount(codes[labels == 0], minlength=r) / max(1, int((labels == 0).sum()))
        p0 = np.where(p0 > 0, p0, floor)
        p0 /= p0.sum()
        seen = p > 0
        out[v] = max(0.0, float(np.sum(p[seen] * np.log(p[seen] / p0[seen]))))
    return out
