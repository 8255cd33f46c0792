"""The table of structure searches: every fact a door needs about a search, in one place.

Each search :func:`bnexplore.learn` runs has one :class:`SearchSpec` in
:data:`SEARCHES`: its name, function, label, one-line description, the options
of its own (:class:`Option`: type, default, range, help, and how the app offers
it), whether it takes background knowledge and which replay its trajectory
allows. The command line's ``--algorithm`` choices, its search flags and their
help, ``learn``'s checks of those options, the app's algorithm picker, its
option widgets, the replay and the bootstrap's picker all read this table.
Adding a search is its module (a function ``f(scorer, *, max_indegree=None,
knowledge=None, progress=None, time_limit=None, stop=None, control=None,
...own options)`` returning a :class:`~bnexplore.result.Result`) and its entry
here, which names the function as ``"module:function"``: the table imports no
search, so the command line reads it without loading a numba kernel.

Every search also takes the options of :data:`COMMON` (the in-degree bound,
knowledge, the time limit, progress, stop and control), so they are not listed
per search.

Examples
--------
>>> from bnexplore.search import SEARCHES
>>> SEARCHES["rpdag"].label, SEARCHES["rpdag"].replay
('RPDAG search (Acid & de Campos 2003)', 'rpdag')
>>> [option.name for option in SEARCHES["hc"].options]
['restarts', 'perturb', 'seed']
>>> SEARCHES["exact"].option("engine").choices
('auto', 'dp', 'ilp')
"""

import importlib
import inspect
from dataclasses import dataclass

from ..errors import SearchError
from ..knowledge import check_knowledge
from ..options import positive_number, seed_number, whole_number

ENGINES = ("auto", "dp", "ilp")
"""The exact engines (``bnexplore.search.engine.ENGINES``, which a test checks equal: the registry
imports no search, so that the command line reads it without loading numba)."""

EXPLORERS = ("independence", "greedy", "sequential")
"""The parent-set explorers of OBS and ASOBS (``bnexplore.parents.explore.METHODS``, checked equal)."""

COMMON = ("max_indegree", "knowledge", "progress", "time_limit", "stop", "control")
"""Keywords every registered search takes (a test checks their signatures)."""

KINDS = ("int", "seed", "float", "choice", "text")
"""Types of option: a whole number (from ``low``), a seed (whole, >= 0, or None),
a positive number, one of ``choices``, or free text."""


@dataclass(frozen=True)
class Option:
    """One option a search takes besides :data:`COMMON`.

    Attributes
    ----------
    name : str
        The keyword (``restarts``); the command line's flag is :attr:`flag`.
    kind : {"int", "seed", "float", "choice", "text"}
    default : object
        The function's default (None: the search decides, as its docstring says).
    help : str
        One line, for the flag's help and the widget's tooltip.
    low : int, optional
        Smallest whole number accepted (kind "int").
    high : float, optional
        Largest number accepted (kind "float": a significance level is at most 1).
    unit : str
        Words after "number" in the message refusing a "float" (" of seconds").
    choices : tuple of str
        The values of a "choice" (the doors offer these; a search may also
        take an object there, such as candidate parent sets).
    label : str, optional
        The app widget's label; None: the app does not offer it.
    widget : tuple, optional
        ``(low, high, start)`` of the app's number widget (its range must be
        finite, and its start may differ from the library's default: a seed
        of 1 makes an app run reproducible).
    """

    name: str
    kind: str
    default: object
    help: str
    low: int = 0
    high: float | None = None
    unit: str = ""
    choices: tuple = ()
    label: str | None = None
    widget: tuple | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"option {self.name}: kind {self.kind!r} is not one of {', '.join(KINDS)}")

    @property
    def flag(self):
        """The command line's flag: ``--time-per-variable``."""
        return "--" + self.name.replace("_", "-")

    def check(self, value):
        """A number checked and converted (an OptionError naming the option as the door names it).

        None (the search's default) is passed through, and so are choices and
        text: the search checks those itself, naming what it knows ("unknown
        exact engine 'gurobi': choose one of auto, dp, ilp").
        """
        if value is None:
            return None
        if self.kind == "int":
            return whole_number(value, self.name, self.low)
        if self.kind == "seed":
            return seed_number(value)
        if self.kind == "float":
            return positive_number(value, self.name, high=self.high, unit=self.unit)
        return value


