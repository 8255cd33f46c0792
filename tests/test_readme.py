"""The README's examples work as written: its Python API block and every command line."""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from bnexplore.bif import read_bif

ROOT = Path(__file__).resolve().parent.parent
TEXT = (ROOT / "README.md").read_text()


def code_blocks(language):
    return re.findall(rf"```{language}\n(.*?)```", TEXT, re.S)


def cli_commands():
    """Every ``python -m bnexplore`` line of the README (continuations joined)."""
    commands = []
    for block in code_blocks("bash"):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip()
            if line.startswith("python -m bnexplore"):
                commands.append(line)
    return commands


def test_the_readme_shows_the_three_commands():
    assert "pip install -r requirements.txt" in TEXT
    assert "streamlit run app.py" in TEXT
    assert re.search(r"^pytest$", TEXT, re.M)


def test_python_api_example_runs(monkeypatch, capsys, tmp_path):
    (tmp_path / "sample_data").symlink_to(ROOT / "sample_data")
    monkeypatch.chdir(tmp_path)  # the example writes files, as a user's would, in the working directory
    exec(compile(code_blocks("python")[0], "README.md", "exec"), {"__name__": "readme"})
    out = capsys.readouterr().out
    assert "DAGs in" in out and "counting limit of 5 DAGs" in out
    assert read_bif(tmp_path / "malignant.bif").names[-1] == "fractal_dimension_worst"


def test_every_command_is_tested():
    assert {c.split()[3] for c in cli_commands()} == {"sample", "score", "learn", "enumerate", "bnkl", "query", "compare",
                                                      "convert", "cv", "scores", "effect-range", "edit"}


@pytest.mark.slow
@pytest.mark.parametrize("command", cli_commands())
def test_cli_example_runs(command, tmp_path):
    """Each command, run as written in a fresh folder that has the bundled samples."""
    (tmp_path / "sample_data").symlink_to(ROOT / "sample_data")
    args = shlex.split(command)
    args[0] = sys.executable
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    if "-o" in args:
        assert (tmp_path / args[args.index("-o") + 1]).stat().st_size > 0
    else:
        json.loads(done.stdout)
    if "--json" in args:
        json.loads((tmp_path / args[args.index("--json") + 1]).read_text())
