"""Columns of a table prepared for typing and coding: factorized once, whatever read them.

A :class:`Column` holds one column as small integer codes into its distinct
values (no Python object per row), with each distinct value's number and
canonical text; a :class:`Table` holds the prepared columns and the original
row numbers, which messages cite. :func:`prepare_table` prepares a pandas
DataFrame; the file readers build the same columns batch by batch
(:func:`factorized_column`), so the :class:`~bnexplore.data.Encoder` never
sees a difference. This room also says which columns look like row
identifiers (:func:`identifier_note`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import DataError, option
from .messages import repeated, short_list

CATEGORICAL = "categorical"
"""Kind of a column whose values are its states (also: values stored as a categorical whose order counts)."""
NUMERIC = "numeric"
"""Kind of a column of numbers that a discretization cuts into states (also: values stored as numbers)."""
FLAG, TEXT = "flag", "text"  # kinds of stored values besides CATEGORICAL (an ordered categorical) and NUMERIC


@dataclass
class Column:
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
        """Number of rows whose value is missing."""
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


def prepare_column(name, series):
    """Factorize one pandas column (noting it when it mixes numbers and text)."""
    import pandas as pd  # heavy: loaded where a table is built, not for codes
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return factorized_column(name, codes, np.asarray(uniques), CATEGORICAL,
                                 [text_of(c) for c in dtype.categories])
    if pd.api.types.is_bool_dtype(dtype):
        return factorized_column(name, codes, np.asarray(uniques), FLAG)
    if pd.api.types.is_numeric_dtype(dtype):
        return factorized_column(name, codes, np.asarray(uniques), NUMERIC)
    return factorized_column(name, codes, np.asarray(uniques, dtype=object), TEXT)


def factorized_column(name, codes, uniques, stored, category_order=None, all_present=True):
    """A :class:`Column` from factorized values, whatever read them.

    Parameters
    ----------
    name : str
    codes : numpy.ndarray of int
        Index into ``uniques`` of each row, -1 when missing.
    uniques : numpy.ndarray
        Distinct values (of any order).
    stored : str
        How the values were stored: ``CATEGORICAL`` (a categorical whose
        ``category_order`` counts), ``FLAG`` (booleans), ``NUMERIC`` (numbers)
        or ``TEXT`` (anything else: blank text is missing, numeric text is a
        number).
    category_order : list of str, optional
        Labels in category order (``CATEGORICAL`` only).
    all_present : bool
        Whether every unique occurs in some row (False when ``uniques``
        may hold unused categories).
    """
    if stored == TEXT:
        blank = np.array([isinstance(u, str) and not u.strip() for u in uniques], dtype=bool)
        if blank.any():
            codes, uniques = _drop_uniques(codes, uniques, blank)
    codes = codes.astype(index_dtype(len(uniques)), copy=False)
    if stored == CATEGORICAL:
        return Column(name, codes, uniques, _numbers_of(uniques), False, category_order, all_present=all_present)
    if stored == FLAG:
        return Column(name, codes, uniques, np.full(len(uniques), np.nan), False, all_present=all_present)
    if stored == NUMERIC:
        return Column(name, codes, uniques, np.asarray(uniques, dtype=np.float64), True, all_present=all_present)
    numbers = _numbers_of(uniques)
    is_number = ~np.isnan(numbers)
    column = Column(name, codes, uniques, numbers, bool(is_number.all()), all_present=all_present)
    if is_number.any() and not column.number_valued:
        column.note = _mixed_warning(column, is_number)
    return column


IDENTIFIER_MIN_ROWS = 20
"""Fewest non-missing rows for a column of distinct values to count as a row identifier."""


def identifier_note(column):
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
    how = option("leave_out", column.name)
    return (f"column {column.name!r} looks like a row identifier: every row has its own value ({distinct:,} "
            f"distinct values in {present:,} rows), so it tells a network nothing about other rows; leave it out"
            + (f" ({how})" if how else ""))


def index_dtype(n_uniques):
    """Smallest signed integer dtype for indices ``-1 .. n_uniques - 1``."""
    for dtype in (np.int8, np.int16, np.int32):
        if n_uniques <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def _numbers_of(uniques):
    """Float value of each unique (NaN where it is not a number)."""
    return np.array([_as_number(u) for u in uniques], dtype=np.float64)


def text_of(value):
    """Canonical text of one value, as a state label writes it (``2.0`` reads ``"2"``)."""
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
class Table:
    """Prepared columns of a table and the original positions of its rows."""

    columns: list
    n_rows: int
    rows: np.ndarray | None = None  # original position of each current row; None = unchanged

    def row_number(self, i):
        """1-based row number, as the user sees it, of current row ``i``."""
        return int(self.rows[i] if self.rows is not None else i) + 1

    def keep_rows(self, keep):
        """Keep only the rows at positions ``keep`` (ascending), remembering their original numbers."""
        for column in self.columns:
            column.codes = column.codes[keep]
            column.all_present = False
        self.rows = keep if self.rows is None else self.rows[keep]
        self.n_rows = len(keep)


def _column_names(df):
    """The column names of ``df`` as text, or DataError naming those that repeat."""
    names = [str(c) for c in df.columns]
    twice = repeated(names)
    if twice:
        raise DataError(
            f"duplicated column names: {short_list(twice)}; rename them so every column has its own name"
        )
    return names


def prepare_table(df, wanted=None):
    """Prepare the columns of ``df`` (only ``wanted`` ones, in that order, if given)."""
    import pandas as pd  # heavy: loaded where a table is built, not for codes
    if not isinstance(df, pd.DataFrame):
        raise DataError(f"expected a pandas DataFrame, got {type(df).__name__}; use read_csv for files")
    names = _column_names(df)
    if not names:
        raise DataError("the table has no columns; load a table with at least one column")
    if len(df) == 0:
        raise DataError(f"the table has columns ({short_list(names)}) but no data rows; load a table with data")
    position = {name: j for j, name in enumerate(names)}
    if wanted is not None:
        absent = [name for name in wanted if name not in position]
        if absent:
            raise DataError(
                f"the table has no column {short_list(absent)}, which the encoder was fitted on; "
                f"give a table with the same columns"
            )
        names = wanted
    return Table([prepare_column(name, df.iloc[:, position[name]]) for name in names], len(df))
