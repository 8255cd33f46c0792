"""A PC result whose pattern is not its DAG's class (conflicts) is drawn and described as PC found it."""

from test_app import go, new_session, no_exception
from test_app_views import import_result

ASIA_CYCLE = ("asia", "tub", "smoke", "lung")


class CycleTest:
    """Answers as data from the 4-cycle asia - tub - smoke - lung - asia with two marginal independences would:
    every v-structure of the cycle is found, so each edge is oriented both ways (a PC conflict)."""

    def __init__(self, names):
        self.names = list(names)
        self.n_vars = len(self.names)

    def __call__(self, x, y, z=()):
        pair = {self.names[x], self.names[y]}
        if not pair <= set(ASIA_CYCLE) or pair in ({"asia", "smoke"}, {"tub", "lung"}):
            return 1.0, 0.0, 0
        return 0.0, 10.0, 1


def test_the_cpdag_view_draws_the_pattern_pc_found_and_says_why_it_is_not_the_dags_class():
    import bnexplore as bx
    from bnexplore.search.pc import pc_stable

    at = new_session()
    data = at.session_state["dataset"]
    result = pc_stable(bx.Scorer(data), test=CycleTest(data.names))
    pattern = result.extra["cpdag"]
    assert sorted(sorted(pattern.names[v] for v in edge) for edge in pattern.edges()) == sorted(
        [sorted(p) for p in (("asia", "tub"), ("tub", "smoke"), ("smoke", "lung"), ("lung", "asia"))])
    assert not pattern.arcs() and len(result.extra["conflicts"]) == 8 and pattern != result.graph.cpdag()
    import_result(at, result, "pc with conflicts")
    go(at, "4_Networks")
    captions = " ".join(c.value for c in at.caption)
    assert "refused 8 orientations that contradicted others" in captions
    assert "no DAG agrees with the pattern" in captions  # a 4-cycle of links has no consistent extension
    at.radio(key=at.radio[0].key).set_value("CPDAG")
    at.run()
    no_exception(at)
    captions = " ".join(c.value for c in at.caption)
    assert "The pattern the search found" in captions and "The CPDAG (essential graph) of this DAG" not in captions
