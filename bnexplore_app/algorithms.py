"""The searches the Search page offers: one registry entry per algorithm.

An :class:`Algorithm` says how to draw its own options (Streamlit widgets) and
how to run (in the background thread, so ``run`` never touches Streamlit).
Every search of the library's registry (:data:`bnexplore.search.SEARCHES`) is
registered here from its entry: label, description, replay, and a widget per
option the entry gives a label (:func:`option_widgets`); :data:`WIDGETS` holds
the few searches whose options need widgets of their own. The analyses that
are not searches (the credible set, BNKL, the bootstrap) are registered below
them, one ``register(Algorithm(...))`` call each.
"""

import os
import re
from dataclasses import dataclass

import numpy as np
import streamlit as st

from bnexplore.bootstrap import bootstrap
from bnexplore.data import MISSING_LABEL, Encoder
from bnexplore.em import em_fit
from bnexplore.em import impute
from bnexplore.errors import SearchError
from bnexplore.result import Result
from bnexplore.scores import Scorer
from bnexplore.bnkl import bnkl
from bnexplore.search import SEARCHES, learn
from bnexplore.search.credible import credible_set
from bnexplore_app import jobs
from bnexplore_app.state import has_blanks, score_label


@dataclass
class SearchInput:
    """What a search gets: the data in use and the Tune page's settings.

    Attributes
    ----------
    dataset : Dataset
    settings : dict
        ``score``, ``ess``, ``bf``, ``max_indegree``.
    class_column : str or None
    frame : pandas.DataFrame or None
        The raw table (columns left out on the Data page removed), for
        searches that discretize by themselves (BNKL).
    discretize : dict or None
        The Data page's discretization of each numeric column.
    knowledge : bnexplore.knowledge.Knowledge or None
        What the user knows (required / forbidden arcs, tiers), from the Tune page.
    encoder_options : dict or None
        The Data page's encoder options (``missing``, ``types``, ...) that made ``dataset`` from ``frame``.
    em : dict or None
        Structural EM's options (``em_iterations``, ``completions``: :data:`bnexplore.search.registry.EM_OPTIONS`)
        for data that keep blank cells.
    """

    dataset: object
    settings: dict
    class_column: str | None = None
    frame: object = None
    discretize: dict | None = None
    knowledge: object = None
    encoder_options: dict | None = None
    em: dict | None = None

    def scorer(self):
        """A fresh Scorer for this run (the thread owns it: no sharing across threads)."""
        return Scorer(self.dataset, score=self.settings["score"], ess=self.settings["ess"])


@dataclass
class Algorithm:
    """One search the app can run.

    Attributes
    ----------
    key : str
        Short name, used in result names ("hc").
    label : str
        Name in the picker.
    about : str
        One sentence on what it does.
    run : callable
        ``run(inputs, options, control) -> Result`` (or ``(Result, extras)``,
        where ``extras`` are objects the pages keep beside the result);
        called in the background thread.
    options : callable, optional
        ``options(prefix) -> dict`` draws the algorithm's own widgets (keys
        starting with ``prefix``) and returns their values.
    replay : bool
        Its trajectory can be replayed step by step (teaching mode).
    needs_class : bool
        Needs a two-class column (chosen on the Data page).
    describe : callable, optional
        ``describe(settings, options) -> str``: the settings that go into the
        result's name (default: the score, "BDeu(1)").
    own_score : bool
        Scores networks by a measure of its own (BNKL's KL), not the Tune
        page's score: left out of the Search page's score chart.
    """

    key: str
    label: str
    about: str
    run: object
    options: object = None
    replay: bool = False
    needs_class: bool = False
    describe: object = None
    own_score: bool = False

    def settings_text(self, settings, options):
        """What the result's name says about the settings ("BDeu(1)", "BIC · BF 20", "KL · bic rule")."""
        if self.describe is not None:
            return self.describe(settings, options)
        return score_label(settings["score"], settings.get("ess"))


REGISTRY = {}


def register(algorithm):
    """Add an algorithm to the Search page."""
    REGISTRY[algorithm.key] = algorithm
    return algorithm


def available(has_class, blank=False):
    """Algorithms that can run on the data in use; on data that keep blank cells (``blank``), only the searches
    that can be structural EM's step (the registry's ``expected_counts``)."""
    return {key: alg for key, alg in REGISTRY.items()
            if (has_class or not alg.needs_class) and (not blank or learns_by_em(key))}


