"""Columns of a table prepared for typing and coding: factorized once, whatever read them.

A :class:`Column` holds one column as small integer codes into its distinct
values (no Python object per row), with each distinct value's number and
canonical text; a :class:`Table` holds the prepared columns and the original
row numbers, which messages cite. :func:`prepare_table` prepares a pandas
DataFrame; the file readers build the same columns batch by batch
(:func:`factorized_column`), so the :class:`~bnexplore.data.Encoder` never
sees a difference. This room also says which columns look like row
identifiers (:func:`identifier_note`), which columns an Encoder keeps
(:func:`kept_columns`) and which cells a table marks as having no value
(:func:`missing_marks`, :func:`blanked`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import DataError, option, subject
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


MAX_MISSING_MARKS = 100
"""Most marks ``missing_values`` may list (each cell's text is looked up among them)."""


def kept_columns(names, leave_out):
    """The column ``names`` a table keeps when ``leave_out`` is set aside (the Encoder's ``leave_out``).

    Parameters
    ----------
    names : list of str
        The table's columns.
    leave_out : str, list of str or None
        Columns not to use; each must be one of ``names``.

    Returns
    -------
    list of str
        ``names`` without those left out, in table order (at least one).

    Raises
    ------
    DataError
        For a name the table does not have (listing the columns), anything but names, or no column kept.

    Examples
    --------
    >>> kept_columns(["id", "smoker", "cough"], "id")
    ['smoker', 'cough']
    """
    left_out = leave_out_names(leave_out)
    absent = [name for name in left_out if name not in names]
    if absent:
        raise DataError(f"{subject('leave_out')} names column(s) {short_list(absent)} that the table does not "
                        f"have; the columns are {short_list(names)}")
    kept = [name for name in names if name not in left_out]
    if not kept:
        raise DataError(f"{subject('leave_out')} leaves out every column ({short_list(names)}); keep at least one")
    return kept


def missing_marks(missing_values):
    """The Encoder's ``missing_values`` as a frozenset of marks without surrounding spaces (DataError for anything
    else).

    Examples
    --------
    >>> sorted(missing_marks(["?", " unknown "]))
    ['?', 'unknown']
    """
    if missing_values is None:
        return frozenset()
    marks = [missing_values] if isinstance(missing_values, str) else missing_values
    if not isinstance(marks, (list, tuple)) or not all(isinstance(mark, str) for mark in marks):
        raise DataError(f"{subject('missing_values', missing_values)} is not valid; give a value or a list of at most "
                        f"{MAX_MISSING_MARKS} values that mean 'no value' (such as '?' or 'unknown')")
    if len(marks) > MAX_MISSING_MARKS:  # said without echoing every mark
        raise DataError(f"{subject('missing_values')} takes at most {MAX_MISSING_MARKS} marks for 'no value'; it has "
                        f"{len(marks):,}")
    return frozenset(mark.strip() for mark in marks)


def marked(values, missing_values):
    """Which of ``values`` (one per row, any objects) are one of the ``missing_values`` marks, by their canonical
    text (:func:`text_of`, spaces around it ignored), as :func:`blanked` compares a text column's cells.

    Examples
    --------
    >>> marked(["yes", " ? ", "no", -999], ["?", "-999"]).tolist()
    [False, True, False, True]
    """
    marks = missing_marks(missing_values)
    return np.array([bool(marks) and text_of(value).strip() in marks for value in values], dtype=bool)


def leave_out_names(leave_out):
    """The Encoder's ``leave_out`` as a tuple of column names (None: none); DataError for anything else.

    Examples
    --------
    >>> leave_out_names("id"), leave_out_names(["id", "note", "id"])
    (('id',), ('id', 'note'))
    """
    if leave_out is None:
        return ()
    names = [leave_out] if isinstance(leave_out, str) else leave_out
    if not isinstance(names, (list, tuple)) or not all(isinstance(name, str) for name in names):
        raise DataError(f"{subject('leave_out', leave_out)} is not valid; give a column name or a list of "
                        f"column names")
    return tuple(dict.fromkeys(names))


LIKELY_MARKS = ("?", "unknown", "missing")
"""Values that usually mean "no value" (UCI's ``?``), which :func:`marks_note` points out when a table's
text columns hold them (compared without case); the readers' NA words (``NA``, ``null``, ...) are blank already."""


def marks_note(columns):
    """A note naming the text columns that hold a value of :data:`LIKELY_MARKS` and how to mark it missing,
    else None.

    Examples
    --------
    >>> import pandas as pd
    >>> print(marks_note([prepare_column("work", pd.Series(["paid", "?", "self"]))]))
    column(s) 'work' hold '?' (1 row): if it means 'no value', mark it missing (missing_values='?')
    """
    found = {}
    for column in columns:
        if column.number_valued:
            continue
        rows = np.bincount(column.codes[column.codes >= 0], minlength=len(column.uniques))
        for label, count in zip(column.labels(), rows.tolist()):
            if count and label.strip().lower() in LIKELY_MARKS:
                names, total = found.get(label.strip(), ([], 0))
                found[label.strip()] = (names + [column.name], total + count)
    if not found:
        return None
    marks = list(found)
    how = option("missing_values", marks[0] if len(marks) == 1 else marks)
    it = "it means 'no value', mark it" if len(marks) == 1 else "they mean 'no value', mark them"
    return "; ".join(f"column(s) {short_list(names)} hold {mark!r} ({count:,} row{'s' if count > 1 else ''})"
                     for mark, (names, count) in found.items()) + f": if {it} missing" + (f" ({how})" if how else "")


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


def blanked(column, values):
    """``column`` with every cell whose text is one of ``values`` missing (a table's own mark for "no value",
    such as ``?`` or ``-999``).

    Cells compare by their canonical text (:meth:`Column.labels`, spaces around it ignored), and in a column
    of numbers by value, so ``"-999"`` matches the number -999 as well as the text. A column of text that held
    numbers besides such marks is a column of numbers without them.

    Parameters
    ----------
    column : Column
    values : frozenset of str
        The marks, without surrounding spaces.

    Returns
    -------
    Column
        ``column`` itself when no cell matches.

    Examples
    --------
    >>> import pandas as pd
    >>> age = blanked(prepare_column("age", pd.Series(["34", "?", "51", "?"])), frozenset({"?"}))
    >>> age.codes.tolist(), age.number_valued, age.note
    ([0, -1, 1, -1], True, None)
    """
    if column.number_valued:  # numbers: compared as numbers, without a text per distinct value
        marks = [float(mark) for mark in values if not math.isnan(_as_number(mark))]
        hit = np.isin(column.numbers, np.array(marks, dtype=np.float64))
    else:
        hit = np.array([label.strip() in values for label in column.labels()], dtype=bool)
    if not hit.any():
        return column
    codes, uniques = _drop_uniques(column.codes, column.uniques, hit)
    numbers = column.numbers[~hit]
    is_number = ~np.isnan(numbers)
    text = column.category_order is None and not column.number_valued and bool(is_number.any())
    number_valued = column.number_valued or (text and bool(is_number.all()))
    order = None if column.category_order is None else [
        label for label in column.category_order if label.strip() not in values]
    kept = Column(column.name, codes.astype(index_dtype(len(uniques)), copy=False), uniques, numbers, number_valued,
                  order, all_present=column.all_present)
    if text and not number_valued:
        kept.note = _mixed_warning(kept, is_number)
    return kept


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
    how = option("missing_values", str(value))
    return (
        f"column {column.name!r} mixes numbers and text (row {row + 1}: {str(value)!r}); it is treated as "
        f"categorical text: fix that value, or mark it missing{f' ({how})' if how else ''}, if the column should "
        f"be numeric"
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
