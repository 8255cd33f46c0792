"""How far any compressed input may expand: one bound for data files, networks and session files.

A server is only as safe as its smallest limit. The app caps uploads at their
compressed size (``server.maxUploadSize``), but a megabyte of gzip can expand to
gigabytes, so every gzip stream bnexplore reads goes through :func:`gunzip` (bytes
in memory) or :class:`BoundedStream` (a file read in pieces), which stop at
:func:`max_expanded_bytes` *before* holding more than that.

The bound is ``BNEXPLORE_MAX_EXPANDED_MB`` megabytes when that environment
variable is set (a positive number), else :data:`DEFAULT_MAX_EXPANDED_MB`: enough
for a table of tens of millions of cells, small enough that a shared 8 GB server
survives several users at once.

Examples
--------
>>> import gzip
>>> from bnexplore.limits import gunzip
>>> gunzip(gzip.compress(b"a,b\\n0,1\\n"), "file 'x.csv.gz'")
b'a,b\\n0,1\\n'
"""

import io
import os
import zlib

from .errors import ResourceError, option

DEFAULT_MAX_EXPANDED_MB = 512
"""Default bound on what one compressed input may expand to, in megabytes (MiB)."""

ENVIRONMENT = "BNEXPLORE_MAX_EXPANDED_MB"
"""The environment variable that sets the bound (megabytes)."""

_PIECE = 1 << 20


def max_expanded_bytes():
    """The bound on the expanded size of one compressed input, in bytes.

    Returns
    -------
    int
        ``BNEXPLORE_MAX_EXPANDED_MB`` MiB when that is set to a positive number,
        else :data:`DEFAULT_MAX_EXPANDED_MB` MiB.
    """
    text = os.environ.get(ENVIRONMENT, "").strip()
    try:
        megabytes = float(text) if text else DEFAULT_MAX_EXPANDED_MB
    except ValueError:
        megabytes = DEFAULT_MAX_EXPANDED_MB
    if not megabytes > 0 or megabytes != megabytes or megabytes == float("inf"):
        megabytes = DEFAULT_MAX_EXPANDED_MB
    return int(megabytes * (1 << 20))


def advice():
    """What the user of the door in use (:func:`bnexplore.errors.option`) can do about the bound.

    The Python API and the command line name :data:`ENVIRONMENT`, which their user sets; the app's
    user cannot set it, so there the advice is what they can do instead.
    """
    setting = option(ENVIRONMENT)
    return (f"set {setting} to allow more" if setting else
            "load a smaller part of it, or ask whoever runs the server to allow more")


def too_large(what, limit, advice_text=None):
    """The ResourceError for an input that expands past ``limit`` bytes (``what`` names the input).

    ``advice_text`` is :func:`advice`, taken by default in this thread; a stream read by another
    thread (Arrow's CSV reader) takes it where it was opened, where the door is known.
    """
    return ResourceError(f"{what} expands to more than {limit / (1 << 20):,.1f} MB when decompressed, the limit "
                         f"of this server ({advice_text or advice()}); nothing was loaded")


def gunzip(data, what, limit=None):
    """Decompress gzip ``data`` (bytes), refusing past ``limit`` bytes before holding them.

    Parameters
    ----------
    data : bytes
        A whole gzip file (several members are read one after the other, as ``gzip.decompress`` does).
    what : str
        Names the input in messages ("the session file", "file 'x.csv.gz'").
    limit : int, optional
        Bytes the output may hold; :func:`max_expanded_bytes` by default.

    Returns
    -------
    bytes

    Raises
    ------
    ResourceError
        When the output would exceed ``limit``.
    zlib.error, EOFError
        When ``data`` is not valid gzip (callers word their own message).
    """
    limit = max_expanded_bytes() if limit is None else int(limit)
    out = io.BytesIO()
    rest = memoryview(bytes(data))
    while rest:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        piece = inflater.decompress(rest, limit - out.tell() + 1)
        while True:
            out.write(piece)
            if out.tell() > limit:
                raise too_large(what, limit)
            if not inflater.unconsumed_tail:
                break
            piece = inflater.decompress(inflater.unconsumed_tail, limit - out.tell() + 1)
        out.write(inflater.flush())
        if out.tell() > limit:
            raise too_large(what, limit)
        if not inflater.eof:
            raise EOFError("compressed file ended before the end-of-stream marker was reached")
        rest = memoryview(inflater.unused_data)
        while rest and rest[0] == 0:  # gzip files may be padded with zeros after a member
            rest = rest[1:]
    return out.getvalue()


class BoundedStream(io.RawIOBase):
    """A readable stream that raises :func:`too_large` once more than ``limit`` bytes were read from ``raw``.

    Wrap a decompressing stream (``gzip.GzipFile``, ``pyarrow.input_stream(...,
    compression="gzip")``) in it, so reading stops at the bound instead of
    expanding a bomb.

    Parameters
    ----------
    raw : file-like
        Has ``read(n)``.
    what : str
        Names the input in messages.
    limit : int, optional
        :func:`max_expanded_bytes` by default.
    """

    def __init__(self, raw, what, limit=None):
        super().__init__()
        self.raw = raw
        self.what = what
        self.limit = max_expanded_bytes() if limit is None else int(limit)
        self.count = 0
        self.advice = advice()  # in the opener's thread: Arrow reads the stream in threads of its own

    def readable(self):
        return True

    def readinto(self, buffer):
        data = self.raw.read(min(len(buffer), _PIECE))
        self.count += len(data)
        if self.count > self.limit:
            raise too_large(self.what, self.limit, self.advice)
        buffer[: len(data)] = data
        return len(data)

    def close(self):
        try:
            self.raw.close()
        finally:
            super().close()
