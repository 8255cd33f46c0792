"""Extra sections of the Networks page, shown for the kinds of result they know.

A section says which results it applies to (``applies(entry)``, usually by
``entry.result.algorithm`` or a key of ``entry.result.extra``) and draws itself
(``render(entry, positions)``). Adding a view for a new kind of result is one
``register(Section(...))`` call.
"""

import html
import math
from dataclasses import dataclass

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from bnexplore import viz
from bnexplore.bif import write_bif
from bnexplore.bootstrap import BootstrapResult
from bnexplore.classifier import cross_validate
from bnexplore.errors import BNExploreError
from bnexplore.bnkl import class_networks_from_json, rule_values
from bnexplore.graphs import DAG
from bnexplore.result import Result
from bnexplore_app import em_view, state, views
from bnexplore_app.widgets import file_stem, show_chart, show_graph


@dataclass
class Section:
    """A block of the Networks page for one kind of result."""

    title: str
    applies: object
    render: object


SECTIONS = []


def register(section):
    """Add a section to the Networks page."""
    SECTIONS.append(section)
    return section


# ---------------------------------------------------------------------------
# BNKL (two-class KL networks, Balov 2013)

RULE_WHY = {
    "ratio": ("largest R / df", "the class difference per free parameter (Balov 2013, the paper's score)"),
    "bic": ("largest N·R − df·ln(N)/2", "N·R is a log-likelihood ratio, each free parameter costs ln(N)/2"),
    "aic": ("largest N·R − df", "each free parameter costs 1"),
}
"""Per selection rule: what it picks, short enough for a table cell at 1280 x 720, and why (under the table)."""
SDNET_NOTE = ("The score's R counts cells as the R package sdnet does: a cell with no rows of the reference class "
              "is skipped, so a node's own R_i can even be negative (for a variable whose top bin holds only "
              "class-1 rows). Node colours show the true KL divergence instead, with such cells counted (their "
              "reference probability set to 1/(3n), as the classifier does), which is never negative.")


def _rule_table(path, n_rows, select):
    """Which network each selection rule picks on this path, and why."""
    rows = []
    for rule, (what, _) in RULE_WHY.items():
        values = rule_values([p["df"] for p in path], [p["R"] for p in path], n_rows, rule)
        index = int(np.argmax(values))
        arcs = sum(len(ps) for ps in path[index]["parents"]) if "parents" in path[index] else len(
            path[index].get("arcs", []))
        rows.append({"rule": rule + (" (used)" if rule == select else ""), "network #": index,
                     "arcs": arcs, "df": path[index]["df"], "R (nats)": path[index]["R"], "picks": what})
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", column_config={
        "R (nats)": st.column_config.NumberColumn(format="%.4f"),
        "picks": st.column_config.TextColumn(help="the network on the path with the largest value of this rule")})
    st.caption("; ".join(f"{rule}: {why}" for rule, (_, why) in RULE_WHY.items()) + ".")
    return {row["rule"].split(" ")[0]: row["network #"] for row in rows}


