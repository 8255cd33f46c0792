"""Score caches in the ``.jkl`` format GOBNILP and BLIP exchange: read into, and write from, :class:`ParentSets`.

The format (GOBNILP's "local scores" files, BLIP's ``.jkl``): the first line
holds the number of variables; then per variable a line ``VARIABLE COUNT``
followed by ``COUNT`` lines ``SCORE K P1 ... PK``, one per candidate parent
set. BLIP names variables and parents by their index ``0..n-1``; GOBNILP may
name them (``asia 3``, ``-12.5 1 smoke``). Blank lines and lines starting
with ``#`` (BLIP's comments) are skipped. Scores are log scores, higher is
better, as in bnexplore (DESIGN.md, "Conventions"): they are read and written
unchanged, with no change of sign.

A cache is bounded before anything is built from it: its text is read through
:func:`bnexplore.bif.source.network_text` (at most ``max_text_bytes``, gzip
bounded by :mod:`bnexplore.limits`), and every count it declares is checked
against the lines left before it is trusted, so a header cannot make the
reader allocate more than the file holds.
"""

import math
from pathlib import Path

from ..bif.source import network_text
from ..errors import DataError
from .candidates import ParentSets

SUFFIXES = (".jkl",)
"""File name endings of score caches (taken off the file's name; ``.gz`` too)."""


def _content(line):
    """Whether a line holds data: not blank, not a '#' comment (BLIP writes those first)."""
    return bool(line.strip()) and not line.lstrip().startswith("#")


class _Lines:
    """The lines of a cache (not blank, not a '#' comment) read one at a time, split only when read (the
    text's lines are held once, not their tokens), errors naming the line."""

    def __init__(self, text, what):
        self.what = what
        self.lines = text.splitlines()
        self.content = sum(1 for line in self.lines if _content(line))
        self.at = 0  # index of the next line to look at
        self.used = 0  # content lines read
        self.last = 0  # number of the last line read

    def left(self):
        return self.content - self.used

    def fail(self, message, number=None):
        return DataError(f"{self.what} line {max(self.last, 1) if number is None else number}: {message}")

    def next(self, expected):
        while self.at < len(self.lines) and not _content(self.lines[self.at]):
            self.at += 1
        if self.at >= len(self.lines):
            raise DataError(f"{self.what} line {self.last + 1}: the file ends where {expected} was expected "
                            "(truncated, or a count larger than the sets listed)")
        self.at += 1
        self.used += 1
        self.last = self.at
        return self.at, self.lines[self.at - 1].split()

    def following(self):
        """The number of the next content line (for lines beyond the counts)."""
        while not _content(self.lines[self.at]):
            self.at += 1
        return self.at + 1

    def count(self, token, number, what, most):
        """``token`` as a whole number in ``[0, most]``."""
        try:
            value = int(token)
        except ValueError:
            raise self.fail(f"{what} {token[:40]!r} is not a whole number", number) from None
        if value < 0:
            raise self.fail(f"{what} {value} is negative", number)
        if value > most:
            raise self.fail(f"{what} {value} is more than the {most} the file can hold here", number)
        return value