def learns_by_em(key):
    """True when the search ``key`` can learn from data with blank cells (as structural EM's step)."""
    return key in SEARCHES and SEARCHES[key].expected_counts


def not_on_blanks(has_class):
    """``{why: [short label, ...]}`` of the algorithms the app offers on complete data but not on data with
    blank cells (the label up to its first parenthesis or colon: "PC-stable", "Credible set")."""
    out = {}
    for key, alg in available(has_class).items():
        if not learns_by_em(key):
            why = ("structural EM cannot run them: they read complete rows themselves" if key in SEARCHES
                   else "they need complete rows")
            out.setdefault(why, []).append(re.split(r" \(|:", alg.label)[0])
    return out


def _max_indegree(inputs):
    value = inputs.settings.get("max_indegree")
    return None if value in (None, 0) else int(value)


def _search(spec):
    """The ``run`` of a registered search: its function on the Scorer of the data in use (each search checks
    the knowledge before any work); on data that keep blank cells, structural EM with it as the step
    (:func:`bnexplore.search.learn` with ``missing="em"``), its network's tables fitted by EM and the data
    completed by them (:func:`bnexplore.em.impute`) in the same background run."""
    def run(inputs, options, control):
        if has_blanks(inputs.dataset):
            result = learn(inputs.dataset, spec.name, score=inputs.settings["score"], ess=inputs.settings["ess"],
                           missing="em", max_indegree=_max_indegree(inputs), knowledge=inputs.knowledge,
                           control=control, **(inputs.em or {}), **options)
            fitted = em_fit(result.graph, inputs.dataset)  # the Networks page's tables (views.fit), made here
            return result, {"fitted": fitted, "completed": impute(fitted, inputs.dataset)}
        return spec.function(inputs.scorer(), max_indegree=_max_indegree(inputs), knowledge=inputs.knowledge,
                             control=control, **options)
    return run


def option_widgets(spec):
    """The default widgets of a search's options: one per option whose registry entry has a ``label``.

    Parameters
    ----------
    spec : bnexplore.search.SearchSpec

    Returns
    -------
    callable or None
        ``options(prefix) -> dict`` (widget keys ``prefix + option name``), or None when no option is offered.
    """
    shown = [option for option in spec.options if option.label is not None]
    if not shown:
        return None

    def draw(prefix):
        values = {}
        for option in shown:
            key = f"{prefix}{option.name}"
            if option.kind == "choice":
                values[option.name] = st.selectbox(option.label, option.choices, key=key, help=option.help,
                                                   index=option.choices.index(option.default))
            elif option.kind == "text":
                values[option.name] = st.text_input(option.label, key=key, help=option.help) or None
            else:
                low, high, start = option.widget
                number = st.number_input(option.label, low, high, start, key=key, help=option.help)
                values[option.name] = float(number) if option.kind == "float" else int(number)
        return values

    return draw


def _tabu_options(prefix):
    length = st.number_input("Tabu list length (0 = n, the paper's default)", 0, 1000, 0, key=f"{prefix}length")
    iterations = st.number_input("Iterations (0 = n(n−1), the paper's default)", 0, 100000, 0,
                                 key=f"{prefix}iterations")
    return {"tabu_length": int(length) or None, "iterations": int(iterations) or None}


def _ordering_options(prefix):
    split = st.checkbox("Split the time limit itself", True, key=f"{prefix}split",
                        help="Hill climbing first (until it reaches its best graph), then half of what is left to "
                             "find candidate parent sets, the rest to climb over orderings. Untick to fix the "
                             "time spent finding candidate sets per variable.")
    options = {} if split else {
        "time_per_variable": float(st.number_input("Seconds per variable to find candidate parent sets", 0.05,
                                                   60.0, 0.2, step=0.1, key=f"{prefix}seconds"))}
    restarts = st.number_input("Random orderings (0 = until the time limit)", 0, 10000, 0, key=f"{prefix}restarts",
                               help="Climbs from random orderings after the one from hill climbing's order; 0 "
                                    "climbs them until the time limit.")
    seed = st.number_input("Seed", 0, 10**6, 1, key=f"{prefix}seed")
    return {**options, "restarts": int(restarts) or None, "seed": int(seed)}


