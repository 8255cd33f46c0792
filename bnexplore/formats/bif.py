"""BIF in the format registry: :func:`~bnexplore.bif.read_bif` and :func:`~bnexplore.bif.write_bif`, and how a BIF
file starts.

Examples
--------
>>> looks_like("// from bnlearn\\nnetwork unknown {\\n}")
True
"""

import re

from bnexplore.bif import read_bif, write_bif

_START = re.compile(r"\A\s*(?:(?://[^\n]*\n|/\*.*?\*/)\s*)*network\b", re.DOTALL)

__all__ = ["looks_like", "read_bif", "write_bif"]


def looks_like(text):
    """Whether ``text``, the start of a file, is BIF: its first word (comments aside) is ``network``.

    Examples
    --------
    >>> looks_like("network asia {"), looks_like("<?xml version='1.0'?>")
    (True, False)
    """
    return bool(_START.match(text))