def _blocks(lines):
    """``(header number, variable token, [(line number, score, parent tokens)])`` per variable, counts checked."""
    number, tokens = lines.next("the number of variables")
    if len(tokens) != 1:
        raise lines.fail(f"the first line must hold the number of variables alone, not {len(tokens)} fields", number)
    n = lines.count(tokens[0], number, "the number of variables", lines.left())
    if n == 0:
        raise lines.fail("the number of variables is 0", number)
    blocks = []
    for _ in range(n):
        number, tokens = lines.next(f"variable {len(blocks) + 1} of {n}'s line 'VARIABLE COUNT'")
        if len(tokens) != 2:
            raise lines.fail(f"a variable's line must be 'VARIABLE COUNT' (2 fields), not {len(tokens)} fields", number)
        m = lines.count(tokens[1], number, f"variable {tokens[0][:40]!r}'s number of parent sets", lines.left())
        if m == 0:
            raise lines.fail(f"variable {tokens[0][:40]!r} lists no parent set (give at least the empty one)", number)
        sets = []
        for _ in range(m):
            row, fields = lines.next(f"a parent set of {tokens[0][:40]!r} ('SCORE K P1 ... PK')")
            if len(fields) < 2:
                raise lines.fail("a parent set's line must be 'SCORE K P1 ... PK'", row)
            try:
                score = float(fields[0])
            except ValueError:
                raise lines.fail(f"the score {fields[0][:40]!r} is not a number", row) from None
            if not math.isfinite(score):
                raise lines.fail(f"the score {fields[0][:40]!r} is not a finite number", row)
            k = lines.count(fields[1], row, "the number of parents", n - 1)
            if len(fields) != 2 + k:
                raise lines.fail(f"the line says {k} parents but lists {len(fields) - 2}", row)
            sets.append((row, score, tuple(fields[2:])))
        blocks.append((number, tokens[0], sets))
    if lines.left():
        raise lines.fail("more lines than the counts declare (a count smaller than the sets listed?)",
                         lines.following())
    return blocks


def _indices(blocks, lines):
    """Variable position per block and a resolver of parent tokens: BLIP's indices or GOBNILP's names."""
    n = len(blocks)
    tokens = [token for _, token, _ in blocks]
    if all(token.lstrip("-").isdigit() for token in tokens):
        seen = {}
        for number, token, _ in blocks:
            v = int(token)
            if not 0 <= v < n:
                raise lines.fail(f"variable index {v} is outside 0..{n - 1}", number)
            if v in seen:
                raise lines.fail(f"variable {v} is listed twice (first on line {seen[v]})", number)
            seen[v] = number
        position = {str(v): v for v in range(n)}
        order = [int(token) for token in tokens]
        kind = "index"
    else:
        position = {}
        for number, token, _ in blocks:
            if token in position:
                raise lines.fail(f"variable {token[:40]!r} is listed twice", number)
            position[token] = len(position)
        order = list(range(n))
        kind = "name"

    def parent(token, row, child):
        v = position.get(token)
        if v is None:
            what = f"parent index {token[:40]}" if kind == "index" else f"parent {token[:40]!r}"
            raise lines.fail(f"{what} is not a variable of the file" + (f" (0..{n - 1})" if kind == "index" else ""),
                             row)
        if v == child:
            raise lines.fail(f"variable {tokens[order.index(child)][:40]!r} is its own parent", row)
        return v

    return order, parent, kind


