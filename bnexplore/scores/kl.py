"""The two-class KL statistic of the BNKL method (Balov 2013).

``R(G) = sum_i R_i`` and ``df(G) = sum_i df_i`` are both sums over nodes, so
the BNKL search asks for the per-family pair ``(R_i, df_i)``; see
:func:`bnexplore.scores.kernels.kl_statistic` for the formula and how empty
cells are treated.
"""

import numpy as np

from ..errors import ScoreError
from . import kernels
from .scorer import pack_parent_sets


def class_labels(labels, n_rows):
    """Check and convert class labels to a uint8 array of 0 / 1 per row."""
    labels = np.asarray(labels)
    if labels.shape != (n_rows,):
        raise ScoreError(f"need one class label per row: got {labels.shape[0] if labels.ndim else 0} "
                         f"labels for {n_rows} rows")
    values = np.unique(labels)
    if not np.isin(values, (0, 1)).all():
        raise ScoreError(f"class labels must be 0 (reference class) or 1, got {values[:5].tolist()}")
    if (labels == 0).sum() == 0:
        raise ScoreError("no row belongs to class 0, so the class-0 tables cannot be estimated")
    return labels.astype(np.uint8)


def kl_statistics(data, labels, children, parent_sets):
    """``(R_i, df_i)`` of many families at once, in parallel.

    Parameters
    ----------
    data : Dataset
        Integer codes, arities and names (numeric columns already discretized).
    labels : array of 0 / 1, shape (n_rows,)
        Class of each row; class 0 is the reference class whose conditionals
        ``P0`` the statistic compares with (so R depends on the choice).
    children : sequence of int
    parent_sets : sequence of sequences of int

    Returns
    -------
    R : ndarray of float64
        Balov (2013), Eq. (3), per family.
    df : ndarray of float64
        ``q_i (r_i - 1)`` per family.
    """
    codes = np.asarray(data.codes)
    arities = np.ascontiguousarray(data.arities, dtype=np.int64)
    labels = class_labels(labels, codes.shape[0])
    if len(children) != len(parent_sets):
        raise ScoreError(f"kl_statistics got {len(children)} children but {len(parent_sets)} parent sets")
    if len(children) == 0:
        return np.empty(0), np.empty(0)
    parents, sizes = pack_parent_sets([tuple(ps) for ps in parent_sets])
    cols = np.ascontiguousarray(codes.T)
    return kernels.kl_statistics(cols, arities, labels, np.asarray(children, np.int64), parents, sizes,
                                 kernels.dense_cells(codes.shape[0]))
