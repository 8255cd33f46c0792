"""bnexplore.bnkl.divergence takes its p-values from scipy.special, not scipy.stats (which import bnexplore must
not load): on the log scale they equal scipy.stats' logsf, also where p is near one (log1p of the
distribution function, not the log of the survival function)."""

import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from bnexplore.bnkl import g_test_log_pvalue, welch_log_pvalue


@pytest.mark.parametrize("seed", range(6))
def test_welch_log_pvalue_is_scipy_stats_logsf(seed):
    rng = np.random.default_rng(seed)
    for shift in (0.0, 0.001, 0.3, 3.0):  # p from near one to tiny
        a = rng.normal(0, rng.uniform(0.5, 2), rng.integers(3, 60))
        b = rng.normal(shift, rng.uniform(0.5, 2), rng.integers(3, 60))
        test = stats.ttest_ind(a, b, equal_var=False)
        expected = min(0.0, math.log(2.0) + float(stats.t.logsf(abs(test.statistic), test.df)))
        assert welch_log_pvalue(a, b) == pytest.approx(expected, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("seed", range(6))
def test_g_test_log_pvalue_is_scipy_stats_logsf(seed):
    rng = np.random.default_rng(seed)
    for lift in (0.0, 0.02, 0.2):  # independent (p near one) to strongly dependent
        codes = rng.integers(0, 4, 400)
        labels = (rng.random(400) < 0.3 + lift * codes).astype(np.uint8)
        table = np.array([[np.sum((codes == k) & (labels == c)) for c in (0, 1)] for k in range(4)])
        g = stats.chi2_contingency(table, correction=False, lambda_="log-likelihood").statistic
        expected = min(0.0, float(stats.chi2.logsf(g, 3)))
        assert g_test_log_pvalue(codes, labels, 4) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_near_one_the_log_of_p_keeps_its_digits():
    """Twenty states in both classes alike but for one row: p is one but for about 1e-40, which the log of
    the survival function rounds to 0 and log1p of the distribution function keeps."""
    table = np.full((20, 2), 1000)
    table[0] = (1001, 999)
    codes = np.repeat(np.arange(20), table.sum(axis=1))
    labels = np.concatenate([np.repeat([0, 1], row) for row in table]).astype(np.uint8)
    got = g_test_log_pvalue(codes, labels, 20)
    g = stats.chi2_contingency(table, correction=False, lambda_="log-likelihood").statistic
    assert got == pytest.approx(float(stats.chi2.logsf(g, 19)), rel=1e-9)
    assert -1e-20 < got < 0


def test_importing_bnexplore_and_bnkl_does_not_load_scipy_stats():
    code = ("import sys, bnexplore, bnexplore.bnkl, bnexplore.classifier, bnexplore.bif; "
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
