"""2 · Tune: score, equivalent sample size, Bayes factor, in-degree; how big the search will be."""

import math
import time

import altair as alt
import pandas as pd
import streamlit as st

from bnexplore.data import MISSING_LABEL
from bnexplore.errors import BNExploreError
from bnexplore.parents import candidate_parent_sets
from bnexplore.scores import SCORES as REGISTERED
from bnexplore.bnkl import SELECT_RULES, n_statistics
from bnexplore.search.credible import ilp_first_budget
from bnexplore.search.exact import choose_engine

from bnexplore_app import knowledge_ui, state
from bnexplore_app.page import run_page
from bnexplore_app.widgets import data_status, show_chart

SCORES = {name: f"{spec.label} — {spec.description}" for name, spec in REGISTERED.items()}
BF_STEPS = (1, 1.5, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000, 3000, 10000)


def bf_reading(bf):
    """The usual reading of a Bayes factor (Kass & Raftery 1995, Section 3.2)."""
    if bf <= 3:
        return "anecdotal (barely worth mentioning)"
    if bf <= 20:
        return "positive"
    if bf <= 150:
        return "strong"
    return "very strong"


def n_local_scores(n, max_indegree):
    """Local scores of every parent set of up to ``max_indegree`` parents: n · Σ_k C(n−1, k)."""
    d = n - 1 if max_indegree is None else min(max_indegree, n - 1)
    return n * sum(math.comb(n - 1, k) for k in range(d + 1))


@st.cache_data(show_spinner=False, max_entries=32)
def local_score_rate(data_key, score, ess, parents, _dataset):
    """Measured local scores per second on this data for parent sets of size ``parents``."""
    from bnexplore.scores import Scorer

    scorer = Scorer(state.scored_rows(_dataset), score=score, ess=ess, cache=False)
    n = _dataset.n_vars
    families = [(v, tuple((v + 1 + j) % n for j in range(min(parents, n - 1)))) for v in range(n)] * 4
    scorer.local_many([families[0][0]], [families[0][1]])  # the first call loads the compiled kernels: not timed
    start = time.perf_counter()
    scorer.local_many([f[0] for f in families], [f[1] for f in families])
    return len(families) / max(time.perf_counter() - start, 1e-6)


def duration_text(seconds):
    if seconds < 0.1:
        return "under 0.1 s"
    if seconds < 60:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    if seconds < 86400 * 3:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:,.0f} days"


def score_section(settings):
    st.subheader("Score")
    settings["score"] = st.radio("Score function", list(SCORES), format_func=lambda s: SCORES[s],
                                 index=list(SCORES).index(settings["score"]) if settings["score"] in SCORES else 0,
                                 key="tune_score")
    for h in REGISTERED[settings["score"]].hyperparameters:
        settings[h.name] = float(st.number_input(
            h.label[0].upper() + h.label[1:], h.low_widget, h.high_widget, float(settings.get(h.name, h.default)),
            step=0.5, key=f"tune_{h.name}", help=h.help))
    if st.session_state.get("class_column"):
        st.caption(f"A class column ({st.session_state['class_column']}) is chosen: the two-class search (BNKL) "
                   "uses the KL score set below instead of these.")
    st.caption("All scores are natural logarithms; higher is better. A network's score is the sum of one local "
               "score per node, s(node, its parents).")


def bayes_factor_section(settings):
    st.subheader("Bayes factor")
    value = min(BF_STEPS, key=lambda b: abs(math.log(b) - math.log(settings["bf"])))
    bf = st.select_slider("Bayes factor BF (log scale)", BF_STEPS, value=value, key="tune_bf",
                          help="Networks whose score is within log(BF) of the best are 'credible': the data "
                               "prefer the best one by a factor of at most BF.")
    settings["bf"] = float(bf)
    eps = math.log(bf)
    a, b = st.columns(2)
    a.metric("ε = ln(BF)", f"{eps:.3f}", help=f"exactly {eps!r}")
    b.metric("Reading of BF", bf_reading(bf))
    st.caption("Reading (Kass & Raftery 1995): 1–3 anecdotal, 3–20 positive, 20–150 strong, above 150 very "
               f"strong. With BF = {bf:g}, every network scoring at least best − {eps:.3f} is kept as credible.")


