"""What the brace-syntax network formats (Hugin NET, bnlearn DSC) share: a scanner over their text that knows
strings, comments and line numbers, and the identifiers their names must be.

- :class:`Scanner` takes a file's text with its comments blanked (outside strings; every newline kept, so a
  line number is the file's) and hands out tokens (a quoted string, one punctuation character, or a word: a run
  of anything else), or the raw text up to a stop character, for the long lists of numbers a table holds; every
  message it raises names the line.
- :func:`identifier` is the name a variable is written under where the format (and the peers that read it:
  pyAgrum, pgmpy, bnlearn) takes C identifiers only.
- :func:`marker` writes the ``bnexplore_name = "...";`` / ``bnexplore_states = "...";`` statement that keeps
  original names beside the safe ones (percent-encoded, :func:`~bnexplore.formats.xmlnet.encoded`);
  :func:`kept_names` reads one and :func:`put_back` gives the originals back.

Examples
--------
>>> scan = Scanner('node "a b" { x = 1; }', "NET", r"%[^\\n]*", "{}=;")
>>> [scan.next("a token").value for _ in range(4)]
['node', 'a b', '{', 'x']
"""

import re
from dataclasses import dataclass

from bnexplore.bif import bif_name
from bnexplore.errors import BIFError
from bnexplore.formats.xmlnet import decoded, encoded

