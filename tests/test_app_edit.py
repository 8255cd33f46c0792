"""The Networks page's Edit view (issue 35 item 1) through AppTest clicks: each edit's score change against
an independent Scorer, a refused cycle, a reversal within the class, undo and redo, keeping the edited network,
the empty-graph start, BIC's score difference, and a network without data to score it on."""

import pytest

from bnexplore.graphs import DAG
from bnexplore.scores import Scorer
from bnexplore.session import Session
from bnexplore_app import state
from bnexplore_app.edit_view import signed
from test_app import go, load_sample, new_session, no_exception
from test_app_views import learn_here

TRUTH = "ground truth: asia"


@pytest.fixture
def at():
    """A new session on asia, on the Networks page's Edit view of its ground truth."""
    app = new_session()
    go(app, "4_Networks")
    app.radio(key="keep.net_view").set_value("edit")
    app.run()
    no_exception(app)
    assert app.selectbox(key="net_pick_box").value == TRUTH
    return app


def bench(at, name=TRUTH):
    """The workbench the page keeps for network ``name``."""
    (found,) = [b for key, b in at.session_state["edit_benches"].items() if key[0] == name]
    return found


def apply(at, move, tail, head, name=TRUTH):
    """Pick ``move`` and its arc as a user does, and click Apply."""
    at.radio(key="keep.edit_move").set_value(move)
    at.run()
    if move == "add":
        at.selectbox(key=f"edit-{name}-from").set_value(tail)
        at.run()
        at.selectbox(key=f"edit-{name}-to").set_value(head)
    else:
        at.selectbox(key=f"edit-{name}-arc-{move}").set_value((tail, head))
    at.run()
    at.button(key=f"edit-{name}-apply").click()
    at.run()
    no_exception(at)


def metrics(at):
    return {m.label: m.value for m in at.metric}


def fresh_scorer(at, score="bdeu"):
    """A Scorer of the data in use made here, not the session's: an independent total."""
    return Scorer(at.session_state["dataset"], score=score, ess=1.0)


def test_an_added_arc_shows_its_node_and_the_total_as_an_independent_scorer_gives_them(at):
    truth = at.session_state["truth"].dag()
    apply(at, "add", "smoke", "dysp")
    assert not at.error, [e.value for e in at.error]
    after = DAG.from_arcs([*((truth.names[u], truth.names[v]) for u, v in truth.arcs()), ("smoke", "dysp")],
                          truth.names)
    scorer = fresh_scorer(at)
    expected = scorer.total(after) - scorer.total(truth)
    assert metrics(at)["Score change: add smoke → dysp"] == signed(expected)
    assert abs(expected) > 1e-3  # a real change, so the equality above says something
    (table,) = [d.value for d in at.dataframe if "change" in d.value.columns]
    assert table["node"].tolist() == ["dysp"]  # only the head's family changed
    row = table.iloc[0]
    assert row["before"] == pytest.approx(scorer.local("dysp", ["either", "bronc"]), abs=1e-9)
    assert row["after"] == pytest.approx(scorer.local("dysp", ["either", "bronc", "smoke"]), abs=1e-9)
    assert row["change"] == pytest.approx(expected, abs=1e-9)
    said = " ".join(m.value for m in at.markdown)
    assert f"ln Bayes factor against the start: **{signed(expected)}** (BDeu(1))" in said
    assert bench(at).workbench.graph == after


def test_a_cycle_closing_addition_is_refused_naming_the_cycle_and_nothing_changes(at):
    truth = at.session_state["truth"].dag()
    apply(at, "add", "dysp", "smoke")  # smoke → bronc → dysp is there
    errors = " ".join(e.value for e in at.error)
    assert "Refused: dysp → smoke would close the cycle dysp → smoke → bronc → dysp" in errors
    assert "The network is unchanged" in errors
    assert bench(at).workbench.graph == truth and not bench(at).workbench.history
    assert not [label for label in metrics(at) if label.startswith("Score change")]
    assert at.button(key=f"edit-{TRUTH}-undo").disabled  # nothing was put on the undo stack


