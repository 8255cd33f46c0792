"""The replay of PC, GES and MMHC as a user sees it (issue 32, step by step): each search run from the Search
page on the bundled asia sample, then stepped through in the teaching panel: every step's words on the page,
the papers' notation under its ?, and the replayed last graph equal to the class the search found."""

import pytest

from bnexplore_app import replay
from test_app import go, new_session, no_exception, run_search


def step_line(at, k):
    """The teaching panel's line for step ``k`` (the start line for 0)."""
    head = "**Start:**" if k == 0 else f"**Step {k} of "
    lines = [m for m in at.markdown if m.value.startswith(head)]
    assert len(lines) == 1, [m.value for m in at.markdown]
    return lines[0]


@pytest.mark.parametrize("algorithm", ["pc", "ges", "mmhc"])
def test_a_run_replays_step_by_step_to_the_class_it_found(algorithm):
    at = new_session()
    job = run_search(at, algorithms=(algorithm,))
    assert not job.errors, job.errors
    result = job.results[0][1]
    assert replay.kind(result) == algorithm
    frames = replay.graphs(result)
    found = result.graph if algorithm == "mmhc" else result.extra["cpdag"]
    assert frames[-1].names == found.names and frames[-1].adj.tolist() == found.adj.tolist()
    steps = result.trajectory
    assert at.session_state["replay_result"] == next(iter(at.session_state["results"]))  # the new run, picked
    start = step_line(at, 0).value
    assert start == f"**Start:** {replay.start(result)}. {len(steps)} steps follow."
    assert ("complete undirected graph" in start) == (algorithm == "pc")
    at.button(key="replay_next").click()  # the first step as a user clicks it, then the slider to each
    for k in range(1, len(steps) + 1):
        if k > 1:
            at.slider(key="replay_step").set_value(k)
        at.run()
        no_exception(at)
        line = step_line(at, k)
        words = replay.describe(steps[k - 1], frames[k - 1], result.params.get("test"), algorithm)
        assert line.value == f"**Step {k} of {len(steps)}:** {words}"
        assert line.proto.help == replay.source(steps[k - 1], algorithm)
    ops = {step["op"] for step in steps}
    if algorithm == "pc":
        assert {"remove", "v_structure"} <= ops
        assert all("⊥" in replay.source(s) for s in steps if s["op"] == "remove")
    elif algorithm == "ges":
        assert "insert" in ops and "Chickering (2002)" in line.proto.help
    else:
        assert {"mmpc", "skeleton", "add"} <= ops and "Tsamardinos" in line.proto.help
    caption = [c.value for c in at.caption if c.value.startswith("The network after this step")]
    assert caption and caption[0].endswith(replay.note(result)) and replay.note(result)


def test_the_names_of_runs_on_tests_say_the_test_and_its_level():
    """PC learns from independence tests alone (the score only rates its network); MMHC uses both."""
    at = new_session()
    go(at, "3_Search")
    at.multiselect(key="keep.search_algorithms").set_value(["pc", "mmhc"])
    at.run()
    at.selectbox(key="keep.search_pc_test").set_value("chi2")
    at.number_input(key="keep.search_pc_alpha").set_value(0.01)
    job = run_search(at, algorithms=("pc", "mmhc"))
    assert not job.errors, job.errors
    names = list(at.session_state["results"])
    assert "pc · X² α 0.01 · asia 5k" in names and "mmhc · G² α 0.05 · BDeu(1) · asia 5k" in names
    pc = at.session_state["results"]["pc · X² α 0.01 · asia 5k"].result
    assert pc.params["test"] == "chi2" and pc.params["alpha"] == 0.01


def test_the_search_page_says_pc_learns_from_tests_and_ignores_the_bound_on_parents():
    at = new_session()
    go(at, "3_Search")
    at.multiselect(key="keep.search_algorithms").set_value(["hc"])
    at.run()
    assert not any("learns from independence tests alone" in c.value for c in at.caption)
    at.multiselect(key="keep.search_algorithms").set_value(["hc", "pc"])
    at.run()
    no_exception(at)
    assert any("PC-stable (constraint-based) learns from independence tests alone: the score only rates its "
               "network, and the bound on parents does not apply." in c.value for c in at.caption)
