"""Fitting the CPTs of a DAG to data: the BDeu posterior mean or maximum likelihood."""

import math

import numpy as np

from bnexplore.bif.network import MAX_CPT_CELLS, Network, parent_configurations
from bnexplore.errors import DataError, ResourceError, ScoreError


def fit_network(dag, dataset, ess=1.0, method="bdeu"):
    """Fit the CPTs of a DAG to data: the BDeu posterior mean, or maximum likelihood.

    ``method="bdeu"``: ``P(X_i = k | Pa_i = j) = (N_ijk + ess / (q_i r_i)) / (N_ij + ess / q_i)``
    (Heckerman, Geiger & Chickering 1995, "Learning Bayesian networks: the
    combination of knowledge and statistical data", Section 5, BDeu prior);
    ``ess = 0`` is maximum likelihood. ``method="ml"``: ``N_ijk / N_ij``
    whatever ``ess``. Either way a parent configuration that never occurs in
    the data gets the uniform distribution (the BDeu mean has no data to move
    it; maximum likelihood is undefined there and uniform is the convention);
    the fitted network says how many such rows each table has.

    Parameters
    ----------
    dag : bnexplore.graphs.DAG or similar
        Anything with ``.n``, ``.names`` and ``.parents(v) -> list of int``.
    dataset : bnexplore.data.Dataset or similar
        Anything with ``.codes``, ``.arities``, ``.names`` and ``.states``;
        the DAG's variables are found in it by name.
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
        If a DAG variable is not a column of the data.
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
    if method not in ("bdeu", "ml"):
        raise ScoreError(f"unknown fitting method {method!r}: use 'bdeu' (posterior mean) or 'ml' (maximum "
                         "likelihood)")
    if isinstance(ess, bool) or not isinstance(ess, (int, float, np.integer, np.floating)) or not 0 <= ess < math.inf:
        raise ScoreError(f"ess must be a finite number >= 0, got {ess!r}; use 1.0 for BDeu, 0 for maximum likelihood")
    if method == "ml":
        ess = 0.0
    column_of = {str(name): i for i, name in enumerate(dataset.names)}
    missing = [name for name in dag.names if str(name) not in column_of]
    if missing:
        raise DataError(
            f"variable {missing[0]!r} of the DAG is not a column of the data; fit a DAG over the data's "
            "columns",
        )
    columns = [column_of[str(name)] for name in dag.names]
    codes = np.asarray(dataset.codes)[:, columns]
    arities = np.asarray(dataset.arities, dtype=np.int64)[columns]
    parents = [list(dag.parents(v)) for v in range(dag.n)]
    fitted = [_fitted_cpt(codes, v, parents[v], arities, ess, dag.names[v]) for v in range(dag.n)]
    states = [dataset.states[c] for c in columns]
    network = Network("fitted", dag.names, states, parents, [table for table, _ in fitted])
    counts = [n for _, n in fitted]
    names = [str(name) for name in dag.names]
    network.fit = {
        "method": method, "ess": None if method == "ml" else float(ess), "rows": int(codes.shape[0]),
        "counts": counts,
        "configurations": {name: int(n.size // n.shape[-1]) for name, n in zip(names, counts)},
        "empty_configurations": {name: int((n.reshape(-1, n.shape[-1]).sum(axis=1) == 0).sum())
                                 for name, n in zip(names, counts)},
    }
    return network


def _fitted_cpt(codes, v, parents, arities, ess, name):
    """The fitted table of ``v`` and its counts ``N_ijk``, both shaped like the CPT."""
    r = int(arities[v])
    shape = tuple(int(arities[p]) for p in parents) + (r,)
    cells = int(np.prod(shape, dtype=np.float64))
    if cells > MAX_CPT_CELLS:
        raise ResourceError(
            f"the CPT of {name!r} would have {cells} cells (more than {MAX_CPT_CELLS}); give it fewer "
            "parents",
        )
    q = cells // r
    config = parent_configurations(codes, parents, arities)
    keys = codes[:, v].astype(np.intp)
    if config is not None:
        keys += config * r
    observed = np.bincount(keys, minlength=cells).reshape(q, r)
    counts = observed + ess / (q * r)
    totals = counts.sum(axis=1, keepdims=True)
    table = np.divide(counts, totals, out=np.full(counts.shape, 1.0 / r), where=totals > 0)
    return table.reshape(shape), observed.reshape(shape)

