"""Hugin NET: the classic ``net { }`` format Hugin, GeNIe, pyAgrum and pgmpy read and write.

The dialect read::

    net { name = "asia"; }                      % '%' starts a comment
    node smoke { states = ("yes" "no"); label = "Smoker"; position = (10 20); }
    potential ( smoke ) { data = (0.5 0.5); }
    potential ( lung | smoke ) { data = ((0.1 0.9) (0.01 0.99)); }

Decisions, each enforced by :func:`read_net`:

- ``data`` lists the table with the first parent outermost and the child's states innermost (the last parent
  varies fastest within the first; the child fastest of all), as Hugin, pyAgrum and pgmpy do: C order of
  bnexplore's CPT shape. Only the count of the numbers is checked against the table; the parentheses, which
  are there for the reader's eye, must balance.
- ``states`` lists quoted strings (pyAgrum writes bare words, also read); ``\\"`` and ``\\\\`` in a string are a
  quote and a backslash. Attributes bnexplore has no use for (``label``, ``position``, ``HR_...``,
  ``experience``...) are skipped, ``discrete node`` is a ``node``; a continuous node, a decision, utility or
  function node and an object-oriented ``class`` are refused with what to do.
- The network's name is the net block's ``name``, else the file's name, else ``unknown``.
- :func:`write_net` writes names as C identifiers (pyAgrum's and pgmpy's readers take nothing else) and states
  as quoted words of letters, digits and ``_ . + -`` (pgmpy splits states at spaces, commas and parentheses),
  keeping any original in a ``bnexplore_name = "...";`` / ``bnexplore_states = "...";`` attribute,
  percent-encoded, that pyAgrum and pgmpy skip and :func:`read_net` reads back.
"""

import re

from bnexplore.bif import bif_name, network_text, save_text, unique_names
from bnexplore.bif.network import check_unique
from bnexplore.errors import BIFError
from bnexplore.formats.braces import Scanner, identifier, kept_names, marker, put_back
from bnexplore.formats.xmlnet import TableBudget, network_of, table_of

__all__ = ["looks_like", "net_name", "read_net", "write_net"]

KIND = "Hugin NET"
_RESERVED = {"class", "continuous", "data", "decision", "discrete", "experience", "function", "instance", "net",
             "node", "potential", "temporal", "utility"}
_STATE = re.compile(r"[A-Za-z0-9_.+\-]+\Z")
_START = re.compile(r"\A\s*(?:%[^\n]*\s*)*(?:net\s*\{|class\s+\w+\s*\{|(?:(?:discrete|continuous)\s+)?node\s+\w+\s*\{)")
_NODE_WORDS = {"discrete", "continuous", "node", "decision", "utility", "function"}


def looks_like(text):
    """Whether ``text``, the start of a file, is Hugin NET: it opens (``%`` comments aside) with ``net {``, a
    ``node X {`` or an object-oriented ``class X {``.

    Examples
    --------
    >>> looks_like("% by Hugin\\nnet\\n{\\n}"), looks_like("network asia {"), looks_like('belief network "x"')
    (True, False, False)
    """
    return bool(_START.match(text))


def net_name(label, state=False):
    """The name ``label`` is written under in Hugin NET: itself when pyAgrum and pgmpy read it as it is, else a
    safe one (:func:`write_net` keeps the original beside it).

    A variable's name must be a C identifier, no word of the format (``net``, ``node``, ``potential``,
    ``data``...) and not end in ``node`` (pgmpy takes ``node`` and a space anywhere, a parent list included, for
    the start of a node); a state, a word of letters, digits and ``_ . + -``.

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
    >>> net_name("x y"), net_name("data"), net_name("my node"), net_name("(-inf, 5.667]", state=True)
    ('x_y', 'data_', 'my_node_', '_-inf_5.667')
    """
    if not state:
        name = identifier(label, _RESERVED)
        return name + "_" if name.endswith("node") else name  # pgmpy finds its nodes by "node " anywhere
    return label if _STATE.match(label) else bif_name(label, state=True)


