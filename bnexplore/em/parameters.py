"""Parameter EM: the tables of a fixed DAG fitted to data with blank cells, and ``fit_network`` for every method.

:func:`em_fit` alternates the E-step of :mod:`bnexplore.em.expected` (expected
counts given each row's observed cells) and the M-step of
:func:`bnexplore.bif.fit.fit_network` (the BDeu posterior mean of those
counts) until the observed-data log-likelihood stops rising (Dempster, Laird
& Rubin 1977, Sections 1-3; Lauritzen 1995, "The EM algorithm for graphical
association models with missing data", Section 4). :func:`fit_network` is the
public door: "bdeu" and "ml" fit complete data directly, "em" runs
:func:`em_fit`.
"""

import numpy as np

from bnexplore.bif import Network
from bnexplore.bif import fit_network as fit_complete
from bnexplore.bif.fit import checked_ess, family_layout, fitted_network, posterior_table
from bnexplore.control import Control
from bnexplore.data import check_dataset
from bnexplore.errors import OptionError, ScoreError, subject
from bnexplore.inference import MAX_CELLS
from bnexplore.options import positive_number, seed_number, whole_number

from .expected import EStep

MAX_ITERATIONS = 100_000
"""Most EM iterations one fit may ask for (each is one E-step over the data)."""
MAX_RESTARTS = 1000
"""Most random restarts one fit may ask for."""


