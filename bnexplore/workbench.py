"""The hand-editing workbench: add, delete or reverse one arc and see what it does to the score and the class.

:func:`score_change` applies one :class:`Edit` to a DAG and says, in a
:class:`ScoreChange`, how each changed node's local score moved, the total
change (the log Bayes factor of the edited network against the one before
under BDeu and K2), whether the equivalence class stayed the same, and which
arcs became compelled or reversible; an edit that would close a directed cycle
is refused with the cycle named, not raised. A score is decomposable, so only
the changed families are scored: one for an addition or a deletion, two for a
reversal, through the :class:`~bnexplore.scores.Scorer`'s cache.
:class:`Workbench` keeps a sequence of such edits with undo and redo.

Reversing a covered arc (``Pa(v) = Pa(u) + {u}``) is the move that stays within
the equivalence class, and every member of the class is reached by such moves
(Chickering 1995, Lemma 1 and Theorem 2); under a score-equivalent score
(BDeu, BIC, AIC, LL) it changes nothing.

References
----------
.. [1] D. M. Chickering (1995). A transformational characterization of
   equivalent Bayesian network structures. UAI, 87-98.
"""

from dataclasses import dataclass

from .errors import OptionError, SearchError, subject
from .graphs import DAG
from .graphs.adjacency import find_cycle, row_lists, tree_path

EDIT_KINDS = ("add", "delete", "reverse")
"""What an edit does to its arc tail -> head: add it, delete it, or turn it into head -> tail."""

ARROW = "\u2192"
"""The arc sign of every message and caption (tail → head)."""

LINK = "\u2014"
"""The sign of a reversible (undirected) edge of a CPDAG in captions (a — b)."""

SHOWN_NODES = 10
"""How many of a network's node names an error message lists: enough to see the naming, one line at most."""


@dataclass(frozen=True)
class Edit:
    """One hand edit of one arc.

    Parameters
    ----------
    kind : str
        One of :data:`EDIT_KINDS`: "add" the arc tail -> head, "delete" it,
        or "reverse" it into head -> tail.
    tail, head : str
        The arc's end points by node name: for "add" the new arc, for "delete"
        and "reverse" an arc of the network.

    Raises
    ------
    OptionError
        For a kind not in :data:`EDIT_KINDS`.

    Examples
    --------
    >>> str(Edit("add", "smoke", "dysp"))
    'add smoke → dysp'
    """

    kind: str
    tail: str
    head: str

    def __post_init__(self):
        checked_kind(self.kind)

    def __str__(self):
        return f"{self.kind} {self.tail} {ARROW} {self.head}"


@dataclass(frozen=True)
class ScoreChange:
    """What one edit did: the graphs, the local scores of the changed nodes, the class change.

    Attributes
    ----------
    edit : Edit
        The edit, its nodes by name.
    before : DAG
        The graph the edit was applied to.
    after : DAG or None
        The edited graph; None when the edit was refused.
    refused : str
        "" when done, else one line saying why, naming the nodes, e.g.
        "smoke → dysp would close the cycle smoke → dysp → bronc → smoke".
    cycle : tuple of str
        The node names of the cycle a refused edit would close (first = last,
        starting with the new arc), else ().
    nodes : tuple of tuple
        ``(name, local_before, local_after)`` for each node whose parents
        changed (one for add and delete, two for reverse), in node order.
    change : float
        Total score after minus before: the log Bayes factor of ``after``
        against ``before`` under BDeu and K2 (a log marginal likelihood); 0.0
        when refused.
    same_class : bool
        ``after`` is Markov equivalent to ``before`` (equal CPDAGs); False when refused.
    now_compelled : tuple of tuple
        Arcs ``(tail, head)`` compelled in the class after that were not
        compelled arcs before (a new arc counts when it is compelled).
    now_reversible : tuple of tuple
        Edges ``(a, b)`` (a before b in node order) reversible after whose pair
        was a compelled arc before.
    added, removed : tuple of tuple
        Edges of the CPDAG that appeared and disappeared, each as
        ``(a, "→", b)`` for a compelled arc or ``(a, "—", b)`` for a reversible
        edge (a before b in node order), so ``" ".join(edge)`` is its caption.
        A pair whose mark changes is in both.
    before_class, after_class : CPDAG or None
        The CPDAGs compared (``after_class`` None when refused).
    """

    edit: Edit
    before: DAG
    after: DAG | None
    refused: str
    cycle: tuple
    nodes: tuple
    change: float
    same_class: bool
    now_compelled: tuple
    now_reversible: tuple
    added: tuple
    removed: tuple
    before_class: object = None
    after_class: object = None

    @property
    def done(self):
        """True when the edit was applied (not refused)."""
        return self.after is not None


