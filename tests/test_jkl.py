"""GOBNILP/BLIP ``.jkl`` score caches: read and written exactly, malformed files refused naming the line,
the optimisers over candidate sets (exact, ASOBS, credible set) run on a cache, and the CLI's doors."""

import gzip
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from bnexplore import cli
from bnexplore.data import read_csv
from bnexplore.errors import BNExploreError
from bnexplore.graphs import DAG
from bnexplore.parents import ParentSets, candidate_parent_sets, read_jkl, write_jkl
from bnexplore.parents.cached import CacheScorer
from bnexplore.scores import Scorer
from bnexplore.search.credible import credible_set
from bnexplore.search.exact import exact_search
from bnexplore.search.ordering import ordering_search

ASIA = Path(__file__).resolve().parent.parent / "sample_data" / "asia.csv"

# BLIP's form: variables and parents by index, '#' comments before the count
BLIP = """# scores of a, b, c
3
0 2
-10.5 1 1
-12.0 0
1 3
-7.25 1 2
-8.0 1 0
-9.5 0
2 2
-4.0 1 0
-6.0 0
"""

# GOBNILP's form: the same cache by name, the variables in another order
GOBNILP = """3
c 2
-4.0 1 a
-6.0 0
a 2
-10.5 1 b
-12.0 0
b 3
-7.25 1 c
-8.0 1 a
-9.5 0
"""


@pytest.fixture(scope="module")
def asia():
    data = read_csv(ASIA)
    scorer = Scorer(data, "bic")
    return data, scorer, candidate_parent_sets(scorer)


def same_sets(a, b, tol=1e-12):
    assert a.names == b.names
    for v in range(a.n_vars):
        assert a.sets(v) == b.sets(v)
        np.testing.assert_allclose(a.scores(v), b.scores(v), rtol=0, atol=tol)


def brute_force(sets):
    """The best total over every choice of one candidate per node that forms a DAG."""
    best = -np.inf
    for choice in itertools.product(*[list(zip(sets.sets(v), sets.scores(v))) for v in range(sets.n_vars)]):
        try:
            DAG.from_parents([ps for ps, _ in choice], sets.names)
        except BNExploreError:
            continue
        best = max(best, sum(s for _, s in choice))
    return best


def test_asia_round_trip_by_index_by_name_and_gzipped(asia, tmp_path):
    _, _, sets = asia
    same_sets(read_jkl(write_jkl(sets), names=sets.names), sets)
    same_sets(read_jkl(write_jkl(sets, names=True)), sets)
    path = tmp_path / "asia.jkl.gz"
    path.write_bytes(gzip.compress(write_jkl(sets).encode()))
    back = read_jkl(path, names=sets.names)
    same_sets(back, sets)
    assert back.stats["form"] == "index" and len(back) == len(sets)


def test_the_blip_and_gobnilp_forms_read_the_same_cache():
    blip = read_jkl(BLIP, names=["a", "b", "c"])
    gobnilp = read_jkl(GOBNILP, names=["a", "b", "c"])
    same_sets(blip, gobnilp, tol=0)
    assert blip.sets(1) == [(2,), (0,), ()] and blip.scores(1).tolist() == [-7.25, -8.0, -9.5]
    assert read_jkl(GOBNILP).names == ["c", "a", "b"]  # without names: the file's order
    assert read_jkl(BLIP).names == ["X0", "X1", "X2"]


def test_exact_search_on_a_hand_written_cache_finds_the_brute_force_optimum():
    sets = read_jkl(BLIP)
    result = exact_search(CacheScorer(sets), parent_sets=sets)
    optimum = brute_force(sets)
    # the best sets alone (0<-1, 1<-2, 2<-0) close a cycle: the optimum must give one of them up
    assert optimum == pytest.approx(-12.0 - 7.25 - 4.0)
    assert result.score == pytest.approx(optimum) and result.stats["exact"]
    assert [sorted(ps) for ps in result.graph.parent_sets()] == [[], [2], [0]]


def test_optimisers_on_a_written_then_read_cache_match_the_original(asia):
    data, scorer, sets = asia
    back = read_jkl(write_jkl(sets), names=sets.names, score_name=sets.score_name)
    exact = [exact_search(CacheScorer(s), parent_sets=s) for s in (sets, back)]
    asobs = [ordering_search(CacheScorer(s), parents=s, start=None, seed=3, restarts=5) for s in (sets, back)]
    for a, b in (exact, asobs):
        assert a.graph.parent_sets() == b.graph.parent_sets()
        assert a.score == pytest.approx(b.score, abs=1e-9)
    # the cache scores as the data does: the exact optimum on it is the data's
    assert exact[1].score == pytest.approx(exact_search(scorer).score, abs=1e-9)
    assert credible_set(CacheScorer(back), parent_sets=back, bf=1.0).opt == pytest.approx(exact[1].score, abs=1e-9)


