"""Conditional independence tests of discrete data: G-squared, Pearson chi-squared, permuted mutual information.

The constraint-based searches (PC-stable, MMHC's MMPC) ask one question many
times: are the columns ``x`` and ``y`` independent given the columns ``z``
(Spirtes, Glymour & Scheines 2000, Section 5.4)? :class:`IndependenceTest`
answers it from a data set with one of :data:`TESTS`:

- ``"g2"``: the likelihood-ratio statistic ``G2 = 2 sum n_xyz log(n_xyz n_z /
  (n_xz n_yz))`` (Agresti 2002, Section 3.2.1), summed over the strata
  (configurations) of ``z``;
- ``"chi2"``: Pearson's ``X2 = sum (n_xyz - e_xyz)^2 / e_xyz`` with ``e_xyz =
  n_xz n_yz / n_z`` (Agresti 2002, Section 3.2.1), summed likewise;
- ``"mi-perm"``: a permutation test of the same G2 (``2 N`` times the
  empirical conditional mutual information, in nats) for small samples, where
  the chi-squared approximation is poor.

Degrees of freedom are adjusted for empty cells as causal-learn's
``Chisq_or_Gsq`` (``causallearn/utils/cit.py``) does: each stratum of ``z``
that occurs (``n_z > 0``) adds ``(r_x' - 1)(r_y' - 1)``, where ``r_x'`` and
``r_y'`` count the states of ``x`` and ``y`` that occur in that stratum;
strata that do not occur add nothing; there is no lower bound of 1. With 0
degrees of freedom the p-value is 1 (independent), as in causal-learn, since
no stratum can show a dependence. The G2 and X2 p-values are the upper tail of
the chi-squared distribution.

Counting follows :mod:`bnexplore.scores.kernels`: the three-way table
``n(z, x, y)`` is counted densely (with :func:`bnexplore.scores.kernels.family_counts`)
while it has at most ``dense_cells`` cells; otherwise the rows are sorted by
their ``z`` configuration (:func:`strata`) and each stratum that occurs is
counted in turn, so a conditioning set with astronomically many joint states
never allocates a table for them.
"""

import json
import math
import numbers
import zlib
from typing import NamedTuple

import numpy as np

from .compiling import njit
from .data import check_dataset, require_complete, require_unweighted
from .errors import DataError, OptionError, subject
from .numerics import tie_tolerance
from .options import positive_number, seed_number, whole_number
from .scores.kernels import dense_cells, family_counts

__all__ = ["TESTS", "Outcome", "IndependenceTest", "independence_test", "strata", "ci_statistic", "permuted_statistics"]

TESTS = ("g2", "chi2", "mi-perm")
"""The conditional independence tests, by name (the search registry's ``TESTS`` are the same)."""

MAX_PERMUTATIONS = 1_000_000
"""Most permutations a permutation test may draw: a p-value resolution of one in a million is
finer than any significance level asks for, and the bound keeps one test's time finite."""

PERMUTATION_BLOCK = 1 << 20
"""Uniform numbers drawn at once for the permutation test (8 MB), so memory stays bounded
whatever the number of rows and permutations."""


class Outcome(NamedTuple):
    """What one independence test found.

    Attributes
    ----------
    p_value : float
        The p-value (1 when there are no degrees of freedom).
    statistic : float
        G2 (``"g2"``, ``"mi-perm"``) or Pearson's X2 (``"chi2"``).
    dof : int
        The degrees of freedom adjusted for empty cells (see the module docstring).

    Examples
    --------
    >>> Outcome(0.5, 0.45, 1).p_value
    0.5
    """

    p_value: float
    statistic: float
    dof: int


# -- kernels ----------------------------------------------------------------

@njit(cache=True)
def _stratum(cells, row, col, xs, nx, ys, ny, n_z, pearson):
    """(statistic, dof) of one stratum with table ``cells``, x margins ``row``, y margins
    ``col``, the occurring x states ``xs[:nx]`` and y states ``ys[:ny]``, ascending."""
    stat = 0.0
    for i in range(nx):
        a = xs[i]
        n_a = row[a]
        for j in range(ny):
            b = ys[j]
            c = cells[a, b]
            expected = n_a * col[b] / n_z
            if pearson:
                stat += (c - expected) ** 2 / expected
            elif c > 0:
                stat += 2.0 * c * math.log(c / expected)
    return stat, (nx - 1) * (ny - 1)


