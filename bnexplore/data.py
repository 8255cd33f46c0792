"""Reading, validation, discretization and integer encoding of data tables.

A :class:`Dataset` is the form every score and search works on: a matrix of
small integer codes (one column per variable, column-contiguous), the arity of
each variable, its name and the label of each of its states. An
:class:`Encoder` turns a table (a pandas DataFrame) into a Dataset. It learns
how to type, discretize and code every column from one table (``fit``) and
applies exactly that to another (``transform``), so a classifier can learn on
training rows and code test rows the same way. :func:`read_csv` reads a file or
an uploaded buffer and encodes it; :func:`read_frame` only reads it, for pages
that show the raw table (:meth:`Encoder.profile`) before the user chooses how
to discretize.

Every problem a user can cause raises :class:`bnexplore.errors.DataError` with
a one-line message naming the column, row (1-based data rows, as in a
spreadsheet) or value, or adds a warning to ``Dataset.warnings`` that is also
emitted with :func:`warnings.warn`.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import math
import os
import re
import sys
import warnings as _warnings
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import DataError

CATEGORICAL = "categorical"
NUMERIC = "numeric"
MISSING_LABEL = "<missing>"
MISSING_POLICIES = ("state", "drop", "error")
_UNKNOWN = -2  # code of a value an encoder cannot code (unseen category, text in a numeric column)


# ----------------------------------------------------------------------------
# Dataset
# ----------------------------------------------------------------------------


def code_dtype(max_arity):
    """Smallest integer dtype holding codes ``0 .. max_arity - 1``.

    Parameters
    ----------
    max_arity : int
        Largest arity among the variables.

    Returns
    -------
    numpy.dtype
        ``uint8`` up to 256 states, ``uint16`` up to 65,536, else ``int32``.
    """
    if max_arity <= 1 << 8:
        return np.dtype(np.uint8)
    if max_arity <= 1 << 16:
        return np.dtype(np.uint16)
    return np.dtype(np.int32)


class Dataset:
    """Integer-coded discrete data: what every score and search reads.

    Parameters
    ----------
    codes : array_like of int, shape (n_rows, n_vars)
        ``codes[s, i]`` is the state of variable ``i`` in row ``s``, in
        ``0 .. arities[i] - 1``. Stored column-contiguous (Fortran order) in
        the smallest of uint8 / uint16 / int32 that fits.
    arities : array_like of int, shape (n_vars,)
        Number of states of each variable (stored as int32).
    names : sequence of str
        Unique variable names.
    states : sequence of sequence of str
        ``states[i][k]`` is the label of code ``k`` of variable ``i``.
    encoder : Encoder, optional
        The fitted encoder that produced the codes (None for coded input).
    warnings : list of str, optional
        Problems found while reading and encoding that did not stop it.
    """

    def __init__(self, codes, arities, names, states, encoder=None, warnings=None):
        self.arities = np.asarray(arities, dtype=np.int32).reshape(-1)
        self.names = [str(name) for name in names]
        self.states = [[str(label) for label in labels] for labels in states]
        self.encoder = encoder
        self.warnings = list(warnings or [])
        codes = np.asarray(codes)
        _check_layout(codes, self.arities, self.names, self.states)
        _check_code_range(codes, self.arities, self.names)
        self.codes = np.asfortranarray(codes, dtype=code_dtype(max(self.arities, default=1)))
        self._positions = {name: i for i, name in enumerate(self.names)}

    # -- constructors ---------------------------------------------------------

    @classmethod
    def from_frame(cls, df, **encoder_options):
        """Encode a DataFrame: ``Encoder(**encoder_options).fit_transform(df)``.

        Parameters
        ----------
        df : pandas.DataFrame
            One column per variable, one row per sample.
        **encoder_options
            Options of :class:`Encoder`.

        Returns
        -------
        Dataset
        """
        return Encoder(**encoder_options).fit_transform(df)

    @classmethod
    def from_codes(cls, codes, arities=None, names=None, states=None):
        """Wrap an integer-coded array.

        Parameters
        ----------
        codes : array_like of int, shape (n_rows, n_vars)
            Non-negative integer codes (integer-valued floats are accepted).
        arities : sequence of int, optional
            Default: ``max + 1`` of each column (1 for a table without rows).
        names : sequence of str, optional
            Default ``"X0", "X1", ...``.
        states : sequence of sequence of str, optional
            Default ``"0" .. str(arity - 1)``.

        Returns
        -------
        Dataset
        """
        codes = _integer_codes(codes, names)
        n_vars = codes.shape[1]
        if names is None:
            names = [f"X{i}" for i in range(n_vars)]
        if arities is None:
            arities = codes.max(axis=0, initial=0) + 1 if n_vars else []
        if states is None:
            states = [[str(k) for k in range(int(r))] for r in np.asarray(arities).reshape(-1)]
        return cls(codes, arities, names, states)

    # -- shape and names ------------------------------------------------------

    @property
    def n_rows(self):
        """Number of rows (samples)."""
        return self.codes.shape[0]

    @property
    def n_vars(self):
        """Number of variables (columns)."""
        return self.codes.shape[1]

    def index(self, name_or_int):
        """Position of a variable given by name or by position.

        Parameters
        ----------
        name_or_int : str or int
            A variable name, or a position in ``0 .. n_vars - 1``.

        Returns
        -------
        int
        """
        if isinstance(name_or_int, (int, np.integer)) and not isinstance(name_or_int, (bool, np.bool_)):
            if 0 <= name_or_int < self.n_vars:
                return int(name_or_int)
            raise DataError(f"variable number {name_or_int} is out of range; use 0..{self.n_vars - 1} or a name")
        if isinstance(name_or_int, str):
            if name_or_int in self._positions:
                return self._positions[name_or_int]
            raise DataError(f"no variable named {name_or_int!r}; the variables are {_short_list(self.names)}")
        raise DataError(f"{name_or_int!r} is not a variable; give a variable name or a number 0..{self.n_vars - 1}")

    def indices(self, seq):
        """Positions of several variables (see :meth:`index`).

        Parameters
        ----------
        seq : iterable of str or int
            Names or positions; a single name or position is accepted too.

        Returns
        -------
        list of int
        """
        if isinstance(seq, (str, int, np.integer)):
            return [self.index(seq)]
        return [self.index(item) for item in seq]

    # -- views ----------------------------------------------------------------

    def to_frame(self):
        """The data as labels: one categorical column per variable.

        Returns
        -------
        pandas.DataFrame
            Column ``names[i]`` holds ``states[i][codes[:, i]]`` (missing
            values show as the state ``"<missing>"``).
        """
        return pd.DataFrame(
            {
                name: pd.Categorical.from_codes(self.codes[:, i].astype(np.int32), categories=self.states[i])
                for i, name in enumerate(self.names)
            }
        )

    def subset(self, rows):
        """The same variables (arities, states, encoder) on some rows.

        Parameters
        ----------
        rows : slice, boolean mask or sequence of int
            Rows to keep, in the order given.

        Returns
        -------
        Dataset
        """
        try:
            picked = np.arange(self.n_rows)[rows]
        except IndexError as error:
            raise DataError(
                f"cannot take rows {_short_repr(rows)} of a table with {self.n_rows} rows: {error}"
            ) from None
        return Dataset(self.codes[picked], self.arities, self.names, self.states, self.encoder, self.warnings)

    def select(self, columns):
        """Some of the variables, in the order given.

        Parameters
        ----------
        columns : iterable of str or int
            Names or positions; each at most once.

        Returns
        -------
        Dataset
        """
        picked = self.indices(columns)
        repeated = _repeated([self.names[i] for i in picked])
        if repeated:
            raise DataError(f"variables selected more than once: {_short_list(repeated)}; name each once")
        return Dataset(
            self.codes[:, picked],
            self.arities[picked],
            [self.names[i] for i in picked],
            [self.states[i] for i in picked],
            self.encoder,
            self.warnings,
        )

    def summary(self):
        """One row per variable, for display.

        Returns
        -------
        pandas.DataFrame
            Columns ``name``, ``kind`` ("categorical" or
            "numeric-discretized"), ``levels`` (arity), ``states`` (labels,
            shortened), ``missing`` (rows in the ``"<missing>"`` state) and
            ``cuts`` (cut points of discretized columns, else None).
        """
        specs = self.encoder.columns if self.encoder is not None else {}
        rows = []
        for i, name in enumerate(self.names):
            spec = specs.get(name)
            numeric = spec is not None and spec.kind == NUMERIC
            missing_code = self.arities[i] - 1 if self.states[i][-1] == MISSING_LABEL else -1
            rows.append(
                {
                    "name": name,
                    "kind": "numeric-discretized" if numeric else CATEGORICAL,
                    "levels": int(self.arities[i]),
                    "states": _short_list(self.states[i], quote=False),
                    "missing": int(np.count_nonzero(self.codes[:, i] == missing_code)),
                    "cuts": spec.cuts.tolist() if numeric else None,
                }
            )
        return pd.DataFrame(rows, columns=["name", "kind", "levels", "states", "missing", "cuts"])

    def __repr__(self):
        return f"Dataset({self.n_rows} rows x {self.n_vars} variables: {_short_list(self.names, quote=False)})"


def _check_layout(codes, arities, names, states):
    """Raise DataError unless codes, arities, names and states agree."""
    if codes.ndim != 2:
        raise DataError(f"codes must be a 2-d table (rows x variables), got {codes.ndim} dimension(s)")
    n_vars = codes.shape[1]
    if not len(arities) == len(names) == len(states) == n_vars:
        raise DataError(
            f"codes have {n_vars} columns but there are {len(arities)} arities, {len(names)} names "
            f"and {len(states)} state lists; give one of each per column"
        )
    repeated = _repeated(names)
    if repeated:
        raise DataError(f"duplicated variable names: {_short_list(repeated)}; give every variable its own name")
    for name, arity, labels in zip(names, arities, states):
        if arity < 1:
            raise DataError(f"variable {name!r} has arity {arity}; every variable needs at least one state")
        if len(labels) != arity:
            raise DataError(
                f"variable {name!r} has arity {arity} but {len(labels)} state labels; give one label per state"
            )
        if len(set(labels)) != len(labels):
            raise DataError(f"variable {name!r} has repeated state labels {labels}; make them unique")


def _check_code_range(codes, arities, names):
    """Raise DataError naming the first code outside ``0 .. arity - 1``."""
    if codes.shape[0] == 0:
        return
    if not np.issubdtype(codes.dtype, np.integer):
        raise DataError(f"codes must be integers, got dtype {codes.dtype}; use Dataset.from_codes for other input")
    bad = (codes.min(axis=0) < 0) | (codes.max(axis=0) >= arities)
    if bad.any():
        j = int(np.argmax(bad))
        column = codes[:, j]
        row = int(np.argmax((column < 0) | (column >= arities[j])))
        raise DataError(
            f"column {names[j]!r} row {row + 1} has code {column[row]}, outside 0..{arities[j] - 1}; "
            f"fix the code or raise the arity"
        )


def _integer_codes(codes, names):
    """Codes as a 2-d non-negative integer array, or DataError naming the bad cell."""
    codes = np.asarray(codes)
    if codes.ndim != 2:
        raise DataError(f"codes must be a 2-d table (rows x variables), got {codes.ndim} dimension(s)")
    if codes.dtype == bool:
        codes = codes.astype(np.uint8)
    if not np.issubdtype(codes.dtype, np.number):
        raise DataError(f"codes must be numbers, got dtype {codes.dtype}; use Dataset.from_frame for labels")
    names = list(names) if names is not None else [f"X{i}" for i in range(codes.shape[1])]
    if not np.issubdtype(codes.dtype, np.integer):
        bad = ~np.isfinite(codes) | (codes != np.floor(codes))
        if bad.any():
            row, col = np.argwhere(bad)[0]
            value = codes[row, col].item()
            raise DataError(f"column {_name_at(names, col)!r} row {row + 1} has {value!r}, not an integer code")
        codes = codes.astype(np.int64)
    negative = codes < 0
    if negative.any():
        row, col = np.argwhere(negative)[0]
        raise DataError(f"column {_name_at(names, col)!r} row {row + 1} has code {codes[row, col]}; codes must be >= 0")
    return codes


def _name_at(names, j):
    return names[j] if j < len(names) else f"X{j}"


# ----------------------------------------------------------------------------
# Discretization methods
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Method:
    """A parsed discretization method: name, bins asked for, manual cuts."""

    name: str
    bins: int
    cuts: tuple = ()

    @property
    def text(self):
        if self.name == "uniform3":
            return "uniform3"
        if self.name == "manual":
            return "manual:" + ",".join(repr(c) for c in self.cuts)
        return f"{self.name}:{self.bins}"


_METHOD_HELP = "use 'uniform3', 'quantile:K', 'width:K' (K >= 2), 'manual:c1,c2,...' or a list of cut points"


def _parse_method(value, option):
    """Parse one discretization method; ``option`` names it in messages."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return _manual_method(list(value), value, option)
    if not isinstance(value, str):
        raise DataError(f"{option}={value!r} is not a discretization method; {_METHOD_HELP}")
    name, _, argument = value.strip().lower().partition(":")
    argument = argument.strip()
    if name == "uniform3" and not argument:
        return _Method("uniform3", 3)
    if name in ("quantile", "width"):
        if not argument.isdigit() or int(argument) < 2:
            raise DataError(f"{option}={value!r} is not valid: {name} needs a number of bins K >= 2, e.g. '{name}:3'")
        return _Method(name, int(argument))
    if name == "manual":
        return _manual_method(argument.split(",") if argument else [], value, option)
    raise DataError(f"{option}={value!r} is not a discretization method; {_METHOD_HELP}")


