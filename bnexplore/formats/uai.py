"""UAI: the inference competitions' network files (``.uai``) and evidence files (``.evid``), read and written.

A ``.uai`` file is a list of whitespace-separated numbers after its first
word (UAI 2008 to 2022 evaluations)::

    BAYES                 the kind of network (MARKOV files are refused)
    3                     number of variables
    2 2 3                 their cardinalities, in variable order
    3                     number of functions: one table per variable
    1 0                   each function's scope: its size, then variable
    2 0 1                 indices, the child LAST
    2 1 2
    2                     then each table: its number of entries, then the
     0.436 0.564          entries, the LAST variable of the scope varying
    ...                   fastest (so every row of the child sums to one)

Decisions, each enforced by :func:`read_uai`:

- The format holds no names: a file without bnexplore's marks names its
  variables ``X0, X1, ...`` (as :class:`~bnexplore.graphs.DAG` does) and their
  states ``0, 1, ...``. :func:`write_uai` keeps the network's names in comment
  lines, percent-encoded, which :func:`read_uai` reads back (only from these
  marks)::

      # bnexplore network name=my%20net
      # bnexplore variable=0 name=x%20y states=%3Cmissing%3E,a

  pyAgrum and pgmpy both skip ``#`` to the end of a line (pyAgrum writes its
  own names so); neither reads anything after the last table, and pgmpy
  takes no ``c`` comment line (UAI 2016), so ``#`` lines are the one place
  both tolerate. Reading, ``#`` comments and lines starting with a ``c`` word
  are skipped.
- A table follows the standard: the last variable of the scope varies
  fastest. Two peers differ: pyAgrum (3.3) reads and writes the parents of a
  table with the *first* parent fastest after the child, and pgmpy (1.1) with
  the child slowest; a file of theirs with such tables reads here with rows
  that do not sum to one (refused, naming the line) or as the standard says.
- Numbers are written as the shortest decimal that parses back to the same
  float, without an exponent (``0.00001``, not ``1e-05``): pgmpy's reader
  takes no exponent. Any decimal or exponent form is read.
- Function ``i`` is written for variable ``i`` (pyAgrum assumes so); any
  order is read, one function per variable, the child last in its scope.
- A distribution must sum to one within :data:`~bnexplore.bif.SUM_TOLERANCE`;
  one off by more than 1e-9 is renormalised, as the BIF reader does.
- A file is bounded before anything is allocated: its text by
  :func:`~bnexplore.bif.network_text`, each table by
  :data:`~bnexplore.bif.network.MAX_CPT_CELLS`, all tables together by the
  expansion bound of :mod:`bnexplore.limits` in float64 cells.

An evidence file sets variables to states by index: the UAI 2014 form is one
line ``k v1 s1 ... vk sk``; the older form starts with a line holding the
number of evidence sets, each then ``k v1 s1 ...``. Both are read
(:func:`read_uai_evidence`, one set); :func:`write_uai_evidence` writes the
one-line form. Neither pyAgrum nor pgmpy reads or writes evidence files.
"""

import io
import math
import re
from urllib.parse import quote, unquote

import numpy as np

from bnexplore.bif import SUM_TOLERANCE, Network, network_text, save_text
from bnexplore.bif.network import MAX_CPT_CELLS, check_unique, cycle_text, parent_order
from bnexplore.errors import BIFError
from bnexplore.limits import advice, max_expanded_bytes

__all__ = ["looks_like", "read_uai", "read_uai_evidence", "write_uai", "write_uai_evidence"]

RENORMALISE_ABOVE = 1e-9
"""A distribution read that misses one by more than this is divided by its sum (the BIF reader's rule), so a
network written and read again is reproduced bit for bit."""

