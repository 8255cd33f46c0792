"""A hostile BIF file is refused before it costs memory or time (issue 30 items 2, 7, 8 and 14).

Bounds are set small through ``BNEXPLORE_MAX_EXPANDED_MB`` so each refusal is cheap to provoke;
allocation is measured with tracemalloc (numpy reports its buffers to it), work by counting.
"""

import gzip
import io
import re
import tracemalloc

import pytest

from bnexplore.bif import max_text_bytes, parse, read_bif
from bnexplore.errors import BIFError, ResourceError
from bnexplore.limits import ENVIRONMENT

VALID = """network n {
}
variable A {
  type discrete [ 2 ] { a0, a1 };
}
probability ( A ) {
  table 0.4, 0.6;
}
"""


@pytest.fixture
def small_bound(monkeypatch):
    """Expanded inputs bounded at 8 MB: BIF text at 1 MB, tables at 2**20 cells."""
    monkeypatch.setenv(ENVIRONMENT, "8")
    assert max_text_bytes() == 1 << 20
    return 1 << 20


def peak_bytes(call):
    """Peak bytes traced while ``call()`` runs, and what it raised."""
    tracemalloc.start()
    try:
        call()
    except Exception as error:  # noqa: BLE001 - returned for the test to check
        raised = error
    else:
        raised = None
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak, raised


# -- item 2: decompression bombs and plain text -------------------------------------------


def test_a_gzip_bomb_is_refused_before_it_is_expanded(small_bound, tmp_path):
    bomb = gzip.compress(VALID.encode() + b" " * (64 << 20))  # 64 MB of spaces in 64 KB
    assert len(bomb) < 100_000
    path = tmp_path / "bomb.bif.gz"
    path.write_bytes(bomb)
    for source in (path, io.BytesIO(bomb)):
        peak, raised = peak_bytes(lambda: read_bif(source))
        assert isinstance(raised, ResourceError) and "expands to more than 1.0 MB" in str(raised), raised
        assert peak < 8 * small_bound


