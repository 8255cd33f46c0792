"""The Networks page's "Ask the network" view: set evidence, see every node's posterior as bars.

Each piece of evidence is either observed (``X = x`` seen) or set by an
intervention (``do(X = x)``: graph surgery, the arrows into X cut), chosen per
variable when it is set; the answer says which it holds, and P(evidence) is
then the probability of the observed part given the interventions. For a
credible-set entry, a range bar per state shows the same question's answer
over every credible DAG (:func:`bnexplore.search.credible.effect_range`).

The network asked is the entry's DAG with tables fitted to its data (BDeu
posterior mean with the Tune page's ESS, or maximum likelihood), or the true
network itself for the ground truth, or an imported network file's own tables.
One inference engine is compiled per network and fit and kept with the entry,
so each click is one query.
"""

import html

import altair as alt
import pandas as pd
import streamlit as st

from bnexplore import viz
from bnexplore.errors import BNExploreError
from bnexplore.inference import InferenceEngine
from bnexplore.search.credible import effect_range
from bnexplore_app import state, views
from bnexplore_app.widgets import pick_one, show_chart, show_graph

FITS = {"bdeu": "BDeu posterior mean", "ml": "maximum likelihood"}
GRAPH_WIDTH = 640
"""Pixels of the graph column (three quarters of a 1280-pixel window with the sidebar open): the belief
layout is arranged to be read whole in it (:func:`bnexplore.viz.belief_positions`)."""


def network_for(entry, method, ess):
    """``(Network, what it is)``: the true network for the ground truth, else the DAG fitted to its data.

    Returns ``(None, why not)`` when there are no data to fit tables with.
    """
    truth = st.session_state.get("truth")
    if entry.result.algorithm == "ground truth" and truth is not None:
        return truth, "the true network, with its own probability tables"
    own = views.file_network(entry)
    if own is not None:
        return own, "the imported file's own probability tables"
    data, data_key = views.data_for(entry)
    if data is None and views.imported_file(entry.result) is not None:
        return None, ("this network was imported as a graph without probability tables, and its variables are not "
                      "those of the data in use, so there are no data to fit its tables; load data with its variables")
    if data is None:
        return None, ("this network was learned on other data than the data in use, so there are no data to fit "
                      "its probability tables; load those data, or ask the ground truth")
    key = ("fit", method, ess, data_key)
    if key not in entry.cache:
        entry.cache[key] = views.fit(entry.result.graph, data, ess=ess, method=method)
    network = entry.cache[key]
    empty = sum(network.fit.get("empty_configurations", {}).values())
    fitted_on = entry.data_label if data_key == entry.data_key else st.session_state["data_label"]
    how = (f"tables fitted to {fitted_on} by {FITS[method]}"
           + (f" (ESS {ess:g})" if method == "bdeu" else ""))
    if network.fit.get("method") == "em":
        how = (f"tables fitted to {fitted_on} by EM, blanks left blank: the BDeu posterior mean (ESS {ess:g}) on "
               f"the expected counts, after {len(network.fit.get('log_likelihoods') or ())} iterations")
    if empty:
        how += (f"; {empty:,} parent configurations never occur in the data and get the uniform distribution "
                "(see a node's table below)")
    return network, how


def engine_for(entry, network, method, ess):
    """The compiled inference engine of a network (kept with the entry)."""
    key = (("engine", "truth") if entry.result.algorithm == "ground truth" else ("engine", "file")
           if views.file_network(entry) is not None
           else ("engine", method, ess, views.data_for(entry)[1]))  # as the fit: per data
    if key not in entry.cache:
        with st.spinner("Compiling the network for questions (junction tree)…"):
            entry.cache[key] = InferenceEngine(network)
    return entry.cache[key]


def evidence_of(entry):
    """The evidence set on this entry, ``{variable: state}`` (kept in the session)."""
    return st.session_state.setdefault("evidence", {}).setdefault(entry.name, {})


def interventions_of(entry):
    """The variables of this entry's evidence that are set by intervention, not observed (kept in the session)."""
    return st.session_state.setdefault("ask_do", {}).setdefault(entry.name, set())


