"""The app's import and export of network files in every format of the registry (issue 36), with AppTest.

A network file is uploaded on the Networks page (its uploader takes every format's endings): it becomes a
result, attached to the data in use when its variables and states are the data's, with its own tables,
which the Ask view queries and the export writes; a bad file shows one error line and changes nothing.
The export row offers the network in every format (a select box and one button); what it offers reads
back to the same network. Formats whose module has not landed yet are skipped.
"""

import gzip
import importlib.util
import io
import re

import numpy as np
import pytest

from bnexplore import bundled
from bnexplore.bif import Network, fit_network, read_bif
from bnexplore.formats import FORMATS, read_graph, read_network, write_network
from bnexplore.inference import query
from bnexplore.scores import Scorer
from bnexplore.search import learn
from bnexplore_app import views
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from test_app import errors, go, new_session, no_exception, run_search


def landed(spec):
    return importlib.util.find_spec(spec.module) is not None


def each_format(tables=None):
    """Every format of the registry (with tables, or graph-only, or both), skipped until its module lands."""
    return [pytest.param(name, marks=pytest.mark.skipif(not landed(spec), reason=f"{spec.module} not there yet"))
            for name, spec in FORMATS.items() if tables is None or spec.tables == tables]


def random_tables(network, seed):
    """``network``'s graph, names and states with other tables (so an answer from them is not a fit to data)."""
    rng = np.random.default_rng(seed)
    cpts = [rng.dirichlet(np.ones(cpt.shape[-1]), size=cpt.shape[:-1]) for cpt in network.cpts]
    return Network(network.name, network.names, network.states, network.parents, cpts)


ASIA = random_tables(read_bif(bundled.network_path("asia")), seed=7)
EVIDENCE = {"smoke": "yes", "xray": "yes"}


