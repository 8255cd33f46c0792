"""XMLBIF 0.3 (Cozman's XML Interchange Format, as JavaBayes, Weka, pgmpy and pyAgrum write it): reading and
writing a :class:`~bnexplore.bif.Network`.

A file::

    <BIF VERSION="0.3"><NETWORK><NAME>asia</NAME>
      <VARIABLE TYPE="nature"><NAME>tub</NAME><OUTCOME>yes</OUTCOME><OUTCOME>no</OUTCOME></VARIABLE>
      <DEFINITION><FOR>tub</FOR><GIVEN>asia</GIVEN><TABLE>0.05 0.95 0.01 0.99</TABLE></DEFINITION>
    </NETWORK></BIF>

Decisions, each enforced by :func:`read_xmlbif` and :func:`write_xmlbif`:

- ``TABLE`` lists the child's states fastest within each parent configuration, the ``GIVEN`` parents in
  their order with the last one fastest (pgmpy's and pyAgrum's readers and writers, checked by tests).
- XML holds any text, and pgmpy and pyAgrum read names as written, so names and states are written as they
  are; only one XML cannot keep exactly (:func:`~bnexplore.formats.xmlnet.xml_holds`: empty, white space at an
  end, control characters) is written as :func:`~bnexplore.bif.bif_name` makes it, the original kept in
  ``<PROPERTY>bnexplore_name = ...</PROPERTY>`` / ``bnexplore_states = s1,s2,...`` (percent-encoded), which
  other readers keep as a property and :func:`read_xmlbif` reads back.
- Only ``TYPE="nature"`` variables (decision and utility nodes belong to influence diagrams); other
  ``PROPERTY`` elements (positions) are skipped; a DOCTYPE of element declarations is read, an ENTITY refused.
"""

import re
from xml.sax.saxutils import escape

from bnexplore.bif import bif_name, network_text, save_text, unique_names
from bnexplore.errors import BIFError
from bnexplore.formats.xmlnet import TableBudget, decoded, encoded, network_of, parse_xml, table_of, xml_holds

__all__ = ["looks_like", "read_xmlbif", "write_xmlbif", "xmlbif_name"]

KIND = "XMLBIF"
_ENDINGS = (".xml", ".xmlbif", ".bifxml")
_PROLOGUE = re.compile(r"\A\ufeff?\s*(?:<\?xml[^>]*\?>\s*)?(?:(?:<!--.*?-->|<!DOCTYPE[^\[>]*(?:\[.*?\])?\s*>)\s*)*"
                       r"<BIF[\s>/]", re.DOTALL)
_ORIGINAL = re.compile(r"\s*bnexplore_(name|states)\s*=\s*(\S*)\s*\Z")


def looks_like(text):
    """Whether ``text``, the start of a file, is XMLBIF: its root element (after the XML declaration,
    comments and a DOCTYPE) is ``<BIF``.

    Examples
    --------
    >>> looks_like('<?xml version="1.0"?>\\n<!-- DTD -->\\n<BIF VERSION="0.3">'), looks_like("<smile>")
    (True, False)
    """
    return bool(_PROLOGUE.match(text))


def xmlbif_name(label, state=False):
    """The name ``label`` is written under in XMLBIF: itself when XML keeps it exactly, else
    :func:`~bnexplore.bif.bif_name` of it.

    Examples
    --------
    >>> xmlbif_name("(-inf, 5.667]"), xmlbif_name(""), xmlbif_name(" x ")
    ('(-inf, 5.667]', '_', 'x')
    """
    return label if xml_holds(label) else bif_name(label, state)


def read_xmlbif(source):
    """Read a discrete Bayesian network in XMLBIF 0.3.

    Parameters
    ----------
    source : str, pathlib.Path or file-like
        A path (``.xml``, ``.xmlbif``, ``.bifxml``, plain or ``.gz``), the XML text (a ``str`` holding ``<``),
        or an open file.

    Returns
    -------
    Network
        Named by the file's ``<NAME>``, else the file's name, else "unknown".

    Raises
    ------
    BIFError
        If the file cannot be read or is malformed; the message names the element and its line.

    Examples
    --------
    >>> net = read_xmlbif('<BIF VERSION="0.3"><NETWORK><NAME>coin</NAME>'
    ...                   '<VARIABLE TYPE="nature"><NAME>side</NAME><OUTCOME>heads</OUTCOME><OUTCOME>tails</OUTCOME>'
    ...                   '</VARIABLE><DEFINITION><FOR>side</FOR><TABLE>0.4 0.6</TABLE></DEFINITION></NETWORK></BIF>')
    >>> net, net.states, net.cpts[0].tolist()
    (Network('coin', 1 variables, 0 arcs), [['heads', 'tails']], [0.4, 0.6])
    """
    text, default_name = network_text(source, KIND, _ENDINGS, text_marks=("<",))
    root = parse_xml(text, KIND)
    if root.tag != "BIF":
        raise BIFError(f"{KIND} line {root.line}: the root element is <{root.tag[:30]}>, not <BIF>; is this an "
                       "XMLBIF file?")
    networks = root.findall("NETWORK")
    if len(networks) != 1:
        raise BIFError(f"{KIND} line {root.line}: <BIF> holds {len(networks)} <NETWORK> elements; give it one")
    return _Reader(networks[0], default_name).network()