def indegree_section(settings, n):
    """The in-degree limit: a slider from 1 to min(n - 1, 10); with two variables (n >= 2 is the Data page's
    rule) there is nothing to choose, and a slider from 1 to 1 is not drawn."""
    st.subheader("Parents per node")
    most = min(n - 1, 10)
    if most < 2:
        st.markdown(f"With {n} variables a node has at most **1 parent**: nothing to choose.")
        settings["max_indegree"] = 1
        return
    limit = st.slider("Maximum number of parents (in-degree)", 1, most, min(int(settings["max_indegree"] or 3), most),
                      key="tune_indegree", help="Searches never give a node more parents than this; smaller is "
                                                "faster and needs less data.")
    settings["max_indegree"] = int(limit)


def exact_verdict(n, candidates_seconds, time_limit):
    """What an exact search would do here: ``(engine, seconds or None, sentence)``.

    The engine is the one :func:`bnexplore.search.exact.choose_engine` picks
    (the subset DP while it is fast and fits in memory, branch and cut on SCIP
    beyond); the sentence says which, why, and what happens with the Search
    page's time limit.
    """
    try:
        engine, reason, seconds = choose_engine(n, task="optimum")
    except BNExploreError as error:
        return None, None, (f"The exact search cannot run here: {error}. Hill climbing, tabu or ASOBS can.")
    if seconds is None:
        return engine, None, (f"The exact search will run the {reason}. While it runs, the Search page draws the best "
                              "network found and the proven bound closing in on each other; the time limit of "
                              f"{duration_text(time_limit)} stops it with the best network and how far from the "
                              "optimum it can at most be.")
    seconds += candidates_seconds
    if seconds > time_limit:
        return engine, seconds, (f"The exact search ({reason}) would take about {duration_text(seconds)} with the "
                                 "parent sets scored, longer than the Search page's time limit of "
                                 f"{duration_text(time_limit)}: it would stop with the best network found so far, "
                                 "not the proven optimum. Raise the time limit or use fewer variables.")
    took = duration_text(seconds)
    return engine, seconds, (f"The exact search fits: {reason}; "
                             f"{took if took.startswith('under') else 'about ' + took} in all, counting the "
                             "subsets only: the candidate parent sets that survive pruning are known only when "
                             "the search builds them, and tens of thousands per variable slow the subset DP, so "
                             "the search estimates again with them and may choose branch and cut instead.")


def credible_verdict(n):
    """Which engine a credible set would run here, and why (:func:`choose_engine`, ``task="credible"``).

    Like :func:`exact_verdict` it counts the subsets only; where the subset DP
    would be slow, branch and cut is tried first
    (:func:`bnexplore.search.credible.ilp_first_budget`).
    """
    try:
        engine, reason, seconds = choose_engine(n, task="credible")
    except BNExploreError as error:
        return f"A credible set cannot run here: {error}."
    budget = ilp_first_budget(engine, seconds)
    if budget is not None:
        return (f"A credible set would run the {reason}, after trying branch and cut for up to "
                f"{duration_text(budget)}: small sets come out of it before the DP's table is built.")
    return f"A credible set would run the {reason}."


def estimate_section(settings):
    data = state.dataset()
    n = data.n_vars
    d = settings["max_indegree"]
    st.subheader("Before you run: how big is this?")
    count = n_local_scores(n, d)
    if state.has_blanks(data) and not state.complete_count(data):
        st.info("Every row has a blank cell, so there are no complete rows to time the score on; structural EM "
                "scores completed rows, by default one per row (its blank cells drawn from their posterior).")
        return
    rate = local_score_rate(st.session_state["data_key"], settings["score"], settings["ess"], min(d, n - 1), data)
    time_limit = float(st.session_state.get("_kept", {}).get(state.KEEP + "search_time_limit", 60))
    engine, seconds, verdict = exact_verdict(n, count / rate, time_limit)
    a, b = st.columns(2)  # two by two: "branch and cut" and "depends on the data" fit at 1280 px
    c, e = st.columns(2)
    a.metric("Local scores", f"{count:,}",
             help=f"n · Σ_(k ≤ {d}) C(n−1, k): every parent set of at most {d} parents an exact search might "
                  "score.")
    b.metric("Time to score them all", duration_text(count / rate),
             help=f"Measured here: about {rate:,.0f} local scores per second on this data "
                  f"({data.n_rows:,} rows).")
    c.metric("Exact engine", {"dp": "subset DP", "ilp": "branch and cut", None: "none"}[engine],
             help="The subset DP stores 8 bytes for each of the 2^n subsets of variables and takes about n · 2^n "
                  "steps, both doubling with every variable; branch and cut on SCIP works from the candidate "
                  "parent sets instead, so it reaches 60 variables, in a time no formula predicts.")
    e.metric("Exact search time", "depends on the data" if seconds is None else duration_text(seconds),
             help="Scoring the parent sets, then the engine (a rough figure measured on a 2 GHz core; for the "
                  "subset DP it counts the subsets, not yet the candidate parent sets its scans check).")
    if state.has_blanks(data):
        st.caption(f"{n} variables, {data.n_rows:,} rows, {data.n_blank:,} blank cells: timed on the "
                   f"{state.complete_count(data):,} rows without a blank cell. The searches on these data are "
                   "structural EM, which runs its search on the data with each blank as a state, then twice per "
                   "iteration on the completed rows (by default one per row), so it takes several times a "
                   "search's time; the exact search "
                   "and the credible set need complete rows and are not offered.")
        return
    st.caption(f"{n} variables, {data.n_rows:,} rows. Hill climbing, tabu search and ASOBS score only the parent "
               f"sets they visit, usually a tiny fraction of these, and finish in seconds. {verdict} "
               f"{credible_verdict(n)}")


