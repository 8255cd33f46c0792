"""GeNIe XDSL (the XML of BayesFusion's SMILE and GeNIe): reading and writing a :class:`~bnexplore.bif.Network`.

A file::

    <smile version="1.0" id="asia" numsamples="10000" discsamples="10000">
      <nodes>
        <cpt id="tub"><state id="yes"/><state id="no"/><parents>asia</parents>
          <probabilities>0.05 0.95 0.01 0.99</probabilities></cpt>
      </nodes>
      <extensions><genie version="1.0" app="..." name="Asia">
        <node id="tub"><name>Tuberculosis?</name>...<position>40 120 160 160</position></node>
      </genie></extensions>
    </smile>

Decisions, each enforced by :func:`read_xdsl` and :func:`write_xdsl`:

- ``probabilities`` lists the child's states fastest within each parent configuration, the parents in their
  listed order with the last one fastest (GeNIe's own files and pgmpy; pyAgrum 3.3 reads and writes the first
  parent fastest, a difference the tests pin).
- Node and state ids are identifiers (:func:`xdsl_id`: a letter, then letters, digits, ``_``), as GeNIe
  requires; a name that is not one is written as one. GeNIe shows the node's ``<name>`` in the ``genie``
  extension, so the original name is written there; the originals bnexplore reads back are kept in XML
  comments before ``<smile>`` (where GeNIe writes its own comment, so its parser surely skips them, as pgmpy's
  and pyAgrum's do): ``<!-- bnexplore_network NAME -->``, ``<!-- bnexplore_name ID NAME -->`` and
  ``<!-- bnexplore_states ID S1,S2,... -->``, percent-encoded. A file from another tool keeps its ids as names.
- GeNIe needs every parent before its children, so nodes are written in a topological order; when that is not
  the network's, ``<!-- bnexplore_order ID ID ... -->`` keeps the network's order for :func:`read_xdsl`.
- The ``genie`` extension places the nodes on a grid, a row per generation (roots first), ten to a row.
- Chance nodes are read: ``cpt``, and ``deterministic`` (a table of zeros and ones); other kinds of node
  (noisy-MAX, equations, decisions, utilities) are refused with their line.
"""

import math
import re
import unicodedata
from xml.sax.saxutils import escape

import numpy as np

from bnexplore.bif import network_text, save_text, unique_names
from bnexplore.bif.network import parent_order
from bnexplore.errors import BIFError
from bnexplore.formats.xmlnet import TableBudget, decoded, encoded, network_of, parse_xml, table_of, xml_holds

__all__ = ["looks_like", "read_xdsl", "write_xdsl", "xdsl_id"]

KIND = "XDSL"
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_NOT_IN_IDS = re.compile(r"[^A-Za-z0-9_]+")
_PROLOGUE = re.compile(r"\A\ufeff?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--.*?-->\s*)*<smile[\s>/]", re.DOTALL)
_MARKER = re.compile(r"\s*bnexplore_(network|order|name|states)\s+(\S.*?)\s*\Z", re.DOTALL)
_ATTRIBUTE = {'"': "&quot;"}
COLUMNS = 10
"""Most nodes a row of the written layout holds, so a wide generation wraps onto more rows."""


def looks_like(text):
    """Whether ``text``, the start of a file, is XDSL: its root element (after the XML declaration and
    comments) is ``<smile``.

    Examples
    --------
    >>> looks_like('<?xml version="1.0"?>\\n<!-- by GeNIe -->\\n<smile version="1.0" id="n">'), looks_like("<BIF>")
    (True, False)
    """
    return bool(_PROLOGUE.match(text))


def xdsl_id(label, state=False):
    """The id ``label`` is written under in XDSL: itself when it is an identifier GeNIe takes (a letter, then
    letters, digits and ``_``), else one made from it: accents dropped, every run of other characters made
    ``_`` (``_`` at the ends dropped), and ``v_`` (a variable) or ``s_`` (a state) in front when it does not
    start with a letter.

    Examples
    --------
    >>> xdsl_id("(-inf, 5.667]", state=True), xdsl_id("1st"), xdsl_id("Größe"), xdsl_id("", state=True)
    ('inf_5_667', 'v_1st', 'Groe', 's')
    """
    if _IDENTIFIER.match(label):
        return label
    text = "".join(c for c in unicodedata.normalize("NFKD", label) if not unicodedata.combining(c))
    text = _NOT_IN_IDS.sub("_", text.encode("ascii", "ignore").decode()).strip("_")
    if _IDENTIFIER.match(text):
        return text
    prefix = "s" if state else "v"
    return f"{prefix}_{text}" if text else prefix