class _Reader:
    """The variables and definitions of one ``<NETWORK>`` element, checked as they are read."""

    def __init__(self, element, default_name):
        self.element = element
        self.default_name = default_name
        self.names, self.states, self.lines, self.column = [], [], [], {}
        self.originals = {}

    def fail(self, line, message):
        raise BIFError(f"{KIND} line {line}: {message}")

    def text_of(self, parent, tag, what):
        """The stripped text of the one ``tag`` child of ``parent``."""
        found = parent.findall(tag)
        if len(found) != 1:
            self.fail(parent.line, f"<{parent.tag}> holds {len(found)} <{tag}> elements; give it one ({what})")
        return found[0].text.strip()

    def network(self):
        name_element = self.element.find("NAME")
        name = name_element.text.strip() if name_element is not None else ""
        if name in ("", "unknown", "UNTITLED") and self.default_name:
            name = self.default_name
        original_name = self.original(self.element, None)
        for variable in self.element.findall("VARIABLE"):
            self.variable(variable)
        if not self.names:
            self.fail(self.element.line, "the network declares no <VARIABLE>; give it at least one")
        parents, cpts, table_lines = {}, {}, {}
        budget = TableBudget(KIND)
        for definition in self.element.findall("DEFINITION"):
            child, parent_list, table = self.definition(definition, budget, cpts)
            parents[child], cpts[child], table_lines[child] = parent_list, table, definition.line
        for v, label in enumerate(self.names):
            if v not in cpts:
                self.fail(self.lines[v], f"variable {label!r} has no <DEFINITION>; add one with its <TABLE>")
        names, states = self.restored()
        return network_of(KIND, original_name or name or "unknown", names, states,
                          [parents[v] for v in range(len(names))], [cpts[v] for v in range(len(names))], self.lines,
                          [table_lines[v] for v in range(len(names))])

    def variable(self, element):
        kind = element.attrib.get("TYPE", "nature")
        name = self.text_of(element, "NAME", "the variable's name")
        if kind != "nature":
            self.fail(element.line, f"variable {name!r} is of TYPE {kind!r}; bnexplore reads chance variables "
                                    "(TYPE=\"nature\") only")
        if name in self.column:
            self.fail(element.line, f"variable {name!r} is declared twice (first on line "
                                    f"{self.lines[self.column[name]]}); remove one")
        states = [outcome.text.strip() for outcome in element.findall("OUTCOME")]
        if not states:
            self.fail(element.line, f"variable {name!r} has no <OUTCOME>; list its states")
        self.column[name] = len(self.names)
        self.names.append(name)
        self.states.append(states)
        self.lines.append(element.line)
        self.original(element, len(self.names) - 1)

    def original(self, element, v):
        """Keep the originals of ``bnexplore_name`` / ``bnexplore_states`` properties of variable ``v`` (None:
        the network), returning the network's original name."""
        found = None
        for prop in element.findall("PROPERTY"):
            match = _ORIGINAL.match(prop.text)
            if match is None:
                continue
            what, value = match.groups()
            if (v, what) in self.originals or (v is None and what == "states"):
                self.fail(prop.line, f"a second or misplaced 'bnexplore_{what}' property; keep one per variable")
            labels = [decoded(piece, KIND, prop.line, f"bnexplore_{what}") for piece in value.split(",")]
            if what == "name" and len(labels) != 1:
                self.fail(prop.line, "'bnexplore_name' holds one name, percent-encoded; fix or remove it")
            self.originals[v, what] = (prop.line, labels)
            found = labels[0] if v is None else found
        return found

    def restored(self):
        """The names and states with the originals of the bnexplore properties put back."""
        names, states = list(self.names), list(self.states)
        for (v, what), (line, labels) in self.originals.items():
            if v is None:
                continue
            if what == "name":
                names[v] = labels[0]
            elif len(labels) != len(states[v]):
                self.fail(line, f"'bnexplore_states' of variable {self.names[v]!r} lists {len(labels)} names for "
                                f"its {len(states[v])} states; give one per state")
            else:
                states[v] = labels
        return names, states

    def definition(self, element, budget, done):
        child_name = self.text_of(element, "FOR", "the variable the table is for")
        child = self.known(child_name, element, "<FOR>")
        if child in done:
            self.fail(element.line, f"a second <DEFINITION> for {child_name!r}; remove one")
        parents = []
        for given in element.findall("GIVEN"):
            parent = self.known(given.text.strip(), given, "<GIVEN>")
            if parent in parents or parent == child:
                self.fail(given.line, f"<GIVEN> {given.text.strip()!r} is listed twice for {child_name!r}; list "
                                      "each parent once")
            parents.append(parent)
        tables = element.findall("TABLE")
        if len(tables) != 1:
            self.fail(element.line, f"the <DEFINITION> of {child_name!r} holds {len(tables)} <TABLE> elements; "
                                    "give it one")
        shape = tuple(len(self.states[p]) for p in parents) + (len(self.states[child]),)
        return child, parents, table_of(tables[0].text, shape, budget, tables[0].line, child_name)

    def known(self, name, element, what):
        if name not in self.column:
            self.fail(element.line, f"{what} names {name[:60]!r}, which no <VARIABLE> declares; declare it or fix "
                                    "the name")
        return self.column[name]