_COMMENT_LINE = re.compile(r"\s*c(?:\s|\Z)")
_MARKED = re.compile(r"\s*bnexplore\s+(?:network|variable)")
_MARK = re.compile(r"\s*bnexplore\s+(?:network|variable=([0-9]+))\s+name=(\S*)(?:\s+states=(\S*))?\s*\Z")
_INTEGER = re.compile(r"[0-9]+\Z")
_EVIDENCE_TEXT = re.compile(r"[\s0-9]+\Z")


def looks_like(text):
    """Whether ``text``, the start of a file, is UAI: its first word (comments aside) is ``BAYES`` or ``MARKOV``
    and a number follows.

    Examples
    --------
    >>> looks_like("# from pyAgrum\\nBAYES\\n3\\n2 2 3\\n"), looks_like("network asia {")
    (True, False)
    """
    words = []
    for line in text.split("\n"):
        line = line.partition("#")[0]
        if not _COMMENT_LINE.match(line):
            words.extend(line.split()[:2 - len(words)])
        if len(words) == 2:
            return words[0] in ("BAYES", "MARKOV") and bool(_INTEGER.match(words[1]))
    return False


def read_uai(source):
    """Read a Bayesian network from a UAI file.

    Parameters
    ----------
    source : str, pathlib.Path or file-like
        A path to a ``.uai`` or ``.uai.gz`` file; the text itself (a ``str``
        holding a newline); or an open file (text or bytes, plain or gzipped).

    Returns
    -------
    Network
        Variables in the file's order; names and states from bnexplore's
        marks, else ``X0, X1, ...`` and ``0, 1, ...`` (see the module docstring).

    Raises
    ------
    BIFError
        If the file is malformed or a MARKOV network; the message gives the line and what is wrong there.
    ResourceError
        If the text or its tables pass the bounds of :mod:`bnexplore.limits`.

    Examples
    --------
    >>> net = read_uai("BAYES\\n2\\n2 2\\n2\\n1 0\\n2 0 1\\n2\\n0.2 0.8\\n4\\n0.9 0.1\\n0.3 0.7\\n")
    >>> net.names, net.parents, net.cpts[1].tolist()
    (['X0', 'X1'], [[], [0]], [[0.9, 0.1], [0.3, 0.7]])
    """
    text, default_name = network_text(source, "UAI", (".uai",), text_marks=("\n",))
    return _Reader(text, default_name).network()


class _Tokens:
    """The numbers of a UAI or evidence text with the line of each, read in order; bnexplore's marks kept aside."""

    def __init__(self, text, kind):
        self.kind = kind
        self.words, lines, self.marks = [], [], []
        for number, line in enumerate(text.split("\n"), 1):
            line, hash_, comment = line.partition("#")
            if hash_ and _MARKED.match(comment):
                if not (mark := _MARK.match(comment)):
                    self.fail(number, "a bnexplore mark reads 'bnexplore network name=...' or 'bnexplore "
                                      "variable=K name=... states=...'; fix or remove the line")
                self.marks.append((number, mark))
            if _COMMENT_LINE.match(line):
                continue
            words = line.split()
            self.words.extend(words)
            lines.append(np.full(len(words), number, dtype=np.int64))
        self.lines = np.concatenate(lines) if lines else np.zeros(0, dtype=np.int64)
        self.last_line = text.count("\n") + 1
        self.at = 0

    def fail(self, line, message):
        raise BIFError(f"{self.kind} line {line}: {message}")

    def line(self, at=None):
        """The line of word ``at`` (default: the next one); past the end, the last line."""
        at = self.at if at is None else at
        return int(self.lines[at]) if at < len(self.words) else self.last_line

    def left(self):
        return len(self.words) - self.at

    def integer(self, what, least=0):
        """The next word as a whole number >= ``least``; ``what`` names it in messages."""
        if self.at >= len(self.words):
            self.fail(self.last_line, f"the file ends where {what} was expected; it is cut short")
        word = self.words[self.at]
        if not _INTEGER.match(word) or int(word) < least:
            self.fail(self.line(), f"expected {what} (a whole number >= {least}), found {word[:30]!r}")
        self.at += 1
        return int(word)

    def numbers(self, count, what):
        """The next ``count`` words as numbers >= 0 (float64) and the line of each."""
        if self.left() < count:
            self.fail(self.last_line, f"the file ends inside {what}: {count} numbers expected, {self.left()} found; "
                                      "it is cut short")
        words = self.words[self.at:self.at + count]
        lines = self.lines[self.at:self.at + count]
        try:
            values = np.array(words, dtype=np.float64)
            bad = np.flatnonzero(~(np.isfinite(values) & (values >= 0)))
        except ValueError:
            values, bad = None, np.array([i for i, word in enumerate(words) if not _is_float(word)])
        if not bad.size and "_" in "".join(words):
            bad = np.array([i for i, word in enumerate(words) if "_" in word])
        if bad.size:
            i = int(bad[0])
            self.fail(int(lines[i]), f"{words[i][:30]!r} in {what} is not a probability (a number >= 0); fix it")
        self.at += count
        return values, lines