def test_a_reversal_within_the_class_changes_nothing(at):
    apply(at, "class", "asia", "tub")  # Pa(tub) = {asia} = Pa(asia) + asia: a covered arc
    assert metrics(at)["Score change: reverse asia → tub"] == "+0.0000"
    captions = " ".join(c.value for c in at.caption)
    assert "Same equivalence class" in captions
    graph = bench(at).workbench.graph
    assert graph.adj[graph.index("tub"), graph.index("asia")] and graph.cpdag() == at.session_state["truth"].dag(
    ).cpdag()
    # the move offers only the covered arcs, Pa(v) = Pa(u) + u
    parents = {graph.names[v]: {graph.names[p] for p in graph.parents(v)} for v in range(graph.n)}
    covered = {f"{graph.names[u]} → {graph.names[v]}" for u, v in graph.arcs()
               if parents[graph.names[v]] == parents[graph.names[u]] | {graph.names[u]}}
    assert covered == {"tub → asia", "smoke → bronc", "smoke → lung"}
    assert sorted(at.selectbox(key=f"edit-{TRUTH}-arc-class").options) == sorted(covered)


def test_undo_then_redo(at):
    truth = at.session_state["truth"].dag()
    apply(at, "delete", "bronc", "dysp")
    edited = bench(at).workbench.graph
    change = metrics(at)["Score change: delete bronc → dysp"]
    at.button(key=f"edit-{TRUTH}-undo").click()
    at.run()
    no_exception(at)
    assert bench(at).workbench.graph == truth
    assert "Undone: delete bronc → dysp." in " ".join(c.value for c in at.caption)
    assert "ln Bayes factor against the start: **+0.0000**" in " ".join(m.value for m in at.markdown)
    assert at.button(key=f"edit-{TRUTH}-undo").disabled and not at.button(key=f"edit-{TRUTH}-redo").disabled
    at.button(key=f"edit-{TRUTH}-redo").click()
    at.run()
    no_exception(at)
    assert bench(at).workbench.graph == edited
    assert metrics(at)["Redone: delete bronc → dysp"] == change
    assert at.button(key=f"edit-{TRUTH}-redo").disabled


def test_keep_the_edited_network_as_a_new_one(at):
    truth = at.session_state["truth"].dag()
    apply(at, "reverse", "either", "xray")
    apply(at, "add", "asia", "smoke")
    at.text_input(key=f"edit-{TRUTH}-name").set_value("my asia")
    at.run()
    at.button(key=f"edit-{TRUTH}-keep").click()
    at.run()
    no_exception(at)
    kept = at.session_state["results"]["my asia"]
    arcs = {(truth.names[u], truth.names[v]) for u, v in truth.arcs()} - {("either", "xray")}
    expected = DAG.from_arcs(sorted(arcs | {("xray", "either"), ("asia", "smoke")}), truth.names)
    assert kept.result.graph == expected
    assert kept.result.score == pytest.approx(fresh_scorer(at).total(expected), abs=1e-9)
    edits = ["reverse either → xray", "add asia → smoke"]
    assert kept.result.extra["hand_edits"] == {"from": TRUTH, "edits": edits}
    assert kept.data_key == at.session_state["data_key"]
    box = at.selectbox(key="net_pick_box")
    assert "my asia" in box.options and box.value == "my asia"  # the picker moved to it
    assert "Kept as `my asia`" in " ".join(s.value for s in at.success)
    # the other views say what it is
    at.radio(key="keep.net_view").set_value("DAG")
    at.run()
    assert "Edited by hand in the Edit view (2 edits), scored on sample asia." in " ".join(c.value for c in at.caption)
    # a saved session carries it, with its edits
    (saved,) = [r for r in Session.loads(state.snapshot(at.session_state).dumps()).results if r.name == "my asia"]
    assert saved.result.graph == expected and saved.result.extra["hand_edits"]["edits"] == edits
    # it is one of the networks everywhere: Compare offers it
    go(at, "5_Compare")
    assert "my asia" in at.multiselect(key="cmp_networks").options


def test_start_from_the_empty_graph(at):
    at.button(key=f"edit-{TRUTH}-start").click()
    at.run()
    no_exception(at)
    assert bench(at).origin == "empty" and bench(at).workbench.graph.n_edges == 0
    assert at.button(key=f"edit-{TRUTH}-start").label == "Start again from this network"
    at.radio(key="keep.edit_move").set_value("delete")
    at.run()
    assert "The network has no arc." in " ".join(c.value for c in at.caption)
    assert at.button(key=f"edit-{TRUTH}-apply").disabled
    apply(at, "add", "smoke", "lung")
    scorer = fresh_scorer(at)
    expected = scorer.local("lung", ["smoke"]) - scorer.local("lung", [])
    assert metrics(at)["Score change: add smoke → lung"] == signed(expected)
    assert f"ln Bayes factor against the empty graph: **{signed(expected)}**" in " ".join(
        m.value for m in at.markdown)


