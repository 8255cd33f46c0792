"""The blank-cells benchmark's bookkeeping: the blank patterns, the tables it learns from, its summary and target.

The full benchmark (alarm, insurance, 10,000 rows, 5 seeds) runs only as a script; these tests run its
pieces on asia with a few hundred rows.
"""

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_missing as bench  # noqa: E402
import harness  # noqa: E402

from bnexplore.bif import sample_codes  # noqa: E402


def test_completely_at_random_blanks_cells_at_the_rate_and_at_random_only_the_drivers_children():
    net = bench.network("asia")
    codes = np.asarray(sample_codes(net, 4000, seed=1))
    mask = bench.blank_mask(net, codes, "mcar20", np.random.default_rng(0))
    assert mask.shape == codes.shape and abs(mask.mean() - 0.2) < 0.01
    plan = bench.mar_plan(net)
    assert len(plan) == bench.MAR_DRIVERS
    mask = bench.blank_mask(net, codes, "mar", np.random.default_rng(0))
    lose = sorted({c for kids in plan.values() for c in kids})
    assert set(np.flatnonzero(mask.any(axis=0))) == set(lose)
    assert not mask[:, list(plan)].any()  # the drivers stay observed: the pattern is missing at random
    for driver, kids in plan.items():
        for c in kids:
            if all(c not in k for d, k in plan.items() if d != driver):
                assert not mask[codes[:, driver] != 0, c].any()
                lost = mask[codes[:, driver] == 0, c]
                sd = np.sqrt(bench.MAR_RATE * (1 - bench.MAR_RATE) / len(lost))  # of a binomial rate
                assert abs(lost.mean() - bench.MAR_RATE) < 4 * sd


def test_the_table_has_the_networks_states_and_nan_exactly_at_blank_cells():
    net = bench.network("asia")
    codes = np.asarray(sample_codes(net, 300, seed=2))
    mask = bench.blank_mask(net, codes, "mcar30", np.random.default_rng(1))
    table = bench.frame(net, codes, mask)
    assert list(table.columns) == net.names
    assert np.array_equal(table.isna().to_numpy(), mask)
    for v, name in enumerate(net.names):
        assert list(table[name].cat.categories) == net.states[v]
        kept = ~mask[:, v]
        assert np.array_equal(table[name].cat.codes.to_numpy()[kept], codes[kept, v])
    state = bench.encoded(table, "state")
    assert any("<missing>" in s for s in state.states) and state.n_rows == 300
    dropped = bench.encoded(table, "drop")
    assert dropped.n_rows == int((~mask.any(axis=1)).sum())


def test_drop_without_a_complete_row_learns_the_empty_graph():
    net = bench.network("asia")
    codes = np.asarray(sample_codes(net, 50, seed=3))
    mask = np.zeros(codes.shape, dtype=bool)
    mask[:, 0] = True
    assert bench.encoded(bench.frame(net, codes, mask), "drop") is None
    out = bench.learned(None, "drop", net.dag().cpdag())
    assert out["empty"] and out["shd"] == len(net.dag().arcs())  # asia's CPDAG: one pair per true arc


def _run(network, seed, pattern, em, drop, state, complete, em_seconds=2.0):
    def method(shd, seconds=1.0):
        return {"shd": shd, "seconds": seconds, "cpu_seconds": seconds / 2}

    return {"network": network, "seed": seed, "pattern": pattern, "blank": 0.1, "complete_rows": 10,
            "complete": method(complete), "em": method(em, em_seconds), "drop": method(drop), "state": method(state)}


def test_the_target_counts_wins_over_both_and_the_worst_time_ratio():
    runs = [_run("alarm", s, "mcar10", em=10, drop=12, state=11, complete=9) for s in range(7)]
    runs.append(_run("alarm", 7, "mcar10", em=11, drop=12, state=11, complete=9))  # a tie with state: no win
    runs.append(_run("alarm", 8, "mcar10", em=13, drop=12, state=14, complete=9, em_seconds=12.0))
    runs.append(_run("alarm", 9, "mcar20", em=1, drop=12, state=14, complete=9))  # not the target's pattern
    t = bench.target(runs)
    assert t["runs"] == 9 and t["wins"] == 7 and not t["met"]["wins"]
    assert t["median_shd_em"] == 10 and t["median_shd_complete"] == 9 and t["met"]["shd"]
    assert t["shd_within"] == 8  # 13 > 1.25 x 9
    assert t["max_time_ratio"] == 12.0 and not t["met"]["time"]
    lines = bench.summary(runs, bench.METHODS)
    assert lines[2] == "| alarm | mcar10 | 10.0 | 10 | 10 / 12 / 11 / 9 | 7 of 9 | 2.0x, 12.0x | 2.0x, 12.0x | 9 |"
    assert t["median_cpu_ratio"] == 2.0 and t["max_cpu_ratio"] == 12.0


