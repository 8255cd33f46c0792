"""Replaying a local search's trajectory step by step (teaching mode).

Two kinds of run can be replayed, as the search registry
(:data:`bnexplore.search.SEARCHES`, each entry's ``replay``) says: DAG searches
(hill climbing, tabu search), whose steps add, delete or reverse one arc, and
RPDAG searches, whose steps are the operators of Acid & de Campos (2003),
Section 4.3, each recorded with the state (A-G, Table 1) of the pair it joined.
"""

from bnexplore import viz
from bnexplore.graphs import DAG, RPDAG
from bnexplore.search import SEARCHES
from bnexplore.search.rpdag import OPERATORS as RPDAG_OPERATORS
from bnexplore.search.rpdag import apply_operator

DAG_OPERATORS = ("add", "delete", "reverse")
LINK_OPERATORS = ("A_link", "D_link")  # RPDAG steps that change an undirected link
HIGHLIGHT = "#d81b60"
DELETED = "#f8bbd0"
RPDAG_WORDS = {"A_arc": "add the arc", "A_link": "add the link", "D_arc": "delete the arc",
               "D_link": "delete the link", "A_hh": "add the head-to-head pattern"}


OPERATORS = {"dag": DAG_OPERATORS, "rpdag": RPDAG_OPERATORS}
"""The steps of each replay kind a registry entry may name."""


def replayable():
    """The labels of the searches whose runs can be replayed (registry entries with a ``replay`` kind)."""
    return [spec.label for spec in SEARCHES.values() if spec.replay is not None]


def kind(result):
    """The replay kind of the result's search (``"dag"`` or ``"rpdag"``, from its registry entry) when every
    step of its trajectory is one of that kind's, else None (a run with random restarts, another search)."""
    spec = SEARCHES.get(result.algorithm) if isinstance(result.algorithm, str) else None  # imported: any JSON
    steps = result.trajectory or []
    if spec is None or spec.replay is None or not steps or result.params.get("restarts"):
        return None
    if not {step.get("op") for step in steps} <= set(OPERATORS[spec.replay]):
        return None
    if spec.replay == "dag" and any(len(step.get("args", ())) != 2 for step in steps):
        return None
    return spec.replay


def arcs_after(trajectory, k, start=()):
    """The arcs after the first ``k`` steps of a DAG trajectory.

    Parameters
    ----------
    trajectory : list of dict
        Steps with ``op`` in add / delete / reverse and ``args`` = [tail, head] names.
    k : int
        Number of steps applied (0 = the start graph).
    start : iterable of (str, str)
        Arcs of the start graph.

    Returns
    -------
    set of (str, str)
    """
    arcs = set(map(tuple, start))
    for step in trajectory[:k]:
        u, v = step["args"]
        if step["op"] == "add":
            arcs.add((u, v))
        elif step["op"] == "delete":
            arcs.discard((u, v))
        else:
            arcs.discard((u, v))
            arcs.add((v, u))
    return arcs


def graphs(result):
    """The graph before the first step and after every step (DAGs, or RPDAGs for an RPDAG run).

    A search starts from ``extra["start"]`` when it has one (the required
    arcs of the knowledge), else from the empty graph.
    """
    names = result.names
    steps = result.trajectory
    start = result.extra.get("start")
    if kind(result) == "dag":
        arcs = [] if start is None else [(names[u], names[v]) for u, v in start.arcs()]
        return [DAG.from_arcs(sorted(arcs_after(steps, k, arcs)), names) for k in range(len(steps) + 1)]
    current = RPDAG.from_json({"nodes": names}) if start is None else start
    out = [current]
    for step in steps:
        current = apply_operator(current, step["op"], *step["args"])
        out.append(current)
    return out


