"""Parquet and Feather (Arrow IPC) files, read batch by batch into prepared columns or a DataFrame.

The number of cells is bounded before anything is decompressed (Parquet
from its footer, Arrow files batch by batch), as a gzipped CSV is, and a
column of lists, structures or maps is refused by name: a variable takes one
value per row. :mod:`bnexplore.data.readers` loads this room (and
``pyarrow.parquet``) only when it reads such a file.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq

from ..errors import DataError, ResourceError
from ..limits import ENVIRONMENT, max_expanded_bytes
from .collect import collect, joined
from .messages import short_list
from .sources import PARQUET, check_names, check_width, named

_PARQUET_BATCH = 1 << 18  # rows per batch read from Parquet


def read_columnar(source, frame):
    """Read a Parquet or Feather (Arrow IPC) file.

    Parameters
    ----------
    source : bnexplore.data.sources.Source
        Of format ``PARQUET`` or ``FEATHER``.
    frame : bool
        Whether to return a DataFrame (else prepared columns, without the
        columns pandas stored as the index).

    Returns
    -------
    collected : bnexplore.data.columns.Table or pandas.DataFrame
    warnings : list of str
        Problems found while reading (blank column names).
    """
    try:
        schema, batches, index = _arrow_file_batches(source, frame)
        stored = schema.names if frame else [n for n in schema.names if n not in index]
        check_width(source, len(stored))
        _check_single_values(source, schema, stored)
        names, notes = named(source, stored)
        check_names(source, names)
        ordered = [pa.types.is_dictionary(schema.field(n).type) for n in stored]
        if not frame and index:
            batches = (batch.select(stored) for batch in batches)
        batches = _counted(source, batches)
        no_rows = f"{source.label} has columns ({short_list(names)}) but no data rows; choose a table with data"
        return joined([collect(batches, ordered, frame)], schema, names, no_rows, frame), notes
    except (pa.ArrowException, OSError) as error:
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise DataError(f"{source.label} cannot be read as {source.format}: {message}") from None


def _arrow_file_batches(source, frame):
    """``(schema, batches, pandas index columns)`` of a Parquet or Feather file."""
    if source.format == PARQUET:
        footer = pq.ParquetFile(_random_access(source))
        schema = footer.schema_arrow
        _check_cells(source, footer.metadata.num_rows, len(schema.names))  # before a page is decompressed
        index = _pandas_index_columns(schema)
        strings = [] if frame else [f.name for f in schema if pa.types.is_string(f.type) or
                                    pa.types.is_large_string(f.type)]
        # read_dictionary: text comes out dictionary-encoded as Parquet stores it, never as one string per row
        file = pq.ParquetFile(_random_access(source), read_dictionary=strings)
        return schema, file.iter_batches(batch_size=_PARQUET_BATCH), index
    head = source.prefix
    if head[:4] == b"FEA1":  # Feather version 1
        table = feather.read_table(_random_access(source))
        return table.schema, table.to_batches(), _pandas_index_columns(table.schema)
    if head[:6] == b"ARROW1":
        reader = pa.ipc.open_file(_random_access(source))
        batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
    else:
        reader = pa.ipc.open_stream(_random_access(source))
        batches = iter(reader)
    return reader.schema, batches, _pandas_index_columns(reader.schema)


def _check_cells(source, rows, columns, at_least=False):
    """ResourceError for a table of more cells than a text table of the expanded-size bound could hold (two
    bytes a cell: a character and a separator), so a compressed Parquet or Arrow file expands no further than
    a gzipped CSV may (:func:`bnexplore.limits.max_expanded_bytes`)."""
    most = max_expanded_bytes() // 2
    if rows * columns > most:
        raise ResourceError(f"{source.label} holds more than {most:,} cells ({rows:,}{'+' if at_least else ''} "
                            f"rows x {columns:,} columns), as many as a {max_expanded_bytes() / (1 << 20):,.1f} MB "
                            f"text table could, the limit of this server (set {ENVIRONMENT} to allow more); nothing "
                            f"was loaded")


def _counted(source, batches):
    """The batches, refused (:func:`_check_cells`) as soon as those read hold too many cells: an Arrow file
    does not say its rows before its batches are read."""
    rows = 0
    for batch in batches:
        rows += batch.num_rows
        _check_cells(source, rows, batch.num_columns, at_least=True)
        yield batch


def _check_single_values(source, schema, names):
    """DataError naming the first column whose cells hold lists, structures or maps (a variable takes one value)."""
    nested = [name for name in names if pa.types.is_nested(schema.field(name).type)]
    if nested:
        name, dtype = nested[0], schema.field(nested[0]).type
        kind = ("a structure" if pa.types.is_struct(dtype) else "a map" if pa.types.is_map(dtype) else
                "several values" if pa.types.is_union(dtype) else "a list")
        others = f" (so do {short_list(nested[1:])})" if len(nested) > 1 else ""
        raise DataError(f"{source.label} column {name!r} holds {kind} in each cell ({dtype}){others}, not one value; "
                        f"a variable takes one value per row: leave the column out of the file, or split it into "
                        f"columns of single values")


def _pandas_index_columns(schema):
    """Columns that pandas stored as the index of the frame (not data)."""
    metadata = schema.pandas_metadata or {}
    return {name for name in metadata.get("index_columns", []) if isinstance(name, str)}


def _random_access(source):
    """A seekable Arrow file of the bytes of a :class:`~bnexplore.data.sources.Source`."""
    return pa.OSFile(str(source.path)) if source.path is not None else pa.BufferReader(pa.py_buffer(source.data))
