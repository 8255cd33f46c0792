"""Structural EM: structure search on data with blank cells (Friedman 1997; Friedman 1998).

Friedman's structural EM (1997, "Learning belief networks in the presence of
missing values and hidden variables", Sections 3-4; 1998, "The Bayesian
structural EM algorithm", Sections 3-4) alternates

- an E-step: the expected sufficient statistics of the data under the current
  network, as the weighted completed data set of
  :func:`bnexplore.em.completions.completed_data` (each incomplete row as its
  completions weighted by their posterior);
- an M-step: a structure search scoring candidates on those expected
  statistics (any registered search with ``expected_counts``, run on a
  :class:`~bnexplore.scores.Scorer` of the completed data, from the empty
  graph and from the current one, the best kept), then parameter EM
  (:func:`bnexplore.em.em_fit`) on the new graph.

The run starts from the search's graph on the data with each blank cell as a
state of its own, fitted by parameter EM: started from the empty graph, the
first iteration's counts were completed under independence and gave a graph
with a third more arcs than the truth (alarm), the longest climb of the run.
Each search also starts afresh, not only from the current graph: a climb
from the current graph alone keeps most of its arcs, right or wrong (from the
empty start's over-full first graph it removed few), and even from the
blank-as-a-state start it landed further from the truth than the best of the
two climbs, for about a fifth less time.
The expected score of the new graph is at least the current graph's, which
for the scores Friedman studies raises the observed-data score; since the
search's score on expected counts is only a proxy for it, every network is
rated by its observed-data score in the search's own terms, the
Cheeseman-Stutz approximation (Cheeseman & Stutz 1996; Chickering & Heckerman
1997, Section 3): the observed-data log-likelihood at its tables plus the
score's penalty on the completed rows its graph was scored on (the search's
score there minus their maximised log-likelihood, the ``ll`` score); for BIC
this is exactly the observed-data BIC. The network rated best is returned, saying
so when it is not the last, and the run stops as soon as a network is rated
below an earlier one, or above the best of them by less than
:data:`RATING_TOLERANCE` of it (EM's own stopping rule on its objective): the
later iterations then mostly follow the noise of the sampled completions. Rating by the observed-data BIC instead, whatever the
search's score, stopped BDeu runs early: its penalty is harsher than BDeu's,
so a graph the BDeu search had improved (higher expected score, higher
observed log-likelihood) was rated down and the run ended on the graph before
it (insurance, a tenth of the cells blank: 44-47 edges from the truth where
the later iterations reached 38-41).

What keeps an iteration cheap: parameter EM's E-step sums each row's
independent groups of blank cells apart (:mod:`bnexplore.em.groups`; the
junction tree only for rows with a large group), the completed data is drawn
from the groups that same E-step laid out for the network (one
:class:`~bnexplore.em.EStep` per network, shared), and it holds
:data:`~bnexplore.em.completions.COMPLETIONS` completion per incomplete row by
default, drawn from the row's exact posterior, so the searches climb on a
table no longer than the data.
"""

import math

import numpy as np

from ..bif import fit_network
from ..compiling import search_clock
from ..control import Control
from ..data import Dataset, check_dataset, code_dtype
from ..em import EStep, em_fit
from ..em.completions import COMPLETIONS, completed_data
from ..errors import SearchError
from ..graphs import DAG
from ..options import seed_number
from ..scores import Scorer
from .registry import EM_OPTIONS, expected_count_searches, search_spec
from .run import SearchRun


TOLERANCE = 1e-4
"""Relative change of the observed-data log-likelihood at which each iteration's parameter EM stops.

Looser than :func:`bnexplore.em.em_fit`'s own default: the next structural step moves the tables more
than that, and on alarm (10,000 rows, a tenth of the cells blank) it gave the networks of 1e-6 in
about half the time."""


RATING_TOLERANCE = TOLERANCE
"""Relative rise of the best observed-data score below which the run ends (the best network returned).

Each network's observed-data log-likelihood is parameter EM's at :data:`TOLERANCE`, so a rating that rises
by less than that is within what the fit of the network leaves unsettled; the iterations that rose by so
little (alarm and insurance, a tenth of the cells blank) changed an arc or two and landed no closer to the
truth, and ending there cut the longest runs by one or two iterations (summed SHD of the ten runs 313
against 315)."""

