"""Reading, validation, discretization and integer encoding of data tables.

A :class:`Dataset` is the form every score and search works on: a matrix of
small integer codes, the arity, name and state labels of each variable. An
:class:`Encoder` turns a table (a pandas DataFrame) into a Dataset, learning
how to type, discretize and code every column from one table and applying
exactly that to another. :func:`read_table` (also :func:`read_csv`) reads a
CSV, Parquet or Feather file or an uploaded buffer and encodes it;
:func:`read_frame` only reads it, for pages that show the raw table
(:meth:`Encoder.profile`) before the user chooses how to discretize.

Every problem a user can cause raises :class:`bnexplore.errors.DataError` with
a one-line message naming the column, row (1-based data rows, as in a
spreadsheet) or value, or adds a warning to ``Dataset.warnings`` that is also
emitted with :func:`warnings.warn`.

The rooms, each with one job (a room imports only those listed before it):

- :mod:`~bnexplore.data.messages`: how problems are worded (short lists of
  names) and warnings emitted at the user's line.
- :mod:`~bnexplore.data.parallel`: the worker count, and per-column work on
  threads.
- :mod:`~bnexplore.data.blanks`: blank cells (``missing="em"``) and row weights
  checked, and the guards of code that cannot use them
  (:func:`require_complete`, :func:`require_unweighted`).
- :mod:`~bnexplore.data.discretize`: discretization methods, cut points, bin
  labels.
- :mod:`~bnexplore.data.columns`: a table's columns factorized once (codes into
  distinct values), whatever read them; row-identifier columns.
- :mod:`~bnexplore.data.specs`: what an Encoder learns about one column
  (:class:`ColumnSpec`) and the per-column rules it applies.
- :mod:`~bnexplore.data.dataset`: :class:`Dataset` and :class:`Encoder` (each
  needs the other).
- :mod:`~bnexplore.data.sources`: the bytes of a table (path, bytes, upload,
  gzip), its format, and the bounds all formats share (:data:`MAX_COLUMNS`).
- :mod:`~bnexplore.data.text`: CSV text before parsing: encoding, separator,
  binary content, header width.
- :mod:`~bnexplore.data.collect`: Arrow batches gathered into prepared columns
  or a DataFrame.
- :mod:`~bnexplore.data.csvparse`: CSV text parsed by Arrow, in parallel row
  ranges, restarting on what a first guess cannot take.
- :mod:`~bnexplore.data.columnar`: Parquet and Feather files.
- :mod:`~bnexplore.data.readers`: :func:`read_table`, :func:`read_frame`, the
  doors above them all, and :func:`check_dataset`, the door of every function
  that takes a Dataset.

Only ``collect``, ``csvparse`` and ``columnar`` import pyarrow's readers; the
readers load them on the first file read, so ``import bnexplore`` does not.
"""

from .blanks import require_complete, require_unweighted
from .columns import CATEGORICAL, IDENTIFIER_MIN_ROWS, MAX_MISSING_MARKS, NUMERIC, kept_columns, marked
from .dataset import MISSING_LABEL, MISSING_POLICIES, Dataset, Encoder, code_dtype
from .discretize import discretize_values, interval_labels, learn_cut_points
from .readers import check_dataset, read_csv, read_frame, read_table
from .sources import CSV, FEATHER, MAX_COLUMNS, PARQUET, TABLE_SUFFIXES
from .specs import ColumnSpec
from .text import SEPARATORS

__all__ = [
    "CATEGORICAL",
    "CSV",
    "FEATHER",
    "IDENTIFIER_MIN_ROWS",
    "MAX_COLUMNS",
    "MAX_MISSING_MARKS",
    "MISSING_LABEL",
    "MISSING_POLICIES",
    "NUMERIC",
    "PARQUET",
    "SEPARATORS",
    "TABLE_SUFFIXES",
    "ColumnSpec",
    "Dataset",
    "Encoder",
    "check_dataset",
    "code_dtype",
    "discretize_values",
    "interval_labels",
    "kept_columns",
    "learn_cut_points",
    "marked",
    "read_csv",
    "read_frame",
    "read_table",
    "require_complete",
    "require_unweighted",
]