@dataclass(frozen=True)
class SearchSpec:
    """One structure search.

    Attributes
    ----------
    name : str
        Its name in every door (``algorithm="hc"``, ``--algorithm hc``) and in results.
    target : str
        Where its function is: ``"module:function"`` in :mod:`bnexplore.search` (see :attr:`function`).
    label : str
        Name in pickers ("Hill climbing (DAG)").
    description : str
        What it does, in a sentence or two.
    options : tuple of Option
        Its own options.
    knowledge : bool
        Takes background knowledge (``knowledge=``): every search here does.
    scored : bool
        Learns by the score (and honours the in-degree bound). False for a
        search that learns from independence tests alone (PC): the score only
        rates its network, and it records the bound without applying it.
    expected_counts : bool
        Can be structural EM's M-step (:func:`bnexplore.search.structural_em.structural_em`):
        it learns from the scorer alone, so it runs on the weighted completed
        data set whose counts are the expected counts (Friedman 1997, Section 3).
        False for searches that read the codes without the scorer (parent-set
        pruning, independence tests), which refuse weighted data.
    replay : {"dag", "rpdag", "pc", "ges", "mmhc"} or None
        Its steps can be replayed one by one: DAG moves (add, delete, reverse),
        RPDAG operators, PC's removals and orientations, GES's insertions and
        deletions, MMHC's skeleton then its climb; None for searches whose
        trajectory is not a walk.
    """

    name: str
    target: str
    label: str
    description: str
    options: tuple = ()
    knowledge: bool = True
    scored: bool = True
    expected_counts: bool = False
    replay: str | None = None

    @property
    def function(self):
        """``function(scorer, **options) -> Result``, taking :data:`COMMON` and :attr:`options`.

        Its module is imported here, on first use: the searches' numba kernels load with it, not
        with the registry.
        """
        module, attribute = self.target.split(":")
        return getattr(importlib.import_module(f"{__package__}.{module}"), attribute)

    def option(self, name):
        """The :class:`Option` of this name, or None."""
        return next((option for option in self.options if option.name == name), None)

    def keywords(self):
        """The keywords its function takes besides the scorer (:data:`COMMON`, its options, ``start``, ...)."""
        return set(inspect.signature(self.function).parameters) - {"scorer"}

    def checked(self, options):
        """``options`` with every registered option's value checked and converted (:meth:`Option.check`).

        Raises
        ------
        SearchError
            Naming the keywords the search does not take and those it does.
        OptionError
            Naming the option and its impossible value (``knowledge`` not a
            :class:`~bnexplore.knowledge.Knowledge`).
        """
        accepted = self.keywords()
        unknown = sorted(set(options) - accepted)
        if unknown:
            raise SearchError(f"{self.name} does not take {', '.join(unknown)}; it takes {', '.join(sorted(accepted))}")
        check_knowledge(options.get("knowledge"))
        options = dict(options)
        for option in self.options:
            if options.get(option.name) is not None:
                options[option.name] = option.check(options[option.name])
        return options


RESTARTS = Option("restarts", "int", 0, "random restarts: perturb the best graph and climb again, keep the best",
                  label="Random restarts", widget=(0, 50, 0))
