"""The search registry (bnexplore.search.SEARCHES) and the doors that derive from both registries: every
search's signature, the command line's names and flags, the app's algorithm picker, score picker and option
widgets, the replay, and the Examples of learn and candidate_parent_sets run as doctests."""

import doctest
import inspect
import json
import sys
from pathlib import Path

import pytest

from bnexplore import cli
from bnexplore.parents import pruning
from bnexplore.result import Result
from bnexplore.scores import SCORES, Scorer
from bnexplore.search import COMMON, SEARCHES, learn
from bnexplore.search import registry as searches
from bnexplore.search.hillclimb import hill_climb

ROOT = Path(__file__).resolve().parent.parent
ASIA = str(ROOT / "sample_data" / "asia.csv")
APP_ANALYSES = ("credible", "bnkl", "bootstrap")
"""What the Search page offers besides the registered searches: analyses with commands of their own
(``enumerate``, ``bnkl``, ``learn --bootstrap``), not searches ``learn`` runs."""


# -- the registry itself ----------------------------------------------------------

@pytest.mark.parametrize("name", list(SEARCHES))
def test_every_registered_search_takes_knowledge_control_and_time_limit(name):
    spec = SEARCHES[name]
    parameters = inspect.signature(spec.function).parameters
    assert {"knowledge", "control", "time_limit"} <= set(parameters)
    assert set(COMMON) <= set(parameters)
    assert spec.knowledge
    for option in spec.options:  # each option is a keyword of the function, with the registered default
        assert option.name in parameters, f"{name} does not take {option.name}"
        assert parameters[option.name].default == option.default, (name, option.name)


def test_options_of_one_name_agree_across_searches():
    for name, option in searches.options().items():
        kinds = {spec.option(name).kind for spec in SEARCHES.values() if spec.option(name) is not None}
        assert kinds == {option.kind}, name


def test_learn_checks_the_registered_options_naming_them():
    from bnexplore.data import read_csv
    from bnexplore.errors import OptionError

    data = read_csv(ASIA).subset(slice(0, 200))
    with pytest.raises(OptionError, match="restarts must be a whole number >= 0, got -1"):
        learn(data, "hc", restarts=-1)
    with pytest.raises(OptionError, match="workers must be a whole number >= 1"):
        learn(data, "asobs", workers=0)


# -- the command line -------------------------------------------------------------

def learn_parser():
    parser = cli.build_parser()
    commands = next(a for a in parser._actions if a.dest == "command")
    return commands.choices["learn"]


def action(parser, flag):
    return next(a for a in parser._actions if flag in a.option_strings)


def test_cli_help_offers_exactly_the_registered_names():
    parser = learn_parser()
    assert action(parser, "--algorithm").metavar == "{" + ",".join(SEARCHES) + "}"
    assert action(parser, "--score").metavar == "{" + ",".join(SCORES) + "}"
    helps = action(parser, "--algorithm").help
    assert all(f"{name}: {spec.label}" in helps for name, spec in SEARCHES.items())
    flags = {flag for a in parser._actions for flag in a.option_strings}
    assert {option.flag for option in searches.options().values()} <= flags
    assert action(parser, "--engine").choices == SEARCHES["exact"].option("engine").choices


@pytest.mark.parametrize("name", list(SEARCHES))
def test_cli_learns_with_every_registered_search(capsys, tmp_path, name):
    extra = ["--time-per-variable", "0.02", "--seed", "1"] if SEARCHES[name].option("time_per_variable") else []
    out = tmp_path / "r.json"
    code = cli.main(["learn", ASIA, "--algorithm", name, "--score", "bic", "--max-indegree", "2", "--quiet",
                     "--json", str(out), *extra])
    assert code == 0, capsys.readouterr().err
    assert json.loads(out.read_text())["algorithm"] == name


@pytest.mark.parametrize("name", list(SCORES))
def test_cli_scores_with_every_registered_score(capsys, name):
    assert cli.main(["score", ASIA, "--score", name.upper(), "--arcs", "smoke->lung"]) == 0
    assert json.loads(capsys.readouterr().out)["score_name"] == name


@pytest.mark.parametrize("args, message", [
    (["learn", ASIA, "--algorithm", "fges"], "unknown algorithm 'fges': choose one of " + ", ".join(SEARCHES)),
    (["learn", ASIA, "--score", "mdl"], "unknown score 'mdl': choose one of " + ", ".join(SCORES)),
    (["learn", ASIA, "--algorithm", "tabu", "--restarts", "2"], "--restarts applies to --algorithm hc, obs, asobs "
                                                                 "only, not tabu"),
    (["learn", ASIA, "--algorithm", "hc", "--tabu-length", "3"], "--tabu-length applies to --algorithm tabu, "
                                                                  "rpdag-tabu only, not hc"),
    (["learn", ASIA, "--algorithm", "tabu", "--iterations", "-1"], "--iterations must be a whole number >= 0"),
])
def test_cli_refuses_what_the_registry_does_not_have(capsys, args, message):
    assert cli.main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err


def test_cli_passes_a_registered_option_on(capsys, tmp_path):
    out = tmp_path / "t.json"
    assert cli.main(["learn", ASIA, "--algorithm", "tabu", "--tabu-length", "3", "--iterations", "5", "--quiet",
                     "--json", str(out)]) == 0
    params = json.loads(out.read_text())["params"]
    assert params["tabu_length"] == 3 and params["iterations"] == 5


# -- the pruning rules follow the score registry ------------------------------------

def test_every_pruning_rule_a_score_names_exists():
    for spec in SCORES.values():
        assert set(spec.pruning_rules) <= set(pruning.RULES)


# -- the replay ------------------------------------------------------------------