def _is_float(word):
    try:
        float(word)
    except ValueError:
        return False
    return True


class _Reader:
    """One pass over the numbers of a UAI file: preamble, scopes, tables, then the names in bnexplore's marks."""

    def __init__(self, text, default_name):
        self.tokens = _Tokens(text, "UAI")
        self.default_name = default_name

    def network(self):
        tokens = self.tokens
        if not tokens.words:
            tokens.fail(1, "the file holds nothing; a UAI file starts with BAYES")
        kind = tokens.words[0]
        if kind == "MARKOV":
            tokens.fail(tokens.line(0), "this is a MARKOV network (undirected factors), not a Bayesian network; "
                                        "bnexplore reads BAYES files")
        if kind != "BAYES":
            tokens.fail(tokens.line(0), f"expected BAYES first, found {kind[:30]!r}; a UAI Bayesian network file "
                                        "starts with BAYES")
        tokens.at = 1
        n = tokens.integer("the number of variables", 1)
        if n > tokens.left():
            tokens.fail(tokens.line(1), f"{n:,} variables declared, but the file holds fewer numbers; fix the count")
        cards = [tokens.integer(f"the number of states of variable {v}", 1) for v in range(n)]
        functions_line = tokens.line()
        functions = tokens.integer("the number of functions")
        if functions != n:
            tokens.fail(functions_line, f"{functions} functions for {n} variables; a BAYES file has one table "
                                        "(function) per variable")
        scopes, scope_lines = self._scopes(n)
        cpts = self._tables(scopes, scope_lines, cards)
        if tokens.left():
            tokens.fail(tokens.line(), f"expected the end of the file after the last table, found "
                                       f"{tokens.words[tokens.at][:30]!r}; remove it or fix the counts")
        parents = [[] for _ in range(n)]
        tables = [None] * n
        for scope, table in zip(scopes, cpts):
            parents[scope[-1]] = scope[:-1]
            tables[scope[-1]] = table
        name, names, states = self._names(n, cards)
        _, cycle = parent_order(parents)
        if cycle:
            line = scope_lines[next(f for f, scope in enumerate(scopes) if scope[-1] == cycle[0])]
            tokens.fail(line, f"the parents form a cycle {cycle_text(cycle, names)}; remove one arc")
        return Network(name, names, states, parents, tables)

    def _scopes(self, n):
        tokens = self.tokens
        scopes, lines, owner = [], [], {}
        for f in range(n):
            line = tokens.line()
            size = tokens.integer(f"the scope size of function {f}", 1)
            if size > n:
                tokens.fail(line, f"function {f} has a scope of {size} variables, more than the {n} declared")
            scope = [tokens.integer(f"a variable of the scope of function {f}") for _ in range(size)]
            wrong = [v for v in scope if v >= n]
            if wrong:
                tokens.fail(line, f"function {f} names variable {wrong[0]}, which is not declared (variables are "
                                  f"0 to {n - 1})")
            if len(set(scope)) < size:
                tokens.fail(line, f"function {f} names a variable twice in its scope; list each once")
            child = scope[-1]
            if child in owner:
                tokens.fail(line, f"function {f} is a second table for variable {child} (the first is function "
                                  f"{owner[child]}, on line {lines[owner[child]]}); the child is the last "
                                  "variable of a scope: keep one")
            owner[child] = f
            scopes.append(scope)
            lines.append(line)
        return scopes, lines

    def _tables(self, scopes, scope_lines, cards):
        tokens = self.tokens
        sizes = [math.prod(cards[v] for v in scope) for scope in scopes]
        most = max_expanded_bytes() // 8
        total = 0
        for f, size in enumerate(sizes):
            if size > MAX_CPT_CELLS:
                tokens.fail(scope_lines[f], f"the table of variable {scopes[f][-1]} would have {size:,} cells "
                                            f"(more than {MAX_CPT_CELLS:,}); give it fewer parents or states")
            total += size
            if total > most:
                tokens.fail(scope_lines[f], f"with the table of variable {scopes[f][-1]} ({size:,} cells) the "
                                            f"network's tables would hold {total:,} cells, more than the {most:,} "
                                            f"this server allows ({advice()}); nothing was allocated")
        cpts = []
        for f, (scope, size) in enumerate(zip(scopes, sizes)):
            child = scope[-1]
            line = tokens.line()
            count = tokens.integer(f"the number of entries of the table of variable {child}")
            if count != size:
                tokens.fail(line, f"the table of variable {child} has {count} entries; its scope "
                                  f"({', '.join(map(str, scope))}) needs {size}")
            values, lines = tokens.numbers(size, f"the table of variable {child}")
            rows = values.reshape(-1, cards[child])
            sums = rows.sum(axis=1)
            off = np.abs(sums - 1)
            bad = np.flatnonzero(off > SUM_TOLERANCE)
            if bad.size:
                row = int(bad[0])
                tokens.fail(int(lines[row * cards[child]]), f"row {row} of the table of variable {child} sums to "
                                                            f"{sums[row]:.6g}, not 1; a UAI table lists the child "
                                                            "(last in its scope) fastest: fix the numbers or their "
                                                            f"order (up to {SUM_TOLERANCE} off is renormalised)")
            rescale = off > RENORMALISE_ABOVE
            rows[rescale] /= sums[rescale, None]
            cpts.append(rows.reshape([cards[v] for v in scope]))
        return cpts

    def _names(self, n, cards):
        """The network's name, variable names and states: bnexplore's marks where the file has them."""
        tokens = self.tokens
        name = None
        names = [f"X{v}" for v in range(n)]
        states = [[str(k) for k in range(card)] for card in cards]
        named = {}
        for line, mark in tokens.marks:
            variable, written, listed = mark.groups()
            original = self._decoded(line, written)
            if variable is None:
                if name is not None or listed is not None:
                    tokens.fail(line, "a second network mark, or one with states; keep one 'bnexplore network "
                                      "name=...' line")
                name = original
                continue
            v = int(variable)
            if v >= n:
                tokens.fail(line, f"the mark names variable {v}, which is not declared (variables are 0 to {n - 1})")
            if v in named:
                tokens.fail(line, f"a second mark for variable {v} (the first on line {named[v]}); keep one")
            named[v] = line
            names[v] = original
            if listed is not None:
                labels = [self._decoded(line, piece) for piece in listed.split(",")]
                if len(labels) != cards[v]:
                    tokens.fail(line, f"the mark lists {len(labels)} states for variable {v}, which has {cards[v]}; "
                                      "give one per state")
                try:
                    check_unique(labels, f"variable {v}", "state")
                except BIFError as error:
                    tokens.fail(line, str(error))
                states[v] = labels
        first = {}
        for v, label in enumerate(names):
            if label in first:
                tokens.fail(named.get(v, named.get(first[label], 1)),
                            f"variables {first[label]} and {v} are both named {label!r}; give each a distinct name")
            first[label] = v
        return name if name is not None else self.default_name or "unknown", names, states

    def _decoded(self, line, written):
        try:
            return unquote(written, errors="strict")
        except UnicodeDecodeError:
            self.tokens.fail(line, f"{written[:30]!r} in a bnexplore mark is not percent-encoded UTF-8; fix or "
                                   "remove the line")