def evidence_controls(entry, network):
    """Pick a variable, a state and whether it is observed or set; remove one piece of evidence or all of it."""
    evidence, setting = evidence_of(entry), interventions_of(entry)
    names = list(network.names)
    variable = st.selectbox("Observe or set, and its state", names, key=f"ask-var-{entry.name}")
    states = list(network.states[names.index(variable)])
    current = evidence.get(variable)
    # the states without their label, and the observe / intervene toggle on the button's line: the controls
    # end in a 720-pixel window
    observed = st.radio("is in state", states, index=states.index(current) if current in states else 0,
                        key=f"ask-state-{entry.name}-{variable}", horizontal=len(states) <= 4,
                        label_visibility="collapsed")
    with st.container(horizontal=True, vertical_alignment="center", gap=None):
        clicked = st.button("Set this evidence", key=f"ask-set-{entry.name}", type="primary",
                            help="Toggle do(·) off: the state is observed (seen), and what causes it is updated "
                                 "too. On: the state is set from outside (an intervention), the arrows into the "
                                 "variable are cut, so its causes keep their probabilities and only what it causes "
                                 "changes (graph surgery, Pearl 2009).")
        intervene = st.toggle("do(·)", key=f"ask-how-{entry.name}")
    if clicked:
        evidence[variable] = observed
        (setting.add if intervene else setting.discard)(variable)
        st.rerun()
    if evidence:
        st.markdown("**Evidence**")
        for name, value in list(evidence.items()):
            label = f"✕ do({name} = {value})" if name in setting else f"✕ {name} = {value}"
            if st.button(label, key=f"ask-drop-{entry.name}-{name}", help="Remove this evidence"):
                del evidence[name]
                setting.discard(name)
                st.rerun()
        if st.button("Clear all evidence", key=f"ask-clear-{entry.name}"):
            evidence.clear()
            setting.clear()
            st.rerun()


def credible_ranges(entry, network, observed, do, ess):
    """For a credible-set entry: one range bar per state of a chosen variable, from the smallest to the
    largest answer over the set's DAGs (each fitted to the data), with the weighted mean marked."""
    credible = entry.cache.get("credible")
    data = views.data_for(entry)[0]
    if credible is None or data is None or not len(credible):
        return
    names = list(network.names)
    target = st.selectbox("Range across the credible set of", names, key=f"ask-range-{entry.name}",
                          index=next((i for i, n in enumerate(names) if n not in do), 0))
    key = ("effect-networks", ess, views.data_for(entry)[1])
    networks = entry.cache.setdefault(key, {})  # each DAG fitted once, kept for the next click
    try:
        answer = effect_range(credible, target, do, observed, data=data, ess=ess, networks=networks)
    except BNExploreError as error:
        st.info(f"No range across the credible set: {error}")
        return
    frame = pd.DataFrame({"state": answer.states, "minimum": answer.minimum, "maximum": answer.maximum,
                          "mean": answer.mean})
    bars = alt.Chart(frame).mark_bar(size=14, color="#90caf9").encode(
        y=alt.Y("state:N", sort=answer.states, title=target), x=alt.X("minimum:Q", title="probability",
                                                                    scale=alt.Scale(domain=[0, 1])),
        x2="maximum:Q", tooltip=[alt.Tooltip(c, format=".4f") if c != "state" else c for c in frame.columns])
    means = alt.Chart(frame).mark_tick(color="#0d47a1", thickness=3, size=18).encode(
        y=alt.Y("state:N", sort=answer.states), x="mean:Q")
    spans = "; ".join(f"{s}: {lo:.4f} to {hi:.4f}, mean {m:.4f}" for s, lo, hi, m in
                      zip(answer.states, answer.minimum, answer.maximum, answer.mean))
    show_chart(alt.layer(bars, means), f"{answer_kind(observed, do)[:-1]} across the credible set",
               f"P({target}) over the {len(answer.members)} credible DAGs, each fitted to the data: the bar runs "
               f"from the smallest to the largest answer, the tick is the mean weighted by the Bayes factors. "
               f"{spans}.", height=40 + 24 * len(answer.states))


def answer_kind(observed, do):
    """One sentence saying what the answer is: given observations, after interventions, or both."""
    seen = ", ".join(f"{k} = {v}" for k, v in observed.items())
    done = ", ".join(f"{k} = {v}" for k, v in do.items())
    if do and observed:
        return f"Intervention answer: P(· | {seen}, do({done})), the arrows into {', '.join(do)} cut."
    if do:
        return f"Intervention answer: P(· | do({done})), the arrows into {', '.join(do)} cut."
    return f"Observation answer: P(· | {seen})." if observed else "No evidence: the prior."