def _path_chart(path, picks, select, index):
    frame = pd.DataFrame({"df": [p["df"] for p in path], "R": [p["R"] for p in path],
                          "S": [p["S"] for p in path], "network": list(range(len(path)))})
    frame["mark"] = ["on the path"] * len(path)
    for rule, pick in picks.items():
        frame.loc[pick, "mark"] = f"picked by {rule}" if frame.loc[pick, "mark"] == "on the path" else (
            frame.loc[pick, "mark"] + f", {rule}")
    marks = list(dict.fromkeys(["on the path", *frame["mark"]]))
    colours = ["#90a4ae" if m == "on the path" else "#d81b60" if select in m else "#ef6c00" for m in marks]
    line = alt.Chart(frame).mark_line(color="#90a4ae").encode(
        x=alt.X("df:Q", title="complexity df = Σ q_i (r_i − 1) (free parameters)"),
        y=alt.Y("R:Q", title="class difference R (nats)"))
    points = alt.Chart(frame).mark_point(filled=True).encode(
        x="df:Q", y="R:Q",
        size=alt.condition(alt.datum.mark != "on the path", alt.value(160), alt.value(50)),
        color=alt.Color("mark:N", title=None, scale=alt.Scale(domain=marks, range=colours),
                        legend=alt.Legend(orient="bottom", labelLimit=400)),
        tooltip=[alt.Tooltip("network:Q", title="network #"), alt.Tooltip("df:Q", title="df"),
                 alt.Tooltip("R:Q", format=".6f"), alt.Tooltip("S:Q", title="S = R / df", format=".6f")])
    shown = alt.Chart(frame.iloc[[index]].assign(ring="shown below")).mark_point(
        filled=False, size=520, strokeWidth=3).encode(
        x="df:Q", y="R:Q", color=alt.Color("ring:N", title=None, scale=alt.Scale(range=["#1f77b4"]),
                                           legend=alt.Legend(orient="bottom", symbolFillColor="transparent")))
    show_chart(alt.layer(line, points, shown).resolve_scale(color="independent"),
               "The complexity path: the best network at each complexity, and what each rule picks",
               f"Each point is the network with the largest class difference R among those with that many free "
               f"parameters. Magenta: the {select} rule, used for this result; orange: what the other rules would "
               "pick; the blue ring: the network shown below (also when a rule picked it). R grows with df, but "
               "ever more slowly, so a rule that charges more per parameter picks a simpler network.", height=300)


def _path_dag(point, names):
    """The DAG of one point of the complexity path as stored in the result's JSON."""
    if "arcs" in point:
        return DAG.from_arcs([tuple(arc) for arc in point["arcs"]], names)
    return DAG.from_parents([[names.index(p) for p in ps] for ps in point["parents"]], names)


def _bnkl_drawing(extra, chosen, index, names):
    """The network at path ``index``; ``chosen`` is the BNKLResult at it (None for an imported result)."""
    dag = _path_dag(extra["path"][index], names)
    if chosen is not None:
        arc_kl = {(names[u], names[v]): float(kl) for u, v, kl in chosen.arc_kl}
        dag = chosen.dag
    else:
        arc_kl = ({(a["from"], a["to"]): a["kl"] for a in extra.get("arc_kl", [])}
                  if index == extra.get("selected") else {})
    divergence = extra.get("marginal_kl")
    marginal = {name: float(extra["marginal_R"][name]) for name in names}
    pvalues = extra.get("pvalues", {})
    tests = extra.get("tests", {})
    titles = {}
    for name in names:
        text = f"<b>{html.escape(name)}</b>"
        if divergence is not None:
            text += f"<br>KL divergence of {html.escape(name)} alone = {divergence[name]:.6f} nats"
        text += f"<br>its R_i in the score (sdnet convention) = {marginal[name]:.6f}"
        if name in pvalues:
            text += f"<br>{html.escape(str(tests.get(name, '')))} p-value = {pvalues[name]:.3g}"
        titles[name] = text
    arc_titles = {arc: f"{html.escape(arc[0])} → {html.escape(arc[1])}<br>R of {html.escape(arc[1])} drops by "
                       f"{kl:.6f} nats without this arc" for arc, kl in arc_kl.items()}
    varied = len({round(v, 9) for v in arc_kl.values()}) > 1
    drawing = viz.pdag_drawing(
        dag, arc_weights=arc_kl if varied else None, arc_titles=arc_titles,
        node_values=None if divergence is None else {name: float(divergence[name]) for name in names},
        node_titles=titles, value_label="node colour: KL divergence between the classes, variable alone (nats)",
        weight_label="thicker arc = carries more class difference", title=f"BNKL network #{index} of the "
                                                                          "complexity path")
    return drawing, varied, divergence is not None


