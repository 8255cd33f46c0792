"""What CSV text is: its encoding, its separator, whether it is text at all, how many fields its header has.

Everything here reads the first bytes of a :class:`~bnexplore.data.sources.Source`
(or streams its text once) before Arrow parses it: the encoding to read with
(:func:`text_encoding`: UTF-8 unless a byte-order mark or the user says
otherwise), the separator (:func:`sniff_separator`), a refusal of binary
content (:func:`check_text`) and of a header wider than
:data:`~bnexplore.data.sources.MAX_COLUMNS` (:func:`first_record_fields`),
and the line of the first byte that does not decode (:func:`undecodable`).
"""

from __future__ import annotations

import codecs
import re

from ..errors import DataError, subject
from .sources import MAX_COLUMNS, PREFIX, offsets

SEPARATORS = (",", ";", "\t", "|")
"""The field separators ``sep=None`` (or ``"auto"``) chooses between, in order of preference."""
_SNIFFED_RECORDS = 50  # records of the first bytes the separator is sniffed from
_CONTROL_SHARE = 0.1  # a larger share of control characters in the first bytes is not text
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f]")  # control characters that text tables do not hold


def sniff_separator(source, encoding):
    """The separator of the first records (up to :data:`_SNIFFED_RECORDS`, quotes respected): of the
    :data:`SEPARATORS` that split the header into more than one field, the one that splits the most records
    into as many fields as the header (the first listed on a tie); ``,`` when none splits the header."""
    records = _records(source.prefix.decode(_python_encoding(encoding), errors="replace"),
                       complete=len(source.prefix) < PREFIX)
    best, agreeing = ",", 0
    for sep in SEPARATORS:
        counts = [_count_outside_quotes(record, sep) for record in records]
        alike = counts.count(counts[0]) if counts and counts[0] > 0 else 0
        if alike > agreeing:
            best, agreeing = sep, alike
    return best


def _records(text, complete):
    """The first :data:`_SNIFFED_RECORDS` records of CSV text: split at newlines outside double quotes (the
    last one dropped unless the text is ``complete``), blank ones skipped."""
    records, start, quoted = [], 0, False
    for match in re.finditer(r'["\n]', text):
        if match.group() == '"':
            quoted = not quoted
        elif not quoted:
            records.append(text[start: match.start()])
            start = match.end()
            if len(records) > _SNIFFED_RECORDS:
                break
    if complete and len(records) <= _SNIFFED_RECORDS:
        records.append(text[start:])
    return [record for record in records[:_SNIFFED_RECORDS] if record.strip()]


def _count_outside_quotes(record, sep):
    """How often ``sep`` occurs in a record outside double-quoted fields."""
    return sum(part.count(sep) for part in record.split('"')[0::2])


def first_record_fields(source, sep, encoding):
    """Fields of the first record (header), counted up to :data:`MAX_COLUMNS` + 1 while the text is streamed,
    so a line of a million fields is refused after reading it once, never parsed."""
    decoder = codecs.getincrementaldecoder(_python_encoding(encoding))(errors="replace")
    fields, quoted = 1, False
    for chunk in source.chunks():
        for k, part in enumerate(decoder.decode(chunk).split('"')):
            quoted = quoted != (k > 0)  # every quote after the first part toggles
            if quoted:
                continue
            end = part.find("\n")
            fields += part.count(sep, 0, len(part) if end < 0 else end)
            if end >= 0 or fields > MAX_COLUMNS:
                return min(fields, MAX_COLUMNS + 1)
    return fields


def _python_encoding(encoding):
    """Python's codec name for Arrow's encoding name (``utf8`` is ``utf-8``)."""
    return "utf-8" if encoding == "utf8" else encoding


def text_encoding(source, encoding):
    """Arrow's name of the encoding to read with: the one given, else UTF-8 or a byte-order mark's. UTF-16 or
    UTF-32 given for text without a byte-order mark (which Python's decoders of those names refuse) is read
    little-endian when the text starts with a byte that is not NUL, else big-endian."""
    head = source.prefix
    boms = {"utf-32": (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE), "utf-16": (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)}
    if encoding is None:
        return next((name for name, marks in boms.items() if head.startswith(marks)), "utf8")
    name = codecs.lookup(encoding).name
    if name in boms and not head.startswith(boms[name]):
        return name + ("-be" if head[:1] == b"\x00" else "-le")
    return "utf8" if name == "utf-8" else encoding


