"""Replaying a search's trajectory step by step (teaching mode): the graph after every step, each step in
plain words with the paper's notation for a tooltip, and the drawing of what a step changed.

The search registry (:data:`bnexplore.search.SEARCHES`, each entry's ``replay``) names the kind of replay:

- ``"dag"``: hill climbing and tabu search, whose steps add, delete or reverse one arc;
- ``"rpdag"``: RPDAG searches, whose steps are the operators of Acid & de Campos (2003), Section 4.3, each
  recorded with the state (A-G, Table 1) of the pair it joined;
- ``"pc"``: PC-stable, from the complete undirected graph: the edges its independence tests remove, then
  the v-structures, the background knowledge and Meek's rules orienting the rest;
- ``"ges"``: GES's insertions and deletions, each equivalence class rebuilt by
  :func:`bnexplore.search.ges.apply_operator` as the search built it;
- ``"mmhc"``: MMHC's candidate neighbours of every variable (MMPC), the skeleton they give, then the
  hill-climbing or tabu moves along it.

The steps are those of each search's trajectory (``args`` are names; the other keys are DESIGN.md's).
"""

import numbers

import numpy as np

from bnexplore import viz
from bnexplore.graphs import DAG, PDAG, RPDAG
from bnexplore.search import SEARCHES
from bnexplore.search import ges as ges_search
from bnexplore.search.rpdag import OPERATORS as RPDAG_OPERATORS
from bnexplore.search.rpdag import apply_operator

DAG_OPERATORS = ("add", "delete", "reverse")
LINK_OPERATORS = ("A_link", "D_link")  # RPDAG steps that change an undirected link
PC_OPERATORS = ("remove", "v_structure", "ambiguous", "knowledge", "meek")
GES_OPERATORS = ("insert", "delete")
MMHC_OPERATORS = ("mmpc", "skeleton") + DAG_OPERATORS
HIGHLIGHT = "#d81b60"
DELETED = "#f8bbd0"
ALLOWED = "#bdbdbd"
"""Light grey: a pair the skeleton allows MMHC's climb to join, drawn faint beside the arcs it has joined."""
RPDAG_WORDS = {"A_arc": "add the arc", "A_link": "add the link", "D_arc": "delete the arc",
               "D_link": "delete the link", "A_hh": "add the head-to-head pattern"}

OPERATORS = {"dag": DAG_OPERATORS, "rpdag": RPDAG_OPERATORS, "pc": PC_OPERATORS, "ges": GES_OPERATORS,
             "mmhc": MMHC_OPERATORS}
"""The steps of each replay kind a registry entry may name."""

ARITY = {"A_hh": 3, "v_structure": 3, "ambiguous": 3, "mmpc": 1, "skeleton": 0}
"""How many names a step's ``args`` holds (two unless named here)."""

NAME_SETS = ("sepset", "T", "H", "cpc")
PAIR_LISTS = ("conflicts", "edges", "dropped")
NUMBERS = ("p_value", "statistic", "dof", "level", "delta", "score", "sepsets", "with_z")
"""The step keys read besides ``op`` and ``args``: sets of names, lists of name pairs and numbers."""


def replayable():
    """The labels of the searches whose runs can be replayed (registry entries with a ``replay`` kind)."""
    return [spec.label for spec in SEARCHES.values() if spec.replay is not None]


def well_formed(step, names):
    """True when a step holds what its replay reads: known names in ``args`` (as many as its operator
    takes) and in its sets and pairs, numbers where numbers belong (an imported result may hold anything)."""
    if not isinstance(step, dict) or not isinstance(step.get("args"), list):
        return False
    known = set(names)

    def name_list(value):
        return isinstance(value, list) and all(isinstance(x, str) and x in known for x in value)

    return (name_list(step["args"]) and len(step["args"]) == ARITY.get(step.get("op"), 2)
            and all(name_list(step[key]) for key in NAME_SETS if key in step)
            and all(isinstance(step[key], list) and all(name_list(p) and len(p) == 2 for p in step[key])
                    for key in PAIR_LISTS if key in step)
            and all(step.get(key) is None or (isinstance(step[key], numbers.Real) and not isinstance(step[key], bool))
                    for key in NUMBERS))


