"""Discrete Bayesian networks: the BIF reader and writer, forward sampling,
likelihood and parameter fitting.

A :class:`Network` holds, for every variable, its states, its parents and its
conditional probability table (CPT). ``cpts[i]`` has shape
``(*arities of parents[i] in that order, arity of i)``: the last axis is the
child's state and sums to one; a parent configuration is numbered in
mixed radix with the *last* parent varying fastest, so
``cpts[i].reshape(-1, arity_i)[config]`` is the distribution for ``config``.

The BIF dialect read here is that of the bnlearn Bayesian network repository
(Interchange Format 0.15, Cozman 1998)::

    network name { }
    variable X { type discrete [ 2 ] { yes, no }; property ... ; }
    probability ( X | A, B ) { (a1, b1) 0.1, 0.9; ... default 0.5, 0.5; }
    probability ( Y ) { table 0.2, 0.8; }

Decisions, each enforced by :func:`read_bif`:

- ``//`` and ``/* */`` comments and ``property`` statements are ignored;
  anything else outside the three kinds of block is an error.
- ``table`` in a conditional block lists the values in the order of the
  JavaBayes reference implementation and of pgmpy: the child varies slowest and
  the parents, in their declared order, vary as in a C array (the last parent
  fastest): ``P(x0|c0), P(x0|c1), ..., P(x1|c0), ...``.
- ``default`` gives the distribution of every parent configuration without a
  row of its own; a configuration with neither is an error.
- A distribution must sum to one within ``SUM_TOLERANCE`` (1e-3, absolute),
  the rounding found in published networks; one that misses one by more than
  1e-9 is then renormalised silently, so a network read, written and read again
  is reproduced bit for bit.
- A network declared as ``unknown`` (every bnlearn file) read from a file takes
  the file's name without ``.bif`` / ``.bif.gz``.
"""

import gzip
import itertools
import re
from pathlib import Path

import numpy as np
import pandas as pd

from bnexplore.data import code_dtype
from bnexplore.errors import BIFError, DataError, ResourceError, ScoreError

SUM_TOLERANCE = 1e-3
"""Largest accepted distance from one of the sum of a distribution in a file."""

_RENORMALISE_ABOVE = 1e-9
_CHECK_TOLERANCE = 1e-6
_MAX_CPT_CELLS = 2**26
_FORBIDDEN_IN_NAMES = re.compile(r"[\s{}()\[\];,|\"]|//|/\*")
_FORBIDDEN_RUNS = re.compile(f"(?:{_FORBIDDEN_IN_NAMES.pattern})+")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_BRACE = re.compile(r"[{}]")
_HEADER = re.compile(r"\s*(network|variable|probability)(?![^\s(])(.*)\Z", re.DOTALL)
_DISCRETE = re.compile(r"\s*type\s+discrete\s*\[\s*(\d+)\s*\]\s*\Z", re.DOTALL)
_KEYWORD = re.compile(r"\s*(table|default|property)(?![^\s,])(.*)\Z", re.DOTALL)