def write_xmlbif(network, path=None):
    """Write a network as XMLBIF 0.3 that pgmpy, pyAgrum and :func:`read_xmlbif` read.

    Names and states are written as they are (XML-escaped); one XML cannot keep exactly is written as
    :func:`xmlbif_name` makes it (unique within its kind) and its original kept in a ``bnexplore_name`` /
    ``bnexplore_states`` ``<PROPERTY>``. Probabilities are written with ``repr`` (the shortest text that reads
    back as the same float), one parent configuration a line, the child's states fastest.

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
    >>> net = Network("n", ["x<y"], [["a", " "]], [[]], [[0.25, 0.75]])
    >>> print(write_xmlbif(net))  # doctest: +NORMALIZE_WHITESPACE
    <?xml version="1.0" encoding="UTF-8"?>
    <BIF VERSION="0.3">
    <NETWORK>
    <NAME>n</NAME>
    <VARIABLE TYPE="nature">
        <NAME>x&lt;y</NAME>
        <OUTCOME>a</OUTCOME>
        <OUTCOME>_</OUTCOME>
        <PROPERTY>bnexplore_states = a,%20</PROPERTY>
    </VARIABLE>
    <DEFINITION>
        <FOR>x&lt;y</FOR>
        <TABLE>0.25 0.75</TABLE>
    </DEFINITION>
    </NETWORK>
    </BIF>
    >>> read_xmlbif(write_xmlbif(net)).states
    [['a', ' ']]
    """
    names = unique_names(network.names, name=xmlbif_name, ignore_case=False)
    states = [unique_names(labels, state=True, name=xmlbif_name, ignore_case=False) for labels in network.states]
    title = xmlbif_name(network.name)
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<BIF VERSION="0.3">\n<NETWORK>\n',
             f"<NAME>{escape(title)}</NAME>\n", _property("name", [network.name], [title], "")]
    for v, name in enumerate(names):
        parts.append(f'<VARIABLE TYPE="nature">\n\t<NAME>{escape(name)}</NAME>\n')
        parts.extend(f"\t<OUTCOME>{escape(state)}</OUTCOME>\n" for state in states[v])
        parts.append(_property("name", [network.names[v]], [name], "\t"))
        parts.append(_property("states", network.states[v], states[v], "\t"))
        parts.append("</VARIABLE>\n")
    for v, name in enumerate(names):
        parts.append(f"<DEFINITION>\n\t<FOR>{escape(name)}</FOR>\n")
        parts.extend(f"\t<GIVEN>{escape(names[p])}</GIVEN>\n" for p in network.parents[v])
        rows = network.cpts[v].reshape(-1, len(states[v])).tolist()
        table = "\n\t\t".join(" ".join(map(repr, row)) for row in rows)
        parts.append(f"\t<TABLE>{table}</TABLE>\n</DEFINITION>\n")
    parts.append("</NETWORK>\n</BIF>\n")
    text = "".join(parts)
    return save_text(text, path)


def _property(what, original, written, indent):
    """The ``<PROPERTY>`` keeping ``original`` (a name, or every state) when ``written`` differs, else ``""``."""
    if original == written:
        return ""
    return f"{indent}<PROPERTY>bnexplore_{what} = {','.join(map(encoded, original))}</PROPERTY>\n"
