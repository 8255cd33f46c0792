"""The doors to a Dataset: :func:`read_table` (read and encode), :func:`read_frame` (read only), and
:func:`check_dataset`, what a function taking a Dataset says to a table that is not one.

They check the options, tell the format from the content
(:class:`~bnexplore.data.sources.Source`) and hand the bytes to the room that
parses it: :mod:`bnexplore.data.csvparse` for CSV text,
:mod:`bnexplore.data.columnar` for Parquet and Feather.
"""

from __future__ import annotations

import codecs

import numpy as np

from ..errors import DataError, subject
from .dataset import Dataset, Encoder
from .messages import emit, short_repr
from .sources import CSV, Source


def read_table(path_or_buffer, header=True, sep=None, encoding=None, name=None, **encoder_options):
    """Read a CSV, Parquet or Feather file (or buffer) and encode it.

    The format is told by the content (Parquet starts with ``PAR1``, Feather
    and Arrow IPC with ``ARROW1``; anything else must be text), so a buffer
    needs no name. CSV text is parsed by Arrow block by block (large text in
    row ranges, one per core) and each column is factorized as it arrives, so
    the text is never held whole in memory; Parquet and Feather columns are
    read batch by batch the same way.

    Parameters
    ----------
    path_or_buffer : str, os.PathLike, bytes or file-like
        A path (``.csv``, gzip-compressed ``.csv.gz``, ``.parquet``,
        ``.feather``, ``.arrow``) or the bytes of such a file, as ``bytes`` or
        an open buffer (e.g. ``io.BytesIO``, a Streamlit ``UploadedFile``).
    header : bool
        CSV only: whether the first line holds column names; without one the
        columns are named ``"X0" .. "X{n-1}"``.
    sep : str, optional
        CSV only: one-character field separator. None (or ``"auto"``), the
        default, sniffs it from the first records: the first of
        :data:`SEPARATORS` (``,`` ``;`` tab ``|``) that splits the header and
        every following record into the same number of fields (more than
        one), else ``,``.
    encoding : str, optional
        CSV only: text encoding. By default UTF-8 (UTF-16 and UTF-32 when the
        text starts with their byte-order mark), falling back to latin-1 with a
        warning naming the line of the first undecodable byte.
    name : str, optional
        File name of a buffer, used in messages (by default a buffer's own
        ``name``). A name ending in ``.parquet`` or ``.feather`` makes content
        of another format an error.
    **encoder_options
        Options of :class:`Encoder`.

    Returns
    -------
    Dataset
        Its ``warnings`` start with those of reading the file.

    Raises
    ------
    DataError
        For a file that cannot be read (not found, not a table, malformed,
        more than :data:`MAX_COLUMNS` columns, a column of lists or
        structures), naming the file and the line, column or byte at fault,
        and for anything :class:`Encoder` refuses.
    ResourceError
        For gzip text that expands past :func:`bnexplore.limits.max_expanded_bytes`
        (refused while it is read, before more is held).

    Notes
    -----
    A header cell that is blank or only spaces names its column
    ``"column N"`` (N counted from 1, as in a spreadsheet), with a warning:
    such a name could not be typed on a command line.

    Examples
    --------
    >>> import io
    >>> from bnexplore.data import read_table
    >>> data = read_table(io.BytesIO(b"smoker;cough\\nyes;no\\nno;no\\nyes;yes\\n"))
    >>> data.names, data.n_rows, data.states
    (['smoker', 'cough'], 3, [['no', 'yes'], ['no', 'yes']])

    Numbers need a discretization:

    >>> data = read_table(io.BytesIO(b"age\\n21\\n35.5\\n48\\n63.5\\n"), discretize="quantile:2")
    >>> data.states
    [['(-inf, 41.75]', '(41.75, inf)']]

    The bundled sample of the Asia network:

    >>> from bnexplore.bundled import sample_path
    >>> read_table(sample_path("asia")).n_rows
    5000
    """
    encoder = Encoder(**encoder_options)
    table, notes = _read(path_or_buffer, header, sep, encoding, name, frame=False)
    dataset = encoder.fit_transform_table(table)
    dataset.warnings[:0] = notes
    return dataset


read_csv = read_table  # the name it had before Parquet and Feather: the same function


