"""Node names and adjacency matrices checked at the door of every graph class.

A graph's nodes are ``0..n-1``; its names (one unique string per node) serve only
JSON, printing and error messages. These checks turn bad input into one-line
``SearchError`` messages that name the node, row or column at fault.
"""

import numpy as np

from bnexplore.errors import SearchError


def checked_names(names, n):
    """Default names ``X0..X{n-1}``, or the given names as unique strings.

    Examples
    --------
    >>> checked_names(None, 2)
    ['X0', 'X1']
    >>> checked_names(["a", "a"], 2)
    Traceback (most recent call last):
    ...
    bnexplore.errors.SearchError: node name 'a' appears twice; node names must be unique
    """
    if names is None:
        return [f"X{i}" for i in range(n)]
    names = [str(name) for name in names]
    if len(names) != n:
        raise SearchError(f"got {len(names)} node names for {n} nodes; give one name per node")
    seen = set()
    for name in names:
        if name in seen:
            raise SearchError(f"node name {name!r} appears twice; node names must be unique")
        seen.add(name)
    return names


def names_argument(names):
    """Names from ``names`` given as a node count or as a list of names.

    Examples
    --------
    >>> names_argument(3)
    ['X0', 'X1', 'X2']
    """
    if isinstance(names, (int, np.integer)) and not isinstance(names, bool):
        return checked_names(None, int(names))
    return checked_names(names, len(names))


def checked_adjacency(adj, names):
    """Validated read-only ``uint8`` copy of an adjacency matrix, and its checked names.

    Raises
    ------
    SearchError
        When the matrix is not square, holds values other than 0/1, has a
        self loop, or the names do not fit.

    Examples
    --------
    >>> a, names = checked_adjacency([[0, 1], [0, 0]], None)
    >>> a.dtype.name, a.flags.writeable, names
    ('uint8', False, ['X0', 'X1'])
    """
    try:
        a = np.asarray(adj)
    except ValueError:
        raise SearchError("an adjacency matrix must be square (n x n) "
                          "with rows of equal length") from None
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise SearchError(f"an adjacency matrix must be square (n x n), got shape {a.shape}")
    names = checked_names(names, a.shape[0])
    if a.dtype.kind not in "biuf":
        raise SearchError(f"adjacency entries must be 0 or 1, got values of type {a.dtype}")
    # An integer matrix within 0..1 holds only 0 and 1: two passes that allocate nothing,
    # where looking for the entries at fault would build n x n masks.
    if a.dtype.kind == "f" or (a.size and (a.min() < 0 or a.max() > 1)):
        bad = np.argwhere((a != 0) & (a != 1))
        if len(bad):
            i, j = bad[0]
            raise SearchError(f"adjacency entries must be 0 or 1; found {a[i, j].item()!r} "
                              f"at row {i}, column {j} ({names[i]}, {names[j]})")
    refuse_self_loops(np.flatnonzero(np.diagonal(a)), names)
    a = np.array(a, dtype=np.uint8, order="C")
    a.flags.writeable = False
    return a, names


def refuse_self_loops(loops, names):
    """Raise a ``SearchError`` naming the smallest of ``loops``, the nodes with a self loop, if any.

    Examples
    --------
    >>> refuse_self_loops([], ["a", "b"])
    >>> refuse_self_loops([1], ["a", "b"])
    Traceback (most recent call last):
    ...
    bnexplore.errors.SearchError: node b has a self loop; a node cannot be its own parent
    """
    if len(loops):
        raise SearchError(f"node {names[min(loops)]} has a self loop; "
                          "a node cannot be its own parent")


def resolve_node(node, names, index, where):
    """Node index of ``node`` given as an int index or as a name.

    Parameters
    ----------
    node : int or str
    names : list of str
    index : dict
        ``{name: index}`` of ``names``.
    where : str
        What the node is part of, for the error message.

    Examples
    --------
    >>> resolve_node("b", ["a", "b"], {"a": 0, "b": 1}, "arc")
    1
    """
    if isinstance(node, (int, np.integer)) and not isinstance(node, bool):
        if 0 <= node < len(names):
            return int(node)
        raise SearchError(f"{where}: node index {node} is out of range 0..{len(names) - 1}")
    if isinstance(node, str) and node in index:
        return index[node]
    raise SearchError(f"{where}: unknown node {node!r}; use one of the graph's node names "
                      f"or an index 0..{len(names) - 1}")