def kind(result):
    """The replay kind of the result's search (``"dag"``, ``"rpdag"``, ``"pc"``, ``"ges"`` or ``"mmhc"``, from
    its registry entry) when every step of its trajectory is a well-formed one of that kind's, else None
    (a run with random restarts, structural EM, whose steps are one iteration's search on completed data,
    another search, a damaged import)."""
    spec = SEARCHES.get(result.algorithm) if isinstance(result.algorithm, str) else None  # imported: any JSON
    steps = result.trajectory or []
    if (spec is None or spec.replay is None or not steps or result.params.get("restarts")
            or result.params.get("missing") == "em"):
        return None
    if not all(isinstance(step, dict) and step.get("op") in OPERATORS[spec.replay] for step in steps):
        return None
    names = result.names
    if not all(well_formed(step, names) for step in steps):
        return None
    return spec.replay


def arcs_after(trajectory, k, start=()):
    """The arcs after the first ``k`` steps of a DAG trajectory.

    Parameters
    ----------
    trajectory : list of dict
        Steps with ``op`` in add / delete / reverse and ``args`` = [tail, head] names
        (other steps, such as MMHC's MMPC and skeleton steps, change no arc).
    k : int
        Number of steps applied (0 = the start graph).
    start : iterable of (str, str)
        Arcs of the start graph.

    Returns
    -------
    set of (str, str)

    Examples
    --------
    >>> steps = [{"op": "add", "args": ["a", "b"]}, {"op": "reverse", "args": ["a", "b"]}]
    >>> sorted(arcs_after(steps, 2)), sorted(arcs_after(steps, 1, start=[("c", "b")]))
    ([('b', 'a')], [('a', 'b'), ('c', 'b')])
    """
    arcs = set(map(tuple, start))
    for step in trajectory[:k]:
        if step["op"] not in DAG_OPERATORS:
            continue
        u, v = step["args"]
        if step["op"] == "add":
            arcs.add((u, v))
        elif step["op"] == "delete":
            arcs.discard((u, v))
        else:
            arcs.discard((u, v))
            arcs.add((v, u))
    return arcs


def pc_graphs(names, steps):
    """PC's graph before the first step and after every step: the complete undirected graph, an edge
    removed by each test, arcs oriented by the v-structures (an orientation the step lists among its
    conflicts is refused: that edge is left as it was), the background knowledge and Meek's rules."""
    index = {name: i for i, name in enumerate(names)}
    adj = np.ones((len(names), len(names)), dtype=np.uint8) - np.eye(len(names), dtype=np.uint8)
    out = [PDAG(adj, names)]
    for step in steps:
        nodes = [index[x] for x in step["args"]]
        if step["op"] == "remove":
            u, v = nodes
            adj[u, v] = adj[v, u] = 0
        elif step["op"] == "v_structure":
            x, z, y = nodes
            refused = {(index[a], index[b]) for a, b in step.get("conflicts") or []}
            for tail in (x, y):
                if (tail, z) not in refused and adj[tail, z]:
                    adj[z, tail] = 0
        elif step["op"] in ("knowledge", "meek"):
            u, v = nodes
            adj[u, v], adj[v, u] = 1, 0
        out.append(PDAG(adj, names))
    return out


def ges_graphs(start, steps):
    """GES's equivalence class before the first step and after every step, each rebuilt by the search's
    own :func:`bnexplore.search.ges.apply_operator`."""
    current = start
    out = [current]
    for step in steps:
        subset = step.get("T" if step["op"] == "insert" else "H") or []
        current = ges_search.apply_operator(current, step["op"], *step["args"], subset)
        out.append(current)
    return out


