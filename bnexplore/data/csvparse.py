"""CSV text parsed by Arrow's streaming reader, block by block, in parallel row ranges when it is large.

:func:`read_csv_text` reads the text of a :class:`~bnexplore.data.sources.Source`
whose encoding, separator and width :mod:`bnexplore.data.text` checked first.
Arrow parses it in blocks of :data:`CSV_BLOCK` bytes and each column is
factorized as it arrives (:mod:`bnexplore.data.collect`), so the text is never
held whole; large uncompressed text is cut into row ranges (:func:`row_ranges`),
one reader per core. A read that meets what it cannot take as it is (a wider
type further down, text that is not UTF-8, a row longer than a block)
restarts with the setting that takes it.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import re

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv

from ..errors import DataError, option, subject
from ..limits import BoundedStream
from . import parallel
from .collect import collect, joined
from .messages import short_list
from .sources import check_names, check_width, named, offsets, reads_as_number
from .text import (check_text, decode_error, first_record_fields, not_text, sniff_separator, text_encoding,
                   undecodable, wide)

CSV_BLOCK = 1 << 22
"""Bytes of CSV text per block Arrow parses (raised for a row longer than a block)."""
CSV_BLOCK_MOST = 1 << 30
"""Arrow's blocks grow to this for one long row (a 10 MB cell); a longer row is refused."""
CSV_PART = 1 << 25
"""Least bytes of CSV text per reader when the text is read in parallel (less is not worth a thread)."""
# pandas' default NA strings, so a file reads as it did with pandas' parser
_NA_VALUES = ["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
              "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]
_NO_BOOLEANS = []  # CSV text is never read as booleans: TRUE / FALSE stay the file's own labels, as state names


def read_csv_text(source, header, sep, encoding, frame):
    """Parse CSV text with Arrow's streaming reader.

    Parameters
    ----------
    source : bnexplore.data.sources.Source
        Of format ``CSV``.
    header, sep, encoding
        As :func:`bnexplore.data.read_table` takes them (``sep`` None: sniffed).
    frame : bool
        Whether to return a DataFrame (else prepared columns).

    Returns
    -------
    collected : bnexplore.data.columns.Table or pandas.DataFrame
    warnings : list of str
        Problems found while reading (latin-1 fallback, blank column names).

    Notes
    -----
    Large uncompressed text is cut into row ranges read in parallel, one per
    core (:func:`row_ranges`). Arrow fixes each column's type on the first
    block; a later value that does not fit (text after a million numbers)
    restarts the read with that column widened (to float, then text), so types
    are those of the whole column as pandas infers them. Text that is not UTF-8
    restarts it as latin-1. A row longer than Arrow's block (a cell of
    megabytes, a very long header) restarts it with blocks four times as long,
    up to :data:`CSV_BLOCK_MOST`. Without ``sep`` the separator is sniffed
    (:func:`sniff_separator`); a first record of more than
    :data:`~bnexplore.data.sources.MAX_COLUMNS` fields is refused before Arrow reads it.
    """
    arrow_encoding = text_encoding(source, encoding)
    check_text(source, arrow_encoding)
    sniffed = sep is None
    if sniffed:
        sep = sniff_separator(source, arrow_encoding)
    check_width(source, first_record_fields(source, sep, arrow_encoding), at_least=True)
    ranges = row_ranges(source, arrow_encoding)
    notes, forced, names, block = [], {}, [], CSV_BLOCK
    while True:
        try:
            result, renamed = _parse_csv(source, header, sep, arrow_encoding, forced, ranges, frame, names, block)
            return result, notes + renamed
        except UnicodeDecodeError:
            raise decode_error(source, arrow_encoding) from None
        except pa.ArrowInvalid as error:
            message = str(error)
            conversion = re.search(r"In CSV column #(\d+): (?:Row #\d+: )?CSV conversion error to (\w+).*?: "
                                   r"invalid value '(.*)'", message, re.S)
            if "invalid UTF8" in message:
                if encoding is not None:
                    raise decode_error(source, arrow_encoding) from None
                line, _ = undecodable(source, "utf-8") or ("?", 0)
                notes.append(f"{source.label} is not valid UTF-8 (first undecodable byte on line {line}); read it as "
                             f"latin-1 — check accented characters, or set {subject('encoding')} if the file uses "
                             f"another one")
                arrow_encoding = "latin-1"
            elif conversion:
                column, to, value = int(conversion[1]), conversion[2], conversion[3]
                forced[names[column]] = pa.float64() if to in ("int64", "null") and _is_float(value) else pa.string()
            elif "Expected" in message and "columns" in message and ranges != [(0, None)]:
                ranges = [(0, None)]  # a bad row is numbered from the top only by a reader that starts there
            elif "straddl" in message or "Empty CSV file or block" in message:  # a row longer than a block
                if block >= CSV_BLOCK_MOST:
                    raise DataError(f"{source.label} has a row longer than {CSV_BLOCK_MOST >> 20:,} MB (a very "
                                    f"long cell or header line), more than this reader takes; shorten it") from None
                block *= 4
            else:
                raise _parse_error(source, message, sep, sniffed) from None
        except OSError as error:
            if source.gzip:
                raise source.gzip_error(error) from None
            raise DataError(f"cannot read {source.label}: {error}") from None


def _parse_csv(source, header, sep, encoding, forced, ranges, frame, names, block):
    """One attempt at reading CSV text, in Arrow blocks of ``block`` bytes: the first range's reader infers the
    column types, the readers of the other ranges (in threads) are given them. ``names`` receives Arrow's
    column names. Returns ``(collected, warnings about column names)``."""
    with contextlib.closing(_text_stream(source, *ranges[0])) as stream:
        first = _open_csv(stream, header, sep, encoding, forced, block)
        schema = first.schema
        names[:] = schema.names
        if any(pa.types.is_binary(t) for t in schema.types):
            raise pa.ArrowInvalid("invalid UTF8 data")  # Arrow types text that is not UTF-8 as binary
        widen = {n: pa.string() for n, t in zip(schema.names, schema.types) if _needs_text(t)}
        if widen:
            forced.update(widen)
            return _parse_csv(source, header, sep, encoding, forced, ranges, frame, names, block)
        shown, notes = named(source, schema.names) if header else ([f"X{j}" for j in range(len(schema.names))], [])
        # a number naming a column of numbers: the first line is likely a data row (UCI files have no header)
        numeric = [pa.types.is_integer(kind) or pa.types.is_floating(kind) for kind in schema.types]
        numbered = [name for name, number in zip(shown, numeric) if number and reads_as_number(name)] if header else []
        headless = f"if the first line is a data row, read the file with {subject('header', False)}"
        check_names(source, shown, hint=headless if numbered else None)
        if numbered:
            notes.append(f"the first line of {source.label} is read as the column names, but {short_list(numbered, 5)} "
                         f"{'is a number' if len(numbered) == 1 else 'are numbers'} heading columns of numbers: "
                         f"{headless}")
        check_nul = not wide(encoding)
        ordered = [False] * len(shown)
        types = dict(zip(schema.names, schema.types))

        def read_range(span):
            with contextlib.closing(_text_stream(source, *span)) as part:
                reader = _open_csv(part, False, sep, encoding, types, block, names=schema.names)
                return collect(_checked(source, reader, check_nul), ordered, frame)

        with concurrent.futures.ThreadPoolExecutor(max(1, len(ranges) - 1)) as pool:
            later = [pool.submit(read_range, span) for span in ranges[1:]]
            pieces = [collect(_checked(source, first, check_nul), ordered, frame)]
            pieces += [future.result() for future in later]
    no_rows = f"{source.label} has a header line but no data rows; add data rows"
    return joined(pieces, schema, shown, no_rows, frame), notes


def _checked(source, batches, check_nul):
    """The batches, refusing text that holds NUL bytes."""
    for batch in batches:
        if check_nul:
            _check_no_nul(source, batch)
        yield batch


def row_ranges(source, encoding):
    """Byte ranges of the text, each starting at a row, for one reader per core: ``[(0, None)]`` (all of it)
    for gzipped, UTF-16/32 or small text (under two :data:`CSV_PART` per range).

    Parameters
    ----------
    source : bnexplore.data.sources.Source
    encoding : str
        Arrow's name of the text's encoding.

    Returns
    -------
    list of (int, int or None)
        Consecutive ``(start, end)`` byte ranges covering the text (the last
        ``end`` None: to the end); at most :data:`bnexplore.data.parallel.WORKERS`.
    """
    size = source.size()
    count = min(parallel.WORKERS, size // CSV_PART)
    if count < 2 or source.gzip or wide(encoding):
        return [(0, None)]
    starts = [start for start in row_starts(source, [size * k // count for k in range(1, count)]) if start < size]
    return list(zip([0, *starts], [*starts, None]))


def row_starts(source, targets):
    """For each target byte offset, the first offset at or after it where a row starts: just after a newline
    with an even number of quote characters before it (RFC 4180 quoting: a newline in a quoted field has an
    odd number; a doubled quote inside one adds two).

    Parameters
    ----------
    source : bnexplore.data.sources.Source
    targets : iterable of int
        Byte offsets, ascending.

    Returns
    -------
    list of int
        A row start for each target that has one at or after it.

    Examples
    --------
    >>> from bnexplore.data.sources import Source
    >>> row_starts(Source(b'a,b\\n"x\\ny",1\\nz,2\\n'), [5])
    [12]
    """
    starts, wanted, odd = [], iter(targets), 0
    target = next(wanted, None)
    for offset, chunk in offsets(source.chunks(1 << 24)):
        done = 0  # quotes of chunk[:done] are counted in odd
        while target is not None:
            newline = chunk.find(b"\n", max(target - 1 - offset, done))  # a row may start at the target
            if newline < 0:
                break
            odd = (odd + chunk.count(b'"', done, newline + 1)) % 2
            done = newline + 1
            if not odd:
                starts.append(offset + done)
                target = next(wanted, None)
        if target is None:
            break
        odd = (odd + chunk.count(b'"', done)) % 2
    return starts


def _open_csv(stream, header, sep, encoding, forced, block, names=None):
    """Arrow's streaming CSV reader; ``names`` (for a range after the first) means there is no header line.

    One thread per reader: Arrow's own threads cost more CPU than they save on a streamed read, and
    only a one-thread reader numbers the row of a parse error.
    """
    return pa_csv.open_csv(
        stream,
        read_options=pa_csv.ReadOptions(use_threads=False, block_size=block, encoding=encoding,
                                        column_names=names or [],
                                        autogenerate_column_names=names is None and not header),
        parse_options=pa_csv.ParseOptions(delimiter=sep, newlines_in_values=True),
        convert_options=pa_csv.ConvertOptions(column_types=forced, null_values=_NA_VALUES, strings_can_be_null=True,
                                              true_values=_NO_BOOLEANS, false_values=_NO_BOOLEANS),
    )


def _text_stream(source, start=0, end=None):
    """An Arrow input stream of bytes ``start .. end`` (all by default) of a source, for the CSV reader; gzip
    text is decompressed whole, through a :class:`~bnexplore.limits.BoundedStream` that refuses it past the
    bound."""
    if source.gzip:
        whole = pa.input_stream(str(source.path) if source.path is not None else pa.py_buffer(source.data),
                                compression="gzip")
        return pa.PythonFile(BoundedStream(whole, source.label), mode="r")
    if source.path is None:
        data = pa.py_buffer(source.data)
        return pa.BufferReader(data.slice(start, (data.size if end is None else end) - start))
    if start == 0 and end is None:
        return pa.input_stream(str(source.path))
    return pa.PythonFile(source.file_range(start, end), mode="r")


def _needs_text(dtype):
    """Column types Arrow infers that pandas leaves as text (dates, times): read as written."""
    return not (pa.types.is_integer(dtype) or pa.types.is_floating(dtype) or pa.types.is_boolean(dtype)
                or pa.types.is_string(dtype) or pa.types.is_null(dtype) or pa.types.is_binary(dtype))


def _is_float(text):
    """Whether ``text`` reads as a float."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _check_no_nul(source, batch):
    """DataError naming the first NUL byte of the file if a text column of the batch holds one."""
    for array in batch.columns:
        if (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)) and _holds_nul(array):
            offset = next(at + chunk.find(b"\x00") for at, chunk in offsets(source.chunks()) if b"\x00" in chunk)
            raise not_text(source, f"it holds NUL bytes, the first at byte {offset + 1:,}")


def _holds_nul(array):
    """Whether the values of a string array hold a NUL character (the bytes its offsets span, not padding)."""
    offset_buffer, data = array.buffers()[1:3]
    if data is None:
        return False
    bounds = np.frombuffer(offset_buffer, np.int64 if pa.types.is_large_string(array.type) else np.int32)
    start, end = int(bounds[array.offset]), int(bounds[array.offset + len(array)])
    return end > start and np.frombuffer(data, np.uint8, count=end - start, offset=start).min() == 0


def _parse_error(source, message, sep, sniffed):
    """DataError for text Arrow cannot split into rows of equal length (``sniffed``: the separator was)."""
    fields = re.search(r"(?:Row #(\d+): )?Expected (\d+) columns, got (\d+)", message)
    if fields:
        row, expected, got = fields.groups()
        where = f"line {row}" if row else "a line"
        what = f"{where} has {got} field{'s' if got != '1' else ''} where the first line has {expected}"
    else:
        what = message.replace("CSV parse error: ", "").strip().splitlines()[0]
    told = option("sep")
    check = (f"it was read with the separator {sep!r}" + (", sniffed from the first lines" if sniffed else "")
             + (f"; if that is wrong, set {told}" if told else ""))
    return DataError(f"{source.label} could not be parsed: {what}; every line needs the same number of fields "
                     f"({check})")
