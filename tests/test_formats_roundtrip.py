"""Issue 36: every bundled network through every format of the registry, and every format told apart by content.

A network written in a format with tables and read back has the same name list, the same states, the same
parents in the same order and tables equal to 1e-12; through a graph-only format, the same DAG. The short
form takes the bundled networks under 30 KB gzipped (20 of 24: asia to munin1); ``BNEXPLORE_FULL=1`` adds the
four largest (pathfinder, the munins, mildew, diabetes, barley).
Each format's own tests (tests/test_formats_*.py) hold its names, peers and malformed files.
"""

import gzip
import importlib
import io
import os

import numpy as np
import pytest

from bnexplore import bundled
from bnexplore.bif import read_bif
from bnexplore.errors import BIFError
from bnexplore.formats import FORMATS, format_for, read_graph, read_network, write_network
from bnexplore.formats.registry import SNIFF_CHARS

FULL = os.environ.get("BNEXPLORE_FULL") == "1"
SHORT_BYTES = 30_000
"""Gzipped size below which a bundled network is in the short form."""


def _landed(spec):
    try:
        importlib.import_module(spec.module)
    except ModuleNotFoundError:
        return False
    return True


def _network_params():
    params = []
    for name in bundled.networks():
        small = bundled.network_path(name).stat().st_size < SHORT_BYTES
        params.append(pytest.param(name, marks=() if small or FULL else pytest.mark.skip(
            reason="a large network: BNEXPLORE_FULL=1 takes it through every format")))
    return params


FORMAT_NAMES = [pytest.param(name, marks=() if _landed(spec) else pytest.mark.skip(reason=f"{spec.module} missing"))
                for name, spec in FORMATS.items()]


@pytest.fixture(scope="module")
def networks():
    return {}


def _bundled(cache, name):
    if name not in cache:
        cache[name] = read_bif(bundled.network_path(name))
    return cache[name]


@pytest.mark.slow
@pytest.mark.parametrize("name", _network_params())
@pytest.mark.parametrize("format", FORMAT_NAMES)
def test_every_bundled_network_round_trips_through_every_format(format, name, networks):
    network = _bundled(networks, name)
    spec = FORMATS[format]
    text = write_network(network, format=format)
    if not spec.tables:
        back = read_graph(text, format=format)
        assert back.names == network.names
        assert back == network.dag()
        return
    back = read_network(text, format=format)
    assert back.names == network.names
    assert back.states == network.states
    assert back.parents == network.parents
    for v, (mine, theirs) in enumerate(zip(network.cpts, back.cpts)):
        np.testing.assert_allclose(theirs, mine, rtol=0, atol=1e-12, err_msg=network.names[v])


@pytest.mark.parametrize("format", FORMAT_NAMES)
def test_a_file_without_its_ending_is_read_by_its_content(format, tmp_path):
    """Written to a file named ``network`` (no ending), plain and gzipped, it is read by what it holds; the
    start of its text is claimed by its own format only."""
    asia = read_bif(bundled.network_path("asia"))
    text = write_network(asia, format=format)
    claimed = [other for other, spec in FORMATS.items() if _landed(spec) and spec.looks_like(text[:SNIFF_CHARS])]
    assert claimed == [format]
    plain, packed = tmp_path / "network", tmp_path / "network.gz"
    plain.write_text(text, encoding="utf-8")
    packed.write_bytes(gzip.compress(text.encode("utf-8")))
    for source in (plain, packed, io.BytesIO(text.encode("utf-8"))):
        assert read_graph(source) == asia.dag()


@pytest.mark.parametrize("format", FORMAT_NAMES)
def test_every_ending_names_its_format(format, tmp_path):
    asia = read_bif(bundled.network_path("asia"))
    for ending in FORMATS[format].extensions:
        path = tmp_path / f"asia{ending}.gz"
        write_network(asia if FORMATS[format].tables else asia.dag(), path)
        assert format_for(path).name == format
        assert read_graph(path) == asia.dag()


def test_a_graph_only_file_is_not_read_as_a_network_and_a_dag_not_written_with_tables():
    asia = read_bif(bundled.network_path("asia"))
    if not _landed(FORMATS["modelstring"]):
        pytest.skip("bnexplore.formats.modelstring missing")
    with pytest.raises(BIFError, match="graph without probability tables; read it with read_graph"):
        read_network(write_network(asia, format="modelstring"), format="modelstring")
    with pytest.raises(BIFError, match="fit tables to data first"):
        write_network(asia.dag(), format="bif")


def test_unknown_names_and_contents_are_refused_saying_what_to_do(tmp_path):
    with pytest.raises(BIFError, match="format='hugin' is not a network format; use one of bif, xmlbif"):
        read_network("x", format="hugin")
    with pytest.raises(BIFError, match=r"'asia.txt' has no ending of a network format; use one of \.bif"):
        write_network(read_bif(bundled.network_path("asia")), tmp_path / "asia.txt")
    odd = tmp_path / "odd"
    odd.write_text("just some words\nand more\n")
    with pytest.raises(BIFError, match="file 'odd' is in no network format bnexplore reads"):
        read_network(odd)