def graphs(result):
    """The graph before the first step and after every step: DAGs (hill climbing, tabu, MMHC), RPDAGs for
    an RPDAG run, PDAGs for PC (the complete undirected graph first) and CPDAGs for GES.

    A search starts from ``extra["start"]`` when it has one (the required arcs of the knowledge), else
    from the empty graph (PC always from the complete undirected graph). MMHC's MMPC and skeleton steps
    change no arc: :func:`allowed` gives the skeleton drawn beside its DAGs.
    """
    names = result.names
    steps = result.trajectory
    begin = result.extra.get("start")
    replay_kind = kind(result)
    if replay_kind in ("dag", "mmhc"):
        arcs = [] if begin is None else [(begin.names[u], begin.names[v]) for u, v in begin.arcs()]
        return [DAG.from_arcs(sorted(arcs_after(steps, k, arcs)), names) for k in range(len(steps) + 1)]
    if replay_kind == "pc":
        return pc_graphs(names, steps)
    if replay_kind == "ges":
        return ges_graphs(DAG.empty(names).cpdag() if begin is None else begin, steps)
    current = RPDAG.from_json({"nodes": names}) if begin is None else begin
    out = [current]
    for step in steps:
        current = apply_operator(current, step["op"], *step["args"])
        out.append(current)
    return out


def allowed(result, k):
    """The skeleton edges (name pairs) an MMHC run's climb may join after its first ``k`` steps: its
    skeleton step's ``edges`` once that step is done, else None (and None for any other search)."""
    if kind(result) != "mmhc":
        return None
    done = [step for step in result.trajectory[:k] if step["op"] == "skeleton"]
    return [tuple(edge) for edge in done[-1]["edges"]] if done else None


def start(result):
    """The replay's first graph in words (before step 1)."""
    replay_kind = kind(result)
    if replay_kind == "pc":
        return "the complete undirected graph: every pair of variables joined by a link"
    begun = "the required arcs of the background knowledge" if result.extra.get("start") else "the empty graph"
    if replay_kind == "mmhc":
        return f"{begun}; first MMPC finds each variable's candidate parents and children by independence tests"
    return begun


def note(result):
    """What the replay's drawing shows besides the arcs, for the caption under it (kind-specific)."""
    replay_kind = kind(result)
    if replay_kind in ("rpdag", "pc", "ges"):
        return (" Dashed lines are links (undirected); the step's terms in the paper are under the ? beside "
                "its description.")
    if replay_kind == "mmhc":
        return (" Faint grey dashed lines are pairs the skeleton allows the climb to join; the step's terms in "
                "the paper are under the ? beside its description.")
    return ""


# --- steps in words --------------------------------------------------------------------------------

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
PC_PAPERS = ("Spirtes, Glymour & Scheines (2000), Causation, Prediction, and Search; PC-stable: Colombo & "
             "Maathuis (2014), Journal of Machine Learning Research 15")
MEEK = "Meek (1995), Causal inference and causal explanation with background knowledge, UAI"
CHICKERING = "Chickering (2002), Optimal structure identification with greedy search, JMLR 3"
MMHC_PAPER = "Tsamardinos, Brown & Aliferis (2006), The max-min hill-climbing Bayesian network structure " \
             "learning algorithm, Machine Learning 65"
STATISTICS = {"g2": "G²", "chi2": "X²"}
"""The symbol of each independence test's statistic (the others say "statistic")."""

V_RULES = {
    "conservative": "in {k} of {m} separating sets of {x} and {y} (conservative: oriented only when in none)",
    "majority": "in {k} of {m} separating sets of {x} and {y} (majority: oriented when in fewer than half)",
}
"""Why a v-structure was oriented, by the rule that decided it (standard: the one separating set found)."""