def test_a_quick_run_writes_every_run_and_method_to_its_json(tmp_path, capsys):
    out = tmp_path / "missing.json"
    bench.main(["--quick", "--patterns", "mcar10", "mar", "--methods", "em", "drop", "state",
                "--no-peer", "--json", str(out)])
    record = json.loads(out.read_text())
    assert record["machine"]["cores"] and [r["pattern"] for r in record["runs"]] == ["mcar10", "mar"]
    for r in record["runs"]:
        for method in ("complete", "em", "drop", "state"):
            assert r[method]["shd"] >= 0 and r[method]["seconds"] >= 0
        assert r["em"]["em"]["iterations"] >= 1 and r["em"]["rows"] == record["rows"]
    printed = capsys.readouterr().out
    assert "| asia | mar |" in printed and "Target (mcar10, 1 runs)" in printed


def _fake_rscript(folder, printed, code=0):
    """An ``Rscript`` first on PATH that prints ``printed`` (to stderr when ``code`` is not 0, as R prints its
    errors) and exits with ``code``, whatever it is asked."""
    script = folder / "Rscript"
    script.write_text(f"#!/bin/sh\ncat {'>&2 ' if code else ''}<<'END'\n{printed}\nEND\nexit {code}\n")
    script.chmod(0o755)
    return str(folder) + os.pathsep + os.environ["PATH"]


def test_bnlearns_arcs_and_seconds_are_read_back_and_its_errors_reported(tmp_path, monkeypatch):
    net = bench.network("asia")
    codes = np.asarray(sample_codes(net, 50, seed=4))
    table = bench.frame(net, codes, np.zeros(codes.shape, dtype=bool))
    a, b, c = net.names[0], net.names[3], net.names[5]
    printed = f"version 4.9 \nseconds 1.25 \ncomplete_seconds 0.5 \narc\t{a}\t{b}\narc\t{c}\t{a}"
    monkeypatch.setenv("PATH", _fake_rscript(tmp_path, printed))
    assert bench.bnlearn_sem(net, table, table, 60) == {"version": "4.9", "seconds": 1.25, "complete_seconds": 0.5,
                                                        "arcs": [(a, b), (c, a)]}
    monkeypatch.setenv("PATH", _fake_rscript(tmp_path, "Error in library(bnlearn): there is no package", 1))
    assert bench.bnlearn_sem(net, table, table, 60) == {"error": "Error in library(bnlearn): there is no package"}
    monkeypatch.setattr(harness.shutil, "which", lambda name: None)
    assert bench.bnlearn_sem(net, table, table, 60) == {"error": "no Rscript"}


@pytest.mark.skipif(harness.bnlearn_version() is None, reason="needs R's Rscript with bnlearn installed")
def test_bnlearn_learns_from_the_blanked_table_with_every_variables_states():
    net = bench.network("asia")
    codes = np.asarray(sample_codes(net, 2000, seed=5))
    mask = bench.blank_mask(net, codes, "mcar10", np.random.default_rng(5))
    complete = bench.frame(net, codes, np.zeros(codes.shape, dtype=bool))
    theirs = bench.bnlearn_sem(net, bench.frame(net, codes, mask), complete, 300)
    assert theirs["seconds"] >= 0 and theirs["complete_seconds"] >= 0 and theirs["version"] == harness.bnlearn_version()
    assert theirs["arcs"] and all(u in net.names and v in net.names and u != v for u, v in theirs["arcs"])
    # asia's strongest dependence, either (lung, either) or (tub, either), is found by any sound search
    assert any("either" in arc for arc in theirs["arcs"])
