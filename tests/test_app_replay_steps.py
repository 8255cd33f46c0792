"""The replay of PC, GES and MMHC runs (issue 32, step by step): the graph rebuilt after every step, each
step in plain words, the papers' notation for the tooltip and what the drawing highlights, on hand-made
trajectories in the searches' formats (ISSUE32 contract, "Trajectories")."""

import pytest

from bnexplore.graphs import DAG, PDAG
from bnexplore.result import Result
from bnexplore_app import replay

NAMES = ["A", "B", "C", "D"]


def result_of(algorithm, steps, names=NAMES, **extra):
    graph = DAG.empty(names)
    return Result(graph=graph, score=0.0, score_name="bdeu", algorithm=algorithm, params={"test": "g2"},
                  trajectory=steps, extra=extra)


def remove(x, y, sepset, p=0.5, statistic=1.25, dof=2):
    return {"op": "remove", "args": [x, y], "sepset": sepset, "p_value": p, "statistic": statistic, "dof": dof,
            "level": len(sepset)}


# A -> C <- B, C -> D: PC removes A - B, A - D, B - D, orients the v-structure, then R1 orients C -> D
PC_STEPS = [remove("A", "B", [], p=0.81, statistic=0.0576, dof=1), remove("A", "D", ["C"]), remove("B", "D", ["C"]),
            {"op": "v_structure", "args": ["A", "C", "B"], "rule": "standard", "sepsets": 1, "with_z": 0,
             "conflicts": []},
            {"op": "meek", "args": ["C", "D"], "rule": "R1"}]


def pdag(arcs=(), links=()):
    return PDAG.from_json({"nodes": NAMES, "arcs": [list(a) for a in arcs], "links": [list(e) for e in links]})


def highlighted(picture):
    return {(e.u, e.v) for e in picture.edges if e.color == replay.HIGHLIGHT}


# --- PC -----------------------------------------------------------------------------------------------


def test_pc_replay_starts_complete_and_ends_at_the_class():
    result = result_of("pc", PC_STEPS)
    assert replay.kind(result) == "pc"
    frames = replay.graphs(result)
    assert len(frames) == len(PC_STEPS) + 1
    assert frames[0] == pdag(links=[(a, b) for i, a in enumerate(NAMES) for b in NAMES[i + 1:]])
    assert frames[1] == pdag(links=[("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")])
    assert frames[3] == pdag(links=[("A", "C"), ("B", "C"), ("C", "D")])
    assert frames[4] == pdag(arcs=[("A", "C"), ("B", "C")], links=[("C", "D")])
    truth = DAG.from_arcs([("A", "C"), ("B", "C"), ("C", "D")], NAMES).cpdag()
    assert frames[-1].adj.tolist() == truth.adj.tolist()
    assert "the complete undirected graph" in replay.start(result)


def test_pc_steps_in_plain_words():
    result = result_of("pc", PC_STEPS)
    frames = replay.graphs(result)
    words = [replay.describe(step, frames[k], "g2", "pc") for k, step in enumerate(PC_STEPS)]
    assert words == [
        "remove A — B: independent given no other variable (p = 0.81, G² = 0.0576, 1 d.f.)",
        "remove A — D: independent given {C} (p = 0.5, G² = 1.25, 2 d.f.)",
        "remove B — D: independent given {C} (p = 0.5, G² = 1.25, 2 d.f.)",
        "v-structure A → C ← B: C is not in the separating set of A and B",
        "Meek rule 1: orient C → D (else A → C — D would be a new v-structure)",
    ]
    assert "X² = 1.25" in replay.describe(PC_STEPS[1], test="chi2")
    assert "statistic = 1.25" in replay.describe(PC_STEPS[1], test="mi-perm")
    assert replay.describe(PC_STEPS[4]).startswith("Meek rule 1: orient C → D (else an arc into C")  # no graph


