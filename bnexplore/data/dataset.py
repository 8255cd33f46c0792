"""The coded table every score and search reads (:class:`Dataset`), and the :class:`Encoder` that makes one.

A :class:`Dataset` is a matrix of small integer codes (one column per
variable, column-contiguous), the arity of each variable, its name and the
label of each of its states. An :class:`Encoder` turns a table (a pandas
DataFrame, or the columns a reader prepared) into a Dataset. It learns how to
type, discretize and code every column from one table (``fit``) and applies
exactly that to another (``transform``), so a classifier can learn on
training rows and code test rows the same way. The two share a room because
each needs the other: ``Dataset.from_frame`` encodes, ``Encoder.transform``
returns a Dataset. The per-column rules the Encoder applies are in
:mod:`bnexplore.data.specs`; the checks of blank cells and row weights in
:mod:`bnexplore.data.blanks`.

Every problem a user can cause raises :class:`bnexplore.errors.DataError` with
a one-line message naming the column, row (1-based data rows, as in a
spreadsheet) or value, or adds a warning to ``Dataset.warnings`` that is also
emitted with :func:`warnings.warn`.
"""

from __future__ import annotations

import numpy as np

from ..errors import DataError, option, subject
from .blanks import check_blank, check_weights, first_blank
from .columns import (CATEGORICAL, NUMERIC, blanked, identifier_note, kept_columns, leave_out_names, marks_note,
                      missing_marks, prepare_table)
from .messages import emit, repeated, short_list, short_repr
from .parallel import each
from .specs import (ColumnSpec, encode_column, first_missing, fit_categorical, fit_numeric, infer_kind,
                    inferred_categorical, is_int, parse_discretize, parse_types)

MISSING_LABEL = "<missing>"
"""State of a missing value, last among a variable's states (``missing="state"``)."""
MISSING_POLICIES = ("state", "drop", "error", "em")
"""What the Encoder's ``missing`` option may say: a state of its own, drop the row, refuse, or keep the cell
blank (``Dataset.blank``) for EM to learn from the values each row has."""


MAX_STATES = 1 << 20
"""Most states of one variable (a million): checked before a Dataset's state labels are made, so
``Dataset.from_codes([[10**12]])`` is refused in words, not by the memory of a trillion labels (the process
was killed). A variable with more states than that tells a network nothing."""


def code_dtype(max_arity):
    """Smallest integer dtype holding codes ``0 .. max_arity - 1``.

    Parameters
    ----------
    max_arity : int
        Largest arity among the variables.

    Returns
    -------
    numpy.dtype
        ``uint8`` up to 256 states, ``uint16`` up to 65,536, else ``int32``.
    """
    if max_arity <= 1 << 8:
        return np.dtype(np.uint8)
    if max_arity <= 1 << 16:
        return np.dtype(np.uint16)
    return np.dtype(np.int32)


