"""Where the text of a network file comes from: a path, the text itself or an open file, bounded and un-gzipped.

Every network reader (BIF here, the formats of :mod:`bnexplore.formats`) takes
its text through :func:`network_text`, so each has the same bound on what a
file may hold and reads gzip only through :mod:`bnexplore.limits`.
"""

import gzip
import re
import zlib
from pathlib import Path

from bnexplore.errors import BIFError, ResourceError
from bnexplore.limits import advice, gunzip, max_expanded_bytes


def max_text_bytes():
    """The most text a network reader reads, in bytes: an eighth of
    :func:`bnexplore.limits.max_expanded_bytes` (64 MB by default), as parsing
    holds several times the text in tokens. The largest bundled network
    (diabetes) is 5.5 MB of BIF text.

    Examples
    --------
    >>> max_text_bytes() > 1 << 20
    True
    """
    return max_expanded_bytes() // 8


def network_text(source, kind, suffixes, text_marks=("{",)):
    """The text of a network file and the name its file gives the network.

    Parameters
    ----------
    source : str, pathlib.Path or file-like
        A path (plain or ``.gz``); the text itself (a ``str`` holding one of
        ``text_marks``); or an open file (text or bytes, plain or gzipped).
    kind : str
        The format's name in messages ("BIF", "XMLBIF", "Hugin NET").
    suffixes : tuple of str
        The format's file name endings (lower case, with the dot), taken off
        the file's name (and ``.gz``) to name the network.
    text_marks : tuple of str
        A ``str`` holding any of these is the text, not a path.

    Returns
    -------
    text : str
        At most :func:`max_text_bytes` of it; UTF-8, else Latin-1.
    default_name : str or None
        The file's name without its endings; None for text or a stream.

    Raises
    ------
    BIFError
        If the path cannot be read or the gzip is broken.
    ResourceError
        If the text is longer than :func:`max_text_bytes`, or a gzip expands past the bound.

    Examples
    --------
    >>> network_text("network n { }", "BIF", (".bif",))
    ('network n { }', None)
    """
    limit = max_text_bytes()
    if isinstance(source, str) and any(mark in source for mark in text_marks):
        return _bounded(source, f"the {kind} text", kind, limit), None
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            with path.open("rb") as file:
                text = _text_of(file, f"{kind} file {path.name!r}", kind, limit)
        except OSError as error:
            raise BIFError(f"cannot read {kind} file {_clip(str(path))!r}: {error.strerror}; check the path") from None
        endings = "|".join(re.escape(suffix) for suffix in suffixes)
        return text, re.sub(rf"({endings})?(\.gz)?$", "", path.name, flags=re.IGNORECASE)
    if hasattr(source, "read"):
        return _text_of(source, f"the {kind} stream", kind, limit), None
    raise BIFError(
        f"cannot read a {kind} network from a {type(source).__name__}; give a path, {kind} text or an open file",
    )


def save_text(text, path=None):
    """Write a network file's ``text`` to ``path`` as UTF-8, gzipped (without a time stamp, so the bytes are
    the same every time) when the name ends with ``.gz``; nothing without a path. Returns ``text``.

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_text("network n { }", os.path.join(folder, "n.bif.gz"))
    ...     network_text(os.path.join(folder, "n.bif.gz"), "BIF", (".bif",))
    'network n { }'
    ('network n { }', 'n')
    """
    if path is not None:
        path = Path(path)
        data = text.encode("utf-8")
        path.write_bytes(gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)
    return text


def _text_of(file, what, kind, limit):
    """The text of an open file (text or bytes, plain or gzipped), read up to ``limit``."""
    data = _bounded(file.read(limit + 1), what, kind, limit)
    if isinstance(data, str):
        return data
    if data[:2] == b"\x1f\x8b":
        try:
            data = gunzip(data, what, limit)
        except (EOFError, zlib.error) as error:
            raise BIFError(f"{what} is not a valid gzip file ({error}); check the file") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _clip(text, length=80):
    return text if len(text) <= length else text[: length - 1] + "…"


def _bounded(text, what, kind, limit):
    if len(text) > limit:
        raise ResourceError(f"{what} holds more than {limit / (1 << 20):,.1f} MB of {kind} text, the limit of this "
                            f"server ({advice()}); nothing was loaded")
    return text
