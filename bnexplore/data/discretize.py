"""Discretization: the methods that cut a numeric column into bins, and the labels of the bins.

A method is written as the :class:`~bnexplore.data.Encoder`'s ``discretize``
option takes it (``"uniform3"``, ``"quantile:K"``, ``"width:K"``,
``"manual:c1,c2,..."`` or a list of cut points); :func:`parse_method` reads it
into a :class:`Method`, :func:`learn_cut_points` learns its cut points from
training values, :func:`discretize_values` codes values by them and
:func:`interval_labels` names the bins.
"""

import math
from dataclasses import dataclass

import numpy as np

from ..errors import DataError, subject


@dataclass(frozen=True)
class Method:
    """A parsed discretization method.

    Attributes
    ----------
    name : str
        ``"uniform3"``, ``"quantile"``, ``"width"`` or ``"manual"``.
    bins : int
        Bins asked for (the learned cut points may give fewer on tied data).
    cuts : tuple of float
        The cut points of a ``"manual"`` method.
    """

    name: str
    bins: int
    cuts: tuple = ()

    @property
    def text(self):
        """The method as the ``discretize`` option writes it (``"quantile:4"``)."""
        if self.name == "uniform3":
            return "uniform3"
        if self.name == "manual":
            return "manual:" + ",".join(repr(c) for c in self.cuts)
        return f"{self.name}:{self.bins}"


MAX_BINS = 1000
"""Most bins a discretization method may ask for (``K`` of quantile and width, cut points + 1 of manual): checked
before the cut points are allocated, so ``width:10000000000`` is refused in words rather than by numpy's
MemoryError. A thousand states is far beyond what a family's counts can support at any table size read here."""

_METHOD_HELP = (f"use 'uniform3', 'quantile:K', 'width:K' (K from 2 to {MAX_BINS:,}), 'manual:c1,c2,...' or a list "
                "of cut points")


def parse_method(value, name, key=None):
    """Parse one discretization method.

    Parameters
    ----------
    value : str or sequence of float
        The method as the ``discretize`` option takes it.
    name : str
        The option that gave it, named in messages.
    key : str, optional
        The entry of a dict-valued option (a column name).

    Returns
    -------
    Method

    Raises
    ------
    DataError
        Naming the option and what a method looks like.

    Examples
    --------
    >>> parse_method("Quantile:4", "discretize")
    Method(name='quantile', bins=4, cuts=())
    """
    given = subject(name, value if len(repr(value)) <= 80 else f"{str(value)[:60]}...", key)  # a long list cut
    if isinstance(value, (list, tuple, np.ndarray)):
        return _manual_method(list(value), given)
    if not isinstance(value, str):
        raise DataError(f"{given} is not a discretization method; {_METHOD_HELP}")
    name, _, argument = value.strip().lower().partition(":")
    argument = argument.strip()
    if name == "uniform3" and not argument:
        return Method("uniform3", 3)
    if name in ("quantile", "width"):
        digits = argument.lstrip("0")  # read as a number only when short: no int() of thousands of digits
        if not (argument.isascii() and argument.isdigit()) or len(digits) <= 1 and int(digits or 0) < 2:
            raise DataError(f"{given} is not valid: {name} needs a number of bins K >= 2, e.g. '{name}:3'")
        if len(digits) > len(str(MAX_BINS)) or int(digits) > MAX_BINS:
            raise DataError(f"{given} is not valid: {name} takes at most {MAX_BINS:,} bins, e.g. '{name}:5'")
        return Method(name, int(digits))
    if name == "manual":
        return _manual_method(argument.split(",") if argument else [], given)
    raise DataError(f"{given} is not a discretization method; {_METHOD_HELP}")


def _manual_method(items, given):
    """A manual method from cut point items (strings or numbers); ``given`` names the option in messages."""
    if len(items) >= MAX_BINS:
        raise DataError(f"{given} is not valid: {len(items):,} cut points make more than {MAX_BINS:,} bins")
    try:
        cuts = [float(item) for item in items]
    except (TypeError, ValueError):
        raise DataError(f"{given} is not valid: cut points must be numbers, e.g. 'manual:1.5,3'") from None
    if not cuts or not all(math.isfinite(c) for c in cuts):
        raise DataError(f"{given} is not valid: give one or more finite cut points, e.g. 'manual:1.5,3'")
    if any(b <= a for a, b in zip(cuts, cuts[1:])):
        raise DataError(f"{given} is not valid: cut points must be strictly increasing")
    return Method("manual", len(cuts) + 1, tuple(cuts))