def test_a_cache_scorer_scores_a_family_outside_the_cache_minus_infinity():
    sets = read_jkl(BLIP)
    scorer = CacheScorer(sets)
    assert scorer.local(0, [1]) == -10.5
    assert scorer.local(0, [2]) == -np.inf
    assert scorer.total([[1], [2], []]) == pytest.approx(-10.5 - 7.25 - 6.0)


MALFORMED = [
    ("", 1, "ends where the number of variables"),
    ("x\n", 1, "'x' is not a whole number"),
    ("3 4\n", 1, "alone"),
    ("0\n", 1, "is 0"),
    ("99999999\n0 1\n-1 0\n", 1, "more than the 2"),  # refused before anything is built for it
    ("2\n0 1\n-1 0\n", 4, "ends where"),  # truncated: variable 2 missing
    ("2\n0 5\n-1 0\n1 1\n-1 0\n", 2, "number of parent sets 5 is more than"),
    ("2\n0 1\n-1 0\n1 2\n-1 0\n", 4, "number of parent sets 2 is more than the 1"),  # larger than listed
    ("2\n0 2\n-1 0\n1 1\n-1 0\n", 4, "the line says 1 parents but lists 0"),  # a count eating the next header
    ("2\n0 1\n-1 0\n1 1\n-1 0\n-2 0\n", 6, "more lines than the counts declare"),
    ("2\n0 1\nabc 0\n1 1\n-1 0\n", 3, "'abc' is not a number"),
    ("2\n0 1\nnan 0\n1 1\n-1 0\n", 3, "not a finite number"),
    ("2\n0 1\n-1 1 5\n1 1\n-1 0\n", 3, "parent index 5 is not a variable"),
    ("2\n0 1\n-1 1 0\n1 1\n-1 0\n", 3, "'0' is its own parent"),
    ("3\n0 1\n-1 2 1\n1 1\n-1 0\n2 1\n-1 0\n", 3, "the line says 2 parents but lists 1"),
    ("2\n0 1\n-1 2 1\n1 1\n-1 0\n", 3, "number of parents 2 is more than the 1"),
    ("2\n0 1\n-1 0\n0 1\n-1 0\n", 4, "variable 0 is listed twice"),
    ("2\n0 1\n-1 0\n7 1\n-1 0\n", 4, "variable index 7 is outside 0..1"),
    ("2\n0 2\n-1 0\n-2 0\n1 1\n-1 0\n", 4, "parent set is listed twice"),
    ("2\na 1\n-1 1 zed\nb 1\n-1 0\n", 3, "parent 'zed' is not a variable"),
    ("2\na 1\n-1 1 a\nb 1\n-1 0\n", 3, "'a' is its own parent"),
    ("2\na 1\n-1 0\n", 4, "ends where"),
    ("2\na 0\nb 1\n-1 0\n", 2, "lists no parent set"),
]


@pytest.mark.parametrize("text, line, words", MALFORMED)
def test_a_malformed_cache_is_refused_naming_the_line(text, line, words):
    with pytest.raises(BNExploreError) as caught:
        read_jkl(text if "\n" in text else text + "\n")
    message = str(caught.value)
    assert f"line {line}:" in message and words in message and "\n" not in message


def test_names_that_do_not_fit_and_unwritable_names_are_refused():
    with pytest.raises(BNExploreError, match="holds 3 variables but 2 names"):
        read_jkl(BLIP, names=["a", "b"])
    with pytest.raises(BNExploreError, match="names the variables c, a, b"):
        read_jkl(GOBNILP, names=["a", "b", "z"])
    with pytest.raises(BNExploreError, match="white space"):
        write_jkl(ParentSets(["a b"], [[((), -1.0)]], "bic"), names=True)
    from bnexplore.parents import write_pss

    for write in (write_jkl, write_pss):
        with pytest.raises(BNExploreError, match="'a' has a score that is not a finite number"):
            write(ParentSets(["a"], [[((), -np.inf)]], "bic"))


