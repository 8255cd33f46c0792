"""What the brace-syntax network formats (Hugin NET, bnlearn DSC) share: a scanner over their text that knows
strings, comments and line numbers, and the identifiers their names must be.

- :class:`Scanner` takes a file's text with its comments blanked (outside strings; every newline kept, so a
  line number is the file's) and hands out tokens (a quoted string, one punctuation character, or a word: a run
  of anything else), or the raw text up to a stop character, for the long lists of numbers a table holds; every
  message it raises names the line.
- :func:`identifier` is the name a variable is written under where the format (and the peers that read it:
  pyAgrum, pgmpy, bnlearn) takes C identifiers only.

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

__all__ = ["Scanner", "Token", "identifier"]

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

    Examples
    --------
    >>> scan = Scanner("data = (1 2); }", "NET", r"%[^\\n]*", "{}()=;")
    >>> scan.word("a name"), scan.expect("=", "after it").value, scan.until(";", "the data")
    ('data', '=', (' (1 2)', 6))
    >>> scan.next("the end").value, scan.peek() is None
    ('}', True)
    """

    def __init__(self, text, kind, comment, punctuation):
        self.kind = kind
        self.text = text  # line numbers of a string never closed
        self.text = re.compile(rf'("(?:[^"\\]|\\.)*"?)|{comment}', re.DOTALL).sub(self._blank, text)
        marks = re.escape(punctuation)
        self._token = re.compile(rf'\s*(?:"((?:[^"\\]|\\.)*)"|([{marks}])|([^\s"{marks}]+))', re.DOTALL)
        self.at = 0
        self._peeked = None

    def _blank(self, match):
        """A string as it is; a comment as its newlines (refusing a ``/*`` never closed)."""
        if match.group(1) is not None:
            return match.group(1)
        found = match.group()
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