PERTURB = Option("perturb", "int", None, "random moves per restart (default: the number of variables, at most 100)")
HC_SEED = Option("seed", "seed", None, "random seed", label="Seed of the restarts", widget=(0, 10**6, 1))
TABU_LENGTH = Option("tabu_length", "int", None, "tabu list length (default: the number of variables)")
ITERATIONS = Option("iterations", "int", None, "tabu iterations (default n (n - 1))")
ORDERING = (
    Option("parents", "choice", "independence", "parent-set explorer", choices=EXPLORERS),
    Option("time_per_variable", "float", None, "seconds per variable for parent-set exploration",
           unit=" of seconds"),
    Option("max_evaluations", "int", None, "parent sets scored per variable in the exploration"),
    Option("restarts", "int", None, "random orderings climbed after the seed graph's (default: until the time "
           "limit, else 10)"),
    Option("seed", "seed", None, "random seed"),
    Option("workers", "int", 1, "Dask workers on this machine for parent-set exploration", low=1),
    Option("scheduler", "text", None, "address of an existing Dask scheduler"),
)

TESTS = ("g2", "chi2", "mi-perm")
"""The conditional independence tests (``bnexplore.independence.TESTS``, checked equal)."""

TEST = Option("test", "choice", "g2", "conditional independence test: G-squared, Pearson chi-squared (degrees of "
              "freedom less the empty cells) or a permutation test of mutual information (small samples)",
              choices=TESTS, label="Independence test")
ALPHA = Option("alpha", "float", 0.05, "significance level of the independence tests", high=1.0,
               label="Significance level α", widget=(0.001, 0.5, 0.05))
MAX_CONDITION = Option("max_condition", "int", None, "largest conditioning set tested (default: no limit)")
PERMUTATIONS = Option("permutations", "int", 500, "permutations of the mutual-information test", low=1)
CI_SEED = Option("seed", "seed", None, "random seed of the permutation test")
V_STRUCTURES = ("standard", "conservative", "majority")
CLIMBS = ("hc", "tabu")

SEARCHES = {spec.name: spec for spec in (
    SearchSpec(
        "hc", "hillclimb:hill_climb", "Hill climbing (DAG)",
        "Greedy: from the empty graph, repeatedly apply the single arc addition, deletion or reversal that raises "
        "the score most; stop when none does.",
        (RESTARTS, PERTURB, HC_SEED), expected_counts=True, replay="dag"),
    SearchSpec(
        "tabu", "hillclimb:tabu_search", "Tabu search (DAG)",
        "Like hill climbing, but keeps moving past local optima (also downhill), forbidding recent moves from "
        "being undone; returns the best graph seen.",
        (TABU_LENGTH, ITERATIONS), expected_counts=True, replay="dag"),
    SearchSpec(
        "rpdag", "rpdag:rpdag_hill_climb", "RPDAG search (Acid & de Campos 2003)",
        "Greedy search over restricted PDAGs: each state stands for a set of equivalent DAGs, so the search does "
        "not waste steps moving between DAGs that score the same. Needs a score-equivalent score.",
        expected_counts=True, replay="rpdag"),
    SearchSpec(
        "rpdag-tabu", "rpdag:rpdag_tabu_search", "Tabu search over RPDAGs (TS-RPDAG)",
        "Tabu search in the space of RPDAGs: keeps moving past local optima, forbidding recent changes from being "
        "undone. Needs a score-equivalent score.",
        (TABU_LENGTH, ITERATIONS), expected_counts=True, replay="rpdag"),
    SearchSpec(
        "exact", "exact:exact_search", "Exact optimum (dynamic or integer programming)",
        "The best-scoring network of all, proven so. Up to about 25 variables by dynamic programming over subsets "
        "of variables (Silander & Myllymäki 2006), whose memory and time double with every variable; beyond, by "
        "branch and cut on SCIP over the candidate parent sets (Bartlett & Cussens 2017), which reports its "
        "proven gap when stopped. The Tune page says which engine runs on the data in use, and why.",
        (Option("engine", "choice", "auto", "exact engine: the subset DP, branch and cut on SCIP (ilp), "
                "or auto (the DP while it is fast and fits in memory, the ILP beyond)",
                choices=ENGINES),)),
    SearchSpec(
        "obs", "ordering:obs", "OBS (ordering-based search)",
        "Finds good candidate parent sets, then climbs over variable orderings by swapping neighbours "
        "(Teyssier & Koller 2005).", ORDERING),
    SearchSpec(
        "asobs", "ordering:asobs", "ASOBS (ordering-based, acyclic selection)",
        "Finds good candidate parent sets for every variable, then searches over variable orderings; each "
        "ordering is read with acyclic selection (Scanagatta et al. 2015).", ORDERING),
    SearchSpec(
        "pc", "pc:pc_stable", "PC-stable (constraint-based)",
        "Starts from the complete graph and removes each edge whose ends a conditional independence test finds "
        "independent given some neighbours (order-independent: Colombo & Maathuis 2014), then orients the "
        "v-structures and applies Meek's rules. Gives an equivalence class (CPDAG).",
        (TEST, ALPHA, MAX_CONDITION,
         Option("v_structures", "choice", "standard", "how v-structures are decided: from the separating set "
                "found (standard), only when every separating set agrees (conservative, CPC) or by the "
                "majority of them", choices=V_STRUCTURES, label="V-structures"),
         PERMUTATIONS, CI_SEED), scored=False, replay="pc"),
    SearchSpec(
        "ges", "ges:ges", "GES (greedy equivalence search)",
        "Greedy search over equivalence classes (Chickering 2002): insert the edge that raises the score most "
        "until none does, then delete edges while that helps. Needs a score-equivalent score.",
        expected_counts=True, replay="ges"),
    SearchSpec(
        "mmhc", "mmhc:mmhc", "MMHC (max-min hill climbing)",
        "Hybrid (Tsamardinos et al. 2006): independence tests find each variable's candidate neighbours "
        "(MMPC), then hill climbing adds, deletes and reverses arcs among them only.",
        (TEST, ALPHA, MAX_CONDITION,
         Option("climb", "choice", "hc", "the score search on the skeleton: hill climbing or tabu search",
                choices=CLIMBS, label="Score search on the skeleton"),
         PERMUTATIONS, CI_SEED), replay="mmhc"),
)}
"""The searches by name, in the order doors list them."""