def em_fit(dag, data, ess=1.0, tolerance=1e-6, max_iterations=100, restarts=0, seed=None, start=None,
           progress=None, time_limit=None, stop=None, control=None, max_cells=MAX_CELLS, estep=None):
    """Fit the tables of a DAG to data with blank cells by EM.

    Each iteration is an M-step, the BDeu posterior mean ``(E[N_ijk] + ess / (q r)) /
    (E[N_ij] + ess / q)`` of the current expected counts (as
    :func:`bnexplore.bif.fit_network` fits observed ones), then an E-step under
    the new tables: the expected counts ``E[N_ijk | observed cells]`` and the
    observed-data log-likelihood ``sum over rows of log P(observed cells)``
    (:func:`bnexplore.em.expected_counts`; Dempster, Laird & Rubin 1977,
    Section 2; Lauritzen 1995, Sections 3-4). With ``ess = 0`` the M-step is
    maximum likelihood and the log-likelihood never decreases (Dempster,
    Laird & Rubin, Theorem 1); with ``ess > 0`` it is the mode of a
    Dirichlet posterior, and what never decreases is the log-likelihood plus
    ``sum ess / (q r) log theta_ijk`` (recorded as ``log_posteriors``), while
    the log-likelihood itself may dip by at most the change of that prior
    term. On complete data the expected counts are the observed ones and one
    iteration gives exactly :func:`bnexplore.bif.fit_network`'s tables.

    Parameters
    ----------
    dag : bnexplore.graphs.DAG or similar
        Anything with ``.n``, ``.names`` and ``.parents(v)``.
    data : bnexplore.data.Dataset
        Blank cells in ``data.blank`` (read with ``missing="em"``).
    ess : float
        Equivalent sample size of the BDeu prior, >= 0 (0: maximum likelihood).
    tolerance : float
        Stop when the relative change of the observed-data log-likelihood
        over one iteration is at most this (> 0).
    max_iterations : int
        At most this many iterations per start (>= 1).
    restarts : int
        Further starts from random tables (each row drawn from a uniform
        Dirichlet, from ``seed``); the fit with the highest final
        log-likelihood is returned.
    seed : int, optional
        Seed of the random starts.
    start : bnexplore.bif.Network, optional
        The first start's tables (same variables, states and parents as the
        DAG). Default: the fit to the available cases (each family's table
        fitted to the rows where the whole family is observed, with the prior
        of ``ess``, or of ess 1 when ``ess`` is 0 so that no start table has
        a 0 a row needs).
    progress, time_limit, stop, control
        As in :class:`bnexplore.control.Control`. Progress reports carry
        ``iteration`` and ``log_likelihood``. On a stop or at the time limit
        the best fit so far is returned with ``fit["stopped"]`` set.
    max_cells : float
        Refuse a junction tree with more cells than this (ResourceError).
    estep : EStep, optional
        The E-step of this DAG on this data, prepared already
        (:meth:`EStep.of`; its network has the DAG's variables, the data's
        states and the DAG's parents): used instead of preparing it again, as
        structural EM shares it with :func:`bnexplore.em.completions.completed_data`.

    Returns
    -------
    Network
        Its ``fit`` has ``method`` "em", ``ess``, ``rows``, ``counts`` (the
        expected counts under the returned tables), ``configurations``,
        ``empty_configurations``, ``iterations``, ``log_likelihoods`` (one
        per iteration, of the tables after it), ``log_posteriors``,
        ``converged``, ``stopped`` (None, "stopped" or "time limit"),
        ``restarts``, ``run_log_likelihoods`` (final log-likelihood of every
        start), ``blank_cells`` and ``patterns`` (distinct incomplete rows).

    Raises
    ------
    OptionError, ScoreError
        On an impossible option (naming the keyword).
    DataError
        If a DAG variable is not in the data, or a row has probability 0
        under a start.
    ResourceError
        If the junction tree would exceed ``max_cells``.

    Examples
    --------
    Rain makes the grass wet; two rows miss the rain, one the grass:

    >>> from bnexplore.data import Dataset
    >>> from bnexplore.graphs import DAG
    >>> data = Dataset.from_codes([[0, 0], [0, 0], [1, 1], [1, 0], [-1, 1], [-1, 0], [1, -1]],
    ...                           names=["rain", "wet"], missing="em")
    >>> dag = DAG.from_arcs([("rain", "wet")], ["rain", "wet"])
    >>> fitted = em_fit(dag, data, ess=0)
    >>> fitted.fit["converged"], fitted.fit["iterations"] > 1
    (True, True)
    >>> lls = fitted.fit["log_likelihoods"]
    >>> all(b >= a - 1e-12 for a, b in zip(lls, lls[1:]))
    True
    """
    data = check_dataset(data)
    ess = checked_ess(ess)
    tolerance = positive_number(tolerance, "tolerance")
    max_iterations = whole_number(max_iterations, "max_iterations", 1, MAX_ITERATIONS)
    restarts = whole_number(restarts, "restarts", 0, MAX_RESTARTS)
    seed = seed_number(seed)
    control = Control.of(control, progress, time_limit, stop)
    if estep is None:
        estep = EStep.of(dag, data, max_cells)
    names, states, parents = estep.network.names, estep.network.states, [list(p) for p in estep.network.parents]
    if [str(name) for name in dag.names] != names or family_layout(dag, data)[1] != parents:
        raise OptionError(f"{subject('estep')} must be the E-step of this DAG on this data (EStep.of(dag, data)); "
                          f"leave it out otherwise")
    if start is not None:
        _check_start(start, names, states, parents)
    starts = [start.cpts if start is not None else _available_cases(estep, ess)]
    rng = np.random.default_rng(seed)
    starts += [[rng.dirichlet(np.ones(t.shape[-1]), size=t.size // t.shape[-1]).reshape(t.shape)
                for t in estep.network.cpts] for _ in range(restarts)]
    best, runs = None, []
    budget = max_iterations * len(starts)
    for number, tables in enumerate(starts):
        if runs and control.should_stop():
            break
        run = _climb(estep, tables, ess, max_iterations, tolerance, control, number * max_iterations, budget)
        runs.append(run["log_likelihoods"][-1] if run["log_likelihoods"] else run["start_log_likelihood"])
        if best is None or runs[-1] > best[1]:
            best = (run, runs[-1])
    run = best[0]
    network = fitted_network(names, states, parents, run["counts"], ess, "em", estep.rows, tables=run["tables"])
    network.fit.update(iterations=run["iterations"], log_likelihoods=run["log_likelihoods"],
                       log_posteriors=run["log_posteriors"], converged=run["converged"], stopped=control.reason,
                       restarts=len(runs) - 1, run_log_likelihoods=runs, blank_cells=estep.blank_cells,
                       patterns=estep.patterns)
    control.finish("EM done", iteration=run["iterations"], log_likelihood=best[1])
    return network


def _climb(estep, tables, ess, max_iterations, tolerance, control, done_before, budget):
    """One EM run from ``tables``: iterate until the relative change is below ``tolerance``, the cap or a stop."""
    stepped = estep.run(tables, control)
    if stepped is None:  # stopped during the first E-step: the start is what there is
        stepped = estep.run(tables)
    counts, log_likelihood = stepped
    run = {"tables": tables, "counts": counts, "start_log_likelihood": log_likelihood, "log_likelihoods": [],
           "log_posteriors": [], "iterations": 0, "converged": False}
    if estep.patterns == 0:  # complete data: the counts do not depend on the tables, one M-step is the fit
        max_iterations = 1
    for iteration in range(1, max_iterations + 1):
        if control.should_stop():
            break
        new_tables = [posterior_table(n, ess) for n in run["counts"]]
        stepped = estep.run(new_tables, control)
        if stepped is None:
            break
        counts, new_log_likelihood = stepped
        run.update(tables=new_tables, counts=counts, iterations=iteration)
        run["log_likelihoods"].append(new_log_likelihood)
        run["log_posteriors"].append(new_log_likelihood + _log_prior(new_tables, ess))
        control.report((done_before + iteration) / budget, f"EM iteration {iteration}: log-likelihood "
                       f"{new_log_likelihood:.6g}", iteration=iteration, log_likelihood=new_log_likelihood)
        change = abs(new_log_likelihood - log_likelihood)
        log_likelihood = new_log_likelihood
        if estep.patterns == 0 or change <= tolerance * max(abs(new_log_likelihood), 1e-300):
            run["converged"] = True
            break
    return run


def _log_prior(tables, ess):
    """``sum ess / (q r) log theta_ijk``: the Dirichlet term EM with ``ess > 0`` climbs beside the log-likelihood."""
    if ess == 0:
        return 0.0
    with np.errstate(divide="ignore"):
        return float(sum(ess / t.size * np.log(t).sum() for t in tables))


def _available_cases(estep, ess):
    """The start: every table fitted to the rows where its whole family is observed."""
    return [posterior_table(n, ess if ess > 0 else 1.0) for n in estep.observed]


def _check_start(start, names, states, parents):
    if not isinstance(start, Network):
        raise OptionError(f"{subject('start')} must be a Network (read_bif or fit_network) or None, got "
                          f"{type(start).__name__}")
    if start.names != names or start.states != states or [list(p) for p in start.parents] != parents:
        raise OptionError(f"{subject('start')} must have the DAG's variables, the data's states and the DAG's "
                          f"parents, in the DAG's order; fit it with fit_network(dag, data) first")


def fit_network(dag, data, ess=1.0, method="bdeu", **em_options):
    """Fit the CPTs of a DAG to data: the BDeu posterior mean, maximum likelihood, or EM for blank cells.

    ``method="bdeu"`` and ``"ml"`` count complete rows
    (:func:`bnexplore.bif.fit_network`: Heckerman, Geiger & Chickering 1995,
    Section 5) and refuse data with blank cells; ``method="em"`` fits data with
    blank cells by EM (:func:`em_fit`, Dempster, Laird & Rubin 1977; Lauritzen
    1995) and on complete data gives the "bdeu" tables.

    Parameters
    ----------
    dag : bnexplore.graphs.DAG or similar
    data : bnexplore.data.Dataset
    ess : float
        Equivalent sample size of the BDeu prior, >= 0 (ignored by "ml").
    method : {"bdeu", "ml", "em"}
    **em_options
        Options of :func:`em_fit` (``tolerance``, ``max_iterations``,
        ``restarts``, ``seed``, ``progress``, ...), only with ``method="em"``.

    Returns
    -------
    Network
        With its ``fit`` record (see :func:`bnexplore.bif.fit_network` and :func:`em_fit`).

    Examples
    --------
    >>> from bnexplore.data import Dataset
    >>> from bnexplore.graphs import DAG
    >>> data = Dataset.from_codes([[0, 0], [0, 0], [1, 1], [1, -1]], names=["rain", "wet"], missing="em")
    >>> dag = DAG.from_arcs([("rain", "wet")], ["rain", "wet"])
    >>> fit_network(dag, data, method="em").fit["method"]
    'em'
    >>> fit_network(dag, data)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bnexplore.errors.DataError: fitting with method='bdeu' needs complete rows, ... fit with method='em' ...
    """
    data = check_dataset(data)
    if method == "em":
        return em_fit(dag, data, ess=ess, **em_options)
    if em_options:
        raise ScoreError(f"{', '.join(sorted(em_options))} is an option of {subject('method', 'em')}, not of "
                         f"method={method!r}")
    return fit_complete(dag, data, ess=ess, method=method)