def _number(p):
    """The shortest decimal that parses back to ``p``, without an exponent (pgmpy's reader takes none)."""
    text = repr(p)
    return np.format_float_positional(p, unique=True, trim="0") if "e" in text else text


def _encoded(label):
    return quote(label, safe="")


def write_uai(network, path=None):
    """Write a network as a UAI file that pyAgrum, pgmpy and :func:`read_uai` read.

    Variable ``i``'s table is function ``i``, its scope the parents in the
    network's order then the child, its entries in the network's own order
    (the last parent, then the child, fastest: the UAI order), one row of the
    child per line. Names and states go in ``# bnexplore`` comment lines (see
    the module docstring), so :func:`read_uai` gives back the same network.

    Parameters
    ----------
    network : Network
    path : str or pathlib.Path, optional
        File to write; gzipped when the name ends with ``.gz``.

    Returns
    -------
    str

    Examples
    --------
    >>> from bnexplore.bif import Network
    >>> net = Network("rain", ["rain", "wet grass"], [["no", "yes"], ["dry", "wet"]], [[], [0]],
    ...               [[0.8, 0.2], [[0.9, 0.1], [0.00001, 0.99999]]])
    >>> print(write_uai(net), end="")
    BAYES
    # bnexplore network name=rain
    # bnexplore variable=0 name=rain states=no,yes
    # bnexplore variable=1 name=wet%20grass states=dry,wet
    2
    2 2
    2
    1 0
    2 0 1
    <BLANKLINE>
    2
     0.8 0.2
    4
     0.9 0.1
     0.00001 0.99999
    >>> read_uai(write_uai(net)).names
    ['rain', 'wet grass']
    """
    parts = ["BAYES\n", f"# bnexplore network name={_encoded(network.name)}\n"]
    parts.extend(f"# bnexplore variable={v} name={_encoded(name)} states={','.join(map(_encoded, labels))}\n"
                 for v, (name, labels) in enumerate(zip(network.names, network.states)))
    parts.append(f"{network.n_vars}\n{' '.join(str(len(labels)) for labels in network.states)}\n{network.n_vars}\n")
    parts.extend(f"{len(ps) + 1} {' '.join(map(str, [*ps, v]))}\n" for v, ps in enumerate(network.parents))
    parts.append("\n")
    for v, table in enumerate(network.cpts):
        rows = table.reshape(-1, len(network.states[v])).tolist()
        parts.append(f"{table.size}\n")
        parts.extend(f" {' '.join(map(_number, row))}\n" for row in rows)
    text = "".join(parts)
    save_text(text, path)
    return text


