"""Reading BIF: the dialect of the bnlearn Bayesian network repository into a :class:`~bnexplore.bif.Network`.

The dialect is Interchange Format 0.15 (Cozman 1998)::

    network name { }
    variable X { type discrete [ 2 ] { yes, no }; property ... ; }
    probability ( X | A, B ) { (a1, b1) 0.1, 0.9; ... default 0.5, 0.5; }
    probability ( Y ) { table 0.2, 0.8; }

Decisions, each enforced by :func:`read_bif`:

- ``//`` and ``/* */`` comments and ``property`` statements are ignored, but
  for ``property bnexplore_name`` / ``bnexplore_states``, where
  :func:`~bnexplore.bif.write_bif` keeps names other BIF readers cannot take
  (see :func:`~bnexplore.bif.bif_name`); anything else outside the three kinds
  of block, and any brace but those of a variable's list of states, is an error.
- A file is refused before it is expanded: more than :func:`~bnexplore.bif.max_text_bytes` of
  text, or tables holding more cells together than the expansion bound of
  :mod:`bnexplore.limits` has for float64 numbers, or no variable at all.
- ``table`` in a conditional block lists the values in the order of the
  JavaBayes reference implementation and of pgmpy: the child varies slowest and
  the parents, in their declared order, vary as in a C array (the last parent
  fastest): ``P(x0|c0), P(x0|c1), ..., P(x1|c0), ...``.
- ``default`` gives the distribution of every parent configuration without a
  row of its own; a configuration with neither is an error.
- A distribution must sum to one within ``SUM_TOLERANCE`` (1e-3, absolute),
  the rounding found in published networks; one that misses one by more than
  1e-9 is then renormalised silently, so a network read, written and read again
  is reproduced bit for bit.
- A network declared as ``unknown`` (every bnlearn file) read from a file takes
  the file's name without ``.bif`` / ``.bif.gz``.
"""

import math
import re
from urllib.parse import unquote

import numpy as np

from bnexplore.bif.network import MAX_CPT_CELLS, Network, check_unique, cycle_text, parent_order
from bnexplore.bif.source import network_text
from bnexplore.errors import BIFError
from bnexplore.limits import advice, max_expanded_bytes

SUM_TOLERANCE = 1e-3
"""Largest accepted distance from one of the sum of a distribution in a file."""

_RENORMALISE_ABOVE = 1e-9
_ORIGINAL = re.compile(r'\s*property\s+bnexplore_(name|states)\s*=\s*"([^"]*)"\s*\Z')
_COMMENT_START = re.compile(r"//|/\*")
_BRACE = re.compile(r"[{}]")
_HEADER = re.compile(r"\s*(network|variable|probability)(?![^\s(])(.*)\Z", re.DOTALL)
_DISCRETE = re.compile(r"\s*type\s+discrete\s*\[\s*([0-9]+)\s*\]\s*\Z", re.DOTALL)
_KEYWORD = re.compile(r"\s*(table|default|property)(?![^\s,])(.*)\Z", re.DOTALL)


def read_bif(source):
    """Read a discrete Bayesian network in BIF.

    Parameters
    ----------
    source : str, pathlib.Path or file-like
        A path to a ``.bif`` or ``.bif.gz`` file; BIF text (a ``str`` holding
        a ``{``); or an open file (text or bytes, plain or gzipped).

    Returns
    -------
    Network

    Raises
    ------
    BIFError
        If the file cannot be read or is malformed; the message gives the line
        number and what was expected there.

    Notes
    -----
    See the module docstring for the dialect and the conventions chosen.

    Examples
    --------
    >>> from bnexplore import bundled
    >>> asia = read_bif(bundled.network_path("asia"))
    >>> asia, asia.states[asia.index("smoke")]
    (Network('asia', 8 variables, 8 arcs), ['yes', 'no'])
    >>> coin = read_bif("network coin { } variable side { type discrete [ 2 ] { heads, tails }; } "
    ...                 "probability ( side ) { table 0.4, 0.6; }")
    >>> coin.names, coin.cpts[0].tolist()
    (['side'], [0.4, 0.6])
    """
    text, default_name = network_text(source, "BIF", (".bif",))
    return _Parser(text, default_name).network()


