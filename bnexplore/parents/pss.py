"""Score caches in the ``pss`` format of URLearning (the exact-search literature's): read and write.

The format (URLearning's ``score`` program writes it; GOBNILP reads it):
``META key = value`` lines first (``score_type``, ``ess``, ...), then per
variable a line ``VAR NAME``, optional ``META`` lines of its own (``arity``,
``values``), and one line ``SCORE P1 ... PK`` per candidate parent set, the
parents by name; blank lines and lines starting with ``#`` are skipped. There
are no counts: a set is a line, so the file's bounded text
(:func:`bnexplore.bif.source.network_text`) bounds what is built. Scores are
log scores, higher is better (URLearning negates them when it reads, to
minimise): read and written unchanged, as in bnexplore (DESIGN.md,
"Conventions").
"""

import math
from pathlib import Path

from ..bif.source import network_text
from ..errors import DataError
from .candidates import ParentSets


def _variables(text, fail):
    """``(meta, [(line, name, [(line, score, parent names)])])`` of a pss text."""
    meta, blocks = {}, []
    for number, line in enumerate(text.splitlines(), 1):
        tokens = line.split()
        if not tokens or tokens[0].startswith("#"):
            continue
        head = tokens[0].upper()
        if head == "META":
            key, _, value = line.split(None, 1)[1].partition("=") if len(tokens) > 1 else ("", "", "")
            if not blocks:
                meta[key.strip().lower()] = value.strip()
        elif head == "VAR":
            if len(tokens) != 2:
                raise fail(number, f"a variable's line must be 'VAR NAME' (2 fields), not {len(tokens)} fields")
            if any(tokens[1] == name for _, name, _ in blocks):
                raise fail(number, f"variable {tokens[1][:40]!r} is listed twice")
            blocks.append((number, tokens[1], []))
        elif not blocks:
            raise fail(number, "a parent set comes before any 'VAR NAME' line (or a header line is not META)")
        else:
            try:
                score = float(tokens[0])
            except ValueError:
                raise fail(number, f"the score {tokens[0][:40]!r} is not a number") from None
            if not math.isfinite(score):
                raise fail(number, f"the score {tokens[0][:40]!r} is not a finite number")
            blocks[-1][2].append((number, score, tokens[1:]))
    if not blocks:
        raise fail(1, "no 'VAR NAME' line: the file holds no variable")
    for number, name, sets in blocks:
        if not sets:
            raise fail(number, f"variable {name[:40]!r} lists no parent set (give at least the empty one)")
    return meta, blocks


def read_pss(source, names=None, score_name=None):
    """Read a URLearning ``.pss`` score cache into candidate parent sets.

    Parameters
    ----------
    source : str, pathlib.Path or file-like
        A path (plain or ``.gz``), the cache's text itself (a ``str`` with a
        line break), or an open file.
    names : list of str, optional
        The file's variable names in the order wanted (default: the file's).
    score_name : str, optional
        What the scores are (default: the file's ``META score_type``, lower
        case, else ``"pss"``).

    Returns
    -------
    ParentSets
        ``stats`` hold ``source`` ("pss") and the file's header ``meta``.

    Raises
    ------
    DataError
        One line naming the file's line: a parent set before any variable, a
        variable listed twice or with no set, a parent that is no variable or
        the variable itself or listed twice, a set listed twice, a score that
        is not a finite number; or names that are not the file's.
    ResourceError
        If the text is longer than the limit, or a gzip expands past it.

    Examples
    --------
    >>> text = "META score_type=BIC\\n\\nVAR rain\\n-1.5\\nVAR wet\\n-2.0 rain\\n-5.0\\n"
    >>> ps = read_pss(text)
    >>> ps.names, ps.sets(1), ps.scores(1).tolist(), ps.score_name
    (['rain', 'wet'], [(0,), ()], [-2.0, -5.0], 'bic')
    """
    text, default_name = network_text(source, "score cache", (".pss",), text_marks=("\n",))
    what = f"score cache {Path(str(source)).name!r}" if default_name is not None else "the score cache"

    def fail(number, message):
        return DataError(f"{what} line {number}: {message}")

    meta, blocks = _variables(text, fail)
    file_names = [name for _, name, _ in blocks]
    if names is not None and sorted(map(str, names)) != sorted(file_names):
        shown = ", ".join(file_names[:6]) + (", ..." if len(file_names) > 6 else "")
        raise DataError(f"{what} names the variables {shown}, not {', '.join(map(str, list(names)[:6]))}")
    final = [str(v) for v in names] if names is not None else file_names
    position = {name: i for i, name in enumerate(final)}
    candidates = [None] * len(final)
    for _, name, sets in blocks:
        v, seen, items = position[name], {}, []
        for number, score, tokens in sets:
            for token in tokens:
                if token not in position:
                    raise fail(number, f"parent {token[:40]!r} is not a variable of the file")
                if token == name:
                    raise fail(number, f"variable {name[:40]!r} is its own parent")
            ps = tuple(sorted(position[token] for token in tokens))
            if len(set(ps)) != len(ps):
                raise fail(number, "a parent is listed twice")
            if ps in seen:
                raise fail(number, f"the parent set is listed twice for this variable (first on line {seen[ps]})")
            seen[ps] = number
            items.append((ps, score))
        candidates[v] = items
    kind = score_name or meta.get("score_type", "").lower() or "pss"
    return ParentSets(final, candidates, kind, {"source": "pss", "meta": meta})


def write_pss(parent_sets, path=None):
    """The ``.pss`` text of candidate parent sets (URLearning and GOBNILP read it), written to ``path`` if given.

    Parameters
    ----------
    parent_sets : ParentSets
        Its names must hold no white space (the format splits on it).
    path : str or pathlib.Path, optional
        File to write the text to.

    Returns
    -------
    str
        The text: a ``META`` header (``pss_version``, ``score_type``), then
        each variable's sets best first, scores with every digit (``repr``).

    Raises
    ------
    DataError
        For a name with white space in it or starting with ``#``, or a score
        that is not finite.

    Examples
    --------
    >>> from bnexplore.parents import ParentSets
    >>> ps = ParentSets(["a", "b"], [[((), -2.0)], [((0,), -1.5), ((), -3.0)]], "bic")
    >>> print(write_pss(ps), end="")
    META pss_version = 0.1
    META score_type = bic
    <BLANKLINE>
    VAR a
    -2.0
    <BLANKLINE>
    VAR b
    -1.5 a
    -3.0
    """
    for name in parent_sets.names:
        if not name or name.startswith("#") or any(c.isspace() for c in name):
            raise DataError(f"variable {name!r} cannot be written in a .pss file (its fields are split at white "
                            "space, and '#' starts a comment): rename it")
    out = ["META pss_version = 0.1", f"META score_type = {parent_sets.score_name}"]
    for v, name in enumerate(parent_sets.names):
        out += ["", f"VAR {name}"]
        if not all(math.isfinite(s) for s in parent_sets.scores(v).tolist()):
            raise DataError(f"variable {parent_sets.names[v]!r} has a score that is not a finite number: a score "
                            "cache holds finite scores only")
        out.extend(" ".join([repr(float(s)), *(parent_sets.names[p] for p in ps)])
                   for ps, s in zip(parent_sets.sets(v), parent_sets.scores(v).tolist()))
    text = "\n".join(out) + "\n"
    if path is not None:
        Path(path).write_text(text)
    return text


__all__ = ["read_pss", "write_pss"]