class Dataset:
    """Integer-coded discrete data: what every score and search reads.

    Parameters
    ----------
    codes : array_like of int, shape (n_rows, n_vars)
        ``codes[s, i]`` is the state of variable ``i`` in row ``s``, in
        ``0 .. arities[i] - 1``. Stored column-contiguous (Fortran order) in
        the smallest of uint8 / uint16 / int32 that fits.
    arities : array_like of int, shape (n_vars,)
        Number of states of each variable (stored as int32).
    names : sequence of str
        Unique variable names.
    states : sequence of sequence of str
        ``states[i][k]`` is the label of code ``k`` of variable ``i``.
    encoder : Encoder, optional
        The fitted encoder that produced the codes (None for coded input).
    warnings : list of str, optional
        Problems found while reading and encoding that did not stop it.
    blank : array_like of bool, shape (n_rows, n_vars), optional
        True where a cell was not observed (``missing="em"``). The code of a
        blank cell is a placeholder 0 that must never be counted: code that
        reads ``codes`` and cannot skip blank cells calls
        :func:`~bnexplore.data.require_complete`. Stored Fortran-ordered, or
        None when no cell is blank (an all-False mask is stored as None).
    weights : array_like of float, shape (n_rows,), optional
        A weight per row (finite, > 0; stored as float64): a weighted
        completed table, whose counts are sums of weights. None for plain
        rows. A Dataset never has both blank cells and weights.
    """

    def __init__(self, codes, arities, names, states, encoder=None, warnings=None, blank=None, weights=None):
        self.arities = np.asarray(arities, dtype=np.int32).reshape(-1)
        self.names = [str(name) for name in names]
        self.states = [[str(label) for label in labels] for labels in states]
        self.encoder = encoder
        self.warnings = list(warnings or [])
        codes = np.asarray(codes)
        _check_layout(codes, self.arities, self.names, self.states)
        self.blank = check_blank(blank, codes.shape)
        self.weights = check_weights(weights, codes.shape[0], self.blank)
        if self.blank is not None and codes.dtype.kind in "iub" and codes[self.blank].any():
            codes = np.where(self.blank, 0, codes)  # the placeholder code of a blank cell
        _check_code_range(codes, self.arities, self.names)
        self.codes = np.asfortranarray(codes, dtype=code_dtype(max(self.arities, default=1)))
        self._positions = {name: i for i, name in enumerate(self.names)}

    # -- constructors ---------------------------------------------------------

    @classmethod
    def from_frame(cls, df, **encoder_options):
        """Encode a DataFrame: ``Encoder(**encoder_options).fit_transform(df)``.

        Parameters
        ----------
        df : pandas.DataFrame
            One column per variable, one row per sample.
        **encoder_options
            Options of :class:`Encoder`.

        Returns
        -------
        Dataset
        """
        return Encoder(**encoder_options).fit_transform(df)

    @classmethod
    def from_codes(cls, codes, arities=None, names=None, states=None, missing="error"):
        """Wrap an integer-coded array.

        Parameters
        ----------
        codes : array_like of int, shape (n_rows, n_vars)
            Non-negative integer codes (integer-valued floats are accepted).
        arities : sequence of int, optional
            Default: ``max + 1`` of each column's observed codes (1 for a
            column without any).
        names : sequence of str, optional
            Default ``"X0", "X1", ...``.
        states : sequence of sequence of str, optional
            Default ``"0" .. str(arity - 1)``.
        missing : {"error", "em"}
            ``"error"``: a negative code is refused; ``"em"``: a code of -1
            (or NaN) is a blank cell (see :attr:`blank`).

        Returns
        -------
        Dataset

        Examples
        --------
        >>> data = Dataset.from_codes([[0, 1], [-1, 0], [1, -1]], missing="em")
        >>> data.n_blank, data.blank_columns(), data.arities.tolist()
        (2, {'X0': 1, 'X1': 1}, [2, 2])
        """
        if missing not in ("error", "em"):
            raise DataError(f"{subject('missing', missing)} is not valid here; use 'error' (negative codes are "
                            f"refused) or 'em' (-1 is a blank cell)")
        codes, blank = _integer_codes(codes, names, missing == "em")
        n_vars = codes.shape[1]
        if names is None:
            names = [f"X{i}" for i in range(n_vars)]
        if arities is None:
            arities = codes.max(axis=0, initial=0) + 1 if n_vars else []
        _check_arities(np.asarray(arities).reshape(-1), names)
        if states is None:
            states = [[str(k) for k in range(int(r))] for r in np.asarray(arities).reshape(-1)]
        return cls(codes, arities, names, states, blank=blank)

    # -- shape and names ------------------------------------------------------

    @property
    def n_rows(self):
        """Number of rows (samples)."""
        return self.codes.shape[0]

    @property
    def n_vars(self):
        """Number of variables (columns)."""
        return self.codes.shape[1]

    @property
    def n_blank(self):
        """Number of blank cells (0 when :attr:`blank` is None)."""
        return 0 if self.blank is None else int(np.count_nonzero(self.blank))

    def blank_columns(self):
        """Blank cells per column, for the columns that have any.

        Returns
        -------
        dict of str to int
            In column order; empty when no cell is blank.

        Examples
        --------
        >>> Dataset.from_codes([[0, -1, 1], [1, -1, 0]], missing="em").blank_columns()
        {'X1': 2}
        """
        if self.blank is None:
            return {}
        counts = np.count_nonzero(self.blank, axis=0)
        return {self.names[i]: int(counts[i]) for i in np.flatnonzero(counts)}

    def complete_rows(self):
        """The rows without a blank cell (this Dataset itself when it has none).

        Returns
        -------
        Dataset
            Its ``blank`` is None.

        Raises
        ------
        DataError
            When every row has a blank cell, naming how many there are.

        Examples
        --------
        >>> Dataset.from_codes([[0, 1], [-1, 0], [1, 1]], missing="em").complete_rows().codes.tolist()
        [[0, 1], [1, 1]]
        """
        if self.blank is None:
            return self
        complete = ~self.blank.any(axis=1)
        if not complete.any():
            row, column = first_blank(self.blank)
            raise DataError(f"every one of the {self.n_rows:,} rows has a blank cell ({self.n_blank:,} in all; first: "
                            f"column {self.names[column]!r}, row {row + 1}), so no row is complete; learn with "
                            f"structural EM ({subject('missing', 'em')}) or leave out the emptiest columns")
        return self.subset(complete)

    def index(self, name_or_int):
        """Position of a variable given by name or by position.

        Parameters
        ----------
        name_or_int : str or int
            A variable name, or a position in ``0 .. n_vars - 1``.

        Returns
        -------
        int
        """
        if isinstance(name_or_int, (int, np.integer)) and not isinstance(name_or_int, (bool, np.bool_)):
            if 0 <= name_or_int < self.n_vars:
                return int(name_or_int)
            raise DataError(f"variable number {name_or_int} is out of range; use 0..{self.n_vars - 1} or a name")
        if isinstance(name_or_int, str):
            if name_or_int in self._positions:
                return self._positions[name_or_int]
            raise DataError(f"no variable named {name_or_int!r}; the variables are {short_list(self.names)}")
        raise DataError(f"{name_or_int!r} is not a variable; give a variable name or a number 0..{self.n_vars - 1}")

    def indices(self, seq):
        """Positions of several variables (see :meth:`index`).

        Parameters
        ----------
        seq : iterable of str or int
            Names or positions; a single name or position is accepted too.

        Returns
        -------
        list of int
        """
        if isinstance(seq, (str, int, np.integer)):
            return [self.index(seq)]
        return [self.index(item) for item in seq]

    # -- views ----------------------------------------------------------------

    def to_frame(self):
        """The data as labels: one categorical column per variable.

        Returns
        -------
        pandas.DataFrame
            Column ``names[i]`` holds ``states[i][codes[:, i]]`` (missing
            values show as the state ``"<missing>"``, blank cells as NaN).
            Row weights are not shown.
        """
        import pandas as pd  # heavy: loaded where a table is built, not for codes
        return pd.DataFrame({name: pd.Categorical.from_codes(self._column_codes(i), categories=self.states[i])
                             for i, name in enumerate(self.names)})

    def _column_codes(self, i):
        """Codes of column ``i`` as int32, -1 at blank cells."""
        codes = self.codes[:, i].astype(np.int32)
        if self.blank is not None:
            codes[self.blank[:, i]] = -1
        return codes

    def subset(self, rows):
        """The same variables (arities, states, encoder) on some rows.

        Parameters
        ----------
        rows : slice, boolean mask or sequence of int
            Rows to keep, in the order given.

        Returns
        -------
        Dataset
            With the blank cells and weights of those rows.
        """
        try:
            picked = np.arange(self.n_rows)[rows]
        except IndexError as error:
            raise DataError(
                f"cannot take rows {short_repr(rows)} of a table with {self.n_rows} rows: {error}"
            ) from None
        return Dataset(self.codes[picked], self.arities, self.names, self.states, self.encoder, self.warnings,
                       blank=None if self.blank is None else self.blank[picked],
                       weights=None if self.weights is None else self.weights[picked])

    def select(self, columns):
        """Some of the variables, in the order given.

        Parameters
        ----------
        columns : iterable of str or int
            Names or positions; each at most once.

        Returns
        -------
        Dataset
            With the blank cells of those columns (None when they have
            none) and the same row weights.
        """
        picked = self.indices(columns)
        twice = repeated([self.names[i] for i in picked])
        if twice:
            raise DataError(f"variables selected more than once: {short_list(twice)}; name each once")
        return Dataset(
            self.codes[:, picked],
            self.arities[picked],
            [self.names[i] for i in picked],
            [self.states[i] for i in picked],
            self.encoder,
            self.warnings,
            blank=None if self.blank is None else self.blank[:, picked],
            weights=self.weights,
        )

    def summary(self):
        """One row per variable, for display.

        Returns
        -------
        pandas.DataFrame
            Columns ``name``, ``kind`` ("categorical" or
            "numeric-discretized"), ``levels`` (arity), ``states`` (labels,
            shortened), ``missing`` (blank cells plus rows in the
            ``"<missing>"`` state) and ``cuts`` (cut points of discretized
            columns, else None).
        """
        import pandas as pd  # heavy: loaded where a table is built, not for codes
        specs = self.encoder.columns if self.encoder is not None else {}
        rows = []
        for i, name in enumerate(self.names):
            spec = specs.get(name)
            numeric = spec is not None and spec.kind == NUMERIC
            missing_code = self.arities[i] - 1 if self.states[i][-1] == MISSING_LABEL else -1
            codes = self._column_codes(i)
            rows.append(
                {
                    "name": name,
                    "kind": "numeric-discretized" if numeric else CATEGORICAL,
                    "levels": int(self.arities[i]),
                    "states": short_list(self.states[i], quote=False),
                    "missing": int(np.count_nonzero((codes < 0) | (codes == missing_code))),
                    "cuts": spec.cuts.tolist() if numeric else None,
                }
            )
        return pd.DataFrame(rows, columns=["name", "kind", "levels", "states", "missing", "cuts"])

    def __repr__(self):
        extra = f"; {self.n_blank:,} blank cells" if self.blank is not None else ""
        extra += f"; weighted, total weight {float(self.weights.sum()):g}" if self.weights is not None else ""
        return f"Dataset({self.n_rows} rows x {self.n_vars} variables: {short_list(self.names, quote=False)}{extra})"


