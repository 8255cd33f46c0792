"""Comparing graphs: equivalence-class keys, the structural Hamming distance, A, D, I, H, and the
adjacency and arrowhead precision and recall of a learned graph against the true one.

References
----------
.. [1] S. Acid and L. M. de Campos (2003). Searching for Bayesian network
   structures in the space of restricted acyclic partially directed graphs.
   JAIR 18, 445-490. Proposition 4 (RPDAG classes) and Section 6 (the
   structural errors A, D, I and H).
.. [2] I. Tsamardinos, L. E. Brown and C. F. Aliferis (2006). The max-min
   hill-climbing Bayesian network structure learning algorithm. Machine
   Learning 65, 31-78. The structural Hamming distance (SHD).
.. [3] J. D. Ramsey, D. Malinsky and K. V. Bui (2020). algcomparison:
   Comparing the performance of graphical structure learning algorithms
   with TETRAD. JMLR 21(238), 1-6. Adjacency and arrowhead precision and
   recall (Tetrad's ``AdjacencyPrecision``, ``ArrowheadPrecision``, ...).
"""

import numpy as np

from bnexplore.errors import SearchError


def mec_key(graph):
    """Hashable key of a graph's Markov equivalence class.

    Parameters
    ----------
    graph : DAG, CPDAG or RPDAG
        For a CPDAG or an RPDAG the key is that of the DAGs it stands for.

    Returns
    -------
    tuple
        ``(n, skeleton edges, v-structures)``: two DAGs on the same nodes have
        equal keys iff they are Markov equivalent (Verma & Pearl).

    Examples
    --------
    >>> from bnexplore.graphs import DAG
    >>> mec_key(DAG.from_arcs([(0, 1)], 2)) == mec_key(DAG.from_arcs([(1, 0)], 2))
    True
    """
    return graph.n, tuple(graph.edges()), tuple(graph.v_structures())


def rpdag_key(graph):
    """Hashable key of a graph's RPDAG class.

    Parameters
    ----------
    graph : DAG or RPDAG

    Returns
    -------
    tuple
        ``(n, skeleton edges, head-to-head patterns)``: two DAGs have equal
        keys iff they have the same RPDAG ([1]_, Proposition 4). Finer than
        :func:`mec_key`.

    Examples
    --------
    >>> from bnexplore.graphs import DAG
    >>> a = DAG.from_arcs([(0, 1), (0, 2), (1, 2)], 3)
    >>> b = DAG.from_arcs([(2, 1), (2, 0), (1, 0)], 3)
    >>> mec_key(a) == mec_key(b), rpdag_key(a) == rpdag_key(b)
    (True, False)
    """
    return graph.n, tuple(graph.edges()), tuple(graph.hh_patterns())


def aligned_adjacency(a, b):
    """``b.adj`` with its nodes put in ``a``'s order (matched by name).

    Raises
    ------
    SearchError
        When the two graphs do not have the same node names.
    """
    if a.names == b.names:
        return b.adj
    names_a, names_b = set(a.names), set(b.names)
    only_a = [name for name in a.names if name not in names_b]
    only_b = [name for name in b.names if name not in names_a]
    if only_a or only_b:
        raise SearchError(f"the graphs have different nodes (only in the first: {only_a[:5]}, "
                          f"only in the second: {only_b[:5]}); compare graphs over the same "
                          "variables")
    order = [b.index(name) for name in a.names]
    return b.adj[np.ix_(order, order)]


def pair_states(adj):
    """Edge state of every pair u < v: 0 none, 1 u -> v, 2 v -> u, 3 link.

    Examples
    --------
    >>> import numpy as np
    >>> pair_states(np.array([[0, 1, 1], [0, 0, 0], [1, 0, 0]])).tolist()
    [1, 3, 0]
    """
    a = adj.astype(np.int8)
    return (a + 2 * a.T)[np.triu_indices(a.shape[0], 1)]


def shd(a, b):
    """Structural Hamming distance between two graphs, as given.

    The number of node pairs whose edge differs: present in one graph only,
    or present in both with a different mark (opposite arcs, or an arc in one
    and a link in the other). Each pair counts once, as in Tsamardinos et al.
    [2]_. Pass two CPDAGs (``dag.cpdag()``) for their SHD between equivalence
    classes; two Markov-equivalent DAGs can be at a positive distance.

    Parameters
    ----------
    a, b : PDAG
        Graphs over the same node names (matched by name when the orders differ).

    Returns
    -------
    int

    Examples
    --------
    >>> from bnexplore.graphs import DAG
    >>> a, b = DAG.from_arcs([(0, 1)], 2), DAG.from_arcs([(1, 0)], 2)
    >>> shd(a, b), shd(a.cpdag(), b.cpdag())
    (1, 0)
    """
    return int(np.count_nonzero(pair_states(a.adj) != pair_states(aligned_adjacency(a, b))))