WIDGETS = {"tabu": _tabu_options, "rpdag-tabu": _tabu_options, "obs": _ordering_options, "asobs": _ordering_options}
"""Searches whose options the default widgets cannot draw: 0 standing for the paper's default (tabu), a time
limit the search splits itself unless unticked and 0 orderings standing for "until the time limit" (OBS, ASOBS)."""

TEST_LABELS = {"g2": "G²", "chi2": "X²", "mi-perm": "MI permutation"}
"""How a result's name writes its independence test."""


def _tests_text(options):
    """The independence test and level of a constraint-based run, as its name says them ("G² α 0.05")."""
    test = options.get("test", "g2")
    return f"{TEST_LABELS.get(test, test)} α {options.get('alpha', 0.05):g}"


DESCRIBE = {
    "pc": lambda settings, options: _tests_text(options),  # PC learns from tests alone: the score only rates it
    "mmhc": lambda settings, options: f"{_tests_text(options)} · "
                                      f"{score_label(settings['score'], settings.get('ess'))}",
}
"""What the names of results of the searches that use independence tests say about their settings."""

for _spec in SEARCHES.values():
    register(Algorithm(_spec.name, _spec.label, _spec.description, _search(_spec),
                       WIDGETS.get(_spec.name, option_widgets(_spec)), replay=_spec.replay is not None,
                       describe=DESCRIBE.get(_spec.name)))


def _credible_options(prefix):
    limit = st.number_input("Most networks to collect", 1000, 1_000_000, 150_000, step=10_000,
                            key=f"{prefix}limit",
                            help="When more credible networks exist, the best ones are kept: every network "
                                 "within a smaller Bayes factor, which the result states.")
    return {"limit": int(limit)}


def _run_credible(inputs, options, control):
    found = credible_set(inputs.scorer(), bf=inputs.settings["bf"], max_indegree=_max_indegree(inputs),
                         knowledge=inputs.knowledge, control=control, **options)
    result = found.best_result()
    result.algorithm = "credible"
    return result, {"credible": found}


register(Algorithm(
    "credible", "Credible set: every network within the Bayes factor of the best",
    "Finds the optimum exactly, then every DAG whose score is within ln(BF) of it (BF from the Tune page), "
    "groups them into equivalence classes and averages over them (Liao et al. 2019).",
    _run_credible, _credible_options,
    describe=lambda settings, options: f"{score_label(settings['score'], settings.get('ess'))} · BF {settings['bf']:g}"))


def _bnkl_settings(settings):
    """The two-class score settings of the Tune page, as the BNKL search takes them."""
    return {"max_parents": int(settings.get("kl_max_parents", 2)), "select": settings.get("kl_select", "bic"),
            "class0": settings.get("kl_class0")}


def class_blanks(dataset, class_column):
    """Rows of ``dataset`` whose class is blank (the ``<missing>`` state), as a boolean mask."""
    i = dataset.index(class_column)
    if dataset.states[i][-1] != MISSING_LABEL:
        return np.zeros(dataset.n_rows, dtype=bool)
    return dataset.codes[:, i] == dataset.arities[i] - 1


def bnkl_rows(dataset, class_column):
    """How many rows BNKL learns from: the rows in use whose class is not blank."""
    return int(dataset.n_rows - class_blanks(dataset, class_column).sum())


def rows_in_use(inputs):
    """Positions in ``inputs.frame`` of the rows BNKL learns from: the rows of the data in use (the Data
    page's *Missing values: drop* leaves out rows with a blank cell) whose class is not blank.

    Which rows the encoder dropped is read the encoder's own way: the table is encoded once more with
    missing values as a state, and the rows with that state in some column are the dropped ones.
    """
    n = len(inputs.frame)
    options = dict(inputs.encoder_options or {})
    rows = np.arange(n)
    if options.get("missing") == "drop":
        probe = Encoder(**{**options, "missing": "state",  # the missing state is one more level
                           "max_levels": options.get("max_levels", 50) + 1}).fit_transform(inputs.frame)
        blank = np.zeros(n, dtype=bool)
        for i in range(probe.n_vars):
            if probe.states[i][-1] == MISSING_LABEL:
                blank |= probe.codes[:, i] == probe.arities[i] - 1
        rows = np.flatnonzero(~blank)
    if len(rows) != inputs.dataset.n_rows:
        raise SearchError(f"the rows in use ({inputs.dataset.n_rows:,}) and the table's rows without a blank cell "
                          f"({len(rows):,}) differ; load the data again on the Data page")
    return rows[~class_blanks(inputs.dataset, inputs.class_column)]