@pytest.fixture
def downloads(monkeypatch):
    """Every file the app offers for download in this test, ``(file name, bytes)`` by its media id."""
    files = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def recording(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        files[file_id] = (filename, path_or_data)
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", recording)
    return files


def offered(downloads, button):
    """``(file name, bytes)`` a download button offers."""
    return downloads[re.search(r"/([0-9a-f]+)\.\w+$", button.proto.url).group(1)]


@pytest.fixture(scope="module")
def at():
    """One session on the bundled asia sample (shared: each test imports files of its own names)."""
    return new_session()


def upload(at, name, data, key="net_import"):
    """Give the Networks page's import the file ``name`` with ``data``."""
    go(at, "4_Networks")
    at.file_uploader(key=key).set_value((name, data, "application/octet-stream"))
    at.run()
    no_exception(at)


def successes(at):
    return " ".join(s.value for s in at.success)


def ask(at, name, evidence):
    """The Ask view of network ``name`` with ``evidence`` set, one piece at a time; returns P(evidence) as shown."""
    go(at, "4_Networks")
    at.selectbox(key="net_pick_box").set_value(name)
    at.radio(key="keep.net_view").set_value("ask")
    at.run()
    no_exception(at)
    for variable, value in evidence.items():
        at.selectbox(key=f"ask-var-{name}").set_value(variable)
        at.run()
        at.radio(key=f"ask-state-{name}-{variable}").set_value(value)
        at.button(key=f"ask-set-{name}").click()
        at.run()
        no_exception(at)
    return {m.label: m.value for m in at.metric}["P(evidence)"]


def same_network(found, expected, tolerance=1e-12):
    assert found.names == expected.names and found.states == expected.states
    assert found.parents == expected.parents
    for got, want in zip(found.cpts, expected.cpts):
        np.testing.assert_allclose(got, want, rtol=0, atol=tolerance)


@pytest.mark.parametrize("format", each_format(tables=True))
def test_a_network_file_on_the_data_in_use_is_attached_and_asked_with_its_own_tables(at, format, tmp_path):
    spec = FORMATS[format]
    name = f"asia_{format}{spec.extensions[0]}"
    go(at, "4_Networks")
    data_key = at.session_state["data_key"]
    upload(at, name, write_network(ASIA, format=format).encode())
    assert not at.error
    assert (f"Imported `{name}` ({spec.title}) as `{name}`: 8 variables and 8 arcs, with its own "
            "probability tables; its variables and states are those of the data in use, so it is attached to "
            "them: BDeu(1) score") in successes(at)
    entry = at.session_state["results"][name]
    assert entry.data_key == data_key and entry.result.algorithm == views.IMPORTED
    data = at.session_state["dataset"]
    assert entry.result.score == pytest.approx(Scorer(data, score="bdeu", ess=1.0).total(ASIA.dag()), rel=1e-12)
    same_network(views.file_network(entry), ASIA)

    shown = ask(at, name, EVIDENCE)
    want = query(ASIA, evidence=EVIDENCE)
    assert shown == f"{want.evidence_probability:.4g}"
    refit = query(fit_network(ASIA.dag(), data), evidence=EVIDENCE)  # what the old code answered
    assert shown != f"{refit.evidence_probability:.4g}"
    page = at.get("iframe")[0].proto.srcdoc
    assert f"{100 * want.posterior['lung']['yes']:.0f}%" in page
    assert any("the imported file's own probability tables" in c.value for c in at.caption)
    table = at.dataframe[0].value  # the first node's own table, without counts
    assert list(table.columns) == [f"P({s})" for s in ASIA.states[0]]
    np.testing.assert_allclose(table.to_numpy(float)[0], ASIA.cpts[0], rtol=0, atol=1e-15)


def test_a_network_file_listing_the_variables_in_another_order_is_scored_as_its_own_dag(at):
    """The Networks page's score of an imported file whose variables come in reverse order: the same DAG's
    (before, the scorer read the DAG by node position and the page showed another DAG's score)."""
    n = ASIA.n_vars
    reversed_asia = Network("asia", ASIA.names[::-1], ASIA.states[::-1],
                            [[n - 1 - p for p in ASIA.parents[v]] for v in reversed(range(n))], ASIA.cpts[::-1])
    assert reversed_asia.dag().arcs() != ASIA.dag().arcs()  # the same arcs, at other positions
    upload(at, "reversed.bif", write_network(reversed_asia, format="bif").encode())
    assert not at.error
    data = at.session_state["dataset"]
    want = Scorer(data, score="bdeu", ess=1.0).total(ASIA.dag())
    assert at.session_state["results"]["reversed.bif"].result.score == pytest.approx(want, rel=1e-12)
    at.selectbox(key="net_pick_box").set_value("reversed.bif")
    at.radio(key="keep.net_view").set_value("DAG")  # the shared session may be on another view
    at.run()
    no_exception(at)
    assert f"{want:,.2f}" in [str(m.value) for m in at.metric]  # the page's Score metric


@pytest.mark.parametrize("format", each_format())
def test_a_network_of_other_variables_is_kept_without_data_and_says_why(at, format):
    spec = FORMATS[format]
    alarm = read_bif(bundled.network_path("alarm"))
    name = f"alarm{spec.extensions[0]}.gz"
    upload(at, name, gzip.compress(write_network(alarm if spec.tables else alarm.dag(), format=format).encode()))
    assert not at.error
    tables = "with its own probability tables" if spec.tables else "a graph without tables"
    assert (f"Imported `{name}` ({spec.title}) as `{name}`: 37 variables and 46 arcs, {tables}; kept "
            "without data: 37 of its variables are not in the data") in successes(at)
    entry = at.session_state["results"][name]
    assert entry.data_key is None and entry.dataset is None and np.isnan(entry.result.score)
    assert entry.result.graph == alarm.dag()
    if spec.tables:
        same_network(views.file_network(entry), alarm)
        evidence = {"HYPOVOLEMIA": "TRUE"}
        assert ask(at, name, evidence) == f"{query(alarm, evidence=evidence).evidence_probability:.4g}"
    else:  # no tables and no data to fit them: the Ask view says so, and the import stays on the page
        at.selectbox(key="net_pick_box").set_value(name)
        at.radio(key="keep.net_view").set_value("ask")
        at.run()
        no_exception(at)
        assert any("imported as a graph without probability tables" in i.value for i in at.info)
        assert at.file_uploader(key="net_import")


def test_states_other_than_the_datas_keep_a_network_without_data(at):
    other = Network("asia", ASIA.names, [[f"{s}!" for s in labels] if name == "lung" else labels
                                         for name, labels in zip(ASIA.names, ASIA.states)], ASIA.parents, ASIA.cpts)
    upload(at, "asia_states.bif", write_network(other, format="bif").encode())
    assert "kept without data: the states of 'lung' are not the data's" in successes(at)
    assert at.session_state["results"]["asia_states.bif"].data_key is None


@pytest.mark.parametrize("format", each_format(tables=True))
def test_a_bad_network_file_shows_one_error_and_changes_nothing(at, format):
    spec = FORMATS[format]
    go(at, "4_Networks")
    before = list(at.session_state["results"])
    text = write_network(ASIA, format=format)
    name = f"broken{spec.extensions[0]}"
    upload(at, name, text[: len(text) // 2].encode())
    assert len(at.error) == 1 and not at.success
    message = errors(at)
    assert re.fullmatch(rf"`{re.escape(name)}` cannot be imported: `[^`]*\bline \d+\b[^`]*`\.", message), message
    assert "\n" not in message
    assert list(at.session_state["results"]) == before


def test_a_file_of_no_network_format_is_refused(at):
    go(at, "4_Networks")
    before = list(at.session_state["results"])
    upload(at, "table.csv.gz", b"\x1f\x8b not a gzip")
    assert errors(at).startswith("`table.csv.gz` cannot be imported: `the name ends in no network format's ending")
    assert list(at.session_state["results"]) == before


def exported(at, downloads, format):
    """Pick ``format`` in the export row; the ``(file name, bytes)`` its download button offers."""
    at.selectbox(key="keep.export_format").set_value(format)
    at.run()
    no_exception(at)
    (button,) = [b for b in at.main.get("download_button") if b.label == FORMATS[format].title]
    return offered(downloads, button)


def test_the_export_offers_every_format_and_reads_back_to_the_files_network(at, downloads):
    upload(at, "asia_export.bif", write_network(ASIA, format="bif").encode())
    go(at, "4_Networks")
    at.selectbox(key="net_pick_box").set_value("asia_export.bif")
    at.radio(key="keep.net_view").set_value("DAG")
    at.run()
    assert at.selectbox(key="keep.export_format").options == [
        f"{spec.title} ({spec.extensions[0]})" for spec in FORMATS.values()]
    for format, spec in FORMATS.items():
        if not landed(spec):
            continue
        file_name, data = exported(at, downloads, format)
        assert file_name == f"asia_export{spec.extensions[0]}"
        if spec.tables:
            same_network(read_network(io.BytesIO(data), format), ASIA)
        else:
            assert read_graph(io.BytesIO(data), format) == ASIA.dag()
    labels = [b.label for b in at.main.get("download_button")]
    assert labels[0] == "JSON" and labels[-4:] == ["GraphML", "DOT", "HTML", "PNG"]


def test_a_learned_networks_export_writes_its_fitted_tables_in_every_format(at, downloads):
    job = run_search(at, algorithms=("hc",))
    name, result = job.results[0][0].name, job.results[0][1]
    go(at, "4_Networks")
    at.selectbox(key="net_pick_box").set_value(name)
    at.run()
    fitted = fit_network(result.graph, at.session_state["dataset"])
    for format, spec in FORMATS.items():
        if landed(spec) and spec.tables:
            same_network(read_network(io.BytesIO(exported(at, downloads, format)[1]), format), fitted)


def test_the_ground_truths_export_writes_the_true_networks_own_tables(at, downloads):
    """The truth's export is the true network (asia's own tables, its own state order), not tables refitted
    to the sample, and its help says so."""
    go(at, "4_Networks")
    at.selectbox(key="net_pick_box").set_value("ground truth: asia")
    at.radio(key="keep.net_view").set_value("DAG")
    at.run()
    truth = read_bif(bundled.network_path("asia"))
    for format in ("bif", "net"):
        same_network(read_network(io.BytesIO(exported(at, downloads, format)[1]), format), truth)
    (button,) = [b for b in at.main.get("download_button") if b.label == FORMATS["net"].title]
    assert "the true network's own probability tables" in button.help


def test_a_saved_session_and_an_exported_result_keep_the_files_tables(at, downloads):
    alarm = random_tables(read_bif(bundled.network_path("alarm")), seed=3)
    upload(at, "alarm_own.bif", write_network(alarm, format="bif").encode())
    upload(at, "asia_own.bif", write_network(ASIA, format="bif").encode())
    exported = at.session_state["results"]["asia_own.bif"].result.dumps()
    at.sidebar.button(key="session_save").click()
    at.run()
    (button,) = at.sidebar.get("download_button")
    saved = offered(downloads, button)[1]

    fresh = new_session()
    fresh.sidebar.file_uploader(key="session_open").set_value(("work.bnx", saved, "application/gzip"))
    fresh.run()
    no_exception(fresh)
    assert not fresh.sidebar.error, [e.value for e in fresh.sidebar.error]
    kept = fresh.session_state["results"]
    same_network(views.file_network(kept["alarm_own.bif"]), alarm)
    assert np.isnan(kept["alarm_own.bif"].result.score)  # scored on no data, and so saved
    same_network(views.file_network(kept["asia_own.bif"]), ASIA)
    assert kept["asia_own.bif"].data_key == fresh.session_state["data_key"]
    assert ask(fresh, "asia_own.bif", EVIDENCE) == f"{query(ASIA, evidence=EVIDENCE).evidence_probability:.4g}"

    upload(fresh, "asia_own.json", exported.encode())  # the JSON export carries the tables too
    same_network(views.file_network(fresh.session_state["results"]["asia_own.bif (2)"]), ASIA)


def test_a_result_whose_kept_tables_are_broken_is_refused(at):
    result = learn(at.session_state["dataset"], "hc")
    result.extra[views.FILE_NETWORK] = {"format": "bif", "bif": ["/etc/passwd"]}
    before = list(at.session_state["results"])
    upload(at, "tampered.json", result.dumps().encode())
    assert errors(at).startswith("`tampered.json` cannot be imported: `BIF")
    assert list(at.session_state["results"]) == before


def test_the_uploaders_of_networks_and_compare_take_every_formats_endings(at):
    endings = {ending.lstrip(".") for spec in FORMATS.values() for ending in spec.extensions} | {"json", "gz"}
    go(at, "4_Networks")
    assert {t.lstrip(".") for t in at.file_uploader(key="net_import").proto.type} == endings
    go(at, "5_Compare")
    assert {t.lstrip(".") for t in at.file_uploader(key="cmp_import").proto.type} == endings
    at.file_uploader(key="cmp_import").set_value(("asia_compare.bif", write_network(ASIA, format="bif").encode(),
                                                  "application/octet-stream"))
    at.run()
    no_exception(at)
    assert "Imported `asia_compare.bif` (BIF) as `asia_compare.bif`" in successes(at)
    assert at.session_state["results"]["asia_compare.bif"].data_key == at.session_state["data_key"]
