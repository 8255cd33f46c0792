"""Which exact engine runs: the subset DP or branch and cut on SCIP, why, and roughly how long it takes.

The subset DP (:mod:`bnexplore.search.subsets`) needs ``8 * 2^n`` bytes and
``~n 2^n`` steps whatever the data; branch and cut (:mod:`bnexplore.search.ilp`)
grows with the candidate parent sets and with how tight its LP relaxation is,
which no formula predicts. :func:`choose_engine` weighs the two for the
optimum (:func:`bnexplore.search.exact.exact_search`) and for the credible set
(:func:`bnexplore.search.credible.credible_set`).
"""

from .. import resources
from ..errors import ResourceError, SearchError, subject
from ..parents import ParentSets
from ..resources import format_bytes
from . import ilp
from .kbest import DEFAULT_LIMIT, enumeration_memory
from .subsets import MAX_VARIABLES, CandidateArrays, dp_memory, dp_seconds

ENGINES = ("auto", "dp", "ilp")
"""Exact engines: the dynamic programme over subsets, branch and cut on SCIP, or the faster of the two."""


DP_PREFERRED_SECONDS = 30.0
"""``auto`` runs the DP for the optimum when it should take at most this long (the ILP beyond)."""


DP_PREFERRED_SECONDS_CREDIBLE = 600.0
"""``auto`` runs the DP for a credible set up to this long: it enumerates far faster than the ILP (beyond
:data:`DP_PREFERRED_SECONDS` :func:`bnexplore.search.credible.credible_set` tries the ILP first, for
:data:`bnexplore.search.credible.solve.ILP_FIRST_SHARE` of the DP's estimated time: small sets come out of
it early)."""


REESTIMATED = " [estimated again with the candidate parent sets]"
"""Ends ``engine_reason`` where ``auto`` switched to the ILP once the candidates' scans were counted."""


def dp_hint():
    """What to do when the subset DP cannot run: the ILP engine."""
    return f"use {subject('engine', 'ilp')} (branch and cut, memory grows with the candidate parent sets, not 2^n)"


def choose_engine(n_vars, parent_sets=None, task="optimum", limit=None, engine="auto"):
    """Which exact engine runs, why, and roughly how long it takes.

    The subset DP (:func:`bnexplore.search.exact.exact_search`'s ``engine="dp"``) needs ``8 * 2^n``
    bytes and ``~n 2^n`` steps whatever the data; branch and cut on SCIP
    (``engine="ilp"``, :mod:`bnexplore.search.ilp`) grows with the candidate
    parent sets and with how tight its LP relaxation is, which no formula
    predicts. ``auto`` takes the DP while it fits in memory and should take at
    most :data:`DP_PREFERRED_SECONDS` (:data:`DP_PREFERRED_SECONDS_CREDIBLE`
    for a credible set, where the DP's enumeration is much faster than the
    ILP's), else the ILP (the measured crossover is in BENCHMARKS.md).

    Parameters
    ----------
    n_vars : int
    parent_sets : ParentSets, optional
        The candidates, when known (their number enters the reason).
    task : {"optimum", "credible"}
    limit : int, optional
        Most DAGs a credible set collects (its memory).
    engine : {"auto", "dp", "ilp"}
        A named engine is checked (fits in memory) and returned.

    Returns
    -------
    (engine, reason, seconds)
        ``engine`` is "dp" or "ilp"; ``reason`` one sentence for the user;
        ``seconds`` a rough estimate, or None when none can be given.

    Raises
    ------
    SearchError
        On an unknown engine or task.
    ResourceError
        When the DP, asked for, does not fit.
    """
    if engine not in ENGINES:
        raise SearchError(f"unknown exact engine {engine!r}: choose one of {', '.join(ENGINES)}")
    if task not in ("optimum", "credible"):
        raise SearchError(f"unknown task {task!r}: 'optimum' or 'credible'")
    n = int(n_vars)
    needed = dp_memory(n) if n <= MAX_VARIABLES else None
    if task == "credible" and needed is not None:
        needed += enumeration_memory(n, DEFAULT_LIMIT if limit is None else limit)
    available = resources.available_memory()
    fits = needed is not None and (available is None or needed <= available)
    known = isinstance(parent_sets, ParentSets) and parent_sets.n_vars == n and fits  # checked by the search
    seconds = dp_seconds(n, CandidateArrays(parent_sets) if known else None)
    sets = "" if parent_sets is None else (f" over {len(parent_sets):,} candidate parent sets (about "
                                           f"{format_bytes(ilp.ilp_memory(len(parent_sets)))})")
    ilp_reason = (f"branch and cut on SCIP{sets}: its time depends on how tight the LP relaxation is "
                  "(seconds for most data sets of this size, hours for a few)")
    if engine == "ilp" or (engine == "auto" and not fits):
        why = "as asked" if engine == "ilp" else (
            f"the subset DP over {n} variables would need {format_bytes(needed)} of memory"
            if needed is not None else f"the subset DP handles at most {MAX_VARIABLES} variables")
        return "ilp", f"ILP engine ({why}): {ilp_reason}", None
    if engine == "dp" and needed is None:
        raise ResourceError(f"the subset DP handles at most {MAX_VARIABLES} variables (subsets are 64-bit masks), "
                            f"this problem has {n}; {dp_hint()}")
    rest = "the DAGs it collects and headroom" if task == "credible" else "headroom"
    dp_reason = (f"subset DP over {n} variables: at most {format_bytes(needed)} of memory (its table "
                 f"{format_bytes(8 << n)}, the rest {rest}), about {seconds:.2g} s")
    if engine == "dp":
        if not fits:
            raise ResourceError(f"the subset DP over {n} variables needs {format_bytes(needed)} of memory but "
                                f"only {format_bytes(available)} is available; {dp_hint()}")
        return "dp", f"{dp_reason} (as asked)", seconds
    preferred = DP_PREFERRED_SECONDS_CREDIBLE if task == "credible" else DP_PREFERRED_SECONDS
    if seconds <= preferred:
        return "dp", dp_reason, seconds
    return "ilp", (f"ILP engine (the subset DP over {n} variables would take about {seconds:.2g} s): "
                   f"{ilp_reason}"), None