def test_pc_tooltips_hold_the_papers_notation():
    tips = [replay.source(step, "pc") for step in PC_STEPS]
    assert tips[0].startswith("A ⊥ B | S with S = {} ⊆ adj(A) \\ {B}, |S| = 0; Sepset(A, B) = {}")
    assert tips[1].startswith("A ⊥ D | S with S = {C}") and "Colombo & Maathuis (2014)" in tips[1]
    assert "C ∉ Sepset(A, B) ⇒ A → C ← B" in tips[3] and "Spirtes" in tips[3]
    assert tips[4].startswith("R1: a → b — c, a and c not adjacent ⇒ b → c, here ⇒ C → D") and "Meek (1995)" in tips[4]


def test_each_meek_rule_names_the_nodes_that_made_it_apply():
    # R2: A -> B -> C with A - C orients A -> C
    before = pdag(arcs=[("A", "B"), ("B", "C")], links=[("A", "C")])
    step = {"op": "meek", "args": ["A", "C"], "rule": "R2"}
    assert replay.describe(step, before) == "Meek rule 2: orient A → C (else A → B → C would close a directed cycle)"
    # R3: A - C -> B, A - D -> B, C and D not adjacent, A - B orients A -> B
    before = pdag(arcs=[("C", "B"), ("D", "B")], links=[("A", "C"), ("A", "D"), ("A", "B")])
    step = {"op": "meek", "args": ["A", "B"], "rule": "R3"}
    assert replay.describe(step, before).startswith("Meek rule 3: orient A → B (both C and D point into B")
    # R4: A - D -> C -> B, A adjacent to C, D and B not adjacent, A - B orients A -> B
    before = pdag(arcs=[("D", "C"), ("C", "B")], links=[("A", "D"), ("A", "C"), ("A", "B")])
    step = {"op": "meek", "args": ["A", "B"], "rule": "R4"}
    assert replay.describe(step, before).startswith("Meek rule 4: orient A → B (along A — D → C → B;")
    assert replay.source(step).startswith("R4: ")


def test_a_refused_v_structure_arc_is_left_as_it_was_and_said():
    # chain A - C - B - D: A -> C <- B, then C -> B <- D wants C -> B, which the first one points the other way
    steps = [remove("A", "B", []), remove("A", "D", []), remove("C", "D", ["B"]),
             {"op": "v_structure", "args": ["A", "C", "B"], "rule": "standard", "sepsets": 1, "with_z": 0,
              "conflicts": []},
             {"op": "v_structure", "args": ["C", "B", "D"], "rule": "standard", "sepsets": 1, "with_z": 0,
              "conflicts": [["C", "B"]]}]
    frames = replay.graphs(result_of("pc", steps))
    assert frames[-1] == pdag(arcs=[("A", "C"), ("B", "C"), ("D", "B")])
    text = replay.describe(steps[-1])
    assert text == ("v-structure C → B ← D: B is not in the separating set of C and D; conflict: C → B refused "
                    "(another v-structure or the knowledge points it the other way)")
    # contested both ways: the link stays a link
    steps[3]["conflicts"] = [["B", "C"]]
    frames = replay.graphs(result_of("pc", steps))
    assert frames[4] == pdag(arcs=[("A", "C")], links=[("B", "C"), ("B", "D")])


def test_conservative_and_majority_rules_count_the_separating_sets():
    step = {"op": "v_structure", "args": ["A", "C", "B"], "rule": "conservative", "sepsets": 3, "with_z": 0,
            "conflicts": []}
    assert replay.describe(step) == ("v-structure A → C ← B: C is in 0 of 3 separating sets of A and B "
                                     "(conservative: oriented only when in none)")
    assert "Ramsey, Zhang & Spirtes (2006)" in replay.source(step)
    step = {**step, "rule": "majority", "with_z": 1}
    assert "C is in 1 of 3 separating sets of A and B (majority" in replay.describe(step)
    ambiguous = {"op": "ambiguous", "args": ["A", "C", "B"]}
    assert replay.describe(ambiguous) == ("A — C — B left as it is: the separating sets of A and B disagree on C, "
                                          "so the triple is ambiguous")
    frames = replay.graphs(result_of("pc", [remove("A", "B", []), ambiguous]))
    assert frames[2] == frames[1]