def probability_table(network, variable):
    """The node's conditional probability table: parent configurations as rows, counts beside probabilities."""
    v = network.names.index(variable)
    parents = network.parents[v]
    table = network.cpts[v].reshape(-1, network.arities[v])
    counts = None if network.fit is None else network.fit["counts"][v].reshape(table.shape)
    rows = pd.MultiIndex.from_product([network.states[p] for p in parents],
                                      names=[network.names[p] for p in parents]) if parents else ["(no parents)"]
    frame = pd.DataFrame(table, index=rows, columns=[f"P({s})" for s in network.states[v]])
    if counts is not None:
        expected = network.fit.get("method") == "em"  # expected counts are fractions
        for k, s in enumerate(network.states[v]):
            frame.insert(2 * k + 1, f"n({s})", counts[:, k].round(2) if expected else counts[:, k].astype(int))
    return frame.reset_index() if parents else frame


def render(entry, positions, most):
    """The whole view: controls beside the graph of bars, P(e), and a node's table.

    Returns ``(drawing, positions)`` for the export buttons, or None when the
    network cannot be asked (the reason is on the page).
    """
    settings = st.session_state["settings"]
    ess = float(settings.get("ess", 1.0))
    graph_column, side = st.columns([3, 1])
    with side:
        method = "bdeu"
        blank = state.has_blanks(views.data_for(entry)[0])
        own = entry.result.algorithm == "ground truth" or views.file_network(entry) is not None
        if not own and not blank:  # with blanks: EM, on BDeu's counts
            # a select box takes one line where a radio of these labels takes three: the evidence controls
            # below end in a 720-pixel window
            method = st.selectbox("Tables", list(FITS), format_func=lambda m: (
                f"BDeu, ESS {ess:g}" if m == "bdeu" else FITS[m]), key=state.KEEP + "ask_fit",
                help="BDeu posterior mean: counts plus the prior's ESS spread over each table (never 0); "
                     "maximum likelihood: the counts alone (0 for what never occurred).")
        network, how = network_for(entry, method, ess)
        if network is None:
            st.info(how)
            return None
        try:
            engine = engine_for(entry, network, method, ess)
        except BNExploreError as error:
            st.error(str(error))
            return None
        evidence = {k: v for k, v in evidence_of(entry).items() if k in network.names}
        setting = interventions_of(entry)
        observed = {k: v for k, v in evidence.items() if k not in setting}
        do = {k: v for k, v in evidence.items() if k in setting}
        try:
            answer = engine.query(evidence=observed, do=do)
        except BNExploreError as error:  # evidence of probability 0
            answer = None
            st.error(f"{error}. Remove a piece of evidence below.")
        evidence_controls(entry, network)
        if answer is not None:  # below the controls, so that they are in a 720-pixel window with the graph
            st.metric("P(evidence)", f"{answer.evidence_probability:.4g}" if observed else "1 (none yet)",
                      help="How probable the observed states are together, before observing them"
                           + (", once the set variables are set" if do else "") +
                           f". Exactly {answer.evidence_probability!r}.")
            if do:
                st.caption(answer_kind(observed, do))
    if answer is None:
        return None
    priors = {name: dict(zip(network.states[i], engine.priors[name].tolist())) for i, name in enumerate(network.names)}
    titles = {name: f"<b>{html.escape(name)}</b><br>" + "<br>".join(
        f"{html.escape(str(s))}: {p:.4f} (before evidence {priors[name][s]:.4f})" for s, p in answer.posterior[
            name].items()) for name in network.names}
    drawing = viz.belief_drawing(entry.result.graph, answer.posterior, priors, evidence, titles,
                                 title=f"{entry.name} — asked")
    spread = viz.belief_positions(positions, drawing, frame=(GRAPH_WIDTH, most))
    with graph_column:
        show_graph(drawing, spread, f"{answer_kind(observed, do)} "
                   f"Each node shows the probability of each of its states given the evidence "
                   f"(dark bar and percentage), with its probability before any evidence behind it (faint); "
                   f"with no evidence the two agree. Observed nodes are drawn in magenta. The network: {how}.",
                   height=most)
    credible_ranges(entry, network, observed, do, ess)
    names = list(network.names)
    chosen = pick_one("Probability table of", names, f"ask-table-{entry.name}",
                      st.session_state.get(f"ask-table-pick-{entry.name}", names[0]),
                      lambda name: st.session_state.update({f"ask-table-pick-{entry.name}": name}))
    st.dataframe(probability_table(network, chosen), hide_index=True, width="stretch")
    st.caption("One row per configuration of the node's parents; P(state) is the table's probability and n(state) "
               + ("the expected number of rows with that state and those parents, blank cells counted by their "
                  "probability under the network (EM)." if network.fit.get("method") == "em" else
                  "how many rows of the data have that state with those parents.")
               if network.fit is not None else "One row per configuration of the node's parents (the network's own "
               "table, the true network's or its file's; it was not fitted to data, so there are no counts).")
    return drawing, spread