MEEK_WORDS = {
    "R1": "Meek rule 1: orient {u} → {v} (else {a} → {u} — {v} would be a new v-structure)",
    "R2": "Meek rule 2: orient {u} → {v} (else {u} → {a} → {v} would close a directed cycle)",
    "R3": "Meek rule 3: orient {u} → {v} (both {a} and {b} point into {v} and are joined to {u}; "
          "{v} → {u} would force a cycle or a new v-structure)",
    "R4": "Meek rule 4: orient {u} → {v} (along {u} — {a} → {b} → {v}; {v} → {u} would force a cycle or a "
          "new v-structure)",
}
"""Meek's rules in plain words, with the nodes that made the rule apply."""

MEEK_GENERIC = {
    "R1": "Meek rule 1: orient {u} → {v} (else an arc into {u} would meet {u} — {v} as a new v-structure)",
    "R2": "Meek rule 2: orient {u} → {v} (else a directed path from {u} to {v} would close a cycle)",
    "R3": "Meek rule 3: orient {u} → {v} (else a cycle or a new v-structure would follow)",
    "R4": "Meek rule 4: orient {u} → {v} (else a cycle or a new v-structure would follow)",
}
"""Meek's rules in plain words when the graph before the step is not at hand."""

MEEK_NOTATION = {
    "R1": "R1: a → b — c, a and c not adjacent ⇒ b → c",
    "R2": "R2: a → c → b and a — b ⇒ a → b",
    "R3": "R3: a — c → b, a — d → b, c and d not adjacent, a — b ⇒ a → b",
    "R4": "R4: a — c → d → b, a adjacent to d, c and b not adjacent, a — b ⇒ a → b",
}
"""Meek's rules in the paper's notation (Meek 1995, Figure 2)."""


def braces(names):
    """A set of names as ``{C, D}``."""
    return "{" + ", ".join(names) + "}"


def meek_witness(graph, rule, u, v):
    """The nodes that make Meek's ``rule`` orient u → v in ``graph`` (the PDAG before the step), or None."""
    ui, vi = graph.index(u), graph.index(v)
    names = graph.names
    if rule == "R1":
        found = [a for a in graph.parents(ui) if not graph.adjacent(a, vi)]
        return {"a": names[found[0]]} if found else None
    if rule == "R2":
        found = sorted(set(graph.children(ui)) & set(graph.parents(vi)))
        return {"a": names[found[0]]} if found else None
    if rule == "R3":
        around = sorted(set(graph.parents(vi)) & set(graph.neighbours(ui)))
        pairs = [(a, b) for a in around for b in around if a < b and not graph.adjacent(a, b)]
        return {"a": names[pairs[0][0]], "b": names[pairs[0][1]]} if pairs else None
    if rule == "R4":
        for b in graph.parents(vi):
            if not graph.adjacent(b, ui):
                continue
            found = [a for a in graph.parents(b) if a in graph.neighbours(ui) and not graph.adjacent(a, vi)]
            if found:
                return {"a": names[found[0]], "b": names[b]}
    return None


def describe_pc(step, before=None, test=None):
    """A PC step in plain words."""
    op, args = step["op"], step["args"]
    if op == "remove":
        x, y = args
        if step.get("reason") == "knowledge" or step.get("p_value") is None:
            return f"remove {x} — {y}: the background knowledge forbids joining them"
        sepset = step.get("sepset") or []
        given = f"given {braces(sepset)}" if sepset else "given no other variable"
        figures = [f"p = {step['p_value']:.3g}"]
        if step.get("statistic") is not None:
            figures.append(f"{STATISTICS.get(test, 'statistic')} = {step['statistic']:.3g}")
        if step.get("dof") is not None:
            figures.append(f"{step['dof']:g} d.f.")
        return f"remove {x} — {y}: independent {given} ({', '.join(figures)})"
    if op == "v_structure":
        x, z, y = args
        rule = step.get("rule", "standard")
        if rule in V_RULES and step.get("sepsets") is not None:
            why = f"{z} is " + V_RULES[rule].format(k=step.get("with_z", 0), m=step["sepsets"], x=x, y=y)
        else:
            why = f"{z} is not in the separating set of {x} and {y}"
        text = f"v-structure {x} → {z} ← {y}: {why}"
        for a, b in step.get("conflicts") or []:
            text += f"; conflict: {a} → {b} refused (another v-structure or the knowledge points it the other way)"
        return text
    if op == "ambiguous":
        x, z, y = args
        counts = (f" ({z} is in {step['with_z']} of {step['sepsets']} separating sets)"
                  if step.get("sepsets") is not None and step.get("with_z") is not None else "")
        return (f"{x} — {z} — {y} left as it is: the separating sets of {x} and {y} disagree on {z}"
                f"{counts}, so the triple is ambiguous")
    if op == "knowledge":
        u, v = args
        return (f"orient {u} → {v}: the background knowledge says so (a required arc, a forbidden "
                f"{v} → {u} or the tiers)")
    u, v = args
    rule = step.get("rule", "")
    witness = meek_witness(before, rule, u, v) if before is not None and rule in MEEK_WORDS else None
    if witness:
        return MEEK_WORDS[rule].format(u=u, v=v, **witness)
    return MEEK_GENERIC.get(rule, "Meek's rules: orient {u} → {v}").format(u=u, v=v)


