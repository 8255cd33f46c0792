"""The discrete Bayesian network model: :class:`Network` and the checks and helpers on its pieces.

A :class:`Network` holds, for every variable, its states, its parents and its
conditional probability table (CPT). ``cpts[i]`` has shape
``(*arities of parents[i] in that order, arity of i)``: the last axis is the
child's state and sums to one; a parent configuration is numbered in
mixed radix with the *last* parent varying fastest, so
``cpts[i].reshape(-1, arity_i)[config]`` is the distribution for ``config``
(:func:`parent_configurations` numbers the rows of a table that way).
"""

import numpy as np

from bnexplore.errors import BIFError
from bnexplore.graphs import DAG

MAX_CPT_CELLS = 2**26
"""Most cells one CPT may have (512 MiB of float64): the bound on any one table, read or fitted."""

_CHECK_TOLERANCE = 1e-6


class Network:
    """A discrete Bayesian network: a DAG with one CPT per variable.

    Parameters
    ----------
    name : str
        Name of the network.
    names : list of str
        Variable names, unique.
    states : list of list of str
        State labels of every variable, unique within a variable.
    parents : list of list of int
        Parent indices of every variable; the order fixes the CPT's axes.
    cpts : list of array_like
        ``cpts[i]`` has shape ``(*[arity of p for p in parents[i]], arity_i)``,
        non-negative, summing to one (within 1e-6) over the last axis.

    Attributes
    ----------
    fit : dict or None
        For a network made by :func:`bnexplore.bif.fit_network`, how its
        tables were fitted (method, ess, counts, parent configurations never
        seen); None for a network read from BIF or built by hand.

    Raises
    ------
    BIFError
        If the pieces do not fit together or the parent graph has a cycle.

    Examples
    --------
    >>> net = Network("rain", ["rain", "wet"], [["no", "yes"], ["no", "yes"]], [[], [0]],
    ...               [[0.8, 0.2], [[0.9, 0.1], [0.2, 0.8]]])
    >>> net
    Network('rain', 2 variables, 1 arcs)
    >>> net.index("wet"), net.arities.tolist(), net.topological_order()
    (1, [2, 2], [0, 1])
    """

    fit = None

    def __init__(self, name, names, states, parents, cpts):
        self.name = str(name)
        self.names = [str(v) for v in names]
        self.states = [[str(s) for s in labels] for labels in states]
        self.parents = [[int(p) for p in ps] for ps in parents]
        self.cpts = [np.asarray(t, dtype=np.float64) for t in cpts]
        self._check()

    @property
    def arities(self):
        """Number of states of every variable (int32 array)."""
        return np.array([len(s) for s in self.states], dtype=np.int32)

    @property
    def n_vars(self):
        """Number of variables."""
        return len(self.names)

    def index(self, name):
        """Index of the variable called ``name``.

        Raises
        ------
        BIFError
            If no variable has that name.
        """
        try:
            return self.names.index(name)
        except ValueError:
            raise BIFError(
                f"network {self.name!r} has no variable {name!r}; "
                f"use one of its {self.n_vars} variables, e.g. {self.names[:5]}"
            ) from None

    def topological_order(self):
        """Variable indices with every parent before its children."""
        return parent_order(self.parents)[0]

    def dag(self):
        """The network's graph as a :class:`bnexplore.graphs.DAG`."""
        return DAG.from_parents(self.parents, self.names)

    def __repr__(self):
        arcs = sum(len(p) for p in self.parents)
        return f"Network({self.name!r}, {self.n_vars} variables, {arcs} arcs)"

    def _check(self):
        n = len(self.names)
        if not len(self.states) == len(self.parents) == len(self.cpts) == n:
            raise BIFError(
                f"network {self.name!r}: got {n} names, {len(self.states)} state lists, "
                f"{len(self.parents)} parent lists and {len(self.cpts)} CPTs; give one of each per variable"
            )
        check_unique(self.names, f"network {self.name!r}", "variable")
        for v in range(n):
            self._check_variable(v)
        _, cycle = parent_order(self.parents)
        if cycle:
            raise BIFError(
                f"network {self.name!r}: the parents form a cycle {cycle_text(cycle, self.names)}; remove "
                "one arc",
            )

    def _check_variable(self, v):
        where = f"network {self.name!r}, variable {self.names[v]!r}"
        if not self.states[v]:
            raise BIFError(f"{where}: no states; give it at least one")
        check_unique(self.states[v], where, "state")
        parents = self.parents[v]
        if any(not 0 <= p < len(self.names) for p in parents) or len(set(parents)) < len(parents):
            raise BIFError(f"{where}: parents {parents} must be distinct indices in 0..{len(self.names) - 1}")
        shape = tuple(len(self.states[p]) for p in parents) + (len(self.states[v]),)
        table = self.cpts[v]
        if table.shape != shape:
            raise BIFError(
                f"{where}: CPT has shape {table.shape}, expected {shape} (parent arities, then its own)",
            )
        off_one = np.abs(table.sum(axis=-1) - 1)
        if table.size and not (table.min() >= 0 and off_one.max() <= _CHECK_TOLERANCE):
            raise BIFError(f"{where}: every CPT row must be non-negative and sum to 1")