def _bnkl_caption(n_arcs, varied, coloured):
    parts = ["One network for both classes; its conditional tables differ between them."]
    if n_arcs == 0:
        parts.append("This network has no arcs: at this point of the path the variables' own class differences "
                     "explain the most per parameter. Move along the path above for networks with arcs.")
    elif varied:
        parts.append("Arc width: how much the class difference R of the child drops when the arc is removed — "
                     "thick arcs are dependencies that differ between the classes.")
    else:
        parts.append("All arcs are drawn at one width (no per-arc numbers for this network, or all equal); hover "
                     "an arc for its number where there is one.")
    if coloured:
        parts.append("Node colour: the variable's own class difference as a KL divergence, from dark (small) to "
                     "yellow (large).")
    parts.append(SDNET_NOTE)
    return " ".join(parts)


def _cross_validation(entry):
    frame, column = entry.cache.get("frame"), entry.cache.get("class_column")
    if frame is None:
        st.caption("Cross-validation needs the table the network was learned from (not kept for imported results).")
        return
    params = entry.result.params
    if "cv" not in entry.cache:
        if not st.button("Cross-validate the classifier (5 folds)", key=f"bnkl-cv-{entry.name}",
                         help="Fit the two-class networks on 4/5 of the rows and classify the other 1/5, five "
                              "times; discretization and network are learned without the test rows."):
            return
        with st.spinner("Cross-validating: five BNKL fits…"):
            entry.cache["cv"] = cross_validate(frame.drop(columns=[column]), frame[column], cv=5, seed=0,
                                               max_parents=int(params.get("max_parents", 2)),
                                               select=params.get("select", "ratio"))
    cv = entry.cache["cv"]
    st.metric("Cross-validated accuracy (5 folds)", f"{cv['mean']:.1%}",
              help="fold accuracies: " + ", ".join(f"{a:.4f}" for a in cv["accuracy"]) + f"; std {cv['std']:.4f}")
    st.caption("The share of held-out rows whose class the two class networks predict correctly (the class "
               "whose network gives the row the higher likelihood).")


def _class_network_downloads(entry, chosen, is_selected, classes):
    """BIF downloads of the two class networks (one DAG, each class's own tables) at the shown path point."""
    if chosen is not None:
        networks = chosen.networks
    elif is_selected:
        try:
            networks = class_networks_from_json(entry.result.extra)
        except BNExploreError as error:
            st.caption(f"Class networks cannot be exported: {error}")
            return
    else:
        st.caption("The class networks of other path points need the data (not kept in an imported result); "
                   "the selected one can be exported.")
        return
    stem = file_stem(entry.name)
    columns = st.columns(2)
    for column, network, label in zip(columns, networks, classes):
        column.download_button(f"BIF: class {label}", data=lambda net=network: write_bif(net),
                               file_name=f"{stem}-{network.name}.bif", mime="text/plain",
                               key=f"bnkl-bif-{entry.name}-{network.name}", on_click="ignore",
                               help=f"This DAG with the tables of class {label} (zeros reset to 1/(3n), as the "
                                    "paper's classifier uses them); open it in any BIF tool.")


def _render_bnkl(entry, positions):
    extra = entry.result.extra
    found = entry.cache.get("bnkl")
    names = list(extra["names"])
    path = extra["path"]
    selected = int(extra["selected"])
    select = extra.get("select", "ratio")
    classes = extra.get("classes", ["class 0", "class 1"])
    n_rows = int(entry.result.params.get("n_rows") or sum(extra.get("class_counts", [])) or 1)
    st.caption(f"Classes: {classes[0]} (reference, class 0) vs {classes[1]}; the {select} rule picked network "
               f"#{selected} of the {len(path)} on the complexity path.")
    picks = _rule_table(path, n_rows, select)
    index = selected
    if len(path) > 1:
        index = st.slider("Network on the complexity path to draw (0 = simplest)", 0, len(path) - 1, selected,
                          key=f"bnkl-index-{entry.name}")
    _path_chart(path, picks, select, index)
    chosen = None
    if found is not None:  # the network at this point of the path, computed once per point
        key = ("bnkl-at", index)
        if key not in entry.cache:
            entry.cache[key] = found.at(index)
        chosen = entry.cache[key]
    drawing, varied, coloured = _bnkl_drawing(extra, chosen, index, names)
    show_graph(drawing, positions, _bnkl_caption(len(drawing.edges), varied, coloured))
    _class_network_downloads(entry, chosen, index == selected, classes)
    _cross_validation(entry)


