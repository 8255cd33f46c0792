"""The BNKL two-class classifier (Balov 2013, Algorithm 1) and cross-validation.

:class:`BNKLClassifier` follows the scikit-learn estimator conventions
(``fit`` / ``predict`` / ``predict_proba`` / ``classes_`` / ``get_params``)
without depending on scikit-learn: training learns one DAG and two sets of
conditional probability tables with :func:`bnexplore.bnkl.bnkl_xy`;
prediction discretizes new rows with the training cut points and compares
their log-likelihoods under the two class networks.
"""

import numpy as np
import pandas as pd

from .errors import DataError, SearchError
from .bnkl import bnkl_xy, encode_classes


def _as_frame(X):
    """A DataFrame of features (arrays get columns ``X0, X1, ...``)."""
    if isinstance(X, pd.DataFrame):
        return X
    array = np.asarray(X, dtype=object)
    if array.ndim != 2:
        raise DataError(f"expected a table of features (2-D), got an array of shape {array.shape}")
    return pd.DataFrame(np.asarray(X), columns=[f"X{i}" for i in range(array.shape[1])])


class BNKLClassifier:
    """Two-class Bayesian network classifier: one DAG, two probability tables.

    Balov (2013), Algorithm 1. Training (step 1): IDE node order from
    per-variable t-tests, uniform 3-level discretization learned on the
    training rows, the DAG maximising ``S = R / df`` over the order's DAGs
    with at most ``max_parents`` parents, and class-specific CPTs with zero
    probabilities reset to ``1 / (3 n)``. Prediction (step 2): code each row
    with the training cut points, compute its log-likelihoods ``l0`` and
    ``l1`` under the two class networks (Eq. 1) and assign the class with the
    larger one (class 0 on a tie). As in the paper there is no class prior.

    Parameters
    ----------
    max_parents : int
        M, the largest parent set (the paper uses 2).
    discretize : str, list or dict
        Discretization of numeric columns (default the paper's "uniform3").
    select : {"ratio", "bic", "aic"}
        How the network is picked from the complexity path.
    class0 : optional
        Label of the reference class 0; default the first label in sorted
        order.
    missing_values : str or list of str, optional
        The table's own marks for "no value" (see :class:`bnexplore.data.Encoder`).

    Attributes
    ----------
    classes_ : ndarray
        ``[class 0 label, class 1 label]``; the columns of
        :meth:`predict_proba` follow it.
    result_ : BNKLResult
        The learned networks, path, order and cut points.

    Examples
    --------
    In class "tumour" ``x2`` copies ``x1``; in class "normal" it is
    independent of it (see :func:`cross_validate`):

    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = rng.choice(["normal", "tumour"], 300)
    >>> x1 = rng.choice(["low", "high"], 300)
    >>> x2 = np.where(y == "tumour", x1, rng.choice(["low", "high"], 300))
    >>> model = BNKLClassifier().fit(pd.DataFrame({"x1": x1, "x2": x2}), y)
    >>> model.predict(pd.DataFrame({"x1": ["low", "low"], "x2": ["high", "low"]})).tolist()
    ['normal', 'tumour']
    """

    def __init__(self, max_parents=2, discretize="uniform3", select="ratio", class0=None, missing_values=None):
        self.max_parents = max_parents
        self.discretize = discretize
        self.select = select
        self.class0 = class0
        self.missing_values = missing_values

    def get_params(self, deep=True):
        """The constructor parameters, as a dict."""
        return {"max_parents": self.max_parents, "discretize": self.discretize, "select": self.select,
                "class0": self.class0, "missing_values": self.missing_values}

    def set_params(self, **params):
        """Set constructor parameters; returns self."""
        unknown = sorted(set(params) - set(self.get_params()))
        if unknown:
            raise SearchError(f"BNKLClassifier has no parameter {', '.join(unknown)}; "
                              f"it has {', '.join(self.get_params())}")
        for key, value in params.items():
            setattr(self, key, value)
        return self

    def __repr__(self):
        return "BNKLClassifier(" + ", ".join(f"{k}={v!r}" for k, v in self.get_params().items()) + ")"

    def fit(self, X, y):
        """Learn the DAG and the two class networks from labelled rows.

        Parameters
        ----------
        X : pandas.DataFrame or 2-D array
            Features; numeric columns are discretized with cut points learned
            here and reused unchanged by :meth:`predict`.
        y : array_like
            Two distinct class labels.

        Returns
        -------
        self
        """
        self.result_ = bnkl_xy(_as_frame(X), y, class0=self.class0, max_parents=self.max_parents,
                               select=self.select, discretize=self.discretize, missing_values=self.missing_values)
        self.classes_ = np.array(self.result_.classes, dtype=object)
        return self

    def _fitted(self):
        if not hasattr(self, "result_"):
            raise SearchError("this BNKLClassifier is not fitted yet; call fit(X, y) first")
        return self.result_

    def log_likelihoods(self, X):
        """``(l0, l1)`` of every row, shape ``(n_rows, 2)`` (Algorithm 1, step 2(b))."""
        return self._fitted().log_likelihoods(_as_frame(X))

    def predict_proba(self, X):
        """Class probabilities: the softmax of ``(l0, l1)`` per row, columns as ``classes_``."""
        ll = self.log_likelihoods(X)
        ll -= ll.max(axis=1, keepdims=True)
        p = np.exp(ll)
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, X):
        """The class with the larger log-likelihood (class 0 on a tie)."""
        ll = self.log_likelihoods(X)
        return self.classes_[(ll[:, 1] > ll[:, 0]).astype(np.intp)]

    def score(self, X, y):
        """Accuracy of :meth:`predict` on labelled rows."""
        return float(np.mean(self.predict(X) == np.asarray(y, dtype=object)))


