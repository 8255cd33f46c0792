"""DSC: the Microsoft Belief Network format bnlearn's ``read.dsc`` / ``write.dsc`` and GeNIe read and write.

The dialect read::

    belief network "asia"                      // comments as in C and C++
    node smoke { type : discrete [ 2 ] = { "yes", "no" }; position = (10, 20); }
    probability ( smoke ) { 0.5, 0.5; }
    probability ( lung | smoke ) { (0) : 0.1, 0.9; (1) : 0.01, 0.99; }

Decisions, each enforced by :func:`read_dsc`:

- A row of a conditional table is named by the parents' state indices (from 0, in the parents' order), so rows
  come in any order; every parent configuration needs one row. GeNIe writes every index as 0 and lists the rows
  with the last parent fastest: a table whose rows are all ``(0, ..., 0)`` is read in that order, as bnlearn
  does.
- States are quoted strings (bare words also read); node statements bnexplore has no use for (``name``,
  ``position``...) and a ``properties { }`` block are skipped; a continuous node is refused.
- The network's name is the banner's, else (``unknown``, bnlearn's) the file's name, else ``unknown``.
- :func:`write_dsc` writes names as C identifiers (bnlearn reads ``\\w+``) and states as quoted words of
  letters, digits and ``_ . + -``, single spaces between them (bnlearn drops ``, { } ( ) # %``); where that
  differs from the original, a comment ``// bnexplore_name = "...";`` / ``// bnexplore_states = "...";``
  (percent-encoded) keeps it, which every other reader skips and :func:`read_dsc` reads back.
"""

import math
import re

import numpy as np

from bnexplore.bif import bif_name, network_text, save_text, unique_names
from bnexplore.bif.network import check_unique
from bnexplore.errors import BIFError
from bnexplore.formats.braces import Scanner, identifier, kept_names, marker, put_back
from bnexplore.formats.xmlnet import TableBudget, network_of, table_of

__all__ = ["dsc_name", "looks_like", "read_dsc", "write_dsc"]

KIND = "DSC"
_RESERVED = {"belief", "continuous", "default", "discrete", "function", "network", "node", "probability",
             "properties", "property", "type"}
_STATE = re.compile(r"[A-Za-z0-9_.+\-]+(?: [A-Za-z0-9_.+\-]+)*\Z")
_START = re.compile(r"\A\s*(?:(?://[^\n]*\n|/\*.*?\*/)\s*)*belief\s+network\b", re.DOTALL)
_KEPT = r'//[ \t]*(bnexplore_(?:name|states)[ \t]*=[ \t]*"[^"\n]*"[ \t]*;)[ \t]*'


def looks_like(text):
    """Whether ``text``, the start of a file, is DSC: its first words (comments aside) are ``belief network``.

    Examples
    --------
    >>> looks_like('// by bnlearn\\nbelief network "unknown"\\n'), looks_like("network unknown {")
    (True, False)
    """
    return bool(_START.match(text))


def dsc_name(label, state=False):
    """The name ``label`` is written under in DSC: itself when bnlearn reads it as it is, else a safe one
    (:func:`write_dsc` keeps the original beside it).

    A variable's name must be a C identifier and no word of the format (``node``, ``probability``,
    ``type``...); a state (or the network's name), words of letters, digits and ``_ . + -`` with single spaces
    between them.

    Parameters
    ----------
    label : str
    state : bool
        ``label`` is a state.

    Returns
    -------
    str

    Examples
    --------
    >>> dsc_name("x y"), dsc_name("type"), dsc_name("(-inf, 5.667]", state=True), dsc_name("a b", state=True)
    ('x_y', 'type_', '_-inf_5.667', 'a b')
    """
    if not state:
        return identifier(label, _RESERVED)
    return label if _STATE.match(label) else bif_name(label, state=True)


def read_dsc(source):
    """Read a discrete Bayesian network in DSC.

    Parameters
    ----------
    source : str, pathlib.Path or file-like
        A path to a ``.dsc`` or ``.dsc.gz`` file; the text (a ``str`` holding a ``{``); or an open file.

    Returns
    -------
    Network

    Raises
    ------
    BIFError
        If the file cannot be read or is malformed; the message names the line and what to do.
    ResourceError
        If the file or its tables are past the bounds of :mod:`bnexplore.limits`.

    Examples
    --------
    >>> coin = read_dsc('belief network "coin" node side { type : discrete [ 2 ] = { "heads", "tails" }; } '
    ...                 'probability ( side ) { 0.4, 0.6; }')
    >>> coin, coin.states, coin.cpts[0].tolist()
    (Network('coin', 1 variables, 0 arcs), [['heads', 'tails']], [0.4, 0.6])
    """
    text, default_name = network_text(source, KIND, (".dsc",))
    return _Reader(text, default_name).network()


