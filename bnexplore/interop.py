"""Networks handed to and taken from other libraries: pgmpy, pyAgrum and networkx.

- :func:`to_pgmpy` / :func:`from_pgmpy`: a :class:`~bnexplore.bif.Network` as
  pgmpy's ``DiscreteBayesianNetwork`` (``BayesianNetwork`` before pgmpy 1.0)
  with one ``TabularCPD`` per variable, and back;
- :func:`to_pyagrum` / :func:`from_pyagrum`: as pyAgrum's ``BayesNet`` of
  labelized variables, and back;
- :func:`to_networkx` / :func:`from_networkx`: the graph as a networkx
  ``DiGraph`` (a network's states as node attributes), and a ``DiGraph`` as a
  :class:`~bnexplore.graphs.DAG`.

pgmpy and pyAgrum are not requirements of bnexplore (they are test extras,
``requirements-dev.txt``): each is imported inside the function that builds
its model, and a missing one is a one-line message saying what to install.
networkx is a requirement.

Names and states keep their exact text both ways (both peers take any string).
A table comes back in bnexplore's layout whatever axis order the peer holds it
in (the last axis the child's state, the last parent varying fastest; the
parents in the order of the peer's table), a parent's states reordered where a
pgmpy table lists them in another order than the parent's own. A peer's
distribution must sum to one within :data:`~bnexplore.bif.SUM_TOLERANCE`, as a
BIF file's must, and is renormalised when it misses by more than
:data:`RENORMALISE_ABOVE`. A peer model is refused before any table is copied
when its tables together hold more cells than the expansion bound of
:mod:`bnexplore.limits` has for float64 numbers (or one table more than
:data:`~bnexplore.bif.network.MAX_CPT_CELLS`), as :func:`~bnexplore.bif.read_bif` does.

Examples
--------
>>> from bnexplore import bundled, read_bif
>>> asia = read_bif(bundled.network_path("asia"))
>>> from_networkx(to_networkx(asia)) == asia.dag()
True
"""

import math

import networkx as nx
import numpy as np

from bnexplore.bif import SUM_TOLERANCE, Network
from bnexplore.bif.network import MAX_CPT_CELLS, check_network, check_unique
from bnexplore.errors import BIFError, BNExploreError, ResourceError, SearchError
from bnexplore.graphs import DAG
from bnexplore.limits import advice, max_expanded_bytes

__all__ = ["RENORMALISE_ABOVE", "from_networkx", "from_pgmpy", "from_pyagrum", "to_networkx", "to_pgmpy",
           "to_pyagrum"]

RENORMALISE_ABOVE = 1e-9
"""A peer's distribution that misses one by more than this is rescaled to sum to one; within it, it is kept
bit for bit (so a network handed to a peer and taken back is unchanged), as in :func:`~bnexplore.bif.read_bif`."""


# --- pgmpy -----------------------------------------------------------------------------------------------------


def to_pgmpy(network):
    """The network as a pgmpy ``DiscreteBayesianNetwork`` with one ``TabularCPD`` per variable.

    Parameters
    ----------
    network : Network

    Returns
    -------
    pgmpy.models.DiscreteBayesianNetwork
        ``BayesianNetwork`` with a pgmpy older than 1.0. Its nodes are the
        network's variable names in the network's order, every CPD carries
        ``state_names`` and lists its parents (``evidence``) in the network's
        order for that variable; ``model.name`` is the network's name.

    Raises
    ------
    BNExploreError
        When pgmpy is not installed (``pip install pgmpy``).

    Examples
    --------
    >>> from bnexplore import bundled, read_bif
    >>> asia = read_bif(bundled.network_path("asia"))
    >>> model = to_pgmpy(asia)
    >>> model.get_cpds("dysp").variables
    ['dysp', 'bronc', 'either']
    >>> model.get_cpds("smoke").state_names["smoke"]
    ['yes', 'no']
    >>> from pgmpy.inference import VariableElimination  # doctest: +SKIP
    >>> VariableElimination(model).query(["lung"], {"smoke": "yes"}).values  # doctest: +SKIP
    array([0.1, 0.9])
    """
    network = check_network(network, "to_pgmpy")
    model_class, cpd_class = pgmpy_classes()
    names, states = network.names, network.states
    model = model_class()
    model.add_nodes_from(names)
    model.add_edges_from((names[p], names[v]) for v in range(network.n_vars) for p in network.parents[v])
    model.name = network.name
    cpds = []
    for v, name in enumerate(names):
        parents = network.parents[v]
        values = np.moveaxis(network.cpts[v], -1, 0).reshape(len(states[v]), -1)
        cpds.append(cpd_class(name, len(states[v]), values, evidence=[names[p] for p in parents] or None,
                              evidence_card=[len(states[p]) for p in parents] or None,
                              state_names={names[u]: list(states[u]) for u in [v, *parents]}))
    model.add_cpds(*cpds)
    return model