EM_OPTIONS = (
    Option("em_iterations", "int", 10, "structural EM iterations at most (E-step, structure search, parameter EM); "
           "it stops earlier when a graph repeats", low=1, label="EM iterations", widget=(1, 100, 10)),
    Option("completions", "int", 1, "completions per incomplete row in structural EM's E-step: all of them when "
           "the row's blank cells have at most this many, else this many samples from the row's posterior", low=1,
           label="Completions per incomplete row", widget=(1, 1024, 1)),
)
"""The options of structural EM (:func:`bnexplore.search.structural_em.structural_em`), which runs a search of
:func:`expected_count_searches` on data with blank cells; the command line and the app offer them beside the
search's own."""


def search_spec(name):
    """The :class:`SearchSpec` of a search name.

    Raises
    ------
    SearchError
        Naming the unknown algorithm and the known ones.
    """
    try:
        return SEARCHES[name]
    except (KeyError, TypeError):
        raise SearchError(f"unknown algorithm {name!r}: choose one of {', '.join(SEARCHES)}") from None


def options():
    """Every search option once, by name (options of the same name agree in kind, across searches).

    Returns
    -------
    dict of str to Option
        The first registered option of each name.
    """
    found = {}
    for spec in SEARCHES.values():
        for option in spec.options:
            found.setdefault(option.name, option)
    return found


def expected_count_searches():
    """The names of the searches that can be structural EM's M-step (:attr:`SearchSpec.expected_counts`).

    Examples
    --------
    >>> expected_count_searches()
    ['hc', 'tabu', 'rpdag', 'rpdag-tabu', 'ges']
    """
    return [spec.name for spec in SEARCHES.values() if spec.expected_counts]


def taking(name):
    """The names of the searches that take option ``name``, in registry order."""
    return [spec.name for spec in SEARCHES.values() if spec.option(name) is not None]
