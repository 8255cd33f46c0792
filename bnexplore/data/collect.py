"""Arrow record batches gathered into prepared columns (for the Encoder) or into a DataFrame.

A reader hands its batches to :func:`collect`; each column is factorized as
its batches arrive (text and categoricals as codes into their few distinct
values, numbers in the smallest integer dtype that holds them), so a table is
never held as one Python object per cell. Readers of consecutive row ranges
each collect their own rows; :func:`joined` puts them together, in order,
into a :class:`~bnexplore.data.columns.Table` or a pandas DataFrame.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DataError
from .columns import CATEGORICAL, FLAG, NUMERIC, TEXT, Table, factorized_column, index_dtype, prepare_column, text_of
from .parallel import each


def collect(batches, ordered, frame):
    """What one reader's batches hold: ``(batches, rows)`` for a DataFrame, else ``(column collectors, rows)``.

    ``ordered[j]`` says whether column ``j`` was stored as a categorical whose
    category order counts.
    """
    if frame:
        kept = list(batches)
        return kept, sum(batch.num_rows for batch in kept)
    parts, n_rows = None, 0
    for batch in batches:
        if parts is None:
            parts = [_column_collector(array.type, keep) for array, keep in zip(batch.columns, ordered)]
        for part, array in zip(parts, batch.columns):
            part.add(array)
        n_rows += batch.num_rows
    return parts, n_rows


def joined(pieces, schema, names, no_rows, frame):
    """The DataFrame or :class:`Table` of what readers of consecutive row ranges collected (see :func:`collect`).

    ``no_rows`` is the message for a table without rows.
    """
    n_rows = sum(rows for _, rows in pieces)
    if n_rows == 0:
        raise DataError(no_rows)
    if frame:
        table = pa.Table.from_batches([batch for batches, _ in pieces for batch in batches], schema=schema)
        if table.column_names != names:
            table = table.rename_columns(names)
        return table.to_pandas()
    first, *rest = [parts for parts, rows in pieces if rows]
    for parts in rest:
        for mine, theirs in zip(first, parts):
            mine.extend(theirs)
    columns = each(lambda j: first[j].finish(names[j]), range(len(names)), n_rows)
    return Table(columns, n_rows)


def _column_collector(dtype, ordered):
    """The collector of a column of Arrow type ``dtype`` (``ordered``: a categorical whose order counts)."""
    if pa.types.is_dictionary(dtype):
        return _LabelCollector(CATEGORICAL if ordered else TEXT)
    if pa.types.is_string(dtype) or pa.types.is_large_string(dtype):
        return _LabelCollector(TEXT)
    if pa.types.is_boolean(dtype):
        return _LabelCollector(FLAG)
    if pa.types.is_integer(dtype) or pa.types.is_floating(dtype) or pa.types.is_null(dtype):
        return _NumberCollector()
    return _PandasCollector()


class _LabelCollector:
    """Factorizes text, boolean and dictionary (categorical) columns batch by batch.

    Each batch is dictionary-encoded by Arrow; its few distinct values are
    numbered in order of first appearance across batches (as Arrow unifies
    dictionaries, so a categorical keeps its category order), and its rows
    kept as small integer codes.
    """

    def __init__(self, stored):
        self.stored = stored
        self.index = {}
        self.pieces = []
        self.all_present = True  # a stored dictionary may hold values no row has; dictionary_encode's does not

    def add(self, array):
        if pa.types.is_dictionary(array.type):
            self.all_present = False
        else:
            array = pc.dictionary_encode(array)
        index = self.index
        numbered = [-1 if value is None else index.setdefault(value, len(index))
                    for value in array.dictionary.to_pylist()]
        lookup = np.array(numbered, dtype=index_dtype(len(index)))
        positions = array.indices
        if not len(lookup):  # every value missing
            codes = np.full(len(array), -1, np.int8)
        elif positions.null_count:
            codes = lookup[pc.fill_null(positions, 0).to_numpy()]
            codes[pc.is_null(positions).to_numpy(zero_copy_only=False)] = -1
        else:
            codes = lookup[positions.to_numpy()]
        self.pieces.append(codes)

    def extend(self, other):
        """Append the rows another collector of this column gathered (the rows after these)."""
        index = self.index
        numbered = [index.setdefault(value, len(index)) for value in other.index]
        lookup = np.array(numbered + [-1], dtype=index_dtype(len(index)))
        self.pieces += [lookup[piece] for piece in other.pieces]
        self.all_present &= other.all_present

    def finish(self, name):
        codes = np.concatenate(self.pieces)
        self.pieces = []
        uniques = np.empty(len(self.index), dtype=object)
        uniques[:] = list(self.index)
        order = [text_of(u) for u in uniques] if self.stored == CATEGORICAL else None
        return factorized_column(name, codes, uniques, self.stored, order, self.all_present)


class _NumberCollector:
    """Keeps a number column batch by batch (integers in the smallest dtype that holds them), then factorizes it."""

    def __init__(self):
        self.pieces = []

    def add(self, array):
        if pa.types.is_null(array.type):
            values = np.full(len(array), np.nan)
        else:
            values = array.to_numpy(zero_copy_only=False)  # float64 with NaN where an integer is missing
        if values.dtype.kind in "iu" and values.size:
            values = values.astype(_value_dtype(values.min(), values.max()), copy=False)
        self.pieces.append(values)

    def extend(self, other):
        self.pieces += other.pieces

    def finish(self, name):
        values = np.concatenate(self.pieces)
        self.pieces = []
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
        return factorized_column(name, codes, uniques, NUMERIC)


class _PandasCollector:
    """Any other column (dates, times, decimals, ...): converted to pandas and prepared as a DataFrame column is."""

    def __init__(self):
        self.pieces = []

    def add(self, array):
        self.pieces.append(array)

    def extend(self, other):
        self.pieces += other.pieces

    def finish(self, name):
        return prepare_column(name, pa.chunked_array(self.pieces).to_pandas())


def _value_dtype(low, high):
    """Smallest integer dtype holding ``low .. high``."""
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        info = np.iinfo(dtype)
        if info.min <= low and high <= info.max:
            return np.dtype(dtype)
    return np.dtype(np.uint64)