def _check_layout(codes, arities, names, states):
    """Raise DataError unless codes, arities, names and states agree."""
    if codes.ndim != 2:
        raise DataError(f"codes must be a 2-d table (rows x variables), got {codes.ndim} dimension(s)")
    n_vars = codes.shape[1]
    if not len(arities) == len(names) == len(states) == n_vars:
        raise DataError(
            f"codes have {n_vars} columns but there are {len(arities)} arities, {len(names)} names "
            f"and {len(states)} state lists; give one of each per column"
        )
    twice = repeated(names)
    if twice:
        raise DataError(f"duplicated variable names: {short_list(twice)}; give every variable its own name")
    _check_arities(arities, names)
    for name, arity, labels in zip(names, arities, states):
        if len(labels) != arity:
            raise DataError(
                f"variable {name!r} has arity {arity} but {len(labels)} state labels; give one label per state"
            )
        if len(set(labels)) != len(labels):
            raise DataError(f"variable {name!r} has repeated state labels {labels}; make them unique")


def _check_arities(arities, names):
    """Raise DataError unless every arity is from 1 to :data:`MAX_STATES` (``names`` name the variable)."""
    for name, arity in zip(names, arities):
        if not 1 <= arity <= MAX_STATES:
            raise DataError(f"variable {name!r} has arity {arity:,}; a variable has 1 to {MAX_STATES:,} states")