class Network:
    """A discrete Bayesian network: a DAG with one CPT per variable.

    Parameters
    ----------
    name : str
        Name of the network.
    names : list of str
        Variable names, unique.
    states : list of list of str
        State labels of every variable, unique within a variable.
    parents : list of list of int
        Parent indices of every variable; the order fixes the CPT's axes.
    cpts : list of array_like
        ``cpts[i]`` has shape ``(*[arity of p for p in parents[i]], arity_i)``,
        non-negative, summing to one (within 1e-6) over the last axis.

    Attributes
    ----------
    fit : dict or None
        For a network made by :func:`fit_network`, how its tables were
        fitted (method, ess, counts, parent configurations never seen);
        None for a network read from BIF or built by hand.

    Raises
    ------
    BIFError
        If the pieces do not fit together or the parent graph has a cycle.
    """

    fit = None

    def __init__(self, name, names, states, parents, cpts):
        self.name = str(name)
        self.names = [str(v) for v in names]
        self.states = [[str(s) for s in labels] for labels in states]
        self.parents = [[int(p) for p in ps] for ps in parents]
        self.cpts = [np.asarray(t, dtype=np.float64) for t in cpts]
        self._check()

    @property
    def arities(self):
        """Number of states of every variable (int32 array)."""
        return np.array([len(s) for s in self.states], dtype=np.int32)

    @property
    def n_vars(self):
        """Number of variables."""
        return len(self.names)

    def index(self, name):
        """Index of the variable called ``name``.

        Raises
        ------
        BIFError
            If no variable has that name.
        """
        try:
            return self.names.index(name)
        except ValueError:
            raise BIFError(
                f"network {self.name!r} has no variable {name!r}; "
                f"use one of its {self.n_vars} variables, e.g. {self.names[:5]}"
            ) from None

    def topological_order(self):
        """Variable indices with every parent before its children."""
        return _topological_order(self.parents)[0]

    def dag(self):
        """The network's graph as a :class:`bnexplore.graphs.DAG`."""
        from bnexplore.graphs import DAG

        return DAG.from_parents(self.parents, self.names)

    def __repr__(self):
        arcs = sum(len(p) for p in self.parents)
        return f"Network({self.name!r}, {self.n_vars} variables, {arcs} arcs)"

    def _check(self):
        n = len(self.names)
        if not len(self.states) == len(self.parents) == len(self.cpts) == n:
            raise BIFError(
                f"network {self.name!r}: got {n} names, {len(self.states)} state lists, "
                f"{len(self.parents)} parent lists and {len(self.cpts)} CPTs; give one of each per variable"
            )
        _check_unique(self.names, f"network {self.name!r}", "variable")
        for v in range(n):
            self._check_variable(v)
        _, cycle = _topological_order(self.parents)
        if cycle:
            raise BIFError(
                f"network {self.name!r}: the parents form a cycle {_cycle_text(cycle, self.names)}; remove "
                "one arc",
            )

    def _check_variable(self, v):
        where = f"network {self.name!r}, variable {self.names[v]!r}"
        if not self.states[v]:
            raise BIFError(f"{where}: no states; give it at least one")
        _check_unique(self.states[v], where, "state")
        parents = self.parents[v]
        if any(not 0 <= p < len(self.names) for p in parents) or len(set(parents)) < len(parents):
            raise BIFError(f"{where}: parents {parents} must be distinct indices in 0..{len(self.names) - 1}")
        shape = tuple(len(self.states[p]) for p in parents) + (len(self.states[v]),)
        table = self.cpts[v]
        if table.shape != shape:
            raise BIFError(
                f"{where}: CPT has shape {table.shape}, expected {shape} (parent arities, then its own)",
            )
        off_one = np.abs(table.sum(axis=-1) - 1)
        if table.size and not (table.min() >= 0 and off_one.max() <= _CHECK_TOLERANCE):
            raise BIFError(f"{where}: every CPT row must be non-negative and sum to 1")


def read_bif(source):
    """Read a discrete Bayesian network in BIF.

    Parameters
    ----------
    source : str, pathlib.Path or file-like
        A path to a ``.bif`` or ``.bif.gz`` file; BIF text (a ``str`` holding
        a ``{``); or an open file (text or bytes, plain or gzipped).

    Returns
    -------
    Network

    Raises
    ------
    BIFError
        If the file cannot be read or is malformed; the message gives the line
        number and what was expected there.

    Notes
    -----
    See the module docstring for the dialect and the conventions chosen.
    """
    text, default_name = _read_source(source)
    return _Parser(text, default_name).network()


def bif_safe_label(label):
    """``label`` with every run of characters BIF cannot hold (white space,
    ``{}()[];,|"``, comment markers) replaced by ``_``, e.g. the interval
    state ``(-inf, 0.5]`` becomes ``-inf_0.5``; writable labels are kept as they are."""
    if label and not _FORBIDDEN_IN_NAMES.search(label):
        return label
    return _FORBIDDEN_RUNS.sub("_", label).strip("_") or "_"


def _unique(labels):
    """``labels`` made unique by suffixes ``_2``, ``_3``, ... (first one kept)."""
    seen = set()
    out = []
    for label in labels:
        candidate, k = label, 1
        while candidate in seen:
            k += 1
            candidate = f"{label}_{k}"
        seen.add(candidate)
        out.append(candidate)
    return out


def bif_safe(network):
    """A copy of ``network`` whose network, variable and state names BIF can
    hold (see :func:`bif_safe_label`; names that collide get ``_2``, ``_3``,
    ... suffixes). Tables and structure are unchanged."""
    names = _unique([bif_safe_label(name) for name in network.names])
    states = [_unique([bif_safe_label(state) for state in labels]) for labels in network.states]
    return Network(bif_safe_label(network.name), names, states, network.parents, network.cpts)