def read_uai_evidence(source, network):
    """The evidence of a UAI evidence file (``.evid``), by name, for the network it goes with.

    Parameters
    ----------
    source : str, pathlib.Path or file-like
        A path; the evidence itself (a ``str`` of digits and white space); or an open file.
    network : Network
        The network of the ``.uai`` file the evidence is for (as :func:`read_uai` gave it): the file numbers its
        variables and states in that network's order.

    Returns
    -------
    dict
        ``{variable name: state label}``.

    Raises
    ------
    BIFError
        If the file is malformed, holds more than one evidence set, or names a variable or state the network
        does not have; the message gives the line.

    Examples
    --------
    >>> from bnexplore.bif import Network
    >>> net = Network("n", ["a", "b"], [["lo", "hi"], ["no", "yes"]], [[], [0]],
    ...               [[0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]]])
    >>> read_uai_evidence("1 1 0", net), read_uai_evidence("1\\n2 0 1 1 1\\n", net)
    ({'b': 'no'}, {'a': 'hi', 'b': 'yes'})
    """
    if isinstance(source, str) and _EVIDENCE_TEXT.match(source):
        source = io.StringIO(source)
    text, _ = network_text(source, "UAI evidence", (".evid",), text_marks=())
    tokens = _Tokens(text, "UAI evidence")
    if not tokens.words:
        tokens.fail(1, "the file holds nothing; write the number of observed variables, then each one's index "
                       "and state ('0' for none)")
    words = tokens.words
    first, second = (int(w) if _INTEGER.match(w) else None for w in (words + ["", ""])[:2])
    alone = len(words) > 1 and tokens.line(1) != tokens.line(0)  # the older form's count of sets has its own line
    if alone and first == 1 and second is not None and len(words) == 2 + 2 * second:
        tokens.at = 1
    elif alone and first is not None and first > 1 and len(words) != 1 + 2 * first:
        tokens.fail(tokens.line(0), f"the file holds {first} evidence sets (the UAI 2008 form); bnexplore reads "
                                    "one: keep one set")
    count_line = tokens.line()
    count = tokens.integer("the number of observed variables")
    if count > network.n_vars:
        tokens.fail(count_line, f"{count} observed variables, but the network has {network.n_vars}; fix the count")
    evidence, seen = {}, {}
    for _ in range(count):
        line = tokens.line()
        v = tokens.integer("a variable index")
        if v >= network.n_vars:
            tokens.fail(line, f"variable {v} is not in the network (variables 0 to {network.n_vars - 1})")
        state = tokens.integer(f"the state of variable {v}")
        if state >= len(network.states[v]):
            tokens.fail(line, f"variable {v} ({network.names[v]!r}) has no state {state} (states 0 to "
                              f"{len(network.states[v]) - 1})")
        if v in seen:
            tokens.fail(line, f"variable {v} ({network.names[v]!r}) is observed twice; keep one")
        seen[v] = line
        evidence[network.names[v]] = network.states[v][state]
    if tokens.left():
        tokens.fail(tokens.line(), f"expected the end of the file after {count} observed variables, found "
                                   f"{tokens.words[tokens.at][:30]!r}; fix the count")
    return evidence