def describe_ges(step):
    """A GES step in plain words."""
    x, y = step["args"]
    if step["op"] == "insert":
        t = step.get("T") or []
        what = f"insert {x} → {y} with T = {braces(t)}"
        if t:
            what += f" (the links {', '.join(f'{a} — {y}' for a in t)} become arcs into {y})"
    else:
        h = step.get("H") or []
        what = f"delete {x} — {y} with H = {braces(h)}"
        if h:
            what += f" (the links from {x} and {y} to {', '.join(h)} become arcs into {braces(h)})"
    return f"{what}: score gain {step['delta']:+.3f}, score now {step['score']:.3f}"


def describe_mmhc(step):
    """An MMHC step in plain words (its climb's moves are :func:`describe`'s DAG steps)."""
    if step["op"] == "mmpc":
        return f"candidates of {step['args'][0]}: {braces(step.get('cpc') or [])} (possible parents and children)"
    edges, dropped = step.get("edges") or [], step.get("dropped") or []
    return (f"skeleton: {len(edges)} edge{'' if len(edges) == 1 else 's'} ({len(dropped)} dropped by the "
            "symmetry check: one was a candidate of the other but not the other way round); the climb may join "
            "only these pairs")


def describe(step, before=None, test=None, replay_kind=None):
    """One line for a step in plain words (the paper's names are in :func:`source`).

    Parameters
    ----------
    step : dict
        A trajectory step of any replay kind.
    before : PDAG, optional
        The graph before the step: a Meek step then names the nodes that made its rule apply.
    test : str, optional
        The independence test a PC run used (its statistic's symbol in a removal).
    replay_kind : str, optional
        The run's :func:`kind` (a GES deletion is told from a DAG one by it, or by its ``H``).

    Returns
    -------
    str

    Examples
    --------
    >>> describe({"op": "remove", "args": ["A", "B"], "sepset": ["C", "D"], "p_value": 0.41,
    ...           "statistic": 3.2, "dof": 4}, test="g2")
    'remove A — B: independent given {C, D} (p = 0.41, G² = 3.2, 4 d.f.)'
    >>> describe({"op": "insert", "args": ["A", "B"], "T": [], "delta": 12.3, "score": -100.0})
    'insert A → B with T = {}: score gain +12.300, score now -100.000'
    """
    args = step["args"]
    op = step["op"]
    if op in PC_OPERATORS:
        return describe_pc(step, before, test)
    if op == "insert" or (op == "delete" and (replay_kind == "ges" or "H" in step)):
        return describe_ges(step)
    if op in ("mmpc", "skeleton"):
        return describe_mmhc(step)
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