def stratified_folds(y, cv=5, seed=0):
    """Test rows of each fold of a stratified k-fold split.

    The rows of each class are shuffled (``numpy.random.default_rng(seed)``)
    and dealt to the folds in turn, continuing with the next class where the
    previous one stopped, so every fold gets its class's share within one row
    and the fold sizes differ by at most one.

    Parameters
    ----------
    y : array_like
        Class labels.
    cv : int
        Number of folds, at least 2 and at most the size of the smallest class.
    seed : int

    Returns
    -------
    list of ndarray of int
        Sorted test row indices of each fold; together a partition of the rows.
    """
    y = pd.Series(np.asarray(y, dtype=object).reshape(-1), dtype=object)
    if isinstance(cv, (bool, np.bool_)) or not isinstance(cv, (int, np.integer)) or cv < 2:
        raise SearchError(f"cv must be a whole number of folds >= 2, got {cv!r}")
    counts = y.value_counts()
    if counts.min() < cv:
        raise SearchError(f"cv={cv} folds need at least {cv} rows of every class, but class "
                          f"{counts.idxmin()!r} has {counts.min()}; use fewer folds")
    rng = np.random.default_rng(seed)
    fold_of = np.empty(len(y), np.int64)
    offset = 0
    for label in sorted(counts.index, key=str):
        rows = rng.permutation(np.flatnonzero((y == label).to_numpy()))
        fold_of[rows] = (offset + np.arange(rows.size)) % cv
        offset += rows.size
    return [np.flatnonzero(fold_of == k) for k in range(cv)]


def cross_validate(X, y, cv=5, seed=0, **classifier_options):
    """Stratified k-fold accuracy of :class:`BNKLClassifier`.

    Each fold fits a new classifier on the other folds, so the discretization
    (cut points), the node order and the network are learned without the
    fold's rows (Balov 2013: cut points "determined strictly from the
    training sample").

    Parameters
    ----------
    X : pandas.DataFrame or 2-D array
    y : array_like
        Two class labels.
    cv : int
        Number of folds.
    seed : int
        Seed of the fold split (:func:`stratified_folds`).
    **classifier_options
        Parameters of :class:`BNKLClassifier`.

    Returns
    -------
    dict
        ``accuracy`` (per fold), ``mean``, ``std`` (population standard
        deviation of the fold accuracies, as ``numpy.std``), ``n_test``
        (rows per fold), ``cv``, ``seed``.

    Examples
    --------
    In class "tumour" ``x2`` copies ``x1``; in class "normal" it is
    independent of it. Two different values mean "normal"; two equal ones are
    "tumour" two times in three, so the best expected accuracy is 0.75 (these
    folds, by chance, a little more):

    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = rng.choice(["normal", "tumour"], 300)
    >>> x1 = rng.choice(["low", "high"], 300)
    >>> x2 = np.where(y == "tumour", x1, rng.choice(["low", "high"], 300))
    >>> scores = cross_validate(pd.DataFrame({"x1": x1, "x2": x2}), y, cv=3)
    >>> scores["accuracy"], scores["n_test"]
    ([0.77, 0.77, 0.77], [100, 100, 100])
    """
    X = _as_frame(X)
    y = np.asarray(y, dtype=object).reshape(-1)
    if len(y) != len(X):
        raise DataError(f"the class labels ({len(y)}) and the table ({len(X)} rows) differ in length; "
                        f"give one label per row")
    encode_classes(y, classifier_options.get("class0"))
    BNKLClassifier().set_params(**classifier_options)
    accuracy, sizes = [], []
    for test in stratified_folds(y, cv, seed):
        train = np.setdiff1d(np.arange(len(y)), test)
        model = BNKLClassifier(**classifier_options).fit(X.iloc[train], y[train])
        accuracy.append(model.score(X.iloc[test], y[test]))
        sizes.append(int(test.size))
    return {"accuracy": accuracy, "mean": float(np.mean(accuracy)), "std": float(np.std(accuracy)),
            "n_test": sizes, "cv": int(cv), "seed": seed}
