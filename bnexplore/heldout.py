"""Held-out likelihood: networks judged by how well they predict rows they were not learned from.

k-fold cross-validation (Hastie, Tibshirani & Friedman 2009, *The Elements of
Statistical Learning*, Section 7.10), as bnlearn's ``bn.cv`` with the
log-likelihood loss (Scutari 2010): the rows are shuffled by the seed and cut
into ``k`` folds of sizes differing by at most one; each fold in turn is the
test set and the other rows the training set. On the training set each method
gives a graph (a search of :data:`bnexplore.search.SEARCHES` is run on it; a
given DAG is taken as it is), whose tables are fitted by
:func:`bnexplore.bif.fit_network`; the method's figure for the fold is the
natural-log probability of the test rows under that network, divided by their
number (the log-likelihood per row: higher is better, comparable across folds
of different sizes). Every method sees the same folds, so their figures can be
compared fold by fold.

A state a test row has and the training rows never show is still a state of the
variable: the :class:`~bnexplore.data.Dataset`'s encoding fixes every variable's
states, and a fold keeps them. The BDeu posterior mean (``method="bdeu"``,
``ess > 0``) gives each of them mass ``ess / (q r)`` in the counts, so no test
row has probability 0. Maximum likelihood (``method="ml"``) gives such a state
probability 0 under a parent configuration seen in training: the fold's
log-likelihood is then ``-inf``, and the result's notes say which folds. (A
parent configuration never seen in training gets the uniform distribution
either way.) Under BDeu the fitted network is the posterior predictive
distribution, the same for every DAG of an equivalence class, so equivalent
graphs get equal figures.

Data with blank cells (read with ``missing="em"``) is judged on what it holds
(Dempster, Laird & Rubin 1977, Section 1: the observed-data likelihood): each
search learns from the training rows by structural EM (Friedman 1997, as
:func:`bnexplore.search.learn` does on such data, so only the searches that
take expected counts), every network's tables are fitted there by EM
(:func:`bnexplore.em.em_fit`, the BDeu prior, or none for ``"ml"``), and a
held-out row counts with the probability of its observed cells, its blank cells
summed out (:func:`bnexplore.em.observed_log_likelihood`). Every method is
judged on the same observed cells, so the figures compare as before. Weighted
rows are refused: a weight has no test-set meaning.
"""

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .bif import fit_network, log_likelihood
from .bif.fit import checked_ess
from .compiling import search_clock
from .control import Control
from .data import check_dataset, require_unweighted
from .em import em_fit, observed_log_likelihood
from .errors import OptionError, ScoreError, SearchError, subject
from .graphs import DAG
from .options import seed_number, whole_number
from .result import to_plain
from .search import SEARCHES, expected_count_searches, learn, search_spec

GIVEN = "given"
"""The ``algorithm`` a given DAG is recorded under in the table."""


@dataclass
class HeldOutResult:
    """The held-out log-likelihood of each method on each fold.

    Attributes
    ----------
    methods : list of str
        The methods' names, in the order given.
    rows : list of dict
        One per finished (method, fold), fold by fold: ``method``, ``algorithm``
        (the search's name, or ``"given"``), ``fold`` (from 1), ``test_rows``,
        ``log_likelihood`` (per test row, natural log; ``-inf`` when a row had
        probability 0), ``arcs`` and ``seconds`` (learning and fitting on the
        training rows).
    assignment : numpy.ndarray
        The fold (from 1) of each row of the data.
    params : dict
        ``folds``, ``seed`` (the entropy used, so a run without a seed can be
        repeated), ``ess``, ``method``, ``score``, ``options``.
    stats : dict
        ``seconds``, ``stopped`` (the reason, or None), ``folds_done`` (folds
        every method finished).
    notes : list of str
        What the numbers need said: a stop, folds of probability 0.
    """

    methods: list
    rows: list
    assignment: np.ndarray
    params: dict
    stats: dict
    notes: list = field(default_factory=list)

    def table(self):
        """The tidy table: one row per method and fold.

        Returns
        -------
        pandas.DataFrame
            Columns method, algorithm, fold, test_rows, log_likelihood, arcs, seconds.
        """
        columns = ["method", "algorithm", "fold", "test_rows", "log_likelihood", "arcs", "seconds"]
        return pd.DataFrame(self.rows, columns=columns)

    def summary(self):
        """Per method: the folds it finished, the mean and sample standard deviation of its log-likelihood
        per row over them (sd NaN with one fold, or when a fold is ``-inf``).

        Returns
        -------
        pandas.DataFrame
            Columns method, folds, mean, sd; methods in the order given.
        """
        out = []
        for name in self.methods:
            values = np.array([row["log_likelihood"] for row in self.rows if row["method"] == name], float)
            finite = values.size > 1 and np.isfinite(values).all()
            out.append({"method": name, "folds": int(values.size),
                        "mean": float(values.mean()) if values.size else float("nan"),
                        "sd": float(values.std(ddof=1)) if finite else float("nan")})
        return pd.DataFrame(out, columns=["method", "folds", "mean", "sd"])

    def to_json(self):
        """``{"summary", "table", "params", "stats", "notes"}`` (JSON-ready: ``-inf`` as the text "-inf",
        NaN as None)."""
        return to_plain({"summary": self.summary().to_dict("records"), "table": self.table().to_dict("records"),
                         "params": self.params, "stats": self.stats, "notes": self.notes})


