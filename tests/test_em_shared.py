"""One E-step shared by parameter EM and the completed data (structural EM prepares it once per network):
with it both give exactly what they give without it, and an E-step of another structure is refused."""

import numpy as np
import pytest

from bnexplore.em import EStep, em_fit
from bnexplore.em import expected
from bnexplore.em.completions import completed_data
from bnexplore.errors import OptionError
from bnexplore.graphs import DAG
from test_em_completions import blanked
from test_inference import random_network


def case(seed, fraction):
    rng = np.random.default_rng(seed)
    network = random_network(rng, int(rng.integers(4, 9)), zeros=0.0)
    return network, blanked(network, 120, fraction, seed)


@pytest.fixture
def propagate_past_the_bound(monkeypatch):
    """Patterns past group_states go to the junction tree however few they are."""
    monkeypatch.setattr(expected, "FEW_PROPAGATED", -1)


@pytest.mark.parametrize("seed", range(8))
def test_completed_data_with_the_e_step_is_the_completed_data_without_it(seed, propagate_past_the_bound):
    """Patterns the E-step sums by groups (its layout) and patterns it propagates (a layout found anew)."""
    network, data = case(seed, [0.15, 0.35, 0.5][seed % 3])
    for group_states in (1024, 4, 0):
        estep = EStep(network, data, group_states=group_states)
        for completions in (1, 3):
            want = completed_data(network, data, completions, seed=seed)
            got = completed_data(network, data, completions, seed=seed, estep=estep)
            np.testing.assert_array_equal(got.codes, want.codes)
            np.testing.assert_array_equal(got.weights, want.weights)


def test_both_sources_of_groups_are_exercised(propagate_past_the_bound):
    kinds = set()
    for seed in range(8):
        network, data = case(seed, [0.15, 0.35, 0.5][seed % 3])
        estep = EStep(network, data, group_states=4)
        kinds.add((len(estep.enumerated) > 0, len(estep.propagated) > 0))
    assert (True, True) in kinds


@pytest.mark.parametrize("seed", range(4))
def test_em_fit_with_a_prepared_e_step_fits_the_same_tables(seed):
    network, data = case(seed, 0.3)
    dag = network.dag()
    want = em_fit(dag, data, tolerance=1e-8)
    got = em_fit(dag, data, tolerance=1e-8, estep=EStep.of(dag, data))
    assert got.fit["log_likelihoods"] == want.fit["log_likelihoods"]
    for a, b in zip(got.cpts, want.cpts):
        np.testing.assert_array_equal(a, b)


def test_an_e_step_of_another_structure_is_refused():
    network, data = case(1, 0.3)
    dag = network.dag()
    empty = DAG.empty(dag.names)
    with pytest.raises(OptionError, match="estep"):
        em_fit(dag, data, estep=EStep.of(empty, data))
    with pytest.raises(OptionError, match="estep"):
        completed_data(network, data, estep=EStep.of(empty, data))
    other = blanked(network, 50, 0.3, 99)
    with pytest.raises(OptionError, match="estep"):
        completed_data(network, data, estep=EStep.of(dag, other))


def test_an_e_step_prepared_from_a_previous_one_runs_as_one_prepared_afresh():
    """Structural EM passes each network's E-step to the next: the data-only pieces are reused (the same
    objects), the structure's own are not; on other data nothing is taken from it."""
    network, data = case(3, 0.3)
    dag = network.dag()
    arcs = dag.to_json()["arcs"]
    other_dag = DAG.from_arcs(arcs[1:], dag.names)
    first = EStep.of(dag, data)
    shared = EStep.of(other_dag, data, previous=first)
    fresh = EStep.of(other_dag, data)
    assert shared.distinct is first.distinct and shared.family_counts is first.family_counts
    tables = em_fit(other_dag, data).cpts
    for estep in (shared, EStep.of(other_dag, data, previous=shared)):
        (counts, log_likelihood), (want, want_log_likelihood) = estep.run(tables), fresh.run(tables)
        assert log_likelihood == want_log_likelihood
        for a, b in zip(counts, want):
            np.testing.assert_array_equal(a, b)
    elsewhere = blanked(network, 90, 0.3, 7)
    moved = EStep.of(dag, elsewhere, previous=first)
    assert moved.distinct is not first.distinct
    (counts, log_likelihood), (want, want_log_likelihood) = moved.run(), EStep.of(dag, elsewhere).run()
    assert log_likelihood == want_log_likelihood
    for a, b in zip(counts, want):
        np.testing.assert_array_equal(a, b)
