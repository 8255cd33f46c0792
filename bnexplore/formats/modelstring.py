"""bnlearn's model strings: a graph as ``[A][B|A][C|A:B]``, read into a :class:`~bnexplore.graphs.DAG` and written.

Each node is one block in square brackets: its name, then, when it has
parents, ``|`` and the parents separated by ``:`` (bnlearn's ``modelstring()``
and ``model2network()``, from the deal package). Every node has its own block;
a parent may be declared before or after its child.

Decisions, each enforced by :func:`read_modelstring`:

- Names are taken as written between the delimiters (bnlearn does not trim
  them either); white space between blocks is skipped, so a string wrapped over
  lines or ending with a newline reads the same.
- bnlearn writes names as they are, and its own checker refuses a name holding
  ``[``, ``]``, ``|`` or ``:``. bnexplore writes those four characters, ``%``
  and control characters (newline, tab...) percent-encoded (``[`` as ``%5B``,
  ``%`` as ``%25``) and reads every ``%XX`` back, so any name goes through and
  a string stays on one line; a ``%`` not followed by two hex digits is kept as
  it is. A name bnlearn takes is written unchanged.
- Nodes keep the order of their blocks (bnlearn sorts them by name unless told
  an ordering); :func:`write_modelstring` writes them in the network's order,
  so a round trip gives the same DAG.
- A graph is refused before its ``n x n`` matrix is made when that would take
  more than the expansion bound of :mod:`bnexplore.limits`.
- A bad string is refused with the character at fault (counted from 1) and
  what is wrong there.
"""

import re
from urllib.parse import unquote

from bnexplore.bif import Network, network_text, save_text
from bnexplore.bif.network import cycle_text, parent_order
from bnexplore.errors import BIFError, ResourceError
from bnexplore.graphs import DAG
from bnexplore.limits import advice, max_expanded_bytes

__all__ = ["looks_like", "read_modelstring", "write_modelstring"]

MATRIX_BYTES_PER_CELL = 8
"""Bytes a DAG holds per cell of its ``n x n`` matrix (the matrix and the copies its checks make), for the bound."""

_START = re.compile(r"\A\s*\[[^\[\]]*\]")
_ESCAPED = re.compile(r"[%\[\]|:\x00-\x1f\x7f]")
_DELIMITER = re.compile(r"[\[\]]")


def looks_like(text):
    """Whether ``text``, the start of a file, is a model string: its first block ``[...]`` closes.

    Examples
    --------
    >>> looks_like("[asia][tub|asia]"), looks_like("network asia {")
    (True, False)
    """
    return bool(_START.match(text))


def read_modelstring(source):
    """Read a bnlearn model string as a DAG.

    Parameters
    ----------
    source : str, pathlib.Path or file-like
        A path (plain or ``.gz``); the model string itself (a ``str`` holding
        a ``[``); or an open file.

    Returns
    -------
    DAG
        Nodes in the order of their blocks.

    Raises
    ------
    BIFError
        If the string is malformed: the message names the character (counted
        from 1) and what is wrong: unbalanced brackets, a node declared twice,
        a parent never declared, a cycle.
    ResourceError
        If the text or the graph's matrix would pass the bounds of :mod:`bnexplore.limits`.

    Examples
    --------
    >>> dag = read_modelstring("[asia][smoke][tub|asia][lung|smoke][bronc|smoke][either|tub:lung]"
    ...                        "[xray|either][dysp|bronc:either]")
    >>> dag.names[:3], [dag.names[p] for p in dag.parents(dag.index("dysp"))]
    (['asia', 'smoke', 'tub'], ['bronc', 'either'])
    >>> read_modelstring("[a|b][b|a]")
    Traceback (most recent call last):
    ...
    bnexplore.errors.BIFError: model string character 6: the parents form a cycle b -> a -> b; remove one arc
    """
    text, _ = network_text(source, "model string", (".modelstring",), text_marks=("[",))
    names, parents, starts = _blocks(text)
    if not names:
        raise BIFError("model string character 1: no node; a model string lists every node as [name] or "
                       "[name|parent1:parent2]")
    n = len(names)
    if n * n * MATRIX_BYTES_PER_CELL > max_expanded_bytes():
        raise ResourceError(f"the model string declares {n:,} nodes, whose graph matrix would pass the "
                            f"{max_expanded_bytes() / (1 << 20):,.1f} MB limit of this server ({advice()}); "
                            "nothing was allocated")
    column = {name: v for v, name in enumerate(names)}
    indices = []
    for v, listed in enumerate(parents):
        found = []
        for parent, at in listed:
            if parent not in column:
                _fail(text, at, f"parent {parent!r} of {names[v]!r} is never declared; add a block [{parent}]")
            if column[parent] == v:
                _fail(text, at, f"{names[v]!r} is listed as its own parent; remove it")
            if column[parent] in found:
                _fail(text, at, f"parent {parent!r} of {names[v]!r} is listed twice; list it once")
            found.append(column[parent])
        indices.append(found)
    _, cycle = parent_order(indices)
    if cycle:
        _fail(text, starts[cycle[0]], f"the parents form a cycle {cycle_text(cycle, names)}; remove one arc")
    return DAG.from_parents(indices, names)