def _bnkl_options(prefix):
    options = _bnkl_settings(st.session_state["settings"])
    reference = "" if options["class0"] is None else f", reference class {options['class0']}"
    column = st.session_state["class_column"]
    used, whole = bnkl_rows(st.session_state["dataset"], column), len(st.session_state["table"].frame)
    left_out = (f" (of the file's {whole:,}: the rows with a blank cell or no class are left out)"
                if used != whole else "")
    st.caption(f"Runs on the {used:,} rows in use{left_out}, class column {column}. Largest parent set "
               f"M = {options['max_parents']}, network picked by the {options['select']} rule{reference}: set them "
               "under *Two-class score* on the Tune page.")
    return {}


def _run_bnkl(inputs, options, control):
    if inputs.knowledge:
        raise SearchError("BNKL does not take knowledge: its variable order comes from the class-difference "
                          "tests (Balov 2013), and arcs follow that order; clear the knowledge on the Tune page "
                          "to run it")
    frame = inputs.frame.iloc[rows_in_use(inputs)].reset_index(drop=True)
    discretize = {k: v for k, v in (inputs.discretize or {}).items() if k != inputs.class_column} or "uniform3"
    found = bnkl(frame, inputs.class_column, discretize=discretize, control=control,
                 missing_values=(inputs.encoder_options or {}).get("missing_values"),
                 **_bnkl_settings(inputs.settings), **options)
    return found.to_result(), {"bnkl": found, "frame": frame, "class_column": inputs.class_column}


register(Algorithm(
    "bnkl", "BNKL: which dependencies differ between the two classes (Balov 2013)",
    "One network for both classes, chosen so that its conditional tables differ most between the classes "
    "(Kullback-Leibler divergence per degree of freedom); arcs carry the class difference.",
    _run_bnkl, _bnkl_options, needs_class=True, own_score=True,
    describe=lambda settings, options: f"KL · {_bnkl_settings(settings)['select']} rule"))


def _bootstrap_options(prefix):
    names = {key: spec.label for key, spec in SEARCHES.items()}
    algorithm = st.selectbox("Search run on every resample", list(names), format_func=names.get,
                             key=f"{prefix}algorithm", help="Any search, with its options' defaults; hill "
                             "climbing is the quickest, exact the slowest.")
    resamples = st.number_input("Resamples R", 10, 2000, 200, step=10, key=f"{prefix}R",
                                help="Each resample draws as many rows as the data have, with replacement, and "
                                     "learns a network on them; 200 is bnlearn's usual choice.")
    seed = st.number_input("Seed", 0, 10**6, 1, key=f"{prefix}seed", help="The same seed gives the same strengths.")
    return {"algorithm": algorithm, "R": int(resamples), "seed": int(seed)}


def _run_bootstrap(inputs, options, control):
    every = os.cpu_count() or 1
    with jobs.cores(every) as workers:  # the server's idle cores only; all of them: let the bootstrap decide
        found = bootstrap(inputs.dataset, score=inputs.settings["score"], ess=inputs.settings["ess"],
                          max_indegree=_max_indegree(inputs), knowledge=inputs.knowledge, control=control,
                          workers=None if workers >= every else workers, **options)
    averaged = found.averaged()
    scorer = inputs.scorer()
    dag = averaged.dag()
    result = Result(graph=dag, score=scorer.total(dag), score_name=scorer.score_name, algorithm="bootstrap",
                    params={**dict(scorer.params), **found.params, "threshold": averaged.threshold},
                    stats={**found.stats, "edges": dag.n_edges},
                    extra={"bootstrap": found.to_json(full=True)})
    return result, {"bootstrap": found}



register(Algorithm(
    "bootstrap", "Bootstrap: how sure is each arc (arc strength)",
    "Learns a network on each of R resamples of the rows and counts how often each pair is joined and in which "
    "direction (bnlearn's arc strength); keeps the arcs above an estimated threshold (the averaged network).",
    _run_bootstrap, _bootstrap_options,
    describe=lambda settings, options: f"{score_label(settings['score'], settings.get('ess'))} · "
                                       f"{options.get('algorithm', 'hc')} × {options.get('R', 200)}"))