def from_pgmpy(model):
    """A pgmpy ``DiscreteBayesianNetwork`` (or ``BayesianNetwork``) as a :class:`~bnexplore.bif.Network`.

    Parameters
    ----------
    model : pgmpy.models.DiscreteBayesianNetwork
        With a ``TabularCPD`` for every node, each CPD's parents those of the
        node in the graph.

    Returns
    -------
    Network
        Variables in the model's node order, named ``str(node)``; states from
        each variable's own CPD (``str`` of its ``state_names``); the parents
        of a variable in the order of its CPD's ``evidence``; ``model.name``,
        else ``"unknown"``.

    Raises
    ------
    BIFError
        When a node has no CPD, a CPD's parents differ from the graph's, a
        CPD names a parent's states otherwise than the parent's own CPD, or a
        distribution does not sum to one (within ``SUM_TOLERANCE``).
    ResourceError
        When the tables are beyond the bound (before anything is copied).

    Examples
    --------
    >>> from bnexplore import bundled, read_bif
    >>> asia = read_bif(bundled.network_path("asia"))
    >>> back = from_pgmpy(to_pgmpy(asia))
    >>> back.names == asia.names, back.states == asia.states
    (True, True)
    """
    if not all(hasattr(model, attribute) for attribute in ("nodes", "get_cpds", "get_parents")):
        raise BIFError(f"from_pgmpy takes a pgmpy DiscreteBayesianNetwork, not a {type(model).__name__}")
    nodes = list(model.nodes())
    cpd_of = {cpd.variable: cpd for cpd in model.get_cpds()}
    sizes = []
    for node in nodes:
        if node not in cpd_of:
            raise BIFError(f"pgmpy model: variable {node!r} has no CPD; add one with model.add_cpds(...)")
        cpd = cpd_of[node]
        parents = list(cpd.variables[1:])
        if set(parents) != set(model.get_parents(node)):
            raise BIFError(f"pgmpy model: the CPD of {node!r} is given {parents}, but its parents in the graph are "
                           f"{list(model.get_parents(node))}; make them the same")
        sizes.append((node, [int(c) for c in cpd.cardinality]))
    check_size(sizes, "pgmpy model")
    names = [str(node) for node in nodes]
    check_unique(names, "pgmpy model", "variable")
    index = {node: v for v, node in enumerate(nodes)}
    states = [[str(s) for s in cpd_of[node].state_names[node]] for node in nodes]
    parents, cpts = [], []
    for v, node in enumerate(nodes):
        cpd = cpd_of[node]
        table = np.moveaxis(np.array(cpd.values, dtype=np.float64), 0, -1)
        for axis, parent in enumerate(cpd.variables[1:]):
            table = in_parent_order(table, axis, [str(s) for s in cpd.state_names[parent]],
                                    states[index[parent]], f"pgmpy model: the CPD of {node!r}", names[index[parent]])
        parents.append([index[p] for p in cpd.variables[1:]])
        cpts.append(normalised(table, "pgmpy model", names[v]))
    return Network(getattr(model, "name", None) or "unknown", names, states, parents, cpts)


def pgmpy_classes():
    """pgmpy's network class and ``TabularCPD``, imported here: pgmpy is optional (not in requirements.txt).

    Examples
    --------
    >>> pgmpy_classes()[1].__name__
    'TabularCPD'
    """
    try:
        import pgmpy.models as models  # optional peer: only the converters need it
        from pgmpy.factors.discrete import TabularCPD
    except ImportError:
        raise BNExploreError("pgmpy is not installed; pip install pgmpy to hand networks to it") from None
    model_class = getattr(models, "DiscreteBayesianNetwork", None) or models.BayesianNetwork  # BayesianNetwork < 1.0
    return model_class, TabularCPD