def checked_kind(kind):
    """``kind`` when it is one of :data:`EDIT_KINDS`; else a one-line OptionError naming it.

    Examples
    --------
    >>> checked_kind("flip")
    Traceback (most recent call last):
    ...
    bnexplore.errors.OptionError: kind='flip' is not an edit kind: use one of add, delete, reverse
    """
    if not isinstance(kind, str) or kind not in EDIT_KINDS:
        raise OptionError(f"{subject('kind', kind)} is not an edit kind: use one of {', '.join(EDIT_KINDS)}")
    return kind


def edit_of(edit, graph):
    """``edit`` (an :class:`Edit` or a ``(kind, tail, head)`` tuple, nodes by name or index) checked on
    ``graph``: ``(Edit by names, tail index, head index)``.

    Raises
    ------
    SearchError
        Naming the node or arc: an unknown node, a self loop, an arc to add
        that is there (either way round), an arc to delete or reverse that is not.
    OptionError
        For a kind not in :data:`EDIT_KINDS`, or an edit that is not three items.
    """
    if isinstance(edit, Edit):
        given = (edit.kind, edit.tail, edit.head)
    elif isinstance(edit, (tuple, list)) and len(edit) == 3:
        given = (checked_kind(edit[0]), *edit[1:])
    else:
        raise OptionError(f"{subject('edit', edit)} is not an edit: give Edit(kind, tail, head) or a "
                          f"(kind, tail, head) tuple with kind one of {', '.join(EDIT_KINDS)}")
    edit = Edit(given[0], *(node_name(x, graph, given) for x in given[1:]))
    u, v = (node_index(x, graph, edit) for x in (edit.tail, edit.head))
    names = graph.names
    if u == v:
        raise SearchError(f"{edit}: a node cannot be its own parent; choose two different nodes")
    arc, back = bool(graph.adj[u, v]), bool(graph.adj[v, u])
    if edit.kind == "add" and arc:
        raise SearchError(f"{edit}: {names[u]} {ARROW} {names[v]} is already an arc of the network")
    if edit.kind == "add" and back:
        raise SearchError(f"{edit}: the network has {names[v]} {ARROW} {names[u]}; two nodes take one arc "
                          "(reverse that arc instead)")
    if edit.kind != "add" and not arc:
        hint = f" ({names[v]} {ARROW} {names[u]} is)" if back else ""
        raise SearchError(f"{edit}: {names[u]} {ARROW} {names[v]} is not an arc of the network{hint}")
    return edit, u, v


def node_name(node, graph, edit):
    """The name of ``node`` (a name or an index of ``graph``) in the edit ``(kind, tail, head)``."""
    if isinstance(node, str):
        return node
    try:
        return graph.names[graph.index(node)]
    except SearchError:
        raise SearchError(f"{subject('edit', edit)}: no node {node!r} in the network "
                          f"(indices 0..{graph.n - 1})") from None


