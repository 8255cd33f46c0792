"""What the XML network formats (XMLBIF, GeNIe XDSL) share: a safe XML parser that keeps line numbers, the
bnexplore markers that keep original names, and a :class:`~bnexplore.bif.Network` built from tables in the order
both formats list them.

- :func:`parse_xml` reads XML with :mod:`xml.parsers.expat`, refusing an entity declaration (the
  "billion laughs" expansion) and an external DTD before anything is expanded, and keeps the line of every
  element and comment, so every message names the element and its line. An internal DTD of element and
  attribute declarations only (JavaBayes and Weka start every XMLBIF file with one) is read.
- :func:`encoded` / :func:`decoded`: the percent-encoding of the originals a writer keeps beside the safe
  names it writes (no ``=``, ``,``, space or ``-``, so the text fits a property, a list or an XML comment).
- :func:`table_of` and :func:`network_of`: both formats list a table with the child's state varying fastest
  within each parent configuration, the parents in their listed order with the last one fastest: C order of
  bnexplore's CPT shape ``(*parent arities, arity)``. Tables are counted against the bounds before any array
  is made.
"""

import math
import unicodedata
from urllib.parse import quote, unquote
from xml.parsers import expat

import numpy as np

from bnexplore.bif import SUM_TOLERANCE, Network
from bnexplore.bif.network import MAX_CPT_CELLS, check_unique, cycle_text, parent_order
from bnexplore.errors import BIFError, ResourceError
from bnexplore.limits import advice, max_expanded_bytes

__all__ = ["Element", "TableBudget", "decoded", "encoded", "network_of", "parse_xml", "table_of", "xml_holds"]

RENORMALISE_ABOVE = 1e-9
"""A distribution off one by more than this is renormalised, so a network read, written and read again is
reproduced bit for bit (the rule of the BIF reader)."""


class Element:
    """One XML element: its tag, attributes, text (for an element without children), children, comments and line.

    The root element's comments include those before it (after the XML declaration).

    Examples
    --------
    >>> root = parse_xml("<a><b x='1'>hi</b><b/></a>", "XML")
    >>> [(b.attrib, b.text, b.line) for b in root.findall("b")]
    [({'x': '1'}, 'hi', 1), ({}, '', 1)]
    """

    __slots__ = ("tag", "attrib", "line", "children", "parts", "comments")

    def __init__(self, tag, attrib, line):
        self.tag, self.attrib, self.line = tag, attrib, line
        self.children, self.parts, self.comments = [], [], []

    @property
    def text(self):
        """The element's character data, joined."""
        return "".join(self.parts)

    def find(self, tag):
        """The first child called ``tag``, or None."""
        return next((child for child in self.children if child.tag == tag), None)

    def findall(self, tag):
        """Every child called ``tag``, in order."""
        return [child for child in self.children if child.tag == tag]


