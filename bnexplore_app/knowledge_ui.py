"""The Tune page's "What you already know" section: required and forbidden arcs, tiers.

The knowledge lives in the session as ``Knowledge.to_json()`` (``st.session_state["knowledge"]``,
saved with the session); the widgets show it and write every change back. Searches get
:func:`knowledge`, the part on the variables of the data in use, and refuse a contradiction before
any work.
"""

import streamlit as st

from bnexplore import viz
from bnexplore.errors import BNExploreError
from bnexplore.knowledge import Knowledge
from bnexplore_app import state
from bnexplore_app.widgets import show_graph

ARROW, EDGE = " → ", " — "
EMPTY = {"require": [], "forbid": [], "forbid_edges": [], "tiers": []}


def _tiers_example(names):
    """The tiers box's grey example, in the data's own names: two, then one, then two per line."""
    lines, rest = [], list(names[:5])
    for size in (2, 1, 2):
        if rest:
            lines.append(", ".join(rest[:size]))
            rest = rest[size:]
    return "e.g.\n" + "\n".join(lines)


def current():
    """The knowledge in use (a ``Knowledge.to_json()`` dict; empty lists when none)."""
    return {**EMPTY, **(st.session_state.get("knowledge") or {})}


def knowledge():
    """The knowledge in use as a Knowledge object, or None when there is none: what is kept, on the
    variables of the data in use (the rest waits, kept, for data that have those variables)."""
    names = set(state.dataset().names)
    kept = current()
    usable = {kind: [pair for pair in kept[kind] if set(pair) <= names]
              for kind in ("require", "forbid", "forbid_edges")}
    usable["tiers"] = [tier for tier in ([n for n in tier if n in names] for tier in kept["tiers"]) if tier]
    found = Knowledge.from_json(usable)
    return found if found else None


def _unknown(names):
    """The kept knowledge's names that are not variables of the data in use."""
    kept = current()
    used = {n for kind in ("require", "forbid", "forbid_edges") for pair in kept[kind] for n in pair}
    used |= {n for tier in kept["tiers"] for n in tier}
    return sorted(used - set(names))


def summary(found):
    """A few words on a piece of knowledge ("2 required, 1 forbidden, 3 tiers")."""
    doc = found.to_json() if hasattr(found, "to_json") else {**EMPTY, **found}
    parts = [f"{len(doc['require'])} required", f"{len(doc['forbid']) + len(doc['forbid_edges'])} forbidden",
             f"{len(doc['tiers'])} tiers"]
    return ", ".join(part for part in parts if not part.startswith("0 "))


def _store(**changes):
    st.session_state["knowledge"] = {**current(), **changes}


def _add(kind):
    """Add the pair picked in From / To (read when the button is pressed) to the knowledge."""
    u, v = st.session_state["tune_k_from"], st.session_state["tune_k_to"]
    pair = sorted([u, v]) if kind == "forbid_edges" else [u, v]
    if u != v and pair not in current()[kind]:
        _store(**{kind: current()[kind] + [pair]})


def _from_widget(kind, key, separator):
    names = set(state.dataset().names)
    elsewhere = [pair for pair in current()[kind] if not set(pair) <= names]  # kept for other data
    _store(**{kind: elsewhere + [item.split(separator) for item in st.session_state[key]]})


def _tiers_from_text(key):
    lines = [line for line in st.session_state[key].splitlines() if line.strip()]
    _store(tiers=[[name.strip() for name in line.split(",") if name.strip()] for line in lines])


def _pair_picker(kind, label, names, separator, help_text):
    key = f"tune_k_{kind}"
    options = ([f"{u}{separator}{v}" for u in names for v in names if u < v] if kind == "forbid_edges" else
               [f"{u}{separator}{v}" for u in names for v in names if u != v])
    chosen = [separator.join(pair) for pair in current()[kind]]
    st.session_state[key] = [item for item in chosen if item in options]
    st.multiselect(label, options, key=key, on_change=_from_widget, args=(kind, key, separator), help=help_text)


def section(settings):
    """Draw the section; shows what a search would refuse, naming the contradiction."""
    st.subheader("What you already know")
    st.caption("Arcs every search must include or may never include, and tiers: groups in time order, so that "
               "no arc points from a later group into an earlier one (a symptom cannot cause the exposure). "
               "Every search honours them (the bootstrap too) except BNKL, whose variable order comes from its "
               "class tests: it refuses to run while knowledge is set.")
    names = list(state.dataset().names)
    a, b, c, d, e = st.columns([3, 3, 2, 2, 2], vertical_alignment="bottom")
    a.selectbox("From", names, key="tune_k_from")
    b.selectbox("To", names, index=min(1, len(names) - 1), key="tune_k_to")
    c.button("Require →", on_click=_add, args=("require",), key="tune_k_add_require", width="stretch")
    d.button("Forbid →", on_click=_add, args=("forbid",), key="tune_k_add_forbid", width="stretch")
    e.button("Forbid ↔", on_click=_add, args=("forbid_edges",), key="tune_k_add_edge", width="stretch",
             help="Forbid the pair in either direction.")
    left, right = st.columns(2)
    with left:
        _pair_picker("require", "Required arcs", names, ARROW, "Every network learned will have these arcs.")
        _pair_picker("forbid", "Forbidden arcs", names, ARROW, "No network learned will have these arcs.")
        _pair_picker("forbid_edges", "Forbidden in either direction", names, EDGE,
                     "These pairs will never be joined, whichever way.")
    with right:
        key = "tune_k_tiers"
        st.session_state[key] = "\n".join(", ".join(tier) for tier in current()["tiers"])
        st.text_area("Tiers: one line per tier, earliest first, names separated by commas", key=key, height=150,
                     on_change=_tiers_from_text, args=(key,),
                     placeholder=_tiers_example(names))
        if st.button("Clear all knowledge", key="tune_k_clear", disabled=current() == EMPTY):
            st.session_state["knowledge"] = None
            st.rerun()
    unknown = _unknown(names)
    if unknown:
        st.warning(f"Knowledge about {', '.join(unknown)} is kept but not used: not variables of the data in use. "
                   "It applies again to data that have them; *Clear all knowledge* drops it.")
    found = knowledge()
    if found is None:
        return
    try:
        found.bind(names, settings.get("max_indegree"))
    except BNExploreError as error:
        st.error(f"This knowledge contradicts itself or the data: {error}. Searches will refuse to run until it "
                 "is fixed.")
    drawing = viz.knowledge_drawing(names, found.to_json(), title="What you already know")
    positions = viz.tier_layout(names, found.tiers)
    show_graph(drawing, positions, "Required arcs in green, forbidden ones in red and dashed. "
               + ("Each row is a tier, the earliest on top; variables in no tier are on the last row."
                  if found.tiers else "No tiers are set."), most=420)