def wide(encoding):
    """Whether text in this encoding holds NUL bytes (UTF-16, UTF-32)."""
    return codecs.lookup(encoding).name.startswith(("utf-16", "utf-32"))


def check_text(source, encoding):
    """DataError for an empty file, or one whose first bytes are not text (NUL bytes, control characters)."""
    head = source.prefix
    text = head.decode(encoding, errors="replace")
    if not text.strip() and len(head) < PREFIX:
        raise DataError(f"{source.label} is empty ({'0 bytes' if not head else 'only whitespace'}); "
                        f"choose a CSV file with a header line and data rows")
    nul = text.find("\x00") if wide(encoding) else head.find(b"\x00")
    if nul >= 0:
        unit = "character" if wide(encoding) else "byte"
        raise not_text(source, f"it holds NUL bytes, the first at {unit} {nul + 1:,}")
    control = len(_CONTROL.findall(text))
    if control > _CONTROL_SHARE * len(text):
        raise not_text(source, f"{control:,} of its first {len(text):,} characters are control characters")


ZIP = b"PK\x03\x04"
"""How a zip archive begins (an .xlsx or .ods workbook is one)."""
WORKBOOKS = (ZIP, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")
"""How spreadsheet workbooks begin: a zip (.xlsx, .ods) or an OLE2 compound file (.xls)."""


def not_text(source, found):
    """DataError for content that is not a text table (``found``: why), saying so plainly of a spreadsheet
    workbook or a zip archive and hinting at UTF-16 when it looks so.

    Examples
    --------
    >>> import io
    >>> from bnexplore.data.sources import Source
    >>> print(not_text(Source(io.BytesIO(b"PK\\x03\\x04\\x00\\x00"), "survey.xlsx"), "it holds NUL bytes"))
    file 'survey.xlsx' is a spreadsheet workbook (Excel or OpenDocument), not a text table; save its sheet as CSV (File, Save As, CSV) and give that, or a Parquet or Feather file
    """
    head = source.prefix
    if head.startswith(ZIP) and (source.name or "").lower().endswith(".zip"):
        return DataError(f"{source.label} is a zip archive, not a text table; give the CSV inside it (or that CSV "
                         f"gzipped, .csv.gz), or a Parquet or Feather file")
    if head.startswith(WORKBOOKS):
        return DataError(f"{source.label} is a spreadsheet workbook (Excel or OpenDocument), not a text table; "
                         f"save its sheet as CSV (File, Save As, CSV) and give that, or a Parquet or Feather file")
    hint = ""
    if b"\x00" in head and max(head[0::2].count(0), head[1::2].count(0)) > 0.4 * len(head) / 2:
        hint = f"; if it is UTF-16 text, set {subject('encoding', 'utf-16')}"
    return DataError(f"{source.label} is not a text table ({found}); give a CSV, Parquet or Feather file{hint}")


def undecodable(source, encoding):
    """``(line, byte offset)`` of the first byte that does not decode in ``encoding``, or None."""
    decoder = codecs.getincrementaldecoder(encoding)()
    lines = 0
    for offset, chunk in offsets(source.chunks()):
        pending = len(decoder.getstate()[0])
        try:
            decoder.decode(chunk)
        except UnicodeDecodeError as error:
            position = offset - pending + error.start
            return lines + chunk[: max(0, position - offset)].count(b"\n") + 1, position
        lines += chunk.count(b"\n")
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return lines + 1, None
    return None


def decode_error(source, encoding):
    """DataError naming the line of the first byte that is not valid in ``encoding`` (Arrow's name for it)."""
    line, _ = undecodable(source, encoding) or ("?", 0)
    return DataError(f"{source.label} line {line} is not valid {_python_encoding(encoding)} text; set the file's "
                     f"encoding, e.g. {subject('encoding', 'latin-1')}")
