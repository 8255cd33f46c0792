"""Networks and Compare after a change of data, and the numbers the pages show, through AppTest clicks."""

from test_app import go, load_sample, new_session, no_exception, run_search

HC = "hc · BDeu(1) · asia 5k"


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


def import_result(at, result, name):
    """Bring ``result`` in through the Networks page's import, as learned on the data in use."""
    result.extra["app"] = {"name": name, "data_label": at.session_state["data_label"],
                           "data_key": at.session_state["data_key"]}
    go(at, "4_Networks")
    at.file_uploader(key="net_import").set_value((f"{name}.json", result.dumps().encode(), "application/json"))
    at.run()
    no_exception(at)


def test_a_stopped_exact_search_shows_its_proven_gap_and_settings_read_as_typed():
    import math

    import bnexplore as bx
    from bnexplore.result import Result

    at = new_session()
    learned = bx.learn(at.session_state["dataset"], algorithm="hc", score="bdeu")
    stopped = Result(graph=learned.graph, score=learned.score, score_name="bdeu", algorithm="exact",
                     params={"ess": 1.0, "bf": math.exp(math.log(20)), "max_indegree": 3},
                     stats={"seconds": 4.2, "stopped": "stop", "bound": learned.score + 0.5312, "gap": 0.5312})
    assert stopped.params["bf"] != 20  # as the Tune page keeps it: exp(ln 20)
    import_result(at, stopped, "exact stopped")
    # the Networks page, beside the graph and in its caption
    captions = " ".join(c.value for c in at.caption)
    expected = f"within 0.5312 of the optimum (proven bound {learned.score + 0.5312:,.2f})"
    assert f"Stopped: {expected}." in captions
    assert f"stopped: {expected}" in captions
    # the Results table on the Search page
    go(at, "3_Search")
    table = next(t.value for t in at.dataframe if "stopped?" in t.value.columns).set_index("name")
    assert table.loc["exact stopped", "stopped?"] == f"stopped: {expected}"
    assert "bf=20," in table.loc["exact stopped", "settings"]
    assert "19.99" not in table.loc["exact stopped", "settings"]


def test_the_class_count_follows_the_chosen_grouping():
    at = new_session()
    go(at, "2_Tune")
    at.select_slider(key="tune_bf").set_value(150)
    at.run()
    run_search(at, algorithms=("credible",))
    go(at, "4_Networks")
    name = next(n for n in at.session_state["results"] if n.startswith("credible"))
    found = at.session_state["results"][name].cache["credible"]
    assert len(found.classes) != len(found.rpdag_classes)  # asia, BDeu(1), BF 150: the groupings differ
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Markov classes"] == f"{len(found.classes):,}"
    at.radio(key=f"cred-group-{name}").set_value("rpdag")
    at.run()
    no_exception(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["RPDAG classes"] == f"{len(found.rpdag_classes):,}" and "Markov classes" not in metrics
    assert at.number_input(key=f"cred-rank-{name}-rpdag").max == len(found.rpdag_classes)


def test_the_bnkl_path_chart_rings_the_network_shown_also_when_a_rule_picked_it():
    import pyarrow as pa

    at = new_session()
    load_sample(at, "breast_cancer_wdbc")
    job = run_search(at, algorithms=("bnkl",))
    assert not job.errors, job.errors
    selected = job.results[0][1].extra["selected"]
    go(at, "4_Networks")
    (chart,) = [c for c in at.get("vega_lite_chart") if "complexity" in c.proto.spec]
    frames = [pa.ipc.open_stream(d.data.data).read_pandas() for d in chart.proto.datasets]
    (ring,) = [f for f in frames if "ring" in f.columns]
    assert ring["network"].tolist() == [selected] and ring["ring"].tolist() == ["shown below"]
    (path,) = [f for f in frames if "mark" in f.columns and "ring" not in f.columns]
    assert path.set_index("network").loc[selected, "mark"].startswith("picked by")  # the ring is over a pick


def in_order(block):
    """Every element under ``block``, in page order."""
    for child in getattr(block, "children", {}).values():
        yield child
        yield from in_order(child)


def test_compare_draws_the_picture_right_under_its_pickers_and_the_table_below():
    at = new_session()
    learn_here(at)
    go(at, "5_Compare")
    assert at.session_state["cmp_networks"] == ["ground truth: asia", HC]
    kinds = [element.type for element in in_order(at.main)]
    assert "iframe" in kinds and "dataframe" in kinds, " ".join(kinds)
    assert kinds.index("iframe") < kinds.index("dataframe")  # the graph before the numbers
    assert at.radio(key="keep.cmp_view").value == "Overlay"  # the view's control sits with the pickers
    assert kinds.index("radio") < kinds.index("iframe")


def drawing_height(at):
    """Pixels of drawing area of the page's first graph (the height vis-network's frame is given)."""
    import re

    (height,) = re.findall(r"#mynetwork \{[^}]*?height: (\d+)px", at.get("iframe")[0].proto.srcdoc)
    return int(height)


def test_the_class_browser_leaves_room_for_its_slider_so_the_graph_ends_in_the_window():
    at = new_session()
    go(at, "4_Networks")
    at.radio(key="keep.net_view").set_value("DAG")
    at.run()
    whole = drawing_height(at)
    at.radio(key="keep.net_view").set_value("class")
    at.run()
    no_exception(at)
    assert at.slider(key="net_class_index").max == 6  # asia's class: the slider is there
    assert drawing_height(at) <= whole - 90


def pinned_columns(table):
    import json

    return [name for name, config in json.loads(table.proto.columns).items() if config.get("pinned")]


def test_the_results_and_compare_tables_keep_the_name_column_in_view():
    at = new_session()
    learn_here(at)
    go(at, "5_Compare")
    tables = list(at.dataframe)
    assert len(tables) == 2  # the networks side by side, then every search on this data
    assert all(pinned_columns(table) == ["network"] for table in tables)
    go(at, "3_Search")
    (results,) = [t for t in at.dataframe if "stopped?" in t.value.columns]
    assert pinned_columns(results) == ["name"]


def test_the_variables_table_leaves_the_range_of_text_columns_blank():
    at = new_session()
    go(at, "1_Data")
    at.radio(key="data_source").set_value("Paste CSV text")
    at.run()
    rows = "\n".join(f"{x / 10:.1f},{'ab'[x % 2]},{'xyz'[x % 3]}" for x in range(60))
    at.text_area(key="data_paste").set_value("size,group,kind\n" + rows + "\n")
    at.button(key="data_use_paste").click()
    at.run()
    no_exception(at)
    (table,) = [t.value for t in at.dataframe if "min" in t.value.columns]
    ranges = table.set_index("column")[["min", "max"]]
    assert ranges.loc["size"].tolist() == ["0", "5.9"]
    assert ranges.loc["group"].tolist() == ["", ""] and ranges.loc["kind"].tolist() == ["", ""]
    assert not ranges.isna().any().any()