def two_class_section(settings):
    """The KL score of the two-class search (Balov 2013): reference class, M, selection rule, size."""
    column = st.session_state.get("class_column")
    if not column:
        return
    st.subheader("Two-class score: KL between the classes (BNKL)")
    data = state.dataset()
    if state.has_blanks(data):
        st.info("The data keep blank cells (*Missing values: em*), and BNKL needs complete rows: choose *Missing "
                "values: drop* on the Data page to run it on the rows without a blank cell.")
        return
    states = data.states[data.index(column)]
    labels = [label for label in states if label != MISSING_LABEL]  # blank rows are left out (Data page)
    if len(labels) != 2:
        st.warning(f"The class column {column!r} has {len(labels)} classes, not two. Choose another class column "
                   "on the Data page.")
        return
    st.latex(r"R(G) = \frac{1}{n}\sum_i \sum_j \sum_k n_{ijk}\log\frac{P_{ijk}}{P^0_{ijk}},\quad "
             r"df(G) = \sum_i q_i (r_i - 1)")
    st.latex(r"\text{ratio: } \max \frac{R}{df}\qquad \text{bic: } \max\; nR - \frac{df \ln n}{2}"
             r"\qquad \text{aic: } \max\; nR - df")
    st.caption("R is how far the tables learned from all rows (P) are from those of the reference class (P⁰); "
               "df counts free parameters. The search keeps, for every complexity df, the network with the largest "
               "R (the complexity path) and picks one by the rule below: ratio is the paper's score S = R / df, "
               "which often picks the network without arcs; bic and aic charge each free parameter and usually "
               "pick a network with arcs.")
    left, middle, right = st.columns(3)
    current = settings.get("kl_class0")
    index = [str(x) for x in labels].index(str(current)) if str(current) in [str(x) for x in labels] else 0
    settings["kl_class0"] = left.radio(f"Reference class (class 0) of {column}", labels, index=index,
                                       format_func=str, key="tune_kl_class0",
                                       help="R measures the other class against this one, so R (and the "
                                            "network) change when the classes are swapped.")
    settings["kl_max_parents"] = int(middle.slider("Largest parent set M", 0, 4,
                                                   int(settings.get("kl_max_parents", 2)), key="tune_kl_parents",
                                                   help="The paper's default is 2."))
    rule = settings.get("kl_select", "ratio")
    settings["kl_select"] = right.radio("Pick the network by", list(SELECT_RULES),
                                        index=list(SELECT_RULES).index(rule) if rule in SELECT_RULES else 0,
                                        key="tune_kl_select",
                                        help="ratio: largest R / df (the paper); bic: N R − df log(N) / 2; "
                                             "aic: N R − df.")
    count = n_statistics(data.n_vars - 1, settings["kl_max_parents"])
    rate = local_score_rate(st.session_state["data_key"], "bic", 1.0, min(settings["kl_max_parents"], 3), data)
    st.caption(f"{data.n_vars - 1} variables besides {column}: the search computes {count:,} KL statistics; "
               f"counting them takes {duration_text(count / rate)} on this data.")


def rule_scores(rule):
    """The labels of the scores a pruning rule applies to, from the score registry ("BIC, AIC")."""
    return ", ".join(spec.label for spec in REGISTERED.values() if rule in spec.pruning_rules)


