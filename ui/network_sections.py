"""Extra sections of the Networks page, shown for the kinds of result they know.

A section says which results it applies to (``applies(entry)``, usually by
``entry.result.algorithm`` or a key of ``entry.result.extra``) and draws itself
(``render(entry, positions)``). Adding a view for a new kind of result is one
``register(Section(...))`` call.
"""

import html
from dataclasses import dataclass

import altair as alt
import pandas as pd
import streamlit as st

from bnexplore import viz
from bnexplore.classifier import cross_validate
from bnexplore.graphs import DAG
from ui.widgets import show_graph


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

BNKL_CAPTION = ("One network for both classes. Arc width: how much the class difference (KL divergence R, nats) "
                "drops if the arc is removed — thick arcs are dependencies that differ between the classes. Node "
                "colour: the variable's own (marginal) class difference R_i without parents, on one scale from "
                "dark (small) to yellow (large). Hover for the exact numbers and p-values.")


def _path_chart(path, selected, index):
    frame = pd.DataFrame({"df": [p["df"] for p in path], "R": [p["R"] for p in path],
                          "S": [p["S"] for p in path], "network": list(range(len(path)))})
    frame["mark"] = ["selected by the rule" if i == selected else "shown" if i == index else "on the path"
                     for i in frame["network"]]
    line = alt.Chart(frame).mark_line(color="#90a4ae").encode(
        x=alt.X("df:Q", title="complexity df = Σ q_i (r_i − 1) (free parameters)"),
        y=alt.Y("R:Q", title="class difference R (KL, nats)"))
    points = alt.Chart(frame).mark_point(filled=True, size=90).encode(
        x="df:Q", y="R:Q",
        color=alt.Color("mark:N", title="", scale=alt.Scale(domain=["on the path", "shown", "selected by the rule"],
                                                          range=["#90a4ae", "#1f77b4", "#d81b60"])),
        tooltip=[alt.Tooltip("network:Q", title="network #"), alt.Tooltip("df:Q", title="df"),
                 alt.Tooltip("R:Q", format=".6f"), alt.Tooltip("S:Q", title="S = R / df", format=".6f")])
    st.altair_chart((line + points).properties(title="Best network at each complexity (the complexity path)",
                                               height=240), width="stretch")
    st.caption("Each point is the network with the largest class difference R among those with that many free "
               "parameters; the magenta one is what the selection rule picked.")


def _path_dag(point, names):
    """The DAG of one point of the complexity path as stored in the result's JSON."""
    if "arcs" in point:
        return DAG.from_arcs([tuple(arc) for arc in point["arcs"]], names)
    return DAG.from_parents([[names.index(p) for p in ps] for ps in point["parents"]], names)


def _bnkl_drawing(extra, found, index, names):
    dag = _path_dag(extra["path"][index], names)
    if found is not None:
        chosen = found.at(index)
        arc_kl = {(names[u], names[v]): float(kl) for u, v, kl in chosen.arc_kl}
        dag = chosen.dag
    else:
        arc_kl = ({(a["from"], a["to"]): a["kl"] for a in extra.get("arc_kl", [])}
                  if index == extra.get("selected") else {})
    marginal = {name: float(extra["marginal_R"][name]) for name in names}
    pvalues = extra.get("pvalues", {})
    tests = extra.get("tests", {})
    titles = {name: f"<b>{html.escape(name)}</b><br>marginal class difference R = {marginal[name]:.6f}"
                    + (f"<br>{html.escape(str(tests.get(name, '')))} p-value = {pvalues[name]:.3g}"
                       if name in pvalues else "") for name in names}
    arc_titles = {arc: f"{html.escape(arc[0])} → {html.escape(arc[1])}<br>KL contribution = {kl:.6f} nats"
                  for arc, kl in arc_kl.items()}
    return viz.pdag_drawing(dag, arc_weights=arc_kl, arc_titles=arc_titles, node_values=marginal,
                            node_titles=titles, value_label="node colour: marginal class difference R_i (nats)",
                            weight_label="thicker arc = carries more class difference (KL)",
                            title=f"BNKL network #{index} of the complexity path")


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


def _render_bnkl(entry, positions):
    extra = entry.result.extra
    found = entry.cache.get("bnkl")
    names = list(extra["names"])
    path = extra["path"]
    selected = int(extra["selected"])
    classes = extra.get("classes", ["class 0", "class 1"])
    st.caption(f"Classes: {classes[0]} (reference, class 0) vs {classes[1]}; rule '{extra.get('select')}' "
               f"picked network #{selected} of {len(path)}.")
    index = selected
    if len(path) > 1:
        index = st.slider("Network on the complexity path (0 = simplest)", 0, len(path) - 1, selected,
                          key=f"bnkl-index-{entry.name}")
    _path_chart(path, selected, index)
    drawing = _bnkl_drawing(extra, found, index, names)
    show_graph(drawing, positions, BNKL_CAPTION)
    _cross_validation(entry)


register(Section("Two-class view (BNKL)", lambda entry: entry.result.algorithm == "bnkl", _render_bnkl))