class _Reader:
    """One pass over the tokens of a DSC file: the banner, node blocks, then probability blocks."""

    def __init__(self, text, default_name):
        self.scan = Scanner(text, KIND, r"//[^\n]*|/\*(?:.*?\*/|.*)", "{}()[]=;:,|", kept=_KEPT)
        self.budget = TableBudget(KIND)
        self.default_name = default_name
        self.original_name = None
        self.names, self.states, self.lines, self.originals = [], [], [], []
        self.column = {}
        self.parents, self.cpts, self.table_at = {}, {}, {}

    def fail(self, offset, message):
        self.scan.fail(offset, message)

    def network(self):
        scan = self.scan
        first = scan.peek()
        if first is None:
            self.fail(0, "the file is empty; a DSC file starts with 'belief network \"name\"'")
        for word in ("belief", "network"):
            found = scan.next(f"'{word}'")
            if found.value != word or found.kind != "word":
                self.fail(found.offset, f"expected 'belief network \"name\"' to start the file, found "
                                        f"{found.value[:30]!r}")
        title = scan.next("the network's name after 'belief network'")
        if title.kind == "punct":
            self.fail(title.offset, f"expected the network's name after 'belief network', found {title.value!r}")
        while (token := scan.peek()) is not None:
            scan.next("a block")
            if token.kind == "word" and token.value == "node":
                self._node(token)
            elif token.kind == "word" and token.value == "probability":
                self._probability(token)
            elif token.kind == "word" and token.value == "properties":
                scan.expect("{", "after 'properties'")
                scan.skip_block("the properties")
            elif token.kind == "word" and token.value == "bnexplore_name" and not self.names:
                self.original_name = kept_names(scan, token, self._value(token), "the network")[0]
            else:
                self.fail(token.offset, f"expected 'node' or 'probability', found {token.value[:30]!r}")
        if not self.names:
            self.fail(len(scan.text), "the file declares no node; a network needs at least one 'node X { type : "
                                      "discrete [ k ] = { ... }; }'")
        for v, name in enumerate(self.names):
            if v not in self.cpts:
                self.fail(self.lines[v], f"node {name!r} has no 'probability ( {name} ... )' block; add one")
        names, states = put_back(scan, self.names, self.states, self.originals)
        name = self.original_name or title.value
        if name in ("", "unknown"):
            name = self.default_name or name or "unknown"
        line = scan.line
        n = len(names)
        return network_of(KIND, name, names, states, [self.parents[v] for v in range(n)],
                          [self.cpts[v] for v in range(n)], [line(at) for at in self.lines],
                          [line(self.table_at[v]) for v in range(n)])

    def _value(self, attribute):
        """The value of ``attribute = value;`` after its name was taken: a string or word token, or a list of
        the tokens in its parentheses."""
        scan = self.scan
        scan.expect("=", f"after {attribute.value!r}")
        value = scan.next(f"the value of {attribute.value!r}")
        if value.kind == "punct" and value.value == "(":
            items = []
            while (item := scan.next(f"the ')' closing the value of {attribute.value!r}")).value != ")":
                if item.kind == "punct" and item.value in "({};":
                    self.fail(item.offset, f"expected ')' to close the value of {attribute.value!r}, found "
                                           f"{item.value!r}")
                items.append(item)
            value = items
        elif value.kind == "punct":
            self.fail(value.offset, f"expected a value after '{attribute.value} =', found {value.value!r}")
        scan.expect(";", f"after the value of {attribute.value!r}")
        return value

    def _node(self, token):
        scan = self.scan
        name = scan.word("the node's name after 'node'")
        if name in self.column:
            self.fail(token.offset, f"node {name!r} is declared twice (first on line "
                                    f"{scan.line(self.lines[self.column[name]])}); remove one")
        scan.expect("{", f"after 'node {name}'")
        states, kept = None, {}
        while (item := scan.next(f"the '}}' closing node {name!r}")).value != "}" or item.kind != "punct":
            if item.kind != "word":
                self.fail(item.offset, f"expected 'type : discrete [ k ] = {{ ... }};' or 'name = value;' in node "
                                       f"{name!r}, found {item.value[:30]!r}")
            if item.value == "type":
                if states is not None:
                    self.fail(item.offset, f"node {name!r} has two 'type' statements; keep one")
                states = self._states(name, item)
            elif item.value in ("bnexplore_name", "bnexplore_states"):
                kept[item.value] = (item, kept_names(scan, item, self._value(item), f"node {name!r}"))
            else:
                self._value(item)
        if states is None:
            self.fail(token.offset, f"node {name!r} has no 'type : discrete [ k ] = {{ ... }};'; add it")
        self.column[name] = len(self.names)
        self.names.append(name)
        self.states.append(states)
        self.lines.append(token.offset)
        self.originals.append(kept)

    def _states(self, name, item):
        """The states of ``type : discrete [ k ] = { "s1", "s2", ... };`` after its ``type`` was taken."""
        scan = self.scan
        scan.expect(":", f"after 'type' in node {name!r}")
        kind = scan.word(f"'discrete' after 'type :' in node {name!r}")
        if kind != "discrete":
            self.fail(item.offset, f"node {name!r} is {kind[:30]!r}; bnexplore reads discrete networks only: "
                                   "discretise it (or remove it) and save again")
        scan.expect("[", f"after 'discrete' in node {name!r}")
        count = scan.word(f"the number of states of node {name!r}")
        scan.expect("]", f"after the number of states of node {name!r}")
        scan.expect("=", f"after 'discrete [ {count} ]' in node {name!r}")
        scan.expect("{", f"before the states of node {name!r}")
        states = []
        while (state := scan.next(f"the '}}' closing the states of node {name!r}")).value != "}" or \
                state.kind != "punct":
            if state.kind == "punct":
                self.fail(state.offset, f"expected a state of node {name!r}, found {state.value!r}")
            states.append(state.value)
            if scan.peek() is not None and scan.peek().value == ",":
                scan.next(",")
        scan.expect(";", f"after the states of node {name!r}")
        if not count.isdigit() or int(count) != len(states) or not states:
            self.fail(item.offset, f"node {name!r} declares [ {count[:12]} ] states but lists {len(states)}; "
                                   "make them agree")
        try:
            check_unique(states, f"node {name!r}", "state")
        except BIFError as error:
            self.fail(item.offset, str(error))
        return states

    def _variable(self, token):
        if token.kind != "word" or token.value not in self.column:
            self.fail(token.offset, f"'probability' names {token.value[:30]!r}, which no node declares before it; "
                                    "declare it first")
        return self.column[token.value]

    def _probability(self, token):
        scan = self.scan
        scan.expect("(", "after 'probability'")
        child = self._variable(scan.next("the variable of 'probability ('"))
        name = self.names[child]
        parents = []
        separator = scan.next(f"')' or '|' after 'probability ( {name}'")
        if separator.value == "|":
            while True:
                parents.append(self._variable(scan.next(f"a parent of {name!r}")))
                separator = scan.next(f"',' or ')' after the parents of {name!r}")
                if separator.value != ",":
                    break
        if separator.value != ")":
            self.fail(separator.offset, f"expected ')' to close 'probability ( {name} ...', found "
                                        f"{separator.value[:30]!r}")
        if child in self.cpts:
            self.fail(token.offset, f"a second 'probability' block for {name!r}; remove one")
        if len(set(parents)) < len(parents) or child in parents:
            self.fail(token.offset, f"the 'probability' block of {name!r} names a variable twice; list each once")
        scan.expect("{", f"after 'probability ( {name} ... )'")
        body, at = scan.until("}", f"the 'probability' block of {name!r}")
        arities = [len(self.states[p]) for p in parents]
        shape = tuple(arities) + (len(self.states[child]),)
        self.budget.take(math.prod(shape), scan.line(token.offset), name)  # before the rows are put in order
        text = self._rows(body, at, name, arities, shape[-1]) if parents else self._root(body, at, name)
        self.cpts[child] = table_of(text, shape, TableBudget(KIND), scan.line(token.offset), name)  # counted
        self.parents[child] = parents
        self.table_at[child] = token.offset

    def _statements(self, body, at):
        """``(statement, offset)`` for every ``...;`` of a block's body; text after the last ``;`` must be blank."""
        pieces = body.split(";")
        rest = pieces.pop()
        if rest.strip():
            self.fail(at + len(body) - len(rest.lstrip()), f"expected ';' after {rest.strip()[:30]!r}")
        for piece in pieces:
            stripped = piece.strip()
            if stripped:
                yield stripped, at + len(piece) - len(piece.lstrip())
            at += len(piece) + 1

    def _root(self, body, at, name):
        """The numbers of an unconditional table: ``p1, p2, ...;`` (an empty ``()`` or ``() :`` before them taken)."""
        rows = [re.sub(r"\A\(\s*\)\s*:?", "", statement) for statement, _ in self._statements(body, at)]
        if len(rows) != 1:
            self.fail(at, f"the table of {name!r} has no parents and so one row 'p1, p2, ...;'; found {len(rows)}")
        return rows[0]

    def _rows(self, body, at, name, arities, r):
        """The numbers of a conditional table in C order, from rows ``(i, j, ...) : p1, p2, ...;``."""
        q = math.prod(arities)
        codes, texts, offsets = [], [], []
        for statement, offset in self._statements(body, at):
            close = statement.find(")")
            if statement[:1] != "(" or close < 0:
                self.fail(offset, f"expected a row '(i, j, ...) : p1, p2, ...;' of {name!r}, found "
                                  f"{statement[:30]!r}")
            indices = statement[1:close].replace(",", " ").split()
            values = statement[close + 1:].strip().removeprefix(":")
            if len(indices) != len(arities) or not all(i.isdigit() and int(i) < k for i, k in zip(indices, arities)):
                self.fail(offset, f"row ({statement[1:close].strip()[:30]}) of {name!r} must give the state index "
                                  f"(0 to k - 1) of each of its {len(arities)} parents")
            if len(values.replace(",", " ").split()) != r:
                self.fail(offset, f"row ({statement[1:close].strip()[:30]}) of {name!r} holds "
                                  f"{len(values.replace(',', ' ').split())} probabilities for its {r} states")
            codes.append([int(i) for i in indices])
            texts.append(values)
            offsets.append(offset)
        configs = np.ravel_multi_index(np.array(codes, dtype=np.intp).T.reshape(len(arities), -1), arities) if codes \
            else np.zeros(0, dtype=np.intp)
        if len(codes) == q > 1 and not configs.any():
            configs = np.arange(q)  # GeNIe: every index 0, the rows in order
        repeated = np.flatnonzero(np.bincount(configs, minlength=q) > 1)
        if repeated.size:
            self.fail(offsets[np.flatnonzero(configs == repeated[0])[1]],
                      f"this row of {name!r} repeats the parent states of an earlier row; keep one")
        if len(codes) < q:
            missing = np.unravel_index(int(np.flatnonzero(np.bincount(configs, minlength=q) == 0)[0]), arities)
            self.fail(at, f"{name!r} has no row ({', '.join(map(str, missing))}); give one row per parent "
                          "configuration")
        ordered = [""] * q
        for config, values in zip(configs.tolist(), texts):
            ordered[config] = values
        return " ".join(ordered)