def read_xdsl(source):
    """Read a discrete Bayesian network in GeNIe's XDSL.

    Parameters
    ----------
    source : str, pathlib.Path or file-like
        A path (``.xdsl``, plain or ``.gz``), the XML text (a ``str`` holding ``<``), or an open file.

    Returns
    -------
    Network
        Named by the ``smile`` element's ``id``, else the file's name, else "unknown"; variables by their ids.

    Raises
    ------
    BIFError
        If the file cannot be read or is malformed; the message names the element and its line.

    Examples
    --------
    >>> net = read_xdsl('<smile version="1.0" id="coin"><nodes><cpt id="side"><state id="heads"/>'
    ...                 '<state id="tails"/><probabilities>0.4 0.6</probabilities></cpt></nodes></smile>')
    >>> net, net.states, net.cpts[0].tolist()
    (Network('coin', 1 variables, 0 arcs), [['heads', 'tails']], [0.4, 0.6])
    """
    text, default_name = network_text(source, KIND, (".xdsl",), text_marks=("<",))
    root = parse_xml(text, KIND)
    if root.tag != "smile":
        raise BIFError(f"{KIND} line {root.line}: the root element is <{root.tag[:30]}>, not <smile>; is this a "
                       "GeNIe XDSL file?")
    return _Reader(root, default_name).network()


def _markers(root):
    """The bnexplore markers among the comments of the root: {(what, node id or None): (line, value)}."""
    found = {}
    for body, line in root.comments:
        match = _MARKER.match(body)
        if match is None:
            continue
        what, value = match.groups()
        node_id = None
        if what in ("name", "states"):
            node_id, _, value = value.partition(" ")
            value = value.strip()
        if (what, node_id) in found:
            raise BIFError(f"{KIND} line {line}: a second 'bnexplore_{what}' comment"
                           f"{'' if node_id is None else f' for {node_id!r}'}; keep one")
        found[what, node_id] = (line, value)
    return found