def run_cli(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_writes_a_cache_and_searches_it(asia, tmp_path, capsys):
    _, scorer, sets = asia
    path = tmp_path / "asia.jkl"
    code, out, _ = run_cli(capsys, "scores", ASIA, "--score", "bic", "--out", path, "--quiet")
    assert code == 0 and json.loads(out)["parent_sets"] == len(sets)
    same_sets(read_jkl(path, names=sets.names), sets)
    optimum = exact_search(scorer).score
    for argv in (["--algorithm", "exact"], [ASIA, "--algorithm", "asobs", "--seed", "1", "--restarts", "3"]):
        result = tmp_path / "result.json"
        code, out, err = run_cli(capsys, "learn", *argv, "--scores", path, "--quiet", "--json", result)
        assert code == 0, err
        assert json.loads(out)["score"] == pytest.approx(optimum, abs=1e-9)
        names = json.loads(result.read_text())["graph"]["nodes"]
        assert names == (sets.names if ASIA in argv else [f"X{v}" for v in range(8)])
    for algorithm in ("obs", "asobs", "exact"):  # --max-indegree cuts the cache for every search
        result = tmp_path / f"{algorithm}-1.json"
        code, out, err = run_cli(capsys, "learn", "--scores", path, "--algorithm", algorithm, "--max-indegree", 1,
                                 "--quiet", "--json", result)
        assert code == 0, err
        arcs = json.loads(result.read_text())["graph"]["arcs"]
        assert arcs and max(sum(1 for _, v in arcs if v == child) for _, child in arcs) == 1
        assert json.loads(out)["score"] < optimum - 1
    code, out, err = run_cli(capsys, "enumerate", "--scores", path, "--bf", "1", "--quiet")
    assert code == 0, err
    assert json.loads(out)["opt"] == pytest.approx(optimum, abs=1e-9)


def test_cli_refusals_are_one_line(tmp_path, capsys):
    path = tmp_path / "small.jkl"
    path.write_text(BLIP)
    bad = tmp_path / "bad.jkl"
    bad.write_text("2\n0 1\n-1 1 0\n1 1\n-1 0\n")
    cases = [(["learn", "--scores", path, "--algorithm", "hc"], "--scores applies to --algorithm exact"),
             (["learn", ASIA, "--scores", path, "--algorithm", "exact"], "holds 3 variables but DATA has 8"),
             (["learn", "--scores", bad, "--algorithm", "exact"], "score cache 'bad.jkl' line 3:"),
             (["learn", "--scores", path, "--algorithm", "asobs", "--require", "X0->X1"], "--require does not apply"),
             (["learn", "--algorithm", "exact"], "give DATA"),
             (["enumerate"], "give DATA")]
    for argv, words in cases:
        code, _, err = run_cli(capsys, *argv, "--quiet")
        assert code == 1 and words in err and err.count("\n") == 1, (argv, err)


# URLearning's pss: a META header, comments, per variable its own META lines, parents by name, no counts
PSS = """META pss_version = 0.1
META score_type=BIC
# written by hand
VAR c
META arity=2
META values=0 1
-4.0 a
-6.0

VAR a
-10.5 b
-12.0
VAR b
-7.25 c
-8.0 a
-9.5
"""


def test_pss_reads_the_same_cache_as_jkl_and_round_trips(asia, tmp_path):
    from bnexplore.parents import read_pss, write_pss

    same_sets(read_pss(PSS, names=["a", "b", "c"]), read_jkl(BLIP, names=["a", "b", "c"]), tol=0)
    assert read_pss(PSS).score_name == "bic" and read_pss(PSS).names == ["c", "a", "b"]
    _, _, sets = asia
    path = tmp_path / "asia.pss.gz"
    path.write_bytes(gzip.compress(write_pss(sets).encode()))
    back = read_pss(path)
    same_sets(back, sets)
    assert back.score_name == sets.score_name


@pytest.mark.parametrize("text, line, words", [
    ("-1\nVAR a\n-1\n", 1, "before any 'VAR NAME'"),
    ("META x=1\nfoo bar\nVAR a\n-1\n", 2, "before any 'VAR NAME'"),
    ("VAR a\nVAR b\n-1\n", 1, "'a' lists no parent set"),
    ("VAR a\n-1\nVAR a\n-1\n", 3, "'a' is listed twice"),
    ("VAR a b\n-1\n", 1, "'VAR NAME'"),
    ("VAR a\n-1 zed\n", 2, "parent 'zed' is not a variable"),
    ("VAR a\n-1 a\n", 2, "'a' is its own parent"),
    ("VAR a\n-1 b b\nVAR b\n-1\n", 2, "a parent is listed twice"),
    ("VAR a\n-1\n-2\n", 3, "parent set is listed twice"),
    ("VAR a\nx\n", 2, "'x' is not a number"),
    ("VAR a\ninf\n", 2, "not a finite number"),
    ("META only=1\n", 1, "no 'VAR NAME' line"),
])
def test_a_malformed_pss_is_refused_naming_the_line(text, line, words):
    from bnexplore.parents import read_pss

    with pytest.raises(BNExploreError) as caught:
        read_pss(text)
    message = str(caught.value)
    assert f"line {line}:" in message and words in message and "\n" not in message


def test_cli_writes_and_searches_a_pss_cache(asia, tmp_path, capsys):
    _, scorer, sets = asia
    path = tmp_path / "asia.pss"
    code, out, err = run_cli(capsys, "scores", ASIA, "--score", "bic", "--out", path, "--quiet")
    assert code == 0, err
    assert path.read_text().startswith("META pss_version")
    code, out, err = run_cli(capsys, "learn", ASIA, "--scores", path, "--algorithm", "exact", "--quiet")
    assert code == 0, err
    assert json.loads(out)["score"] == pytest.approx(exact_search(scorer).score, abs=1e-9)
    code, _, err = run_cli(capsys, "scores", ASIA, "--out", path, "--names", "--quiet")
    assert code == 1 and "--names applies to .jkl files only" in err
