"""Fitting the CPTs of a DAG to complete data: the BDeu posterior mean or maximum likelihood.

Its pieces are public because parameter EM (:mod:`bnexplore.em`) fits the same
tables to expected counts: :func:`family_layout` finds the DAG's variables in
the data, :func:`observed_counts` counts a family, :func:`posterior_table` turns
counts into a table and :func:`fitted_network` makes the Network with its
record of how it was fitted.
"""

import math

import numpy as np

from bnexplore.bif.network import MAX_CPT_CELLS, Network, parent_configurations
from bnexplore.data import check_dataset
from bnexplore.errors import DataError, ResourceError, ScoreError, subject
from bnexplore.graphs import DAG, PDAG


def fit_network(dag, dataset, ess=1.0, method="bdeu"):
    """Fit the CPTs of a DAG to data: the BDeu posterior mean, or maximum likelihood.

    ``method="bdeu"``: ``P(X_i = k | Pa_i = j) = (N_ijk + ess / (q_i r_i)) / (N_ij + ess / q_i)``
    (Heckerman, Geiger & Chickering 1995, "Learning Bayesian networks: the
    combination of knowledge and statistical data", Section 5, BDeu prior);
    ``ess = 0`` is maximum likelihood. ``method="ml"``: ``N_ijk / N_ij``
    whatever ``ess``. Either way a parent configuration that never occurs in
    the data gets the uniform distribution (the BDeu mean has no data to move
    it; maximum likelihood is undefined there and uniform is the convention);
    the fitted network says how many such rows each table has. A weighted
    data set (a completed table) gives weighted counts. Data with blank cells
    is refused: fit it with ``bnexplore.fit_network(..., method="em")``.

    Parameters
    ----------
    dag : bnexplore.graphs.DAG or similar
        Anything with ``.n``, ``.names`` and ``.parents(v) -> list of int``.
    dataset : bnexplore.data.Dataset or similar
        Anything with ``.codes``, ``.arities``, ``.names`` and ``.states``
        (and ``blank``, ``weights`` when it has them); the DAG's variables are
        found in it by name.
    ess : float
        Equivalent sample size of the BDeu prior, >= 0 (ignored by "ml").
    method : {"bdeu", "ml"}

    Returns
    -------
    Network
        Variables in the DAG's order. Its ``fit`` attribute records how it
        was fitted: ``method``, ``ess`` (None for "ml"), ``rows``, ``counts``
        (the ``N_ijk`` of every variable, shaped like its CPT),
        ``configurations`` ``{variable: q_i}`` and ``empty_configurations``
        ``{variable: parent configurations never seen}``.

    Raises
    ------
    DataError
        If a DAG variable is not a column of the data, or the data has blank cells.
    ScoreError
        If ``ess`` is negative or ``method`` unknown.
    ResourceError
        If a CPT would have more than 2**26 cells.

    Examples
    --------
    Rain makes the grass wet; BDeu with ``ess = 1`` adds ``1 / 4`` to each
    count of ``wet`` (two parent states times two states):

    >>> import pandas as pd
    >>> from bnexplore.data import Dataset
    >>> from bnexplore.graphs import DAG
    >>> data = Dataset.from_frame(pd.DataFrame({"rain": ["no", "no", "yes", "yes"],
    ...                                         "wet": ["no", "no", "yes", "no"]}))
    >>> dag = DAG.from_arcs([("rain", "wet")], ["rain", "wet"])
    >>> fit_network(dag, data).cpts[1].tolist()
    [[0.9, 0.1], [0.5, 0.5]]
    >>> fitted = fit_network(dag, data, method="ml")
    >>> fitted.cpts[1].tolist(), fitted.fit["counts"][1].tolist()
    ([[1.0, 0.0], [0.5, 0.5]], [[2, 0], [1, 1]])
    """
    dataset = check_dataset(dataset, "dataset")
    if method not in ("bdeu", "ml"):
        raise ScoreError(f"unknown fitting method {method!r}: use 'bdeu' (posterior mean), 'ml' (maximum "
                         "likelihood) or 'em' (data with blank cells, bnexplore.fit_network)")
    ess = checked_ess(ess)
    if method == "ml":
        ess = 0.0
    blank = getattr(dataset, "blank", None)
    if blank is not None:
        row = int(np.argmax(blank.any(axis=1)))
        raise DataError(
            f"fitting with {subject('method', method)} needs complete rows, and the data has "
            f"{int(np.count_nonzero(blank)):,} blank cells (first: column {dataset.names[int(np.argmax(blank[row]))]!r}, row {row + 1}); fit with "
            f"{subject('method', 'em')} (EM on the rows as they are), or load the data with "
            f"{subject('missing', 'drop')}")
    columns, parents, arities = family_layout(dag, dataset)
    codes = np.asarray(dataset.codes)[:, columns]
    weights = getattr(dataset, "weights", None)
    counts = [observed_counts(codes, weights, v, parents[v], arities) for v in range(len(columns))]
    return fitted_network(dag.names, [dataset.states[c] for c in columns], parents, counts, ess, method,
                          codes.shape[0])


def checked_ess(ess):
    """``float(ess)`` when it is a finite number >= 0, else a ScoreError naming ``ess``."""
    if isinstance(ess, bool) or not isinstance(ess, (int, float, np.integer, np.floating)) or not 0 <= ess < math.inf:
        raise ScoreError(f"{subject('ess')} must be a finite number >= 0, got {ess!r}; use 1.0 for BDeu, 0 for "
                         "maximum likelihood")
    return float(ess)