def parse_xml(text, kind):
    """The root :class:`Element` of XML ``text``, refusing entity declarations and external DTDs.

    Parameters
    ----------
    text : str
    kind : str
        The format's name in messages ("XMLBIF").

    Returns
    -------
    Element

    Raises
    ------
    BIFError
        If the text is not well-formed XML (the line the parser stopped at), declares an entity or refers to
        an external DTD.

    Examples
    --------
    >>> parse_xml("<?xml version='1.0'?>\\n<!-- c -->\\n<BIF/>", "XMLBIF").line
    3
    >>> parse_xml('<!DOCTYPE a [<!ENTITY x "xx">]><a>&x;</a>', "XMLBIF")
    Traceback (most recent call last):
    ...
    bnexplore.errors.BIFError: XMLBIF line 1: the file declares an XML entity ('x'); bnexplore does not expand \
entities (a few lines of them can expand to gigabytes): remove the declaration
    """
    parser = expat.ParserCreate("utf-8")
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.buffer_text = True
    stack, found, prolog = [], [], []

    def start(tag, attrib):
        element = Element(tag, attrib, parser.CurrentLineNumber)
        if stack:
            stack[-1].children.append(element)
        else:
            found.append(element)
            element.comments.extend(prolog)
        stack.append(element)

    def end(tag):
        stack.pop()

    def data(chunk):
        if stack:
            stack[-1].parts.append(chunk)

    def comment(body):
        (stack[-1].comments if stack else prolog).append((body, parser.CurrentLineNumber))

    def doctype(name, system_id, public_id, internal):
        if system_id or public_id:
            raise BIFError(f"{kind} line {parser.CurrentLineNumber}: the file refers to an external DTD "
                           f"({system_id or public_id!r}), which bnexplore never fetches: remove the DOCTYPE")

    def entity(name, *rest):
        raise BIFError(f"{kind} line {parser.CurrentLineNumber}: the file declares an XML entity ({name!r}); "
                       "bnexplore does not expand entities (a few lines of them can expand to gigabytes): "
                       "remove the declaration")

    def skipped(name, parameter):
        raise BIFError(f"{kind} line {parser.CurrentLineNumber}: the file uses the undeclared entity "
                       f"'&{name};'; write the text itself")

    parser.StartElementHandler, parser.EndElementHandler = start, end
    parser.CharacterDataHandler, parser.CommentHandler = data, comment
    parser.StartDoctypeDeclHandler, parser.EntityDeclHandler = doctype, entity
    parser.SkippedEntityHandler = skipped
    try:
        parser.Parse(text, True)
    except expat.ExpatError as error:
        raise BIFError(f"{kind} line {error.lineno}: the file is not well-formed XML "
                       f"({expat.ErrorString(error.code)}, column {error.offset + 1}); check that it is whole and "
                       "in the format") from None
    except UnicodeEncodeError:
        raise BIFError(f"the {kind} text holds characters that are not text (lone surrogates); read it from the "
                       "file") from None
    return found[0]


def xml_holds(label):
    """Whether XML text keeps ``label`` exactly, as every reader gives it back: not empty, no white space at
    its ends and no control character (XML turns some into others and cannot hold the rest).

    Examples
    --------
    >>> xml_holds("(-inf, 5.667]"), xml_holds(" a"), xml_holds(""), xml_holds("a\\tb")
    (True, False, False, False)
    """
    return bool(label) and label == label.strip() and not any(
        unicodedata.category(c) in ("Cc", "Cs") or c in "\ufffe\uffff" for c in label)


def encoded(text):
    """``text`` percent-encoded as UTF-8 with nothing but letters, digits, ``_ . ~`` and ``%XX`` left, so it
    fits a property (no ``=``), a list (no ``,``), and an XML comment (no ``--``).

    Examples
    --------
    >>> encoded("(-inf, 5]"), decoded(encoded("a--b=ü"), "XML", 1, "name")
    ('%28%2Dinf%2C%205%5D', 'a--b=ü')
    """
    return quote(text, safe="").replace("-", "%2D")


def decoded(value, kind, line, what):
    """The text :func:`encoded` made ``value`` from; a BIFError naming ``line`` and ``what`` if it is not
    percent-encoded UTF-8."""
    try:
        return unquote(value, errors="strict")
    except UnicodeDecodeError:
        raise BIFError(f"{kind} line {line}: '{what}' is not percent-encoded UTF-8; fix or remove it") from None


class TableBudget:
    """The cells of a file's tables, counted before each is made: one table at most ``MAX_CPT_CELLS``,
    all together at most the expansion bound of :mod:`bnexplore.limits` in float64 cells.

    Examples
    --------
    >>> budget = TableBudget("XMLBIF")
    >>> budget.take(8, 3, "x")
    >>> budget.cells
    8
    """

    def __init__(self, kind):
        self.kind = kind
        self.cells = 0
        self.max_cells = max_expanded_bytes() // 8

    def take(self, cells, line, name):
        """Count a table of ``cells`` cells for variable ``name`` (at ``line``); a ResourceError past a bound."""
        if cells > MAX_CPT_CELLS:
            raise ResourceError(f"{self.kind} line {line}: the table of {name!r} would have {cells:,} cells (more than "
                           f"{MAX_CPT_CELLS:,}); give it fewer parents")
        self.cells += cells
        if self.cells > self.max_cells:
            raise ResourceError(f"{self.kind} line {line}: with the table of {name!r} ({cells:,} cells) the network's "
                           f"tables would hold {self.cells:,} cells, more than the {self.max_cells:,} this server "
                           f"allows ({advice()}); nothing was allocated")


