"""The Examples of bnexplore.bif run as doctests: every one in the package's modules, and the public functions
read_bif, write_bif, sample and fit_network each have one."""

import doctest
import importlib

import pytest

import bnexplore.bif
from bnexplore.bif import fit_network, read_bif, sample, write_bif

MODULES = ["bnexplore.bif", "bnexplore.bif.network", "bnexplore.bif.parse", "bnexplore.bif.write",
           "bnexplore.bif.sample", "bnexplore.bif.fit", "bnexplore.bif.source"]


def run_examples(module):
    """Failures and the number of examples of every docstring of ``module`` (not of what it imports)."""
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    examples = 0
    for test in finder.find(module, module.__name__):
        examples += len(test.examples)
        runner.run(test)
    return runner.summarize(verbose=False).failed, examples


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_of_every_module_run(name):
    failed, examples = run_examples(importlib.import_module(name))
    assert examples > 0 and failed == 0


@pytest.mark.parametrize("function", [read_bif, write_bif, sample, fit_network])
def test_the_public_functions_have_examples(function):
    (test,) = doctest.DocTestFinder(recurse=False).find(function)
    assert test.examples, f"{function.__name__} has no Examples"
    assert function is getattr(bnexplore.bif, function.__name__)
