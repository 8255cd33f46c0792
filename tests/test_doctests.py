"""The Examples section of every public function of ``bnexplore.__all__`` runs and shows what it says.

Each function's own docstring is collected with :class:`doctest.DocTestFinder` (not its module's other
docstrings) and run, as ``python -m doctest`` would, in a copy of its module's namespace (plus
``bnexplore`` as ``bx``). A function
without an Examples section, or none of whose examples that run calls it (all skipped, or only
imports), fails: an example nobody runs goes stale.
"""

import doctest
import inspect
import os

import pytest

import bnexplore

FUNCTIONS = sorted(name for name in bnexplore.__all__ if inspect.isfunction(getattr(bnexplore, name)))
"""The public functions (classes are documented on their methods)."""

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def examples_of(name):
    """The doctest of the function ``bnexplore.<name>``'s own docstring (None when it has no example)."""
    function = getattr(bnexplore, name)
    globs = {**function.__globals__, "bx": bnexplore}
    tests = doctest.DocTestFinder(recurse=False).find(function, name=f"bnexplore.{name}", globs=globs)
    return tests[0] if tests and tests[0].examples else None


def test_there_are_public_functions_to_check():
    assert {"learn", "read_csv", "bootstrap", "query", "load_session", "save_session"} <= set(FUNCTIONS)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_the_examples_of_a_public_function_run(name, monkeypatch):
    monkeypatch.chdir(ROOT)  # examples name files as a reader in the clone would: sample_data/asia.csv
    function = getattr(bnexplore, name)
    assert "Examples\n" in inspect.getdoc(function), f"bnexplore.{name} has no Examples section"
    test = examples_of(name)
    assert test is not None, f"bnexplore.{name}: its Examples section holds no example"
    skip = doctest.OPTIONFLAGS_BY_NAME["SKIP"]
    run = [example.source for example in test.examples if not example.options.get(skip)]
    calls = [source for source in run if f"{function.__name__}(" in source or f"{name}(" in source]
    assert calls, f"bnexplore.{name}: no example that runs calls it (all skipped or only imports)"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
