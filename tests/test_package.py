"""The package builds into a wheel that holds the library, its data files and the ``bnexplore`` command,
and that installed copy works from any folder."""

import email
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest

import bnexplore

ROOT = Path(__file__).resolve().parent.parent

# Files every wheel must hold, besides every module of the bnexplore package (checked below): the
# library's data files, the app (entry, pages, helpers, icon, settings) and the bundled data.
REQUIRED = [
    "bnexplore/__main__.py",
    "bnexplore/cli.py",
    "bnexplore/fonts/DejaVuSans.ttf",
    "bnexplore/fonts/DejaVuSans-LICENSE.txt",
    "bnexplore_app/main.py",
    "bnexplore_app/state.py",
    "bnexplore_app/assets/icon.png",
    "bnexplore_app/streamlit/config.toml",
    *[f"bnexplore_app/app_pages/{p.name}" for p in sorted((ROOT / "app_pages").glob("*.py"))],
    *[f"bnexplore/sample_data/{p.name}" for p in sorted((ROOT / "sample_data").glob("*.csv"))],
    *[f"bnexplore/sample_data/networks/{p.name}" for p in sorted((ROOT / "sample_data" / "networks").glob("*.bif.gz"))],
]
# What the wheel must not carry.
FORBIDDEN = ("tests/", "benchmarks/", "sample_data/networks/")
# Copied to a scratch folder before building, so the build leaves nothing in the clone.
NOT_SOURCES = shutil.ignore_patterns(".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__", "*.nbi", "*.nbc",
                                     "test-artifacts")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """A wheel built from a copy of this checkout (pip builds it with setuptools from the package index)."""
    source = tmp_path_factory.mktemp("source") / "bnexplore"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCES)
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(out),
                           str(source)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    (path,) = out.glob("bnexplore-*.whl")
    return path


def members(path):
    with zipfile.ZipFile(path) as archive:
        return set(archive.namelist())


def dist_info(path, name):
    with zipfile.ZipFile(path) as archive:
        (member,) = [m for m in archive.namelist() if m.endswith(f".dist-info/{name}")]
        return archive.read(member).decode("utf-8")


def requirement_lines(name):
    lines = (ROOT / name).read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_no_folder_beside_an_app_script_is_named_pages():
    """A ``pages/`` folder beside the script ``streamlit run`` starts (app.py in a clone, main.py installed)
    puts Streamlit in its legacy multipage mode until a run reaches ``st.navigation``: a page opened by its
    address (a reload after a server start) then runs without the session set-up, under raw file names,
    and every AppTest run does the same. The page scripts live in ``app_pages/``."""
    for folder in (ROOT, ROOT / "bnexplore_app"):
        assert not (folder / "pages").exists(), folder
    assert sorted(p.name for p in (ROOT / "app_pages").glob("*.py"))[:1] == ["1_Data.py"]


def test_wheel_holds_every_module_and_the_data_files(wheel):
    names = members(wheel)
    modules = [p.relative_to(ROOT).as_posix() for package in ("bnexplore", "bnexplore_app")
               for p in (ROOT / package).rglob("*.py")]
    assert len(modules) > 20
    missing = [p for p in [*modules, *REQUIRED] if p not in names]
    assert missing == []
    assert [n for n in names if n.startswith(FORBIDDEN)] == []


def test_wheel_declares_the_command_and_the_dependencies(wheel):
    entry_points = dist_info(wheel, "entry_points.txt")
    assert re.search(r"^\[console_scripts\]\nbnexplore = bnexplore\.cli:main$", entry_points, re.M)
    metadata = email.message_from_string(dist_info(wheel, "METADATA"))
    assert metadata["Name"] == "bnexplore" and metadata["Version"] == bnexplore.__version__
    assert metadata["Requires-Python"] == ">=3.11" and metadata["License-Expression"] == "MIT"
    requires = metadata.get_all("Requires-Dist")
    assert [r for r in requires if "extra ==" not in r] == requirement_lines("requirements.txt")
    dev = [r.split(";")[0].strip() for r in requires if 'extra == "dev"' in r]
    assert dev == requirement_lines("requirements-dev.txt")
    # PySCIPOpt is required (in requirements.txt), not an extra: branch and cut is one of the exact engines
    assert set(metadata.get_all("Provides-Extra")) == {"dev", "bench"}
    assert any(r.startswith("pyscipopt") for r in requires if "extra ==" not in r)


def test_installed_command_reads_a_parquet_file_from_another_folder(wheel, tmp_path):
    """The wheel unpacked into a folder of its own: the ``bnexplore`` script and ``import bnexplore`` use it,
    not this checkout (the working folder is elsewhere and PYTHONPATH names only the install)."""
    target = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target),
                           str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target)}
    where = subprocess.run([sys.executable, "-c", "import bnexplore; print(bnexplore.__file__)"], cwd=work, env=env,
                           capture_output=True, text=True, timeout=120)
    assert Path(where.stdout.strip()).parent == target / "bnexplore"
    command = str(target / "bin" / "bnexplore")
    shown = subprocess.run([command, "--help"], cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0 and shown.stdout.startswith("usage: bnexplore ")
    pd.read_csv(ROOT / "sample_data" / "asia.csv").to_parquet(work / "asia.parquet")
    scored = subprocess.run([command, "score", "asia.parquet", "--arcs", "smoke->lung"], cwd=work, env=env,
                            capture_output=True, text=True, timeout=300)
    assert scored.returncode == 0, scored.stderr[-2000:]
    expected = bnexplore.Scorer(bnexplore.read_table(ROOT / "sample_data" / "asia.csv")).total({"lung": ["smoke"]})
    assert json.loads(scored.stdout)["score"] == pytest.approx(expected, rel=1e-12)


def test_installed_app_starts_from_another_folder(wheel, tmp_path):
    """``bnexplore app`` runs Streamlit on the installed app, with its settings and bundled data."""
    import socket
    import time
    import urllib.request

    target = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target),
                           str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    env = {**os.environ, "PYTHONPATH": str(target)}
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    shown = subprocess.run([sys.executable, "-c", "from bnexplore.cli import app_command; print(app_command([]))"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert str(target / "bnexplore_app" / "main.py") in shown.stdout and "--server.maxUploadSize=50" in shown.stdout
    server = subprocess.Popen([str(target / "bin" / "bnexplore"), "app", "--server.port", str(port),
                               "--server.address", "127.0.0.1", "--server.headless", "true"],
                              cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        health = None
        while time.monotonic() < deadline and health is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as answer:
                    health = answer.read().strip()
            except OSError:
                assert server.poll() is None, server.stdout.read().decode()[-2000:]
                time.sleep(0.5)
        assert health == b"ok"
    finally:
        server.terminate()
        server.wait(timeout=20)
    try:  # stopping the command stopped the server (no Streamlit process left behind)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
            answered = True
    except OSError:
        answered = False
    assert not answered, "the Streamlit server outlived the bnexplore app command"
    # the installed page script runs on the installed package and its bundled data, not on this checkout
    script = ("from streamlit.testing.v1 import AppTest; import bnexplore, bnexplore_app; "
              f"at = AppTest.from_file({str(target / 'bnexplore_app' / 'main.py')!r}, default_timeout=300); at.run(); "
              "assert not at.exception, [e.value for e in at.exception]; "
              "print(at.session_state['dataset'].names, bnexplore.bundled.directory())")
    ran = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=600)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "['asia', 'tub'" in ran.stdout and str(target / "bnexplore" / "sample_data") in ran.stdout
