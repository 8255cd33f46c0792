"""The data package's rooms (issue 31): each at most 900 lines, no cycle and no private name between them, the
public names where they were, and pyarrow's readers loaded on the first file read, not at import."""

import ast
import doctest
import importlib
import json
import subprocess
import sys
from pathlib import Path

import bnexplore.data

PACKAGE = Path(bnexplore.data.__file__).parent
ROOMS = sorted(path.stem for path in PACKAGE.glob("*.py") if path.stem != "__init__")

PUBLIC = ["CATEGORICAL", "CSV", "FEATHER", "IDENTIFIER_MIN_ROWS", "MAX_COLUMNS", "MAX_MISSING_MARKS", "MISSING_LABEL",
          "MISSING_POLICIES", "NUMERIC", "PARQUET", "SEPARATORS", "TABLE_SUFFIXES", "ColumnSpec", "Dataset", "Encoder",
          "check_dataset", "code_dtype", "discretize_values", "interval_labels", "kept_columns", "learn_cut_points",
          "marked", "read_csv", "read_frame", "read_table", "require_complete", "require_unweighted"]


def imports_between_rooms(room):
    """``(room imported, names imported from it)`` for every import of a sibling room, in functions too."""
    tree = ast.parse((PACKAGE / f"{room}.py").read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.append((node.module, [alias.name for alias in node.names]))
            else:
                found += [(alias.name, []) for alias in node.names]
    return found


def test_every_room_has_one_docstring_and_at_most_900_lines():
    for room in ROOMS:
        text = (PACKAGE / f"{room}.py").read_text()
        assert text.count("\n") <= 900, room
        assert ast.get_docstring(ast.parse(text)), room


def test_no_room_imports_a_private_name_of_another():
    private = {room: [name for module, names in imports_between_rooms(room) for name in names if name.startswith("_")]
               for room in ROOMS}
    assert not any(private.values()), private


def test_the_rooms_import_each_other_without_a_cycle():
    edges = {room: {module for module, _ in imports_between_rooms(room)} for room in ROOMS}
    assert all(module in ROOMS for targets in edges.values() for module in targets), edges
    done, path = set(), []

    def visit(room):
        assert room not in path, f"import cycle: {' -> '.join(path + [room])}"
        if room not in done:
            path.append(room)
            for target in sorted(edges[room]):
                visit(target)
            path.pop()
            done.add(room)

    for room in ROOMS:
        visit(room)


def test_the_public_names_stay_importable_from_bnexplore_data():
    assert sorted(bnexplore.data.__all__) == sorted(PUBLIC)
    for name in PUBLIC:
        assert getattr(bnexplore.data, name) is not None, name
    assert bnexplore.data.read_csv is bnexplore.data.read_table


def test_the_examples_in_the_docstrings_run():
    tried = {}
    for room in ROOMS:
        result = doctest.testmod(importlib.import_module(f"bnexplore.data.{room}"), optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, room
        tried[room] = result.attempted
    assert tried["readers"] >= 10 and tried["dataset"] >= 1 and tried["discretize"] >= 4, tried


LOADED = """
import json, sys
import bnexplore.data as data
def loaded():
    return sorted(m for m in ("pyarrow.csv", "pyarrow.parquet", "bnexplore.data.csvparse", "bnexplore.data.columnar",
                              "bnexplore.data.collect") if m in sys.modules)
seen = {"import": loaded()}
data.read_table(b"a,b\\n1,x\\n2,y\\n")
seen["csv"] = loaded()
data.read_frame(sys.argv[1])
seen["parquet"] = loaded()
print(json.dumps(seen))
"""


def test_pyarrow_readers_load_on_the_first_read_of_their_format_not_at_import(tmp_path):
    import pandas as pd

    path = tmp_path / "t.parquet"
    pd.DataFrame({"a": [1, 2]}).to_parquet(path)
    out = subprocess.run([sys.executable, "-c", LOADED, str(path)], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).parent.parent).stdout
    seen = json.loads(out.splitlines()[-1])
    assert seen["import"] == []
    assert seen["csv"] == ["bnexplore.data.collect", "bnexplore.data.csvparse", "pyarrow.csv"]
    assert seen["parquet"] == ["bnexplore.data.collect", "bnexplore.data.columnar", "bnexplore.data.csvparse",
                               "pyarrow.csv", "pyarrow.parquet"]