def table_of(text, shape, budget, line, name):
    """The CPT of shape ``shape`` (parent arities, then the child's) from the numbers of a table's text.

    The numbers are in C order of ``shape`` (the child's state fastest, the last parent next), separated by
    white space (commas also taken); each distribution must sum to one within ``SUM_TOLERANCE`` and is
    renormalised when off by more than :data:`RENORMALISE_ABOVE`.

    Parameters
    ----------
    text : str
    shape : tuple of int
    budget : TableBudget
        Counts the cells before the array is made.
    line : int
        The table's line, for messages.
    name : str
        The variable's name, for messages.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> table_of("0.1 0.9  0.5 0.5", (2, 2), TableBudget("XMLBIF"), 7, "x").tolist()
    [[0.1, 0.9], [0.5, 0.5]]
    """
    kind = budget.kind
    cells = math.prod(shape)
    budget.take(cells, line, name)
    tokens = text.replace(",", " ").split()
    if len(tokens) != cells:
        raise BIFError(f"{kind} line {line}: the table of {name!r} holds {len(tokens)} numbers, and its states and "
                       f"parents' states ({' x '.join(map(str, shape))}) need {cells}; give one per cell")
    try:
        values = np.array(tokens, dtype=np.float64)
    except ValueError:
        bad = next(t for t in tokens if not _is_number(t))
        raise BIFError(f"{kind} line {line}: {bad[:30]!r} in the table of {name!r} is not a number; probabilities "
                       "must be numbers") from None
    wrong = np.flatnonzero(~(np.isfinite(values) & (values >= 0)))
    if wrong.size:
        raise BIFError(f"{kind} line {line}: probability {tokens[wrong[0]]!r} of {name!r} is not a number >= 0; "
                       "fix it")
    rows = values.reshape(-1, shape[-1])
    sums = rows.sum(axis=1)
    off = np.abs(sums - 1)
    bad = np.flatnonzero(off > SUM_TOLERANCE)
    if bad.size:
        raise BIFError(f"{kind} line {line}: probabilities of {name!r} in parent configuration {int(bad[0]) + 1} sum "
                       f"to {sums[bad[0]]:.6g}, not 1; fix them (up to {SUM_TOLERANCE} off is renormalised)")
    rescale = off > RENORMALISE_ABOVE
    rows[rescale] /= sums[rescale, None]
    return rows.reshape(shape)


def _is_number(token):
    try:
        float(token)
    except ValueError:
        return False
    return True


def network_of(kind, name, names, states, parents, cpts, lines, table_lines):
    """The :class:`~bnexplore.bif.Network` of what a reader found, refusing a cycle with the line where one of
    its variables lists its parents (``table_lines[v]``), equal names with the line of the second
    (``lines[v]``).

    Examples
    --------
    >>> network_of("XMLBIF", "n", ["a"], [["x", "y"]], [[]], [np.array([0.5, 0.5])], [3], [5])
    Network('n', 1 variables, 0 arcs)
    """
    _, cycle = parent_order(parents)
    if cycle:
        raise BIFError(f"{kind} line {table_lines[cycle[0]]}: the parents form a cycle {cycle_text(cycle, names)}; "
                       "remove one arc")
    for v, labels in enumerate(states):
        try:
            check_unique(labels, f"variable {names[v]!r}", "state")
        except BIFError as error:
            raise BIFError(f"{kind} line {lines[v]}: {error}") from None
    first = {}
    for v, label in enumerate(names):
        if label in first:
            raise BIFError(f"{kind} line {lines[v]}: a second variable named {label!r} (first on line "
                           f"{lines[first[label]]}); give each variable a distinct name")
        first[label] = v
    return Network(name, names, states, parents, cpts)