def read_net(source):
    """Read a discrete Bayesian network in Hugin NET.

    Parameters
    ----------
    source : str, pathlib.Path or file-like
        A path to a ``.net`` or ``.net.gz`` file; the text (a ``str`` holding a ``{``); or an open file.

    Returns
    -------
    Network

    Raises
    ------
    BIFError
        If the file cannot be read, is malformed, or holds what a discrete Bayesian network has not (continuous,
        decision or utility nodes, classes); the message names the line and what to do.
    ResourceError
        If the file or its tables are past the bounds of :mod:`bnexplore.limits`.

    Examples
    --------
    >>> coin = read_net('net { name = "coin"; } node side { states = ("heads" "tails"); } '
    ...                 'potential ( side ) { data = ( 0.4 0.6 ); }')
    >>> coin, coin.states, coin.cpts[0].tolist()
    (Network('coin', 1 variables, 0 arcs), [['heads', 'tails']], [0.4, 0.6])
    """
    text, default_name = network_text(source, KIND, (".net",))
    return _Reader(text, default_name).network()


class _Reader:
    """One pass over the tokens of a NET file: the net block, node blocks, then potentials."""

    def __init__(self, text, default_name):
        self.scan = Scanner(text, KIND, r"%[^\n]*", "{}()=;|")
        self.budget = TableBudget(KIND)
        self.name = None
        self.default_name = default_name
        self.original_name = None
        self.names, self.states, self.lines, self.originals = [], [], [], []
        self.column = {}
        self.parents, self.cpts, self.potential_at = {}, {}, {}

    def fail(self, offset, message):
        self.scan.fail(offset, message)

    def network(self):
        scan = self.scan
        if scan.peek() is None:
            self.fail(0, "the file is empty; a Hugin NET file starts with 'net {'")
        while (token := scan.peek()) is not None:
            if token.kind != "word":
                self.fail(token.offset, f"expected 'net', 'node' or 'potential', found {token.value[:30]!r}")
            scan.next("a block")
            if token.value == "net":
                self._net(token)
            elif token.value == "class":
                self.fail(token.offset, "this is an object-oriented network ('class'); bnexplore reads plain "
                                        "networks: save it from Hugin as a flat 'net' file")
            elif token.value in _NODE_WORDS:
                self._node(token)
            elif token.value == "potential":
                self._potential(token)
            else:
                self.fail(token.offset, f"expected 'net', 'node' or 'potential', found {token.value[:30]!r}")
        if not self.names:
            self.fail(len(scan.text), "the file declares no node; a network needs at least one 'node X { states = "
                                      "(...); }'")
        for v, name in enumerate(self.names):
            if v not in self.cpts:
                self.fail(self.lines[v], f"node {name!r} has no 'potential ( {name} ... )' block; add one")
        names, states = put_back(self.scan, self.names, self.states, self.originals)
        name = self.original_name or self.name
        if name in (None, "", "unknown"):
            name = self.default_name or name or "unknown"
        line, n = self.scan.line, len(names)
        return network_of(KIND, name, names, states, [self.parents[v] for v in range(n)],
                          [self.cpts[v] for v in range(n)], [line(offset) for offset in self.lines],
                          [line(self.potential_at[v]) for v in range(n)])

    def _attributes(self, what, raw=()):
        """Yield ``(name token, value)`` for every ``name = value;`` of a block whose ``{`` was taken, to its
        ``}``. A value is a string, a word, or a list (of the tokens inside its parentheses); the value of an
        attribute named in ``raw`` is left for the caller to take (``None``)."""
        scan = self.scan
        while True:
            token = scan.next(f"the '}}' closing {what}")
            if token.kind == "punct" and token.value == "}":
                return
            if token.kind != "word":
                self.fail(token.offset, f"expected 'name = value;' or '}}' in {what}, found {token.value[:30]!r}")
            scan.expect("=", f"after {token.value!r} in {what}")
            if token.value in raw:
                yield token, None
                continue
            value = scan.next(f"the value of {token.value!r}")
            if value.kind == "punct" and value.value == "(":
                items, depth = [], 1
                while depth:
                    item = scan.next(f"the ')' closing the value of {token.value!r}")
                    if item.kind == "punct" and item.value in "(){}":
                        if item.value in "{}":
                            self.fail(item.offset, f"expected ')' to close the value of {token.value!r}, found "
                                                   f"{item.value!r}")
                        depth += 1 if item.value == "(" else -1
                    if depth:
                        items.append(item)
                value = items
            elif value.kind == "punct":
                self.fail(value.offset, f"expected a value after '{token.value} =', found {value.value!r}")
            scan.expect(";", f"after the value of {token.value!r}")
            yield token, value

    def _net(self, token):
        if self.name is not None:
            self.fail(token.offset, "a second 'net' block; a file holds one network")
        self.name = ""
        self.scan.expect("{", "after 'net'")
        for attribute, value in self._attributes("the net block"):
            if attribute.value == "name" and not isinstance(value, list):
                self.name = value.value
            elif attribute.value == "bnexplore_name":
                self.original_name = kept_names(self.scan, attribute, value, "the net block")[0]

    def _node(self, token):
        scan = self.scan
        kind = token.value
        if kind in ("discrete", "continuous"):
            kind = scan.word(f"'node' after '{token.value}'")
        name = scan.word(f"the name of the {kind}")
        if token.value == "continuous":
            self.fail(token.offset, f"node {name!r} is continuous; bnexplore reads discrete networks only: "
                                    "discretise it (or remove it) and save again")
        if kind != "node":
            self.fail(token.offset, f"{name!r} is a {kind} node, which belongs to an influence diagram; bnexplore "
                                    "reads Bayesian networks of chance nodes only")
        if name in self.column:
            self.fail(token.offset, f"node {name!r} is declared twice (first on line "
                                    f"{scan.line(self.lines[self.column[name]])}); remove one")
        scan.expect("{", f"after 'node {name}'")
        states, original = None, {}
        for attribute, value in self._attributes(f"node {name!r}"):
            if attribute.value == "states":
                if not isinstance(value, list) or not value or any(item.kind == "punct" for item in value):
                    self.fail(attribute.offset, f"node {name!r}: expected 'states = (\"s1\" \"s2\" ...);'")
                states = [item.value for item in value]
                try:
                    check_unique(states, f"node {name!r}", "state")
                except BIFError as error:
                    self.fail(attribute.offset, str(error))
            elif attribute.value in ("bnexplore_name", "bnexplore_states"):
                original[attribute.value] = (attribute, kept_names(self.scan, attribute, value, f"node {name!r}"))
        if states is None:
            self.fail(token.offset, f"node {name!r} has no 'states = (\"s1\" \"s2\" ...);'; add it")
        self.column[name] = len(self.names)
        self.names.append(name)
        self.states.append(states)
        self.lines.append(token.offset)
        self.originals.append(original)

    def _variable(self, token, where):
        if token.kind != "word" or token.value not in self.column:
            self.fail(token.offset, f"{where} names {token.value[:30]!r}, which no node declares before it; "
                                    "declare it first")
        return self.column[token.value]

    def _potential(self, token):
        scan = self.scan
        scan.expect("(", "after 'potential'")
        heads, tails, side = [], [], None
        while (item := scan.next("the ')' closing the potential's variables")).value != ")" or item.kind != "punct":
            if item.kind == "punct" and item.value == "|" and side is None:
                side = tails
                continue
            (heads if side is None else tails).append(self._variable(item, "'potential'"))
        if len(heads) != 1:
            self.fail(token.offset, f"'potential' names {len(heads)} variables before '|'; a Bayesian network's "
                                    "potential has one (its child) and its parents after '|'")
        child = heads[0]
        name = self.names[child]
        if child in self.cpts:
            self.fail(token.offset, f"a second potential for {name!r}; remove one")
        if len(set(tails)) < len(tails) or child in tails:
            self.fail(token.offset, f"the potential of {name!r} names a variable twice; list each once")
        scan.expect("{", f"after 'potential ( {name} ... )'")
        data = None
        for attribute, value in self._attributes(f"the potential of {name!r}", raw=("data",)):
            if value is None:
                if data is not None:
                    self.fail(attribute.offset, f"a second 'data' in the potential of {name!r}; keep one")
                data = scan.until(";", f"the 'data' of {name!r}")
        if data is None:
            self.fail(token.offset, f"the potential of {name!r} has no 'data = (...);'; bnexplore reads tables, "
                                    "not expressions (model_data): save the network with its tables")
        text, offset = data
        stray = re.search(r"[{}=|\"]", text)
        if stray:
            self.fail(offset + stray.start(), f"{stray.group()!r} in the 'data' of {name!r}; a 'data' holds "
                                              "numbers in parentheses and ends with ';'")
        if text.count("(") != text.count(")"):
            self.fail(offset, f"the parentheses of the 'data' of {name!r} do not balance; fix them")
        shape = tuple(len(self.states[p]) for p in tails) + (len(self.states[child]),)
        self.cpts[child] = table_of(text.replace("(", " ").replace(")", " "), shape, self.budget,
                                    scan.line(offset), name)
        self.parents[child] = tails
        self.potential_at[child] = token.offset