def node_index(name, graph, edit):
    """The index of node ``name`` of ``graph``; a SearchError naming it and the edit when unknown."""
    index = graph.index(name) if name in graph.names else None
    if index is None:
        shown = ", ".join(graph.names[:SHOWN_NODES]) + (", ..." if graph.n > SHOWN_NODES else "")
        raise SearchError(f"{edit}: unknown node {name!r}; the network's nodes are {shown}")
    return index


def checked_graph(graph, scorer):
    """``graph`` when it is a DAG whose nodes are variables of the scorer's data; else a SearchError."""
    if not isinstance(graph, DAG):
        raise SearchError(f"{subject('graph')} must be a DAG, got {type(graph).__name__}; a CPDAG's member: "
                          "cpdag.extension()")
    variables = set(scorer.names)
    missing = [name for name in graph.names if name not in variables]
    if missing:
        raise SearchError(f"{subject('graph')} has nodes the data does not: {', '.join(missing[:SHOWN_NODES])}; "
                          "edit a network of the data's variables")
    return graph


def local_score(graph, v, scorer):
    """The local score of node ``v`` of ``graph`` with its parents there (by name, so any node order works)."""
    names = graph.names
    return scorer.local(names[v], [names[p] for p in graph.parents(v)])


def total_score(graph, scorer):
    """The score of ``graph``: the sum of its local scores, by name (the scorer's cache answers known families)."""
    return float(sum(local_score(graph, v, scorer) for v in range(graph.n)))


def edited_adjacency(graph, kind, u, v):
    """The adjacency matrix of ``graph`` with ``kind`` applied to the arc u -> v (a new array, maybe cyclic)."""
    adj = graph.adj.copy()
    adj[u, v] = 1 if kind == "add" else 0
    if kind == "reverse":
        adj[v, u] = 1
    return adj


def closed_cycle(adj, new_tail, new_head):
    """The shortest directed cycle through the new arc ``new_tail -> new_head`` of ``adj`` (node indices,
    first = last, starting with the new arc), or None when ``adj`` is acyclic.

    Every cycle goes through the new arc (the graph was acyclic without it), so
    the shortest is the arc and a shortest path new_head ~> new_tail.
    """
    if find_cycle(adj) is None:
        return None
    rest = adj.copy()
    rest[new_tail, new_head] = 0
    return [new_tail, *tree_path(row_lists(rest), new_head, new_tail)]


def class_edges(cpdag):
    """The edges of a CPDAG as ``{(a, mark, b)}`` by name: compelled arcs ``(tail, "→", head)``, reversible
    edges ``(a, "—", b)`` with a before b in node order."""
    names = cpdag.names
    return ({(names[u], ARROW, names[v]) for u, v in cpdag.arcs()}
            | {(names[u], LINK, names[v]) for u, v in cpdag.links()})


def in_node_order(edges, graph):
    """``edges`` (tuples of names with the nodes first and last) sorted by the nodes' positions in ``graph``."""
    index = {name: i for i, name in enumerate(graph.names)}
    return tuple(sorted(edges, key=lambda e: (index[e[0]], index[e[-1]], e)))


