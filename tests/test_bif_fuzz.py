"""Fuzzing the BIF reader (issue 30, tests): mutated networks either load or raise a BNExploreError.

A seeded generator mutates the text of bundled networks (byte flips, truncations, duplicated or
deleted stretches, random tokens of the format) and reads each result, with the expansion bound
lowered so that no input can take much memory. A network that loads must also write and read back
unchanged.
"""

import gzip
import re
from pathlib import Path

import numpy as np
import pytest

from bnexplore.bif import read_bif, write_bif
from bnexplore.errors import BNExploreError
from bnexplore.limits import ENVIRONMENT

NETWORKS = Path(__file__).resolve().parents[1] / "sample_data" / "networks"
BASES = ["asia", "cancer", "earthquake", "survey", "sachs", "child", "insurance", "alarm"]
TOKENS = ["{", "}", "(", ")", "[", "]", ";", ",", "|", "/*", "*/", "//", "\n", '"', "network", "variable",
          "probability", "property", "table", "default", "type", "discrete", "[ 3 ]", "[ 0 ]", "[ 99999999999 ]",
          "0.5", "1e308", "-0.1", "nan", "inf", "1_0", "\u0661", "\x00", "é", "yes", "no", "A", "{ a, b }",
          'property bnexplore_name = "%FF";', 'property bnexplore_states = "a,a";',
          'property bnexplore_name = "x%20y";', "{" * 50, "}" * 50, "default 1.0;", "table 1;"]
CASES = 1500


NAMES = ["x.y", "a-b", "_1", "1", "-1", "é", "Yes", "table_", "network", "p|q", "<missing>", "a b", "A"]
WORD = re.compile(r"(?<![\w.-])[A-Za-z_][\w.-]*(?![\w.-])")


def mutate(text, rng):
    """``text`` after one to three random mutations."""
    for _ in range(int(rng.integers(1, 4))):
        n = len(text)
        at = int(rng.integers(0, n + 1))
        kind = int(rng.integers(0, 8))
        if kind == 6:  # rename a word everywhere (often keeps the file valid)
            words = sorted(set(WORD.findall(text)))
            if words:
                old = words[int(rng.integers(0, len(words)))]
                new = NAMES[int(rng.integers(0, len(NAMES)))]
                text = re.sub(rf"(?<![\w.-]){re.escape(old)}(?![\w.-])", lambda _: new, text)
            continue
        if kind == 7:  # a comment holding a token of the format
            token = TOKENS[int(rng.integers(0, len(TOKENS)))].replace("*/", "")
            comment = f"/* {token} */" if rng.random() < 0.5 else f"// {token.replace(chr(10), '')}\n"
            text = text[:at] + comment + text[at:]
            continue
        if kind == 0 and n:  # flip a character
            text = text[:at] + chr(int(rng.integers(1, 0x250))) + text[at + 1:]
        elif kind == 1:  # truncate
            text = text[:at]
        elif kind == 2 and n:  # duplicate a stretch (often whole blocks) somewhere else
            start = int(rng.integers(0, n))
            piece = text[start:start + int(rng.integers(1, 400))]
            to = int(rng.integers(0, n + 1))
            text = text[:to] + piece + text[to:]
        elif kind == 3:  # delete a stretch
            text = text[:at] + text[at + int(rng.integers(1, 60)):]
        else:  # insert a token of the format
            text = text[:at] + f" {TOKENS[int(rng.integers(0, len(TOKENS)))]} " + text[at:]
    return text


@pytest.mark.timeout(600)
def test_mutated_networks_load_or_raise_a_bnexplore_error(monkeypatch):
    monkeypatch.setenv(ENVIRONMENT, "16")  # 2 MB of text, 2**21 table cells
    texts = [gzip.decompress((NETWORKS / f"{name}.bif.gz").read_bytes()).decode() for name in BASES]
    rng = np.random.default_rng(20261125)
    loaded = refused = 0
    for case in range(CASES):
        base = int(rng.integers(0, len(texts)))
        text = mutate(texts[base], rng)
        try:
            network = read_bif(text if "{" in text else text + "{")
        except BNExploreError as error:
            assert "\n" not in str(error), (case, BASES[base], str(error)[:200])
            refused += 1
            continue
        except Exception as error:  # noqa: BLE001 - the point of the test
            pytest.fail(f"case {case} (from {BASES[base]}) raised {type(error).__name__}: {str(error)[:300]}")
        again = read_bif(write_bif(network))
        assert (again.name, again.names, again.states, again.parents) == (
            network.name, network.names, network.states, network.parents), case
        assert all(np.array_equal(a, b) for a, b in zip(again.cpts, network.cpts)), case
        loaded += 1
    assert refused > CASES // 4 and loaded > CASES // 50, (loaded, refused)  # both outcomes are exercised
