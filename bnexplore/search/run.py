"""Statistics, trajectory and progress shared by the local searches."""

import numpy as np

from ..compiling import compile_seconds, search_clock
from ..graphs import DAG
from ..result import Result


def first_best(values, tol):
    """Flat index of the first value within ``tol`` of the largest, or -1.

    Moves whose score changes tie up to rounding noise (adding u -> v or
    v -> u to a DAG, for instance) are chosen by position, not by the last
    bits of a floating-point sum, so a search gives the same result when the
    data's states or rows are merely reordered. -1 when every value is -inf.
    """
    flat = np.ravel(values)
    top = flat.max() if flat.size else -np.inf
    if top == -np.inf:
        return -1
    return int(np.argmax(flat >= top - tol))


class SearchRun:
    """Book-keeping of one local-search run: statistics, trajectory, progress.

    Parameters
    ----------
    scorer : Scorer
    control : Control
    algorithm : str
        Name used in results and progress messages.
    params : dict
        Search settings (the score settings are added).
    """

    def __init__(self, scorer, control, algorithm, params):
        self.scorer = scorer
        self.control = control
        self.algorithm = algorithm
        self.params = {**scorer.params, **params}
        self.snapshot = scorer.snapshot()
        self.start = search_clock()
        self.compiled = compile_seconds()
        self.iterations = 0
        self.evaluated = 0
        self.trajectory = []

    def step(self, state, op, nodes, delta, evaluated, done=None, label=None, **extra):
        """Apply ``op`` to ``state`` (anything with ``apply(op, *nodes)`` and
        ``score``) and record it; ``evaluated`` neighbours were considered;
        ``label`` (a phase: "forward") goes before the step in the progress message."""
        state.apply(op, *nodes)
        self.iterations += 1
        self.evaluated += evaluated
        names = self.scorer.names
        self.trajectory.append({"step": len(self.trajectory) + 1, "op": op, "args": [names[x] for x in nodes],
                                "delta": delta, "score": state.score,
                                "seconds": search_clock() - self.start, **extra})
        self.control.report(done=done, message=f"{self.algorithm}: {label + ', ' if label else ''}step {self.iterations}",
                            score=state.score, iteration=self.iterations)

    def result(self, parents, extra=None, **stats):
        """The :class:`Result` for the DAG with these parent lists."""
        graph = DAG.from_parents(parents, self.scorer.names)
        score = self.scorer.total(graph)
        compiling = compile_seconds() - self.compiled  # numba's first calls: apart, never in "seconds"
        stats = {"seconds": search_clock() - self.start, "iterations": self.iterations,
                 "structures_evaluated": int(self.evaluated),  # summed numpy counts: stats stay plain (JSON) values
                 **self.scorer.stats(self.snapshot),
                 "edges": graph.n_edges, "stopped": self.control.reason,
                 **({"seconds_compiling": compiling} if compiling > 0 else {}), **stats}
        self.control.finish(message=f"{self.algorithm}: done", score=score)
        return Result(graph=graph, score=score, score_name=self.scorer.score_name, algorithm=self.algorithm,
                      params=self.params, stats=stats, trajectory=self.trajectory, extra=extra or {})