def _fail(text, at, message):
    raise BIFError(f"model string character {at + 1}: {message}")


def _blocks(text):
    """Names, parent lists ``[(name, offset)]`` and block offsets of every ``[...]`` block, in one pass."""
    names, parents, starts, seen = [], [], [], {}
    at = 0
    while (match := _DELIMITER.search(text, at)) is not None:
        where = match.start()
        between = text[at:where]
        if match.group() == "]":
            _fail(text, where, "']' closes no block; remove it or add the missing '['")
        if between.strip():
            skipped = len(between) - len(between.lstrip())
            _fail(text, at + skipped, f"expected '[', found {between.strip()[:30]!r}; every node is a block "
                                      "[name|parents]")
        close = _DELIMITER.search(text, where + 1)
        if close is None or close.group() == "[":
            _fail(text, where, "this block's '[' is never closed; add ']'")
        written, bar, rest = text[where + 1:close.start()].partition("|")
        name = _decoded(text, where + 1, written)
        if name in seen:
            _fail(text, where, f"node {name!r} is declared twice (first at character {seen[name] + 1}); keep one "
                               "block per node")
        seen[name] = where
        listed = []
        offset = where + 1 + len(written) + 1
        for piece in rest.split(":") if bar else ():
            listed.append((_decoded(text, offset, piece), offset))
            offset += len(piece) + 1
        names.append(name)
        parents.append(listed)
        starts.append(where)
        at = close.end()
    if text[at:].strip():
        rest = text[at:]
        _fail(text, at + len(rest) - len(rest.lstrip()), f"expected '[', found {rest.strip()[:30]!r} after the "
                                                          "last block")
    return names, parents, starts


def _decoded(text, at, piece):
    """A name as written at offset ``at``, its ``%XX`` escapes decoded."""
    if not piece:
        _fail(text, at, "an empty name; give every node and parent a name")
    try:
        return unquote(piece, errors="strict")
    except UnicodeDecodeError:
        _fail(text, at, f"{piece[:30]!r} holds a %-escape that is not UTF-8; write '%' as %25")


def _encoded(name):
    """``name`` with the characters a model string cannot hold percent-encoded (UTF-8)."""
    return _ESCAPED.sub(lambda m: "".join(f"%{byte:02X}" for byte in m.group().encode("utf-8")), name)


def write_modelstring(network_or_dag, path=None):
    """Write a network's graph as a bnlearn model string.

    Nodes are written in the network's order, each parent list in the
    network's parent order (a DAG's ascending); names holding ``[ ] | :``,
    ``%`` or a control character are percent-encoded there (see the module
    docstring), so :func:`read_modelstring` gives back the same DAG.

    Parameters
    ----------
    network_or_dag : Network or DAG
    path : str or pathlib.Path, optional
        File to write (gzipped when the name ends with ``.gz``); it holds
        exactly the returned text.

    Returns
    -------
    str

    Examples
    --------
    >>> from bnexplore.graphs import DAG
    >>> write_modelstring(DAG.from_arcs([("a", "b:c"), ("x [1]", "b:c")], ["a", "b:c", "x [1]"]))
    '[a][b%3Ac|a:x %5B1%5D][x %5B1%5D]'
    """
    if isinstance(network_or_dag, Network):
        names, parents = network_or_dag.names, network_or_dag.parents
    elif isinstance(network_or_dag, DAG):
        names = network_or_dag.names
        parents = [network_or_dag.parents(v) for v in range(network_or_dag.n)]
    else:
        raise BIFError(f"a model string is written from a Network or a DAG, not a {type(network_or_dag).__name__}")
    if "" in names:
        raise BIFError(f"node {names.index('')} has an empty name, which a model string cannot hold; name it")
    written = [_encoded(name) for name in names]
    text = "".join(f"[{written[v]}{'|' if ps else ''}{':'.join(written[p] for p in ps)}]"
                   for v, ps in enumerate(parents))
    return save_text(text, path)