def _manual_method(items, value, option):
    """A manual method from cut point items (strings or numbers)."""
    try:
        cuts = [float(item) for item in items]
    except (TypeError, ValueError):
        raise DataError(f"{option}={value!r} is not valid: cut points must be numbers, e.g. 'manual:1.5,3'") from None
    if not cuts or not all(math.isfinite(c) for c in cuts):
        raise DataError(f"{option}={value!r} is not valid: give one or more finite cut points, e.g. 'manual:1.5,3'")
    if any(b <= a for a, b in zip(cuts, cuts[1:])):
        raise DataError(f"{option}={value!r} is not valid: cut points must be strictly increasing")
    return _Method("manual", len(cuts) + 1, tuple(cuts))


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
    """
    method = method if isinstance(method, _Method) else _parse_method(method, "method")
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
    decimals = extra + (max(0, 3 - math.floor(math.log10(abs(value)))) if value != 0 else 0)
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


# ----------------------------------------------------------------------------
# Columns of a table, prepared for typing and coding
# ----------------------------------------------------------------------------


@dataclass
class _Column:
    """One table column, factorized: all the encoder needs, no per-row objects.

    ``codes[s]`` indexes ``uniques`` (-1 = missing); ``numbers[u]`` is the
    value of ``uniques[u]`` as a float (NaN when it is not a number);
    ``number_valued`` tells whether every value is a number (and the dtype
    is not bool or categorical); ``category_order`` is the label order of a
    pandas categorical.
    """

    name: str
    codes: np.ndarray
    uniques: np.ndarray
    numbers: np.ndarray
    number_valued: bool
    category_order: list | None = None
    note: str | None = None  # warning found while preparing (mixed numbers and text)

    def n_missing(self):
        return int(np.count_nonzero(self.codes < 0))

    def labels(self):
        """Canonical text of each unique (see :func:`_label`)."""
        return [_label(x, u) for x, u in zip(self.numbers.tolist(), self.uniques.tolist())]

    def present(self):
        """Which uniques occur in the (current) rows."""
        return np.bincount(self.codes[self.codes >= 0], minlength=len(self.uniques)) > 0

    def first_row_with(self, unique_mask):
        """Index of the first row whose value is one of the masked uniques."""
        return int(np.argmax(np.append(unique_mask, False)[self.codes]))


def _label(number, value):
    """Canonical text of a cell: integers exactly, whole floats without ".0"
    (a float column with NaN reads 2.0 for 2), other numbers as ``repr``
    ("2.5"), anything else as ``str``. ``number`` is ``_as_number(value)``.
    """
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if math.isnan(number):
        return str(value)
    if number.is_integer() and abs(number) < 2**53:
        return str(int(number))
    return repr(number)


def _as_number(value):
    """Float value of a cell that holds a number or numeric text, else NaN."""
    if isinstance(value, (bool, np.bool_)):
        return math.nan
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return math.nan
    return math.nan


def _prepare_column(name, series):
    """Factorize one column (noting it when it mixes numbers and text)."""
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        uniques = np.asarray(uniques)
        order = [_text_of(c) for c in dtype.categories]
        return _Column(name, codes, uniques, _numbers_of(uniques), False, order)
    if pd.api.types.is_bool_dtype(dtype):
        uniques = np.asarray(uniques)
        return _Column(name, codes, uniques, np.full(len(uniques), np.nan), False)
    if pd.api.types.is_numeric_dtype(dtype):
        numbers = np.asarray(uniques, dtype=np.float64)
        return _Column(name, codes, np.asarray(uniques), numbers, True)
    uniques = np.asarray(uniques, dtype=object)
    blank = np.array([isinstance(u, str) and not u.strip() for u in uniques], dtype=bool)
    if blank.any():
        codes, uniques = _drop_uniques(codes, uniques, blank)
    numbers = _numbers_of(uniques)
    is_number = ~np.isnan(numbers)
    column = _Column(name, codes, uniques, numbers, bool(is_number.all()))
    if is_number.any() and not column.number_valued:
        column.note = _mixed_warning(column, is_number)
    return column


def _numbers_of(uniques):
    return np.array([_as_number(u) for u in uniques], dtype=np.float64)


def _text_of(value):
    return _label(_as_number(value), value)


def _drop_uniques(codes, uniques, drop):
    """Make the dropped uniques missing (-1) and renumber the others."""
    renumber = np.full(len(uniques) + 1, -1, dtype=np.int64)
    renumber[:-1][~drop] = np.arange(np.count_nonzero(~drop))
    return renumber[codes], uniques[~drop]


def _mixed_warning(column, is_number):
    """Warning naming a value of the rarer kind (numbers vs text) in a mixed column."""
    rows_per_unique = np.bincount(column.codes[column.codes >= 0], minlength=len(column.uniques))
    numbers_are_rarer = rows_per_unique[is_number].sum() < rows_per_unique[~is_number].sum()
    odd = is_number if numbers_are_rarer else ~is_number
    row = column.first_row_with(odd)
    value = column.uniques[column.codes[row]]
    return (
        f"column {column.name!r} mixes numbers and text (row {row + 1}: {str(value)!r}); it is treated as "
        f"categorical text: fix that value, or mark it missing, if the column should be numeric"
    )


@dataclass
class _Table:
    """Prepared columns of a table and the original positions of its rows."""

    columns: list
    n_rows: int
    rows: np.ndarray | None = None  # original position of each current row; None = unchanged

    def row_number(self, i):
        """1-based row number, as the user sees it, of current row ``i``."""
        return int(self.rows[i] if self.rows is not None else i) + 1

    def keep_rows(self, keep):
        for column in self.columns:
            column.codes = column.codes[keep]
        self.rows = keep if self.rows is None else self.rows[keep]
        self.n_rows = len(keep)


def _column_names(df):
    names = [str(c) for c in df.columns]
    repeated = _repeated(names)
    if repeated:
        raise DataError(
            f"duplicated column names: {_short_list(repeated)}; rename them so every column has its own name"
        )
    return names


def _prepare_table(df, wanted=None):
    """Prepare the columns of ``df`` (only ``wanted`` ones, in that order, if given)."""
    if not isinstance(df, pd.DataFrame):
        raise DataError(f"expected a pandas DataFrame, got {type(df).__name__}; use read_csv for files")
    names = _column_names(df)
    if not names:
        raise DataError("the table has no columns; load a table with at least one column")
    if len(df) == 0:
        raise DataError(f"the table has columns ({_short_list(names)}) but no data rows; load a table with data")
    position = {name: j for j, name in enumerate(names)}
    if wanted is not None:
        absent = [name for name in wanted if name not in position]
        if absent:
            raise DataError(
                f"the table has no column {_short_list(absent)}, which the encoder was fitted on; "
                f"give a table with the same columns"
            )
        names = wanted
    return _Table([_prepare_column(name, df.iloc[:, position[name]]) for name in names], len(df))


# ----------------------------------------------------------------------------
# Encoder
# ----------------------------------------------------------------------------


@dataclass
class ColumnSpec:
    """What an :class:`Encoder` learned about one column.

    Attributes
    ----------
    name : str
    kind : str
        ``"categorical"`` or ``"numeric"`` (discretized).
    states : list of str
        Label of each code; ``"<missing>"`` last when ``missing_state``.
    method : str or None
        Discretization method of a numeric column.
    cuts : numpy.ndarray or None
        Exact cut points of a numeric column.
    missing : int
        Missing values in the table the encoder was fitted on.
    missing_state : bool
        Whether missing values are coded as the last state.
    constant : bool
        Whether the column has a single state in the fitted table.
    declared : bool
        Whether ``types`` named the kind (rather than it being inferred).
    """

    name: str
    kind: str
    states: list
    method: str | None = None
    cuts: np.ndarray | None = None
    missing: int = 0
    missing_state: bool = False
    constant: bool = False
    declared: bool = False

    @property
    def arity(self):
        """Number of states."""
        return len(self.states)


class Encoder:
    """Types, discretizes and integer-codes the columns of a table.

    ``fit`` learns, from one table, each column's kind (categorical or
    numeric), its states, and for numeric columns the cut points;
    ``transform`` codes any table with the same columns exactly that way
    (values outside the training range fall into the end bins).

    Column typing: strings, booleans, pandas categoricals, integer columns
    with at most ``max_int_levels`` distinct values, and float columns whose
    values are all whole numbers with at most ``max_int_levels`` distinct
    values are categorical; other numbers are numeric and need a
    discretization. Categorical states are the distinct observed values
    sorted (numbers numerically, before text; a pandas categorical keeps its
    category order), so the arity is the number of distinct values.

    Parameters
    ----------
    discretize : str, list of float or dict, optional
        One method for every numeric column, or a dict column -> method (a
        column given a method is numeric). Methods: ``"uniform3"``,
        ``"quantile:K"``, ``"width:K"``, ``"manual:c1,c2,..."`` or a list of
        cut points; see :func:`learn_cut_points`.
    types : str or dict, optional
        ``"categorical"`` or ``"numeric"`` for every column, or a dict
        column -> kind, overriding the inferred kind.
    missing : {"state", "drop", "error"}
        ``"state"``: missing cells (NaN, None, empty text) get their own last
        state ``"<missing>"`` in the columns that have any when fitting;
        ``"drop"``: rows with a missing cell are dropped; ``"error"``: raise.
    max_levels : int or None
        Largest number of states of a column inferred categorical (a column
        declared categorical in ``types`` is exempt); None for no limit.
    max_int_levels : int
        Integer-valued columns with at most this many distinct values are
        categorical.
    drop_constant : bool
        Drop single-state columns (otherwise they are kept with a warning).

    Attributes
    ----------
    columns : dict of str to ColumnSpec
        Per-column result of ``fit``, in table order (dropped constant columns
        included, flagged ``constant``).
    warnings : list of str
        Warnings raised while fitting.
    """

    def __init__(self, discretize=None, types=None, missing="state", max_levels=50, max_int_levels=10,
                 drop_constant=False):
        self.discretize = discretize
        self.types = types
        self.missing = missing
        self.max_levels = max_levels
        self.max_int_levels = max_int_levels
        self.drop_constant = drop_constant
        self._methods = _parse_discretize(discretize)
        self._types = _parse_types(types)
        if missing not in MISSING_POLICIES:
            raise DataError(f"missing={missing!r} is not a policy; use 'state', 'drop' or 'error'")
        if max_levels is not None and not (_is_int(max_levels) and max_levels >= 2):
            raise DataError(f"max_levels={max_levels!r} is not valid; use a whole number >= 2 (or None for no limit)")
        if not (_is_int(max_int_levels) and max_int_levels >= 0):
            raise DataError(f"max_int_levels={max_int_levels!r} is not valid; use a whole number >= 0")
        if not isinstance(drop_constant, (bool, np.bool_)):
            raise DataError(f"drop_constant={drop_constant!r} is not valid; use True or False")
        self.columns = {}
        self.warnings = []

    def __repr__(self):
        defaults = {"discretize": None, "types": None, "missing": "state", "max_levels": 50,
                    "max_int_levels": 10, "drop_constant": False}
        changed = [f"{k}={getattr(self, k)!r}" for k, v in defaults.items() if repr(getattr(self, k)) != repr(v)]
        return f"Encoder({', '.join(changed)})"

    # -- public API -----------------------------------------------------------

    def fit(self, df):
        """Learn kinds, states and cut points from ``df``; returns self."""
        self._fit_table(_prepare_table(df))
        _emit(self.warnings)
        return self

    def transform(self, df):
        """Code ``df`` with what ``fit`` learned.

        Parameters
        ----------
        df : pandas.DataFrame
            Must have every column the encoder was fitted on (others are
            ignored).

        Returns
        -------
        Dataset
        """
        if not self.columns:
            raise DataError("the encoder has not been fitted; call fit(df) first")
        table = _prepare_table(df, self.encoded_names())
        notes = [c.note for c in table.columns if c.note and _inferred_categorical(self.columns[c.name])]
        notes += self._apply_missing_policy(table)
        _emit(notes)
        return self._encode(table, notes)

    def fit_transform(self, df):
        """``fit(df)`` then ``transform(df)``, preparing the table once.

        Returns
        -------
        Dataset
            With ``warnings`` = the fit warnings.
        """
        table = _prepare_table(df)
        self._fit_table(table)
        _emit(self.warnings)
        kept = set(self.encoded_names())
        table.columns = [c for c in table.columns if c.name in kept]
        return self._encode(table, self.warnings)

    def cut_points(self):
        """Exact cut points of each numeric column.

        Returns
        -------
        dict of str to list of float
        """
        return {name: spec.cuts.tolist() for name, spec in self.columns.items() if spec.kind == NUMERIC}

    def encoded_names(self):
        """Names of the columns ``transform`` codes (constant ones dropped if asked)."""
        return [name for name, spec in self.columns.items() if not (spec.constant and self.drop_constant)]

    def profile(self, df):
        """Describe a raw table before encoding, with this encoder's options.

        Parameters
        ----------
        df : pandas.DataFrame

        Returns
        -------
        pandas.DataFrame
            One row per column: ``column``, ``type`` (the kind the encoder
            would give it), ``discretize`` (the method a numeric column
            would get, or None), ``distinct`` (distinct non-missing values),
            ``missing``, ``min`` and ``max`` (numbers only), ``note``
            (e.g. mixed numbers and text).
        """
        table = _prepare_table(df)
        rows = []
        for column in table.columns:
            kind, _ = self._kind_of(column)
            method = self._method_of(column.name) if kind == NUMERIC else None
            valued = column.number_valued and len(column.uniques) > 0
            rows.append(
                {
                    "column": column.name,
                    "type": kind,
                    "discretize": method.text if method else None,
                    "distinct": len(column.uniques),
                    "missing": column.n_missing(),
                    "min": float(np.min(column.numbers)) if valued else None,
                    "max": float(np.max(column.numbers)) if valued else None,
                    "note": column.note or "",
                }
            )
        return pd.DataFrame(rows, columns=["column", "type", "discretize", "distinct", "missing", "min", "max", "note"])

    # -- fitting --------------------------------------------------------------

    def _fit_table(self, table):
        names = [c.name for c in table.columns]
        self._check_option_columns(names)
        kinds = [self._kind_of(column) for column in table.columns]
        undiscretized = [c.name for c, (kind, _) in zip(table.columns, kinds)
                         if kind == NUMERIC and self._method_of(c.name) is None]
        if undiscretized:
            example = undiscretized[0]
            raise DataError(
                f"numeric column(s) {_short_list(undiscretized, limit=None)} need a discretization: pass "
                f"discretize='uniform3' (or 'quantile:K', 'width:K', 'manual:...'), or "
                f"types={{{example!r}: 'categorical'}} to use their values as categories"
            )
        n_missing = [column.n_missing() for column in table.columns]
        notes = [c.note for c, (kind, declared) in zip(table.columns, kinds)
                 if c.note and kind == CATEGORICAL and not declared]
        notes += self._apply_missing_policy(table)
        specs = {}
        for column, (kind, declared), missing in zip(table.columns, kinds, n_missing):
            if kind == NUMERIC:
                spec, note = self._fit_numeric(column, table)
                if note:
                    notes.append(note)
            else:
                spec = self._fit_categorical(column, declared)
            spec.declared, spec.missing = declared, missing
            spec.missing_state = self.missing == "state" and bool((column.codes < 0).any())
            if spec.missing_state:
                spec.states.append(MISSING_LABEL)
            spec.constant = spec.arity == 1
            specs[column.name] = spec
        self.columns = specs
        notes += self._constant_warnings()
        self.warnings = notes

    def _check_option_columns(self, names):
        known = set(names)
        for option, mapping in (("types", self._types), ("discretize", self._methods)):
            if isinstance(mapping, dict):
                absent = [name for name in mapping if name not in known]
                if absent:
                    raise DataError(
                        f"{option} names column(s) {_short_list(absent)} that the table does not have; "
                        f"the columns are {_short_list(names)}"
                    )

    def _kind_of(self, column):
        """(kind, declared) of a column: options first, then inference."""
        declared = self._types.get(column.name) if isinstance(self._types, dict) else self._types
        if isinstance(self._methods, dict) and column.name in self._methods:
            if declared == CATEGORICAL:
                raise DataError(
                    f"column {column.name!r} is given a discretization but declared categorical in types; "
                    f"remove one of the two"
                )
            return NUMERIC, declared is not None
        if declared is not None:
            return declared, True
        return _infer_kind(column, self.max_int_levels), False

    def _method_of(self, name):
        if isinstance(self._methods, dict):
            return self._methods.get(name)
        return self._methods

    def _fit_categorical(self, column, declared):
        labels = column.labels()
        distinct = {labels[u] for u in np.flatnonzero(column.present())}
        if not declared and self.max_levels is not None and len(distinct) > self.max_levels:
            raise DataError(_too_many_levels_message(column, len(distinct), self.max_levels))
        if column.category_order is not None:
            rank = {label: k for k, label in enumerate(column.category_order)}
            states = sorted(distinct, key=rank.__getitem__)
        else:
            states = sorted(distinct, key=_label_sort_key)
        return ColumnSpec(column.name, CATEGORICAL, states)

    def _fit_numeric(self, column, table):
        """Spec of a numeric column and a warning when it got fewer bins than asked."""
        _check_numbers(column, table, fitting=True)
        method = self._method_of(column.name)
        values = column.numbers[column.codes[column.codes >= 0]]
        cuts = learn_cut_points(method, values)
        note = None
        if method.name != "manual" and 1 < len(cuts) + 1 < method.bins:
            note = (
                f"column {column.name!r}: {method.text} gave {len(cuts) + 1} bins instead of {method.bins} "
                f"because of tied values (cut points {_short_list(cuts.tolist(), quote=False)})"
            )
        return ColumnSpec(column.name, NUMERIC, interval_labels(cuts), method.text, cuts), note

    def _constant_warnings(self):
        constant = [name for name, spec in self.columns.items() if spec.constant]
        if not constant:
            return []
        names = _short_list(constant, limit=None)
        if not self.drop_constant:
            return [f"constant column(s) {names} have a single state and carry no information; "
                    f"pass drop_constant=True to drop them"]
        if len(constant) == len(self.columns):
            raise DataError(f"every column is constant ({names}); there is nothing to learn from")
        return [f"dropped constant column(s) {names} (drop_constant=True)"]

    # -- missing values -------------------------------------------------------

    def _apply_missing_policy(self, table):
        """Raise or drop rows as ``missing`` says; return the warnings."""
        if self.missing == "state":
            return []
        first = _first_missing(table)
        if first is None:
            return []
        row, name = first
        if self.missing == "error":
            raise DataError(
                f"column {name!r} row {table.row_number(row)} is missing (missing='error'); fill it in, or pass "
                f"missing='state' to give missing values their own state or missing='drop' to drop such rows"
            )
        complete = np.ones(table.n_rows, dtype=bool)
        for column in table.columns:
            complete &= column.codes >= 0
        keep = np.flatnonzero(complete)
        if keep.size == 0:
            raise DataError(f"all {table.n_rows} rows have a missing value, so missing='drop' leaves nothing; "
                            f"pass missing='state' or drop the emptiest columns")
        note = (f"dropped {table.n_rows - keep.size} of {table.n_rows} rows with missing values "
                f"(first: row {table.row_number(row)}, column {name!r})")
        table.keep_rows(keep)
        return [note]

    # -- coding ---------------------------------------------------------------

    def _encode(self, table, notes):
        specs = [self.columns[column.name] for column in table.columns]
        arities = [spec.arity for spec in specs]
        codes = np.empty((table.n_rows, len(specs)), dtype=code_dtype(max(arities)), order="F")
        for j, (spec, column) in enumerate(zip(specs, table.columns)):
            codes[:, j] = _encode_column(spec, column, table)
        return Dataset(codes, arities, [s.name for s in specs], [list(s.states) for s in specs], self, notes)


def _encode_column(spec, column, table):
    """Codes of one prepared column under its fitted spec, or DataError."""
    if spec.kind == NUMERIC:
        _check_numbers(column, table, fitting=False)
        per_unique = discretize_values(column.numbers, spec.cuts)
    else:
        index = {label: k for k, label in enumerate(spec.states[: spec.arity - spec.missing_state])}
        per_unique = np.array([index.get(label, _UNKNOWN) for label in column.labels()], dtype=np.int64)
    missing_code = spec.arity - 1 if spec.missing_state else -1
    lookup = np.append(per_unique, missing_code)
    codes = lookup[column.codes]
    if codes.size and codes.min() < 0:
        _raise_uncodable(spec, column, table, int(np.argmax(codes < 0)))
    return codes


def _raise_uncodable(spec, column, table, row):
    name, number = spec.name, table.row_number(row)
    if column.codes[row] < 0:
        raise DataError(
            f"column {name!r} row {number} is missing, but {name!r} had no missing values when the encoder was "
            f"fitted; fill it in, drop the row, or fit on data with missing values in {name!r}"
        )
    value = column.labels()[column.codes[row]]
    raise DataError(
        f"column {name!r} row {number} has value {value!r}, which was not seen when the encoder was fitted "
        f"(states: {_short_list(spec.states, quote=False)}); recode it or fit on data that includes it"
    )


def _check_numbers(column, table, fitting):
    """DataError naming the first non-number (or, when fitting, infinite) value of a numeric column."""
    bad = np.isnan(column.numbers) | (np.isinf(column.numbers) if fitting else False)
    if not bad.any() or not bad[column.codes[column.codes >= 0]].any():
        return
    row = column.first_row_with(bad)
    value = str(column.uniques[column.codes[row]])
    why = "is infinite" if not np.isnan(column.numbers[column.codes[row]]) else "is not a number"
    raise DataError(
        f"column {column.name!r} row {table.row_number(row)} has {value!r}, which {why}; the column is numeric "
        f"(discretized), so fix the value or mark it missing, or declare it categorical in types"
    )


def _inferred_categorical(spec):
    """Whether a column is categorical by inference (where mixed-type notes matter)."""
    return spec.kind == CATEGORICAL and not spec.declared


def _infer_kind(column, max_int_levels):
    """Categorical unless number-valued with non-integers or many levels."""
    if not column.number_valued:
        return CATEGORICAL
    numbers = column.numbers
    whole = bool(np.all(np.isfinite(numbers) & (numbers == np.floor(numbers))))
    return CATEGORICAL if whole and len(numbers) <= max_int_levels else NUMERIC


def _first_missing(table):
    """(row, column name) of the first missing cell, by row then column; None if none."""
    best = None
    for column in table.columns:
        missing = column.codes < 0
        if missing.any():
            row = int(np.argmax(missing))
            if best is None or row < best[0]:
                best = (row, column.name)
    return best


def _too_many_levels_message(column, count, max_levels):
    name = column.name
    numeric_hint = (f" declare it numeric and discretize it (types={{{name!r}: 'numeric'}}, discretize='uniform3'),"
                    if (~np.isnan(column.numbers)).any() else "")
    return (
        f"column {name!r} has {count} distinct values, more than max_levels={max_levels}; "
        f"drop the column,{numeric_hint} or raise max_levels"
    )


def _label_sort_key(label):
    """Numbers first, in numeric order (2 < 10), then text in alphabetical order."""
    try:
        x = float(label)
    except ValueError:
        return (1, 0.0, label)
    return (0, x, label) if math.isfinite(x) else (1, 0.0, label)


def _parse_discretize(discretize):
    if discretize is None:
        return None
    if isinstance(discretize, dict):
        return {str(name): _parse_method(method, f"discretize[{str(name)!r}]") for name, method in discretize.items()}
    return _parse_method(discretize, "discretize")


def _parse_types(types):
    kinds = (CATEGORICAL, NUMERIC)
    if types is None:
        return None
    if isinstance(types, str):
        if types not in kinds:
            raise DataError(f"types={types!r} is not valid; use 'categorical', 'numeric' or a dict column -> kind")
        return types
    if isinstance(types, dict):
        for name, kind in types.items():
            if kind not in kinds:
                raise DataError(f"types[{str(name)!r}]={kind!r} is not valid; use 'categorical' or 'numeric'")
        return {str(name): kind for name, kind in types.items()}
    raise DataError(f"types={types!r} is not valid; use 'categorical', 'numeric' or a dict column -> kind")


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _emit(messages):
    """Emit each message as a UserWarning attributed to the first caller outside bnexplore."""
    level, frame = 2, sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "bnexplore":
        level, frame = level + 1, frame.f_back
    for message in messages:
        _warnings.warn(message, UserWarning, stacklevel=level)


def _short_list(items, limit=8, quote=True):
    """Items joined for a message: ``'a', 'b', ... (+3 more)``."""
    shown = [repr(i) if quote else str(i) for i in (items if limit is None else items[:limit])]
    more = len(items) - len(shown)
    return ", ".join(shown) + (f", ... (+{more} more)" if more else "")


def _repeated(items):
    """Items that occur more than once, in order of first appearance."""
    return [item for item, count in Counter(items).items() if count > 1]


def _short_repr(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ----------------------------------------------------------------------------
# Reading files
# ----------------------------------------------------------------------------


def read_csv(path_or_buffer, header=True, sep=",", encoding=None, **encoder_options):
    """Read a CSV file or buffer and encode it.

    Parameters
    ----------
    path_or_buffer : str, os.PathLike, bytes or file-like
        A path (``.csv``, or gzip-compressed such as ``.csv.gz``) or an open
        binary or text buffer (e.g. ``io.BytesIO``, a Streamlit
        ``UploadedFile``).
    header : bool
        Whether the first line holds column names; without one the columns
        are named ``"X0" .. "X{n-1}"``.
    sep : str
        One-character field separator.
    encoding : str, optional
        Text encoding. By default UTF-8, falling back to latin-1 (with a
        warning naming the line of the first undecodable byte).
    **encoder_options
        Options of :class:`Encoder`.

    Returns
    -------
    Dataset
        Its ``warnings`` start with those of reading the file.
    """
    encoder = Encoder(**encoder_options)
    frame, notes = read_frame(path_or_buffer, header=header, sep=sep, encoding=encoding)
    dataset = encoder.fit_transform(frame)
    dataset.warnings[:0] = notes
    return dataset


def read_frame(path_or_buffer, header=True, sep=",", encoding=None):
    """Read a CSV file or buffer into a DataFrame without encoding it.

    Parameters are those of :func:`read_csv`. Empty cells and pandas' default
    NA strings ("NA", "NaN", "null", ...) become missing values.

    Returns
    -------
    frame : pandas.DataFrame
    warnings : list of str
        Problems found while reading (also emitted with ``warnings.warn``).
    """
    if not (isinstance(sep, str) and len(sep) == 1):
        raise DataError(f"sep={sep!r} is not valid; give one character such as ',' or ';' or '\\t'")
    if encoding is not None:
        try:
            codecs.lookup(encoding)
        except (LookupError, TypeError):
            raise DataError(f"encoding={encoding!r} is not a known text encoding; try 'utf-8' or 'latin-1'") from None
    data, source = _read_bytes(path_or_buffer)
    if re.search(rb"\S", data) is None:
        raise DataError(f"{source} is empty ({'0 bytes' if not data else 'only whitespace'}); "
                        f"choose a CSV file with a header line and data rows")
    if header:
        _check_header(data, sep, encoding or "utf-8", source)
    notes = []
    try:
        frame = _parse_csv(data, header, sep, encoding or "utf-8", source)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, _decode_error_position(data, error)) + 1
        if encoding is not None:
            raise DataError(f"{source} line {line} is not valid {encoding} text; pass the file's encoding, "
                            f"e.g. encoding='latin-1'") from None
        notes.append(f"{source} is not valid UTF-8 (first undecodable byte on line {line}); read it as latin-1 — "
                     f"check accented characters, or pass encoding=... if the file uses another one")
        frame = _parse_csv(data, header, sep, "latin-1", source)
    _emit(notes)
    return frame, notes


def _read_bytes(path_or_buffer):
    """All bytes of a path or buffer (gunzipped if gzip) and a name for messages."""
    if isinstance(path_or_buffer, (str, os.PathLike)):
        path = Path(path_or_buffer)
        source = f"file {path.name!r}"
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise DataError(f"file not found: {str(path)!r}; check the path") from None
        except OSError as error:
            raise DataError(f"cannot read {str(path)!r}: {error.strerror or error}") from None
    elif isinstance(path_or_buffer, (bytes, bytearray, memoryview)):
        data, source = bytes(path_or_buffer), "the data"
    elif hasattr(path_or_buffer, "getvalue") or hasattr(path_or_buffer, "read"):
        reader = getattr(path_or_buffer, "getvalue", None) or path_or_buffer.read
        data = reader()
        name = getattr(path_or_buffer, "name", None)
        source = f"file {os.path.basename(str(name))!r}" if name else "the upload"
    else:
        raise DataError(f"cannot read a table from {type(path_or_buffer).__name__}; give a path or a file-like object")
    if isinstance(data, str):
        data = data.encode("utf-8")
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:
            raise DataError(f"{source} looks gzip-compressed but cannot be decompressed ({error})") from None
    return bytes(data), source


def _check_header(data, sep, encoding, source):
    """DataError naming duplicated column names (before pandas renames them 'A.1')."""
    start = re.search(rb"\S", data).start()
    start = data.rfind(b"\n", 0, start) + 1
    end = data.find(b"\n", start)
    line = data[start: end if end >= 0 else len(data)].rstrip(b"\r")
    text = line.decode(encoding, errors="replace").lstrip("\ufeff")
    names = next(csv.reader([text], delimiter=sep))
    repeated = {}
    for position, name in enumerate(names, start=1):
        repeated.setdefault(name, []).append(position)
    duplicates = [
        f"{name!r} (columns {', '.join(map(str, spots))})" for name, spots in repeated.items() if len(spots) > 1
    ]
    if duplicates:
        raise DataError(f"{source} has duplicated column names: {'; '.join(duplicates)}; "
                        f"rename them so every column has its own name")


def _parse_csv(data, header, sep, encoding, source):
    try:
        frame = pd.read_csv(io.BytesIO(data), sep=sep, header=0 if header else None, encoding=encoding,
                            low_memory=False)
    except pd.errors.ParserError as error:
        raise DataError(f"{source} could not be parsed: {str(error).strip()}; every line needs the same number "
                        f"of fields (is sep={sep!r} right?)") from None
    except pd.errors.EmptyDataError:
        raise DataError(f"{source} has no columns; choose a CSV file with a header line and data rows") from None
    if not header:
        frame.columns = [f"X{j}" for j in range(frame.shape[1])]
    if len(frame) == 0:
        raise DataError(f"{source} has a header line but no data rows; add data rows")
    return frame


def _decode_error_position(data, error):
    """Byte offset in ``data`` of the first byte that does not decode."""
    try:
        data.decode(error.encoding)
    except UnicodeDecodeError as full:
        return full.start
    return error.start
