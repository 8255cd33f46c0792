"""The import structure of the library and the app, read from the source with ``ast``.

Every ``import`` counts, including those inside functions (an import moved
into a function still ties two modules together, it only hides the cycle
until run time). Checked on the whole tree:

- no import cycle among the modules of ``bnexplore/`` and ``bnexplore_app/``
  (the page scripts and ``app.py`` included);
- ``bnexplore/`` never imports Streamlit (the library has no UI code);
- no private name (``_x``) of one module is imported or read by another;
- every module of ``bnexplore/`` sits in one layer of :data:`LAYERS` and
  imports only from its own layer or lower ones (the cycle check keeps a
  layer's modules from needing each other both ways);
- every kernel of ``bnexplore/`` is declared with ``compiling.njit``, never numba's own decorator.

Each check is a function of the sources, so it is also run on small made-up
trees that break it (a check that cannot fail proves nothing).
"""

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent

LAYERS = [
    # foundations: messages, tolerances, thread counts, the garbage collector during searches, the lazy loader
    # of public names, the clock that leaves out numba's compiling
    ["bnexplore.errors", "bnexplore.numerics", "bnexplore.threads", "bnexplore.collector", "bnexplore.exports",
     "bnexplore.compiling"],
    # bounds on what a user or a file may ask for; the stop/time-limit object; bundled files
    ["bnexplore.options", "bnexplore.limits", "bnexplore.resources", "bnexplore.control", "bnexplore.bundled"],
    # graphs (DAG, PDAG, CPDAG, RPDAG and their algorithms)
    ["bnexplore.graphs"],
    # what a search reads and gives: data sets, background knowledge, results; the junction-tree kernels
    ["bnexplore.data", "bnexplore.knowledge", "bnexplore.result", "bnexplore.junction"],
    # networks with parameters (BIF), local scores, conditional independence tests
    ["bnexplore.bif", "bnexplore.scores", "bnexplore.independence"],
    # candidate parent sets; inference on a network; views; networks in other files and other libraries;
    # hand edits of a network, scored
    ["bnexplore.parents", "bnexplore.inference", "bnexplore.viz", "bnexplore.formats", "bnexplore.interop",
     "bnexplore.workbench"],
    # EM on incomplete data: expected counts on the junction tree, parameter EM, completions, imputation
    ["bnexplore.em"],
    # parent-set exploration on a Dask cluster
    ["bnexplore.distributed"],
    # structure searches and the BNKL classifier's search
    ["bnexplore.search", "bnexplore.bnkl"],
    # what runs searches: classifier, bootstrap, held-out likelihood, saved sessions
    ["bnexplore.classifier", "bnexplore.bootstrap", "bnexplore.heldout", "bnexplore.session"],
    # doors: the warm-up, the command line, the package's public names
    ["bnexplore.warmup", "bnexplore.cli_progress", "bnexplore.cli_networks", "bnexplore.cli_heldout", "bnexplore.cli_scores", "bnexplore.cli_edit",
     "bnexplore.cli_effects", "bnexplore.cli",
     "bnexplore.__main__", "bnexplore"],
    # the app
    ["bnexplore_app", "app_pages", "app"],
]
"""The layers of the code, lowest first: a module imports only from its layer or lower ones.
A name matches its own module and the modules under it (``bnexplore.search`` is the whole
search package, ``app_pages`` every page script); ``bnexplore`` matches only the package's
``__init__``, so a new library module must be placed here deliberately."""

ROOTS = ("bnexplore",)


def module_name(path, root=ROOT):
    """``bnexplore/search/__init__.py`` -> ``bnexplore.search``; ``app_pages/1_Data.py`` -> ``app_pages.1_Data``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def project_sources(root=ROOT):
    """``{module: (path relative to root, source text)}`` of every module of the library, the app, its
    pages and ``app.py``."""
    paths = [*root.joinpath("bnexplore").rglob("*.py"), *root.joinpath("bnexplore_app").rglob("*.py"),
             *root.joinpath("app_pages").glob("*.py"), root / "app.py"]
    return {module_name(p, root): (p.relative_to(root), p.read_text(encoding="utf-8"))
            for p in sorted(paths) if p.exists()}


def target_of(module, path, node):
    """The absolute module name an ``ImportFrom`` node of ``module`` (file ``path``) reads from."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    return ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))