def family_layout(dag, dataset):
    """Where a DAG's variables are in the data, and the sizes of their tables.

    Parameters
    ----------
    dag : bnexplore.graphs.DAG
        Or anything with ``names`` and ``parents(v)``; a PDAG only without links.
    dataset : bnexplore.data.Dataset

    Returns
    -------
    columns : list of int
        The data column of every DAG variable.
    parents : list of list of int
        Every variable's parents (DAG indices, in the order of its CPT's axes).
    arities : int64 array
        States of every DAG variable.

    Raises
    ------
    DataError
        If ``dag`` is not a DAG (a CPDAG's links have no direction to fit a table by), or a DAG variable
        is not a column of the data.
    ResourceError
        If a CPT would have more than 2**26 cells (checked before any is allocated).
    """
    links = dag.links() if isinstance(dag, PDAG) and not isinstance(dag, DAG) else []  # a PDAG of arcs only fits
    if links or not (hasattr(dag, "names") and callable(getattr(dag, "parents", None))):
        kind = type(dag).__name__
        fix = (f"its {len(links)} link(s) (undirected edges) leave those tables undefined: fit one of its members, "
               f"{kind.lower()}.extension()" if links else
               "make one with DAG.from_arcs([(parent, child), ...], data.names)")
        raise DataError(f"{subject('dag')} must be a DAG, got a {kind}; {fix}")
    column_of = {str(name): i for i, name in enumerate(dataset.names)}
    missing = [name for name in dag.names if str(name) not in column_of]
    if missing:
        raise DataError(
            f"variable {missing[0]!r} of the DAG is not a column of the data; fit a DAG over the data's "
            "columns",
        )
    columns = [column_of[str(name)] for name in dag.names]
    arities = np.asarray(dataset.arities, dtype=np.int64)[columns]
    parents = [list(dag.parents(v)) for v in range(dag.n)]
    for v, ps in enumerate(parents):
        cells = float(np.prod(arities[ps + [v]], dtype=np.float64))
        if cells > MAX_CPT_CELLS:
            raise ResourceError(
                f"the CPT of {str(dag.names[v])!r} would have {cells:.0f} cells (more than {MAX_CPT_CELLS}); give "
                "it fewer parents",
            )
    return columns, parents, arities


def observed_counts(codes, weights, v, parents, arities, rows=None):
    """The counts ``N_ijk`` of variable ``v``'s family, shaped like its CPT.

    Parameters
    ----------
    codes : int array (n_rows, n_vars)
        Columns in the DAG's order.
    weights : float64 array (n_rows,) or None
        Row weights (None: every row counts 1, and the counts are integers).
    v : int
    parents : list of int
    arities : int array
    rows : array of int or bool, optional
        Count only these rows.

    Returns
    -------
    numpy.ndarray
        int64 counts, or float64 when weighted.
    """
    shape = tuple(int(arities[p]) for p in parents) + (int(arities[v]),)
    if rows is not None:
        codes = codes[rows]
        weights = None if weights is None else weights[rows]
    config = parent_configurations(codes, parents, arities)
    keys = codes[:, v].astype(np.intp)
    if config is not None:
        keys += config * shape[-1]
    return np.bincount(keys, weights=weights, minlength=math.prod(shape)).reshape(shape)


def posterior_table(counts, ess):
    """The BDeu posterior mean ``(N_ijk + ess / (q r)) / (N_ij + ess / q)`` of one family's counts.

    Parameters
    ----------
    counts : array shaped like the CPT (parents' axes, then the child's)
    ess : float
        0 gives maximum likelihood.

    Returns
    -------
    numpy.ndarray
        float64, shaped like ``counts``; a parent configuration with no count
        and no prior gets the uniform distribution.
    """
    shape = counts.shape
    r = shape[-1]
    flat = counts.reshape(-1, r)
    q = flat.shape[0]
    prior = flat + ess / (q * r)
    totals = prior.sum(axis=1, keepdims=True)
    table = np.divide(prior, totals, out=np.full(prior.shape, 1.0 / r), where=totals > 0)
    return table.reshape(shape)


def fitted_network(names, states, parents, counts, ess, method, rows, tables=None):
    """The Network of the posterior-mean tables of ``counts``, with its ``fit`` record.

    Parameters
    ----------
    names, states, parents
        Of the network's variables.
    counts : list of arrays
        ``N_ijk`` of every variable (observed or expected), shaped like its CPT.
    ess : float
        BDeu equivalent sample size (0: maximum likelihood).
    method : str
        Recorded in ``fit["method"]``; "ml" records ``ess`` as None.
    rows : int
        Recorded in ``fit["rows"]``.
    tables : list of arrays, optional
        The tables, when they are not the posterior mean of ``counts`` (EM
        returns the tables its expected counts were computed under).

    Returns
    -------
    Network
        See :func:`fit_network` for its ``fit``.
    """
    tables = [posterior_table(n, ess) for n in counts] if tables is None else tables
    network = Network("fitted", names, states, parents, tables)
    names = [str(name) for name in names]
    network.fit = {
        "method": method, "ess": None if method == "ml" else float(ess), "rows": int(rows),
        "counts": counts,
        "configurations": {name: int(n.size // n.shape[-1]) for name, n in zip(names, counts)},
        "empty_configurations": {name: int((n.reshape(-1, n.shape[-1]).sum(axis=1) == 0).sum())
                                 for name, n in zip(names, counts)},
    }
    return network