def write_bif(network, path=None, rename=False):
    """Write a network as BIF text that :func:`read_bif` reads back exactly.

    Probabilities are written with ``repr`` (the shortest text that parses to
    the same float), rows in the order of the CPT (last parent fastest).

    Parameters
    ----------
    network : Network
    path : str or pathlib.Path, optional
        File to write; gzipped when the name ends with ``.gz``.
    rename : bool
        Write names BIF cannot hold through :func:`bif_safe` instead of
        raising (interval states of discretized columns, names with spaces).

    Returns
    -------
    str
        The BIF text.

    Raises
    ------
    BIFError
        If a variable or state name cannot be written in BIF (it holds white
        space or one of ``{}()[];,|"``) and ``rename`` is False.
    """
    if rename:
        network = bif_safe(network)
    for v, name in enumerate(network.names):
        _check_writable(name, f"variable name {name!r}")
        for state in network.states[v]:
            _check_writable(state, f"state {state!r} of variable {name!r}")
    _check_writable(network.name, f"network name {network.name!r}")
    parts = [f"network {network.name} {{\n}}\n"]
    for v, name in enumerate(network.names):
        states = ", ".join(network.states[v])
        parts.append(
            f"variable {name} {{\n  type discrete [ {len(network.states[v])} ] {{ {states} }};\n}}\n",
        )
    for v in range(network.n_vars):
        parts.append(_probability_text(network, v))
    text = "".join(parts)
    if path is not None:
        path = Path(path)
        data = text.encode("utf-8")
        path.write_bytes(gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)
    return text


def sample_codes(network, n, seed=None):
    """Forward (ancestral) sample of a network as integer state codes.

    Variables are drawn in topological order, all rows at once: each row's
    parent configuration is its mixed-radix number, and its state is found by
    inverting the cumulative distribution of that configuration with one
    uniform number (Henrion 1988, "Propagating uncertainty in Bayesian networks
    by probabilistic logic sampling", Section 3).

    Parameters
    ----------
    network : Network
    n : int
        Number of rows, >= 0.
    seed : int, numpy.random.Generator or None
        Passed to :func:`numpy.random.default_rng`.

    Returns
    -------
    numpy.ndarray
        ``n x n_vars`` codes in Fortran order, dtype uint8 / uint16 / int32 (the
        smallest that fits, as in ``bnexplore.data.Dataset``); column ``i`` is
        ``network.names[i]`` and code ``k`` is ``network.states[i][k]``.
    """
    n = _row_count(n)
    rng = np.random.default_rng(seed)
    arities = network.arities
    codes = np.empty((n, network.n_vars), dtype=code_dtype(int(arities.max(initial=1))), order="F")
    for v in network.topological_order():
        thresholds = _thresholds(network.cpts[v])
        config = _parent_config(codes, network.parents[v], arities)
        u = rng.random(n)
        state = np.zeros(n, dtype=codes.dtype)
        for column in thresholds:
            state += u >= (column[config] if config is not None else column[0])
        codes[:, v] = state
    return codes


def sample(network, n, seed=None):
    """Forward sample of a network as a table of state names.

    Parameters
    ----------
    network : Network
    n : int
        Number of rows.
    seed : int, numpy.random.Generator or None
        Same seed, same table (see :func:`sample_codes`, which this wraps).

    Returns
    -------
    pandas.DataFrame
        One column per variable, in network order, each a ``Categorical`` whose
        categories are the variable's states in network order.
    """
    codes = sample_codes(network, n, seed)
    columns = {
        name: pd.Categorical.from_codes(codes[:, v], categories=network.states[v])
        for v, name in enumerate(network.names)
    }
    return pd.DataFrame(columns)


def log_likelihood(network, codes):
    """Natural-log probability of a table under a network, summed over rows.

    Parameters
    ----------
    network : Network
    codes : array_like of int
        ``n_rows x n_vars`` state codes, columns in network order.

    Returns
    -------
    float
        ``sum over rows of log P(row)``; ``-inf`` if a row has probability 0.

    Raises
    ------
    DataError
        If the table has the wrong number of columns or a code out of range.
    """
    codes = _checked_codes(network, codes)
    arities = network.arities
    total = 0.0
    with np.errstate(divide="ignore"):
        for v in range(network.n_vars):
            config = _parent_config(codes, network.parents[v], arities)
            flat = np.log(network.cpts[v].reshape(-1))
            index = codes[:, v].astype(np.intp)
            if config is not None:
                index += config * arities[v]
            total += float(flat[index].sum())
    return total