def read_frame(path_or_buffer, header=True, sep=None, encoding=None, name=None):
    """Read a CSV, Parquet or Feather file (or buffer) into a DataFrame without encoding it.

    Parameters are those of :func:`read_table`. Empty cells and pandas'
    default NA strings ("NA", "NaN", "null", ...) become missing values.
    Parquet and Feather files read as ``pandas.read_parquet`` and
    ``pandas.read_feather`` read them (categoricals keep their categories).
    For uploads: ``read_frame(uploaded_file)``, or
    ``read_frame(io.BytesIO(data), name="x.parquet")``.

    Returns
    -------
    frame : pandas.DataFrame
    warnings : list of str
        Problems found while reading (also emitted with ``warnings.warn``).

    Examples
    --------
    >>> import io
    >>> import pandas as pd
    >>> from bnexplore.data import read_frame
    >>> frame, warnings = read_frame(io.BytesIO(b"age,smoker\\n34,yes\\n51,NA\\n"))
    >>> list(frame.columns), frame["age"].tolist(), frame["smoker"].isna().tolist(), warnings
    (['age', 'smoker'], [34, 51], [False, True], [])

    A Parquet upload keeps its categories:

    >>> upload = io.BytesIO()
    >>> pd.DataFrame({"smoker": pd.Categorical(["yes", "no"], categories=["yes", "no"])}).to_parquet(upload)
    >>> frame, _ = read_frame(upload, name="survey.parquet")
    >>> frame["smoker"].cat.categories.tolist()
    ['yes', 'no']
    """
    return _read(path_or_buffer, header, sep, encoding, name, frame=True)


def _read(path_or_buffer, header, sep, encoding, name, frame):
    """``(Table or DataFrame, warnings)`` of any supported file (``frame``: a DataFrame)."""
    if sep == "auto":
        sep = None
    if not (sep is None or isinstance(sep, str) and len(sep) == 1):
        raise DataError(f"{subject('sep', sep)} is not valid; give one character such as ',' or ';' or '\\t'")
    if encoding is not None:
        try:
            codecs.lookup(encoding)
        except (LookupError, TypeError):
            raise DataError(f"{subject('encoding', encoding)} is not a known text encoding; "
                            f"try 'utf-8' or 'latin-1'") from None
    source = Source(path_or_buffer, name)
    # The parsing rooms load pyarrow.csv, or pyarrow.parquet, when a file is first read rather than at
    # `import bnexplore`, so a command that reads no table does not pay for them (issue 31, fast start).
    if source.format != CSV:
        from .columnar import read_columnar

        result, notes = read_columnar(source, frame)
    else:
        from .csvparse import read_csv_text

        result, notes = read_csv_text(source, header, sep, encoding, frame)
    emit(notes)
    return result, notes


def check_dataset(data, keyword="data"):
    """``data`` itself when it is a :class:`Dataset` (or reads as one); else a message saying how to make one.

    The public functions that learn from or score data call it first, so a
    pandas DataFrame, a numpy array or a file name is refused in words naming
    the way to a Dataset, not by an ``AttributeError`` deep inside (or, where a
    function returns complete data as it is, a table passed back unchanged).
    An object with a Dataset's ``codes``, ``arities`` and ``names`` (the
    plain arrays the scores read, as the tests' reference data are made) is
    taken as it is.

    Parameters
    ----------
    data : object
    keyword : str
        The argument's name in the caller's signature.

    Returns
    -------
    Dataset

    Raises
    ------
    DataError
        When ``data`` is not a Dataset.

    Examples
    --------
    >>> import pandas as pd
    >>> from bnexplore.errors import DataError
    >>> try:
    ...     check_dataset(pd.DataFrame({"a": ["x", "y"]}))
    ... except DataError as error:
    ...     print(str(error).split(": ")[0])
    data must be a Dataset, not a pandas DataFrame
    """
    kind = type(data)
    table = kind.__module__.startswith("pandas")  # a DataFrame may have a column named "codes"
    if isinstance(data, Dataset) or not table and all(hasattr(data, key) for key in ("codes", "arities", "names")):
        return data
    if table:
        what = f"a pandas {kind.__name__}"
        fix = ("encode the table first, data = bnexplore.Encoder().fit_transform(df) (its options choose how numeric "
               "columns are discretized and blank cells read), or read a file with bnexplore.read_table(path)")
    elif isinstance(data, np.ndarray):
        what, fix = "a numpy array", ("wrap integer codes with bnexplore.Dataset.from_codes(codes, names=[...]), or "
                                      "encode a table with bnexplore.Encoder().fit_transform(df)")
    elif isinstance(data, str) or hasattr(data, "__fspath__"):
        what, fix = f"the file name {short_repr(str(data))}", "read the file with bnexplore.read_table(path)"
    else:
        what, fix = f"a {kind.__name__}", ("read a file with bnexplore.read_table(path) or encode a DataFrame with "
                                          "bnexplore.Encoder().fit_transform(df)")
    raise DataError(f"{keyword} must be a Dataset, not {what}: {fix}")