def write_dsc(network, path=None):
    """Write a network as DSC text that bnlearn's ``read.dsc``, GeNIe and :func:`read_dsc` read.

    Names are written as :func:`dsc_name` makes them (unique within their kind, ignoring case); where that
    differs from the original, a comment ``// bnexplore_name = "...";`` / ``// bnexplore_states = "...";``
    keeps the original, percent-encoded. Rows are named by the parents' state indices, in C order (the last
    parent fastest); probabilities are written with ``repr``.

    Parameters
    ----------
    network : Network
    path : str or pathlib.Path, optional
        File to write; gzipped when the name ends with ``.gz``.

    Returns
    -------
    str
        The DSC text.

    Examples
    --------
    >>> from bnexplore.bif import Network
    >>> net = Network("n", ["x y", "z"], [["<missing>", "a"], ["0", "1"]], [[], [0]],
    ...               [[0.5, 0.5], [[0.1, 0.9], [0.2, 0.8]]])
    >>> print(write_dsc(net))  # doctest: +NORMALIZE_WHITESPACE
    belief network "n"
    node x_y {
      type : discrete [ 2 ] = { "missing", "a" };
      // bnexplore_name = "x%20y";
      // bnexplore_states = "%3Cmissing%3E,a";
    }
    node z {
      type : discrete [ 2 ] = { "0", "1" };
    }
    probability ( x_y ) {
      0.5, 0.5;
    }
    probability ( z | x_y ) {
      (0) : 0.1, 0.9;
      (1) : 0.2, 0.8;
    }
    >>> read_dsc(write_dsc(net)).names
    ['x y', 'z']
    """
    names = unique_names(network.names, name=dsc_name)
    states = [unique_names(labels, state=True, name=dsc_name) for labels in network.states]
    title = dsc_name(network.name, state=True)
    parts = [f'belief network "{title}"\n{marker("name", [network.name], [title], "// ")}']
    for v, name in enumerate(names):
        listed = ", ".join(f'"{state}"' for state in states[v])
        parts.append(f"node {name} {{\n  type : discrete [ {len(states[v])} ] = {{ {listed} }};\n"
                     f"{marker('name', [network.names[v]], [name], '  // ')}"
                     f"{marker('states', network.states[v], states[v], '  // ')}}}\n")
    for v, name in enumerate(names):
        parents = network.parents[v]
        rows = network.cpts[v].reshape(-1, len(states[v])).tolist()
        if not parents:
            parts.append(f"probability ( {name} ) {{\n  {', '.join(map(repr, rows[0]))};\n}}\n")
            continue
        arities = [len(states[p]) for p in parents]
        lines = [f"  ({', '.join(map(str, index))}) : {', '.join(map(repr, row))};\n"
                 for index, row in zip(np.ndindex(*arities), rows)]
        parts.append(f"probability ( {name} | {', '.join(names[p] for p in parents)} ) {{\n{''.join(lines)}}}\n")
    text = "".join(parts)
    return save_text(text, path)
