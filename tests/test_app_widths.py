"""Names whole at 1280 x 720 (issue 29 item 11): the Results table's name column as wide as its longest
name needs, the BNKL rule table's "picks" cells short enough to read (the reasons under the table), through
AppTest clicks."""

import json

from test_app import go, load_sample, new_session, no_exception, run_search
from test_app_views import learn_here

from bnexplore_app.widgets import text_column_width

LONG = "hc · BDeu(1) · asia 5k · expert's tiers"


def column_config(table, name):
    return json.loads(table.proto.columns)[name]


def test_the_results_table_gives_the_name_column_the_width_of_the_longest_name():
    at = new_session()
    learn_here(at, LONG)
    go(at, "3_Search")
    (results,) = [t for t in at.dataframe if "stopped?" in t.value.columns]
    config = column_config(results, "name")
    assert config["pinned"] and config["width"] == text_column_width([LONG]) >= 7.5 * len(LONG)


def test_the_bnkl_rule_table_says_what_each_rule_picks_in_a_few_words():
    at = new_session()
    load_sample(at, "breast_cancer_wdbc")
    job = run_search(at, algorithms=("bnkl",))
    assert not job.errors, job.errors
    go(at, "4_Networks")
    no_exception(at)
    (rules,) = [t.value for t in at.dataframe if "picks" in t.value.columns]
    assert rules["picks"].str.len().max() <= 26, rules["picks"].tolist()  # whole in the table's cell
    assert any("each free parameter costs ln(N)/2" in c.value for c in at.caption)  # the reasons below it