def edit_view_under(score):
    """A new session on asia with ``score`` chosen on the Tune page, on the Edit view of its ground truth."""
    at = new_session()
    go(at, "2_Tune")
    at.radio(key="tune_score").set_value(score)
    at.run()
    go(at, "4_Networks")
    at.radio(key="keep.net_view").set_value("edit")
    at.run()
    return at


def test_under_bic_the_difference_is_called_a_score_difference_not_a_bayes_factor():
    at = edit_view_under("bic")
    apply(at, "delete", "smoke", "lung")
    scorer = fresh_scorer(at, "bic")
    expected = scorer.local("lung", []) - scorer.local("lung", ["smoke"])
    said = " ".join(m.value for m in at.markdown)
    assert f"BIC against the start: **{signed(expected)}**" in said and "Bayes factor" not in said
    help_text = " ".join(m.proto.help for m in at.markdown)
    assert "a score difference, not a Bayes factor" in help_text


def test_a_network_without_its_data_says_why_it_cannot_be_edited():
    import bnexplore as bx

    at = new_session()
    learned = bx.learn(at.session_state["dataset"], algorithm="hc", score="bdeu")  # asia's, no data recorded
    load_sample(at, "sachs")
    go(at, "4_Networks")
    at.file_uploader(key="net_import").set_value(("asia_hc.json", learned.dumps().encode(), "application/json"))
    at.run()
    (name,) = at.session_state["results"]
    at.radio(key="keep.net_view").set_value("edit")
    at.run()
    no_exception(at)
    assert at.selectbox(key="net_pick_box").value == name
    infos = " ".join(i.value for i in at.info)
    assert "no data to score its edits on" in infos
    assert not at.get("iframe") and not at.main.button  # no graph, no controls


def test_under_k2_a_reversal_within_the_class_says_the_score_may_differ():
    at = edit_view_under("k2")
    apply(at, "class", "smoke", "lung")
    scorer = Scorer(at.session_state["dataset"], score="k2")
    expected = (scorer.local("smoke", ["lung"]) + scorer.local("lung", [])
                - scorer.local("smoke", []) - scorer.local("lung", ["smoke"]))
    assert abs(expected) > 1e-3  # K2 is not score-equivalent: the same class, another score
    assert metrics(at)["Score change: reverse smoke → lung"] == signed(expected)
    captions = " ".join(c.value for c in at.caption)
    assert "Same equivalence class" in captions and "K2 is not score-equivalent" in captions
    assert f"ln Bayes factor against the start: **{signed(expected)}** (K2)" in " ".join(m.value for m in at.markdown)


def test_a_network_whose_score_is_unknown_says_why_it_cannot_be_edited(at):
    import json

    import bnexplore as bx

    saved = json.loads(bx.learn(at.session_state["dataset"], algorithm="hc", score="bdeu").dumps())
    saved["score_name"] = ["bdeu"]  # an imported file may hold any JSON there
    at.file_uploader(key="net_import").set_value(("odd.json", json.dumps(saved).encode(), "application/json"))
    at.run()
    no_exception(at)
    assert at.radio(key="keep.net_view").value == "edit"
    assert "score is not one bnexplore knows" in " ".join(i.value for i in at.info)
    assert not at.get("iframe") and not at.error


def test_on_data_with_blanks_the_edits_are_scored_on_the_complete_rows_and_the_caption_says_so():
    from test_app_em import with_em

    app = new_session()
    go(app, "1_Data")
    data = with_em(app)
    name = "hc on the survey"
    learned = learn_here(app, name)
    app.selectbox(key="net_pick_box").set_value(name)
    app.radio(key="keep.net_view").set_value("edit")
    app.run()
    no_exception(app)
    assert "rows without a blank cell" in " ".join(c.value for c in app.caption)
    work = bench(app, name).workbench
    tail, head = work.candidates("delete")[0]
    apply(app, "delete", tail, head, name=name)
    assert not app.error, [e.value for e in app.error]
    complete = Scorer(data.complete_rows(), score="bdeu", ess=1.0)  # the rows a score can count
    expected = complete.total(bench(app, name).workbench.graph) - complete.total(learned.graph)
    assert metrics(app)[f"Score change: delete {tail} → {head}"] == signed(expected)
