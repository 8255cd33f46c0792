"""Numerical conventions every search shares: when two scores count as the same.

Log scores are sums of thousands of log-gamma terms, so two equal networks
scored along different paths differ in the last bits. Every search compares
scores with :func:`tie_tolerance` so that ties are read the same way in hill
climbing, RPDAG search, ordering search and branch and cut.

Examples
--------
>>> from bnexplore.numerics import tie_tolerance
>>> tie_tolerance(-12345.0)
1.2345e-05
>>> tie_tolerance(0.5)
1e-09
"""

RELATIVE_TIE = 1e-9
"""Scores closer than this fraction of their size (or of 1, for scores under 1) are a tie."""


def tie_tolerance(score):
    """How far a score may be from ``score`` and still count as equal to it.

    Parameters
    ----------
    score : float
        A log score (any sign).

    Returns
    -------
    float
        ``RELATIVE_TIE * max(1, |score|)``.

    Examples
    --------
    >>> tie_tolerance(-2000.0)
    2e-06
    """
    return RELATIVE_TIE * max(1.0, abs(score))
