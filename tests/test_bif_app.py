"""The BIF a user downloads from the app loads in pyAgrum with bnexplore's posteriors (issue 29 item 6).

Through the door: a table with interval states, blank cells (the ``<missing>`` state) and names
with quotes, spaces and tags is pasted on the Data page, searched, and the Networks page's BIF
button is clicked for its file (AppTest keeps downloads in a memory store; the test records what
is put there). That file is loaded by pyAgrum and by bnexplore.
"""

import re

import numpy as np
import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from bnexplore.bif import read_bif
from bnexplore.inference import InferenceEngine
from test_app import go, new_session, no_exception, paste, run_search

gum = pytest.importorskip("pyagrum")


def hostile_csv(rows=400, seed=3):
    """A numeric column (discretised into intervals), a text column with blanks and quotes, and a
    column whose name and states look like tags; each depends on the one before."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 10, rows)
    degree = np.where(x + rng.normal(0, 1.5, rows) > 5, "master's degree", "<b>none</b>")
    degree[rng.random(rows) < 0.1] = ""
    wage = np.where((degree == "master's degree") ^ (rng.random(rows) < 0.15), "high & <i>", "low, really")
    lines = ['x,"highest degree","<wage>"'] + [f'{a:.3f},"{d}","{w}"' for a, d, w in zip(x, degree, wage)]
    return "\n".join(lines) + "\n"


@pytest.fixture
def downloads(monkeypatch):
    """Every file the app offers for download in this test, by its media id."""
    files = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def recording(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        files[file_id] = path_or_data
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", recording)
    return files


@pytest.mark.timeout(600)
def test_the_bif_download_loads_in_pyagrum_with_the_apps_names_and_posteriors(downloads, tmp_path):
    at = new_session()
    paste(at, hostile_csv())
    data = at.session_state["dataset"]
    assert data.names == ["x", "highest degree", "<wage>"]
    assert "<missing>" in data.states[1] and data.states[0][0].startswith("(-inf, ")
    job = run_search(at, algorithms=("hc",))
    assert not job.errors
    go(at, "4_Networks")
    (button,) = [b for b in at.main.get("download_button") if b.label == "BIF"]
    file_id = re.search(r"/([0-9a-f]+)\.\w+$", button.proto.url).group(1)
    path = tmp_path / "download.bif"
    path.write_bytes(downloads[file_id])
    no_exception(at)

    network = read_bif(path)  # bnexplore reads back the app's names
    assert (network.names, network.states) == (data.names, data.states)
    assert sum(map(len, network.parents)) >= 2
    bn = gum.loadBN(str(path))
    written = [bn.variable(v).name() for v in range(bn.size())]
    assert all(re.fullmatch(r"[A-Za-z_][\w.-]*", name) for name in written), written
    engine = InferenceEngine(network)
    for v, state in [(None, None), (1, "<missing>"), (2, "high & <i>"), (0, data.states[0][-1])]:
        evidence = {} if v is None else {network.names[v]: state}
        want = engine.query(evidence=evidence)
        lazy = gum.LazyPropagation(bn)
        if v is not None:
            lazy.setEvidence({written[v]: network.states[v].index(state)})
        lazy.makeInference()
        for u, name in enumerate(network.names):
            ours = [want.posterior[name][s] for s in network.states[u]]
            # pyAgrum's BIF parser holds numbers as 32-bit floats (see tests/test_bif_interop.py)
            np.testing.assert_allclose(lazy.posterior(written[u]).toarray(), ours, rtol=0, atol=1e-6)
