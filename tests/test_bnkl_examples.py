"""The Examples of bnexplore.bnkl and bnexplore.classifier run as doctests, and bnkl and cross_validate have one."""

import doctest
import importlib

import pytest

from bnexplore.bnkl import bnkl
from bnexplore.classifier import cross_validate

MODULES = ["bnexplore.bnkl.classes", "bnexplore.bnkl.path", "bnexplore.bnkl.search", "bnexplore.classifier"]


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_run(name):
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    examples = 0
    for test in doctest.DocTestFinder(exclude_empty=True).find(module, name):
        examples += len(test.examples)
        runner.run(test)
    assert examples > 0 and runner.summarize(verbose=False).failed == 0


@pytest.mark.parametrize("function", [bnkl, cross_validate])
def test_the_public_functions_have_examples(function):
    (test,) = doctest.DocTestFinder(recurse=False).find(function)
    assert test.examples, f"{function.__name__} has no Examples"
