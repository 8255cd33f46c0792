"""The bytes of a table: where they are, what messages call them, which format they hold, how wide it may be.

A :class:`Source` wraps a path, bytes or an upload: it reads a path from disk
whenever asked (never holding it whole), decompresses gzip through
:class:`bnexplore.limits.BoundedStream`, and tells the format by the content
(Parquet starts with ``PAR1``, Feather and Arrow IPC with ``ARROW1``; anything
else is CSV text). The bounds every format shares live here too: at most
:data:`MAX_COLUMNS` columns (:func:`check_width`), names that are unique
(:func:`check_names`) and that a command line can type (:func:`named`).
Nothing here needs Arrow: the rooms that parse the bytes open Arrow streams
over them.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import zlib
from pathlib import Path

from ..errors import DataError
from ..limits import BoundedStream
from .messages import short_list

CSV, PARQUET, FEATHER = "CSV", "Parquet", "Feather"
TABLE_SUFFIXES = {".csv": CSV, ".txt": CSV, ".tsv": CSV, ".gz": CSV, ".parquet": PARQUET, ".pq": PARQUET,
                  ".feather": FEATHER, ".arrow": FEATHER, ".ipc": FEATHER, ".arrows": FEATHER}
"""The format a file name's suffix promises (a Parquet or Feather name on other content is refused)."""
_MAGIC = {PARQUET: "PAR1", FEATHER: "ARROW1"}
PREFIX = 1 << 16
"""Bytes sniffed for the format, the separator and binary content."""
MAX_COLUMNS = 10_000
"""Most columns a table may have: a wider file is refused before its columns are allocated (a network over
more variables cannot be learned in useful time; Arrow and pandas spend memory per column before any row)."""


class Source:
    """The bytes of a table: where they are, what messages call them, which format they hold.

    A path is read from disk whenever it is opened (never held whole); bytes
    and buffers are kept as given.

    Parameters
    ----------
    path_or_buffer : str, os.PathLike, bytes or file-like
    name : str, optional
        File name of a buffer, used in messages (by default a buffer's own
        ``name``).

    Attributes
    ----------
    path : pathlib.Path or None
    data : bytes or None
        The bytes of a buffer (None for a path).
    name : str or None
        File name, without folders.
    label : str
        What messages call the table (``"file 'x.csv'"``, ``"the upload"``).
    gzip : bool
        Whether the bytes are gzip-compressed.
    prefix : bytes
        The first :data:`PREFIX` bytes (decompressed when gzip), for sniffing.
    format : str
        :data:`CSV`, :data:`PARQUET` or :data:`FEATHER`.

    Examples
    --------
    >>> source = Source(b"a,b\\n1,2\\n")
    >>> source.format, source.label, source.gzip
    ('CSV', 'the data', False)
    """

    def __init__(self, path_or_buffer, name=None):
        self.path, self.data = None, None
        if isinstance(path_or_buffer, (str, os.PathLike)):
            self.path = Path(path_or_buffer)
            name = name or self.path.name
        elif isinstance(path_or_buffer, (bytes, bytearray, memoryview)):
            self.data = path_or_buffer
        elif hasattr(path_or_buffer, "getvalue") or hasattr(path_or_buffer, "read"):
            reader = getattr(path_or_buffer, "getvalue", None) or path_or_buffer.read
            self.data = reader()
            own = getattr(path_or_buffer, "name", None)
            name = name or (own if isinstance(own, (str, os.PathLike)) else None)
        else:
            raise DataError(f"cannot read a table from {type(path_or_buffer).__name__}; "
                            f"give a path, bytes or a file-like object")
        if isinstance(self.data, str):
            self.data = self.data.encode("utf-8")
        self.name = os.path.basename(str(name)) if name else None
        if self.name:
            self.label = f"file {self.name!r}"
        else:
            self.label = "the data" if isinstance(path_or_buffer, (bytes, bytearray, memoryview)) else "the upload"
        with self._open_raw() as raw:
            self.gzip = raw.read(2) == b"\x1f\x8b"
        self.prefix = next(self.chunks(PREFIX), b"")
        self.format = self._sniff()

    def _open_raw(self):
        """The stored bytes as an open binary file (DataError naming a path that cannot be opened)."""
        if self.path is None:
            return io.BytesIO(self.data)
        try:
            return open(self.path, "rb")
        except FileNotFoundError:
            raise DataError(f"file not found: {str(self.path)!r}; check the path") from None
        except OSError as error:
            raise DataError(f"cannot read {str(self.path)!r}: {error.strerror or error}") from None

    def chunks(self, size=1 << 20):
        """The (decompressed) bytes, ``size`` at a time (gzip bounded by :class:`~bnexplore.limits.BoundedStream`)."""
        with self._open_raw() as raw:
            stream = BoundedStream(gzip.GzipFile(fileobj=raw), self.label) if self.gzip else raw
            try:
                while chunk := stream.read(size):
                    yield chunk
            except (OSError, EOFError, zlib.error) as error:
                raise self.gzip_error(error) from None

    def gzip_error(self, error):
        """DataError for gzip content that does not decompress (``error``: what the decompressor said)."""
        return DataError(f"{self.label} looks gzip-compressed but cannot be decompressed ({error})")

    def size(self):
        """Number of (compressed) bytes."""
        return self.path.stat().st_size if self.path is not None else len(memoryview(self.data))

    def file_range(self, start, end):
        """Bytes ``start .. end`` of a path's file (to its end when ``end`` is None), as a raw stream."""
        return _FileRange(self.path, start, end)

    def _sniff(self):
        """The format the content holds, or DataError when a Parquet or Feather name promises another."""
        head = self.prefix
        found = None
        if not self.gzip and head[:4] == b"PAR1":
            found = PARQUET
        elif not self.gzip and (head[:6] == b"ARROW1" or head[:4] in (b"FEA1", b"\xff\xff\xff\xff")):
            found = FEATHER
        promised = TABLE_SUFFIXES.get(Path(self.name).suffix.lower()) if self.name else None
        if promised in (PARQUET, FEATHER) and found != promised:
            raise DataError(f"{self.label} is named like a {promised} file but is not one (a {promised} file "
                            f"starts with {_MAGIC[promised]}); save it again as {promised}, or rename it if it holds "
                            f"CSV text")
        return found or CSV


