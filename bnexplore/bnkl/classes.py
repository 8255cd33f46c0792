"""Two-class labels: which label is the reference class 0, and the 0 / 1 code of every row."""

import numpy as np
import pandas as pd

from bnexplore.data import marked
from bnexplore.errors import DataError


def _sorted_labels(values):
    """Distinct labels in sorted order (numbers numerically; mixed types by text)."""
    distinct = list(pd.unique(pd.Series(values, dtype=object)))
    try:
        return sorted(distinct)
    except TypeError:
        return sorted(distinct, key=str)


def plain_label(value):
    """A label as a plain Python value (numpy scalars unwrapped)."""
    return value.item() if isinstance(value, np.generic) else value


def shown(items, limit=6):
    """The first ``limit`` items as text for a message, with how many more there are."""
    text = ", ".join(repr(plain_label(x)) for x in items[:limit])
    return text + (f", ... (+{len(items) - limit} more)" if len(items) > limit else "")


def encode_classes(y, class0=None, column="class", missing_values=None):
    """Turn two-class labels into 0 / 1 codes.

    Parameters
    ----------
    y : array_like
        One label per row, exactly two distinct labels, no missing values.
    class0 : optional
        The label of the reference class 0 (the one whose conditionals R is
        measured against). Default: the first label in sorted order (numbers
        numerically, text alphabetically), so ``("benign", "malignant")``
        makes "benign" class 0. A label is matched by value, or else by its
        text (``"1"`` picks the label ``1``).
    column : str
        Name of the class column, for messages.
    missing_values : str or list of str, optional
        The table's own marks for "no value" (:func:`bnexplore.data.marked`): a label that is one is missing.

    Returns
    -------
    codes : ndarray of uint8
        0 for class 0, 1 for class 1.
    classes : list
        ``[class 0 label, class 1 label]``.

    Raises
    ------
    DataError
        Missing labels, not exactly two labels, or ``class0`` not a label.

    Examples
    --------
    >>> encode_classes(["malignant", "benign", "benign"])
    (array([1, 0, 0], dtype=uint8), ['benign', 'malignant'])
    >>> encode_classes([2, 10, 2], class0="10")[1]
    [10, 2]
    """
    values = pd.Series(np.asarray(y, dtype=object).reshape(-1), dtype=object)
    missing = values.isna().to_numpy() | marked(values, missing_values)
    if missing.any():
        row = int(np.argmax(missing)) + 1
        raise DataError(f"class column {column!r} row {row} is missing; give every row one of the two class labels "
                        f"or drop the unlabelled rows")
    labels = _sorted_labels(values)
    if len(labels) != 2:
        raise DataError(f"class column {column!r} must have exactly two labels, found {len(labels)}: {shown(labels)}; "
                        f"BNKL compares two classes, so keep the rows of two of them")
    if class0 is None:
        class0 = labels[0]
    matches = [x for x in labels if x == class0] or [x for x in labels if str(x) == str(class0)]
    if not matches:
        raise DataError(f"class0={class0!r} is not a label of class column {column!r}; "
                        f"use one of {shown(labels)}")
    first = matches[0]
    classes = [first, labels[1] if first == labels[0] else labels[0]]
    codes = (values != first).to_numpy().astype(np.uint8)
    return codes, [plain_label(c) for c in classes]