STATE_WORDS = {
    "A": "neither {x} nor {y} had a parent or a link",
    "B": "neither {x} nor {y} had a link, and one of them had a parent",
    "C": "neither {x} nor {y} had a parent, and both had links",
    "D": "neither {x} nor {y} had a parent, and only {y} had links",
    "E": "neither {x} nor {y} had a parent, and only {x} had links",
    "F": "{x} had a parent and {y} had links",
    "G": "{y} had a parent and {x} had links",
}
"""The states of a non-adjacent pair (x, y) in words (Acid & de Campos 2003, Table 1 and Figure 10)."""

POST_WORDS = {
    "Complete": "then the links below {y} were turned into arcs pointing away from it",
    "Undo": "then the arcs into {y} that no longer meet head to head became links again",
}
"""The post-processing of an RPDAG step in words (Acid & de Campos 2003, Section 4.3)."""

PAPER = "Acid & de Campos (2003), Journal of Artificial Intelligence Research 18"


def describe(step):
    """One line for a step in plain words: what it did, the score change, and for an RPDAG step how the
    pair stood before and what the post-processing did (the paper's names are in :func:`source`)."""
    args = step["args"]
    op = step["op"]
    if op in DAG_OPERATORS:
        u, v = args
        what = {"add": f"add the arc {u} → {v}", "delete": f"delete the arc {u} → {v}",
                "reverse": f"reverse {u} → {v} into {v} → {u}"}[op]
    elif op == "A_hh":
        what = f"{RPDAG_WORDS[op]} {args[0]} → {args[1]} ← {args[2]}"
    else:
        sign = "→" if op.endswith("arc") else "—"
        what = f"{RPDAG_WORDS[op]} {args[0]} {sign} {args[1]}"
    if step.get("state") in STATE_WORDS:
        what += "; before it, " + STATE_WORDS[step["state"]].format(x=args[0], y=args[1])
    if step.get("post") in POST_WORDS:
        what += "; " + POST_WORDS[step["post"]].format(y=args[1])
    kind_note = " (random restart move)" if step.get("kind") == "perturb" else ""
    return f"{what}{kind_note}: score change {step['delta']:+.3f}, score now {step['score']:.3f}"


def source(step):
    """Where an RPDAG step's terms come from, for a tooltip ("operator A_link; the pair was in state E of
    Table 1 ..."); None for a DAG step."""
    if step["op"] in DAG_OPERATORS:
        return None
    parts = [f"operator {step['op']}"]
    if step.get("state"):
        parts.append(f"the pair was in state {step['state']} of Table 1")
    if step.get("post"):
        parts.append(f"post-processing {step['post']}({step['args'][1]}) of Section 4.3")
    return "; ".join(parts) + f" — {PAPER}."


def changed_pairs(step):
    """Node pairs the step touched, for highlighting."""
    args = step["args"]
    if step["op"] == "A_hh":
        return {frozenset(args[:2]), frozenset(args[1:])}
    return {frozenset(args[:2])}


def drawing(before, after, step, title):
    """The graph after a step (a :class:`bnexplore.viz.Drawing`), the pairs the step changed highlighted
    in magenta (a deleted edge in light pink), with a legend that draws a changed link without an arrow."""
    picture = viz.pdag_drawing(after, title=title)
    if step is None:
        return picture
    touched = changed_pairs(step)
    for edge in picture.edges:
        if frozenset((edge.u, edge.v)) in touched:
            edge.color, edge.width = HIGHLIGHT, 6.0
    names = before.names
    removed = [(names[u], names[v]) for u, v in before.edges() if not after.adjacent(u, v)]
    for u, v in removed:
        picture.edges.append(viz.EdgeStyle(u, v, directed=False, color=DELETED, width=4.0,
                                           title=f"{u} — {v} was just deleted", kind="just deleted"))
    picture.legend.append(viz.LegendItem("changed in this step", HIGHLIGHT, directed=step["op"] not in LINK_OPERATORS))
    if removed:
        picture.legend.append(viz.LegendItem("deleted in this step", DELETED, directed=False))
    return picture
