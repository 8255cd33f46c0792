"""The error boundary every page runs inside: no traceback ever reaches the browser."""

import logging
import re
from contextlib import contextmanager

import streamlit as st

from bnexplore.errors import BNExploreError

log = logging.getLogger("bnexplore.app")


CODE_SPAN = re.compile(r"(`+).*?\1", re.S)
LINK_SYNTAX = re.compile(r"([\[\]<>])")


def without_links(message):
    r"""A message as Markdown that shows no link: ``[``, ``]``, ``<`` and ``>`` outside code spans are escaped.

    Library messages quote file names and values, which are someone else's text: ``file '[x](http://...)'``
    would be a link. The emphasis a door adds (``*Missing values*``) and code spans stay as they are.

    Examples
    --------
    >>> print(without_links("file '[x](http://e.example)' is empty; see *Separator*"))
    file '\[x\](http://e.example)' is empty; see *Separator*
    """
    parts, end = [], 0
    for span in CODE_SPAN.finditer(message):
        parts += [LINK_SYNTAX.sub(r"\\\1", message[end:span.start()]), span.group()]
        end = span.end()
    return "".join(parts) + LINK_SYNTAX.sub(r"\\\1", message[end:])


def report_error(error, where="this page"):
    """Show an error to the user: the library's own message, or a short report request.

    Parameters
    ----------
    error : Exception
    where : str
        What was being done, for the message of an unexpected error.
    """
    if isinstance(error, BNExploreError):
        st.error(without_links(str(error)))
        return
    log.error("unexpected error on %s", where, exc_info=error)
    st.error(f"Something went wrong on {where} ({type(error).__name__}: {str(error)[:160]}). "
             "Everything you loaded and learned is kept. Please report this, with what you clicked; "
             "the details are in the server's console.")


@contextmanager
def error_boundary(where="this page"):
    """Run a block; show any error with ``st.error`` instead of a traceback.

    A :class:`bnexplore.errors.BNExploreError` shows its message (it says what
    to do); any other exception shows a short description and a request to
    report it, and its traceback goes to the server log only. Streamlit's own
    control flow (rerun, stop, page switch) derives from BaseException and
    passes through untouched.
    """
    try:
        yield
    except Exception as error:  # noqa: BLE001 - this is the boundary
        report_error(error, where)
