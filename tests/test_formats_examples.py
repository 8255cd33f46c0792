"""Issue 36: the Examples of every module of :mod:`bnexplore.formats` run, and every format's reader, writer and
``looks_like`` has one (the registry's functions are not all in ``bnexplore.__all__``, which
tests/test_doctests.py covers)."""

import doctest
import importlib
import pkgutil

import pytest

import bnexplore.formats
from bnexplore.formats import FORMATS

MODULES = sorted(f"bnexplore.formats.{info.name}" for info in pkgutil.iter_modules(bnexplore.formats.__path__))


@pytest.mark.parametrize("name", ["bnexplore.formats", *MODULES])
def test_the_examples_of_every_module_run(name):
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    examples = 0
    for test in doctest.DocTestFinder(exclude_empty=True).find(module, name):
        examples += len(test.examples)
        runner.run(test)
    assert examples > 0 and runner.summarize(verbose=False).failed == 0


@pytest.mark.parametrize("spec", FORMATS.values(), ids=list(FORMATS))
def test_every_registered_function_has_an_example_that_calls_it(spec):
    module = importlib.import_module(spec.module)
    for name in (spec.reader, spec.writer, "looks_like"):
        function = getattr(module, name)
        if function.__module__ != spec.module:  # BIF's are bnexplore.bif's, whose own tests hold them
            continue
        (test,) = doctest.DocTestFinder(recurse=False).find(function)
        assert any(f"{name}(" in example.source for example in test.examples), f"{spec.module}.{name}"
