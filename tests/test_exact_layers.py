"""The exact engines' modules (issue 31): layered without cycles, SCIP loaded only where a search runs, no
private name or function-level import across them, and the remembered results held in explicit Memo objects."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from bnexplore.scores import Scorer
from bnexplore.search import credible, credible_set, ilp
from bnexplore.search.memo import Memo
from bnexplore.search.subsets import CandidateArrays
from bnexplore.control import Control
from bnexplore.parents.pruning import candidate_parent_sets
from test_pruning import dependent_data

SEARCH = Path(__file__).resolve().parent.parent / "bnexplore" / "search"
MODULES = ["subsets", "classes", "neighbours", "kbest", "memo", "cuts", "candidate_sets", "engine", "exact"]
PACKAGES = ["credible", "ilp"]
LAYERS = [{"subsets", "classes", "neighbours", "kbest", "memo", "cuts"}, {"candidate_sets"}, {"ilp"}, {"engine"},
          {"credible"}, {"exact"}]
"""Bottom up: a module imports only from the layers below its own (and from inside its own package)."""


def files():
    for name in MODULES:
        yield name, SEARCH / f"{name}.py"
    for package in PACKAGES:
        for path in sorted((SEARCH / package).glob("*.py")):
            yield package, path


def imports(path):
    """``(node, module, names, inside a function)`` of every ``from`` import, relative ones resolved within search."""
    tree = ast.parse(path.read_text())
    functions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    nested = {id(n) for f in functions for n in ast.walk(f) if n is not f}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            out.append((node, node.module or "", node.level, [a.name for a in node.names], id(node) in nested))
        elif isinstance(node, ast.Import):
            out.extend((node, a.name, 0, [], id(node) in nested) for a in node.names)
    return out


def search_modules(path, module, level, names):
    """The search-level modules (``subsets``, ``ilp``, ...) an import names; empty outside search and for a
    sibling in the same package."""
    depth = 1 if path.parent == SEARCH else 2   # a package's module sits one level deeper
    if level == 0:
        parts = module.split(".")
        return [parts[2]] if parts[:2] == ["bnexplore", "search"] and len(parts) > 2 else []
    if level == depth:
        return [module.split(".")[0]] if module else list(names)
    return []


def test_the_exact_modules_import_only_downwards_and_no_private_name():
    layer = {name: i for i, names in enumerate(LAYERS) for name in names}
    for owner, path in files():
        for node, module, level, names, inside in imports(path):
            for target in search_modules(path, module, level, names):
                if target != owner and target in layer:
                    assert layer[target] < layer[owner], f"{path.name}: {owner} imports {target} from a layer above"
            if level or module.startswith("bnexplore"):
                private = [n for n in names if n.startswith("_")]
                assert not private, f"{path.name} imports private {private} from {module}"
            if inside:
                scip_layer = level == 1 and module in ("model", "optimisation", "enumeration", "branch_and_cut")
                assert module == "pyscipopt" or scip_layer, f"{path.name}: function-level import of {module}"


def test_importing_bnexplore_and_the_engines_does_not_load_scip():
    code = ("import sys, bnexplore, bnexplore.search.exact, bnexplore.search.credible, bnexplore.search.ilp; "
            "print('pyscipopt' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=SEARCH.parent.parent)
    assert out.stdout.strip() == "False"


def test_a_credible_set_remembers_in_the_memo_it_is_given():
    """A set cut by the limit goes to the ``memo`` passed (not the process's), and only that memo answers the
    larger Bayes factor."""
    credible.LIMITED_SETS.clear()
    scorer = Scorer(dependent_data(3, 5, 30), "bic")
    mine = Memo(2)
    cut = credible_set(scorer, bf=20, limit=25, memo=mine)
    assert cut.truncated and len(mine) == 1 and len(credible.LIMITED_SETS) == 0
    assert credible_set(scorer, bf=150, limit=25, memo=mine).stats["reused_from_bf"] == pytest.approx(20)
    assert "reused_from_bf" not in credible_set(scorer, bf=150, limit=25, memo=Memo(2)).stats
    assert "reused_from_bf" not in credible_set(scorer, bf=150, limit=25).stats      # the process's memo was empty


def test_memo_keeps_the_last_ones_put():
    memo = Memo(2)
    for key, value in [("a", 1), ("b", 2), ("a", 3), ("c", 4)]:
        memo.put(key, value)
    assert (memo.get("a"), memo.get("b"), memo.get("c"), len(memo)) == (3, None, 4, 2)   # "a" renewed, "b" oldest


def test_a_proven_optimum_is_reused_only_from_the_memo_given():
    parent_sets = candidate_parent_sets(Scorer(dependent_data(5, 6, 80), "bic"), epsilon=2.0)
    candidates = CandidateArrays(parent_sets)
    mine = Memo(1)
    first = ilp.optimum(candidates, None, Control(), memo=mine)
    assert first.optimal and len(mine) == 1
    assert ilp.optimum(candidates, None, Control(), reuse=True, memo=mine).stats["reused"]
    assert not ilp.optimum(candidates, None, Control(), reuse=True, memo=Memo(1)).stats.get("reused")