def source_pc(step):
    """A PC step in the papers' notation."""
    op, args = step["op"], step["args"]
    if op == "remove":
        x, y = args
        if step.get("p_value") is None:
            return f"{x} — {y} forbidden by the background knowledge, removed before any test — {PC_PAPERS}."
        s = braces(step.get("sepset") or [])
        level = len(step.get("sepset") or [])
        return (f"{x} ⊥ {y} | S with S = {s} ⊆ adj({x}) \\ {{{y}}}, |S| = {level}; Sepset({x}, {y}) = {s} "
                f"— {PC_PAPERS}.")
    if op in ("v_structure", "ambiguous"):
        x, z, y = args
        rule = step.get("rule", "standard")
        if op == "ambiguous" or rule != "standard":
            cite = ("conservative PC: Ramsey, Zhang & Spirtes (2006), UAI" if rule == "conservative"
                    else "majority rule: Colombo & Maathuis (2014), JMLR 15")
            shown = "ambiguous, left unoriented" if op == "ambiguous" else f"{x} → {z} ← {y}"
            return (f"unshielded triple {x} — {z} — {y}: {z} checked against every separating set of {x} and {y} "
                    f"among adj({x}) and adj({y}); {shown} — {cite}.")
        return (f"unshielded triple {x} — {z} — {y} with {z} ∉ Sepset({x}, {y}) ⇒ {x} → {z} ← {y} "
                f"— {PC_PAPERS}.")
    u, v = args
    if op == "knowledge":
        return f"{u} → {v} from the background knowledge, then closed under R1-R4 — {MEEK}."
    return f"{MEEK_NOTATION.get(step.get('rule'), 'R1-R4')}, here ⇒ {u} → {v} — {MEEK}."


def source(step, replay_kind=None):
    """Where a step's terms come from, in the paper's notation, for a tooltip; None for a hill-climbing or
    tabu step (nothing beyond the plain words).

    Examples
    --------
    >>> text = source({"op": "meek", "args": ["B", "C"], "rule": "R1"})
    >>> text.startswith("R1: a → b — c, a and c not adjacent ⇒ b → c, here ⇒ B → C — Meek (1995)")
    True
    """
    op, args = step["op"], step["args"]
    if op in PC_OPERATORS:
        return source_pc(step)
    if op == "insert" or (op == "delete" and (replay_kind == "ges" or "H" in step)):
        x, y = args
        if op == "insert":
            return (f"Insert({x}, {y}, T) with T = {braces(step.get('T') or [])} ⊆ neighbours of {y} not adjacent "
                    f"to {x}; valid when NA_{y},{x} ∪ T is a clique (NA_{y},{x}: the neighbours of {y} adjacent to "
                    f"{x}) and every semi-directed path from {y} to {x} meets it (Theorem 15) — {CHICKERING}.")
        return (f"Delete({x}, {y}, H) with H = {braces(step.get('H') or [])} ⊆ NA_{y},{x} (the neighbours of {y} "
                f"adjacent to {x}); valid when NA_{y},{x} \\ H is a clique (Theorem 17) — {CHICKERING}.")
    if op == "mmpc":
        return f"CPC({args[0]}) = {braces(step.get('cpc') or [])}: MMPC({args[0]}, D) — {MMHC_PAPER}."
    if op == "skeleton":
        return f"{{X — Y : Y ∈ CPC(X) and X ∈ CPC(Y)}} (the symmetry correction of MMPC) — {MMHC_PAPER}."
    if op in DAG_OPERATORS:
        if replay_kind == "mmhc":
            return f"the score search's {op} restricted to the skeleton (MMHC's second phase) — {MMHC_PAPER}."
        return None
    parts = [f"operator {op}"]
    if step.get("state"):
        parts.append(f"the pair was in state {step['state']} of Table 1")
    if step.get("post"):
        parts.append(f"post-processing {step['post']}({args[1]}) of Section 4.3")
    return "; ".join(parts) + f" — {PAPER}."


# --- drawing ---------------------------------------------------------------------------------------


def changed_pairs(step):
    """Node pairs the step touched, for highlighting (a v-structure's two arcs; none for MMPC and the
    skeleton, which change no arc)."""
    args = step["args"]
    if step["op"] in ("A_hh", "v_structure"):
        return {frozenset(args[:2]), frozenset(args[1:])}
    if step["op"] in ("mmpc", "skeleton", "ambiguous"):
        return set()
    return {frozenset(args[:2])}