def test_knowledge_steps_of_pc():
    steps = [{"op": "remove", "args": ["A", "B"], "sepset": [], "p_value": None, "statistic": None, "dof": None,
              "level": None, "reason": "knowledge"},
             {"op": "knowledge", "args": ["C", "D"]}]
    result = result_of("pc", steps)
    frames = replay.graphs(result)
    assert not frames[1].adjacent(0, 1) and frames[2].arcs() == [(2, 3)]
    assert replay.describe(steps[0]) == "remove A — B: the background knowledge forbids joining them"
    assert replay.describe(steps[1]).startswith("orient C → D: the background knowledge says so")
    assert "background knowledge" in replay.source(steps[0]) and "Meek (1995)" in replay.source(steps[1])


def test_pc_drawing_highlights_what_the_step_changed():
    frames = replay.graphs(result_of("pc", PC_STEPS))
    removed = replay.drawing(frames[0], frames[1], PC_STEPS[0], "t")
    pink = [(e.u, e.v) for e in removed.edges if e.kind == "just deleted"]
    assert pink == [("A", "B")] and highlighted(removed) == set()
    assert [item.label for item in removed.legend if item.color == replay.DELETED] == ["deleted in this step"]
    assert not any(item.label == "changed in this step" for item in removed.legend)
    v = replay.drawing(frames[3], frames[4], PC_STEPS[3], "t")
    assert highlighted(v) == {("A", "C"), ("B", "C")}
    changed = next(item for item in v.legend if item.label == "changed in this step")
    assert changed.directed
    meek = replay.drawing(frames[4], frames[5], PC_STEPS[4], "t")
    assert highlighted(meek) == {("C", "D")}


@pytest.mark.parametrize("broken", [
    {"op": "remove", "args": ["A", "Z"], "sepset": []},  # a name the result does not have
    {"op": "remove", "args": ["A", "B"], "sepset": ["Z"]},
    {"op": "remove", "args": ["A", "B"], "sepset": "C"},
    {"op": "remove", "args": ["A", "B"], "sepset": [], "p_value": "0.5"},
    {"op": "v_structure", "args": ["A", "B"]},  # a triple needs three names
    {"op": "v_structure", "args": ["A", "C", "B"], "conflicts": [["A"]]},
    {"op": "add", "args": ["A", "B"], "delta": 1.0, "score": 1.0},  # not a PC step
])
def test_a_damaged_pc_trajectory_is_not_offered_for_replay(broken):
    assert replay.kind(result_of("pc", [PC_STEPS[0], broken])) is None


# --- GES ----------------------------------------------------------------------------------------------


def test_ges_steps_in_words_and_notation():
    insert = {"op": "insert", "args": ["A", "B"], "T": ["C"], "delta": 12.3, "score": -2000.0, "phase": "forward"}
    delete = {"op": "delete", "args": ["A", "B"], "H": [], "delta": 0.5, "score": -1999.5, "phase": "backward"}
    assert replay.describe(insert, replay_kind="ges") == ("insert A → B with T = {C} (the links C — B become arcs "
                                                          "into B): score gain +12.300, score now -2000.000")
    assert replay.describe(delete, replay_kind="ges") == ("delete A — B with H = {}: score gain +0.500, score now "
                                                          "-1999.500")
    assert replay.source(insert, "ges").startswith("Insert(A, B, T) with T = {C}")
    assert "NA_B,A ∪ T is a clique" in replay.source(insert, "ges") and "Chickering (2002)" in replay.source(insert)
    assert replay.source(delete, "ges").startswith("Delete(A, B, H) with H = {} ⊆ NA_B,A (the neighbours of B "
                                                   "adjacent to A); valid when NA_B,A \\ H is a clique")


