"""Issue 35 at the command line: ``bnexplore effect-range``, a do-query's range over a credible set.

The printed minimum, mean and maximum are checked against each credible DAG
fitted on its own (``fit_network``) and asked through ``query(..., do=)``, with
the mean weighted by ``exp(score - optimum)``; ``--class K`` against the
members of that class; bad flags are one line naming the flag.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from bnexplore import cli, credible_set, read_csv
from bnexplore.bif import fit_network
from bnexplore.inference import query

ROOT = Path(__file__).resolve().parent.parent
ASIA_CSV = str(ROOT / "sample_data" / "asia.csv")


@pytest.fixture(scope="module")
def asia():
    data = read_csv(ASIA_CSV)
    return data, credible_set(data, score="bic", bf=20)


def each_dag(data, found, members, target, do, evidence):
    """P(target | evidence, do) of each member DAG fitted by itself, and its normalised Bayes-factor weight."""
    answers, scores = [], []
    for i in members:
        network = fit_network(found.dag(i), data, ess=1.0)
        posterior = query(network, [target], evidence, do=do).posterior[target]
        answers.append([posterior[s] for s in network.states[network.names.index(target)]])
        scores.append(found.scores[i])
    weights = np.exp(np.array(scores) - max(found.scores))
    return np.array(answers), weights / weights.sum()


def run(capsys, *flags):
    code = cli.main(["effect-range", ASIA_CSV, "--quiet", *flags])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_range_is_each_credible_dags_own_answer(asia, capsys):
    data, found = asia
    code, out, _ = run(capsys, "--target", "smoke", "--do", "lung=yes")
    assert code == 0
    payload = json.loads(out)
    answers, weights = each_dag(data, found, range(len(found)), "smoke", {"lung": "yes"}, {})
    assert payload["members"] == list(range(len(found)))
    assert payload["credible_set"] == {"dags": len(found), "classes": len(found.classes), "bf": 20.0, "score": "bic"}
    np.testing.assert_allclose(payload["minimum"], answers.min(axis=0), atol=1e-12)
    np.testing.assert_allclose(payload["maximum"], answers.max(axis=0), atol=1e-12)
    np.testing.assert_allclose(payload["mean"], weights @ answers, atol=1e-12)
    assert payload["maximum"][0] - payload["minimum"][0] > 0.1  # the DAGs disagree on what setting lung does


def test_class_and_evidence_narrow_the_query(asia, capsys, tmp_path):
    data, found = asia
    out_file = tmp_path / "range.json"
    code, _, _ = run(capsys, "--target", "dysp", "--do", "bronc=yes", "--evidence", "asia=no", "--class", "1",
                     "--json", str(out_file))
    assert code == 0
    payload = json.loads(out_file.read_text())
    members = list(found.classes[0].members)
    answers, weights = each_dag(data, found, members, "dysp", {"bronc": "yes"}, {"asia": "no"})
    assert payload["members"] == members and payload["evidence"] == {"asia": "no"}
    np.testing.assert_allclose(payload["mean"], weights @ answers, atol=1e-12)
    np.testing.assert_allclose(payload["minimum"], answers.min(axis=0), atol=1e-12)


@pytest.mark.parametrize("flags, words", [
    (["--target", "smokex", "--do", "lung=yes"], "--target smokex: 'smokex' is not a variable"),
    (["--target", "smoke", "--do", "lungx=yes"], "--do: 'lungx' is not a variable"),
    (["--target", "smoke", "--do", "lung=yes", "--evidence", "asiax=no"], "--evidence: 'asiax' is not a variable"),
    (["--target", "smoke", "--do", "lung=yes", "--class", "9"], "--class must be a class rank from 1 to 2, got 9"),
    (["--target", "smoke", "--do", "lung=yes", "--bf", "0.5"], "--bf must be a number of at least 1, got 0.5"),
    (["--target", "smoke", "--do", "lung"], "cannot read 'lung' in --do"),
])
def test_bad_flags_are_one_line_naming_the_flag(capsys, flags, words):
    code, out, err = run(capsys, *flags)
    assert code == 1 and out == ""
    assert words in err and "Traceback" not in err and err.count("\n") == 1