def imports(sources):
    """Every import of every module, at any depth: a list of ``(module, line, target, names)``.

    ``target`` is the absolute module name (relative imports resolved);
    ``names`` the names taken by ``from target import ...`` (empty for ``import``).
    """
    found = []
    for module, (path, text) in sources.items():
        for node in ast.walk(ast.parse(text, str(path))):
            if isinstance(node, ast.Import):
                found += [(module, node.lineno, alias.name, ()) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                found.append((module, node.lineno, target_of(module, path, node),
                              tuple(alias.name for alias in node.names)))
    return found


def own_module(name, sources):
    """The project module ``name`` is, or is in (``bnexplore.graphs.DAG`` -> ``bnexplore.graphs``); None outside."""
    while name and name not in sources:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(sources):
    """Directed graph of the modules: an edge ``a -> b`` (with the ``line``) when ``a`` imports from ``b``.

    ``from package import module`` is an edge to the module itself, not to the package.
    """
    graph = nx.DiGraph()
    graph.add_nodes_from(sources)
    for module, line, target, names in imports(sources):
        ends = [own_module(f"{target}.{name}", sources) if f"{target}.{name}" in sources else own_module(target, sources)
                for name in names] or [own_module(target, sources)]
        for end in ends:
            if end is not None and end != module:
                graph.add_edge(module, end, line=line)
    return graph


def cycles(sources):
    """Import cycles, each as ``"a -> b -> a"`` (the strongly connected parts, one cycle of each)."""
    graph = import_graph(sources)
    out = []
    for part in nx.strongly_connected_components(graph):
        if len(part) > 1:
            cycle = [a for a, _ in nx.find_cycle(graph.subgraph(part))]
            out.append(" -> ".join(cycle + cycle[:1]))
    return sorted(out)


def streamlit_imports(sources):
    """``path:line`` of every import of Streamlit in the library (``bnexplore/``)."""
    return [f"{sources[module][0]}:{line}" for module, line, target, _ in imports(sources)
            if module.split(".")[0] == "bnexplore" and target.split(".")[0] == "streamlit"]


def private(name):
    return name.startswith("_") and not name.startswith("__")


def private_uses(sources):
    """Private names of one project module used by another: ``from m import _x``, ``import m._x``
    and ``m._x`` on a name bound to another project module. A list of ``"module:line name"``."""
    out = []
    for module, line, target, names in imports(sources):
        owner = own_module(target, sources)
        if owner is None:
            continue
        for name in names or ():
            if private(name) and owner != module:
                out.append(f"{module}:{line} {target}.{name}")
        if not names and any(private(part) for part in target.split(".")):
            out.append(f"{module}:{line} {target}")
    for module, (path, text) in sources.items():
        tree = ast.parse(text, str(path))
        bound = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname and alias.name in sources:
                        bound[alias.asname] = alias.name
            elif isinstance(node, ast.ImportFrom):
                target = target_of(module, path, node)
                for alias in node.names:
                    full = f"{target}.{alias.name}"
                    if full in sources:
                        bound[alias.asname or alias.name] = full
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound
                    and private(node.attr) and bound[node.value.id] != module):
                out.append(f"{module}:{node.lineno} {bound[node.value.id]}.{node.attr}")
    return sorted(out)


def layer_of(module, layers=LAYERS):
    """Index of the layer holding ``module`` (the longest matching name), or None."""
    best, index = "", None
    for i, names in enumerate(layers):
        for name in names:
            matches = module == name or (module.startswith(name + ".") and name not in ROOTS)
            if matches and len(name) > len(best):
                best, index = name, i
    return index


def upward_imports(sources, layers=LAYERS):
    """Imports from a higher layer, and modules in no layer: a list of sentences."""
    out = [f"{module} is in no layer of LAYERS" for module in sources if layer_of(module, layers) is None]
    graph = import_graph(sources)
    for a, b, data in graph.edges(data=True):
        la, lb = layer_of(a, layers), layer_of(b, layers)
        if la is not None and lb is not None and lb > la:
            out.append(f"{a}:{data['line']} imports {b} (layer {lb}) from layer {la}")
    return sorted(out)


def numba_decorators(sources):
    """``module:line`` of every import of numba's ``njit`` or ``jit`` in the library outside ``compiling``.

    Kernels take ``njit`` from :mod:`bnexplore.compiling`, which sets numba's CPU target up first (without
    scipy.linalg); a kernel decorated with numba's own could load first and bring SciPy's BLAS back.
    """
    out = []
    for module, line, target, names in imports(sources):
        if module.split(".")[0] != "bnexplore" or module == "bnexplore.compiling" or target.split(".")[0] != "numba":
            continue
        if {"njit", "jit"} & set(names):
            out.append(f"{module}:{line}")
    for module, (path, text) in sources.items():
        if module.split(".")[0] != "bnexplore" or module == "bnexplore.compiling":
            continue
        for node in ast.walk(ast.parse(text, str(path))):
            if (isinstance(node, ast.Attribute) and node.attr in ("njit", "jit") and isinstance(node.value, ast.Name)
                    and node.value.id == "numba"):
                out.append(f"{module}:{node.lineno}")
    return sorted(out)


# -- the tree ---------------------------------------------------------------------------------------

SOURCES = project_sources()