def fold_assignment(n_rows, folds, seed):
    """The fold (from 1) of each of ``n_rows`` rows: a permutation drawn from ``seed`` cut into ``folds``
    parts whose sizes differ by at most one.

    Parameters
    ----------
    n_rows, folds : int
    seed : int
        The same seed gives the same folds (``numpy.random.default_rng(seed)``).

    Returns
    -------
    numpy.ndarray of int

    Examples
    --------
    >>> fold_assignment(7, 3, seed=1)
    array([1, 1, 2, 3, 2, 1, 3])
    >>> np.bincount(fold_assignment(10, 3, seed=1))[1:].tolist()   # rows per fold
    [4, 3, 3]
    """
    assignment = np.empty(n_rows, dtype=np.int64)
    order = np.random.default_rng(seed).permutation(n_rows)
    for fold, part in enumerate(np.array_split(order, folds), start=1):
        assignment[part] = fold
    return assignment


def checked_methods(methods, names):
    """``methods`` checked: a non-empty dict of name -> a search name of the registry or a DAG over exactly
    the variables ``names``. Returns a list of ``(name, algorithm or None, DAG or None)``."""
    if not isinstance(methods, dict) or not methods:
        raise SearchError(f"{subject('methods')} must be a dict of name -> a search name ({', '.join(SEARCHES)}) "
                          f"or a DAG, with at least one entry; got {methods!r:.80}")
    out = []
    for name, method in methods.items():
        if not isinstance(name, str) or not name:
            raise SearchError(f"{subject('methods')}: every name must be non-empty text, got {name!r:.40}")
        if isinstance(method, str):
            out.append((name, search_spec(method).name, None))
        elif isinstance(method, DAG):
            if sorted(method.names) != sorted(names):
                only_graph = sorted(set(method.names) - set(names))[:5]
                only_data = sorted(set(names) - set(method.names))[:5]
                raise SearchError(f"{subject('methods')}[{name!r}]: the DAG's variables differ from the data's "
                                  f"(only in the DAG: {only_graph}, only in the data: {only_data}); a held-out row "
                                  "is scored on every variable")
            out.append((name, None, method))
        else:
            raise SearchError(f"{subject('methods')}[{name!r}] must be a search name ({', '.join(SEARCHES)}) or "
                              f"a DAG, got {type(method).__name__}")
    return out


def checked_folds(folds, n_rows):
    """``folds`` as an int in ``[2, n_rows]``; an OptionError naming the option and the data's rows otherwise."""
    if n_rows < 2:
        raise OptionError(f"cross-validation needs at least 2 rows, and the data has {n_rows}")
    try:
        return whole_number(folds, "folds", 2, n_rows)
    except OptionError as error:
        raise OptionError(f"{error} (from 2 to the data's {n_rows:,} rows: each fold tests on at least one row "
                          "and learns from the others)") from None


