"""The Python API's arguments of the wrong kind are refused in words naming how to make the right one.

Every public function that learns from or scores data takes a Dataset, a search a Scorer, a function that reads
tables a Network, a fit a DAG, a query dicts; given a pandas DataFrame, a numpy array, a file name, a DAG where a
Network belongs or a CPDAG where a DAG belongs, each said nothing useful before (an AttributeError deep inside),
or worse: ``impute`` handed a DataFrame back with its blanks unfilled, and ``fit_network`` fitted a CPDAG as the
graph of its arcs alone, silently dropping every link."""

import threading

import numpy as np
import pandas as pd
import pytest

import bnexplore as bx
from bnexplore.bif import fit_network as fit_complete
from bnexplore.data import check_dataset
from bnexplore.em import EStep
from bnexplore.errors import BIFError, DataError, OptionError, ResourceError, ScoreError
from bnexplore.independence import IndependenceTest, independence_test
from bnexplore.search import fitted_networks, hill_climb, rpdag_hill_climb, tabu_search
from bnexplore.search.ges import ges
from bnexplore.search.mmhc import mmhc
from bnexplore.search.ordering import ordering_search
from bnexplore.search.pc import pc_stable
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


def test_an_object_with_a_datasets_arrays_is_taken_as_one():
    """The scores read plain arrays (the tests' reference data are namespaces of them)."""
    class Coded:
        codes, arities, names = DATA.codes, DATA.arities, DATA.names

    coded = Coded()
    assert check_dataset(coded) is coded
    assert bx.Scorer(coded, "bic").total(DAG) == bx.Scorer(DATA, "bic").total(DAG)
    with pytest.raises(DataError, match="not a pandas DataFrame"):  # a table with such columns is still a table
        check_dataset(pd.DataFrame({"codes": [0], "arities": [2], "names": ["a"]}))


SEARCHES = {"hill_climb": hill_climb, "tabu_search": tabu_search, "rpdag_hill_climb": rpdag_hill_climb,
            "pc_stable": pc_stable, "ges": ges, "mmhc": mmhc, "exact_search": bx.exact_search,
            "ordering_search": ordering_search, "candidate_parent_sets": bx.candidate_parent_sets}


@pytest.mark.parametrize("name", list(SEARCHES))
def test_a_search_given_data_instead_of_a_scorer_says_how_to_call_it(name):
    for given in (DATA, FRAME):
        says = (rf"^{name} takes a Scorer, not a {type(given).__name__}: {name}\(bnexplore\.Scorer\(data, "
                r"score='bdeu'\)\); learn\(data, \.\.\.\) builds it$")
        with pytest.raises(ScoreError, match=says):
            SEARCHES[name](given)
    assert SEARCHES[name](bx.Scorer(DATA, "bic")) is not None  # the right argument still works


def test_hand_edits_given_data_instead_of_a_scorer_say_so():
    with pytest.raises(ScoreError, match="^Workbench takes a Scorer, not a Dataset"):
        bx.Workbench(DAG, DATA)
    with pytest.raises(ScoreError, match="^score_change takes a Scorer, not a DataFrame"):
        bx.score_change(DAG, ("delete", "a", "b"), FRAME)


@pytest.mark.parametrize("door, call", [
    ("sample", lambda net: bx.sample(net, 5)),
    ("write_bif", lambda net: bx.write_bif(net)),
    ("query", lambda net: bx.query(net, "b")),
    ("InferenceEngine", lambda net: bx.InferenceEngine(net)),
    ("EM", lambda net: bx.expected_counts(net, DATA)),
    ("to_pgmpy", lambda net: bx.to_pgmpy(net)),
])
def test_a_dag_where_a_network_belongs_is_refused_naming_the_fit(door, call):
    with pytest.raises(BIFError, match=rf"^{door} takes a bnexplore Network \(read_network, read_bif or "
                                       r"fit_network\), not a DAG: fit its tables first, fit_network\(dag, data\)$"):
        call(DAG)
    with pytest.raises(BIFError, match=rf"^{door} takes a bnexplore Network .*, not a str$"):
        call("asia.bif")