def read_jkl(source, names=None, score_name="jkl"):
    """Read a GOBNILP/BLIP ``.jkl`` score cache into candidate parent sets.

    Parameters
    ----------
    source : str, pathlib.Path or file-like
        A path (plain or ``.gz``), the cache's text itself (a ``str`` with a
        line break), or an open file.
    names : list of str, optional
        The variables' names. With an index-form file (BLIP's) they name
        variables ``0..n-1`` (default ``X0..Xn-1``); with a names-form file
        (GOBNILP's) they must be the file's names, and give their order
        (default: the file's order).
    score_name : str
        What the scores are, kept on the result (a cache does not say).

    Returns
    -------
    ParentSets
        ``stats`` hold ``source`` ("jkl") and ``form`` ("index" or "name").

    Raises
    ------
    DataError
        One line naming the file's line: a truncated file, a count that does
        not match the lines, a variable listed twice, a parent out of range or
        unknown, a variable as its own parent, a set listed twice, a score
        that is not a finite number; or names that do not fit the file.
    ResourceError
        If the text is longer than the limit, or a gzip expands past it.

    Examples
    --------
    >>> ps = read_jkl("2\\n0 2\\n-3.5 1 1\\n-4.0 0\\n1 1\\n-2.0 0\\n")
    >>> ps.names, ps.sets(0), ps.scores(0).tolist()
    (['X0', 'X1'], [(1,), ()], [-3.5, -4.0])
    >>> read_jkl("2\\nrain 1\\n-1 0\\nwet 2\\n-2 1 rain\\n-5 0\\n").sets(1)
    [(0,), ()]
    """
    text, default_name = network_text(source, "score cache", SUFFIXES, text_marks=("\n",))
    what = f"score cache {Path(str(source)).name!r}" if default_name is not None else "the score cache"
    lines = _Lines(text, what)
    blocks = _blocks(lines)
    order, parent, form = _indices(blocks, lines)
    n = len(blocks)
    file_names = [token for _, token, _ in blocks]
    if form == "name":
        if names is not None and sorted(map(str, names)) != sorted(file_names):
            raise DataError(f"{what} names the variables {_listed(file_names)}, not {_listed(names)}")
        final = list(names) if names is not None else file_names
    else:
        if names is not None and len(names) != n:
            raise DataError(f"{what} holds {n} variables but {len(names)} names were given")
        final = list(names) if names is not None else [f"X{v}" for v in range(n)]
    moved = [final.index(file_names[i]) for i in range(n)] if form == "name" else list(range(n))
    candidates = [None] * n
    for (number, _, sets), v in zip(blocks, order):
        seen = {}
        items = []
        for row, score, tokens in sets:
            ps = tuple(sorted(moved[parent(token, row, v)] for token in tokens))
            if len(set(ps)) != len(ps):
                raise lines.fail("a parent is listed twice", row)
            if ps in seen:
                raise lines.fail(f"the parent set is listed twice for this variable (first on line {seen[ps]})", row)
            seen[ps] = row
            items.append((ps, score))
        candidates[moved[v]] = items
    return ParentSets(final, candidates, score_name, {"source": "jkl", "form": form})


def _listed(names, most=6):
    shown = ", ".join(map(str, list(names)[:most]))
    return shown + (", ..." if len(names) > most else "")


def write_jkl(parent_sets, path=None, names=False):
    """The ``.jkl`` text of candidate parent sets (GOBNILP and BLIP read it), written to ``path`` if given.

    Parameters
    ----------
    parent_sets : ParentSets
    path : str or pathlib.Path, optional
        File to write the text to.
    names : bool
        False (default): variables and parents by index, the form both
        GOBNILP and BLIP read; True: by name (GOBNILP only; names must hold
        no white space).

    Returns
    -------
    str
        The text: scores with every digit (``repr``), so reading it back
        gives the same floats; each variable's sets best first.

    Raises
    ------
    DataError
        For a score that is not finite; with ``names=True``, for a name with
        white space in it (the format splits on it).

    Examples
    --------
    >>> from bnexplore.parents import ParentSets
    >>> ps = ParentSets(["a", "b"], [[((), -2.0)], [((0,), -1.5), ((), -3.0)]], "bic")
    >>> print(write_jkl(ps), end="")
    2
    0 1
    -2.0 0
    1 2
    -1.5 1 0
    -3.0 0
    """
    labels = [str(v) for v in range(parent_sets.n_vars)]
    if names:
        for name in parent_sets.names:
            if not name or any(c.isspace() for c in name):
                raise DataError(f"variable {name!r} cannot be written by name in a .jkl file (white space "
                                "separates its fields): write by index")
        labels = list(parent_sets.names)
    out = [str(parent_sets.n_vars)]
    for v in range(parent_sets.n_vars):
        sets, scores = parent_sets.sets(v), parent_sets.scores(v).tolist()
        if not all(math.isfinite(s) for s in parent_sets.scores(v).tolist()):
            raise DataError(f"variable {parent_sets.names[v]!r} has a score that is not a finite number: a score "
                            "cache holds finite scores only")
        out.append(f"{labels[v]} {len(sets)}")
        out.extend(" ".join([repr(float(s)), str(len(ps)), *(labels[p] for p in ps)]) for ps, s in zip(sets, scores))
    text = "\n".join(out) + "\n"
    if path is not None:
        Path(path).write_text(text)
    return text


__all__ = ["read_jkl", "write_jkl"]
