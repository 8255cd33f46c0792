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
import concurrent.futures
import contextlib
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
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from ..errors import DataError, ResourceError, option, subject
from ..limits import ENVIRONMENT, BoundedStream, max_expanded_bytes

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


def _parse_method(value, name, key=None):
    """Parse one discretization method; option ``name`` (entry ``key``) names it in messages."""
    given = subject(name, value, key)
    if isinstance(value, (list, tuple, np.ndarray)):
        return _manual_method(list(value), given)
    if not isinstance(value, str):
        raise DataError(f"{given} is not a discretization method; {_METHOD_HELP}")
    name, _, argument = value.strip().lower().partition(":")
    argument = argument.strip()
    if name == "uniform3" and not argument:
        return _Method("uniform3", 3)
    if name in ("quantile", "width"):
        if not argument.isdigit() or int(argument) < 2:
            raise DataError(f"{given} is not valid: {name} needs a number of bins K >= 2, e.g. '{name}:3'")
        return _Method(name, int(argument))
    if name == "manual":
        return _manual_method(argument.split(",") if argument else [], given)
    raise DataError(f"{given} is not a discretization method; {_METHOD_HELP}")


def _manual_method(items, given):
    """A manual method from cut point items (strings or numbers); ``given`` names the option in messages."""
    try:
        cuts = [float(item) for item in items]
    except (TypeError, ValueError):
        raise DataError(f"{given} is not valid: cut points must be numbers, e.g. 'manual:1.5,3'") from None
    if not cuts or not all(math.isfinite(c) for c in cuts):
        raise DataError(f"{given} is not valid: give one or more finite cut points, e.g. 'manual:1.5,3'")
    if any(b <= a for a, b in zip(cuts, cuts[1:])):
        raise DataError(f"{given} is not valid: cut points must be strictly increasing")
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
    pandas categorical; ``all_present`` says that every unique occurs in some
    row (true as factorized, until rows are dropped).
    """

    name: str
    codes: np.ndarray
    uniques: np.ndarray
    numbers: np.ndarray
    number_valued: bool
    category_order: list | None = None
    note: str | None = None  # warning found while preparing (mixed numbers and text)
    all_present: bool = True

    def n_missing(self):
        return int(np.count_nonzero(self.codes < 0))

    def labels(self):
        """Canonical text of each unique (see :func:`_label`)."""
        return [_label(x, u) for x, u in zip(self.numbers.tolist(), self.uniques.tolist())]

    def present(self):
        """Which uniques occur in the (current) rows."""
        if self.all_present:
            return np.ones(len(self.uniques), dtype=bool)
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
    """Factorize one pandas column (noting it when it mixes numbers and text)."""
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return _factorized_column(name, codes, np.asarray(uniques), CATEGORICAL,
                                  [_text_of(c) for c in dtype.categories])
    if pd.api.types.is_bool_dtype(dtype):
        return _factorized_column(name, codes, np.asarray(uniques), _FLAG)
    if pd.api.types.is_numeric_dtype(dtype):
        return _factorized_column(name, codes, np.asarray(uniques), NUMERIC)
    return _factorized_column(name, codes, np.asarray(uniques, dtype=object), _TEXT)


_FLAG, _TEXT = "flag", "text"  # kinds of stored values besides CATEGORICAL (an ordered categorical) and NUMERIC


def _factorized_column(name, codes, uniques, stored, category_order=None, all_present=True):
    """A :class:`_Column` from factorized values, whatever read them.

    Parameters
    ----------
    name : str
    codes : numpy.ndarray of int
        Index into ``uniques`` of each row, -1 when missing.
    uniques : numpy.ndarray
        Distinct values (of any order).
    stored : str
        How the values were stored: ``CATEGORICAL`` (a categorical whose
        ``category_order`` counts), ``_FLAG`` (booleans), ``NUMERIC`` (numbers)
        or ``_TEXT`` (anything else: blank text is missing, numeric text is a
        number).
    category_order : list of str, optional
        Labels in category order (``CATEGORICAL`` only).
    all_present : bool
        Whether every unique occurs in some row (False when ``uniques``
        may hold unused categories).
    """
    if stored == _TEXT:
        blank = np.array([isinstance(u, str) and not u.strip() for u in uniques], dtype=bool)
        if blank.any():
            codes, uniques = _drop_uniques(codes, uniques, blank)
    codes = codes.astype(_index_dtype(len(uniques)), copy=False)
    if stored == CATEGORICAL:
        return _Column(name, codes, uniques, _numbers_of(uniques), False, category_order, all_present=all_present)
    if stored == _FLAG:
        return _Column(name, codes, uniques, np.full(len(uniques), np.nan), False, all_present=all_present)
    if stored == NUMERIC:
        return _Column(name, codes, uniques, np.asarray(uniques, dtype=np.float64), True, all_present=all_present)
    numbers = _numbers_of(uniques)
    is_number = ~np.isnan(numbers)
    column = _Column(name, codes, uniques, numbers, bool(is_number.all()), all_present=all_present)
    if is_number.any() and not column.number_valued:
        column.note = _mixed_warning(column, is_number)
    return column


IDENTIFIER_MIN_ROWS = 20
"""Fewest non-missing rows for a column of distinct values to count as a row identifier."""


def _identifier_note(column):
    """Note for a column that looks like a row identifier, else None.

    Such a column has at least :data:`IDENTIFIER_MIN_ROWS` non-missing rows, every one its own value, and its
    values are text or whole numbers (distinct measurements such as 1.73, 1.81 are not identifiers). A network
    learns nothing general from it: each state occurs in one row.
    """
    present = int(np.count_nonzero(column.codes >= 0))
    distinct = int(np.count_nonzero(column.present()))
    if present < IDENTIFIER_MIN_ROWS or distinct != present:
        return None
    numbers = column.numbers[column.present()]
    if not np.all(np.isnan(numbers) | (numbers == np.floor(numbers))):
        return None
    return (f"column {column.name!r} looks like a row identifier: every row has its own value ({distinct:,} "
            f"distinct values in {present:,} rows), so it tells a network nothing about other rows; leave it out")


def _index_dtype(n_uniques):
    """Smallest signed integer dtype for indices ``-1 .. n_uniques - 1``."""
    for dtype in (np.int8, np.int16, np.int32):
        if n_uniques <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


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
            column.all_present = False
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
            raise DataError(f"{subject('missing', missing)} is not a policy; use 'state', 'drop' or 'error'")
        if max_levels is not None and not (_is_int(max_levels) and max_levels >= 2):
            no_limit = option("max_levels", None)
            raise DataError(f"{subject('max_levels', max_levels)} is not valid; use a whole number >= 2"
                            + (f" (or {no_limit} for no limit)" if no_limit else ""))
        if not (_is_int(max_int_levels) and max_int_levels >= 0):
            raise DataError(f"{subject('max_int_levels', max_int_levels)} is not valid; use a whole number >= 0")
        if not isinstance(drop_constant, (bool, np.bool_)):
            raise DataError(f"{subject('drop_constant', drop_constant)} is not valid; use True or False")
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
        return self._fit_transform_table(_prepare_table(df))

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
            ``missing``, ``min`` and ``max`` (numbers only), ``identifier``
            (True for a column that looks like a row identifier: at least
            :data:`IDENTIFIER_MIN_ROWS` rows, each non-missing one its own
            text or whole-number value), ``note`` (e.g. mixed numbers and
            text; "looks like a row identifier: every row has its own
            value ...").

        Examples
        --------
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"id": range(30), "smoker": ["yes", "no", "no"] * 10})
        >>> Encoder().profile(frame)[["column", "identifier"]].values.tolist()
        [['id', True], ['smoker', False]]
        """
        table = _prepare_table(df)
        rows = []
        for column in table.columns:
            kind, _ = self._kind_of(column)
            method = self._method_of(column.name) if kind == NUMERIC else None
            valued = column.number_valued and len(column.uniques) > 0
            identifier = _identifier_note(column)
            rows.append(
                {
                    "column": column.name,
                    "type": kind,
                    "discretize": method.text if method else None,
                    "distinct": len(column.uniques),
                    "missing": column.n_missing(),
                    "min": float(np.min(column.numbers)) if valued else None,
                    "max": float(np.max(column.numbers)) if valued else None,
                    "identifier": identifier is not None,
                    "note": "; ".join(note for note in (column.note, identifier) if note),
                }
            )
        return pd.DataFrame(rows, columns=["column", "type", "discretize", "distinct", "missing", "min", "max",
                                           "identifier", "note"])

    # -- fitting --------------------------------------------------------------

    def _fit_transform_table(self, table):
        """``fit_transform`` of a prepared :class:`_Table` (what readers build without a DataFrame)."""
        self._fit_table(table)
        _emit(self.warnings)
        kept = set(self.encoded_names())
        table.columns = [c for c in table.columns if c.name in kept]
        return self._encode(table, self.warnings)

    def _fit_table(self, table):
        names = [c.name for c in table.columns]
        self._check_option_columns(names)
        kinds = [self._kind_of(column) for column in table.columns]
        undiscretized = [c.name for c, (kind, _) in zip(table.columns, kinds)
                         if kind == NUMERIC and self._method_of(c.name) is None]
        if undiscretized:
            example = undiscretized[0]
            raise DataError(
                f"numeric column(s) {_short_list(undiscretized, limit=20)} need a discretization: pass "
                f"{subject('discretize', 'uniform3')} (or 'quantile:K', 'width:K', 'manual:...'), or "
                f"{subject('types', {example: CATEGORICAL})} to use their values as categories"
            )
        n_missing = [column.n_missing() for column in table.columns]
        notes = [c.note for c, (kind, declared) in zip(table.columns, kinds)
                 if c.note and kind == CATEGORICAL and not declared]
        notes += [note for note in map(_identifier_note, table.columns) if note]
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
        names = _short_list(constant, limit=20)
        if not self.drop_constant:
            drop = option("drop_constant", True)
            return [f"constant column(s) {names} have a single state and carry no information"
                    + (f"; pass {drop} to drop them" if drop else "")]
        if len(constant) == len(self.columns):
            raise DataError(f"every column is constant ({names}); there is nothing to learn from")
        return [f"dropped constant column(s) {names} ({subject('drop_constant', True)})"]

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
                f"column {name!r} row {table.row_number(row)} is missing ({subject('missing', 'error')}); fill it "
                f"in, or pass {subject('missing', 'state')} to give missing values their own state or "
                f"{subject('missing', 'drop')} to drop such rows"
            )
        complete = np.ones(table.n_rows, dtype=bool)
        for column in table.columns:
            complete &= column.codes >= 0
        keep = np.flatnonzero(complete)
        if keep.size == 0:
            raise DataError(f"all {table.n_rows} rows have a missing value, so {subject('missing', 'drop')} leaves "
                            f"nothing; pass {subject('missing', 'state')} or drop the emptiest columns")
        note = (f"dropped {table.n_rows - keep.size} of {table.n_rows} rows with missing values "
                f"(first: row {table.row_number(row)}, column {name!r})")
        table.keep_rows(keep)
        return [note]

    # -- coding ---------------------------------------------------------------

    def _encode(self, table, notes):
        specs = [self.columns[column.name] for column in table.columns]
        arities = [spec.arity for spec in specs]
        codes = np.empty((table.n_rows, len(specs)), dtype=code_dtype(max(arities)), order="F")
        _each(lambda j: _encode_column(specs[j], table.columns[j], table, codes[:, j]), range(len(specs)),
              table.n_rows)
        return Dataset(codes, arities, [s.name for s in specs], [list(s.states) for s in specs], self, notes)