def structural_errors(learned, true, equivalence=True):
    """Added, deleted and wrongly oriented edges of a learned graph ([1]_, Section 6).

    With ``equivalence=True`` (the paper's H, which ignores "the differences
    between equivalent structures") both graphs are first replaced by the
    CPDAG of their equivalence class, so a DAG, its CPDAG and any RPDAG of
    its class all score the same. Then, over node pairs:

    - ``A``: adjacent in the learned graph, not in the true one;
    - ``D``: adjacent in the true graph, not in the learned one;
    - ``I``: adjacent in both with different marks: opposite arcs, or an arc
      in one and a link in the other (a link where the true class has a
      compelled arc counts, and so does the reverse);
    - ``H = A + D + I``, which equals ``shd`` of the two compared graphs.

    Parameters
    ----------
    learned, true : PDAG
        DAG, CPDAG, RPDAG or any PDAG with a consistent extension, over the
        same node names.
    equivalence : bool, default True
        False compares the graphs as given.

    Returns
    -------
    dict
        ``{"A": int, "D": int, "I": int, "H": int}``.

    Examples
    --------
    >>> from bnexplore.graphs import DAG
    >>> true = DAG.from_arcs([(0, 2), (1, 2)], 3)
    >>> structural_errors(DAG.from_arcs([(0, 2), (2, 1)], 3), true)
    {'A': 0, 'D': 0, 'I': 2, 'H': 2}
    """
    if equivalence:
        learned, true = learned.cpdag(), true.cpdag()
    states_learned = pair_states(learned.adj)
    states_true = pair_states(aligned_adjacency(learned, true))
    in_learned, in_true = states_learned > 0, states_true > 0
    added = int(np.count_nonzero(in_learned & ~in_true))
    deleted = int(np.count_nonzero(in_true & ~in_learned))
    inverted = int(np.count_nonzero(in_learned & in_true & (states_learned != states_true)))
    return {"A": added, "D": deleted, "I": inverted, "H": added + deleted + inverted}


def fraction(part, whole):
    """``part / whole``, or None when ``whole`` is 0 (0/0 is undefined, not 0 or 1).

    Examples
    --------
    >>> fraction(3, 4), fraction(0, 0)
    (0.75, None)
    """
    return None if whole == 0 else part / whole


def adjacency_precision_recall(learned, true):
    """Adjacency precision and recall of a learned graph against the true one ([3]_).

    Adjacencies are unordered node pairs joined by an edge, whatever its marks:

    - precision = (pairs adjacent in both) / (pairs adjacent in ``learned``);
    - recall = (pairs adjacent in both) / (pairs adjacent in ``true``).

    A ratio whose denominator is 0 (no edge learned, or none true) is
    undefined and returned as None.

    Parameters
    ----------
    learned, true : PDAG
        Any graphs over the same node names (matched by name); a DAG and its
        CPDAG have the same adjacencies.

    Returns
    -------
    (float or None, float or None)
        ``(precision, recall)``.

    Examples
    --------
    >>> from bnexplore.graphs import DAG
    >>> true = DAG.from_arcs([(0, 1), (1, 2)], 3)
    >>> adjacency_precision_recall(DAG.from_arcs([(1, 0), (0, 2)], 3), true)
    (0.5, 0.5)
    """
    found = pair_states(learned.adj) > 0
    real = pair_states(aligned_adjacency(learned, true)) > 0
    both = int(np.count_nonzero(found & real))
    return fraction(both, int(np.count_nonzero(found))), fraction(both, int(np.count_nonzero(real)))


def arrowhead_precision_recall(learned, true):
    """Arrowhead precision and recall of a learned graph against the true one ([3]_).

    An arrowhead is the head of an arc: ``u -> v`` has one at ``v``; a link
    ``u - v`` has none. Counted wherever they occur, as Tetrad's
    ``ArrowheadPrecision`` and ``ArrowheadRecall`` count them (an arrowhead at
    ``v`` on ``u -> v`` is missed when the true graph has no edge between
    ``u`` and ``v``, the link ``u - v``, or ``u <- v``):

    - precision = (arrowheads in both) / (arrowheads in ``learned``);
    - recall = (arrowheads in both) / (arrowheads in ``true``).

    A ratio whose denominator is 0 is undefined and returned as None. The
    graphs are compared as given: pass CPDAGs (``dag.cpdag()``) to count the
    arrowheads of the equivalence classes, where only compelled arcs have one.

    Parameters
    ----------
    learned, true : PDAG
        Graphs over the same node names (matched by name).

    Returns
    -------
    (float or None, float or None)
        ``(precision, recall)``.

    Examples
    --------
    >>> from bnexplore.graphs import DAG
    >>> true = DAG.from_arcs([(0, 2), (1, 2)], 3).cpdag()   # 0 -> 2 <- 1, both compelled
    >>> arrowhead_precision_recall(DAG.from_arcs([(0, 2), (2, 1)], 3).cpdag(), true)
    (None, 0.0)
    >>> arrowhead_precision_recall(DAG.from_arcs([(0, 2), (1, 2), (0, 1)], 3), true)
    (0.6666666666666666, 1.0)
    """
    a = learned.adj.astype(bool)
    b = aligned_adjacency(learned, true).astype(bool)
    heads_learned, heads_true = a & ~a.T, b & ~b.T
    both = int(np.count_nonzero(heads_learned & heads_true))
    return (fraction(both, int(np.count_nonzero(heads_learned))),
            fraction(both, int(np.count_nonzero(heads_true))))