# --- pyAgrum ---------------------------------------------------------------------------------------------------


def to_pyagrum(network):
    """The network as a pyAgrum ``BayesNet`` of labelized variables.

    Parameters
    ----------
    network : Network

    Returns
    -------
    pyagrum.BayesNet
        Variables added in the network's order (node ids ``0..n-1``), each a
        ``LabelizedVariable`` with the network's state labels; its name
        property is the network's name.

    Raises
    ------
    BNExploreError
        When pyAgrum is not installed (``pip install pyagrum``).

    Examples
    --------
    >>> from bnexplore import bundled, read_bif
    >>> asia = read_bif(bundled.network_path("asia"))
    >>> bn = to_pyagrum(asia)
    >>> bn.variable(bn.idFromName("smoke")).labels()
    ('yes', 'no')
    >>> float(bn.cpt(bn.idFromName("lung"))[{"smoke": "yes", "lung": "yes"}])
    0.1
    >>> import pyagrum as gum  # doctest: +SKIP
    >>> gum.LazyPropagation(bn).posterior("lung").toarray()  # doctest: +SKIP
    array([0.055, 0.945])
    """
    network = check_network(network, "to_pyagrum")
    gum = pyagrum_module()
    bn = gum.BayesNet(network.name)
    ids = []
    for name, labels in zip(network.names, network.states):
        variable = gum.LabelizedVariable(name, name, 0)
        for label in labels:
            variable.addLabel(label)
        ids.append(bn.add(variable))
    for v, parents in enumerate(network.parents):
        for p in parents:
            bn.addArc(ids[p], ids[v])
    for v, name in enumerate(network.names):
        tensor = bn.cpt(ids[v])
        ours = [network.names[p] for p in network.parents[v]] + [name]
        # toarray()'s axes, and fillWith's C order, are the tensor's variables in reverse
        theirs = list(tensor.names)[::-1]
        tensor.fillWith(np.transpose(network.cpts[v], [ours.index(label) for label in theirs]).ravel())
    return bn


def from_pyagrum(bn):
    """A pyAgrum ``BayesNet`` as a :class:`~bnexplore.bif.Network`.

    Parameters
    ----------
    bn : pyagrum.BayesNet
        Of discrete variables of any kind (labelized, range, integer,
        discretized): their ``labels()`` become the states.

    Returns
    -------
    Network
        Variables in the order of their node ids; the parents of a variable
        in the axis order of pyAgrum's table for it; the ``name`` property,
        else ``"unknown"``.

    Raises
    ------
    BIFError
        When a distribution does not sum to one (within ``SUM_TOLERANCE``).
    ResourceError
        When the tables are beyond the bound (before anything is copied).

    Examples
    --------
    >>> from bnexplore import bundled, read_bif
    >>> asia = read_bif(bundled.network_path("asia"))
    >>> back = from_pyagrum(to_pyagrum(asia))
    >>> back.names == asia.names, back.states == asia.states
    (True, True)
    """
    if not all(hasattr(bn, attribute) for attribute in ("nodes", "cpt", "variable", "parents")):
        raise BIFError(f"from_pyagrum takes a pyAgrum BayesNet, not a {type(bn).__name__}")
    ids = sorted(bn.nodes())
    variables = [bn.variable(i) for i in ids]
    names = [variable.name() for variable in variables]
    check_size([(names[k], [bn.variable(p).domainSize() for p in bn.parents(i)] + [variables[k].domainSize()])
                for k, i in enumerate(ids)], "pyAgrum BayesNet")
    index = {name: v for v, name in enumerate(names)}
    parents, cpts = [], []
    for v, i in enumerate(ids):
        tensor = bn.cpt(i)
        axes = list(tensor.names)[::-1]  # toarray()'s axes are the tensor's variables in reverse
        table = np.moveaxis(np.array(tensor.toarray(), dtype=np.float64), axes.index(names[v]), -1)
        parents.append([index[label] for label in axes if label != names[v]])
        cpts.append(normalised(table, "pyAgrum BayesNet", names[v]))
    name = bn.propertyWithDefault("name", "") or "unknown"
    return Network(name, names, [list(variable.labels()) for variable in variables], parents, cpts)