__all__ = ["Scanner", "Token", "identifier", "kept_names", "marker", "put_back"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_NOT_IDENTIFIER = re.compile(r"[^A-Za-z0-9_]+")
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def identifier(label, reserved):
    """``label`` itself when it is a C identifier and no word of ``reserved`` (compared in lower case), else an
    identifier made from it: :func:`~bnexplore.bif.bif_name` (accents dropped, a leading digit behind ``_``)
    with every other character run turned to ``_``, and ``_`` after a reserved word.

    Parameters
    ----------
    label : str
    reserved : set of str
        The format's keywords, lower case.

    Returns
    -------
    str

    Examples
    --------
    >>> identifier("x y", {"node"}), identifier("Node", {"node"}), identifier("1.5-a", set())
    ('x_y', 'Node_', '_1_5_a')
    """
    if _IDENTIFIER.match(label) and label.lower() not in reserved:
        return label
    text = _NOT_IDENTIFIER.sub("_", bif_name(label))
    return text + "_" if text.lower() in reserved else text


def marker(what, original, written, indent="  "):
    """The statement keeping ``original`` (a list of names) as ``bnexplore_<what>`` where ``written`` differs
    from it, else ``""``.

    Examples
    --------
    >>> marker("name", ["x y"], ["x_y"]), marker("states", ["a"], ["a"])
    ('  bnexplore_name = "x%20y";\\n', '')
    """
    if original == written:
        return ""
    return f'{indent}bnexplore_{what} = "{",".join(map(encoded, original))}";\n'


def kept_names(scan, attribute, value, what):
    """The names a ``bnexplore_name`` / ``bnexplore_states`` statement keeps (its ``attribute`` token and
    ``value``, of ``what`` for messages), decoded; a BIFError naming the line if it is not a quoted string of
    percent-encoded UTF-8.

    Examples
    --------
    >>> scan = Scanner('bnexplore_states = "a%20b,c";', "DSC", "//.*", "=;")
    >>> attribute, _, value = scan.next("x"), scan.next("="), scan.next("a value")
    >>> kept_names(scan, attribute, value, "node 'x'")
    ['a b', 'c']
    """
    if not isinstance(value, Token) or value.kind != "string":
        scan.fail(attribute.offset, f"'{attribute.value}' of {what} must be a quoted string; fix or remove it")
    line = scan.line(attribute.offset)
    pieces = value.value.split(",")
    if attribute.value == "bnexplore_name" and len(pieces) != 1:
        scan.fail(attribute.offset, f"'bnexplore_name' of {what} holds one name, percent-encoded; fix or remove it")
    return [decoded(piece, scan.kind, line, attribute.value) for piece in pieces]


def put_back(scan, names, states, kept):
    """``names`` and ``states`` with the originals of the markers put back.

    Parameters
    ----------
    scan : Scanner
        For messages.
    names, states : list
        As the file writes them.
    kept : list of dict
        For every variable, ``{"bnexplore_name" or "bnexplore_states": (attribute token, names)}``.

    Returns
    -------
    names, states : list

    Examples
    --------
    >>> put_back(Scanner("", "DSC", "//", ";"), ["x_y"], [["a"]], [{"bnexplore_name": (None, ["x y"])}])
    (['x y'], [['a']])
    """
    names, states = list(names), list(states)
    for v, found in enumerate(kept):
        if "bnexplore_name" in found:
            names[v] = found["bnexplore_name"][1][0]
        if "bnexplore_states" in found:
            attribute, labels = found["bnexplore_states"]
            if len(labels) != len(states[v]):
                scan.fail(attribute.offset, f"'bnexplore_states' of {names[v]!r} lists {len(labels)} names for its "
                                            f"{len(states[v])} states; give one per state")
            states[v] = labels
    return names, states


@dataclass(frozen=True)
class Token:
    """One token: ``kind`` is ``"string"`` (``value`` without its quotes, escapes undone), ``"punct"`` or
    ``"word"``; ``offset`` is where it starts in the scanned text.

    Examples
    --------
    >>> Token("word", "net", 0).value
    'net'
    """

    kind: str
    value: str
    offset: int


class Scanner:
    """Tokens of a brace-syntax file, one at a time, with the line of each for messages.

    Parameters
    ----------
    text : str
        The file's text.
    kind : str
        The format's name at the head of every message ("Hugin NET").
    comment : str
        A regular expression matching one comment of the format; comments are blanked outside strings.
    punctuation : str
        The characters that are tokens by themselves.
    kept : str, optional
        A regular expression a whole comment may match whose first group is read as text, not blanked: a
        statement a writer hid from other readers in a comment.

    Examples
    --------
    >>> scan = Scanner("data = (1 2); }", "NET", r"%[^\\n]*", "{}()=;")
    >>> scan.word("a name"), scan.expect("=", "after it").value, scan.until(";", "the data")
    ('data', '=', (' (1 2)', 6))
    >>> scan.next("the end").value, scan.peek() is None
    ('}', True)
    """

    def __init__(self, text, kind, comment, punctuation, kept=None):
        self.kind = kind
        self._kept = kept and re.compile(kept)
        self.text = text  # line numbers of a string never closed
        self.text = re.compile(rf'("(?:[^"\\\n]|\\.)*"?)|{comment}', re.DOTALL).sub(self._blank, text)
        marks = re.escape(punctuation)
        self._token = re.compile(rf'\s*(?:"((?:[^"\\\n]|\\.)*)"|([{marks}])|([^\s"{marks}]+))', re.DOTALL)
        self.at = 0
        self._peeked = None

    def _blank(self, match):
        """A string as it is; a comment as its newlines, or as the statement it keeps (refusing a ``/*`` never
        closed)."""
        if match.group(1) is not None:
            return match.group(1)
        found = match.group()
        kept = self._kept and self._kept.fullmatch(found)
        if kept:
            return kept.group(1)
        if found.startswith("/*") and not found.endswith("*/"):
            self.fail(match.start(), "comment '/*' is never closed; add '*/'")
        return "\n" * found.count("\n")

    def line(self, offset):
        """The line of ``offset`` (1 for the first)."""
        return self.text.count("\n", 0, offset) + 1

    def fail(self, offset, message):
        """Raise a BIFError naming the line of ``offset``."""
        raise BIFError(f"{self.kind} line {self.line(offset)}: {message}")

    def peek(self):
        """The next token without taking it; None at the end of the text."""
        if self._peeked is None:
            match = self._token.match(self.text, self.at)
            if match is None:
                rest = self.text[self.at:]
                if rest.strip():
                    self.fail(self.at + len(rest) - len(rest.lstrip()), "this string's '\"' is never closed; add "
                                                                        "the closing '\"'")
                return None
            string, punct, word = match.groups()
            offset = match.start(match.lastindex) - (string is not None)
            if string is not None:
                self._peeked = Token("string", _ESCAPE.sub(r"\1", string), offset), match.end()
            else:
                self._peeked = Token("punct" if punct else "word", punct or word, offset), match.end()
        return self._peeked[0]

    def next(self, what):
        """Take the next token; at the end of the text, a BIFError saying ``what`` was expected there."""
        token = self.peek()
        if token is None:
            self.fail(len(self.text), f"the file ends where {what} should be; it is cut short: complete it")
        self.at = self._peeked[1]
        self._peeked = None
        return token

    def expect(self, punct, what):
        """Take the punctuation ``punct``; a BIFError naming the line when something else comes."""
        token = self.next(f"'{punct}' {what}")
        if token.value != punct or token.kind != "punct":
            self.fail(token.offset, f"expected '{punct}' {what}, found {token.value[:30]!r}")
        return token

    def word(self, what):
        """Take a word (a name or a number); a BIFError naming the line when something else comes."""
        token = self.next(what)
        if token.kind != "word":
            self.fail(token.offset, f"expected {what}, found {token.value[:30]!r}")
        return token.value

    def until(self, stop, what):
        """The raw text up to the next ``stop`` character and its offset, taking the ``stop`` too."""
        self.peek()  # the position after white space
        start = self.at
        end = self.text.find(stop, start)
        if end < 0:
            self.fail(start, f"{what} never ends with '{stop}'; the file is cut short: complete it")
        self.at = end + 1
        self._peeked = None
        return self.text[start:end], start

    def skip_block(self, what):
        """Take tokens up to the ``}`` closing a block whose ``{`` was just taken (nested braces included)."""
        depth = 1
        while depth:
            token = self.next(f"the '}}' closing {what}")
            if token.kind == "punct" and token.value in "{}":
                depth += 1 if token.value == "{" else -1
