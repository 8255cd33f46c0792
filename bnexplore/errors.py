"""Exceptions raised by bnexplore, and how each door names options in their messages.

Every error a user can cause derives from :class:`BNExploreError` and carries a
one-line message that names the column, row, line or value at fault and says
what to do. The app and the CLI print ``str(error)``, never a traceback.

A message that tells the user which option to change names it the way the door
they came through does: the Python API says ``max_levels=50``, the command line
``--max-levels 50``, the app the label of its widget. Library code writes
``option("max_levels", 50)`` into the message; the door in use (set with
:func:`door` around its calls; the Python API's by default) renders it.
"""

import contextlib
import contextvars

NO_VALUE = object()  # option(name) without a value: "raise max_levels"


class BNExploreError(Exception):
    """Base class of every error a user can cause."""


class DataError(BNExploreError, ValueError):
    """A table cannot be read, typed, encoded or discretized."""


class BIFError(BNExploreError, ValueError):
    """A BIF network file is malformed (the message names the line)."""


class ScoreError(BNExploreError, ValueError):
    """A local score was asked for something impossible."""


class SearchError(BNExploreError, ValueError):
    """A search was given impossible parameters or graphs."""


class OptionError(BNExploreError, ValueError):
    """An option (API keyword, command-line flag, app widget) was given an impossible value."""


class ResourceError(BNExploreError, MemoryError):
    """A request would need more memory or time than the machine has."""


def python_option(name, value=NO_VALUE, key=None):
    """The Python API's words for an option: ``max_levels``, ``max_levels=50``, ``discretize['age']='uniform3'``.

    Parameters
    ----------
    name : str
        Keyword argument of the library call.
    value : object, optional
        A value for it (``...`` stands for "a value of your choice").
    key : str, optional
        Entry of a dict-valued option (a column name).

    Returns
    -------
    str
    """
    text = name if key is None else f"{name}[{key!r}]"
    if value is NO_VALUE:
        return text
    return f"{text}=..." if value is Ellipsis else f"{text}={value!r}"


_DOOR = contextvars.ContextVar("bnexplore_door", default=python_option)


def option(name, value=NO_VALUE, key=None):
    """An option as the door in use names it, or None when that door cannot set it.

    Parameters are those of :func:`python_option`. A door that has no way to
    set an option (the command line has no per-column ``types``) returns None,
    and the message leaves that suggestion out.
    """
    return _DOOR.get()(name, value, key)


def subject(name, value=NO_VALUE, key=None):
    """Like :func:`option`, but in the Python API's words when the door has none
    (for the option a message is about, which the user did set)."""
    return option(name, value, key) or python_option(name, value, key)


@contextlib.contextmanager
def door(render):
    """Name options in the messages made inside this block with ``render``.

    Parameters
    ----------
    render : callable
        ``render(name, value=NO_VALUE, key=None) -> str or None``, e.g. the
        command line's ``--max-levels 50`` for ``("max_levels", 50)``.
    """
    token = _DOOR.set(render)
    try:
        yield
    finally:
        _DOOR.reset(token)
