"""The BLIP benchmark's own parts: BLIP's .res reader, the independent numpy BIC, the DEBD split, the table."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_blip  # noqa: E402
from bnexplore.scores import Scorer  # noqa: E402


def test_a_res_file_gives_parent_lists_and_blips_score(tmp_path):
    """BaseSolver.writeStructure's format: ``i: score`` and `` (p1,p2)`` when there are parents."""
    res = tmp_path / "x.res"
    res.write_text("0: -120.50  (2,3)\n1: -7.25 \n2: -3.00  (3)\n3: -1.00 \n\nScore: -131.750 \n")
    parents, score = bench_blip.parse_res(res, 4)
    assert parents == [[2, 3], [], [3], []] and score == -131.75


def test_the_numpy_bic_agrees_with_the_scorer_on_random_binary_data():
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 2, (400, 6)).astype(np.int8)
    codes[:, 2] = codes[:, 0] ^ (rng.random(400) < 0.2)
    codes[:, 4] = codes[:, 5]  # a column of only one state below still counts both states' parameters
    codes[:, 5] = 0
    parents = [[], [0], [0, 1], [2], [], [1, 3, 4]]
    expected = Scorer(bench_blip.dataset(codes), "bic").total(parents)
    assert bench_blip.numpy_bic(codes, parents) == pytest.approx(expected, rel=1e-12)
    # and it is a BIC: the log-likelihood of the empty graph minus log(N)/2 per free parameter
    p = codes.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = np.nansum(400 * (p * np.log(p) + (1 - p) * np.log(1 - p)))
    assert bench_blip.numpy_bic(codes, [[]] * 6) == pytest.approx(ll - np.log(400) / 2 * 6)


def test_without_a_train_file_the_valid_and_test_splits_are_used(tmp_path):
    folder = tmp_path / "datasets" / "toy"
    folder.mkdir(parents=True)
    (folder / "toy.train.data").write_text("")
    (folder / "toy.valid.data").write_text("0,1\n1,1\n")
    (folder / "toy.test.data").write_text("1,0\n")
    files, split = bench_blip.split_files(tmp_path, "toy")
    assert split == "valid+test" and bench_blip.read_rows(files).tolist() == [[0, 1], [1, 1], [1, 0]]
    (folder / "toy.train.data").write_text("0,0\n")
    assert bench_blip.split_files(tmp_path, "toy") == ([str(folder / "toy.train.data")], "train")


def test_the_table_says_whether_the_learner_is_at_or_above_hc_and_blip(tmp_path):
    base = {"dataset": "toy", "n": 2, "rows": 3, "split": "train", "budget": 60, "agree": True}
    rows = [{**base, "method": "blip-asobs", "bic": -12.0, "wall": 61, "peak_mib": 100},
            {**base, "method": "blip-winasobs", "bic": -11.0, "wall": 61, "peak_mib": 100},
            {**base, "method": "learner", "bic": -10.0, "wall": 62, "peak_mib": 200, "search_seconds": 60.5,
             "stats": {"seed_seconds": 1, "parent_seconds": 29, "ordering_seconds": 30, "restarts": 5}},
            {**base, "method": "hc", "bic": -9.0, "wall": 62, "peak_mib": 150}]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    line = next(line for line in bench_blip.table(path).splitlines() if line.startswith("| toy"))
    assert "| no (-1) | yes (+1) |" in line and "**-9**" in line