def pyagrum_module():
    """The pyAgrum module (``pyagrum``, or ``pyAgrum`` before 2.0), imported here: it is optional.

    Examples
    --------
    >>> pyagrum_module().BayesNet.__name__
    'BayesNet'
    """
    try:
        import pyagrum as gum  # optional peer: only the converters need it
    except ImportError:
        try:
            import pyAgrum as gum  # the package's name before pyAgrum 2.0
        except ImportError:
            raise BNExploreError("pyAgrum is not installed; pip install pyagrum to hand networks to it") from None
    return gum


# --- networkx --------------------------------------------------------------------------------------------------


def to_networkx(graph):
    """The graph of a network or a DAG as a networkx ``DiGraph``.

    Parameters
    ----------
    graph : Network or DAG

    Returns
    -------
    networkx.DiGraph
        Nodes named as the variables, in their order; an arc ``p -> v`` per
        parent. From a :class:`~bnexplore.bif.Network` every node has the
        attribute ``states`` (its list of states) and the graph the attribute
        ``name``.

    Raises
    ------
    SearchError
        For anything else (a CPDAG or PDAG: take a DAG of it with ``extension()``).

    Examples
    --------
    >>> from bnexplore.bif import Network
    >>> net = Network("rain", ["rain", "wet"], [["no", "yes"], ["no", "yes"]], [[], [0]],
    ...               [[0.8, 0.2], [[0.9, 0.1], [0.2, 0.8]]])
    >>> g = to_networkx(net)
    >>> list(g.edges), g.nodes["wet"]["states"], g.graph["name"]
    ([('rain', 'wet')], ['no', 'yes'], 'rain')
    >>> list(to_networkx(net.dag()).nodes)
    ['rain', 'wet']
    """
    out = nx.DiGraph()
    if isinstance(graph, Network):
        out.graph["name"] = graph.name
        out.add_nodes_from((name, {"states": list(states)}) for name, states in zip(graph.names, graph.states))
        parents = graph.parents
    elif isinstance(graph, DAG):
        out.add_nodes_from(graph.names)
        parents = [graph.parents(v) for v in range(graph.n)]
    else:
        hint = "; take a DAG of it with .extension()" if hasattr(graph, "extension") else ""
        raise SearchError(f"to_networkx takes a bnexplore Network or DAG, not a {type(graph).__name__}{hint}")
    out.add_edges_from((graph.names[p], name) for name, ps in zip(graph.names, parents) for p in ps)
    return out


def from_networkx(graph):
    """A networkx ``DiGraph`` (without directed cycles) as a :class:`~bnexplore.graphs.DAG`.

    Parameters
    ----------
    graph : networkx.DiGraph
        Any node labels (named ``str(label)``, which must differ); attributes
        are ignored.

    Returns
    -------
    DAG
        Nodes in the graph's node order.

    Raises
    ------
    SearchError
        When the graph is undirected, has a self-loop or a directed cycle
        (named), or two nodes have the same ``str``.
    ResourceError
        When the graph's adjacency matrix would be beyond the bound.

    Examples
    --------
    >>> import networkx as nx
    >>> from_networkx(nx.DiGraph([("rain", "wet"), ("sprinkler", "wet")]))
    DAG(3 nodes, 2 edges: rain -> wet, sprinkler -> wet)
    >>> from_networkx(nx.DiGraph([("a", "b"), ("b", "a")]))
    Traceback (most recent call last):
    ...
    bnexplore.errors.SearchError: the graph has a directed cycle a -> b -> a; a DAG has none: remove or ...
    """
    if not isinstance(graph, nx.DiGraph):
        kind = "an undirected networkx graph" if isinstance(graph, nx.Graph) else f"a {type(graph).__name__}"
        raise SearchError(f"from_networkx takes a networkx DiGraph, not {kind}")
    nodes = list(graph.nodes)
    n = len(nodes)
    if n * n > max_expanded_bytes():
        raise ResourceError(f"the graph's {n:,} nodes would take {n * n / (1 << 20):,.1f} MB as a DAG, more than "
                            f"the limit of this server ({advice()}); nothing was converted")
    for u, _ in nx.selfloop_edges(graph):
        raise SearchError(f"the graph has a self-loop {u} -> {u}; a DAG has none: remove it")
    try:
        cycle = [u for u, _ in nx.find_cycle(graph)]
    except nx.NetworkXNoCycle:
        cycle = None
    if cycle:
        path = " -> ".join(str(u) for u in cycle + cycle[:1])
        raise SearchError(f"the graph has a directed cycle {path}; a DAG has none: remove or reverse one of its arcs")
    names = [str(node) for node in nodes]
    seen = {}
    for node, name in zip(nodes, names):
        if name in seen:
            raise SearchError(f"nodes {seen[name]!r} and {node!r} both have the name {name!r}; relabel one")
        seen[name] = node
    index = {node: i for i, node in enumerate(nodes)}
    adj = np.zeros((n, n), dtype=np.uint8)
    for u, v in graph.edges():
        adj[index[u], index[v]] = 1
    return DAG(adj, names)