@njit(cache=True)
def _table_statistic(counts, pearson):
    """(statistic, dof) summed over the strata of a ``(m, r_x, r_y)`` count table."""
    m, r_x, r_y = counts.shape
    row = np.zeros(r_x, np.int64)
    col = np.zeros(r_y, np.int64)
    xs = np.empty(r_x, np.int64)
    ys = np.empty(r_y, np.int64)
    stat = 0.0
    dof = 0
    for k in range(m):
        cells = counts[k]
        n_z = 0
        for a in range(r_x):
            row[a] = 0
            for b in range(r_y):
                row[a] += cells[a, b]
            n_z += row[a]
        if n_z == 0:
            continue
        for b in range(r_y):
            col[b] = 0
            for a in range(r_x):
                col[b] += cells[a, b]
        nx = 0
        for a in range(r_x):
            if row[a] > 0:
                xs[nx] = a
                nx += 1
        ny = 0
        for b in range(r_y):
            if col[b] > 0:
                ys[ny] = b
                ny += 1
        s, d = _stratum(cells, row, col, xs, nx, ys, ny, n_z, pearson)
        stat += s
        dof += d
    return stat, dof


@njit(cache=True)
def _grouped_statistic(xs_codes, ys_codes, starts, r_x, r_y, pearson):
    """(statistic, dof) of rows grouped by stratum: stratum k is rows ``starts[k] .. starts[k+1]-1``
    of ``xs_codes`` / ``ys_codes``. Memory ``r_x r_y``, time the rows plus the occurring cells."""
    cells = np.zeros((r_x, r_y), np.int64)
    row = np.zeros(r_x, np.int64)
    col = np.zeros(r_y, np.int64)
    xs = np.empty(r_x, np.int64)
    ys = np.empty(r_y, np.int64)
    stat = 0.0
    dof = 0
    for k in range(starts.shape[0] - 1):
        nx = 0
        ny = 0
        for i in range(starts[k], starts[k + 1]):
            a = xs_codes[i]
            b = ys_codes[i]
            if row[a] == 0:
                xs[nx] = a
                nx += 1
            if col[b] == 0:
                ys[ny] = b
                ny += 1
            row[a] += 1
            col[b] += 1
            cells[a, b] += 1
        xs[:nx].sort()
        ys[:ny].sort()
        s, d = _stratum(cells, row, col, xs, nx, ys, ny, starts[k + 1] - starts[k], pearson)
        stat += s
        dof += d
        for i in range(starts[k], starts[k + 1]):
            cells[xs_codes[i], ys_codes[i]] = 0
        for i in range(nx):
            row[xs[i]] = 0
        for i in range(ny):
            col[ys[i]] = 0
    return stat, dof


@njit(cache=True)
def strata(cols, z):
    """The rows grouped by their configuration of the columns ``z``.

    Parameters
    ----------
    cols : (n_vars, n_rows) integer array
        The data, one C-contiguous row per variable (``Dataset.codes.T``).
    z : int64 array
        Column indices (may be empty: one stratum of all rows).

    Returns
    -------
    order : int64 array
        The row indices sorted by their ``z`` configuration (lexicographic, first column
        most significant; stable, so rows keep their order within a stratum).
    starts : int64 array
        ``m + 1`` offsets into ``order``: stratum k is ``order[starts[k]:starts[k + 1]]``,
        for the ``m`` configurations that occur.

    Examples
    --------
    >>> import numpy as np
    >>> cols = np.array([[1, 0, 1, 0], [0, 0, 1, 1]])
    >>> strata(cols, np.array([0], np.int64))
    (array([1, 3, 0, 2]), array([0, 2, 4]))
    """
    n = cols.shape[1]
    order = np.arange(n)
    keys = np.empty(n, np.int64)
    for t in range(z.shape[0] - 1, -1, -1):
        col = cols[z[t]]
        for i in range(n):
            keys[i] = col[order[i]]
        order = order[np.argsort(keys, kind="mergesort")]
    m = 1 if n > 0 else 0
    for i in range(1, n):
        for t in range(z.shape[0]):
            if cols[z[t], order[i]] != cols[z[t], order[i - 1]]:
                m += 1
                break
    starts = np.empty(m + 1, np.int64)
    starts[0] = 0
    starts[m] = n
    k = 1
    for i in range(1, n):
        for t in range(z.shape[0]):
            if cols[z[t], order[i]] != cols[z[t], order[i - 1]]:
                starts[k] = i
                k += 1
                break
    return order, starts