def score_change(graph, edit, scorer, cpdag=None):
    """Apply one hand edit to a DAG and say what it does to each local score, the total and the class.

    Only the changed families are scored (a score is a sum of local scores):
    the head's for an addition or a deletion, both end points' for a
    reversal, each through the scorer's cache. A reversal of a covered arc
    (``Pa(head) = Pa(tail) + {tail}``) stays in the equivalence class and,
    under a score-equivalent score such as BDeu, changes nothing (Chickering
    1995, Lemma 1).

    Parameters
    ----------
    graph : DAG
        The network to edit, over variables of the scorer's data (in any order).
    edit : Edit or tuple
        The edit, or a ``(kind, tail, head)`` tuple with kind one of
        :data:`EDIT_KINDS` and the nodes by name or index.
    scorer : Scorer
        Local scores of the data (:class:`bnexplore.scores.Scorer`).
    cpdag : CPDAG, optional
        ``graph.cpdag()`` when the caller has it (:class:`Workbench` does), so
        it is not computed again.

    Returns
    -------
    ScoreChange
        An edit that would close a directed cycle is refused there (``refused``
        says why and ``cycle`` names the cycle), not raised.

    Raises
    ------
    SearchError
        An unknown node, a self loop, an arc to add that is already there (either way
        round), an arc to delete or reverse that is not: one line naming the node or arc.
    OptionError
        A kind not in :data:`EDIT_KINDS`.

    References
    ----------
    D. M. Chickering (1995). A transformational characterization of equivalent
    Bayesian network structures. UAI, 87-98.

    Examples
    --------
    >>> import bnexplore as bx
    >>> data = bx.read_csv("sample_data/asia.csv")
    >>> scorer = bx.Scorer(data, score="bdeu")
    >>> graph = bx.DAG.from_arcs([("smoke", "lung"), ("smoke", "bronc"), ("bronc", "dysp")], data.names)
    >>> change = bx.score_change(graph, ("add", "lung", "dysp"), scorer)
    >>> [name for name, before, after in change.nodes], change.change > 0, change.same_class
    (['dysp'], True, False)
    >>> bx.score_change(graph, ("reverse", "smoke", "lung"), scorer).same_class  # a covered arc
    True
    >>> bx.score_change(graph, ("add", "dysp", "smoke"), scorer).refused
    'dysp → smoke would close the cycle dysp → smoke → bronc → dysp'
    """
    from .scores.scorer import check_scorer  # numba's: loaded by the call, not by the command line's start

    checked_graph(graph, check_scorer(scorer, "score_change"))
    edit, u, v = edit_of(edit, graph)
    names = graph.names
    before_class = graph.cpdag() if cpdag is None else cpdag
    adj = edited_adjacency(graph, edit.kind, u, v)
    new = (u, v) if edit.kind == "add" else (v, u) if edit.kind == "reverse" else None
    cycle = closed_cycle(adj, *new) if new is not None else None
    if cycle is not None:
        path = tuple(names[w] for w in cycle)
        arc = f"{names[new[0]]} {ARROW} {names[new[1]]}"
        why = (f"{arc} would close the cycle {f' {ARROW} '.join(path)}" if edit.kind == "add"
               else f"reversing {names[u]} {ARROW} {names[v]} gives {arc}, which would close the cycle "
                    f"{f' {ARROW} '.join(path)}")
        return ScoreChange(edit, graph, None, why, path, (), 0.0, False, (), (), (), (), before_class, None)
    after = DAG(adj, names)
    changed = sorted({v} | ({u} if edit.kind == "reverse" else set()))
    nodes = tuple((names[w], local_score(graph, w, scorer), local_score(after, w, scorer)) for w in changed)
    after_class = after.cpdag()
    was, now = class_edges(before_class), class_edges(after_class)
    compelled_before = {(a, b) for a, mark, b in was if mark == ARROW}
    pairs_before = compelled_before | {(b, a) for a, b in compelled_before}
    return ScoreChange(
        edit, graph, after, "", (), nodes,
        change=float(sum(new_score - old_score for _, old_score, new_score in nodes)),
        same_class=after_class == before_class,
        now_compelled=in_node_order({(a, b) for a, mark, b in now - was if mark == ARROW}, graph),
        now_reversible=in_node_order({(a, b) for a, mark, b in now if mark == LINK and (a, b) in pairs_before},
                                     graph),
        added=in_node_order(now - was, graph), removed=in_node_order(was - now, graph),
        before_class=before_class, after_class=after_class)


