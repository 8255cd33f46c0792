"""Networks and Compare after a change of data, and the numbers the pages show, through AppTest clicks."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
HC = "hc · BDeu(1) · asia 5k"


def no_exception(at):
    assert not at.exception, [e.value for e in at.exception]


def new_session():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    app.run()
    no_exception(app)
    app.default_timeout = 30
    return app


def go(at, page):
    at.switch_page(f"bnexplore_app/pages/{page}.py")
    at.run()
    no_exception(at)
    return at


def learn_here(at, name=HC):
    """A network learned on the data in use, brought in through the Networks page's import (the
    file the JSON export button writes): the Search page is another helper's, and this keeps the
    tests on what these pages do with results."""
    import bnexplore as bx

    data = at.session_state["dataset"]
    result = bx.learn(data, algorithm="hc", score="bdeu")
    result.extra["app"] = {"name": name, "data_label": at.session_state["data_label"],
                           "data_key": at.session_state["data_key"]}
    go(at, "4_Networks")
    at.file_uploader(key="net_import").set_value((f"{name}.json", result.dumps().encode(), "application/json"))
    at.run()
    no_exception(at)
    assert name in at.session_state["results"]
    return result


def load_sample(at, name):
    go(at, "1_Data")
    at.selectbox(key="data_sample").set_value(name)
    at.button(key="data_load_sample").click()
    at.run()
    no_exception(at)


def test_after_a_switch_of_data_networks_and_compare_open_on_the_data_in_use():
    at = new_session()
    learn_here(at)
    load_sample(at, "sachs")
    go(at, "4_Networks")
    box = at.selectbox(key="net_pick_box")
    assert box.value == "ground truth: sachs"
    assert "Learned on other data" not in " ".join(c.value for c in at.caption)
    # the other data's network is one click away, labelled
    assert box.options == ["ground truth: sachs", f"{HC} (other data: sample asia)"]
    go(at, "5_Compare")
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["cmp_networks"] == ["ground truth: sachs"]
    assert "No other network has the variables of the data in use yet" in " ".join(i.value for i in at.info)
    go(at, "4_Networks")
    box = at.selectbox(key="net_pick_box")
    box.set_value(HC)
    at.run()
    go(at, "2_Tune")
    go(at, "4_Networks")
    assert at.selectbox(key="net_pick_box").value == HC  # the user's own pick stays


def chart_specs(at):
    import json
    return [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]


def test_the_pruning_legend_lists_only_the_rules_of_the_score():
    at = new_session()  # asia, BDeu
    go(at, "2_Tune")
    at.button(key="tune_prune").click()
    at.run()
    no_exception(at)
    legend = " ".join(json_text for spec in chart_specs(at) for json_text in [str(spec)] if "fate" in json_text)
    assert "pruned: BDeu bound" in legend or "pruned: a subset" in legend
    assert "BIC penalty" not in legend and "BIC entropy" not in legend