def write_net(network, path=None):
    """Write a network as Hugin NET text that Hugin, GeNIe, pyAgrum, pgmpy and :func:`read_net` read.

    Names are written as :func:`net_name` makes them (unique within their kind, ignoring case); where that
    differs from the original, the block keeps the original in a ``bnexplore_name`` / ``bnexplore_states``
    attribute, percent-encoded, which other readers skip. Probabilities are written with ``repr`` (the
    shortest text that parses to the same float), the first parent outermost.

    Parameters
    ----------
    network : Network
    path : str or pathlib.Path, optional
        File to write; gzipped when the name ends with ``.gz``.

    Returns
    -------
    str
        The NET text.

    Examples
    --------
    >>> from bnexplore.bif import Network
    >>> net = Network("n", ["x y", "z"], [["<missing>", "a"], ["0", "1"]], [[], [0]],
    ...               [[0.5, 0.5], [[0.1, 0.9], [0.2, 0.8]]])
    >>> print(write_net(net))  # doctest: +NORMALIZE_WHITESPACE
    net
    {
      name = "n";
    }
    node x_y
    {
      states = ("missing" "a");
      bnexplore_name = "x%20y";
      bnexplore_states = "%3Cmissing%3E,a";
    }
    node z
    {
      states = ("0" "1");
    }
    potential ( x_y )
    {
      data = (0.5 0.5);
    }
    potential ( z | x_y )
    {
      data = ((0.1 0.9)
        (0.2 0.8));
    }
    >>> read_net(write_net(net)).names
    ['x y', 'z']
    """
    names = unique_names(network.names, name=net_name)
    states = [unique_names(labels, state=True, name=net_name) for labels in network.states]
    title = net_name(network.name)
    parts = [f'net\n{{\n  name = "{title}";\n{marker("name", [network.name], [title])}}}\n']
    for v, name in enumerate(names):
        listed = " ".join(f'"{state}"' for state in states[v])
        parts.append(f"node {name}\n{{\n  states = ({listed});\n{marker('name', [network.names[v]], [name])}"
                     f"{marker('states', network.states[v], states[v])}}}\n")
    for v, name in enumerate(names):
        given = f" | {' '.join(names[p] for p in network.parents[v])}" if network.parents[v] else ""
        parts.append(f"potential ( {name}{given} )\n{{\n  data = {_data(network.cpts[v])};\n}}\n")
    text = "".join(parts)
    return save_text(text, path)


def _data(cpt):
    """A CPT's numbers nested in parentheses, the first parent outermost, one distribution a line."""
    groups = [f"({' '.join(map(repr, row))})" for row in cpt.reshape(-1, cpt.shape[-1]).tolist()]
    for arity in reversed(cpt.shape[:-1]):
        groups = ["(" + "\n    ".join(groups[i:i + arity]) + ")" for i in range(0, len(groups), arity)]
    return groups[0]