def test_replay_kind_comes_from_the_registry():
    from bnexplore.data import read_csv
    from bnexplore_app import replay

    data = read_csv(ASIA).subset(slice(0, 500))
    for name in ("hc", "rpdag"):
        assert replay.kind(learn(data, name)) == SEARCHES[name].replay
    result = hill_climb(Scorer(data))
    renamed = Result.from_json({**result.to_json(), "algorithm": "exact"})  # the same steps, another search
    assert replay.kind(result) == "dag" and replay.kind(renamed) is None
    assert replay.kind(Result.from_json({**result.to_json(), "algorithm": ["hc"]})) is None  # a hostile import
    assert replay.replayable() == [spec.label for spec in SEARCHES.values() if spec.replay]


# -- the app ---------------------------------------------------------------------

def test_app_offers_exactly_the_registered_searches_and_scores():
    from test_app import go, new_session

    from bnexplore_app import algorithms

    at = new_session()
    go(at, "3_Search")
    assert any(SEARCHES["rpdag-tabu"].label in info.value for info in at.info)  # what can be replayed
    picker = at.multiselect(key="keep.search_algorithms")
    searched = [label for label in picker.options
                if label not in {algorithms.REGISTRY[k].label for k in APP_ANALYSES}]
    assert searched == [spec.label for spec in SEARCHES.values()]
    assert set(algorithms.REGISTRY) == set(SEARCHES) | set(APP_ANALYSES)
    picker.set_value(["hc", "bootstrap"])
    at.run()
    assert at.number_input(key="keep.search_hc_restarts").label == SEARCHES["hc"].option("restarts").label
    assert at.number_input(key="keep.search_hc_seed").value == SEARCHES["hc"].option("seed").widget[2]
    resample = at.selectbox(key="keep.search_bootstrap_algorithm")
    assert resample.options == [spec.label for spec in SEARCHES.values()]
    go(at, "2_Tune")
    score = at.radio(key="tune_score")
    assert score.options == [f"{spec.label} — {spec.description}" for spec in SCORES.values()]
    score.set_value("aic")
    at.run()
    assert not at.exception
    assert [w.key for w in at.number_input if w.key == "tune_ess"] == []  # AIC has no hyperparameter
    at.radio(key="tune_score").set_value("bdeu")
    at.run()
    assert at.number_input(key="tune_ess").label == "Equivalent sample size (ESS)"


# -- Examples that run --------------------------------------------------------------

@pytest.mark.parametrize("function", [learn, pruning.candidate_parent_sets])
def test_examples_run(function):
    finder = doctest.DocTestFinder(recurse=False)
    (test,) = finder.find(function, globs={function.__name__: function})
    assert test.examples, f"{function.__name__} has no Examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_names_from_files_that_are_not_text_are_no_score():
    """A session or an imported result may hold any JSON where a score name belongs; the registry's table
    is a dict, so every reader asks whether the name is text before looking it up."""
    from bnexplore.errors import DataError
    from bnexplore.session import Session
    from bnexplore_app import state

    assert state.score_label(["bdeu"]) == "['bdeu']" and state.score_label("bdeu", 2) == "BDeu(2)"
    session = Session(source={"kind": "bundled", "name": "asia"}, encoding={}, class_column=None,
                      settings={"score": {"bdeu": 1}}, knowledge=None, results=[], app={})
    with pytest.raises(DataError, match="settings.score must be one of " + ", ".join(SCORES)):
        Session.loads(session.dumps())


def test_default_widgets_draw_every_kind_of_option():
    """A new search's options get widgets from their registry entries alone: numbers, choices and text."""
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from bnexplore.search.registry import Option, SearchSpec
        from bnexplore_app.algorithms import option_widgets

        spec = SearchSpec("made-up", None, "Made up", "For the test.", (
            Option("steps", "int", 3, "steps taken", label="Steps", widget=(0, 10, 3)),
            Option("seconds", "float", None, "seconds spent", label="Seconds", widget=(0.5, 9.5, 1.5)),
            Option("engine", "choice", "b", "the engine", choices=("a", "b"), label="Engine"),
            Option("address", "text", None, "an address", label="Address"),
            Option("hidden", "int", 0, "not offered in the app")))
        st.session_state["values"] = option_widgets(spec)("x_")

    main = sys.modules["__main__"]
    try:
        at = AppTest.from_function(script, default_timeout=60).run()
        assert not at.exception
        assert at.session_state["values"] == {"steps": 3, "seconds": 1.5, "engine": "b", "address": None}
        assert at.number_input(key="x_steps").label == "Steps" and at.selectbox(key="x_engine").options == ["a", "b"]
        at.text_input(key="x_address").set_value("tcp://host:8786")
        at.selectbox(key="x_engine").set_value("a")
        at.number_input(key="x_steps").set_value(7)
        at.run()
        assert at.session_state["values"] == {"steps": 7, "seconds": 1.5, "engine": "a",
                                              "address": "tcp://host:8786"}
    finally:  # AppTest leaves its temporary script as __main__, where spawned worker processes would start
        sys.modules["__main__"] = main


def test_the_registries_load_no_search_so_the_command_line_starts_fast():
    """Reading both tables and building every command's flags loads neither numba nor pandas (counted in a
    fresh interpreter, not timed); the choices the registry keeps for that are the searches' own."""
    import subprocess

    from bnexplore.parents.explore import METHODS
    from bnexplore.search.engine import ENGINES

    probe = ("import json, sys\nfrom bnexplore import cli\ncli.build_parser()\n"
             "print(json.dumps([m for m in ('numba', 'pandas', 'scipy', 'pyarrow') if m in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[-1]) == []
    assert searches.ENGINES == ENGINES and searches.EXPLORERS == METHODS
