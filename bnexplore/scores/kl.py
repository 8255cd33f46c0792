"""The two-class KL statistic of the BNKL method (Balov 2013).

``R(G) = sum_i R_i`` and ``df(G) = sum_i df_i`` are both sums over nodes, so
the BNKL search asks for the per-family pair ``(R_i, df_i)``; see
:func:`bnexplore.scores.kernels.kl_statistic` for the formula and how empty
cells are treated.
"""

import numpy as np

from ..data import require_complete, require_unweighted
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


class KLStatistics:
    """``(R_i, df_i)`` of families of one data set split in two classes.

    Parameters
    ----------
    data : Dataset
        Integer codes, arities and names (numeric columns already discretized);
        no blank cell and no row weights (a DataError says so).
    labels : array of 0 / 1, shape (n_rows,)
        Class of each row; class 0 is the reference class whose conditionals
        ``P0`` the statistic compares with (so R depends on the choice).

    Attributes
    ----------
    computed : int
        Families computed so far (no cache: the BNKL search needs each once).
    variables : int
        Variables counted over those families (for the NVar statistic).
    """

    def __init__(self, data, labels):
        require_complete(data, "the BNKL statistic")
        require_unweighted(data, "the BNKL statistic")
        codes = np.asarray(data.codes)
        self.cols = np.ascontiguousarray(codes.T)
        self.arities = np.ascontiguousarray(data.arities, dtype=np.int64)
        self.labels = class_labels(labels, codes.shape[0])
        self.cells = kernels.dense_cells(codes.shape[0])
        self.computed = 0
        self.variables = 0

    def packed(self, children, parents):
        """R and integer df of ``children[t]`` with parents ``parents[t]``
        (an int array padded with -1, see :func:`pack_parent_sets`)."""
        children = np.ascontiguousarray(children, dtype=np.int64)
        parents = np.ascontiguousarray(parents, dtype=np.int64)
        sizes = (parents >= 0).sum(axis=1).astype(np.int64)
        if children.size == 0:
            return np.empty(0), np.empty(0, np.int64)
        r_values, df = kernels.kl_statistics(self.cols, self.arities, self.labels, children, parents, sizes,
                                             self.cells)
        self.computed += children.size
        self.variables += int(children.size + sizes.sum())
        return r_values, np.rint(df).astype(np.int64)

    def families(self, children, parent_sets):
        """R and df of ``children[t]`` with the parent tuple ``parent_sets[t]``."""
        if len(children) != len(parent_sets):
            raise ScoreError(f"got {len(children)} children but {len(parent_sets)} parent sets")
        if len(children) == 0:
            return np.empty(0), np.empty(0, np.int64)
        return self.packed(children, pack_parent_sets([tuple(ps) for ps in parent_sets])[0])


def kl_statistics(data, labels, children, parent_sets):
    """``(R_i, df_i)`` of many families at once, in parallel.

    Parameters
    ----------
    data : Dataset
    labels : array of 0 / 1, shape (n_rows,)
        See :class:`KLStatistics`.
    children : sequence of int
    parent_sets : sequence of sequences of int

    Returns
    -------
    R : ndarray of float64
        Balov (2013), Eq. (3), per family.
    df : ndarray of int64
        ``q_i (r_i - 1)`` per family.
    """
    return KLStatistics(data, labels).families(children, parent_sets)
