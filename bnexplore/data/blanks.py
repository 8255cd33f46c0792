"""Blank cells and row weights of a Dataset: how they are checked, and the guards of code that cannot use them.

A :class:`~bnexplore.data.Dataset` read with ``missing="em"`` keeps its
missing cells as *blank*: a boolean mask beside the codes (the codes there are
a placeholder 0 that must never be counted), so EM can learn from the values
each row has. A *weighted* Dataset is a completed table (each incomplete row
replaced by its completions, weighted by their posterior probability, as
structural EM's E-step makes it): every count over it is a weighted count. A
Dataset never holds both.

:func:`check_blank` and :func:`check_weights` are what the Dataset applies to
what it is given. Code that reads ``Dataset.codes`` directly and would count
the placeholders, or ignore the weights, calls :func:`require_complete` or
:func:`require_unweighted` at its entry: one line saying what to do instead.
"""

from __future__ import annotations

import numpy as np

from ..errors import DataError, subject


def check_blank(blank, shape):
    """The ``blank`` mask of a Dataset checked: None, or a Fortran-ordered bool array with a True.

    Parameters
    ----------
    blank : array_like of bool or None
        ``blank[s, i]`` says that variable ``i`` of row ``s`` was not observed.
    shape : tuple of int
        ``(n_rows, n_vars)`` of the codes.

    Returns
    -------
    numpy.ndarray of bool or None
        None when no cell is blank (an all-False mask is stored as None).
    """
    if blank is None:
        return None
    blank = np.asarray(blank)
    if blank.dtype != bool:
        raise DataError(f"{subject('blank')} must be a boolean mask (True = blank cell), got dtype {blank.dtype}")
    if blank.shape != tuple(shape):
        raise DataError(f"{subject('blank')} has shape {blank.shape} but the codes have shape {tuple(shape)}; "
                        f"give one flag per cell")
    if not blank.any():
        return None
    return np.asfortranarray(blank)


def check_weights(weights, n_rows, blank):
    """The ``weights`` of a Dataset checked: None, or float64 of length ``n_rows``, finite and > 0.

    Parameters
    ----------
    weights : array_like of float or None
    n_rows : int
    blank : numpy.ndarray or None
        The checked blank mask (a Dataset has weights or blank cells, not both).

    Returns
    -------
    numpy.ndarray of float64 or None
    """
    if weights is None:
        return None
    if blank is not None:
        raise DataError(f"{subject('weights')} cannot go with blank cells: a weighted table is a completed one; "
                        f"complete the blank cells first (or give no weights)")
    try:
        weights = np.array(weights, dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError(f"{subject('weights')} must be numbers, one per row") from None
    if weights.shape != (n_rows,):
        raise DataError(f"{subject('weights')} has shape {weights.shape} but the data has {n_rows} rows; give one "
                        f"weight per row")
    bad = ~np.isfinite(weights) | (weights <= 0)
    if bad.any():
        row = int(np.argmax(bad))
        raise DataError(f"{subject('weights')} has {weights[row].item()!r} at row {row + 1}; every weight must be a "
                        f"finite number > 0")
    return weights


def first_blank(blank):
    """``(row, column)`` positions of the first blank cell, by row then column."""
    row = int(np.argmax(blank.any(axis=1)))
    return row, int(np.argmax(blank[row]))


def require_complete(data, what):
    """Refuse data with blank cells, for ``what``, which would count their placeholder codes.

    Parameters
    ----------
    data : Dataset
        Anything with ``names`` (and ``blank``, when it may have blank cells).
    what : str
        What needs complete rows, as the user knows it (``"the G-test"``,
        ``"bootstrap"``).

    Raises
    ------
    DataError
        When ``data.blank`` is not None: one line naming the count and the
        first blank cell, and what to do instead.

    Examples
    --------
    >>> from bnexplore.data import Dataset
    >>> data = Dataset.from_codes([[0, 1], [-1, 0], [1, 1]], missing="em")
    >>> require_complete(data.complete_rows(), "counting")
    >>> try:
    ...     require_complete(data, "counting")
    ... except DataError as error:
    ...     print(error)  # doctest: +ELLIPSIS
    counting needs complete rows, and the data has 1 blank cells (first: column 'X0', row 2); ...
    """
    blank = getattr(data, "blank", None)
    if blank is None:
        return
    row, column = first_blank(blank)
    raise DataError(
        f"{what} needs complete rows, and the data has {int(np.count_nonzero(blank)):,} blank cells (first: column "
        f"{data.names[column]!r}, row {row + 1}); learn with structural EM ({subject('missing', 'em')}), or load "
        f"the data with {subject('missing', 'drop')} (or {subject('missing', 'state')})"
    )


def require_unweighted(data, what):
    """Refuse a weighted (completed) Dataset, for ``what``, which would ignore its weights.

    Parameters
    ----------
    data : Dataset
    what : str
        What cannot use row weights, as the user knows it.

    Raises
    ------
    DataError
        When ``data.weights`` is not None.

    Examples
    --------
    >>> from bnexplore.data import Dataset
    >>> data = Dataset.from_codes([[0, 1], [1, 0]])
    >>> require_unweighted(data, "the G-test")
    >>> weighted = Dataset(data.codes, data.arities, data.names, data.states, weights=[0.5, 1.5])
    >>> try:
    ...     require_unweighted(weighted, "the G-test")
    ... except DataError as error:
    ...     print(error)  # doctest: +ELLIPSIS
    the G-test cannot use row weights, and the data is weighted (2 rows of total weight 2); ...
    """
    weights = getattr(data, "weights", None)
    if weights is None:
        return
    raise DataError(
        f"{what} cannot use row weights, and the data is weighted ({len(weights):,} rows of total weight "
        f"{float(weights.sum()):g}); give it the table itself, or one completion of it (impute)"
    )
