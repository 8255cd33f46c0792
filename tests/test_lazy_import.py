"""``import bnexplore`` loads no heavy dependency; every public name still loads on first use.

The count of modules, not a stopwatch: what a fresh interpreter has in ``sys.modules`` after the
import is the same on every machine.
"""

import importlib
import json
import pkgutil
import subprocess
import sys

import pytest

import bnexplore

HEAVY = ("numba", "pandas", "scipy", "scipy.stats", "dask", "distributed", "pyscipopt", "pyarrow", "streamlit")
"""What a bare ``import bnexplore`` must not load: each is loaded by the functions that use it."""


def loaded_after(code):
    """The modules of :data:`HEAVY` a fresh interpreter holds after running ``code``."""
    probe = f"import json, sys\n{code}\nprint(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_import_bnexplore_loads_no_heavy_dependency():
    assert loaded_after("import bnexplore") == []


def test_the_probe_sees_a_heavy_dependency_once_a_name_that_needs_it_is_used():
    # read_csv no longer loads pandas on its own (it loads where a table is read); a BNKL result holds frames
    assert "pandas" in loaded_after("import bnexplore; bnexplore.BNKLResult")


def test_every_public_name_loads_as_an_attribute_and_through_from_import():
    names = bnexplore.__all__
    assert len(names) == len(set(names)) > 30
    for name in names:
        home = importlib.import_module(f"bnexplore.{bnexplore.HOME[name]}")
        assert getattr(bnexplore, name) is getattr(home, name), name
    namespace = {}
    exec(f"from bnexplore import {', '.join(names)}", namespace)
    assert all(namespace[name] is getattr(bnexplore, name) for name in names)
    assert set(names) <= set(dir(bnexplore))


def test_a_function_keeps_its_name_when_the_module_of_the_same_name_loads():
    """``bnexplore.bootstrap`` and ``bnexplore.bnkl`` are functions, also after their modules load."""
    code = ("import bnexplore.bootstrap, bnexplore.bnkl, bnexplore\n"
            "print(json.dumps([callable(bnexplore.bootstrap) and bnexplore.bootstrap.__name__,"
            " callable(bnexplore.bnkl) and bnexplore.bnkl.__name__]))\n")
    done = subprocess.run([sys.executable, "-c", "import json\n" + code], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == ["bootstrap", "bnkl"]


def test_an_unknown_name_is_an_attribute_error():
    try:
        bnexplore.no_such_name
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("bnexplore.no_such_name did not raise")


@pytest.mark.parametrize("package", ["bnexplore.search", "bnexplore.scores"])
def test_no_public_name_of_a_subpackage_is_also_one_of_its_modules(package):
    """A submodule loading binds its name on the package, which would replace a function of that name
    (``bnexplore`` itself guards against it; its subpackages avoid such names)."""
    module = importlib.import_module(package)
    submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
    assert not set(module.HOME) & submodules