class _FileRange(io.RawIOBase):
    """Bytes ``start .. end`` of a file (to its end when ``end`` is None), read as a stream."""

    def __init__(self, path, start, end):
        self._file = open(path, "rb")
        self._file.seek(start)
        self._left = None if end is None else end - start

    def readable(self):
        return True

    def readinto(self, buffer):
        view = memoryview(buffer)
        read = self._file.readinto(view if self._left is None else view[: self._left])
        if self._left is not None:
            self._left -= read
        return read

    def close(self):
        self._file.close()
        super().close()


def offsets(chunks):
    """``(offset, chunk)`` pairs of a stream of byte chunks.

    Examples
    --------
    >>> list(offsets([b"ab", b"cde"]))
    [(0, b'ab'), (2, b'cde')]
    """
    offset = 0
    for chunk in chunks:
        yield offset, chunk
        offset += len(chunk)


def check_width(source, count, at_least=False):
    """DataError for a table of more than :data:`MAX_COLUMNS` columns (``count``, or ``at_least`` that many)."""
    if count > MAX_COLUMNS:
        raise DataError(f"{source.label} has more than {MAX_COLUMNS:,} columns ({count:,}"
                        f"{'+' if at_least else ''}), more than a network can be learned over "
                        f"here; keep the columns you need (at most {MAX_COLUMNS:,}) in the file")


def check_names(source, names, hint=None):
    """DataError naming duplicated column names with their positions (``hint``: one more way out, said last)."""
    if not names:
        raise DataError(f"{source.label} has no columns; choose a table with at least one column")
    spots = {}
    for position, name in enumerate(names, start=1):
        spots.setdefault(name, []).append(position)
    duplicates = [f"{name!r} (columns {', '.join(map(str, at))})" for name, at in spots.items() if len(at) > 1]
    if duplicates:
        raise DataError(f"{source.label} has duplicated column names: {'; '.join(duplicates)}; "
                        f"rename them so every column has its own name{'' if hint is None else ', or, ' + hint}")


NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*")
"""A cell that reads as a number."""


def reads_as_number(text):
    """Whether ``text`` reads as a number (a column name that does is likely a value of a data row).

    Examples
    --------
    >>> reads_as_number("39"), reads_as_number(" -0.5e3"), reads_as_number("age"), reads_as_number("Q1")
    (True, True, False, False)
    """
    return NUMBER.fullmatch(str(text)) is not None


def named(source, stored):
    """``(names, warnings)``: the stored column names, a blank or all-space one replaced by ``column N`` (its
    1-based position), which a command line can name; a warning says which."""
    names, blank = [], []
    for position, name in enumerate(stored, start=1):
        if str(name).strip():
            names.append(name)
        else:
            names.append(f"column {position}")
            blank.append(f"column {position}" + (f" (its name was {name!r})" if name else ""))
    if not blank:
        return names, []
    return names, [f"{source.label} has no name for {short_list(blank, quote=False)}; "
                   f"{'it is' if len(blank) == 1 else 'they are'} called so here: give "
                   f"{'it a name' if len(blank) == 1 else 'them names'} in the file to choose another"]
