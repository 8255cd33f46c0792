"""Structural EM's M-step climbs on the completed data as unweighted rows when every weight is a whole number
(one completion per row): the same counts as the weighted table, so the same networks and ratings."""

import numpy as np
import pytest

from bnexplore.bif import sample_codes
from bnexplore.data import Dataset
from bnexplore.search import structural_em as module
from bnexplore.search.structural_em import structural_em
from test_structural_em import blank_sample, five, three_records


@pytest.fixture(scope="module")
def blanks():
    return blank_sample(five(), 1500, 0.2, 3)


def scored_tables(monkeypatch):
    """Record each completed table and each data set a Scorer is built on."""
    tables, scored = [], []
    real_completed, real_scorer = module.completed_data, module.Scorer
    monkeypatch.setattr(module, "completed_data", lambda *a, **k: tables.append(real_completed(*a, **k)) or tables[-1])
    monkeypatch.setattr(module, "Scorer", lambda data, **k: scored.append(data) or real_scorer(data, **k))
    return tables, scored


def distinct_counts(data):
    """``{row: total weight}`` of a data set (weight 1 per row when unweighted)."""
    weights = np.ones(data.n_rows) if data.weights is None else data.weights
    out = {}
    for row, w in zip(map(tuple, np.asarray(data.codes).tolist()), weights):
        out[row] = out.get(row, 0.0) + w
    return out


@pytest.mark.parametrize("which", ["five", "three records"])
def test_one_completion_per_row_is_climbed_on_as_unweighted_rows_with_the_same_counts(blanks, monkeypatch, which):
    data = blanks if which == "five" else three_records()
    tables, scored = scored_tables(monkeypatch)
    structural_em(data, "hc", completions=1)
    on_tables = [d for d in scored if np.array_equal(d.arities, data.arities)]
    assert tables and len(on_tables) >= len(tables)
    for table in tables:
        assert table.weights is not None
        rows = [d for d in on_tables if d.weights is None and distinct_counts(d) == distinct_counts(table)]
        assert rows and all(d.n_rows == data.n_rows for d in rows)
    assert all(d.weights is None for d in on_tables)


def test_fractional_weights_keep_the_weighted_table(blanks, monkeypatch):
    """Two completions per row: a row with one binary blank cell is split by its posterior."""
    tables, scored = scored_tables(monkeypatch)
    structural_em(blanks, "hc", completions=2)
    assert any((t.weights != np.rint(t.weights)).any() for t in tables)
    weighted = [d for d in scored if d.weights is not None]
    assert any(d is t for t in tables for d in weighted)


@pytest.mark.parametrize("which", ["five", "three records"])
def test_the_networks_and_ratings_are_those_of_the_weighted_table(blanks, monkeypatch, which):
    data = blanks if which == "five" else three_records()
    fast = structural_em(data, "hc", score="bdeu", ess=2.0)
    monkeypatch.setattr(module.Run, "_rows", lambda self, completed: completed)
    slow = structural_em(data, "hc", score="bdeu", ess=2.0)
    assert fast.graph == slow.graph and fast.score == pytest.approx(slow.score, rel=1e-12)
    for a, b in zip(fast.extra["em"]["iterations"], slow.extra["em"]["iterations"], strict=True):
        for key in ("log_likelihood", "observed_score", "expected_score"):
            assert a[key] == pytest.approx(b[key], rel=1e-12)
        assert a["arcs"] == b["arcs"] and a["changes"] == b["changes"]


def test_weights_a_rounding_away_from_whole_numbers_count_as_whole(monkeypatch):
    """A likelihood-weighted row gets weight * (count / weight); those within WHOLE of a whole number are rows."""
    tables, scored = scored_tables(monkeypatch)
    real = module.completed_data

    def nudged(*a, **k):
        table = real(*a, **k)
        tables.pop()  # recorded by scored_tables' wrapper of the real one
        weights = table.weights * (1 + 1e-15)
        tables.append(Dataset(table.codes, table.arities, table.names, table.states, weights=weights))
        return tables[-1]

    monkeypatch.setattr(module, "completed_data", nudged)
    data = three_records()
    structural_em(data, "hc")
    assert any((t.weights != np.rint(t.weights)).any() for t in tables)
    assert all(d.weights is None for d in scored if np.array_equal(d.arities, data.arities))