class _Reader:
    """The nodes of one ``<smile>`` element, checked as they are read."""

    def __init__(self, root, default_name):
        self.root = root
        self.default_name = default_name
        self.ids, self.states, self.lines, self.column, self.nodes = [], [], [], {}, []

    def fail(self, line, message):
        raise BIFError(f"{KIND} line {line}: {message}")

    def network(self):
        nodes = self.root.findall("nodes")
        if len(nodes) != 1:
            self.fail(self.root.line, f"<smile> holds {len(nodes)} <nodes> elements; give it one")
        for node in nodes[0].children:
            if node.tag not in ("cpt", "deterministic"):
                self.fail(node.line, f"<{node.tag[:30]}> is a kind of node bnexplore does not read (it reads "
                                     "chance nodes: <cpt> and <deterministic>); turn it into a CPT in GeNIe")
            self.declare(node)
        if not self.ids:
            self.fail(nodes[0].line, "the network has no nodes; give it at least one <cpt>")
        budget = TableBudget(KIND)
        parents, cpts = [], []
        for v, node in enumerate(self.nodes):
            parents.append(self.parents_of(node, v))
            cpts.append(self.table_of(node, v, parents[v], budget))
        markers = _markers(self.root)
        names, states = self.restored(markers)
        order = self.order(markers)
        where = {v: k for k, v in enumerate(order)}
        name = self.root.attrib.get("id", "").strip()
        if name in ("", "unknown") and self.default_name:
            name = self.default_name
        if ("network", None) in markers:
            line, value = markers["network", None]
            name = decoded(value, KIND, line, "bnexplore_network")
        return network_of(KIND, name or "unknown", [names[v] for v in order], [states[v] for v in order],
                          [[where[p] for p in parents[v]] for v in order], [cpts[v] for v in order],
                          [self.lines[v] for v in order], [self.lines[v] for v in order])

    def declare(self, node):
        node_id = node.attrib.get("id", "").strip()
        if not node_id:
            self.fail(node.line, f"a <{node.tag}> without an id; give it id=\"...\"")
        if node_id in self.column:
            self.fail(node.line, f"node {node_id!r} is declared twice (first on line "
                                 f"{self.lines[self.column[node_id]]}); remove one")
        states = [state.attrib.get("id", "").strip() for state in node.findall("state")]
        if not states or not all(states):
            self.fail(node.line, f"node {node_id!r} needs <state id=\"...\"/> elements, each with an id")
        self.column[node_id] = len(self.ids)
        self.ids.append(node_id)
        self.states.append(states)
        self.lines.append(node.line)
        self.nodes.append(node)

    def parents_of(self, node, v):
        found = node.findall("parents")
        if len(found) > 1:
            self.fail(found[1].line, f"node {self.ids[v]!r} has two <parents> elements; keep one")
        if not found:
            return []
        parents = []
        for parent_id in found[0].text.split():
            if parent_id not in self.column:
                self.fail(found[0].line, f"<parents> of {self.ids[v]!r} names {parent_id[:60]!r}, which no node "
                                         "declares; declare it or fix the id")
            parent = self.column[parent_id]
            if parent in parents or parent == v:
                self.fail(found[0].line, f"<parents> of {self.ids[v]!r} lists {parent_id!r} twice or itself; list "
                                         "each parent once")
            parents.append(parent)
        return parents

    def table_of(self, node, v, parents, budget):
        shape = tuple(len(self.states[p]) for p in parents) + (len(self.states[v]),)
        tag = "probabilities" if node.tag == "cpt" else "resultingstates"
        found = node.findall(tag)
        if len(found) != 1:
            self.fail(node.line, f"node {self.ids[v]!r} holds {len(found)} <{tag}> elements; give it one")
        if tag == "probabilities":
            return table_of(found[0].text, shape, budget, found[0].line, self.ids[v])
        return self.deterministic(found[0], v, shape, budget)

    def deterministic(self, element, v, shape, budget):
        """The table of zeros and ones of a deterministic node: one state id a parent configuration."""
        budget.take(math.prod(shape), element.line, self.ids[v])
        chosen = element.text.split()
        index = {state: k for k, state in enumerate(self.states[v])}
        if len(chosen) != math.prod(shape[:-1]) or not all(state in index for state in chosen):
            self.fail(element.line, f"<resultingstates> of {self.ids[v]!r} must give one of its states for each "
                                    f"of its {math.prod(shape[:-1])} parent configurations")
        table = np.zeros((len(chosen), shape[-1]))
        table[np.arange(len(chosen)), [index[state] for state in chosen]] = 1.0
        return table.reshape(shape)

    def restored(self, markers):
        """The ids and states with the originals of the bnexplore comments put back."""
        names, states = list(self.ids), list(self.states)
        for (what, node_id), (line, value) in markers.items():
            if what not in ("name", "states"):
                continue
            if node_id not in self.column:
                self.fail(line, f"'bnexplore_{what}' names node {node_id[:60]!r}, which the file does not declare; "
                                "fix or remove it")
            v = self.column[node_id]
            if what == "name":
                names[v] = decoded(value, KIND, line, "bnexplore_name")
            else:
                labels = [decoded(piece, KIND, line, "bnexplore_states") for piece in value.split(",")]
                if len(labels) != len(states[v]):
                    self.fail(line, f"'bnexplore_states' of node {self.ids[v]!r} lists {len(labels)} names for its "
                                    f"{len(states[v])} states; give one per state")
                states[v] = labels
        return names, states

    def order(self, markers):
        """The variables in the order of the ``bnexplore_order`` comment, else the file's."""
        if ("order", None) not in markers:
            return list(range(len(self.ids)))
        line, value = markers["order", None]
        ids = value.split()
        if sorted(ids) != sorted(self.ids):
            self.fail(line, "'bnexplore_order' does not list every node id once; fix or remove it")
        return [self.column[node_id] for node_id in ids]