def differing_pairs(before, after):
    """Node pairs (names) joined differently in the two graphs: added, removed or turned."""
    names = after.names
    differ = np.argwhere(np.asarray(before.adj) != np.asarray(after.adj))
    return {frozenset((names[u], names[v])) for u, v in differ.tolist()}


def overlay(picture, step, after, skeleton):
    """MMHC's drawing beside the DAG: the candidates an MMPC step found, the skeleton at its step (the pairs
    the symmetry check dropped in light pink), and afterwards the skeleton's unjoined pairs faint."""
    op = step["op"] if step else None
    if op == "mmpc":
        t = step["args"][0]
        for c in step.get("cpc") or []:
            picture.edges.append(viz.EdgeStyle(t, c, directed=False, dashed=True, color=HIGHLIGHT, width=4.0,
                                               title=f"{c}: a candidate parent or child of {t}", kind="candidate"))
        picture.legend.append(viz.LegendItem("candidate parents and children found in this step", HIGHLIGHT,
                                             dashed=True, directed=False))
        return
    if skeleton is None:
        return
    fresh = op == "skeleton"
    for u, v in skeleton:
        if not after.adjacent(after.index(u), after.index(v)):
            picture.edges.append(viz.EdgeStyle(u, v, directed=False, dashed=True, width=4.0 if fresh else 1.5,
                                               color=HIGHLIGHT if fresh else ALLOWED, kind="allowed by the skeleton",
                                               title=f"{u} — {v}: allowed by the skeleton"))
    picture.legend.append(viz.LegendItem("the skeleton found in this step" if fresh else "allowed by the skeleton",
                                         HIGHLIGHT if fresh else ALLOWED, dashed=True, directed=False))
    if fresh and step.get("dropped"):
        for u, v in step["dropped"]:
            picture.edges.append(viz.EdgeStyle(u, v, directed=False, dashed=True, color=DELETED, width=4.0,
                                               title=f"{u} — {v}: dropped by the symmetry check", kind="dropped"))
        picture.legend.append(viz.LegendItem("dropped by the symmetry check", DELETED, dashed=True, directed=False))


def drawing(before, after, step, title, skeleton=None):
    """The graph after a step (a :class:`bnexplore.viz.Drawing`), what the step changed highlighted in
    magenta (the step's own pairs and every pair the step joined differently, such as the arcs GES's
    completion or an RPDAG's post-processing turned; a deleted edge in light pink), with a legend that
    draws a changed link without an arrow. ``skeleton`` (:func:`allowed`): MMHC's skeleton, drawn beside."""
    picture = viz.pdag_drawing(after, title=title)
    if step is not None:
        touched = changed_pairs(step) | differing_pairs(before, after)
        highlighted = []
        for edge in picture.edges:
            if frozenset((edge.u, edge.v)) in touched:
                edge.color, edge.width = HIGHLIGHT, 6.0
                highlighted.append(edge)
        names = before.names
        removed = [(names[u], names[v]) for u, v in before.edges() if not after.adjacent(u, v)]
        for u, v in removed:
            picture.edges.append(viz.EdgeStyle(u, v, directed=False, color=DELETED, width=4.0,
                                               title=f"{u} — {v} was just deleted", kind="just deleted"))
        if highlighted or step["op"] in DAG_OPERATORS + RPDAG_OPERATORS:
            own = [e for e in highlighted if frozenset((e.u, e.v)) == frozenset(step["args"][:2])]
            directed = (own or highlighted)[0].directed if highlighted else step["op"] not in LINK_OPERATORS
            picture.legend.append(viz.LegendItem("changed in this step", HIGHLIGHT, directed=directed))
        if removed:
            picture.legend.append(viz.LegendItem("deleted in this step", DELETED, directed=False))
    overlay(picture, step, after, skeleton)
    return picture