WHOLE = 1e-9
"""Distance from a whole number within which a completed row's weight counts as that number: a row drawn
by likelihood weighting gets ``weight * (count / weight)``, a rounding away from its count."""


def structural_em(data, algorithm="hc", score="bdeu", ess=1.0, em_iterations=10, completions=COMPLETIONS, seed=0,
                  progress=None, time_limit=None, stop=None, control=None, **search_options):
    """Learn a network from data with blank cells by structural EM (Friedman 1997, 1998).

    Starts from the search's graph on the data with each blank cell as a
    state of its own (as ``Encoder(missing="state")`` codes it) and that
    graph's parameter-EM tables. Each iteration: the E-step completes the data
    under the current network (:func:`bnexplore.em.completions.completed_data`,
    Friedman 1997, Section 3); the M-step runs ``algorithm`` on the completed
    data's scorer from the empty graph (or the required arcs) and, when the
    search takes a start, from the current graph, and keeps the best of
    those two and the current graph on those counts (Friedman 1998,
    Section 4: any step that does not lower the expected score),
    then fits the new graph's tables by parameter EM
    (:func:`bnexplore.em.em_fit`). It ends when a graph repeats, when a
    network's observed-data score (below) is lower than an earlier iteration's
    or higher than the best of them by less than :data:`RATING_TOLERANCE` of it
    (the expected score no longer leads to better networks), after
    ``em_iterations`` iterations, or on a stop or the time limit.

    Every network visited, the start included, is rated by its observed-data
    score, the Cheeseman-Stutz approximation in the search's score (Chickering
    & Heckerman 1997): the observed-data log-likelihood at its EM tables plus
    its expected score minus the maximised log-likelihood of the completed
    rows it was scored on (the score's penalty there; with ``score="bic"``
    the rating is the observed-data BIC). The best is returned, and
    ``extra["em"]["note"]`` says so when it is not the last one. Its
    observed-data BIC (the observed-data log-likelihood minus ``log(N) / 2``
    times its free parameters) is reported beside it.

    Data without blank cells needs no E-step (the completed data is the data,
    whatever the network): the result is the plain search's, with its one
    iteration recorded.

    Parameters
    ----------
    data : Dataset
        Blank cells in ``data.blank`` (read with ``missing="em"``).
    algorithm : str
        A search of :data:`~bnexplore.search.SEARCHES` with ``expected_counts``
        (hc, tabu, rpdag, rpdag-tabu, ges).
    score : str
        The search's score (:class:`bnexplore.scores.Scorer`), computed on the expected counts.
    ess : float
        BDeu equivalent sample size of the score and of the tables' prior.
    em_iterations : int
        Most iterations (>= 1).
    completions : int
        Completions per incomplete row in the E-step (>= 1): all of them when
        a row's blank cells have at most this many, else as many samples from
        the row's posterior (:func:`bnexplore.em.completions.completed_data`).
    seed : int
        Seed of the sampled completions (iteration ``k`` uses ``seed + k - 1``)
        and of the search when it takes one.
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`. Each report carries
        ``iteration``, ``log_likelihood`` (of the last network fitted) and
        ``em`` (the iterations so far, as in ``extra["em"]["iterations"]``). On
        a stop the iteration under way is dropped and the best network of
        those finished is returned, with ``stats["stopped"]`` set.
    **search_options
        The search's own options and :data:`~bnexplore.search.COMMON` ones
        (``max_indegree``, ``knowledge``); not ``start``.

    Returns
    -------
    Result
        The returned iteration's network, its search's trajectory and
        statistics (``seconds`` and ``stopped`` of the whole run); ``score`` is
        its expected score (the score on the completed data it was learnt
        from). ``extra["em"]`` holds ``iterations`` (one dict per iteration,
        0 the start: ``iteration``, ``log_likelihood``, ``observed_bic``,
        ``observed_score`` (the rating above), ``expected_score``, ``arcs``, ``changes`` (arcs added, removed or
        reversed), ``seconds``), ``returned``, ``note``, ``blank_cells``,
        ``rows`` and ``completions``. ``em_fit(result.graph, data, ess=ess)``
        fits the returned network's tables to convergence (each iteration
        stops parameter EM at :data:`TOLERANCE`), e.g. for
        :func:`bnexplore.em.impute`.

    Raises
    ------
    SearchError
        For a search that cannot run on expected counts (naming those that
        can), an unknown option, or ``start``.
    OptionError
        For an impossible ``em_iterations``, ``completions``, ``seed`` or search option.

    Examples
    --------
    ``b`` copies ``a`` nine times in ten and ``c`` is noise; a fifth of the
    cells are blank. Structural EM finds the arc between ``a`` and ``b``:

    >>> import numpy as np
    >>> from bnexplore.data import Dataset
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 400)
    >>> codes = np.column_stack([a, (a + (rng.random(400) < 0.1)) % 2, rng.integers(0, 2, 400)])
    >>> codes[rng.random(codes.shape) < 0.2] = -1
    >>> data = Dataset.from_codes(codes, names=["a", "b", "c"], missing="em")
    >>> result = structural_em(data, "hc", score="bic")
    >>> result.graph.to_json()["arcs"]
    [['a', 'b']]
    >>> [step["iteration"] for step in result.extra["em"]["iterations"]][:2], result.extra["em"]["returned"]
    ([0, 1], 1)
    """
    data = check_dataset(data)
    spec = search_spec(algorithm)
    if not spec.expected_counts:
        raise SearchError(f"{algorithm} cannot learn from data with blank cells: structural EM runs a search on "
                          f"expected counts, which {', '.join(expected_count_searches())} can; or drop the "
                          f"incomplete rows")
    if "start" in search_options:
        raise SearchError("structural EM starts every search itself (from the empty graph or the required arcs); "
                          "it takes no start")
    options = spec.checked(search_options)
    em_iterations, completions = (option.check(value) for option, value in zip(EM_OPTIONS, (em_iterations,
                                                                                          completions)))
    seed = seed_number(seed)
    keywords = spec.keywords()
    if "seed" in keywords and options.get("seed") is None:
        options["seed"] = seed
    control = Control.of(control, progress, time_limit, stop)
    run = Run(spec, data, score, ess, options, control, completions, seed, em_iterations)
    return run.learn() if getattr(data, "blank", None) is not None else run.plain()


