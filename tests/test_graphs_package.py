"""The graphs package: its public names, its place at the bottom of the layers, its examples."""

import ast
import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import bnexplore.graphs as graphs

MODULES = sorted(m.name for m in pkgutil.iter_modules(graphs.__path__, "bnexplore.graphs."))


def test_every_public_name_of_the_old_module_is_importable_from_the_package():
    for name in ["PDAG", "DAG", "CPDAG", "RPDAG", "find_cycle", "is_acyclic", "pdag_extension", "mec_key",
                 "rpdag_key", "shd", "structural_errors"]:
        assert name in graphs.__all__
        assert callable(getattr(graphs, name))


@pytest.mark.parametrize("module", MODULES)
def test_a_graphs_module_imports_only_errors_and_its_own_package(module):
    """Graphs is the bottom layer: from bnexplore it may use only errors (and numerics), at any depth."""
    tree = ast.parse(Path(importlib.import_module(module).__file__).read_text())
    for node in ast.walk(tree):
        names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        for name in names:
            if name.split(".")[0] == "bnexplore":
                assert name in ("bnexplore.errors", "bnexplore.numerics") or name.startswith("bnexplore.graphs."), \
                    f"{module} imports {name}"
            assert name.split(".")[0] not in ("scipy", "streamlit"), f"{module} imports {name}"


@pytest.mark.parametrize("module", ["bnexplore.graphs"] + MODULES)
def test_the_examples_in_the_docstrings_run(module):
    failed, attempted = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert attempted > 0 and failed == 0