def cross_validate_networks(data, methods, folds=5, seed=None, ess=1.0, method="bdeu", score="bdeu",
                            progress=None, time_limit=None, stop=None, control=None, **options):
    """The held-out log-likelihood per row of networks learned (or given), by k-fold cross-validation.

    See the module docstring for the folds, the fit and what a state never seen
    in training does.

    Parameters
    ----------
    data : bnexplore.data.Dataset
        Unweighted rows, complete or with blank cells (see the module docstring).
    methods : dict
        Name -> a search name of :data:`bnexplore.search.SEARCHES` (learned on
        each training set with :func:`bnexplore.search.learn`) or a
        :class:`~bnexplore.graphs.DAG` over the data's variables (taken as
        given, never relearned).
    folds : int
        From 2 to the number of rows.
    seed : int, optional
        Seeds the folds, and every search that takes a seed; None draws one
        (kept in ``params["seed"]``).
    ess : float
        Equivalent sample size of the BDeu score the searches use and of the
        BDeu prior of the tables.
    method : {"bdeu", "ml"}
        How the tables are fitted (:func:`bnexplore.bif.fit_network`).
    score : str
        The searches' score (:class:`bnexplore.scores.Scorer`).
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control` (the time limit is the whole
        run's). A stop keeps the (method, fold) pairs finished; a search cut
        by it is dropped, since its graph is not the search's answer.
    **options
        Passed to every search (``max_indegree``, ``knowledge``, ...).

    Returns
    -------
    HeldOutResult

    Raises
    ------
    BNExploreError
        On bad folds, methods, seed or data (row weights; blank cells with a search that cannot learn from
        them), before any work.

    Examples
    --------
    >>> import numpy as np
    >>> from bnexplore.data import Dataset
    >>> from bnexplore.graphs import DAG
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 300)
    >>> b = (a + (rng.random(300) < 0.1)) % 2          # b copies a, with 10% noise
    >>> data = Dataset.from_codes(np.column_stack([a, b]), names=["a", "b"])
    >>> cv = cross_validate_networks(data, {"hc": "hc", "empty": DAG.empty(["a", "b"])}, folds=3, seed=1)
    >>> summary = cv.summary().set_index("method")
    >>> bool(summary.loc["hc", "mean"] > summary.loc["empty", "mean"])   # the arc predicts b better
    True
    >>> cross_validate_networks(data, {"hc": "hc"}, folds=1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bnexplore.errors.OptionError: folds must be a whole number >= 2 and <= 300, got 1 (from 2 to the data's 300 ...
    """
    data = check_dataset(data)
    control = Control.of(control, progress, time_limit, stop)
    require_unweighted(data, "held-out likelihood")
    folds = checked_folds(folds, data.n_rows)
    chosen = checked_methods(methods, data.names)
    blanks = getattr(data, "blank", None) is not None
    if blanks:
        _require_expected_counts(chosen)
    seed = seed_number(seed)
    entropy = np.random.SeedSequence(seed).entropy
    ess = checked_ess(ess)
    if method not in ("bdeu", "ml"):
        raise ScoreError(f"{subject('method')} must be 'bdeu' (the BDeu posterior mean) or 'ml' (maximum "
                         f"likelihood), got {method!r}")
    assignment = fold_assignment(data.n_rows, folds, entropy)
    started = search_clock()
    rows, notes, total = [], [], folds * len(chosen)
    for fold in range(1, folds + 1):
        train, test = data.subset(assignment != fold), data.subset(assignment == fold)
        for name, algorithm, given in chosen:
            if control.should_stop():
                break
            unit = len(rows)
            message = f"fold {fold} of {folds}: {name}"
            control.report(done=unit / total, message=message, force=True)
            began = search_clock()
            graph = given
            if graph is None:
                seeded = {"seed": entropy} if SEARCHES[algorithm].option("seed") and "seed" not in options else {}
                learned = learn(train, algorithm, score=score, ess=ess, stop=control.should_stop,
                                progress=lambda info, unit=unit, message=message: control.report(
                                    done=(unit + min(info.get("done") or 0.0, 1.0)) / total, message=message),
                                **seeded, **options)
                if learned.stats.get("stopped"):
                    break
                graph = learned.graph
            if blanks:
                network = em_fit(graph, train, ess=ess if method == "bdeu" else 0.0, stop=control.should_stop)
                if control.should_stop():  # the fit was cut short: its tables are not EM's answer
                    break
            else:
                network = fit_network(graph, train, ess=ess, method=method)
            seconds = search_clock() - began
            value = (observed_log_likelihood(network, test) if blanks
                     else log_likelihood(network, test.codes[:, test.indices(network.names)])) / test.n_rows
            if value == -np.inf:
                notes.append(f"{name}, fold {fold}: a held-out row has probability 0 under the maximum-likelihood "
                             "tables (a state or combination the training rows never show); fit with the BDeu "
                             "prior to give it mass")
            rows.append({"method": name, "algorithm": algorithm or GIVEN, "fold": fold, "test_rows": test.n_rows,
                         "log_likelihood": value, "arcs": graph.n_edges, "seconds": seconds})
        if control.reason is not None:
            break
    folds_done = len(rows) // len(chosen)
    if control.reason is not None:
        notes.insert(0, f"{control.reason} after {folds_done} of {folds} folds ({len(rows)} of {total} method-fold "
                        "pairs): the table holds those that finished")
    control.finish(message=f"{len(rows)} of {total} method-fold pairs")
    if blanks:
        notes.append(f"the data keep {int(data.n_blank):,} blank cells: each search learned by structural EM on the "
                     "training rows, every network's tables fitted by EM, and each held-out row scored by the "
                     "probability of its observed cells (its blank cells summed out)")
    params = {"folds": folds, "seed": entropy, "ess": ess, "method": method, "score": score,
              "algorithms": {name: algorithm or GIVEN for name, algorithm, _ in chosen}, "options": options,
              **({"missing": "em"} if blanks else {})}
    stats = {"seconds": search_clock() - started, "stopped": control.reason, "folds_done": folds_done}
    return HeldOutResult([name for name, _, _ in chosen], rows, assignment, params, stats, notes)


def _require_expected_counts(chosen):
    """Refuse, before any work, a search that cannot learn from blank cells (structural EM runs a search on
    expected counts)."""
    able = expected_count_searches()
    for _, algorithm, given in chosen:
        if given is None and not SEARCHES[algorithm].expected_counts:
            raise SearchError(f"{algorithm} cannot learn from data with blank cells (structural EM runs a search on "
                              f"expected counts, which {', '.join(able)} can): choose one of those, or load the data "
                              f"with {subject('missing', 'drop')} or {subject('missing', 'state')}")