def fit_network(dag, dataset, ess=1.0, method="bdeu"):
    """Fit the CPTs of a DAG to data: the BDeu posterior mean, or maximum likelihood.

    ``method="bdeu"``: ``P(X_i = k | Pa_i = j) = (N_ijk + ess / (q_i r_i)) / (N_ij + ess / q_i)``
    (Heckerman, Geiger & Chickering 1995, "Learning Bayesian networks: the
    combination of knowledge and statistical data", Section 5, BDeu prior);
    ``ess = 0`` is maximum likelihood. ``method="ml"``: ``N_ijk / N_ij``
    whatever ``ess``. Either way a parent configuration that never occurs in
    the data gets the uniform distribution (the BDeu mean has no data to move
    it; maximum likelihood is undefined there and uniform is the convention);
    the fitted network says how many such rows each table has.

    Parameters
    ----------
    dag : bnexplore.graphs.DAG or similar
        Anything with ``.n``, ``.names`` and ``.parents(v) -> list of int``.
    dataset : bnexplore.data.Dataset or similar
        Anything with ``.codes``, ``.arities``, ``.names`` and ``.states``;
        the DAG's variables are found in it by name.
    ess : float
        Equivalent sample size of the BDeu prior, >= 0 (ignored by "ml").
    method : {"bdeu", "ml"}

    Returns
    -------
    Network
        Variables in the DAG's order. Its ``fit`` attribute records how it
        was fitted: ``method``, ``ess`` (None for "ml"), ``rows``, ``counts``
        (the ``N_ijk`` of every variable, shaped like its CPT),
        ``configurations`` ``{variable: q_i}`` and ``empty_configurations``
        ``{variable: parent configurations never seen}``.

    Raises
    ------
    DataError
        If a DAG variable is not a column of the data.
    ScoreError
        If ``ess`` is negative or ``method`` unknown.
    ResourceError
        If a CPT would have more than 2**26 cells.
    """
    if method not in ("bdeu", "ml"):
        raise ScoreError(f"unknown fitting method {method!r}: use 'bdeu' (posterior mean) or 'ml' (maximum "
                         "likelihood)")
    if not ess >= 0:
        raise ScoreError(f"ess must be >= 0, got {ess!r}; use 1.0 for BDeu, 0 for maximum likelihood")
    if method == "ml":
        ess = 0.0
    column_of = {str(name): i for i, name in enumerate(dataset.names)}
    missing = [name for name in dag.names if str(name) not in column_of]
    if missing:
        raise DataError(
            f"variable {missing[0]!r} of the DAG is not a column of the data; fit a DAG over the data's "
            "columns",
        )
    columns = [column_of[str(name)] for name in dag.names]
    codes = np.asarray(dataset.codes)[:, columns]
    arities = np.asarray(dataset.arities, dtype=np.int64)[columns]
    parents = [list(dag.parents(v)) for v in range(dag.n)]
    fitted = [_fitted_cpt(codes, v, parents[v], arities, ess, dag.names[v]) for v in range(dag.n)]
    states = [dataset.states[c] for c in columns]
    network = Network("fitted", dag.names, states, parents, [table for table, _ in fitted])
    counts = [n for _, n in fitted]
    names = [str(name) for name in dag.names]
    network.fit = {
        "method": method, "ess": None if method == "ml" else float(ess), "rows": int(codes.shape[0]),
        "counts": counts,
        "configurations": {name: int(n.size // n.shape[-1]) for name, n in zip(names, counts)},
        "empty_configurations": {name: int((n.reshape(-1, n.shape[-1]).sum(axis=1) == 0).sum())
                                 for name, n in zip(names, counts)},
    }
    return network


def _fitted_cpt(codes, v, parents, arities, ess, name):
    """The fitted table of ``v`` and its counts ``N_ijk``, both shaped like the CPT."""
    r = int(arities[v])
    shape = tuple(int(arities[p]) for p in parents) + (r,)
    cells = int(np.prod(shape, dtype=np.float64))
    if cells > _MAX_CPT_CELLS:
        raise ResourceError(
            f"the CPT of {name!r} would have {cells} cells (more than {_MAX_CPT_CELLS}); give it fewer "
            "parents",
        )
    q = cells // r
    config = _parent_config(codes, parents, arities)
    keys = codes[:, v].astype(np.intp)
    if config is not None:
        keys += config * r
    observed = np.bincount(keys, minlength=cells).reshape(q, r)
    counts = observed + ess / (q * r)
    totals = counts.sum(axis=1, keepdims=True)
    table = np.divide(counts, totals, out=np.full(counts.shape, 1.0 / r), where=totals > 0)
    return table.reshape(shape), observed.reshape(shape)


def _parent_config(codes, parents, arities):
    """Mixed-radix number of every row's parent configuration (last parent
    fastest), or None for a variable without parents."""
    if not parents:
        return None
    config = codes[:, parents[0]].astype(np.intp)
    for p in parents[1:]:
        config *= int(arities[p])
        config += codes[:, p]
    return config


def _thresholds(cpt):
    """Cumulative probabilities per state boundary: ``(r - 1) x q``.

    Row ``k`` holds ``P(X <= k | config)``; a uniform ``u`` falls in state
    ``#{k : u >= thresholds[k, config]}``. Thresholds at and after a
    configuration's last positive state are exactly 1, so states of
    probability 0 are never drawn, whatever the rounding of the cumulative sum.
    """
    r = cpt.shape[-1]
    table = cpt.reshape(-1, r)
    cumulative = np.cumsum(table, axis=1)
    last_positive = r - 1 - np.argmax(table[:, ::-1] > 0, axis=1)
    cumulative[np.arange(r) >= last_positive[:, None]] = 1.0
    return np.ascontiguousarray(cumulative[:, :-1].T)


def _row_count(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise DataError(f"the number of rows must be a whole number >= 0, got {n!r}")
    return int(n)


def _checked_codes(network, codes):
    codes = np.asarray(codes)
    if codes.ndim != 2 or codes.shape[1] != network.n_vars:
        raise DataError(
            f"codes have shape {codes.shape}, expected (rows, {network.n_vars}) "
            f"with columns in the order of network {network.name!r}"
        )
    if codes.size and not np.issubdtype(codes.dtype, np.integer):
        raise DataError(f"codes must be integers, got dtype {codes.dtype}; encode the states first")
    arities = network.arities
    for v in range(network.n_vars):
        column = codes[:, v]
        outside = (column < 0) | (column >= arities[v])
        if outside.any():
            row = int(np.argmax(outside))
            raise DataError(
                f"column {network.names[v]!r}, row {row}: code {int(column[row])} "
                f"is outside 0..{arities[v] - 1}; "
                "use the network's state numbering"
            )
    return codes


def _topological_order(parents):
    """Kahn's algorithm. Returns ``(order, cycle)``: ``cycle`` is an empty list,
    or the variables of one directed cycle when ``order`` is incomplete."""
    n = len(parents)
    children = [[] for _ in range(n)]
    missing = [len(ps) for ps in parents]
    for v, ps in enumerate(parents):
        for p in ps:
            children[p].append(v)
    order = [v for v in range(n) if missing[v] == 0]
    for v in order:
        for c in children[v]:
            missing[c] -= 1
            if missing[c] == 0:
                order.append(c)
    if len(order) == n:
        return order, []
    return order, _one_cycle(parents, set(range(n)) - set(order))


def _one_cycle(parents, stuck):
    """A directed cycle among ``stuck`` variables, each of which has a parent
    in ``stuck`` (what Kahn's algorithm leaves): follow parents until a repeat."""
    v = min(stuck)
    seen = []
    while v not in seen:
        seen.append(v)
        v = next(p for p in parents[v] if p in stuck)
    cycle = seen[seen.index(v):]
    return cycle[::-1]


def _cycle_text(cycle, names):
    return " -> ".join(names[v] for v in cycle + cycle[:1])


def _check_unique(labels, where, what):
    seen = set()
    for label in labels:
        if label in seen:
            raise BIFError(f"{where}: {what} {label!r} appears twice; give each {what} a distinct name")
        seen.add(label)


def _check_writable(label, what):
    if not label or _FORBIDDEN_IN_NAMES.search(label):
        raise BIFError(
            f"{what} cannot be written as BIF: it is empty or holds white space or one of {{}}()[];,|\"; "
            "rename it",
        )


def _probability_text(network, v):
    name = network.names[v]
    parents = network.parents[v]
    table = network.cpts[v].reshape(-1, len(network.states[v]))
    if not parents:
        return f"probability ( {name} ) {{\n  table {', '.join(map(repr, table[0].tolist()))};\n}}\n"
    header = f"probability ( {name} | {', '.join(network.names[p] for p in parents)} ) {{\n"
    configs = itertools.product(*(network.states[p] for p in parents))
    rows = [
        f"  ({', '.join(config)}) {', '.join(map(repr, row))};\n"
        for config, row in zip(configs, table.tolist())
    ]
    return header + "".join(rows) + "}\n"


def _read_source(source):
    """BIF text of ``source`` and the network name to use for ``unknown``."""
    if isinstance(source, str) and "{" in source:
        return source, None
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            data = path.read_bytes()
        except OSError as error:
            raise BIFError(f"cannot read BIF file {str(path)!r}: {error.strerror}; check the path") from None
        return _decode(data, str(path)), re.sub(r"(\.bif)?(\.gz)?$", "", path.name, flags=re.IGNORECASE)
    if hasattr(source, "read"):
        data = source.read()
        return (data if isinstance(data, str) else _decode(data, "the BIF stream")), None
    raise BIFError(
        f"cannot read a BIF network from a {type(source).__name__}; give a path, BIF text or an open file",
    )


def _decode(data, where):
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as error:
            raise BIFError(f"{where} is not a valid gzip file ({error}); check the file") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


class _Parser:
    """One pass over comment-free BIF text, block by block.

    Offsets are into the comment-free text, which keeps every newline of the
    original, so line numbers are those of the file.
    """

    def __init__(self, text, default_name):
        self.text = _COMMENT.sub(lambda comment: "\n" * comment.group().count("\n"), text)
        self.default_name = default_name
        self.name = None
        self.names = []
        self.states = []
        self.variable_line = []
        self.column = {}
        self.state_index = []
        self.parents = {}
        self.cpts = {}
        self.block_line = {}

    def fail(self, offset, message):
        raise BIFError(f"BIF line {self._line(offset)}: {message}")

    def _line(self, offset):
        return self.text.count("\n", 0, offset) + 1

    def network(self):
        unclosed = self.text.find("/*")
        if unclosed >= 0:
            self.fail(unclosed, "comment '/*' is never closed; add '*/'")
        for keyword, header, header_at, body, body_at in self._blocks():
            if keyword == "network":
                self._network_block(header, header_at)
            elif keyword == "variable":
                self._variable_block(header, header_at, body, body_at)
            else:
                self._probability_block(header, header_at, body, body_at)
        if self.name is None:
            self.fail(0, "no 'network' block; start the file with 'network name { }'")
        for v, name in enumerate(self.names):
            if v not in self.cpts:
                self.fail(self.variable_line[v], f"variable {name!r} has no 'probability' block; add one")
        parents = [self.parents[v] for v in range(len(self.names))]
        _, cycle = _topological_order(parents)
        if cycle:
            self.fail(
                self.block_line[cycle[0]],
                f"the parents form a cycle {_cycle_text(cycle, self.names)}; remove one arc",
            )
        cpts = [self.cpts[v] for v in range(len(self.names))]
        return Network(self.name, self.names, self.states, parents, cpts)

    def _blocks(self):
        """Yield ``(keyword, header, header offset, body, body offset)`` for
        every top-level block ``keyword header { body }``."""
        depth = 0
        end = 0
        for match in _BRACE.finditer(self.text):
            at = match.start()
            if match.group() == "{":
                if depth == 0:
                    opened = at
                depth += 1
                continue
            if depth == 0:
                self.fail(at, "'}' closes no block; remove it or add the missing '{'")
            depth -= 1
            if depth == 0:
                keyword, header, header_at = self._header(end, opened)
                yield keyword, header, header_at, self.text[opened + 1:at], opened + 1
                end = at + 1
        if depth:
            self.fail(opened, "this block's '{' is never closed; add '}'")
        rest = self.text[end:]
        if rest.strip():
            self.fail(
                end + len(rest) - len(rest.lstrip()),
                f"expected a block, found {rest.strip()[:30]!r} after the last '}}'",
            )

    def _header(self, start, end):
        """Keyword, rest and offset of the first character of a block header."""
        header = self.text[start:end]
        first = start + len(header) - len(header.lstrip())
        match = _HEADER.match(header)
        if not match:
            self.fail(
                first,
                f"expected 'network', 'variable' or 'probability' before '{{', found {header.strip()[:30]!r}",
            )
        return match.group(1), match.group(2), first

    def _network_block(self, header, at):
        if self.name is not None:
            self.fail(at, "a second 'network' block; a file holds one network")
        name = header.strip().strip('"')
        if name in ("", "unknown") and self.default_name:
            name = self.default_name
        self.name = name or "unknown"

    def _variable_block(self, header, at, body, body_at):
        name = header.strip()
        if len(_tokens(name)) != 1:
            self.fail(at, f"expected 'variable NAME {{', found {('variable ' + name).strip()!r}")
        if name in self.column:
            self.fail(
                at,
                f"variable {name!r} is declared twice (first on line "
                f"{self._line(self.variable_line[self.column[name]])}); remove one",
            )
        states = self._states(name, body, body_at)
        self.column[name] = len(self.names)
        self.names.append(name)
        self.states.append(states)
        self.state_index.append({s: k for k, s in enumerate(states)})
        self.variable_line.append(at)

    def _states(self, name, body, at):
        found = None
        for statement, offset in self._statements(body, at):
            if not statement:
                continue
            keyword = _KEYWORD.match(statement)
            if keyword and keyword.group(1) == "property":
                continue
            open_at = statement.find("{")
            close_at = statement.rfind("}")
            kind = _DISCRETE.match(statement[:open_at]) if 0 <= open_at < close_at else None
            if kind is None or statement[close_at + 1:].strip():
                self.fail(
                    offset,
                    f"variable {name!r}: expected 'type discrete [ k ] {{ s1, s2, ... }};', found "
                    f"{statement[:40]!r}",
                )
            if found is not None:
                self.fail(offset, f"variable {name!r} has two 'type' statements; keep one")
            found = _tokens(statement[open_at + 1:close_at])
            count = int(kind.group(1))
            if count != len(found) or count == 0:
                self.fail(
                    offset,
                    f"variable {name!r} declares [ {count} ] states but lists {len(found)}; make them agree",
                )
            try:
                _check_unique(found, f"variable {name!r}", "state")
            except BIFError as error:
                self.fail(offset, str(error))
        if found is None:
            self.fail(at, f"variable {name!r} has no 'type discrete [ k ] {{ ... }};' statement; add one")
        return found

    def _statements(self, body, at):
        """Yield ``(statement without ';' or surrounding space, offset of its
        first character)``; text after the last ';' must be blank."""
        pieces = body.split(";")
        rest = pieces.pop()
        for piece in pieces:
            stripped = piece.lstrip()
            yield stripped.rstrip(), at + len(piece) - len(stripped)
            at += len(piece) + 1
        if rest.strip():
            self.fail(at + len(rest) - len(rest.lstrip()), f"expected ';' after {rest.strip()[:30]!r}")

    def _probability_block(self, header, at, body, body_at):
        child, parents = self._probability_header(header, at)
        if child in self.cpts:
            self.fail(
                at,
                f"a second 'probability' block for {self.names[child]!r} (first on line "
                f"{self._line(self.block_line[child])}); remove one",
            )
        r = len(self.states[child])
        arities = [len(self.states[p]) for p in parents]
        q = int(np.prod(arities, dtype=np.float64))
        if q * r > _MAX_CPT_CELLS:
            self.fail(
                at,
                f"the CPT of {self.names[child]!r} would have {q * r} cells (more than {_MAX_CPT_CELLS}); "
                "give it fewer parents",
            )
        rows, whole, default = self._probability_statements(body, body_at, child, parents, r * q)
        table = np.full((q, r), np.nan)
        row_at = np.full(q, body_at, dtype=np.int64)
        if whole:
            (offset, tokens), = whole
            if rows[0]:
                self.fail(
                    rows[1][0],
                    f"{self.names[child]!r} has both a 'table' and rows; give one or the other",
                )
            table[:] = self._numbers(tokens, [offset], r * q, child).reshape(r, q).T
            row_at[:] = offset
        if rows[0]:
            self._fill_rows(table, row_at, rows, child, parents)
        unset = np.isnan(table[:, 0])
        if default and unset.any():
            (offset, tokens), = default
            table[unset] = self._numbers(tokens, [offset], r, child)
            row_at[unset] = offset
        elif unset.any():
            config = int(np.flatnonzero(unset)[0])
            states = ", ".join(self.states[p][k] for p, k in zip(parents, np.unravel_index(config, arities)))
            self.fail(
                body_at,
                f"{self.names[child]!r} has no probabilities for parent states ({states}); add the row or a "
                "'default' row",
            )
        self.cpts[child] = self._normalised(table, row_at, child).reshape(tuple(arities) + (r,))
        self.parents[child] = parents
        self.block_line[child] = at

    def _probability_statements(self, body, at, child, parents, cells):
        """Split a probability block into its rows ``(parent state texts,
        offsets, value tokens)``, its ``table`` and its ``default`` statements (lists
        of ``(offset, tokens)``, at most one each), checking value counts."""
        r = len(self.states[child])
        labels, offsets, tokens = [], [], []
        keyword_statements = {"table": [], "default": [], "property": []}
        for statement, offset in self._statements(body, at):
            if statement[:1] == "(":
                close = statement.find(")")
                if close < 0:
                    self.fail(offset, f"expected ')' after the parent states in {statement[:30]!r}")
                values = statement[close + 1:].replace(",", " ").split()
                if len(values) != r:
                    self._check_count(values, r, child, offset)
                labels.append(statement[1:close])
                offsets.append(offset)
                tokens.extend(values)
                continue
            keyword = _KEYWORD.match(statement)
            if keyword is None:
                if statement:
                    self.fail(
                        offset,
                        "expected '(states) p1, p2, ...;', 'table ...;' or 'default ...;', found "
                        f"{statement[:30]!r}",
                    )
                continue
            kind, values = keyword.group(1), _tokens(keyword.group(2))
            if kind != "property":
                if keyword_statements[kind]:
                    self.fail(offset, f"{self.names[child]!r} has a second '{kind}' statement; keep one")
                self._check_count(values, cells if kind == "table" else r, child, offset)
            keyword_statements[kind].append((offset, values))
        return (labels, offsets, tokens), keyword_statements["table"], keyword_statements["default"]

    def _check_count(self, values, count, child, offset):
        if len(values) != count:
            self.fail(
                offset,
                f"expected {count} probabilities for {self.names[child]!r}, found {len(values)}; fix the "
                "count",
            )

    def _fill_rows(self, table, row_at, rows, child, parents):
        labels, offsets, tokens = rows
        configs = self._configs(labels, offsets, child, parents)
        repeated = np.flatnonzero(np.bincount(configs, minlength=len(table)) > 1)
        if repeated.size:
            second = np.flatnonzero(configs == repeated[0])[1]
            self.fail(
                offsets[second],
                f"this row of {self.names[child]!r} repeats the parent states of an earlier row; keep one",
            )
        r = table.shape[1]
        table[configs] = self._numbers(tokens, offsets, r, child).reshape(-1, r)
        row_at[configs] = offsets

    def _probability_header(self, header, at):
        inside = header.strip()
        if not (inside.startswith("(") and inside.endswith(")")):
            self.fail(
                at,
                f"expected 'probability ( X | parents ) {{', found {('probability ' + inside)[:40]!r}",
            )
        names = [s for s in re.split(r"[\s,|]+", inside[1:-1]) if s]
        if not names:
            self.fail(at, "'probability ( )' names no variable; write 'probability ( X | parents )'")
        indices = []
        for name in names:
            if name not in self.column:
                self.fail(
                    at,
                    f"'probability' block names {name!r}, which no 'variable' block declares before it; "
                    "declare it first",
                )
            indices.append(self.column[name])
        child, parents = indices[0], indices[1:]
        if len(set(indices)) < len(indices):
            self.fail(at, f"'probability' block for {names[0]!r} names a variable twice; list each once")
        return child, parents

    def _configs(self, labels, offsets, child, parents):
        """Mixed-radix parent configuration (last parent fastest) of every
        row, from the texts of the rows' parent states."""
        split = [text.replace(",", " ").split() for text in labels]
        configs = np.zeros(len(split), dtype=np.intp)
        for j, p in enumerate(parents):
            index = self.state_index[p]
            try:
                codes = [index[states[j]] for states in split]
            except (KeyError, IndexError):
                self._fail_on_row(split, offsets, child, parents)
            configs *= len(index)
            configs += codes
        if any(len(states) != len(parents) for states in split):
            self._fail_on_row(split, offsets, child, parents)
        return configs

    def _fail_on_row(self, split, offsets, child, parents):
        """Raise the error of the first row whose parent states are wrong."""
        for states, offset in zip(split, offsets):
            if len(states) != len(parents):
                self.fail(
                    offset,
                    f"row ({', '.join(states)}) of {self.names[child]!r} gives {len(states)} states for "
                    f"{len(parents)} parents; give one per parent",
                )
            for p, label in zip(parents, states):
                if label not in self.state_index[p]:
                    self.fail(
                        offset,
                        f"{label!r} is not a state of {self.names[p]!r} (states: "
                        f"{', '.join(self.states[p])}); fix the row",
                    )

    def _numbers(self, tokens, offsets, per_offset, child):
        """Probabilities from text tokens; token ``i`` came from the statement
        at ``offsets[i // per_offset]``."""
        try:
            values = np.array(tokens, dtype=np.float64)
        except ValueError:
            i = next(i for i, t in enumerate(tokens) if not _is_float(t))
            self.fail(
                offsets[i // per_offset],
                f"{tokens[i]!r} is not a number; probabilities of {self.names[child]!r} must be numbers",
            )
        wrong = np.flatnonzero(~(np.isfinite(values) & (values >= 0)))
        if wrong.size:
            i = int(wrong[0])
            self.fail(
                offsets[i // per_offset],
                f"probability {tokens[i]!r} of {self.names[child]!r} is not a number >= 0; fix it",
            )
        return values

    def _normalised(self, table, row_at, child):
        sums = table.sum(axis=1)
        off = np.abs(sums - 1)
        bad = np.flatnonzero(off > SUM_TOLERANCE)
        if bad.size:
            self.fail(
                int(row_at[bad[0]]),
                f"probabilities of {self.names[child]!r} sum to {sums[bad[0]]:.6g}, not 1; "
                f"fix them (up to {SUM_TOLERANCE} off is renormalised)",
            )
        rescale = off > _RENORMALISE_ABOVE
        table[rescale] /= sums[rescale, None]
        return table


def _tokens(text):
    """Tokens of a list separated by commas and/or white space."""
    return text.replace(",", " ").split()


def _is_float(token):
    try:
        float(token)
    except ValueError:
        return False
    return True