def test_plain_text_over_the_bound_is_refused(small_bound, tmp_path):
    text = VALID + "//" + "x" * small_bound + "\n"
    path = tmp_path / "big.bif"
    path.write_text(text)
    for source in (path, text, io.StringIO(text), io.BytesIO(text.encode())):
        with pytest.raises(ResourceError, match=r"more than 1\.0 MB of BIF text.*BNEXPLORE_MAX_EXPANDED_MB"):
            read_bif(source)
    assert read_bif(VALID + "//" + "x" * (small_bound // 2) + "\n").names == ["A"]


def test_a_damaged_gzip_is_a_bif_error(tmp_path):
    path = tmp_path / "cut.bif.gz"
    path.write_bytes(gzip.compress(VALID.encode())[:-12])
    with pytest.raises(BIFError, match="not a valid gzip file"):
        read_bif(path)


# -- item 7: comments in linear time ---------------------------------------------------------


class CountingPattern:
    """Wraps bif's comment pattern, counting the characters its searches pass over."""

    def __init__(self, pattern):
        self.pattern = pattern
        self.scanned = 0
        self.calls = 0

    def search(self, text, pos):
        match = self.pattern.search(text, pos)
        self.calls += 1
        self.scanned += (match.end() if match else len(text)) - pos
        return match


@pytest.mark.timeout(60)
@pytest.mark.parametrize("case, text, error", [
    ("unclosed openers", VALID + "/* " * 700_000, "line 9: comment '/*' is never closed"),
    ("closed comments", "/**/ " * 400_000 + VALID, None),
    ("line comments", "// /* x\n" * 250_000 + VALID, None),
    ("openers inside a comment", "/*" + "/* " * 700_000 + "*/\n" + VALID, None),
])
def test_comments_are_read_in_one_pass(case, text, error, monkeypatch):
    """2 MB of '/* ' took the old regex many minutes (120 KB took 27.6 s); every character is now passed
    over once by the comment search."""
    counting = CountingPattern(parse._COMMENT_START)
    monkeypatch.setattr(parse, "_COMMENT_START", counting)
    if error:
        with pytest.raises(BIFError, match=re.escape(error)):
            read_bif(text)
    else:
        assert read_bif(text).names == ["A"]
    assert counting.scanned <= len(text)
    assert counting.calls <= text.count("\n") + text.count("/**/") + 2


def test_comment_line_numbers_are_kept():
    text = "/* one\ntwo */ // three\n" + VALID.replace("0.4, 0.6", "0.4, 0.7")
    with pytest.raises(BIFError, match="line 9: probabilities of 'A' sum to 1.1"):
        read_bif(text)


# -- item 8: the tables of the whole network are capped before allocating ----------------------


def many_default_tables(children, parents, arity=2):
    """``children`` variables, each with a ``default`` table over the same ``parents`` binary variables."""
    names = [f"P{i}" for i in range(parents)]
    lines = ["network wide {", "}"]
    lines += [f"variable {name} {{ type discrete [ 2 ] {{ s0, s1 }}; }}" for name in names]
    lines += [f"variable C{k} {{ type discrete [ {arity} ] {{ {', '.join(f'c{j}' for j in range(arity))} }}; }}"
              for k in range(children)]
    lines += [f"probability ( {name} ) {{ table 0.5, 0.5; }}" for name in names]
    row = ", ".join([str(1 / arity)] * arity)
    lines += [f"probability ( C{k} | {', '.join(names)} ) {{ default {row}; }}" for k in range(children)]
    return "\n".join(lines) + "\n"


def test_twelve_default_tables_over_25_parents_are_refused_before_any_is_allocated():
    """The 4.6 KB file of the issue: 12 tables of 2**26 cells each (7.8 GB and 57 s before)."""
    text = many_default_tables(12, 25)
    assert len(text) < 5000
    peak, raised = peak_bytes(lambda: read_bif(text))
    assert isinstance(raised, BIFError), raised
    first_table = text[: text.index("probability ( C0 |")].count("\n") + 1
    assert str(raised).startswith(f"BIF line {first_table}: with the CPT of 'C0' (67,108,864 cells) the network's "
                                  "tables would hold 67,108,914 cells, more than the 67,108,864"), str(raised)
    assert peak < (16 << 20)  # with the 25 parents' tables, the first big one is over the cap: none is allocated


def test_the_cap_is_on_the_total_not_on_each_table(small_bound):
    text = many_default_tables(3, 18)  # 2**19 cells per table: one fits the 2**20 cap, two do not
    peak, raised = peak_bytes(lambda: read_bif(text))
    assert isinstance(raised, BIFError) and "with the CPT of 'C1' (524,288 cells)" in str(raised), raised
    assert "hold 1,048,612 cells, more than the 1,048,576 this server allows" in str(raised)
    assert peak < 4 * 8 * (1 << 20)
    assert read_bif(many_default_tables(1, 18)).n_vars == 19


def test_a_table_too_large_to_count_in_floats_is_a_bif_error():
    """400 parents of 10 states: 10**400 parent configurations (the old reader raised OverflowError)."""
    states = ", ".join(f"s{j}" for j in range(10))
    names = [f"P{i}" for i in range(400)]
    text = ("network n { }\n" + "".join(f"variable {n} {{ type discrete [ 10 ] {{ {states} }}; }}\n" for n in names)
            + "variable C { type discrete [ 2 ] { c0, c1 }; }\n"
            + f"probability ( C | {', '.join(names)} ) {{ default 0.5, 0.5; }}\n")
    with pytest.raises(BIFError, match="line 403: the CPT of 'C' would have 2" + "0" * 400 + " cells"):
        read_bif(text)


# -- item 14: no variables, braces where none belong --------------------------------------------


@pytest.mark.parametrize("text, line, words", [
    ("network empty {\n}\n", 1, "declares no variables"),
    ("// nothing\nnetwork empty { property x = y; }\n", 2, "declares no variables"),
    ("network n {\n" + "{" * 1_000_000 + "}" * 1_000_000 + "\n}\n" + VALID[12:], 2,
     "'{' inside a 'network' block"),
    (VALID.replace("table 0.4, 0.6;", "{ table 0.4, 0.6; }"), 7, "'{' inside a 'probability' block"),
    (VALID.replace("{ a0, a1 }", "{ a0, { a1 } }"), 4, "'{' inside braces in a 'variable' block"),
    ("network n {\n  hello;\n}\n" + VALID[12:], 2, "expected 'property ...;' in the network block, found 'hello'"),
    (VALID.replace("[ 2 ]", "[ " + "9" * 5000 + " ]"), 4, "declares [ 999999999999 ] states but lists 2"),
])
def test_empty_networks_and_stray_braces_are_refused_naming_the_line(text, line, words):
    with pytest.raises(BIFError) as error:
        read_bif(text)
    assert str(error.value).startswith(f"BIF line {line}: ") and words in str(error.value), str(error.value)


@pytest.mark.parametrize("command", [["query"], ["sample", "-n", "5"]])
def test_the_command_line_refuses_a_network_without_variables_in_one_line(command, tmp_path, capsys):
    """``query`` crashed with IndexError and ``sample`` printed nothing on such a file."""
    from bnexplore import cli

    path = tmp_path / "empty.bif"
    path.write_text("network empty {\n}\n")
    code = cli.main([command[0], str(path), *command[1:]])
    out, err = capsys.readouterr()
    assert code != 0 and out == ""
    assert err.strip().count("\n") == 0 and "BIF line 1: the file declares no variables" in err, err


def test_the_command_line_refuses_a_gzip_bomb_in_one_line(small_bound, tmp_path, capsys):
    from bnexplore import cli

    path = tmp_path / "bomb.bif.gz"
    path.write_bytes(gzip.compress(VALID.encode() + b" " * (16 << 20)))
    code = cli.main(["sample", str(path), "-n", "5"])
    out, err = capsys.readouterr()
    assert code != 0 and out == "" and err.strip().count("\n") == 0 and "expands to more than" in err, err