def write_xdsl(network, path=None):
    """Write a network as GeNIe XDSL that GeNIe, pgmpy, pyAgrum and :func:`read_xdsl` read.

    Ids are :func:`xdsl_id` of the names and states (unique within their kind); the ``genie`` extension shows
    the original names and lays the nodes out on a grid; the originals that ids change are kept in
    ``bnexplore_`` comments before ``<smile>``. Nodes are written parents first. Probabilities are written
    with ``repr`` (the shortest text that reads back as the same float), the child's states fastest.

    Parameters
    ----------
    network : Network
    path : str or pathlib.Path, optional
        File to write; gzipped when the name ends with ``.gz``.

    Returns
    -------
    str
        The XML text.

    Examples
    --------
    >>> from bnexplore.bif import Network
    >>> net = Network("n", ["x y"], [["yes", "<missing>"]], [[]], [[0.25, 0.75]])
    >>> print(write_xdsl(net))  # doctest: +NORMALIZE_WHITESPACE
    <?xml version="1.0" encoding="UTF-8"?>
    <!-- bnexplore_name x_y x%20y -->
    <!-- bnexplore_states x_y yes,%3Cmissing%3E -->
    <smile version="1.0" id="n" numsamples="10000" discsamples="10000">
      <nodes>
        <cpt id="x_y">
          <state id="yes" />
          <state id="missing" />
          <probabilities>0.25 0.75</probabilities>
        </cpt>
      </nodes>
      <extensions>
        <genie version="1.0" app="bnexplore" name="n">
          <node id="x_y">
            <name>x y</name>
            <interior color="e5f6f7" />
            <outline color="000080" />
            <font color="000000" name="Arial" size="10" />
            <position>30 30 150 70</position>
          </node>
        </genie>
      </extensions>
    </smile>
    >>> read_xdsl(write_xdsl(net)).states
    [['yes', '<missing>']]
    """
    ids = unique_names(network.names, name=xdsl_id, ignore_case=False)
    states = [unique_names(labels, state=True, name=xdsl_id, ignore_case=False) for labels in network.states]
    title = xdsl_id(network.name)
    order, _ = parent_order(network.parents)
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    if title != network.name:
        parts.append(f"<!-- bnexplore_network {encoded(network.name)} -->\n")
    if order != list(range(network.n_vars)):
        parts.append(f"<!-- bnexplore_order {' '.join(ids)} -->\n")
    for v in range(network.n_vars):
        if ids[v] != network.names[v]:
            parts.append(f"<!-- bnexplore_name {ids[v]} {encoded(network.names[v])} -->\n")
        if states[v] != network.states[v]:
            parts.append(f"<!-- bnexplore_states {ids[v]} {','.join(map(encoded, network.states[v]))} -->\n")
    parts.append(f'<smile version="1.0" id="{title}" numsamples="10000" discsamples="10000">\n  <nodes>\n')
    for v in order:
        parts.append(f'    <cpt id="{ids[v]}">\n')
        parts.extend(f'      <state id="{state}" />\n' for state in states[v])
        if network.parents[v]:
            parts.append(f"      <parents>{' '.join(ids[p] for p in network.parents[v])}</parents>\n")
        probabilities = " ".join(map(repr, network.cpts[v].ravel().tolist()))
        parts.append(f"      <probabilities>{probabilities}</probabilities>\n    </cpt>\n")
    parts.append("  </nodes>\n")
    parts.append(_genie(network, ids, order))
    parts.append("</smile>\n")
    text = "".join(parts)
    return save_text(text, path)


def _shown(label, written):
    """What GeNIe shows for ``label``: itself, or its id when XML cannot keep it."""
    return escape(label if xml_holds(label) else written, _ATTRIBUTE)


def _genie(network, ids, order):
    """The ``<extensions>`` block: GeNIe's names of the nodes and their places on a grid, a row per generation."""
    generation = [0] * network.n_vars
    for v in order:
        generation[v] = max((generation[p] + 1 for p in network.parents[v]), default=0)
    rows = {}
    for v in order:
        rows.setdefault(generation[v], []).append(v)
    places, row = {}, 0
    for g in sorted(rows):
        for start in range(0, len(rows[g]), COLUMNS):
            for column, v in enumerate(rows[g][start:start + COLUMNS]):
                places[v] = (30 + 160 * column, 30 + 90 * row)
            row += 1
    parts = ["  <extensions>\n",
             f'    <genie version="1.0" app="bnexplore" name="{_shown(network.name, xdsl_id(network.name))}">\n']
    for v in order:
        x, y = places[v]
        parts.append(f'      <node id="{ids[v]}">\n        <name>{_shown(network.names[v], ids[v])}</name>\n'
                     '        <interior color="e5f6f7" />\n        <outline color="000080" />\n'
                     '        <font color="000000" name="Arial" size="10" />\n'
                     f"        <position>{x} {y} {x + 120} {y + 40}</position>\n      </node>\n")
    parts.append("    </genie>\n  </extensions>\n")
    return "".join(parts)