@njit(cache=True)
def ci_statistic(cols, arities, x, y, z, pearson, dense_cells):
    """G2 (or Pearson's X2) of ``x`` and ``y`` given ``z`` and its adjusted degrees of freedom.

    Parameters
    ----------
    cols : (n_vars, n_rows) integer array
        The data, one C-contiguous row per variable (``Dataset.codes.T``).
    arities : int64 array
    x, y : int
        Column indices.
    z : int64 array
        Conditioning columns.
    pearson : bool
        Pearson's X2 instead of G2.
    dense_cells : int
        Largest ``(z, x, y)`` table counted densely
        (:func:`bnexplore.scores.kernels.dense_cells`); above it the strata that
        occur are counted one by one (:func:`strata`).

    Returns
    -------
    statistic : float
    dof : int
        The sum over the strata that occur of ``(r_x' - 1)(r_y' - 1)`` (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> cols = np.array([[0, 0, 1, 1], [0, 0, 1, 1]])
    >>> s, d = ci_statistic(cols, np.array([2, 2]), 0, 1, np.zeros(0, np.int64), False, 4096)
    >>> round(s, 4), d  # 2 * 4 * log 2
    (5.5452, 1)
    """
    r_x = arities[x]
    r_y = arities[y]
    q = 1.0
    for t in range(z.shape[0]):
        q *= arities[z[t]]
    if q * r_x * r_y <= dense_cells:
        parents = np.empty(z.shape[0] + 1, np.int64)
        parents[: z.shape[0]] = z
        parents[z.shape[0]] = x
        counts = family_counts(cols, arities, y, parents, np.zeros(0, np.uint8), dense_cells)
        return _table_statistic(counts.reshape((int(q), r_x, r_y)), pearson)
    order, starts = strata(cols, z)
    return _grouped_statistic(cols[x][order].astype(np.int64), cols[y][order].astype(np.int64),
                              starts, r_x, r_y, pearson)


@njit(cache=True)
def permuted_statistics(xs, ys, starts, r_x, r_y, uniforms):
    """G2 of the grouped rows after each of ``len(uniforms)`` permutations of ``xs`` within the strata.

    Permutation p shuffles ``xs`` in place within every stratum (Fisher-Yates from the top: row
    ``i`` of a stratum starting at ``s`` swaps with row ``s + floor(uniforms[p, i] (i - s + 1))``),
    continuing from the previous permutation, then takes G2; the strata's margins, hence the
    degrees of freedom, do not change.

    Parameters
    ----------
    xs, ys : int64 arrays
        The codes of x and y in the order of :func:`strata` (``xs`` is shuffled in place).
    starts : int64 array
        The strata's offsets (:func:`strata`).
    r_x, r_y : int
        Arities of x and y.
    uniforms : (k, n_rows) float array
        Numbers in [0, 1).

    Returns
    -------
    float array of length k

    Examples
    --------
    >>> import numpy as np
    >>> xs, ys = np.array([0, 0, 1, 1]), np.array([0, 0, 1, 1])
    >>> u = np.array([[0.0, 0.0, 0.0, 0.0]])  # rows 3, 2, 1 swap with row 0 in turn
    >>> permuted_statistics(xs, ys, np.array([0, 4]), 2, 2, u), xs
    (array([0.]), array([0, 1, 1, 0]))
    """
    out = np.empty(uniforms.shape[0])
    for p in range(uniforms.shape[0]):
        u = uniforms[p]
        for k in range(starts.shape[0] - 1):
            s = starts[k]
            for i in range(starts[k + 1] - 1, s, -1):
                j = s + int(u[i] * (i - s + 1))
                xs[i], xs[j] = xs[j], xs[i]
        out[p] = _grouped_statistic(xs, ys, starts, r_x, r_y, False)[0]
    return out


