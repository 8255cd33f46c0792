"""Every public function that learns from or scores data takes a Dataset, and says how to make one when given a
pandas DataFrame, a numpy array or a file name (before: an AttributeError deep inside, or, from ``impute`` and
``completed_data``, the table handed back with its blanks unfilled)."""

import pandas as pd
import pytest

import bnexplore as bx
from bnexplore.bif import fit_network as fit_complete
from bnexplore.data import check_dataset
from bnexplore.em import EStep
from bnexplore.errors import DataError
from bnexplore.independence import IndependenceTest, independence_test
from bnexplore.search import fitted_networks
from bnexplore.search.structural_em import structural_em

FRAME = pd.DataFrame({"a": list("xyxyxxyy") * 20, "b": list("ppqqpqpq") * 20})
DATA = bx.Encoder().fit_transform(FRAME)
DAG = bx.DAG.from_arcs([("a", "b")], DATA.names)
NETWORK = bx.fit_network(DAG, DATA)

CALLS = {
    "learn": lambda x: bx.learn(x, "hc"),
    "Scorer": lambda x: bx.Scorer(x),
    "bootstrap": lambda x: bx.bootstrap(x, "hc", R=2),
    "credible_set": lambda x: bx.credible_set(x, bf=2),
    "effect_range": lambda x: bx.effect_range(bx.credible_set(DATA, bf=2), "b", {"a": "x"}, data=x),
    "fitted_networks": lambda x: fitted_networks(bx.credible_set(DATA, bf=2), x),
    "structural_em": lambda x: structural_em(x, "hc"),
    "cross_validate_networks": lambda x: bx.cross_validate_networks(x, {"a->b": DAG}),
    "fit_network": lambda x: bx.fit_network(DAG, x),
    "bif.fit_network": lambda x: fit_complete(DAG, x),
    "em_fit": lambda x: bx.em_fit(DAG, x),
    "EStep": lambda x: EStep(NETWORK, x),
    "expected_counts": lambda x: bx.expected_counts(NETWORK, x),
    "observed_log_likelihood": lambda x: bx.observed_log_likelihood(NETWORK, x),
    "completed_data": lambda x: bx.completed_data(NETWORK, x),
    "impute": lambda x: bx.impute(NETWORK, x),
    "IndependenceTest": lambda x: IndependenceTest(x),
    "independence_test": lambda x: independence_test("g2", x),
}

NOT_DATASETS = {
    "DataFrame": (FRAME, "not a pandas DataFrame: encode the table first, data = "
                         "bnexplore.Encoder().fit_transform(df)"),
    "array": (DATA.codes, "not a numpy array: wrap integer codes with bnexplore.Dataset.from_codes(codes, names="),
    "file name": ("survey.csv", "not the file name 'survey.csv': read the file with bnexplore.read_table(path)"),
}


@pytest.mark.parametrize("given", list(NOT_DATASETS))
@pytest.mark.parametrize("name", list(CALLS))
def test_a_table_that_is_not_a_dataset_is_refused_with_the_way_to_one(name, given):
    value, says = NOT_DATASETS[given]
    with pytest.raises(DataError) as error:
        CALLS[name](value)
    keyword = "dataset" if name == "bif.fit_network" else "data"
    assert str(error.value).startswith(f"{keyword} must be a Dataset, {says}")


def test_a_frame_with_blank_cells_is_not_handed_back_by_impute_as_if_complete():
    blanks = FRAME.copy()
    blanks.loc[3, "b"] = None
    with pytest.raises(DataError, match="encode the table first"):
        bx.impute(NETWORK, blanks)
    coded = bx.Encoder(missing="em").fit_transform(blanks)  # the way the message names fills the blank
    filled = bx.impute(NETWORK, coded)
    assert filled.blank is None and filled.to_frame().notna().all().all()


def test_a_dataset_passes_as_itself_and_other_objects_are_named_by_their_type():
    assert check_dataset(DATA) is DATA
    with pytest.raises(DataError, match=r"^data must be a Dataset, not a list: read a file with "):
        check_dataset([[0, 1]])
    with pytest.raises(DataError, match=r"^train must be a Dataset, not a pandas Series"):
        check_dataset(FRAME["a"], "train")