def test_a_cpdag_with_links_is_not_fitted_as_the_graph_of_its_arcs():
    """Before, fit_network(cpdag) fitted the CPDAG's arcs alone: a -- b became two independent variables."""
    cpdag = DAG.cpdag()
    assert cpdag.links() and not cpdag.arcs()
    for fit in (lambda g: bx.fit_network(g, DATA), lambda g: fit_complete(g, DATA), lambda g: bx.em_fit(g, DATA),
                lambda g: bx.fit_network(g, DATA, method="em")):
        with pytest.raises(DataError, match=r"^dag must be a DAG, got a CPDAG; its 1 link\(s\) \(undirected edges\) "
                                            r"leave those tables undefined: fit one of its members, "
                                            r"cpdag\.extension\(\)$"):
            fit(cpdag)
    with pytest.raises(DataError, match=r"^dag must be a DAG, got a list; make one with DAG\.from_arcs"):
        bx.fit_network([("a", "b")], DATA)
    v_structure = bx.DAG.from_arcs([("a", "b"), ("c", "b")], ["a", "b", "c"])
    three = bx.Encoder().fit_transform(FRAME.assign(c=list("uvvuuvvu") * 20))
    directed = v_structure.cpdag()  # every edge directed: its tables are the DAG's
    assert not directed.links()
    assert np.array_equal(bx.fit_network(directed, three).cpts[1], bx.fit_network(v_structure, three).cpts[1])


def test_sampling_more_rows_than_memory_holds_is_refused_before_allocating():
    with pytest.raises(ResourceError, match=r"^sampling 10,000,000,000,000 rows of 2 variables needs .* of memory but "
                                            r"only .* is available; sample fewer rows$"):
        bx.sample(NETWORK, 10**13)


def test_evidence_given_as_pairs_is_refused_naming_the_dict_it_should_be():
    for call in (lambda **kw: bx.query(NETWORK, "b", **kw), lambda **kw: bx.InferenceEngine(NETWORK).query("b", **kw)):
        with pytest.raises(DataError, match=r"^evidence must be a dict keyed by variable, e\.g\. "
                                            r"evidence=\{'smoke': 'yes'\}, not a list$"):
            call(evidence=[("a", "x")])
        with pytest.raises(DataError, match="^likelihood must be a dict keyed by variable"):
            call(likelihood=[0.5, 0.5])
        with pytest.raises(DataError, match="^do must be a dict keyed by variable"):
            call(do="a")
        assert sum(call(evidence={"a": "x"}).posterior["b"].values()) == pytest.approx(1.0)


def test_interventions_and_evidence_of_the_wrong_kind_are_refused_at_every_door_that_takes_them():
    with pytest.raises(BIFError, match="^mutilated_network takes a bnexplore Network .*, not a DAG"):
        bx.mutilated_network(DAG, {"a": "x"})
    with pytest.raises(DataError, match=r"^do must be a dict keyed by variable, e\.g\. do=\{'smoke': 'yes'\}, not a "
                                        r"list$"):
        bx.mutilated_network(NETWORK, [("a", "x")])
    credible = bx.credible_set(DATA, bf=2)
    with pytest.raises(DataError, match="^do must be a dict keyed by variable.*, not a list$"):
        bx.effect_range(credible, "b", [("a", "x")], data=DATA)
    with pytest.raises(DataError, match="^evidence must be a dict keyed by variable.*, not a tuple$"):
        bx.effect_range(credible, "b", {"a": "x"}, evidence=("a", "y"), data=DATA)


@pytest.mark.parametrize("keyword, value, says", [
    ("progress", 5, "progress must be a function called with a dict of progress, not a int"),
    ("stop", True, "stop must be a threading.Event or a function returning True to stop, not a bool"),
])
def test_a_progress_or_stop_that_cannot_be_called_is_refused_before_the_search(keyword, value, says):
    with pytest.raises(OptionError, match=f"^{says}$"):
        bx.learn(DATA, "hc", **{keyword: value})
    seen = []
    bx.learn(DATA, "hc", progress=seen.append, stop=threading.Event())  # the kinds it takes
    assert seen and all("done" in info for info in seen)