class Run:
    """One run of structural EM: its iterations so far and the best of them.

    Parameters are those of :func:`structural_em` (checked).
    """

    def __init__(self, spec, data, score, ess, options, control, completions, seed, em_iterations):
        self.spec, self.data, self.score, self.ess = spec, data, score, ess
        self.options, self.control, self.completions, self.seed = options, control, completions, seed
        self.em_iterations = em_iterations
        weights = getattr(data, "weights", None)
        self.rows = data.n_rows if weights is None else float(weights.sum())  # the N of BIC
        self.start = search_clock()
        self.history = []  # the records of extra["em"]["iterations"]
        self.params = {}  # the search's parameters, as its last Result recorded them
        self.results = []  # the Result of each record
        self.networks = []  # the fitted network of each record
        self.log_likelihood = None
        self.estep = None  # the E-step of the last network fitted, which completes the data under it

    def learn(self):
        """Iterate from the start graph; the best iteration's Result."""
        graph = self._start_graph()
        self._fit(graph, 0)
        seen = {graph.adj.tobytes(): 0}
        for iteration in range(1, self.em_iterations + 1):
            if iteration > 1 and self.control.should_stop():
                break
            completed = self._rows(completed_data(self.networks[-1], self.data, self.completions,
                                                  None if self.seed is None else self.seed + iteration - 1,
                                                  estep=self.estep))
            scorer = Scorer(completed, score=self.score, ess=self.ess)
            if iteration == 1:  # the start is rated on the first completed data, whatever stops the run
                self._record(0, self._graph_result(scorer, graph), graph, completed)
                if self.control.should_stop():
                    break
            result = self._search(scorer, graph, iteration)
            if result is None:  # the search was cut short: keep the finished iterations
                break
            repeat = seen.setdefault(result.graph.adj.tobytes(), iteration)
            if repeat == iteration:
                self._fit(result.graph, iteration, completed)
            else:  # the same graph, the same tables
                self.networks.append(self.networks[repeat])
            self._record(iteration, result, graph, completed, None if repeat == iteration else repeat)
            graph = result.graph
            if repeat != iteration or self._settled(iteration):
                break
        return self._result()

    def plain(self):
        """Complete data: the plain search's Result, its one iteration recorded."""
        result = self.spec.function(Scorer(self.data, score=self.score, ess=self.ess), **self.options,
                                    control=self.control)
        self._fit(result.graph, 1)
        self._record(1, result, DAG.empty(self.data.names), self.data)
        return self._result()

    def _start_graph(self):
        """The search's graph on the data with each blank cell as a state of its own (as
        ``Encoder(missing="state")`` codes it), under the run's options and knowledge.

        A start near the truth, for about one search on the data: completed under the empty graph's
        network (each blank cell from its marginal), the first iteration's table drew a third more arcs
        than the truth on alarm and took the longest climb; from this start the runs needed fewer
        iterations and landed as close or closer (alarm and insurance, a tenth of the cells blank). Its
        arcs are only a start: every iteration searches from the empty graph too, and the start is
        returned only if its observed-data BIC is the best.
        """
        data = self.data
        arities = np.asarray(data.arities, dtype=np.int64)
        codes = np.asarray(data.codes).astype(code_dtype(int(arities.max(initial=1)) + 1))
        codes[data.blank] = np.broadcast_to(arities, codes.shape)[data.blank]
        coded = Dataset.from_codes(codes, arities=arities + 1, names=data.names)
        stop = Control(stop=self.control.should_stop, clock=self.control.clock)
        return self.spec.function(Scorer(coded, score=self.score, ess=self.ess), **self.options, control=stop).graph

    def _rows(self, completed):
        """The completed data as unweighted rows when every weight is a whole number (each distinct row
        repeated as often as it was drawn, as with one completion per row), else as it is.

        The same counts (to within :data:`WHOLE`), so the same scores: the scorers count unweighted rows
        about twice as fast as weighted ones (insurance, a tenth of the cells blank: a climb on the
        completed data's 8,943 distinct weighted rows took twice as long as on its 10,000 rows), and every
        M-step climbs on it. The rows are at most the data's (the weights of one row's completions sum to
        one)."""
        weights = completed.weights
        if weights is None:
            return completed
        whole = np.rint(weights)
        if np.abs(whole - weights).max(initial=0.0) > WHOLE or whole.sum() > self.data.n_rows:
            return completed
        whole = whole.astype(np.int64)
        return Dataset(np.repeat(np.asarray(completed.codes), whole, axis=0), completed.arities, completed.names,
                       completed.states, warnings=completed.warnings)

    def _step(self, iteration):
        """The Control of one step (a search, a parameter EM): it stops when the run stops, and its reports
        go to the run's progress as the iteration's."""

        def report(info):
            inner = info.get("done")
            self.control.report(None if inner is None else min(1.0, (iteration - 1 + inner) / self.em_iterations),
                                f"structural EM, iteration {iteration}: {info.get('message', '')}",
                                iteration=iteration, log_likelihood=self.log_likelihood, em=list(self.history))

        return Control(progress=report, stop=self.control.should_stop, min_interval=self.control.min_interval,
                       clock=self.control.clock)

    def _fit(self, graph, iteration, completed=None):
        """Parameter EM of ``graph``; its network joins :attr:`networks`.

        Started from the tables of the ``completed`` data's expected counts when given (Friedman 1997,
        Section 3: the new structure's parameters from the expected statistics it was chosen on), which
        is parameter EM's first iteration from the previous network, so it needs fewer E-steps than from
        the available cases."""
        start = None if completed is None else fit_network(graph, completed, ess=self.ess)
        self.estep = EStep.of(graph, self.data, previous=self.estep)  # the data-only pieces prepared once per run
        self.networks.append(em_fit(graph, self.data, ess=self.ess, tolerance=TOLERANCE, start=start,
                                    control=self._step(iteration), estep=self.estep))

    def _search(self, scorer, graph, iteration):
        """The M-step's graph: the best on ``scorer`` of the search from the empty graph (or the required arcs),
        the search from ``graph`` when it takes a start, and ``graph`` itself; None when a search was cut short."""
        starts = [{}] + ([{"start": graph}] if graph.n_edges and "start" in self.spec.keywords() else [])
        best = self._graph_result(scorer, graph)
        for start in starts:
            result = self.spec.function(scorer, **self.options, **start, control=self._step(iteration))
            if self.control.reason is not None:
                return None
            self.params = result.params
            if result.score > best.score:
                best = result
        return best

    def _settled(self, iteration):
        """Whether the last network's observed-data score is below an earlier iteration's (the start's
        excepted), or above the best of them by less than :data:`RATING_TOLERANCE` of it: the expected score
        has stopped leading to better networks."""
        if iteration <= 1:
            return False
        best = max(h["observed_score"] for h in self.history[1:-1])
        return self.history[-1]["observed_score"] < best + RATING_TOLERANCE * abs(best)

    def _graph_result(self, scorer, graph):
        """A graph as a Result scored on a completed data (no search ran): the start, or a graph kept."""
        run = SearchRun(scorer, Control(), self.spec.name, {})
        return run.result(scorer.parent_lists(graph), extra={"start": graph} if graph.n_edges else {})

    def _record(self, iteration, result, previous, completed, repeat=None):
        """Add the iteration's Result and record (its network is the last fitted; ``completed`` the data its
        graph was scored on; ``repeat`` the record whose graph and network it repeats, whose rating it keeps:
        one network, one rating, whatever the completions drawn since), and report it."""
        network = self.networks[-1]
        observed = max(network.fit["run_log_likelihoods"])
        parameters = sum(t.size // t.shape[-1] * (t.shape[-1] - 1) for t in network.cpts)
        penalty = float(result.score) - Scorer(completed, score="ll").total(result.graph)  # score - max. LL
        differ = result.graph.adj.astype(bool) != previous.adj.astype(bool)
        self.log_likelihood = observed
        self.results.append(result)
        self.history.append({
            "iteration": iteration, "log_likelihood": observed,
            "observed_bic": observed - math.log(self.rows) / 2 * parameters,
            "observed_score": observed + penalty if repeat is None else self.history[repeat]["observed_score"],
            "expected_score": float(result.score), "arcs": int(result.graph.n_edges),
            "changes": int(np.triu(differ | differ.T, 1).sum()), "seconds": search_clock() - self.start})
        self.control.report(iteration / self.em_iterations, f"structural EM, iteration {iteration}: "
                            f"log-likelihood {observed:.6g}", force=True, iteration=iteration,
                            log_likelihood=observed, em=list(self.history))

    def _result(self):
        """The Result of the record with the best observed-data BIC (the last of equals), its note, its ``em``."""
        best = max(range(len(self.history)), key=lambda k: (self.history[k]["observed_score"], k))
        last = self.history[-1]
        record = self.history[best]
        note = None
        if record is not last:
            what = "the start" if record["iteration"] == 0 else f"iteration {record['iteration']}"
            note = (f"{what} has the best observed-data score ({record['observed_score']:.6g}); the last, "
                    f"iteration {last['iteration']}, has {last['observed_score']:.6g}: structural EM returns "
                    f"{what}'s network")
        result = self.results[best]
        result.params = {**self.params, **result.params, "missing": "em", "em_iterations": self.em_iterations,
                         "completions": self.completions, "em_seed": self.seed}
        result.stats = {**result.stats, "seconds": search_clock() - self.start, "stopped": self.control.reason,
                        "em_iterations": last["iteration"]}
        result.extra = {**result.extra, "em": {
            "iterations": self.history, "returned": record["iteration"], "note": note,
            "blank_cells": int(self.data.n_blank),
            "rows": int(self.data.n_rows), "completions": self.completions}}
        self.control.finish(message=f"structural EM: done, iteration {record['iteration']} returned",
                            score=result.score, iteration=last["iteration"], log_likelihood=record["log_likelihood"],
                            em=list(self.history))
        return result