# -- the test object --------------------------------------------------------

def _chi2_p_value(statistic, dof):
    """Upper tail of the chi-squared distribution; 1 without degrees of freedom."""
    if dof <= 0:
        return 1.0
    from scipy.special import chdtrc  # scipy is heavy: loaded by the first test, not by import bnexplore
    return float(chdtrc(dof, statistic))


class IndependenceTest:
    """Conditional independence tests of the columns of a discrete data set.

    Parameters
    ----------
    data : Dataset
        Anything with ``codes`` (``n_rows x n_vars`` integer codes), ``arities`` and
        ``names`` (a :class:`bnexplore.data.Dataset`, ``scorer.data``).
    test : {"g2", "chi2", "mi-perm"}
        G2, Pearson's X2, or the permutation test of G2 (module docstring; Spirtes,
        Glymour & Scheines 2000, Section 5.4; Agresti 2002, Section 3.2.1).
    alpha : float
        Significance level in (0, 1]: :meth:`independent` says independent when the
        p-value exceeds it.
    permutations : int
        Permutations of the ``"mi-perm"`` test (1 .. :data:`MAX_PERMUTATIONS`).
    seed : int, optional
        Seed of the permutation test; None draws fresh entropy.

    Attributes
    ----------
    names : list of str
    n_vars : int
    test : str
    alpha : float
    calls : int
        Tests run so far.

    Notes
    -----
    Degrees of freedom are adjusted for empty cells as causal-learn's ``Chisq_or_Gsq``:
    the sum, over the strata of ``z`` that occur, of ``(r_x' - 1)(r_y' - 1)`` with
    ``r_x'``, ``r_y'`` the states of x and y that occur in the stratum; with 0 degrees
    of freedom the p-value is 1.

    The ``"mi-perm"`` p-value is ``(1 + #{permuted G2 >= observed G2}) / (1 + permutations)``,
    the permutations shuffling one variable's values within each stratum of ``z`` (a
    tie within :func:`bnexplore.numerics.tie_tolerance` counts as ``>=``). Each test draws
    its permutations from a stream fixed by ``seed`` and the names of the variables
    (:meth:`stream`), always shuffles the variable whose name sorts first and orders the
    strata by ``z`` sorted by name, so a p-value does not depend on the order of the tests,
    of the columns, of ``x`` and ``y`` or of ``z``.

    Examples
    --------
    >>> import numpy as np
    >>> from bnexplore.data import Dataset
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 500)
    >>> codes = np.column_stack([a, a ^ (rng.random(500) < 0.1), rng.integers(0, 2, 500)])
    >>> ci = IndependenceTest(Dataset.from_codes(codes, names=["A", "B", "C"]), "g2", alpha=0.05)
    >>> ci.independent(0, 1)[0], ci.independent(0, 2)[0], ci.calls
    (False, True, 2)
    >>> ci(0, 1, (2,)).dof
    2
    """

    def __init__(self, data, test="g2", alpha=0.05, permutations=500, seed=None):
        if not isinstance(test, str) or test not in TESTS:
            raise OptionError(f"{subject('test', test)} is not an independence test: choose one of "
                              f"{', '.join(TESTS)}")
        self.test = test
        self.alpha = positive_number(alpha, "alpha", high=1.0)
        self.permutations = whole_number(permutations, "permutations", low=1, high=MAX_PERMUTATIONS)
        self.seed = seed_number(seed)
        data = check_dataset(data)
        require_complete(data, "an independence test (PC, MMHC)")
        require_unweighted(data, "an independence test (PC, MMHC)")
        codes = np.asarray(data.codes)
        self.names = [str(name) for name in data.names]
        self.n_vars = len(self.names)
        arities = np.asarray(data.arities).reshape(-1)
        if codes.ndim != 2 or codes.shape[1] != self.n_vars or arities.shape[0] != self.n_vars:
            raise DataError(f"the data's codes (shape {codes.shape}), arities ({arities.shape[0]}) and "
                            f"names ({self.n_vars}) do not agree")
        if codes.shape[0] > 0 and not np.issubdtype(codes.dtype, np.integer):
            raise DataError(f"the data's codes must be integers, got {codes.dtype}")
        self.arities = np.ascontiguousarray(arities, dtype=np.int64)
        if codes.shape[0] > 0:
            low, high = codes.min(axis=0), codes.max(axis=0)
            bad = np.flatnonzero((low < 0) | (high >= self.arities))
            if bad.size:
                v = int(bad[0])
                raise DataError(f"column {self.names[v]!r} has codes {int(low[v])} .. {int(high[v])} outside "
                                f"0 .. {int(self.arities[v]) - 1} (its {int(self.arities[v])} states)")
        self.cols = np.ascontiguousarray(codes.T)
        self.n_rows = codes.shape[0]
        self.dense_cells = dense_cells(self.n_rows)
        self._entropy = np.random.SeedSequence(self.seed).entropy
        self.calls = 0

    def __repr__(self):
        return f"IndependenceTest({self.test}, alpha={self.alpha:g}, {self.n_vars} variables, {self.n_rows} rows)"

    def _index(self, value, what):
        """``value`` as a column index, or the message naming ``what``."""
        index = value if type(value) is int else None  # plain ints skip the slower abstract-class check
        if index is None and isinstance(value, numbers.Integral) and not isinstance(value, bool):
            index = int(value)
        if index is None or not 0 <= index < self.n_vars:
            raise OptionError(f"{what} must be a column index 0 .. {self.n_vars - 1} of the data, got {value!r}")
        return index

    def _check(self, x, y, z):
        """``(x, y, z)`` checked, ``z`` as an int64 array."""
        x = self._index(x, "x")
        y = self._index(y, "y")
        if x == y:
            raise OptionError(f"x and y are both {self.names[x]!r}: a variable is not tested against itself")
        if isinstance(z, (str, bytes)) or not hasattr(z, "__iter__"):
            raise OptionError(f"z must be a sequence of column indices, got {z!r}")
        z = [self._index(v, "every member of z") for v in z]
        for v, label in ((x, "x"), (y, "y")):
            if v in z:
                raise OptionError(f"{label} = {self.names[v]!r} is also in the conditioning set z")
        if len(set(z)) < len(z):
            raise OptionError(f"the conditioning set z repeats a variable: {[self.names[v] for v in z]}")
        return x, y, np.array(z, np.int64)

    def stream(self, x, y, z=()):
        """The random generator of the permutation test of ``x`` and ``y`` given ``z``.

        Fixed by ``seed`` and the names of ``{x, y}`` and of ``z`` (as sets), so the same
        question draws the same permutations whatever the order it is asked in.

        Parameters
        ----------
        x, y : int
        z : sequence of int

        Returns
        -------
        numpy.random.Generator

        Examples
        --------
        >>> import numpy as np
        >>> from bnexplore.data import Dataset
        >>> ci = IndependenceTest(Dataset.from_codes(np.zeros((4, 3), int)), "mi-perm", seed=1)
        >>> bool(ci.stream(0, 1, [2]).random() == ci.stream(1, 0, (2,)).random())
        True
        """
        return self._generator(*self._check(x, y, z))

    def _generator(self, x, y, z):
        """:meth:`stream` of checked arguments."""
        key = json.dumps([sorted([self.names[x], self.names[y]]), sorted(self.names[v] for v in z)])
        sequence = np.random.SeedSequence(self._entropy, spawn_key=(zlib.crc32(key.encode("utf-8")),))
        return np.random.default_rng(sequence)

    def __call__(self, x, y, z=()):
        """Test ``x`` independent of ``y`` given ``z``.

        Parameters
        ----------
        x, y : int
            Column indices, different.
        z : sequence of int
            The conditioning set (column indices, neither x nor y).

        Returns
        -------
        Outcome
            ``(p_value, statistic, dof)``.

        Examples
        --------
        >>> import numpy as np
        >>> from bnexplore.data import Dataset
        >>> ci = IndependenceTest(Dataset.from_codes(np.array([[0, 0], [0, 0], [1, 1], [1, 1]])))
        >>> out = ci(0, 1)
        >>> out.dof, round(out.statistic, 4), round(out.p_value, 4)
        (1, 5.5452, 0.0185)
        """
        x, y, z = self._check(x, y, z)
        self.calls += 1
        if self.test != "mi-perm":
            statistic, dof = ci_statistic(self.cols, self.arities, x, y, z, self.test == "chi2", self.dense_cells)
            return Outcome(_chi2_p_value(statistic, dof), float(statistic), int(dof))
        rng = self._generator(x, y, z)
        if self.names[y] < self.names[x]:
            x, y = y, x  # shuffle the variable whose name sorts first (G2 is symmetric)
        z = np.array(sorted(z, key=lambda v: self.names[v]), np.int64)  # strata in the same order too
        order, starts = strata(self.cols, z)
        xs = self.cols[x][order].astype(np.int64)
        ys = self.cols[y][order].astype(np.int64)
        r_x, r_y = int(self.arities[x]), int(self.arities[y])
        observed, dof = _grouped_statistic(xs, ys, starts, r_x, r_y, False)
        tie = tie_tolerance(observed)
        block = max(1, PERMUTATION_BLOCK // max(1, self.n_rows))
        at_least = 0
        for done in range(0, self.permutations, block):
            uniforms = rng.random((min(block, self.permutations - done), self.n_rows))
            at_least += int(np.count_nonzero(permuted_statistics(xs, ys, starts, r_x, r_y, uniforms)
                                             >= observed - tie))
        return Outcome((1 + at_least) / (1 + self.permutations), float(observed), int(dof))

    def independent(self, x, y, z=()):
        """Whether the test finds ``x`` independent of ``y`` given ``z`` (``p_value > alpha``).

        Parameters
        ----------
        x, y : int
        z : sequence of int

        Returns
        -------
        (bool, Outcome)

        Examples
        --------
        >>> import numpy as np
        >>> from bnexplore.data import Dataset
        >>> ci = IndependenceTest(Dataset.from_codes(np.array([[0, 0], [0, 1], [1, 0], [1, 1]])))
        >>> ci.independent(0, 1)
        (True, Outcome(p_value=1.0, statistic=0.0, dof=1))
        """
        outcome = self(x, y, z)
        return outcome.p_value > self.alpha, outcome


def independence_test(test, data, alpha=0.05, permutations=500, seed=None):
    """The independence test a search's ``test=`` names, checked against the data.

    A name of :data:`TESTS` builds an :class:`IndependenceTest` on ``data``; an
    object of the protocol (``names``, ``n_vars``, ``__call__(x, y, z)`` returning
    ``(p_value, statistic, dof)``, e.g. a d-separation oracle) is checked to cover
    the data's variables and kept. PC and MMHC take their ``test=`` through here.

    Parameters
    ----------
    test : {"g2", "chi2", "mi-perm"} or test object
    data : Dataset
        Complete, unweighted rows (``scorer.data``).
    alpha, permutations, seed
        As in :class:`IndependenceTest` (used only for a name).

    Returns
    -------
    IndependenceTest or the object given

    Raises
    ------
    OptionError
        For an unknown name or an object that is not a test of these variables.

    Examples
    --------
    >>> import numpy as np
    >>> from bnexplore.data import Dataset
    >>> data = Dataset.from_codes(np.random.default_rng(0).integers(0, 2, (100, 3)))
    >>> independence_test("g2", data).test
    'g2'
    >>> independence_test("fisher-z", data)
    Traceback (most recent call last):
    ...
    bnexplore.errors.OptionError: test='fisher-z' is not an independence test: choose one of g2, chi2, mi-perm
    """
    data = check_dataset(data)
    if isinstance(test, str):
        return IndependenceTest(data, test, alpha, permutations, seed)
    if not callable(test) or not hasattr(test, "n_vars"):
        raise OptionError(f"{subject('test')} must be one of {', '.join(TESTS)} or an independence test object "
                          f"(names, n_vars, __call__(x, y, z) -> (p_value, statistic, dof)), got {test!r}")
    if test.n_vars != len(data.names):
        raise OptionError(f"the independence test covers {test.n_vars} variables, the data {len(data.names)}")
    return test