# --- shared ----------------------------------------------------------------------------------------------------


def check_size(shapes, what):
    """Refuse a peer model before its tables are copied (``shapes``: ``(variable, table shape)`` pairs).

    Raises
    ------
    ResourceError
        When one table holds more than ``MAX_CPT_CELLS`` cells, or all together
        more than the expansion bound of :mod:`bnexplore.limits` in float64 cells.

    Examples
    --------
    >>> check_size([("a", [2]), ("b", [2, 3])], "demo model")
    >>> check_size([("a", [2**20, 2**20])], "demo model")
    Traceback (most recent call last):
    ...
    bnexplore.errors.ResourceError: demo model: the table of 'a' has 1099511627776 cells (more than 67108864); ...
    """
    limit = max_expanded_bytes() // 8
    total = 0
    for name, shape in shapes:
        cells = math.prod(shape)
        if cells > MAX_CPT_CELLS:
            raise ResourceError(f"{what}: the table of {name!r} has {cells} cells (more than {MAX_CPT_CELLS}); "
                                "give it fewer parents or states")
        total += cells
        if total > limit:
            raise ResourceError(f"{what}: its tables hold more than {limit:,} cells together, the limit of this "
                                f"server ({advice()}); nothing was converted")


def in_parent_order(table, axis, listed, own, where, parent):
    """``table`` with the states of ``axis`` (``listed``) put in the order of the parent's own states ``own``.

    Raises
    ------
    BIFError
        When ``listed`` is not an ordering of ``own``.

    Examples
    --------
    >>> in_parent_order(np.array([[0.1, 0.9], [0.6, 0.4]]), 0, ["b", "a"], ["a", "b"], "model", "p").tolist()
    [[0.6, 0.4], [0.1, 0.9]]
    """
    if listed == own:
        return table
    if sorted(listed) != sorted(own):
        raise BIFError(f"{where} names the states of {parent!r} {listed}, but {parent!r} has {own}; make them the same")
    return np.take(table, [listed.index(state) for state in own], axis=axis)


def normalised(table, what, name):
    """``table`` (last axis the child's state) with every distribution summing to one.

    Raises
    ------
    BIFError
        When a probability is negative or not a number, or a distribution misses
        one by more than ``SUM_TOLERANCE``.

    Examples
    --------
    >>> normalised(np.array([0.25, 0.7495]), "demo model", "x").round(4).tolist()
    [0.2501, 0.7499]
    >>> normalised(np.array([0.3, 0.6]), "demo model", "x")
    Traceback (most recent call last):
    ...
    bnexplore.errors.BIFError: demo model: probabilities of 'x' sum to 0.9, not 1; fix them (up to 0.001 off ...
    """
    if table.size and not np.all(table >= 0):
        raise BIFError(f"{what}: a probability of {name!r} is negative or not a number; fix it")
    sums = table.sum(axis=-1, keepdims=True)
    off = np.abs(sums - 1)
    if table.size and off.max() > SUM_TOLERANCE:
        raise BIFError(f"{what}: probabilities of {name!r} sum to {sums.flat[np.argmax(off)]:.6g}, not 1; "
                       f"fix them (up to {SUM_TOLERANCE} off is renormalised)")
    return np.where(off > RENORMALISE_ABOVE, table / sums, table)