def write_uai_evidence(evidence, network, path=None):
    """Write evidence as a UAI evidence file, the one-line form of the UAI 2014 evaluation.

    Parameters
    ----------
    evidence : dict
        ``{variable name: state label}`` of ``network``.
    network : Network
        The network as written to the ``.uai`` file (its order numbers variables and states).
    path : str or pathlib.Path, optional
        File to write; gzipped when the name ends with ``.gz``.

    Returns
    -------
    str
        ``k v1 s1 ... vk sk`` and a newline, variables in the network's order.

    Raises
    ------
    BIFError
        If a variable or state is not in the network.

    Examples
    --------
    >>> from bnexplore.bif import Network
    >>> net = Network("n", ["a", "b"], [["lo", "hi"], ["no", "yes"]], [[], [0]],
    ...               [[0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]]])
    >>> write_uai_evidence({"b": "yes", "a": "lo"}, net)
    '2 0 0 1 1\\n'
    """
    pairs = []
    for name, label in evidence.items():
        v = network.index(name)
        if label not in network.states[v]:
            raise BIFError(f"{label!r} is not a state of {name!r} (states: {', '.join(network.states[v])}); "
                           "give one of them")
        pairs.append((v, network.states[v].index(label)))
    text = " ".join(map(str, [len(pairs), *(number for pair in sorted(pairs) for number in pair)])) + "\n"
    save_text(text, path)
    return text