register(Section("Two-class view (BNKL)", lambda entry: entry.result.algorithm == "bnkl", _render_bnkl))


# ---------------------------------------------------------------------------
# Credible set (every network within a Bayes factor of the optimum, Liao et al. 2019)

GROUPINGS = {
    "mec": ("Markov equivalence (skeleton + v-structures)",
            "Markov equivalent DAGs encode the same independences and get the same BDeu / BIC score: the data "
            "cannot tell them apart, so each class is one answer."),
    "rpdag": ("RPDAG class (skeleton + every head-to-head pattern)",
              "RPDAG classes (Acid & de Campos 2003) also keep shielded head-to-head patterns a → c ← b with a, b "
              "adjacent, so they split some Markov classes into several; published counts of 'equivalence "
              "classes' are sometimes of this kind."),
}
HEATMAP_CAPTION = ("Model averaging over the credible set: the probability of each arc (row → column), each "
                   "network weighted by exp(score − OPT). Dark = present in almost every credible network; "
                   "hover for the exact value.")


def _classes_table(found, classes):
    frame = pd.DataFrame({
        "rank": [c.rank for c in classes],
        "score gap": [found.opt - c.score for c in classes],
        "Bayes factor": [c.bayes_factor for c in classes],
        "DAGs found": [c.n_dags for c in classes],
        "share": [c.share for c in classes],
    })
    st.dataframe(frame, hide_index=True, width="stretch", height=min(38 * (len(frame) + 1), 320), column_config={
        "score gap": st.column_config.NumberColumn(format="%.4f", help="OPT minus the class's best score"),
        "Bayes factor": st.column_config.NumberColumn(format="%.3g", help="exp(score gap): how much the data "
                                                                          "prefer the best network to this class"),
        "share": st.column_config.ProgressColumn(format="%.3f", min_value=0.0, max_value=1.0,
                                                 help="model-averaging weight of the class"),
    })