def check_network(network, door):
    """``network`` when it is a :class:`Network`; else a BIFError saying what ``door`` got and how to make one.

    Every function that reads a network's tables (inference, EM, sampling, BIF and peer-library writers)
    calls it first, so a DAG or a file name is refused in words rather than by an ``AttributeError``.

    Parameters
    ----------
    network : object
    door : str
        The function, as the message names it ("sample", "to_pgmpy").

    Returns
    -------
    Network

    Examples
    --------
    >>> from bnexplore.errors import BIFError
    >>> try:
    ...     check_network(DAG.from_arcs([("a", "b")], ["a", "b"]), "sample")
    ... except BIFError as error:
    ...     print(str(error).split(": ")[0])
    sample takes a bnexplore Network (read_network, read_bif or fit_network), not a DAG
    """
    if isinstance(network, Network):
        return network
    kind = type(network).__name__
    fix = ": fit its tables first, fit_network(dag, data)" if isinstance(network, DAG) else ""
    raise BIFError(f"{door} takes a bnexplore Network (read_network, read_bif or fit_network), not a {kind}{fix}")


def parent_configurations(codes, parents, arities):
    """Mixed-radix number of every row's parent configuration (last parent fastest).

    Parameters
    ----------
    codes : ndarray of int, shape (n_rows, n_vars)
    parents : list of int
        Columns of the parents, in the order of the CPT's axes.
    arities : array_like of int
        Number of states of every column.

    Returns
    -------
    ndarray of intp or None
        None for a variable without parents.

    Examples
    --------
    >>> import numpy as np
    >>> parent_configurations(np.array([[0, 1, 2], [1, 0, 1]]), [0, 2], [2, 2, 3]).tolist()
    [2, 4]
    """
    if not parents:
        return None
    config = codes[:, parents[0]].astype(np.intp)
    for p in parents[1:]:
        config *= int(arities[p])
        config += codes[:, p]
    return config


def parent_order(parents):
    """Kahn's topological order of a graph given by parent lists, and a directed cycle when there is one.

    The graph is held as lists, not as :func:`bnexplore.graphs.find_cycle`'s
    ``n x n`` matrix, for two reasons: a BIF file within the text bound can
    declare hundreds of thousands of variables (a matrix would take their
    square in bytes), and two variables that are each other's parent form a
    cycle here, whereas the matrix reads them as an undirected link.

    Parameters
    ----------
    parents : list of list of int

    Returns
    -------
    order : list of int
        Every parent before its children; incomplete when there is a cycle.
    cycle : list of int
        ``[]``, or the variables of one directed cycle ``c0 -> c1 -> ... -> c0``.

    Examples
    --------
    >>> parent_order([[], [0], [1]])
    ([0, 1, 2], [])
    >>> parent_order([[1], [0], [0]])
    ([], [1, 0])
    """
    n = len(parents)
    children = [[] for _ in range(n)]
    missing = [len(ps) for ps in parents]
    for v, ps in enumerate(parents):
        for p in ps:
            children[p].append(v)
    order = [v for v in range(n) if missing[v] == 0]
    for v in order:
        for c in children[v]:
            missing[c] -= 1
            if missing[c] == 0:
                order.append(c)
    if len(order) == n:
        return order, []
    return order, _one_cycle(parents, set(range(n)) - set(order))


def _one_cycle(parents, stuck):
    """A directed cycle among ``stuck`` variables, each of which has a parent
    in ``stuck`` (what Kahn's algorithm leaves): follow parents until a repeat."""
    v = min(stuck)
    position = {}
    path = []
    while v not in position:
        position[v] = len(path)
        path.append(v)
        v = next(p for p in parents[v] if p in stuck)
    return path[position[v]:][::-1]


def cycle_text(cycle, names):
    """``"A -> B -> A"``: a cycle of :func:`parent_order` by its variable names."""
    return " -> ".join(names[v] for v in cycle + cycle[:1])


def check_unique(labels, where, what):
    """Raise a BIFError naming the first label that appears twice (``what``: variable or state, ``where``: whose)."""
    seen = set()
    for label in labels:
        if label in seen:
            raise BIFError(f"{where}: {what} {label!r} appears twice; give each {what} a distinct name")
        seen.add(label)