def _check_code_range(codes, arities, names):
    """Raise DataError naming the first code outside ``0 .. arity - 1``."""
    if codes.shape[0] == 0:
        return
    if not np.issubdtype(codes.dtype, np.integer):
        raise DataError(f"codes must be integers, got dtype {codes.dtype}; use Dataset.from_codes for other input")
    bad = (codes.min(axis=0) < 0) | (codes.max(axis=0) >= arities)
    if bad.any():
        j = int(np.argmax(bad))
        column = codes[:, j]
        row = int(np.argmax((column < 0) | (column >= arities[j])))
        raise DataError(
            f"column {names[j]!r} row {row + 1} has code {column[row]}, outside 0..{arities[j] - 1}; "
            f"fix the code or raise the arity"
        )


def _integer_codes(codes, names, em):
    """``(codes, blank)``: codes as a 2-d non-negative integer array, or DataError naming the bad cell.

    With ``em`` a code of -1 or NaN is a blank cell (marked in ``blank``, code 0); else ``blank`` is None.
    """
    codes = np.asarray(codes)
    if codes.ndim != 2:
        raise DataError(f"codes must be a 2-d table (rows x variables), got {codes.ndim} dimension(s)")
    if codes.dtype == bool:
        codes = codes.astype(np.uint8)
    if not np.issubdtype(codes.dtype, np.number):
        raise DataError(f"codes must be numbers, got dtype {codes.dtype}; use Dataset.from_frame for labels")
    names = list(names) if names is not None else [f"X{i}" for i in range(codes.shape[1])]
    blank = None
    if em:
        blank = (codes == -1) | np.isnan(codes) if np.issubdtype(codes.dtype, np.floating) else codes == -1
        codes = np.where(blank, 0, codes)
    if not np.issubdtype(codes.dtype, np.integer):
        bad = ~np.isfinite(codes) | (codes != np.floor(codes))
        if bad.any():
            row, col = np.argwhere(bad)[0]
            value = codes[row, col].item()
            raise DataError(f"column {_name_at(names, col)!r} row {row + 1} has {value!r}, not an integer code")
        codes = codes.astype(np.int64)
    negative = codes < 0
    if negative.any():
        row, col = np.argwhere(negative)[0]
        blank_code = " (or -1 for a blank cell)" if em else f", or -1 for a blank cell with {subject('missing', 'em')}"
        raise DataError(f"column {_name_at(names, col)!r} row {row + 1} has code {codes[row, col]}; codes must be "
                        f">= 0{blank_code}")
    return codes, blank