def test_ges_replay_rebuilds_each_class_through_the_search():
    # A - B, then inserting C -> B with T = {A} makes the v-structure A -> B <- C; deleting A - B leaves C - B a
    # link again
    steps = [{"op": "insert", "args": ["A", "B"], "T": [], "delta": 2.0, "score": -8.0, "phase": "forward"},
             {"op": "insert", "args": ["C", "B"], "T": ["A"], "delta": 1.0, "score": -7.0, "phase": "forward"},
             {"op": "delete", "args": ["A", "B"], "H": [], "delta": 0.5, "score": -6.5, "phase": "backward"}]
    result = result_of("ges", steps)
    assert replay.kind(result) == "ges"
    frames = replay.graphs(result)
    assert frames[0].n_edges == 0 and frames[1] == pdag(links=[("A", "B")])
    assert frames[2] == pdag(arcs=[("A", "B"), ("C", "B")]) and frames[3] == pdag(links=[("B", "C")])
    turned = replay.drawing(frames[1], frames[2], steps[1], "t")
    assert highlighted(turned) == {("A", "B"), ("C", "B")}  # the inserted arc and the one the completion turned
    deleted = replay.drawing(frames[2], frames[3], steps[2], "t")
    assert [(e.u, e.v) for e in deleted.edges if e.kind == "just deleted"] == [("A", "B")]
    assert highlighted(deleted) == {("B", "C")}
    assert next(item for item in deleted.legend if item.label == "changed in this step").directed is False


def test_ges_drawing_highlights_the_arcs_the_completion_turned():
    # A - B, then inserting C -> B with A not adjacent to C turns A - B into A -> B (a new v-structure)
    before = PDAG.from_json({"nodes": NAMES, "links": [["A", "B"]]})
    after = PDAG.from_json({"nodes": NAMES, "arcs": [["A", "B"], ["C", "B"]]})
    step = {"op": "insert", "args": ["C", "B"], "T": [], "delta": 1.0, "score": 1.0}
    assert highlighted(replay.drawing(before, after, step, "t")) == {("A", "B"), ("C", "B")}


# --- MMHC ---------------------------------------------------------------------------------------------

MMHC_STEPS = [{"op": "mmpc", "args": ["A"], "cpc": ["B", "C"]},
              {"op": "mmpc", "args": ["B"], "cpc": ["A"]},
              {"op": "mmpc", "args": ["C"], "cpc": ["A", "D"]},
              {"op": "mmpc", "args": ["D"], "cpc": []},
              {"op": "skeleton", "args": [], "edges": [["A", "B"], ["A", "C"]], "dropped": [["C", "D"]]},
              {"op": "add", "args": ["A", "B"], "delta": 3.0, "score": -10.0},
              {"op": "add", "args": ["C", "A"], "delta": 1.0, "score": -9.0}]


def test_mmhc_replay_shows_candidates_then_the_skeleton_then_the_climb():
    result = result_of("mmhc", MMHC_STEPS)
    assert replay.kind(result) == "mmhc"
    frames = replay.graphs(result)
    assert all(frame.n_edges == 0 for frame in frames[:6])
    assert frames[6].arcs() == [(0, 1)] and frames[7].arcs() == [(0, 1), (2, 0)]
    assert [replay.allowed(result, k) for k in (0, 4)] == [None, None]
    assert replay.allowed(result, 5) == replay.allowed(result, 7) == [("A", "B"), ("A", "C")]
    words = [replay.describe(step, frames[k], None, "mmhc") for k, step in enumerate(MMHC_STEPS)]
    assert words[0] == "candidates of A: {B, C} (possible parents and children)"
    assert words[3] == "candidates of D: {} (possible parents and children)"
    assert words[4].startswith("skeleton: 2 edges (1 dropped by the symmetry check")
    assert words[5] == "add the arc A → B: score change +3.000, score now -10.000"
    assert replay.source(MMHC_STEPS[0], "mmhc").startswith("CPC(A) = {B, C}: MMPC(A, D)")
    assert "Y ∈ CPC(X) and X ∈ CPC(Y)" in replay.source(MMHC_STEPS[4], "mmhc")
    assert "restricted to the skeleton" in replay.source(MMHC_STEPS[5], "mmhc")
    assert replay.source(MMHC_STEPS[5], "dag") is None


