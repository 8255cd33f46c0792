"""The benchmark scripts' shared harness and the cold-start script's parsing of ``-X importtime``."""

import json
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_import  # noqa: E402
import harness  # noqa: E402

REPORT = """import time: self [us] | cumulative | imported package
import time:       100 |        100 |     _io
import time:      2000 |     900000 |   numpy.core
import time:      5000 |    1000000 | numpy
import time:       300 |     250000 | pandas
import time:        10 |    2000000 | bnexplore
import time:        10 |     500000 |   bnexplore.graphs
"""


def test_import_seconds_adds_the_cumulative_times_of_top_level_imports_only():
    assert bench_import.import_seconds(REPORT, {"numpy", "pandas"}) == pytest.approx(1.25)
    assert bench_import.import_seconds(REPORT, {"bnexplore"}) == pytest.approx(2.0)
    assert bench_import.import_seconds(REPORT, {"numpy.core", "bnexplore.graphs"}) == 0.0


WORKER = """import sys
sys.path.insert(0, {benchmarks!r})
import harness

def double(x):
    return {{"twice": 2 * x}}

def fail(x):
    raise ValueError(f"no good: {{x}}")

if __name__ == "__main__":
    harness.serve_worker({{"double": double, "fail": fail}}, sys.argv[2])
"""


def test_a_worker_runs_in_its_own_process_and_answers_json_or_its_error(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER.format(benchmarks=str(BENCHMARKS)))
    assert harness.run_worker(script, "double", [21], None) == {"twice": 42}
    assert harness.run_worker(script, "fail", [7], None) == {"error": "ValueError: no good: 7"}


def test_the_json_record_carries_the_machine_and_quick_runs_stay_out_of_results(tmp_path):
    path = harness.write_json(tmp_path / "deep" / "x.json", {"rows": [1, 2]})
    saved = json.loads(path.read_text())
    assert saved["rows"] == [1, 2]
    assert {"cores", "python", "numba", "date", "commit", "command", "load_average"} <= set(saved["machine"])
    assert harness.output_path(None, "scores") == BENCHMARKS / "results" / "scores.json"
    assert harness.output_path(None, "scores", quick=True) == BENCHMARKS / "out" / "scores.json"
    assert harness.output_path("mine.json", "scores", quick=True) == "mine.json"


def test_best_of_keeps_the_fastest_of_its_calls(monkeypatch):
    ticks = [0.0, 3.0, 10.0, 11.0, 20.0, 22.0]  # three calls taking 3, 1 and 2 seconds
    real = harness.time.perf_counter
    monkeypatch.setattr(harness.time, "perf_counter", lambda: ticks.pop(0) if ticks else real())
    calls = []
    assert harness.best_of(lambda: calls.append(1), 3) == 1.0
    assert len(calls) == 3
