"""How the data rooms word and raise their messages: short lists of names, and warnings attributed to the caller.

Every room of :mod:`bnexplore.data` names columns, states and values in its
messages the same way (:func:`short_list`), and emits the warnings it also
returns (``Dataset.warnings``, the readers' notes) with :func:`emit`, so
Python shows them at the user's own line rather than inside bnexplore.
"""

import sys
import warnings
from collections import Counter


def short_list(items, limit=8, quote=True):
    """Items joined for a message: ``'a', 'b', ... (+3 more)``.

    Parameters
    ----------
    items : sequence
    limit : int or None
        Most items shown (None: all).
    quote : bool
        Show each item as its ``repr`` (else as ``str``).

    Returns
    -------
    str

    Examples
    --------
    >>> short_list(["a", "b", "c"], limit=2)
    "'a', 'b', ... (+1 more)"
    """
    shown = [repr(i) if quote else str(i) for i in (items if limit is None else items[:limit])]
    more = len(items) - len(shown)
    return ", ".join(shown) + (f", ... (+{more} more)" if more else "")


def repeated(items):
    """Items that occur more than once, in order of first appearance.

    Examples
    --------
    >>> repeated(["b", "a", "b", "c", "a"])
    ['b', 'a']
    """
    return [item for item, count in Counter(items).items() if count > 1]


def short_repr(value, limit=60):
    """``repr(value)``, cut to ``limit`` characters with ``...``."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def emit(messages):
    """Emit each message as a UserWarning attributed to the first caller outside bnexplore."""
    level, frame = 2, sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "bnexplore":
        level, frame = level + 1, frame.f_back
    for message in messages:
        warnings.warn(message, UserWarning, stacklevel=level)