def test_mmhc_drawing_keeps_the_allowed_pairs_in_view():
    result = result_of("mmhc", MMHC_STEPS)
    frames = replay.graphs(result)

    def picture(k):
        return replay.drawing(frames[k - 1], frames[k], MMHC_STEPS[k - 1], "t", replay.allowed(result, k))

    candidates = picture(3)
    assert {(e.u, e.v) for e in candidates.edges if e.kind == "candidate"} == {("C", "A"), ("C", "D")}
    skeleton = picture(5)
    assert {(e.u, e.v) for e in skeleton.edges if e.kind == "allowed by the skeleton"} == {("A", "B"), ("A", "C")}
    assert highlighted(skeleton) == {("A", "B"), ("A", "C")}
    assert [(e.u, e.v) for e in skeleton.edges if e.kind == "dropped"] == [("C", "D")]
    climbed = picture(6)
    faint = [(e.u, e.v) for e in climbed.edges if e.color == replay.ALLOWED]
    assert faint == [("A", "C")] and highlighted(climbed) == {("A", "B")}
    assert any(item.label == "allowed by the skeleton" and item.color == replay.ALLOWED for item in climbed.legend)
    assert not [e for e in picture(7).edges if e.color == replay.ALLOWED]  # both allowed pairs joined now


# --- real runs with background knowledge ----------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ["pc", "ges", "mmhc"])
def test_a_run_with_knowledge_replays_to_its_class(algorithm):
    from bnexplore import bundled
    from bnexplore.bif import read_bif, sample
    from bnexplore.data import Encoder
    from bnexplore.knowledge import Knowledge
    from bnexplore.search import learn

    data = Encoder().fit_transform(sample(read_bif(bundled.network_path("asia")), 3000, seed=5))
    knowledge = Knowledge(require=[("smoke", "dysp")], forbid_edges=[("tub", "either")])
    result = learn(data, algorithm, knowledge=knowledge)
    assert replay.kind(result) == algorithm
    frames = replay.graphs(result)
    found = result.graph if algorithm == "mmhc" else result.extra["cpdag"]
    assert frames[-1].adj.tolist() == found.adj.tolist()
    smoke, dysp = result.names.index("smoke"), result.names.index("dysp")
    tub, either = result.names.index("tub"), result.names.index("either")
    if algorithm == "mmhc":  # from the required arc; every arc it adds is allowed by the skeleton
        assert frames[0].arcs() == [(smoke, dysp)] and "required arcs" in replay.start(result)
        skeleton = {frozenset(edge) for edge in replay.allowed(result, len(result.trajectory))}
        assert skeleton == {frozenset(edge) for edge in result.extra["skeleton"]}
        assert all(frozenset(s["args"]) in skeleton for s in result.trajectory if s["op"] == "add")
        assert frozenset(("tub", "either")) not in skeleton
    elif algorithm == "ges":  # from the class of the required arc
        assert frames[0].n_edges == 1 and frames[0].adjacent(smoke, dysp) and "required arcs" in replay.start(result)
    else:  # the forbidden edge goes first, said so; the required arc is oriented by a knowledge step
        first = result.trajectory[0]
        assert {*first["args"]} == {"tub", "either"} and not frames[1].adjacent(tub, either)
        assert replay.describe(first).endswith("the background knowledge forbids joining them")
        assert any(s["op"] == "knowledge" and s["args"] == ["smoke", "dysp"] for s in result.trajectory)
    for k, step in enumerate(result.trajectory):
        assert replay.describe(step, frames[k], result.params.get("test"), algorithm)
        assert replay.source(step, algorithm)