def _encode_column(spec, column, table, out):
    """Write the codes of one prepared column under its fitted spec into ``out``, or DataError."""
    if spec.kind == NUMERIC:
        _check_numbers(column, table, fitting=False)
        per_unique = discretize_values(column.numbers, spec.cuts)
    else:
        index = {label: k for k, label in enumerate(spec.states[: spec.arity - spec.missing_state])}
        per_unique = np.array([index.get(label, _UNKNOWN) for label in column.labels()], dtype=np.int64)
    missing_code = spec.arity - 1 if spec.missing_state else -1
    lookup = np.append(per_unique, missing_code)  # a code of -1 (missing) picks the last entry
    if missing_code < 0 or (per_unique < 0).any():
        rows = (lookup < 0)[column.codes] if (per_unique < 0).any() else column.codes < 0
        if rows.any():
            _raise_uncodable(spec, column, table, int(np.argmax(rows)))
    out[:] = lookup.astype(out.dtype)[column.codes]


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
        f"(discretized), so fix the value or mark it missing, or declare it categorical "
        f"({subject('types', {column.name: CATEGORICAL})})"
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
    numeric = option("types", {name: NUMERIC})
    numeric_hint = (f", declare it numeric and discretize it ({numeric}, {subject('discretize', 'uniform3')}),"
                    if numeric and (~np.isnan(column.numbers)).any() else "")
    return (
        f"column {name!r} has {count} distinct values, more than {subject('max_levels', max_levels)}; "
        f"drop the column{numeric_hint} or raise {subject('max_levels')}"
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
        return {str(name): _parse_method(method, "discretize", str(name)) for name, method in discretize.items()}
    return _parse_method(discretize, "discretize")


def _parse_types(types):
    kinds = (CATEGORICAL, NUMERIC)
    if types is None:
        return None
    if isinstance(types, str):
        if types not in kinds:
            raise DataError(f"{subject('types', types)} is not valid; use 'categorical', 'numeric' or a dict "
                            f"column -> kind")
        return types
    if isinstance(types, dict):
        for name, kind in types.items():
            if kind not in kinds:
                raise DataError(f"{subject('types', kind, str(name))} is not valid; use 'categorical' or 'numeric'")
        return {str(name): kind for name, kind in types.items()}
    raise DataError(f"{subject('types', types)} is not valid; use 'categorical', 'numeric' or a dict column -> kind")


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

CSV, PARQUET, FEATHER = "CSV", "Parquet", "Feather"
TABLE_SUFFIXES = {".csv": CSV, ".txt": CSV, ".tsv": CSV, ".gz": CSV, ".parquet": PARQUET, ".pq": PARQUET,
                  ".feather": FEATHER, ".arrow": FEATHER, ".ipc": FEATHER, ".arrows": FEATHER}
_MAGIC = {PARQUET: "PAR1", FEATHER: "ARROW1"}
_PREFIX = 1 << 16  # bytes sniffed for the format and for binary content
_CSV_BLOCK = 1 << 22  # bytes of CSV text per block Arrow parses (raised for a row longer than a block)
_CSV_BLOCK_MOST = 1 << 30  # Arrow's blocks grow to this for one long row (a 10 MB cell); a longer row is refused
MAX_COLUMNS = 10_000
"""Most columns a table may have: a wider file is refused before its columns are allocated (a network over
more variables cannot be learned in useful time; Arrow and pandas spend memory per column before any row)."""
SEPARATORS = (",", ";", "\t", "|")
"""The field separators ``sep=None`` (or ``"auto"``) chooses between, in order of preference."""
_SNIFFED_RECORDS = 50  # records of the first bytes the separator is sniffed from
_CSV_PART = 1 << 25  # least bytes of CSV text per reader when the text is read in parallel
_WORKERS = min(os.cpu_count() or 1, 8)  # threads reading and coding large tables
_THREADED_CELLS = 1 << 22  # cells from which columns are coded on several threads
_PARQUET_BATCH = 1 << 18  # rows per batch read from Parquet
_CONTROL_SHARE = 0.1  # a larger share of control characters in the first bytes is not text
# pandas' default NA strings, so a file reads as it did with pandas' parser
_NA_VALUES = ["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
              "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]
_NO_BOOLEANS = []  # CSV text is never read as booleans: TRUE / FALSE stay the file's own labels, as state names


def read_table(path_or_buffer, header=True, sep=None, encoding=None, name=None, **encoder_options):
    """Read a CSV, Parquet or Feather file (or buffer) and encode it.

    The format is told by the content (Parquet starts with ``PAR1``, Feather
    and Arrow IPC with ``ARROW1``; anything else must be text), so a buffer
    needs no name. CSV text is parsed by Arrow block by block (large text in
    row ranges, one per core) and each column is factorized as it arrives, so
    the text is never held whole in memory; Parquet and Feather columns are
    read batch by batch the same way.

    Parameters
    ----------
    path_or_buffer : str, os.PathLike, bytes or file-like
        A path (``.csv``, gzip-compressed ``.csv.gz``, ``.parquet``,
        ``.feather``, ``.arrow``) or the bytes of such a file, as ``bytes`` or
        an open buffer (e.g. ``io.BytesIO``, a Streamlit ``UploadedFile``).
    header : bool
        CSV only: whether the first line holds column names; without one the
        columns are named ``"X0" .. "X{n-1}"``.
    sep : str, optional
        CSV only: one-character field separator. None (or ``"auto"``), the
        default, sniffs it from the first records: the first of
        :data:`SEPARATORS` (``,`` ``;`` tab ``|``) that splits the header and
        every following record into the same number of fields (more than
        one), else ``,``.
    encoding : str, optional
        CSV only: text encoding. By default UTF-8 (UTF-16 and UTF-32 when the
        text starts with their byte-order mark), falling back to latin-1 with a
        warning naming the line of the first undecodable byte.
    name : str, optional
        File name of a buffer, used in messages (by default a buffer's own
        ``name``). A name ending in ``.parquet`` or ``.feather`` makes content
        of another format an error.
    **encoder_options
        Options of :class:`Encoder`.

    Returns
    -------
    Dataset
        Its ``warnings`` start with those of reading the file.

    Raises
    ------
    DataError
        For a file that cannot be read (not found, not a table, malformed,
        more than :data:`MAX_COLUMNS` columns, a column of lists or
        structures), naming the file and the line, column or byte at fault,
        and for anything :class:`Encoder` refuses.
    ResourceError
        For gzip text that expands past :func:`bnexplore.limits.max_expanded_bytes`
        (refused while it is read, before more is held).

    Notes
    -----
    A header cell that is blank or only spaces names its column
    ``"column N"`` (N counted from 1, as in a spreadsheet), with a warning:
    such a name could not be typed on a command line.

    Examples
    --------
    >>> import io
    >>> from bnexplore.data import read_table
    >>> read_table(io.BytesIO(b"smoker;cough\nyes;no\nno;no\n")).names
    ['smoker', 'cough']
    """
    encoder = Encoder(**encoder_options)
    table, notes = _read(path_or_buffer, header, sep, encoding, name, frame=False)
    dataset = encoder._fit_transform_table(table)
    dataset.warnings[:0] = notes
    return dataset


read_csv = read_table  # the name it had before Parquet and Feather: the same function


def read_frame(path_or_buffer, header=True, sep=None, encoding=None, name=None):
    """Read a CSV, Parquet or Feather file (or buffer) into a DataFrame without encoding it.

    Parameters are those of :func:`read_table`. Empty cells and pandas'
    default NA strings ("NA", "NaN", "null", ...) become missing values.
    Parquet and Feather files read as ``pandas.read_parquet`` and
    ``pandas.read_feather`` read them (categoricals keep their categories).
    For uploads: ``read_frame(uploaded_file)``, or
    ``read_frame(io.BytesIO(data), name="x.parquet")``.

    Returns
    -------
    frame : pandas.DataFrame
    warnings : list of str
        Problems found while reading (also emitted with ``warnings.warn``).
    """
    return _read(path_or_buffer, header, sep, encoding, name, frame=True)


def _read(path_or_buffer, header, sep, encoding, name, frame):
    """``(_Table or DataFrame, warnings)`` of any supported file."""
    if sep == "auto":
        sep = None
    if not (sep is None or isinstance(sep, str) and len(sep) == 1):
        raise DataError(f"{subject('sep', sep)} is not valid; give one character such as ',' or ';' or '\\t'")
    if encoding is not None:
        try:
            codecs.lookup(encoding)
        except (LookupError, TypeError):
            raise DataError(f"{subject('encoding', encoding)} is not a known text encoding; "
                            f"try 'utf-8' or 'latin-1'") from None
    source = _Source(path_or_buffer, name)
    if source.format != CSV:
        result, notes = _read_arrow_file(source, frame)
    else:
        result, notes = _read_csv(source, header, sep, encoding, frame)
    _emit(notes)
    return result, notes


class _Source:
    """The bytes of a table: where they are, what messages call them, which format they hold.

    A path is read from disk whenever it is opened (never held whole); bytes
    and buffers are kept as given. ``prefix`` holds the first bytes
    (decompressed when gzip) for sniffing.
    """

    def __init__(self, path_or_buffer, name=None):
        self.path, self.data = None, None
        if isinstance(path_or_buffer, (str, os.PathLike)):
            self.path = Path(path_or_buffer)
            name = name or self.path.name
        elif isinstance(path_or_buffer, (bytes, bytearray, memoryview)):
            self.data = path_or_buffer
        elif hasattr(path_or_buffer, "getvalue") or hasattr(path_or_buffer, "read"):
            reader = getattr(path_or_buffer, "getvalue", None) or path_or_buffer.read
            self.data = reader()
            own = getattr(path_or_buffer, "name", None)
            name = name or (own if isinstance(own, (str, os.PathLike)) else None)
        else:
            raise DataError(f"cannot read a table from {type(path_or_buffer).__name__}; "
                            f"give a path, bytes or a file-like object")
        if isinstance(self.data, str):
            self.data = self.data.encode("utf-8")
        self.name = os.path.basename(str(name)) if name else None
        if self.name:
            self.label = f"file {self.name!r}"
        else:
            self.label = "the data" if isinstance(path_or_buffer, (bytes, bytearray, memoryview)) else "the upload"
        with self._open_raw() as raw:
            self.gzip = raw.read(2) == b"\x1f\x8b"
        self.prefix = next(self.chunks(_PREFIX), b"")
        self.format = self._sniff()

    def _open_raw(self):
        if self.path is None:
            return io.BytesIO(self.data)
        try:
            return open(self.path, "rb")
        except FileNotFoundError:
            raise DataError(f"file not found: {str(self.path)!r}; check the path") from None
        except OSError as error:
            raise DataError(f"cannot read {str(self.path)!r}: {error.strerror or error}") from None

    def chunks(self, size=1 << 20):
        """The (decompressed) bytes, ``size`` at a time (gzip bounded by :class:`~bnexplore.limits.BoundedStream`)."""
        with self._open_raw() as raw:
            stream = BoundedStream(gzip.GzipFile(fileobj=raw), self.label) if self.gzip else raw
            try:
                while chunk := stream.read(size):
                    yield chunk
            except (OSError, EOFError, zlib.error) as error:
                raise self.gzip_error(error) from None

    def gzip_error(self, error):
        return DataError(f"{self.label} looks gzip-compressed but cannot be decompressed ({error})")

    def size(self):
        """Number of (compressed) bytes."""
        return self.path.stat().st_size if self.path is not None else len(memoryview(self.data))

    def text_stream(self, start=0, end=None):
        """An Arrow input stream of bytes ``start .. end`` (all by default), for the CSV reader; gzip text is
        decompressed whole, through a :class:`~bnexplore.limits.BoundedStream` that refuses it past the bound."""
        if self.gzip:
            whole = pa.input_stream(str(self.path) if self.path is not None else pa.py_buffer(self.data),
                                    compression="gzip")
            return pa.PythonFile(BoundedStream(whole, self.label), mode="r")
        if self.path is None:
            data = pa.py_buffer(self.data)
            return pa.BufferReader(data.slice(start, (data.size if end is None else end) - start))
        if start == 0 and end is None:
            return pa.input_stream(str(self.path))
        return pa.PythonFile(_FileRange(self.path, start, end), mode="r")

    def random_access(self):
        """A seekable Arrow file of the bytes, for Parquet and Feather."""
        return pa.OSFile(str(self.path)) if self.path is not None else pa.BufferReader(pa.py_buffer(self.data))

    def _sniff(self):
        head = self.prefix
        found = None
        if not self.gzip and head[:4] == b"PAR1":
            found = PARQUET
        elif not self.gzip and (head[:6] == b"ARROW1" or head[:4] in (b"FEA1", b"\xff\xff\xff\xff")):
            found = FEATHER
        named = TABLE_SUFFIXES.get(Path(self.name).suffix.lower()) if self.name else None
        if named in (PARQUET, FEATHER) and found != named:
            raise DataError(f"{self.label} is named like a {named} file but is not one (a {named} file starts "
                            f"with {_MAGIC[named]}); save it again as {named}, or rename it if it holds CSV text")
        return found or CSV


class _FileRange(io.RawIOBase):
    """Bytes ``start .. end`` of a file (to its end when ``end`` is None), read as a stream."""

    def __init__(self, path, start, end):
        self._file = open(path, "rb")
        self._file.seek(start)
        self._left = None if end is None else end - start

    def readable(self):
        return True

    def readinto(self, buffer):
        view = memoryview(buffer)
        read = self._file.readinto(view if self._left is None else view[: self._left])
        if self._left is not None:
            self._left -= read
        return read

    def close(self):
        self._file.close()
        super().close()


def _collect(batches, ordered, frame):
    """What one reader's batches hold: ``(batches, rows)`` for a DataFrame, else ``(column collectors, rows)``.

    ``ordered[j]`` says whether column ``j`` was stored as a categorical whose
    category order counts.
    """
    if frame:
        kept = list(batches)
        return kept, sum(batch.num_rows for batch in kept)
    parts, n_rows = None, 0
    for batch in batches:
        if parts is None:
            parts = [_column_collector(array.type, keep) for array, keep in zip(batch.columns, ordered)]
        for part, array in zip(parts, batch.columns):
            part.add(array)
        n_rows += batch.num_rows
    return parts, n_rows


def _joined(pieces, schema, names, no_rows, frame):
    """The DataFrame or :class:`_Table` of what readers of consecutive row ranges collected (see :func:`_collect`).

    ``no_rows`` is the message for a table without rows.
    """
    n_rows = sum(rows for _, rows in pieces)
    if n_rows == 0:
        raise DataError(no_rows)
    if frame:
        table = pa.Table.from_batches([batch for batches, _ in pieces for batch in batches], schema=schema)
        if table.column_names != names:
            table = table.rename_columns(names)
        return table.to_pandas()
    first, *rest = [parts for parts, rows in pieces if rows]
    for parts in rest:
        for mine, theirs in zip(first, parts):
            mine.extend(theirs)
    columns = _each(lambda j: first[j].finish(names[j]), range(len(names)), n_rows)
    return _Table(columns, n_rows)


def _each(function, items, n_rows):
    """``[function(item) for item in items]``, on a thread per core when the columns are long.

    For work that is one column per item and lets other threads run (numpy,
    pandas' factorization), as coding the columns of a large table is.
    """
    if n_rows * len(items) < _THREADED_CELLS or _WORKERS < 2:
        return [function(item) for item in items]
    with concurrent.futures.ThreadPoolExecutor(_WORKERS) as pool:
        return list(pool.map(function, items))


def _column_collector(dtype, ordered):
    if pa.types.is_dictionary(dtype):
        return _LabelCollector(CATEGORICAL if ordered else _TEXT)
    if pa.types.is_string(dtype) or pa.types.is_large_string(dtype):
        return _LabelCollector(_TEXT)
    if pa.types.is_boolean(dtype):
        return _LabelCollector(_FLAG)
    if pa.types.is_integer(dtype) or pa.types.is_floating(dtype) or pa.types.is_null(dtype):
        return _NumberCollector()
    return _PandasCollector()


class _LabelCollector:
    """Factorizes text, boolean and dictionary (categorical) columns batch by batch.

    Each batch is dictionary-encoded by Arrow; its few distinct values are
    numbered in order of first appearance across batches (as Arrow unifies
    dictionaries, so a categorical keeps its category order), and its rows
    kept as small integer codes.
    """

    def __init__(self, stored):
        self.stored = stored
        self.index = {}
        self.pieces = []
        self.all_present = True  # a stored dictionary may hold values no row has; dictionary_encode's does not

    def add(self, array):
        if pa.types.is_dictionary(array.type):
            self.all_present = False
        else:
            array = pc.dictionary_encode(array)
        index = self.index
        numbered = [-1 if value is None else index.setdefault(value, len(index))
                    for value in array.dictionary.to_pylist()]
        lookup = np.array(numbered, dtype=_index_dtype(len(index)))
        positions = array.indices
        if not len(lookup):  # every value missing
            codes = np.full(len(array), -1, np.int8)
        elif positions.null_count:
            codes = lookup[pc.fill_null(positions, 0).to_numpy()]
            codes[pc.is_null(positions).to_numpy(zero_copy_only=False)] = -1
        else:
            codes = lookup[positions.to_numpy()]
        self.pieces.append(codes)

    def extend(self, other):
        """Append the rows another collector of this column gathered (the rows after these)."""
        index = self.index
        numbered = [index.setdefault(value, len(index)) for value in other.index]
        lookup = np.array(numbered + [-1], dtype=_index_dtype(len(index)))
        self.pieces += [lookup[piece] for piece in other.pieces]
        self.all_present &= other.all_present

    def finish(self, name):
        codes = np.concatenate(self.pieces)
        self.pieces = []
        uniques = np.empty(len(self.index), dtype=object)
        uniques[:] = list(self.index)
        order = [_text_of(u) for u in uniques] if self.stored == CATEGORICAL else None
        return _factorized_column(name, codes, uniques, self.stored, order, self.all_present)


class _NumberCollector:
    """Keeps a number column batch by batch (integers in the smallest dtype that holds them), then factorizes it."""

    def __init__(self):
        self.pieces = []

    def add(self, array):
        if pa.types.is_null(array.type):
            values = np.full(len(array), np.nan)
        else:
            values = array.to_numpy(zero_copy_only=False)  # float64 with NaN where an integer is missing
        if values.dtype.kind in "iu" and values.size:
            values = values.astype(_value_dtype(values.min(), values.max()), copy=False)
        self.pieces.append(values)

    def extend(self, other):
        self.pieces += other.pieces

    def finish(self, name):
        values = np.concatenate(self.pieces)
        self.pieces = []
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
        return _factorized_column(name, codes, uniques, NUMERIC)


class _PandasCollector:
    """Any other column (dates, times, decimals, ...): converted to pandas and prepared as a DataFrame column is."""

    def __init__(self):
        self.pieces = []

    def add(self, array):
        self.pieces.append(array)

    def extend(self, other):
        self.pieces += other.pieces

    def finish(self, name):
        return _prepare_column(name, pa.chunked_array(self.pieces).to_pandas())


def _value_dtype(low, high):
    """Smallest integer dtype holding ``low .. high``."""
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        info = np.iinfo(dtype)
        if info.min <= low and high <= info.max:
            return np.dtype(dtype)
    return np.dtype(np.uint64)


def _check_names(source, names):
    """DataError naming duplicated column names with their positions."""
    if not names:
        raise DataError(f"{source.label} has no columns; choose a table with at least one column")
    spots = {}
    for position, name in enumerate(names, start=1):
        spots.setdefault(name, []).append(position)
    duplicates = [f"{name!r} (columns {', '.join(map(str, at))})" for name, at in spots.items() if len(at) > 1]
    if duplicates:
        raise DataError(f"{source.label} has duplicated column names: {'; '.join(duplicates)}; "
                        f"rename them so every column has its own name")


# -- Parquet and Feather -------------------------------------------------------


def _read_arrow_file(source, frame):
    """A Parquet or Feather (Arrow IPC) file, collected by :func:`_collect`."""
    try:
        schema, batches, index = _arrow_file_batches(source, frame)
        stored = schema.names if frame else [n for n in schema.names if n not in index]
        _check_width(source, len(stored))
        _check_single_values(source, schema, stored)
        names, notes = _named(source, stored)
        _check_names(source, names)
        ordered = [pa.types.is_dictionary(schema.field(n).type) for n in stored]
        if not frame and index:
            batches = (batch.select(stored) for batch in batches)
        batches = _counted(source, batches)
        no_rows = f"{source.label} has columns ({_short_list(names)}) but no data rows; choose a table with data"
        return _joined([_collect(batches, ordered, frame)], schema, names, no_rows, frame), notes
    except (pa.ArrowException, OSError) as error:
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise DataError(f"{source.label} cannot be read as {source.format}: {message}") from None


def _arrow_file_batches(source, frame):
    """``(schema, batches, pandas index columns)`` of a Parquet or Feather file."""
    if source.format == PARQUET:
        import pyarrow.parquet as pq

        footer = pq.ParquetFile(source.random_access())
        schema = footer.schema_arrow
        _check_cells(source, footer.metadata.num_rows, len(schema.names))  # before a page is decompressed
        index = _pandas_index_columns(schema)
        strings = [] if frame else [f.name for f in schema if pa.types.is_string(f.type) or
                                    pa.types.is_large_string(f.type)]
        # read_dictionary: text comes out dictionary-encoded as Parquet stores it, never as one string per row
        file = pq.ParquetFile(source.random_access(), read_dictionary=strings)
        return schema, file.iter_batches(batch_size=_PARQUET_BATCH), index
    head = source.prefix
    if head[:4] == b"FEA1":  # Feather version 1
        import pyarrow.feather as feather

        table = feather.read_table(source.random_access())
        return table.schema, table.to_batches(), _pandas_index_columns(table.schema)
    if head[:6] == b"ARROW1":
        reader = pa.ipc.open_file(source.random_access())
        batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
    else:
        reader = pa.ipc.open_stream(source.random_access())
        batches = iter(reader)
    return reader.schema, batches, _pandas_index_columns(reader.schema)


def _check_cells(source, rows, columns, at_least=False):
    """ResourceError for a table of more cells than a text table of the expanded-size bound could hold (two
    bytes a cell: a character and a separator), so a compressed Parquet or Arrow file expands no further than
    a gzipped CSV may (:func:`bnexplore.limits.max_expanded_bytes`)."""
    most = max_expanded_bytes() // 2
    if rows * columns > most:
        raise ResourceError(f"{source.label} holds more than {most:,} cells ({rows:,}{'+' if at_least else ''} "
                            f"rows x {columns:,} columns), as many as a {max_expanded_bytes() / (1 << 20):,.1f} MB "
                            f"text table could, the limit of this server (set {ENVIRONMENT} to allow more); nothing "
                            f"was loaded")


def _counted(source, batches):
    """The batches, refused (:func:`_check_cells`) as soon as those read hold too many cells: an Arrow file
    does not say its rows before its batches are read."""
    rows = 0
    for batch in batches:
        rows += batch.num_rows
        _check_cells(source, rows, batch.num_columns, at_least=True)
        yield batch


def _check_single_values(source, schema, names):
    """DataError naming the first column whose cells hold lists, structures or maps (a variable takes one value)."""
    nested = [name for name in names if pa.types.is_nested(schema.field(name).type)]
    if nested:
        name, dtype = nested[0], schema.field(nested[0]).type
        kind = ("a structure" if pa.types.is_struct(dtype) else "a map" if pa.types.is_map(dtype) else
                "several values" if pa.types.is_union(dtype) else "a list")
        others = f" (so do {_short_list(nested[1:])})" if len(nested) > 1 else ""
        raise DataError(f"{source.label} column {name!r} holds {kind} in each cell ({dtype}){others}, not one value; "
                        f"a variable takes one value per row: leave the column out of the file, or split it into "
                        f"columns of single values")


def _pandas_index_columns(schema):
    """Columns that pandas stored as the index of the frame (not data)."""
    metadata = schema.pandas_metadata or {}
    return {name for name in metadata.get("index_columns", []) if isinstance(name, str)}


# -- CSV -------------------------------------------------------------------------


def _read_csv(source, header, sep, encoding, frame):
    """Parse CSV text with Arrow's streaming reader; returns ``(collected, warnings)``.

    Large uncompressed text is cut into row ranges read in parallel, one per
    core (:func:`_row_ranges`). Arrow fixes each column's type on the first
    block; a later value that does not fit (text after a million numbers)
    restarts the read with that column widened (to float, then text), so types
    are those of the whole column as pandas infers them. Text that is not UTF-8
    restarts it as latin-1. A row longer than Arrow's block (a cell of
    megabytes, a very long header) restarts it with blocks four times as long,
    up to :data:`_CSV_BLOCK_MOST`. Without ``sep`` the separator is sniffed
    (:func:`_sniff_separator`); a first record of more than
    :data:`MAX_COLUMNS` fields is refused before Arrow reads it.
    """
    text_encoding = _text_encoding(source, encoding)
    _check_text(source, text_encoding)
    sniffed = sep is None
    if sniffed:
        sep = _sniff_separator(source, text_encoding)
    _check_width(source, _first_record_fields(source, sep, text_encoding), at_least=True)
    ranges = _row_ranges(source, text_encoding)
    notes, forced, names, block = [], {}, [], _CSV_BLOCK
    while True:
        try:
            result, renamed = _parse_csv(source, header, sep, text_encoding, forced, ranges, frame, names, block)
            return result, notes + renamed
        except UnicodeDecodeError:
            raise _decode_error(source, text_encoding) from None
        except pa.ArrowInvalid as error:
            message = str(error)
            conversion = re.search(r"In CSV column #(\d+): (?:Row #\d+: )?CSV conversion error to (\w+).*?: "
                                   r"invalid value '(.*)'", message, re.S)
            if "invalid UTF8" in message:
                if encoding is not None:
                    raise _decode_error(source, text_encoding) from None
                line, _ = _undecodable(source, "utf-8") or ("?", 0)
                notes.append(f"{source.label} is not valid UTF-8 (first undecodable byte on line {line}); read it as "
                             f"latin-1 — check accented characters, or set {subject('encoding')} if the file uses "
                             f"another one")
                text_encoding = "latin-1"
            elif conversion:
                column, to, value = int(conversion[1]), conversion[2], conversion[3]
                forced[names[column]] = pa.float64() if to in ("int64", "null") and _is_float(value) else pa.string()
            elif "Expected" in message and "columns" in message and ranges != [(0, None)]:
                ranges = [(0, None)]  # a bad row is numbered from the top only by a reader that starts there
            elif "straddl" in message or "Empty CSV file or block" in message:  # a row longer than a block
                if block >= _CSV_BLOCK_MOST:
                    raise DataError(f"{source.label} has a row longer than {_CSV_BLOCK_MOST >> 20:,} MB (a very "
                                    f"long cell or header line), more than this reader takes; shorten it") from None
                block *= 4
            else:
                raise _parse_error(source, message, sep, sniffed) from None
        except OSError as error:
            if source.gzip:
                raise source.gzip_error(error) from None
            raise DataError(f"cannot read {source.label}: {error}") from None


def _parse_csv(source, header, sep, encoding, forced, ranges, frame, names, block):
    """One attempt at reading CSV text, in Arrow blocks of ``block`` bytes: the first range's reader infers the
    column types, the readers of the other ranges (in threads) are given them. ``names`` receives Arrow's
    column names. Returns ``(collected, warnings about column names)``."""
    with contextlib.closing(source.text_stream(*ranges[0])) as stream:
        first = _open_csv(stream, header, sep, encoding, forced, block)
        schema = first.schema
        names[:] = schema.names
        if any(pa.types.is_binary(t) for t in schema.types):
            raise pa.ArrowInvalid("invalid UTF8 data")  # Arrow types text that is not UTF-8 as binary
        widen = {n: pa.string() for n, t in zip(schema.names, schema.types) if _needs_text(t)}
        if widen:
            forced.update(widen)
            return _parse_csv(source, header, sep, encoding, forced, ranges, frame, names, block)
        shown, notes = _named(source, schema.names) if header else ([f"X{j}" for j in range(len(schema.names))], [])
        _check_names(source, shown)
        check_nul = not _wide(encoding)
        ordered = [False] * len(shown)
        types = dict(zip(schema.names, schema.types))

        def read_range(span):
            with contextlib.closing(source.text_stream(*span)) as part:
                reader = _open_csv(part, False, sep, encoding, types, block, names=schema.names)
                return _collect(_checked(source, reader, check_nul), ordered, frame)

        with concurrent.futures.ThreadPoolExecutor(max(1, len(ranges) - 1)) as pool:
            later = [pool.submit(read_range, span) for span in ranges[1:]]
            pieces = [_collect(_checked(source, first, check_nul), ordered, frame)]
            pieces += [future.result() for future in later]
    no_rows = f"{source.label} has a header line but no data rows; add data rows"
    return _joined(pieces, schema, shown, no_rows, frame), notes


def _checked(source, batches, check_nul):
    """The batches, refusing text that holds NUL bytes."""
    for batch in batches:
        if check_nul:
            _check_no_nul(source, batch)
        yield batch


def _row_ranges(source, encoding):
    """Byte ranges of the text, each starting at a row, for one reader per core: ``[(0, None)]`` (all of it)
    for gzipped, UTF-16/32 or small text (under two :data:`_CSV_PART` per range)."""
    size = source.size()
    count = min(_WORKERS, size // _CSV_PART)
    if count < 2 or source.gzip or _wide(encoding):
        return [(0, None)]
    starts = [start for start in _row_starts(source, [size * k // count for k in range(1, count)]) if start < size]
    return list(zip([0, *starts], [*starts, None]))


def _row_starts(source, targets):
    """For each target byte offset, the first offset at or after it where a row starts: just after a newline
    with an even number of quote characters before it (RFC 4180 quoting: a newline in a quoted field has an
    odd number; a doubled quote inside one adds two)."""
    starts, wanted, odd = [], iter(targets), 0
    target = next(wanted, None)
    for offset, chunk in _offsets(source.chunks(1 << 24)):
        done = 0  # quotes of chunk[:done] are counted in odd
        while target is not None:
            newline = chunk.find(b"\n", max(target - 1 - offset, done))  # a row may start at the target
            if newline < 0:
                break
            odd = (odd + chunk.count(b'"', done, newline + 1)) % 2
            done = newline + 1
            if not odd:
                starts.append(offset + done)
                target = next(wanted, None)
        if target is None:
            break
        odd = (odd + chunk.count(b'"', done)) % 2
    return starts


def _open_csv(stream, header, sep, encoding, forced, block, names=None):
    """Arrow's streaming CSV reader; ``names`` (for a range after the first) means there is no header line.

    One thread per reader: Arrow's own threads cost more CPU than they save on a streamed read, and
    only a one-thread reader numbers the row of a parse error.
    """
    return pa_csv.open_csv(
        stream,
        read_options=pa_csv.ReadOptions(use_threads=False, block_size=block, encoding=encoding,
                                        column_names=names or [],
                                        autogenerate_column_names=names is None and not header),
        parse_options=pa_csv.ParseOptions(delimiter=sep, newlines_in_values=True),
        convert_options=pa_csv.ConvertOptions(column_types=forced, null_values=_NA_VALUES, strings_can_be_null=True,
                                              true_values=_NO_BOOLEANS, false_values=_NO_BOOLEANS),
    )


def _named(source, stored):
    """``(names, warnings)``: the stored column names, a blank or all-space one replaced by ``column N`` (its
    1-based position), which a command line can name; a warning says which."""
    names, blank = [], []
    for position, name in enumerate(stored, start=1):
        if str(name).strip():
            names.append(name)
        else:
            names.append(f"column {position}")
            blank.append(f"column {position}" + (f" (its name was {name!r})" if name else ""))
    if not blank:
        return names, []
    return names, [f"{source.label} has no name for {_short_list(blank, quote=False)}; "
                   f"{'it is' if len(blank) == 1 else 'they are'} called so here: give "
                   f"{'it a name' if len(blank) == 1 else 'them names'} in the file to choose another"]


def _sniff_separator(source, encoding):
    """The separator of the first records (up to :data:`_SNIFFED_RECORDS`, quotes respected): of the
    :data:`SEPARATORS` that split the header into more than one field, the one that splits the most records
    into as many fields as the header (the first listed on a tie); ``,`` when none splits the header."""
    records = _records(source.prefix.decode(_python_encoding(encoding), errors="replace"),
                       complete=len(source.prefix) < _PREFIX)
    best, agreeing = ",", 0
    for sep in SEPARATORS:
        counts = [_count_outside_quotes(record, sep) for record in records]
        alike = counts.count(counts[0]) if counts and counts[0] > 0 else 0
        if alike > agreeing:
            best, agreeing = sep, alike
    return best


def _records(text, complete):
    """The first :data:`_SNIFFED_RECORDS` records of CSV text: split at newlines outside double quotes (the
    last one dropped unless the text is ``complete``), blank ones skipped."""
    records, start, quoted = [], 0, False
    for match in re.finditer(r'["\n]', text):
        if match.group() == '"':
            quoted = not quoted
        elif not quoted:
            records.append(text[start: match.start()])
            start = match.end()
            if len(records) > _SNIFFED_RECORDS:
                break
    if complete and len(records) <= _SNIFFED_RECORDS:
        records.append(text[start:])
    return [record for record in records[:_SNIFFED_RECORDS] if record.strip()]


def _count_outside_quotes(record, sep):
    """How often ``sep`` occurs in a record outside double-quoted fields."""
    return sum(part.count(sep) for part in record.split('"')[0::2])


def _first_record_fields(source, sep, encoding):
    """Fields of the first record (header), counted up to :data:`MAX_COLUMNS` + 1 while the text is streamed,
    so a line of a million fields is refused after reading it once, never parsed."""
    decoder = codecs.getincrementaldecoder(_python_encoding(encoding))(errors="replace")
    fields, quoted = 1, False
    for chunk in source.chunks():
        for k, part in enumerate(decoder.decode(chunk).split('"')):
            quoted = quoted != (k > 0)  # every quote after the first part toggles
            if quoted:
                continue
            end = part.find("\n")
            fields += part.count(sep, 0, len(part) if end < 0 else end)
            if end >= 0 or fields > MAX_COLUMNS:
                return min(fields, MAX_COLUMNS + 1)
    return fields


def _check_width(source, count, at_least=False):
    """DataError for a table of more than :data:`MAX_COLUMNS` columns (``count``, or ``at_least`` that many)."""
    if count > MAX_COLUMNS:
        raise DataError(f"{source.label} has more than {MAX_COLUMNS:,} columns ({count:,}"
                        f"{'+' if at_least else ''}), more than a network can be learned over "
                        f"here; keep the columns you need (at most {MAX_COLUMNS:,}) in the file")


def _python_encoding(encoding):
    """Python's codec name for Arrow's encoding name (``utf8`` is ``utf-8``)."""
    return "utf-8" if encoding == "utf8" else encoding


def _needs_text(dtype):
    """Column types Arrow infers that pandas leaves as text (dates, times): read as written."""
    return not (pa.types.is_integer(dtype) or pa.types.is_floating(dtype) or pa.types.is_boolean(dtype)
                or pa.types.is_string(dtype) or pa.types.is_null(dtype) or pa.types.is_binary(dtype))


def _is_float(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _text_encoding(source, encoding):
    """Arrow's name of the encoding to read with: the one given, else UTF-8 or a byte-order mark's. UTF-16 or
    UTF-32 given for text without a byte-order mark (which Python's decoders of those names refuse) is read
    little-endian when the text starts with a byte that is not NUL, else big-endian."""
    head = source.prefix
    boms = {"utf-32": (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE), "utf-16": (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)}
    if encoding is None:
        return next((name for name, marks in boms.items() if head.startswith(marks)), "utf8")
    name = codecs.lookup(encoding).name
    if name in boms and not head.startswith(boms[name]):
        return name + ("-be" if head[:1] == b"\x00" else "-le")
    return "utf8" if name == "utf-8" else encoding


def _wide(encoding):
    """Whether text in this encoding holds NUL bytes (UTF-16, UTF-32)."""
    return codecs.lookup(encoding).name.startswith(("utf-16", "utf-32"))


def _check_text(source, encoding):
    """DataError for an empty file, or one whose first bytes are not text (NUL bytes, control characters)."""
    head = source.prefix
    text = head.decode(encoding, errors="replace")
    if not text.strip() and len(head) < _PREFIX:
        raise DataError(f"{source.label} is empty ({'0 bytes' if not head else 'only whitespace'}); "
                        f"choose a CSV file with a header line and data rows")
    nul = text.find("\x00") if _wide(encoding) else head.find(b"\x00")
    if nul >= 0:
        unit = "character" if _wide(encoding) else "byte"
        raise _not_text(source, f"it holds NUL bytes, the first at {unit} {nul + 1:,}")
    control = len(_CONTROL.findall(text))
    if control > _CONTROL_SHARE * len(text):
        raise _not_text(source, f"{control:,} of its first {len(text):,} characters are control characters")


_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f]")  # control characters that text tables do not hold


def _not_text(source, found):
    hint = ""
    head = source.prefix
    if b"\x00" in head and max(head[0::2].count(0), head[1::2].count(0)) > 0.4 * len(head) / 2:
        hint = f"; if it is UTF-16 text, set {subject('encoding', 'utf-16')}"
    return DataError(f"{source.label} is not a text table ({found}); give a CSV, Parquet or Feather file{hint}")


def _check_no_nul(source, batch):
    """DataError naming the first NUL byte of the file if a text column of the batch holds one."""
    for array in batch.columns:
        if (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)) and _holds_nul(array):
            offset = next(at + chunk.find(b"\x00") for at, chunk in _offsets(source.chunks()) if b"\x00" in chunk)
            raise _not_text(source, f"it holds NUL bytes, the first at byte {offset + 1:,}")


def _holds_nul(array):
    """Whether the values of a string array hold a NUL character (the bytes its offsets span, not padding)."""
    offsets, data = array.buffers()[1:3]
    if data is None:
        return False
    bounds = np.frombuffer(offsets, np.int64 if pa.types.is_large_string(array.type) else np.int32)
    start, end = int(bounds[array.offset]), int(bounds[array.offset + len(array)])
    return end > start and np.frombuffer(data, np.uint8, count=end - start, offset=start).min() == 0


def _offsets(chunks):
    """``(offset, chunk)`` pairs of a stream of byte chunks."""
    offset = 0
    for chunk in chunks:
        yield offset, chunk
        offset += len(chunk)


def _undecodable(source, encoding):
    """``(line, byte offset)`` of the first byte that does not decode in ``encoding``, or None."""
    decoder = codecs.getincrementaldecoder(encoding)()
    lines = 0
    for offset, chunk in _offsets(source.chunks()):
        pending = len(decoder.getstate()[0])
        try:
            decoder.decode(chunk)
        except UnicodeDecodeError as error:
            position = offset - pending + error.start
            return lines + chunk[: max(0, position - offset)].count(b"\n") + 1, position
        lines += chunk.count(b"\n")
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return lines + 1, None
    return None


def _decode_error(source, encoding):
    line, _ = _undecodable(source, encoding) or ("?", 0)
    name = "utf-8" if encoding == "utf8" else encoding
    return DataError(f"{source.label} line {line} is not valid {name} text; set the file's encoding, "
                     f"e.g. {subject('encoding', 'latin-1')}")


def _parse_error(source, message, sep, sniffed):
    """DataError for text Arrow cannot split into rows of equal length (``sniffed``: the separator was)."""
    fields = re.search(r"(?:Row #(\d+): )?Expected (\d+) columns, got (\d+)", message)
    if fields:
        row, expected, got = fields.groups()
        where = f"line {row}" if row else "a line"
        what = f"{where} has {got} field{'s' if got != '1' else ''} where the first line has {expected}"
    else:
        what = message.replace("CSV parse error: ", "").strip().splitlines()[0]
    told = option("sep")
    check = (f"it was read with the separator {sep!r}" + (", sniffed from the first lines" if sniffed else "")
             + (f"; if that is wrong, set {told}" if told else ""))
    return DataError(f"{source.label} could not be parsed: {what}; every line needs the same number of fields "
                     f"({check})")