def _name_at(names, j):
    """Name of column ``j`` in messages (``X{j}`` past the names given)."""
    return names[j] if j < len(names) else f"X{j}"


class Encoder:
    """Types, discretizes and integer-codes the columns of a table.

    ``fit`` learns, from one table, each column's kind (categorical or
    numeric), its states, and for numeric columns the cut points;
    ``transform`` codes any table with the same columns exactly that way
    (values outside the training range fall into the end bins).

    Column typing: strings, booleans, pandas categoricals, integer columns
    with at most ``max_int_levels`` distinct values, and float columns whose
    values are all whole numbers with at most ``max_int_levels`` distinct
    values are categorical; other numbers are numeric and need a
    discretization. Categorical states are the distinct observed values
    sorted (numbers numerically, before text; a pandas categorical keeps its
    category order), so the arity is the number of distinct values.

    Parameters
    ----------
    discretize : str, list of float or dict, optional
        One method for every numeric column, or a dict column -> method (a
        column given a method is numeric). Methods: ``"uniform3"``,
        ``"quantile:K"``, ``"width:K"``, ``"manual:c1,c2,..."`` or a list of
        cut points; see :func:`learn_cut_points`.
    types : str or dict, optional
        ``"categorical"`` or ``"numeric"`` for every column, or a dict
        column -> kind, overriding the inferred kind.
    missing : {"state", "drop", "error", "em"}
        ``"state"``: missing cells (NaN, None, empty text) get their own last
        state ``"<missing>"`` in the columns that have any when fitting;
        ``"drop"``: rows with a missing cell are dropped; ``"error"``: raise;
        ``"em"``: missing cells stay blank (``Dataset.blank``) for EM to learn
        from the values each row has: no state is added, so a column's arity
        counts only its observed values. A column with no observed value is
        dropped with a warning naming it, and so is a row with every cell
        blank (it tells EM nothing, yet it would count in the number of rows
        that scores such as BIC penalize with).
    max_levels : int or None
        Largest number of states of a column inferred categorical (a column
        declared categorical in ``types`` is exempt); None for no limit.
    max_int_levels : int
        Integer-valued columns with at most this many distinct values are
        categorical.
    drop_constant : bool
        Drop single-state columns (otherwise they are kept with a warning).
    leave_out : str or list of str, optional
        Columns not to use (a row identifier, free text): ``fit`` sets them
        aside before typing them, and ``transform`` ignores them. Each must be
        a column of the table.
    missing_values : str or list of str, optional
        The table's own marks for "no value" (``"?"``, ``"unknown"``,
        ``"-999"``): a cell whose text is one of them (spaces around it
        ignored) is missing, in every column, besides blank cells and the
        readers' NA words (``NA``, ``null``, ...). A column of numbers with
        such a mark is then numeric.

    Attributes
    ----------
    columns : dict of str to ColumnSpec
        Per-column result of ``fit``, in table order (dropped constant columns
        included, flagged ``constant``).
    warnings : list of str
        Warnings raised while fitting.
    """

    def __init__(self, discretize=None, types=None, missing="state", max_levels=50, max_int_levels=10,
                 drop_constant=False, leave_out=None, missing_values=None):
        self.discretize = discretize
        self.types = types
        self.missing = missing
        self.max_levels = max_levels
        self.max_int_levels = max_int_levels
        self.drop_constant = drop_constant
        self._methods = parse_discretize(discretize)
        self._types = parse_types(types)
        if missing not in MISSING_POLICIES:
            raise DataError(f"{subject('missing', missing)} is not a policy; use "
                            f"{short_list(MISSING_POLICIES[:-1])} or {MISSING_POLICIES[-1]!r}")
        if max_levels is not None and not (is_int(max_levels) and max_levels >= 2):
            no_limit = option("max_levels", None)
            raise DataError(f"{subject('max_levels', max_levels)} is not valid; use a whole number >= 2"
                            + (f" (or {no_limit} for no limit)" if no_limit else ""))
        if not (is_int(max_int_levels) and max_int_levels >= 0):
            raise DataError(f"{subject('max_int_levels', max_int_levels)} is not valid; use a whole number >= 0")
        if not isinstance(drop_constant, (bool, np.bool_)):
            raise DataError(f"{subject('drop_constant', drop_constant)} is not valid; use True or False")
        leave_out_names(leave_out)  # checked now, used by fit
        self.leave_out = leave_out
        self.missing_values = missing_values
        self._marks = missing_marks(missing_values)
        self.columns = {}
        self.warnings = []

    def __repr__(self):
        defaults = {"discretize": None, "types": None, "missing": "state", "max_levels": 50,
                    "max_int_levels": 10, "drop_constant": False, "leave_out": None, "missing_values": None}
        changed = [f"{k}={getattr(self, k)!r}" for k, v in defaults.items() if repr(getattr(self, k)) != repr(v)]
        return f"Encoder({', '.join(changed)})"

    # -- public API -----------------------------------------------------------

    def fit(self, df):
        """Learn kinds, states and cut points from ``df``; returns self."""
        self._fit_table(self._prepared(df))
        emit(self.warnings)
        return self

    def transform(self, df):
        """Code ``df`` with what ``fit`` learned.

        Parameters
        ----------
        df : pandas.DataFrame
            Must have every column the encoder was fitted on (others are
            ignored).

        Returns
        -------
        Dataset
        """
        if not self.columns:
            raise DataError("the encoder has not been fitted; call fit(df) first")
        table = self._prepared(df, self.encoded_names())
        notes = [c.note for c in table.columns if c.note and inferred_categorical(self.columns[c.name])]
        notes += self._apply_missing_policy(table)
        emit(notes)
        return self._encode(table, notes)

    def fit_transform(self, df):
        """``fit(df)`` then ``transform(df)``, preparing the table once.

        Returns
        -------
        Dataset
            With ``warnings`` = the fit warnings.
        """
        return self._fit_transform(self._prepared(df))

    def cut_points(self):
        """Exact cut points of each numeric column.

        Returns
        -------
        dict of str to list of float
        """
        return {name: spec.cuts.tolist() for name, spec in self.columns.items() if spec.kind == NUMERIC}

    def encoded_names(self):
        """Names of the columns ``transform`` codes (constant ones dropped if asked, all-blank ones dropped)."""
        return [name for name, spec in self.columns.items()
                if not (spec.constant and self.drop_constant or spec.empty)]

    def profile(self, df):
        """Describe a raw table before encoding, with this encoder's options.

        Parameters
        ----------
        df : pandas.DataFrame

        Returns
        -------
        pandas.DataFrame
            One row per column: ``column``, ``type`` (the kind the encoder
            would give it), ``discretize`` (the method a numeric column
            would get, or None), ``distinct`` (distinct non-missing values),
            ``missing``, ``min`` and ``max`` (numbers only), ``identifier``
            (True for a column that looks like a row identifier: at least
            :data:`IDENTIFIER_MIN_ROWS` rows, each non-missing one its own
            text or whole-number value), ``note`` (e.g. mixed numbers and
            text; "looks like a row identifier: every row has its own
            value ...").

        Examples
        --------
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"id": range(30), "smoker": ["yes", "no", "no"] * 10})
        >>> Encoder().profile(frame)[["column", "identifier"]].values.tolist()
        [['id', True], ['smoker', False]]
        """
        import pandas as pd  # heavy: loaded where a table is built, not for codes
        table = self._prepared(df)
        rows = []
        for column in table.columns:
            kind, _ = self._kind_of(column)
            method = self._method_of(column.name) if kind == NUMERIC else None
            valued = column.number_valued and len(column.uniques) > 0
            identifier = identifier_note(column)
            rows.append(
                {
                    "column": column.name,
                    "type": kind,
                    "discretize": method.text if method else None,
                    "distinct": len(column.uniques),
                    "missing": column.n_missing(),
                    "min": float(np.min(column.numbers)) if valued else None,
                    "max": float(np.max(column.numbers)) if valued else None,
                    "identifier": identifier is not None,
                    "note": "; ".join(note for note in (column.note, identifier) if note),
                }
            )
        return pd.DataFrame(rows, columns=["column", "type", "discretize", "distinct", "missing", "min", "max",
                                           "identifier", "note"])

    # -- fitting --------------------------------------------------------------

    def fit_transform_table(self, table):
        """``fit_transform`` of prepared columns: what the readers build from a file without a DataFrame.

        Parameters
        ----------
        table : bnexplore.data.columns.Table
            Prepared columns (:func:`bnexplore.data.columns.prepare_table`,
            or a reader's); the Encoder may drop rows and columns of it.

        Returns
        -------
        Dataset
            With ``warnings`` = the fit warnings.
        """
        if self._marks:
            table.columns = [blanked(c, self._marks) for c in table.columns]
        return self._fit_transform(table)

    def _fit_transform(self, table):
        """:meth:`fit_transform_table` of a table already rid of the ``missing_values`` marks."""
        self._fit_table(table)
        emit(self.warnings)
        kept = set(self.encoded_names())
        table.columns = [c for c in table.columns if c.name in kept]
        return self._encode(table, self.warnings)

    def _fit_table(self, table):
        names = [c.name for c in table.columns]
        self._check_option_columns(names)
        kept = set(kept_columns(names, self.leave_out))
        table.columns = [c for c in table.columns if c.name in kept]
        kinds = [self._kind_of(column) for column in table.columns]
        empty = {c.name for c in table.columns if self.missing == "em" and c.n_missing() == table.n_rows}
        undiscretized = [c.name for c, (kind, _) in zip(table.columns, kinds)
                         if kind == NUMERIC and self._method_of(c.name) is None and c.name not in empty]
        if undiscretized:
            example = undiscretized[0]
            identifiers = [c.name for c in table.columns if c.name in undiscretized and identifier_note(c)]
            leave = option("leave_out", identifiers[0] if len(identifiers) == 1 else identifiers)
            raise DataError(
                f"numeric column(s) {short_list(undiscretized, limit=20)} need a discretization: pass "
                f"{subject('discretize', 'uniform3')} (or 'quantile:K', 'width:K', 'manual:...'), or "
                f"{subject('types', {example: CATEGORICAL})} to use their values as categories"
                + (f"; {short_list(identifiers)} "
                   + ("looks like a row identifier: leave it out" if len(identifiers) == 1 else
                      "look like row identifiers: leave them out")
                   + (f" ({leave})" if leave else "") if identifiers else "")
            )
        n_missing = [column.n_missing() for column in table.columns]
        notes = [c.note for c, (kind, declared) in zip(table.columns, kinds)
                 if c.note and kind == CATEGORICAL and not declared]
        notes += [note for note in map(identifier_note, table.columns) if note]
        notes += [note for note in [marks_note(table.columns)] if note]
        notes += self._apply_missing_policy(table)
        specs = {}
        for column, (kind, declared), missing in zip(table.columns, kinds, n_missing):
            if column.name in empty:
                specs[column.name] = ColumnSpec(column.name, kind, [], missing=missing, declared=declared, empty=True)
                continue
            if kind == NUMERIC:
                spec, note = fit_numeric(column, table, self._method_of(column.name))
                if note:
                    notes.append(note)
            else:
                spec = fit_categorical(column, declared, self.max_levels)
            spec.declared, spec.missing = declared, missing
            spec.missing_state = self.missing == "state" and bool((column.codes < 0).any())
            if spec.missing_state:
                spec.states.append(MISSING_LABEL)
            spec.constant = spec.arity == 1
            specs[column.name] = spec
        self.columns = specs
        notes += self._constant_warnings()
        if empty:
            names = short_list([name for name in specs if name in empty], limit=20)
            if not self.encoded_names():
                raise DataError(f"no column is left to learn from: {names} have no value, every cell blank, and the "
                                f"others are constant")
            notes.append(f"dropped column(s) {names}: every cell is blank, so they carry no information")
        self.warnings = notes

    def _prepared(self, df, wanted=None):
        """``prepare_table(df, wanted)`` with the cells marked by ``missing_values`` missing."""
        table = prepare_table(df, wanted)
        if self._marks:
            table.columns = [blanked(c, self._marks) for c in table.columns]
        return table

    def _check_option_columns(self, names):
        known = set(names)
        for keyword, mapping in (("types", self._types), ("discretize", self._methods)):
            if isinstance(mapping, dict):
                absent = [name for name in mapping if name not in known]
                if absent:
                    raise DataError(
                        f"{keyword} names column(s) {short_list(absent)} that the table does not have; "
                        f"the columns are {short_list(names)}"
                    )

    def _kind_of(self, column):
        """(kind, declared) of a column: options first, then inference."""
        declared = self._types.get(column.name) if isinstance(self._types, dict) else self._types
        if isinstance(self._methods, dict) and column.name in self._methods:
            if declared == CATEGORICAL:
                raise DataError(
                    f"column {column.name!r} is given a discretization but declared categorical in types; "
                    f"remove one of the two"
                )
            return NUMERIC, declared is not None
        if declared is not None:
            return declared, True
        return infer_kind(column, self.max_int_levels), False

    def _method_of(self, name):
        if isinstance(self._methods, dict):
            return self._methods.get(name)
        return self._methods

    def _constant_warnings(self):
        constant = [name for name, spec in self.columns.items() if spec.constant]
        if not constant:
            return []
        names = short_list(constant, limit=20)
        if not self.drop_constant:
            drop = option("drop_constant", True)
            leave = option("leave_out", constant[0] if len(constant) == 1 else constant)
            return [f"constant column(s) {names} have a single state and carry no information"
                    + (f"; pass {drop} to drop them" if drop else f"; leave them out ({leave})" if leave else "")]
        if len(constant) == len(self.columns):
            raise DataError(f"every column is constant ({names}); there is nothing to learn from")
        return [f"dropped constant column(s) {names} ({subject('drop_constant', True)})"]

    # -- missing values -------------------------------------------------------

    def _apply_missing_policy(self, table):
        """Raise or drop rows as ``missing`` says; return the warnings."""
        if self.missing in ("state", "em"):
            return []
        first = first_missing(table)
        if first is None:
            return []
        row, name = first
        if self.missing == "error":
            raise DataError(
                f"column {name!r} row {table.row_number(row)} is missing ({subject('missing', 'error')}); fill it "
                f"in, or pass {subject('missing', 'state')} to give missing values their own state or "
                f"{subject('missing', 'drop')} to drop such rows, or {subject('missing', 'em')} to learn from the "
                f"values each row has"
            )
        complete = np.ones(table.n_rows, dtype=bool)
        for column in table.columns:
            complete &= column.codes >= 0
        keep = np.flatnonzero(complete)
        if keep.size == 0:
            raise DataError(f"all {table.n_rows} rows have a missing value, so {subject('missing', 'drop')} leaves "
                            f"nothing; pass {subject('missing', 'state')} or drop the emptiest columns")
        note = (f"dropped {table.n_rows - keep.size} of {table.n_rows} rows with missing values "
                f"(first: row {table.row_number(row)}, column {name!r})")
        table.keep_rows(keep)
        return [note]

    # -- coding ---------------------------------------------------------------

    def _encode(self, table, notes):
        specs = [self.columns[column.name] for column in table.columns]
        arities = [spec.arity for spec in specs]
        codes = np.empty((table.n_rows, len(specs)), dtype=code_dtype(max(arities)), order="F")
        blank = np.zeros(codes.shape, dtype=bool, order="F") if self.missing == "em" else None
        each(lambda j: encode_column(specs[j], table.columns[j], table, codes[:, j],
                                     None if blank is None else blank[:, j]), range(len(specs)), table.n_rows)
        if blank is not None:
            codes, blank = self._drop_blank_rows(table, codes, blank, notes)
        return Dataset(codes, arities, [s.name for s in specs], [list(s.states) for s in specs], self, notes,
                       blank=blank)

    @staticmethod
    def _drop_blank_rows(table, codes, blank, notes):
        """Codes and blank mask without the rows whose every cell is blank (noted in ``notes``, and emitted)."""
        empty = blank.all(axis=1)
        if not empty.any():
            return codes, blank
        n_empty, first = int(np.count_nonzero(empty)), table.row_number(int(np.argmax(empty)))
        if n_empty == table.n_rows:
            raise DataError(f"every one of the {n_empty:,} rows is blank in every column used; there is nothing to "
                            f"learn from")
        note = (f"dropped {n_empty:,} of {table.n_rows:,} rows whose every cell is blank (first: row {first}); they "
                f"tell EM nothing")
        notes.append(note)
        emit([note])
        keep = ~empty
        return codes[keep], blank[keep]
