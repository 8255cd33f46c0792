"""Public names a package loads from their modules on first use (PEP 562): the one loader of every such package.

``import bnexplore`` (and ``bnexplore.scores``, ``bnexplore.search``) must not pay
for numba, pandas or SCIP before a name that needs them is asked for: the CLI's
``--help`` and the registries' tables load nothing heavy. A package lists which
module holds each of its public names; :func:`lazy_exports` gives it the module
``__getattr__`` and ``__dir__`` that import a name's module when the name is
first read and keep the value in the package, so later reads are plain lookups.

Examples
--------
>>> import sys, types
>>> package = types.ModuleType("demo_package")
>>> sys.modules["demo_package"] = package
>>> home, names, getattr_, dir_ = lazy_exports("demo_package", {"json": ["dumps"]})
>>> home, names
({'dumps': 'json'}, ['dumps'])
"""

import importlib
import sys


def lazy_exports(package, exports):
    """The lazy loader of a package's public names.

    Parameters
    ----------
    package : str
        The package's ``__name__`` (it is being imported: ``sys.modules`` holds it).
    exports : dict
        Module name, relative to the package -> the public names it holds.

    Returns
    -------
    home : dict
        Public name -> the module it lives in.
    names : list of str
        The sorted public names (the package's ``__all__``).
    __getattr__, __dir__ : callable
        For the package's namespace (PEP 562).

    Examples
    --------
    In a package's ``__init__.py``::

        HOME, __all__, __getattr__, __dir__ = lazy_exports(__name__, {"scorer": ["Scorer"]})
    """
    home = {name: module for module, names in exports.items() for name in names}
    namespace = sys.modules[package].__dict__

    def __getattr__(name):
        """Load a public name from its module the first time it is asked for (PEP 562)."""
        if name not in home:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home[name]}"), name)
        namespace[name] = value
        return value

    def __dir__():
        return sorted({*namespace, *home})

    return home, sorted(home), __getattr__, __dir__