class Workbench:
    """Hand edits of one network with undo and redo; local scores through the Scorer's cache.

    Parameters
    ----------
    graph : DAG
        The starting network, over variables of the scorer's data.
    scorer : Scorer
        Local scores of the data; its cache makes an edit that returns to a
        family seen before cost a look-up.

    Attributes
    ----------
    start : DAG
        The starting network.
    graph : DAG
        The network now.
    history : list of ScoreChange
        The applied edits, oldest first (what :meth:`undo` takes back, last first).
    start_score : float
        The score of the starting network (the sum of its local scores).

    Examples
    --------
    >>> import bnexplore as bx
    >>> data = bx.read_csv("sample_data/asia.csv")
    >>> bench = bx.Workbench(bx.DAG.empty(data.names), bx.Scorer(data))
    >>> bench.apply(("add", "smoke", "lung")).change > 0
    True
    >>> bench.class_moves()  # the covered arcs: reversing one keeps the class
    [('smoke', 'lung')]
    >>> round(bench.apply(("reverse", "smoke", "lung")).change, 9)
    0.0
    >>> bench.undo().edit.kind, len(bench.history), bench.can_redo
    ('reverse', 1, True)
    """

    def __init__(self, graph, scorer):
        from .scores.scorer import check_scorer  # numba's: loaded by the call, not by the command line's start

        self.scorer = check_scorer(scorer, "Workbench")
        self.start = checked_graph(graph, scorer)
        self.graph = graph
        self.history = []
        self._undone = []
        self._start_class = graph.cpdag()
        self.start_score = total_score(graph, scorer)

    def current_class(self):
        """The CPDAG of the network now (computed once per graph: kept on the edit that made it)."""
        return self.history[-1].after_class if self.history else self._start_class

    def apply(self, edit):
        """Apply ``edit`` (an :class:`Edit` or ``(kind, tail, head)``) to the network now: see :func:`score_change`.

        A refused edit (it would close a cycle) changes nothing and is not put
        on the undo stack; a done edit clears the redo stack.

        Returns
        -------
        ScoreChange
        """
        change = score_change(self.graph, edit, self.scorer, cpdag=self.current_class())
        if change.done:
            self.history.append(change)
            self._undone.clear()
            self.graph = change.after
        return change

    def undo(self):
        """Take back the last edit; returns its ScoreChange (None when there is none to undo)."""
        if not self.history:
            return None
        change = self.history.pop()
        self._undone.append(change)
        self.graph = change.before
        return change

    def redo(self):
        """Apply again the last edit undone; returns its ScoreChange (None when there is none)."""
        if not self._undone:
            return None
        change = self._undone.pop()
        self.history.append(change)
        self.graph = change.after
        return change

    @property
    def can_undo(self):
        """There is an edit to undo."""
        return bool(self.history)

    @property
    def can_redo(self):
        """There is an undone edit to redo."""
        return bool(self._undone)

    def score(self):
        """The score of the network now: the sum of its local scores, each from the scorer's cache."""
        return total_score(self.graph, self.scorer)

    def log_bayes_factor(self):
        """The score of the network now minus the start's: ln BF of the edited network against the start
        under BDeu and K2 (each family's score from the scorer's cache, so undo and redo restore it exactly)."""
        return self.score() - self.start_score

    def class_moves(self):
        """The arcs ``(tail, head)`` by name whose reversal keeps the equivalence class: the covered arcs
        (Chickering 1995), in node order."""
        names = self.graph.names
        return [(names[u], names[v]) for u, v in self.graph.covered_arcs()]

    def candidates(self, kind):
        """The ``(tail, head)`` pairs by name an edit of ``kind`` can take on the network now, in node order.

        "add": every ordered pair of non-adjacent nodes (an addition that would
        close a cycle is among them: applying it shows the cycle); "delete" and
        "reverse": every arc.
        """
        checked_kind(kind)
        graph, names = self.graph, self.graph.names
        if kind != "add":
            return [(names[u], names[v]) for u, v in graph.arcs()]
        skeleton = graph.skeleton()
        return [(names[u], names[v]) for u in range(graph.n) for v in range(graph.n)
                if u != v and not skeleton[u, v]]


__all__ = ["EDIT_KINDS", "Edit", "ScoreChange", "Workbench", "score_change"]