class _Parser:
    """One pass over comment-free BIF text, block by block.

    Offsets are into the comment-free text, which keeps every newline of the
    original, so line numbers are those of the file. Everything is bounded
    before it is allocated: the text by :func:`~bnexplore.bif.max_text_bytes`, the tables
    together by ``max_cells`` (the expansion bound of :mod:`bnexplore.limits`
    in float64 cells), as a ``default`` row expands a line into a table.
    """

    def __init__(self, text, default_name):
        self.text = text  # the line numbers of a comment never closed
        self.text = self._without_comments(text)
        self.default_name = default_name
        self.max_cells = max_expanded_bytes() // 8
        self.cells = 0
        self.name = None
        self.network_line = 0
        self.original_name = None
        self.originals = {}
        self.names = []
        self.states = []
        self.variable_line = []
        self.column = {}
        self.state_index = []
        self.parents = {}
        self.cpts = {}
        self.block_line = {}

    def fail(self, offset, message):
        raise BIFError(f"BIF line {self._line(offset)}: {message}")

    def _line(self, offset):
        return self.text.count("\n", 0, offset) + 1

    def _without_comments(self, text):
        """``text`` with every ``//`` and ``/* */`` comment replaced by its
        newlines, in one pass (each character is looked at a bounded number of times)."""
        parts = []
        at = 0
        while (start := _COMMENT_START.search(text, at)) is not None:
            parts.append(text[at:start.start()])
            if start.group() == "//":
                end = text.find("\n", start.end())
                end = len(text) if end < 0 else end
            else:
                end = text.find("*/", start.end())
                if end < 0:
                    self.fail(start.start(), "comment '/*' is never closed; add '*/'")
                end += 2
            parts.append("\n" * text.count("\n", start.start(), end))
            at = end
        parts.append(text[at:])
        return "".join(parts)

    def network(self):
        for keyword, header, header_at, body, body_at in self._blocks():
            if keyword == "network":
                self._network_block(header, header_at, body, body_at)
            elif keyword == "variable":
                self._variable_block(header, header_at, body, body_at)
            else:
                self._probability_block(header, header_at, body, body_at)
        if self.name is None:
            self.fail(0, "no 'network' block; start the file with 'network name { }'")
        if not self.names:
            self.fail(self.network_line, "the file declares no variables; a network needs at least one 'variable' "
                                         "block")
        for v, name in enumerate(self.names):
            if v not in self.cpts:
                self.fail(self.variable_line[v], f"variable {name!r} has no 'probability' block; add one")
        parents = [self.parents[v] for v in range(len(self.names))]
        _, cycle = parent_order(parents)
        if cycle:
            self.fail(
                self.block_line[cycle[0]],
                f"the parents form a cycle {cycle_text(cycle, self.names)}; remove one arc",
            )
        cpts = [self.cpts[v] for v in range(len(self.names))]
        names, states = self._original_names()
        return Network(self.original_name or self.name, names, states, parents, cpts)

    def _original_names(self):
        """Variable and state names with the originals that :func:`write_bif` kept in properties put back."""
        names, states = list(self.names), list(self.states)
        for (v, what), (offset, value) in self.originals.items():
            if what == "name":
                names[v] = value[0]
            elif len(value) != len(states[v]):
                self.fail(offset, f"'bnexplore_states' of variable {self.names[v]!r} lists {len(value)} names for "
                                  f"its {len(states[v])} states; give one per state")
            else:
                try:
                    check_unique(value, f"variable {self.names[v]!r}", "state")
                except BIFError as error:
                    self.fail(offset, f"'bnexplore_states': {error}")
                states[v] = value
        first = {}
        for v, name in enumerate(names):
            if name in first:
                self.fail(self.variable_line[v], f"variable {self.names[v]!r} is named {name!r} by its "
                                                 f"'bnexplore_name', as is {self.names[first[name]]!r}; give "
                                                 "each variable a distinct name")
            first[name] = v
        return names, states

    def _property(self, statement, offset, v=None):
        """Keep the original name(s) of a ``property bnexplore_name / bnexplore_states = "...";``
        statement (of variable ``v``, or of the network); other properties are skipped."""
        match = _ORIGINAL.match(statement)
        if match is None:
            return
        what, value = match.groups()
        if v is None and what == "states":
            self.fail(offset, "'bnexplore_states' belongs in a variable block, not the network block; remove it")
        if (v, what) in self.originals or (v is None and self.original_name is not None):
            self.fail(offset, f"a second 'bnexplore_{what}' property in this block; keep one")
        try:
            decoded = [unquote(piece, errors="strict") for piece in value.split(",")]
        except UnicodeDecodeError:
            self.fail(offset, f"'bnexplore_{what}' is not percent-encoded UTF-8; fix or remove it")
        if what == "name" and len(decoded) != 1:
            self.fail(offset, "'bnexplore_name' holds one name, percent-encoded; fix or remove it")
        if v is None:
            self.original_name = decoded[0]
        else:
            self.originals[v, what] = (offset, decoded)

    def _blocks(self):
        """Yield ``(keyword, header, header offset, body, body offset)`` for
        every top-level block ``keyword header { body }``."""
        depth = 0
        end = 0
        for match in _BRACE.finditer(self.text):
            at = match.start()
            if match.group() == "{":
                if depth == 0:
                    opened = at
                    keyword, header, header_at = self._header(end, opened)
                elif depth > 1 or keyword != "variable":
                    self.fail(at, f"'{{' inside {'braces in ' if depth > 1 else ''}a '{keyword}' block; only a "
                                  "variable's list of states is in braces: remove it")
                depth += 1
                continue
            if depth == 0:
                self.fail(at, "'}' closes no block; remove it or add the missing '{'")
            depth -= 1
            if depth == 0:
                yield keyword, header, header_at, self.text[opened + 1:at], opened + 1
                end = at + 1
        if depth:
            self.fail(opened, "this block's '{' is never closed; add '}'")
        rest = self.text[end:]
        if rest.strip():
            self.fail(
                end + len(rest) - len(rest.lstrip()),
                f"expected a block, found {rest.strip()[:30]!r} after the last '}}'",
            )

    def _header(self, start, end):
        """Keyword, rest and offset of the first character of a block header."""
        header = self.text[start:end]
        first = start + len(header) - len(header.lstrip())
        match = _HEADER.match(header)
        if not match:
            self.fail(
                first,
                f"expected 'network', 'variable' or 'probability' before '{{', found {header.strip()[:30]!r}",
            )
        return match.group(1), match.group(2), first

    def _network_block(self, header, at, body, body_at):
        if self.name is not None:
            self.fail(at, "a second 'network' block; a file holds one network")
        name = header.strip().strip('"')
        if name in ("", "unknown") and self.default_name:
            name = self.default_name
        self.name = name or "unknown"
        self.network_line = at
        for statement, offset in self._statements(body, body_at):
            keyword = _KEYWORD.match(statement)
            if keyword and keyword.group(1) == "property":
                self._property(statement, offset)
            elif statement:
                self.fail(offset, f"expected 'property ...;' in the network block, found {statement[:30]!r}")

    def _variable_block(self, header, at, body, body_at):
        name = header.strip()
        if len(_tokens(name)) != 1:
            self.fail(at, f"expected 'variable NAME {{', found {('variable ' + name).strip()!r}")
        if name in self.column:
            self.fail(
                at,
                f"variable {name!r} is declared twice (first on line "
                f"{self._line(self.variable_line[self.column[name]])}); remove one",
            )
        states = self._states(name, body, body_at)
        self.column[name] = len(self.names)
        self.names.append(name)
        self.states.append(states)
        self.state_index.append({s: k for k, s in enumerate(states)})
        self.variable_line.append(at)

    def _states(self, name, body, at):
        found = None
        for statement, offset in self._statements(body, at):
            if not statement:
                continue
            keyword = _KEYWORD.match(statement)
            if keyword and keyword.group(1) == "property":
                self._property(statement, offset, len(self.names))
                continue
            open_at = statement.find("{")
            close_at = statement.rfind("}")
            kind = _DISCRETE.match(statement[:open_at]) if 0 <= open_at < close_at else None
            if kind is None or statement[close_at + 1:].strip():
                self.fail(
                    offset,
                    f"variable {name!r}: expected 'type discrete [ k ] {{ s1, s2, ... }};', found "
                    f"{statement[:40]!r}",
                )
            if found is not None:
                self.fail(offset, f"variable {name!r} has two 'type' statements; keep one")
            found = _tokens(statement[open_at + 1:close_at])
            count = kind.group(1).lstrip("0")
            if count != str(len(found)) or not found:
                self.fail(
                    offset,
                    f"variable {name!r} declares [ {count[:12] or 0} ] states but lists {len(found)}; make them "
                    "agree",
                )
            try:
                check_unique(found, f"variable {name!r}", "state")
            except BIFError as error:
                self.fail(offset, str(error))
        if found is None:
            self.fail(at, f"variable {name!r} has no 'type discrete [ k ] {{ ... }};' statement; add one")
        return found

    def _statements(self, body, at):
        """Yield ``(statement without ';' or surrounding space, offset of its
        first character)``; text after the last ';' must be blank."""
        pieces = body.split(";")
        rest = pieces.pop()
        for piece in pieces:
            stripped = piece.lstrip()
            yield stripped.rstrip(), at + len(piece) - len(stripped)
            at += len(piece) + 1
        if rest.strip():
            self.fail(at + len(rest) - len(rest.lstrip()), f"expected ';' after {rest.strip()[:30]!r}")

    def _probability_block(self, header, at, body, body_at):
        child, parents = self._probability_header(header, at)
        if child in self.cpts:
            self.fail(
                at,
                f"a second 'probability' block for {self.names[child]!r} (first on line "
                f"{self._line(self.block_line[child])}); remove one",
            )
        r = len(self.states[child])
        arities = [len(self.states[p]) for p in parents]
        q = math.prod(arities)
        if q * r > MAX_CPT_CELLS:
            self.fail(
                at,
                f"the CPT of {self.names[child]!r} would have {q * r} cells (more than {MAX_CPT_CELLS}); "
                "give it fewer parents",
            )
        self.cells += q * r
        if self.cells > self.max_cells:
            self.fail(at, f"with the CPT of {self.names[child]!r} ({q * r:,} cells) the network's tables would hold "
                          f"{self.cells:,} cells, more than the {self.max_cells:,} this server allows "
                          f"({advice()}); nothing was allocated")
        rows, whole, default = self._probability_statements(body, body_at, child, parents, r * q)
        table = np.full((q, r), np.nan)
        row_at = np.full(q, body_at, dtype=np.int64)
        if whole:
            (offset, tokens), = whole
            if rows[0]:
                self.fail(
                    rows[1][0],
                    f"{self.names[child]!r} has both a 'table' and rows; give one or the other",
                )
            table[:] = self._numbers(tokens, [offset], r * q, child).reshape(r, q).T
            row_at[:] = offset
        if rows[0]:
            self._fill_rows(table, row_at, rows, child, parents)
        unset = np.isnan(table[:, 0])
        if default and unset.any():
            (offset, tokens), = default
            table[unset] = self._numbers(tokens, [offset], r, child)
            row_at[unset] = offset
        elif unset.any():
            config = int(np.flatnonzero(unset)[0])
            states = ", ".join(self.states[p][k] for p, k in zip(parents, np.unravel_index(config, arities)))
            self.fail(
                body_at,
                f"{self.names[child]!r} has no probabilities for parent states ({states}); add the row or a "
                "'default' row",
            )
        self.cpts[child] = self._normalised(table, row_at, child).reshape(tuple(arities) + (r,))
        self.parents[child] = parents
        self.block_line[child] = at

    def _probability_statements(self, body, at, child, parents, cells):
        """Split a probability block into its rows ``(parent state texts,
        offsets, value tokens)``, its ``table`` and its ``default`` statements (lists
        of ``(offset, tokens)``, at most one each), checking value counts."""
        r = len(self.states[child])
        labels, offsets, tokens = [], [], []
        keyword_statements = {"table": [], "default": [], "property": []}
        for statement, offset in self._statements(body, at):
            if statement[:1] == "(":
                close = statement.find(")")
                if close < 0:
                    self.fail(offset, f"expected ')' after the parent states in {statement[:30]!r}")
                values = statement[close + 1:].replace(",", " ").split()
                if len(values) != r:
                    self._check_count(values, r, child, offset)
                labels.append(statement[1:close])
                offsets.append(offset)
                tokens.extend(values)
                continue
            keyword = _KEYWORD.match(statement)
            if keyword is None:
                if statement:
                    self.fail(
                        offset,
                        "expected '(states) p1, p2, ...;', 'table ...;' or 'default ...;', found "
                        f"{statement[:30]!r}",
                    )
                continue
            kind, values = keyword.group(1), _tokens(keyword.group(2))
            if kind != "property":
                if keyword_statements[kind]:
                    self.fail(offset, f"{self.names[child]!r} has a second '{kind}' statement; keep one")
                self._check_count(values, cells if kind == "table" else r, child, offset)
            keyword_statements[kind].append((offset, values))
        return (labels, offsets, tokens), keyword_statements["table"], keyword_statements["default"]

    def _check_count(self, values, count, child, offset):
        if len(values) != count:
            self.fail(
                offset,
                f"expected {count} probabilities for {self.names[child]!r}, found {len(values)}; fix the "
                "count",
            )

    def _fill_rows(self, table, row_at, rows, child, parents):
        labels, offsets, tokens = rows
        configs = self._configs(labels, offsets, child, parents)
        repeated = np.flatnonzero(np.bincount(configs, minlength=len(table)) > 1)
        if repeated.size:
            second = np.flatnonzero(configs == repeated[0])[1]
            self.fail(
                offsets[second],
                f"this row of {self.names[child]!r} repeats the parent states of an earlier row; keep one",
            )
        r = table.shape[1]
        table[configs] = self._numbers(tokens, offsets, r, child).reshape(-1, r)
        row_at[configs] = offsets

    def _probability_header(self, header, at):
        inside = header.strip()
        if not (inside.startswith("(") and inside.endswith(")")):
            self.fail(
                at,
                f"expected 'probability ( X | parents ) {{', found {('probability ' + inside)[:40]!r}",
            )
        names = [s for s in re.split(r"[\s,|]+", inside[1:-1]) if s]
        if not names:
            self.fail(at, "'probability ( )' names no variable; write 'probability ( X | parents )'")
        indices = []
        for name in names:
            if name not in self.column:
                self.fail(
                    at,
                    f"'probability' block names {name!r}, which no 'variable' block declares before it; "
                    "declare it first",
                )
            indices.append(self.column[name])
        child, parents = indices[0], indices[1:]
        if len(set(indices)) < len(indices):
            self.fail(at, f"'probability' block for {names[0]!r} names a variable twice; list each once")
        return child, parents

    def _configs(self, labels, offsets, child, parents):
        """Mixed-radix parent configuration (last parent fastest) of every
        row, from the texts of the rows' parent states."""
        split = [text.replace(",", " ").split() for text in labels]
        configs = np.zeros(len(split), dtype=np.intp)
        for j, p in enumerate(parents):
            index = self.state_index[p]
            try:
                codes = [index[states[j]] for states in split]
            except (KeyError, IndexError):
                self._fail_on_row(split, offsets, child, parents)
            configs *= len(index)
            configs += codes
        if any(len(states) != len(parents) for states in split):
            self._fail_on_row(split, offsets, child, parents)
        return configs

    def _fail_on_row(self, split, offsets, child, parents):
        """Raise the error of the first row whose parent states are wrong."""
        for states, offset in zip(split, offsets):
            if len(states) != len(parents):
                self.fail(
                    offset,
                    f"row ({', '.join(states)}) of {self.names[child]!r} gives {len(states)} states for "
                    f"{len(parents)} parents; give one per parent",
                )
            for p, label in zip(parents, states):
                if label not in self.state_index[p]:
                    self.fail(
                        offset,
                        f"{label!r} is not a state of {self.names[p]!r} (states: "
                        f"{', '.join(self.states[p])}); fix the row",
                    )

    def _numbers(self, tokens, offsets, per_offset, child):
        """Probabilities from text tokens; token ``i`` came from the statement
        at ``offsets[i // per_offset]``."""
        try:
            values = np.array(tokens, dtype=np.float64)
        except ValueError:
            i = next(i for i, t in enumerate(tokens) if not _is_float(t))
            self.fail(
                offsets[i // per_offset],
                f"{tokens[i]!r} is not a number; probabilities of {self.names[child]!r} must be numbers",
            )
        wrong = np.flatnonzero(~(np.isfinite(values) & (values >= 0)))
        if wrong.size:
            i = int(wrong[0])
            self.fail(
                offsets[i // per_offset],
                f"probability {tokens[i]!r} of {self.names[child]!r} is not a number >= 0; fix it",
            )
        return values

    def _normalised(self, table, row_at, child):
        sums = table.sum(axis=1)
        off = np.abs(sums - 1)
        bad = np.flatnonzero(off > SUM_TOLERANCE)
        if bad.size:
            self.fail(
                int(row_at[bad[0]]),
                f"probabilities of {self.names[child]!r} sum to {sums[bad[0]]:.6g}, not 1; "
                f"fix them (up to {SUM_TOLERANCE} off is renormalised)",
            )
        rescale = off > _RENORMALISE_ABOVE
        table[rescale] /= sums[rescale, None]
        return table


def _tokens(text):
    """Tokens of a list separated by commas and/or white space."""
    return text.replace(",", " ").split()


def _is_float(token):
    try:
        float(token)
    except ValueError:
        return False
    return True

