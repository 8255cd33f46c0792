"""The README's set-up steps say what is true of this clone: Python version, virtual environment,
where to run the commands, and where the app is (the server is headless)."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
SETUP = README.split("## Set up and run", 1)[1].split("\n## ", 1)[0]


def test_the_setup_names_python_and_a_virtual_environment_before_the_commands():
    before = SETUP.split("pip install -r requirements.txt", 1)[0]
    assert "Python 3.11 or newer" in before
    assert "-m venv .venv" in before and ". .venv/bin/activate" in before
    assert "root of your clone" in before and "app.py" in before


def test_the_setup_gives_the_address_since_the_server_does_not_open_a_browser():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["headless"] is True
    port = config["server"].get("port", 8501)
    assert f"http://localhost:{port}" in SETUP
    assert "opens in your browser" not in README


def test_the_requirements_comment_points_to_a_readme_section_that_exists():
    comment = (ROOT / "requirements.txt").read_text().splitlines()[0]
    (section,) = re.findall(r'"([^"]+)"', comment)
    assert f"## {section}\n" in README
    assert "lowest versions" in SETUP
