"""What an Encoder learns about one column, and the per-column rules it applies.

A :class:`ColumnSpec` records a fitted column: its kind, states and cut
points. The functions here are the rules the
:class:`~bnexplore.data.Encoder` applies column by column: the kind a column
gets when no option names it (:func:`infer_kind`), the states it learns
(:func:`fit_categorical`, :func:`fit_numeric`), how a prepared column is
coded under a spec (:func:`encode_column`), how the ``discretize`` and
``types`` options are read, and the messages naming the cell at fault.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import DataError, option, subject
from .columns import CATEGORICAL, NUMERIC
from .discretize import discretize_values, interval_labels, learn_cut_points, parse_method
from .messages import short_list

_UNKNOWN = -2  # code of a value an encoder cannot code (unseen category, text in a numeric column)


@dataclass
class ColumnSpec:
    """What an :class:`~bnexplore.data.Encoder` learned about one column.

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
    empty : bool
        Whether every cell was blank in the fitted table (``missing="em"``):
        the column has no state and is not coded.
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
    empty: bool = False

    @property
    def arity(self):
        """Number of states."""
        return len(self.states)


def fit_categorical(column, declared, max_levels):
    """Spec of a categorical column: its distinct labels, in category order or sorted (:func:`_label_sort_key`).

    Parameters
    ----------
    column : bnexplore.data.columns.Column
    declared : bool
        Whether the ``types`` option named the kind (then ``max_levels`` does not apply).
    max_levels : int or None
        Most states of a column inferred categorical.

    Returns
    -------
    ColumnSpec
    """
    labels = column.labels()
    distinct = {labels[u] for u in np.flatnonzero(column.present())}
    if not declared and max_levels is not None and len(distinct) > max_levels:
        raise DataError(_too_many_levels_message(column, len(distinct), max_levels))
    if column.category_order is not None:
        rank = {label: k for k, label in enumerate(column.category_order)}
        states = sorted(distinct, key=rank.__getitem__)
    else:
        states = sorted(distinct, key=_label_sort_key)
    return ColumnSpec(column.name, CATEGORICAL, states)


def fit_numeric(column, table, method):
    """Spec of a numeric column discretized by ``method``, and a warning when it got fewer bins than asked.

    Parameters
    ----------
    column : bnexplore.data.columns.Column
    table : bnexplore.data.columns.Table
        The table of the column (for row numbers in messages).
    method : bnexplore.data.discretize.Method

    Returns
    -------
    spec : ColumnSpec
    note : str or None
    """
    _check_numbers(column, table, fitting=True)
    values = column.numbers[column.codes[column.codes >= 0]]
    cuts = learn_cut_points(method, values)
    note = None
    if method.name != "manual" and 1 < len(cuts) + 1 < method.bins:
        note = (
            f"column {column.name!r}: {method.text} gave {len(cuts) + 1} bins instead of {method.bins} "
            f"because of tied values (cut points {short_list(cuts.tolist(), quote=False)})"
        )
    return ColumnSpec(column.name, NUMERIC, interval_labels(cuts), method.text, cuts), note


def encode_column(spec, column, table, out, blank=None):
    """Write the codes of one prepared column under its fitted spec into ``out``, or DataError.

    With ``blank`` (a bool array like ``out``; ``missing="em"``) a missing cell is marked there and coded 0,
    else it is coded as the missing state or refused.
    """
    if spec.kind == NUMERIC:
        _check_numbers(column, table, fitting=False)
        per_unique = discretize_values(column.numbers, spec.cuts)
    else:
        index = {label: k for k, label in enumerate(spec.states[: spec.arity - spec.missing_state])}
        per_unique = np.array([index.get(label, _UNKNOWN) for label in column.labels()], dtype=np.int64)
    missing_code = spec.arity - 1 if spec.missing_state else -1
    if blank is not None:
        blank[:] = column.codes < 0
        missing_code = 0  # the placeholder code of a blank cell
    lookup = np.append(per_unique, missing_code)  # a code of -1 (missing) picks the last entry
    uncodable = lookup < 0
    if uncodable.any():
        rows = uncodable[column.codes]
        if rows.any():
            _raise_uncodable(spec, column, table, int(np.argmax(rows)))
    out[:] = lookup.astype(out.dtype)[column.codes]


def _raise_uncodable(spec, column, table, row):
    """DataError for row ``row`` of a column, missing or unseen when the encoder was fitted."""
    name, number = spec.name, table.row_number(row)
    if column.codes[row] < 0:
        raise DataError(
            f"column {name!r} row {number} is missing, but {name!r} had no missing values when the encoder was "
            f"fitted; fill it in, drop the row, or fit on data with missing values in {name!r}"
        )
    value = column.labels()[column.codes[row]]
    raise DataError(
        f"column {name!r} row {number} has value {value!r}, which was not seen when the encoder was fitted "
        f"(states: {short_list(spec.states, quote=False)}); recode it or fit on data that includes it"
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


def inferred_categorical(spec):
    """Whether a column is categorical by inference (where mixed-type notes matter)."""
    return spec.kind == CATEGORICAL and not spec.declared


def infer_kind(column, max_int_levels):
    """Categorical unless number-valued with non-integers or many levels."""
    if not column.number_valued:
        return CATEGORICAL
    numbers = column.numbers
    whole = bool(np.all(np.isfinite(numbers) & (numbers == np.floor(numbers))))
    return CATEGORICAL if whole and len(numbers) <= max_int_levels else NUMERIC


def first_missing(table):
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
    """Message for a column inferred categorical with more than ``max_levels`` states, saying what to do."""
    name = column.name
    numeric = option("types", {name: NUMERIC})
    numeric_hint = (f", declare it numeric and discretize it ({numeric}, {subject('discretize', 'uniform3')}),"
                    if numeric and len(column.numbers) and not np.isnan(column.numbers).any() else "")
    leave = option("leave_out", name)
    return (
        f"column {name!r} has {count} distinct values, more than {subject('max_levels', max_levels)}"
        + (f": {column.note}; otherwise" if column.note else ";")
        + f" leave it out{f' ({leave})' if leave else ''}{numeric_hint} or raise {subject('max_levels')}"
    )


def _label_sort_key(label):
    """Numbers first, in numeric order (2 < 10), then text in alphabetical order."""
    try:
        x = float(label)
    except ValueError:
        return (1, 0.0, label)
    return (0, x, label) if math.isfinite(x) else (1, 0.0, label)


def parse_discretize(discretize):
    """The ``discretize`` option read: None, one :class:`~bnexplore.data.discretize.Method`, or a dict column ->
    Method (DataError naming a bad entry)."""
    if discretize is None:
        return None
    if isinstance(discretize, dict):
        return {str(name): parse_method(method, "discretize", str(name)) for name, method in discretize.items()}
    return parse_method(discretize, "discretize")


def parse_types(types):
    """The ``types`` option checked: None, one kind, or a dict column -> kind (DataError naming a bad entry)."""
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


def is_int(value):
    """Whether ``value`` is a whole number given as an integer (not a bool, not a float)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