RULE_LABELS = {"kept": "kept (candidates)", "subset": "pruned: a subset scores better by > ε",
               "penalty": f"pruned: penalty bound ({rule_scores('penalty')})",
               "entropy": f"pruned: entropy bounds ({rule_scores('entropy')})",
               "bdeu": f"pruned: BDeu bound (Cussens & Bartlett; {rule_scores('bdeu')})"}


def pruning_chart(stats):
    """Per node: candidate parent sets considered, split into kept and pruned by each rule."""
    rows = [{"node": node["node"], "fate": RULE_LABELS[fate], "sets": count}
            for node in stats["per_node"]
            for fate, count in [("kept", node["kept"]), *node["removed"].items()] if count]
    colours = dict(zip(RULE_LABELS.values(), ["#2e7d32", "#90a4ae", "#ef6c00", "#8e24aa", "#1e88e5"]))
    order = [label for label in RULE_LABELS.values() if any(row["fate"] == label for row in rows)]  # this score's
    chart = alt.Chart(pd.DataFrame(rows)).mark_bar().encode(
        y=alt.Y("node:N", sort=None, title=None),
        x=alt.X("sum(sets):Q", title="candidate parent sets considered (stacked by what became of them)"),
        color=alt.Color("fate:N", sort=order, title=None, legend=alt.Legend(orient="bottom", columns=2,
                                                                             labelLimit=400), scale=alt.Scale(
            domain=order, range=[colours[label] for label in order])),
        order=alt.Order("fate_order:Q"),
        tooltip=["node", "fate", "sets"]).transform_calculate(
        fate_order=" + ".join(f"(datum.fate == '{label}' ? {i} : 0)" for i, label in enumerate(order)))
    show_chart(chart.properties(height=alt.Step(24)), "Candidate parent-set cache per node, before and after pruning",
               "Each bar is one node: every parent set the search considered for it, green for the ones kept as "
               "candidates, other colours for the rule that removed the rest.")


def pruning_section(settings):
    st.subheader("Candidate parent sets and pruning")
    st.caption("The exact search and the credible set score candidate parent sets for every node, then prune "
               "the ones no network within ε = ln(BF) of the best can use (Liao et al. 2019). A larger Bayes "
               "factor keeps more sets, which is why it makes those searches slower.")
    if state.has_blanks(state.dataset()):
        st.info("The data keep blank cells (*Missing values: em*): the exact search and the credible set need "
                "complete rows, so there are no candidate parent sets to count here. Choose *Missing values: drop* "
                "on the Data page to use them on the rows without a blank cell.")
        return
    score = settings["score"]
    known = knowledge_ui.knowledge()  # the searches build their candidates under it, so the counts do too
    key = (st.session_state["data_key"], score, settings["ess"], settings["bf"], settings["max_indegree"],
           known.dumps(sort_keys=True) if known else None)
    found = st.session_state.setdefault("pruning", {}).get(key)
    if found is None:
        if not st.button("Count candidate parent sets with these settings", key="tune_prune"):
            return
        bar = st.progress(0.0, text="Scoring candidate parent sets…")
        scorer = state.current_scorer()
        try:
            found = candidate_parent_sets(scorer, epsilon=math.log(settings["bf"]),
                                          max_indegree=settings["max_indegree"], knowledge=known, time_limit=120,
                                          progress=lambda info: bar.progress(min(1.0, info.get("done") or 0.0),
                                                                             text=info.get("message") or ""))
        except BNExploreError as error:
            st.error(f"No candidate parent sets: {error}.")
            return
        finally:
            bar.empty()
        st.session_state["pruning"][key] = found
    stats = found.stats
    a, b, c = st.columns(3)
    a.metric("Parent sets considered", f"{stats['considered']:,}")
    b.metric("Kept as candidates", f"{stats['kept']:,}")
    c.metric("Time", duration_text(stats["seconds"]))
    if stats.get("stopped"):
        st.warning(f"Counting stopped early ({stats['stopped']}): the chart shows the sets reached so far.")
    pruning_chart(stats)


def page():
    st.title("2 · Tune")
    data_status()
    settings = st.session_state["settings"]
    left, right = st.columns(2)
    with left:
        score_section(settings)
        indegree_section(settings, state.dataset().n_vars)
    with right:
        bayes_factor_section(settings)
    two_class_section(settings)
    st.divider()
    knowledge_ui.section(settings)
    st.divider()
    estimate_section(settings)
    st.divider()
    pruning_section(settings)


run_page(page, "the Tune page")