def learn_cut_points(method, values):
    """Cut points of one column learned from its training values.

    Methods (``method`` as accepted by :class:`Encoder`):

    - ``"uniform3"``: the BNKL uniform discretization of Balov (2013),
      "A categorical network approach for discovering differentially
      expressed regulations in cancer", BMC Medical Genomics 6 (Suppl 3),
      Algorithm 1, step 1(b): ``q1 + k (q2 - q1) / 3`` for ``k = 1, 2``, with
      ``q1`` and ``q2`` the 2.5 and 97.5 percentiles of the training values
      (``numpy.percentile`` with its default linear interpolation), so the
      5% most extreme values do not stretch the bins.
    - ``"quantile:K"``: the ``k/K`` quantiles, ``k = 1 .. K-1`` (linear
      interpolation).
    - ``"width:K"``: ``K`` equal-width bins between the minimum and maximum.
    - ``"manual:c1,c2,..."`` or a list of floats: the cut points as given.

    For the learned methods, repeated cut points and cut points at or above
    the training maximum (which would leave an empty top bin) are removed, so
    tied data can give fewer bins than asked for, and a constant column none.

    Parameters
    ----------
    method : str or list of float
        A discretization method.
    values : array_like of float
        Non-missing, finite training values.

    Returns
    -------
    numpy.ndarray of float64
        Strictly increasing cut points. A value ``x`` gets code
        ``#{cuts < x}`` (right-closed intervals).

    Examples
    --------
    >>> learn_cut_points("width:4", [0.0, 1.0, 2.0, 3.0, 4.0]).tolist()
    [1.0, 2.0, 3.0]
    """
    method = method if isinstance(method, Method) else parse_method(method, "method")
    if method.name == "manual":
        return np.array(method.cuts, dtype=np.float64)
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return np.empty(0, dtype=np.float64)
    if method.name == "uniform3":
        q1, q2 = np.percentile(x, [2.5, 97.5])
        cuts = np.array([q1 + k * (q2 - q1) / 3 for k in (1, 2)])
    elif method.name == "quantile":
        cuts = np.quantile(x, np.arange(1, method.bins) / method.bins)
    else:
        low, high = x.min(), x.max()
        cuts = low + (high - low) * np.arange(1, method.bins) / method.bins
    return np.unique(cuts[cuts < x.max()])


def discretize_values(values, cuts):
    """Codes of values for right-closed bins: ``#{cuts < x}``.

    Parameters
    ----------
    values : array_like of float
    cuts : array_like of float
        Strictly increasing cut points.

    Returns
    -------
    numpy.ndarray of int64
        ``x <= c1 -> 0``, ``c1 < x <= c2 -> 1``, ..., ``x > c_last -> len(cuts)``.

    Examples
    --------
    >>> discretize_values([0.5, 1.0, 1.5, 9.0], [1.0, 2.0]).tolist()
    [0, 0, 1, 2]
    """
    return np.searchsorted(np.asarray(cuts, dtype=np.float64), values, side="left")


def interval_labels(cuts):
    """Readable labels of the bins cut at ``cuts``.

    Parameters
    ----------
    cuts : sequence of float

    Returns
    -------
    list of str
        ``["(-inf, 1.25]", "(1.25, 3.5]", "(3.5, inf)"]`` for cuts 1.25, 3.5;
        numbers are rounded for reading, with as many digits as it takes to
        tell the cut points apart. No cuts gives ``["(-inf, inf)"]``.

    Examples
    --------
    >>> interval_labels([1.25, 3.5])
    ['(-inf, 1.25]', '(1.25, 3.5]', '(3.5, inf)']
    """
    texts = _distinct_short_numbers(list(cuts))
    edges = ["-inf", *texts]
    labels = [f"({edges[k]}, {edges[k + 1]}]" for k in range(len(texts))]
    return labels + [f"({edges[-1]}, inf)"]


def _distinct_short_numbers(values):
    """Each value rounded to about 4 significant digits, or more until all differ."""
    for extra in range(16):
        texts = [_short_number(v, extra) for v in values]
        if len(set(texts)) == len(texts):
            return texts
    return [repr(v) for v in values]


def _short_number(value, extra):
    """``value`` with about 4 significant digits plus ``extra`` decimals, trailing zeros dropped."""
    decimals = extra + (max(0, 3 - math.floor(math.log10(abs(value)))) if value != 0 else 0)
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text