def _heatmap(names, matrix):
    rows = [{"from": names[u], "to": names[v], "probability": float(matrix[u][v])}
            for u in range(len(names)) for v in range(len(names)) if u != v]
    chart = alt.Chart(pd.DataFrame(rows)).mark_rect().encode(
        x=alt.X("to:N", sort=names, title="child (arc head)"),
        y=alt.Y("from:N", sort=names, title="parent (arc tail)"),
        color=alt.Color("probability:Q", scale=alt.Scale(scheme="viridis", domain=[0, 1], reverse=True),
                        title="P(arc)"),
        tooltip=["from", "to", alt.Tooltip("probability:Q", format=".6f")])
    cell = alt.Step(max(12, min(28, 640 // max(1, len(names)))))
    show_chart(chart.properties(width=cell, height=cell), "Posterior probability of each arc over the credible set",
               HEATMAP_CAPTION, stretch=False)


def _class_result(entry, found, chosen):
    """A Result for the best credible DAG of a class, so the rest of the app can treat it as a network."""
    params = {**entry.result.params, "class_rank": chosen.rank, "grouping": chosen.kind}
    return Result(graph=chosen.dag, score=chosen.score, score_name=found.score_name, algorithm="credible class",
                  params=params, stats={"seconds": None, "stopped": None, "bayes_factor": chosen.bayes_factor,
                                        "share": chosen.share})


def _render_credible(entry, positions):
    found = entry.cache["credible"]
    kind = st.radio("Group the credible DAGs by", list(GROUPINGS), format_func=lambda k: GROUPINGS[k][0],
                    horizontal=True, key=f"cred-group-{entry.name}")
    classes = found.classes if kind == "mec" else found.rpdag_classes
    a, b, c, d = st.columns(4)
    a.metric("OPT", f"{found.opt:,.2f}", help=f"the optimal {found.score_name} score, exactly {found.opt!r}")
    b.metric("ε = ln(BF)", f"{found.epsilon:.3f}", help=f"Bayes factor {views.number(found.bayes_factor)}")
    c.metric("Credible DAGs", f"{len(found):,}")
    other = found.rpdag_classes if kind == "mec" else found.classes
    d.metric("Markov classes" if kind == "mec" else "RPDAG classes", f"{len(classes):,}",
             help=f"grouped as chosen above; {len(other):,} " + ("RPDAG" if kind == "mec" else "Markov") + " classes")
    if found.truncated:
        complete = ("" if found.complete_epsilon is None else
                    f" Every network within a Bayes factor of {math.exp(found.complete_epsilon):.3g} is here; "
                    "raise the limit (Search page) for more.")
        reused = found.stats.get("reused_from_bf")
        again = ("" if reused is None else f" The set at Bayes factor {reused:,.4g} was already cut by the limit, so "
                 "its best networks are the answer here too: no new search ran.")
        st.warning(f"The set is incomplete: {found.truncated_reason}.{complete}{again} Classes and probabilities "
                   "describe the networks kept.")
    st.caption(GROUPINGS[kind][1])
    _classes_table(found, classes)
    rank = st.number_input(f"Class to draw (rank 1–{len(classes)})", 1, len(classes), 1,
                           key=f"cred-rank-{entry.name}-{kind}")
    chosen = classes[int(rank) - 1]
    graph = chosen.graph
    drawing = (viz.cpdag_drawing(graph, title=f"class {chosen.rank}: its CPDAG") if kind == "mec" else
               viz.pdag_drawing(graph, title=f"class {chosen.rank}: its RPDAG"))
    show_graph(drawing, positions,
               f"Class {chosen.rank}: {chosen.n_dags} credible DAG(s), score gap {found.opt - chosen.score:.4f} "
               f"(Bayes factor {chosen.bayes_factor:.3g}). Solid arrows are shared by every DAG of the class; "
               "dashed lines can point either way.")
    if st.button(f"Keep class {chosen.rank} as a network", key=f"cred-keep-{entry.name}-{kind}-{chosen.rank}",
                 help="Adds the class's best credible DAG to your networks, to look at, ask, compare and export "
                      "like any other result."):
        state.add_result(f"{entry.name} · class {chosen.rank}", _class_result(entry, found, chosen),
                                entry.dataset, entry.data_key, entry.data_label)
        st.rerun()  # the page starts again on the kept class (it is the newest result)
    _heatmap(found.names, found.arc_probabilities)
    st.download_button("Download the credible set (JSON)", lambda: found.dumps(), f"{file_stem(entry.name)}_credible.json",
                       "application/json", key=f"cred-json-{entry.name}", on_click="ignore")


register(Section("Credible set: every network within the Bayes factor", lambda entry: "credible" in entry.cache,
                 _render_credible))


# ---------------------------------------------------------------------------
# Bootstrap arc strength (Friedman et al. 1999; bnlearn's boot.strength and averaged.network)

STRENGTH_CAPTION = ("Every pair of variables joined in at least one resample. Solid: in the averaged network at this "
                    "threshold, as wide as its strength (the share of resamples that join the pair; hover for it "
                    "and for the direction, the share of those that point this way). Faint: joined in some "
                    "resamples, not enough to pass the threshold.")


def _bootstrap_of(entry):
    if "bootstrap" not in entry.cache:
        entry.cache["bootstrap"] = BootstrapResult.from_json(entry.result.extra["bootstrap"])
    return entry.cache["bootstrap"]


def _credible_beside(entry):
    """A credible set learned on the same data (the Bayesian counterpart of the strengths), or None."""
    for other in st.session_state["results"].values():
        if "credible" in other.cache and other.data_key == entry.data_key and other.result.names == entry.result.names:
            return other
    return None


def _strength_vs_posterior(found, credible):
    n = len(found.names)
    strength = found.strength
    posterior = credible.cache["credible"].adjacency_probabilities
    rows = [{"pair": f"{found.names[u]} — {found.names[v]}", "bootstrap strength": float(strength[u, v]),
             "posterior probability": float(posterior[u][v])}
            for u in range(n) for v in range(u + 1, n) if strength[u, v] > 0 or posterior[u][v] > 0]
    if not rows:
        return
    chart = alt.Chart(pd.DataFrame(rows)).mark_circle(size=80, color="#1565c0").encode(
        x=alt.X("bootstrap strength:Q", scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("posterior probability:Q", scale=alt.Scale(domain=[0, 1])),
        tooltip=["pair", alt.Tooltip("bootstrap strength:Q", format=".3f"),
                 alt.Tooltip("posterior probability:Q", format=".4f")])
    show_chart(chart, f"Bootstrap strength beside the exact posterior of {credible.name}",
               "One point per pair of variables: how often the resamples joined them (frequentist stability) "
               "against the probability that they are adjacent, averaged over every credible network (Bayesian "
               "model averaging). Points near the diagonal agree.", height=320)


def _render_bootstrap(entry, positions):
    found = _bootstrap_of(entry)
    default = float(found.threshold())
    a, b, c = st.columns(3)
    a.metric("Resamples", f"{found.resamples:,}", help=f"learned by {found.params.get('algorithm')}")
    b.metric("Estimated threshold", f"{default:.3f}",
             help="Scutari & Nagarajan (2013): the strength that best splits the pairs into absent and present.")
    threshold = st.slider("Threshold: keep pairs joined in more than this share of resamples", 0.0, 1.0,
                          default, 0.005, format="%.3f", key=f"boot-threshold-{entry.name}",
                          help="Starts at the estimated threshold, where the averaged network of this result is.")
    averaged = found.averaged(threshold)
    c.metric("Edges at this threshold", averaged.graph.n_edges)
    drawing = viz.strength_drawing(averaged.graph, found.strength, found.direction, threshold,
                                   title=f"{entry.name}: arc strength, threshold {threshold:.3f}")
    show_graph(drawing, positions, STRENGTH_CAPTION, most=460)
    if averaged.dropped:
        st.caption("Left out because they would close a directed cycle with stronger arcs: " + "; ".join(
            f"{d['from']} → {d['to']} (strength {d['strength']:.2f})" for d in averaged.dropped) + ".")
    if st.button("Keep the averaged network at this threshold", key=f"boot-keep-{entry.name}",
                 help="Adds it to your networks, to ask, compare and export."):
        dag = averaged.dag()
        scorer = views.entry_scorer(entry)
        result = Result(graph=dag, score=scorer.total(dag) if scorer is not None else float("nan"),
                        score_name=entry.result.score_name, algorithm="averaged",
                        params={**entry.result.params, "threshold": threshold}, stats={"seconds": None})
        state.add_result(f"{entry.name} · threshold {threshold:.3f}", result, entry.dataset, entry.data_key,
                         entry.data_label)
        st.rerun()
    with st.expander("Strength of every pair (bnlearn's boot.strength table)"):
        st.dataframe(pd.DataFrame(found.table()), hide_index=True, width="stretch", column_config={
            "strength": st.column_config.ProgressColumn(format="%.3f", min_value=0.0, max_value=1.0),
            "direction": st.column_config.NumberColumn(format="%.3f")})
    credible = _credible_beside(entry)
    if credible is not None:
        _strength_vs_posterior(found, credible)


register(Section("How sure is each arc (bootstrap)", lambda entry: "bootstrap" in entry.result.extra,
                 _render_bootstrap))
register(Section("How structural EM went (learned from data with blank cells)",
                 lambda entry: em_view.run_of(entry.result) is not None, em_view.entry_section))