def test_the_tree_is_read():
    assert {"bnexplore", "bnexplore.knowledge", "bnexplore.search", "bnexplore_app"} <= set(SOURCES)
    assert len(imports(SOURCES)) > 100


def test_no_import_cycle():
    assert cycles(SOURCES) == []


def test_the_library_never_imports_streamlit():
    assert streamlit_imports(SOURCES) == []


def test_no_private_name_crosses_modules():
    assert private_uses(SOURCES) == []


def test_every_module_imports_only_from_its_layer_or_lower():
    assert upward_imports(SOURCES) == []


def test_every_kernel_takes_njit_from_compiling():
    assert numba_decorators(SOURCES) == []


def test_knowledge_imports_only_errors_and_graphs():
    graph = import_graph(SOURCES)
    assert {b for b in graph.successors("bnexplore.knowledge")} <= {"bnexplore.errors", "bnexplore.graphs"}


# -- the checks fail on trees that break them -----------------------------------------------------

def fake(tmp_path, files):
    """A made-up tree: ``{relative path: source}`` written under ``tmp_path``, read as the project is."""
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return project_sources(tmp_path)


def test_a_cycle_hidden_in_a_function_is_found(tmp_path):
    sources = fake(tmp_path, {
        "bnexplore/__init__.py": "",
        "bnexplore/a.py": "from .b import g\n",
        "bnexplore/b.py": "def g():\n    from . import a\n    return a\n",
        "bnexplore/c.py": "from bnexplore import a, b\n"})
    assert cycles(sources) == ["bnexplore.a -> bnexplore.b -> bnexplore.a"]
    assert import_graph(sources).edges["bnexplore.b", "bnexplore.a"]["line"] == 2
    del sources["bnexplore.b"]
    assert cycles(sources) == []


def test_streamlit_in_the_library_is_found_even_in_a_function(tmp_path):
    sources = fake(tmp_path, {
        "bnexplore/__init__.py": "",
        "bnexplore/draw.py": "import numpy\n\ndef show():\n    import streamlit.components.v1 as c\n",
        "bnexplore_app/page.py": "import streamlit as st\n"})
    assert streamlit_imports(sources) == ["bnexplore/draw.py:4"]


def test_private_names_across_modules_are_found(tmp_path):
    sources = fake(tmp_path, {
        "bnexplore/__init__.py": "",
        "bnexplore/a.py": "def _helper():\n    pass\n\nx = _helper()\n",
        "bnexplore/b.py": "from .a import _helper\n",
        "bnexplore/c.py": "from . import a\n\ny = a._helper()\nz = a.__name__\n",
        "bnexplore/d.py": "import os\n\nw = os._exit\n",
        "bnexplore_app/__init__.py": "",
        "bnexplore_app/state.py": "def _types():\n    pass\n",
        "app_pages/1_Data.py": "from bnexplore_app import state\n\nstate._types()\n"})
    assert private_uses(sources) == ["app_pages.1_Data:3 bnexplore_app.state._types",
                                     "bnexplore.b:1 bnexplore.a._helper", "bnexplore.c:3 bnexplore.a._helper"]


def test_an_upward_import_and_a_module_in_no_layer_are_found(tmp_path):
    sources = fake(tmp_path, {
        "bnexplore/__init__.py": "from .search import learn\n",
        "bnexplore/errors.py": "",
        "bnexplore/knowledge.py": "from .errors import E\n\ndef f():\n    from .search import ALGORITHMS\n",
        "bnexplore/search/__init__.py": "from ..knowledge import f\n",
        "bnexplore/search/fresh.py": "from .. import errors\n",
        "bnexplore/stray.py": ""})
    assert upward_imports(sources) == ["bnexplore.knowledge:4 imports bnexplore.search (layer 8) from layer 3",
                                       "bnexplore.stray is in no layer of LAYERS"]
    assert layer_of("bnexplore.search.fresh") == layer_of("bnexplore.search") == 8
    assert layer_of("bnexplore") == len(LAYERS) - 2 and layer_of("bnexplore.anything_new") is None


@pytest.mark.parametrize("name", [name for names in LAYERS for name in names])
def test_every_layer_name_is_a_module_of_the_tree(name):
    """A layer naming a module that no longer exists is out of date."""
    assert name in SOURCES or any(module.startswith(name + ".") for module in SOURCES)


def test_a_kernel_decorated_by_numba_itself_is_found(tmp_path):
    sources = fake(tmp_path, {
        "bnexplore/__init__.py": "",
        "bnexplore/compiling.py": "import numba\n\nnjit = numba.njit\n",
        "bnexplore/a.py": "from numba import njit, prange\n",
        "bnexplore/b.py": "import numba\n\n@numba.njit(cache=True)\ndef f():\n    pass\n",
        "bnexplore/c.py": "from numba import prange\n\nfrom .compiling import njit\n"})
    assert numba_decorators(sources) == ["bnexplore.a:1", "bnexplore.b:3"]
