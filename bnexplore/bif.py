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

- ``//`` and ``/* */`` comments and ``property`` statements are ignored, but
  for ``property bnexplore_name`` / ``bnexplore_states``, where
  :func:`write_bif` keeps names other BIF readers cannot take (see
  :func:`bif_name`); anything else outside the three kinds of block, and any
  brace but those of a variable's list of states, is an error.
- A file is refused before it is expanded: more than :func:`max_text_bytes` of
  text, or tables holding more cells together than the expansion bound of
  :mod:`bnexplore.limits` has for float64 numbers, or no variable at all.
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
import math
import re
import unicodedata
import zlib
from pathlib import Path
from urllib.parse import quote, unquote

import numpy as np
import pandas as pd

from bnexplore.data import code_dtype
from bnexplore.errors import BIFError, DataError, ResourceError, ScoreError
from bnexplore.limits import advice, gunzip, max_expanded_bytes
from bnexplore.options import seed_number

SUM_TOLERANCE = 1e-3
"""Largest accepted distance from one of the sum of a distribution in a file."""

_RENORMALISE_ABOVE = 1e-9
_CHECK_TOLERANCE = 1e-6
_MAX_CPT_CELLS = 2**26
_WRITABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")
_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
_NOT_IN_NAMES = re.compile(r"[^A-Za-z0-9_.\-]+")
_FORMAT_WORDS = {"network", "variable", "probability", "property", "type", "discrete", "default", "table"}
_BLOCK_WORDS = re.compile("variable|probability", re.IGNORECASE)
_BLOCK_WORDS_INSIDE = re.compile("(?<=vari)(?=able)|(?<=probabil)(?=ity)", re.IGNORECASE)
_ORIGINAL = re.compile(r'\s*property\s+bnexplore_(name|states)\s*=\s*"([^"]*)"\s*\Z')
_COMMENT_START = re.compile(r"//|/\*")
_BRACE = re.compile(r"[{}]")
_HEADER = re.compile(r"\s*(network|variable|probability)(?![^\s(])(.*)\Z", re.DOTALL)
_DISCRETE = re.compile(r"\s*type\s+discrete\s*\[\s*([0-9]+)\s*\]\s*\Z", re.DOTALL)
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


def bif_name(label, state=False):
    """The name ``label`` is written under in BIF: itself when every BIF reader takes it, else an identifier.

    pyAgrum (3.3) and pgmpy (1.1) both read ``[A-Za-z_][A-Za-z0-9_.-]*`` as a
    name, and a state may also be a whole number (``0``, ``-1``); the words of
    the format (``network``, ``variable``, ``table`` ...) are not names. Any
    other label has its accents dropped, every run of other characters
    replaced by ``_`` (``_`` at the ends dropped), ``_`` put in front of a
    first character that cannot start a name and ``_`` after a word of the
    format: ``(-inf, 5.667]`` becomes ``_-inf_5.667``, ``<missing>``
    ``missing``, ``master's degree`` ``master_s_degree``. :func:`write_bif`
    keeps the original beside it, so :func:`read_bif` gives it back.

    Parameters
    ----------
    label : str
    state : bool
        ``label`` is a state (whole numbers are kept).

    Returns
    -------
    str

    Examples
    --------
    >>> bif_name("(-inf, 5.667]", state=True), bif_name("2nd visit"), bif_name("table")
    ('_-inf_5.667', '_2nd_visit', 'table_')
    """
    if _WRITABLE.match(label) or (state and _INTEGER.match(label)):
        if label.lower() not in _FORMAT_WORDS:
            return label
    text = "".join(c for c in unicodedata.normalize("NFKD", label) if not unicodedata.combining(c))
    text = _NOT_IN_NAMES.sub("_", text).strip("_")
    if not _WRITABLE.match(text):
        text = "_" + text
    return text + "_" if text.lower() in _FORMAT_WORDS else text


def _unique(labels, state=False):
    """The :func:`bif_name` of every label, made unique ignoring case (pgmpy
    matches variable names without it) by suffixes ``_2``, ``_3``, ...; labels
    written as they are get their names first, so they never change."""
    written = [bif_name(label, state) for label in labels]
    seen = set()
    for i in sorted(range(len(labels)), key=lambda i: written[i] != labels[i]):
        candidate, k = written[i], 1
        while candidate.lower() in seen:
            k += 1
            candidate = f"{written[i]}_{k}"
        seen.add(candidate.lower())
        written[i] = candidate
    return written


def _encoded(text):
    """``text`` as a property value every reader keeps whole: percent-encoded
    UTF-8 (no quote, comma, brace, semicolon, space or slash), the words
    ``variable`` and ``probability`` with their first letter encoded too
    (pgmpy looks for its blocks by these words anywhere in a file)."""
    return _BLOCK_WORDS.sub(lambda m: f"%{ord(m.group()[0]):02X}{m.group()[1:]}", quote(text, safe=""))


def write_bif(network, path=None):
    """Write a network as BIF text that pyAgrum, pgmpy and :func:`read_bif` read.

    Every name is written as :func:`bif_name` makes it (unique within its
    kind, ignoring case); where that differs from the original, the block
    keeps the original in a property that :func:`read_bif` reads and other
    readers skip: ``property bnexplore_name = "...";`` (network and variable
    blocks) and ``property bnexplore_states = "s1,s2,...";`` (every state of
    the variable), each percent-encoded (see ``_encoded``). So bnexplore
    reads back the very network written, names included, and other tools
    read the same tables under names they accept.

    Probabilities are written with ``repr`` (the shortest text that parses to
    the same float), rows in the order of the CPT (last parent fastest).

    Parameters
    ----------
    network : Network
    path : str or pathlib.Path, optional
        File to write; gzipped when the name ends with ``.gz``.

    Returns
    -------
    str
        The BIF text.

    Examples
    --------
    >>> net = Network("n", ["x y"], [["<missing>", "a"]], [[]], [[0.5, 0.5]])
    >>> print(write_bif(net))  # doctest: +NORMALIZE_WHITESPACE
    network n {
    }
    variable x_y {
      type discrete [ 2 ] { missing, a };
      property bnexplore_name = "x%20y";
      property bnexplore_states = "%3Cmissing%3E,a";
    }
    probability ( x_y ) {
      table 0.5, 0.5;
    }
    >>> read_bif(write_bif(net)).states
    [['<missing>', 'a']]
    """
    names = _unique(network.names)
    states = [_unique(labels, state=True) for labels in network.states]
    title = _BLOCK_WORDS_INSIDE.sub("_", bif_name(network.name))
    parts = [f"network {title} {{\n{_original(network.name, [title])}}}\n"]
    for v, name in enumerate(names):
        original = _original(network.names[v], [name]) + _original(network.states[v], states[v], "states")
        parts.append(f"variable {name} {{\n  type discrete [ {len(states[v])} ] {{ {', '.join(states[v])} }};\n"
                     f"{original}}}\n")
    for v in range(network.n_vars):
        parts.append(_probability_text(network, v, names, states))
    text = "".join(parts)
    if path is not None:
        path = Path(path)
        data = text.encode("utf-8")
        path.write_bytes(gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)
    return text


def _original(original, written, what="name"):
    """The property line keeping ``original`` (a name, or a list of states)
    when the ``written`` names differ from it, else ``""``."""
    original = [original] if isinstance(original, str) else original
    if original == written:
        return ""
    return f'  property bnexplore_{what} = "{",".join(map(_encoded, original))}";\n'


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
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed_number(seed))
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
    if isinstance(ess, bool) or not isinstance(ess, (int, float, np.integer, np.floating)) or not 0 <= ess < math.inf:
        raise ScoreError(f"ess must be a finite number >= 0, got {ess!r}; use 1.0 for BDeu, 0 for maximum likelihood")
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


def _probability_text(network, v, names, states):
    """The probability block of ``v``, naming variables and states as written (``names``, ``states``)."""
    parents = network.parents[v]
    table = network.cpts[v].reshape(-1, len(network.states[v]))
    if not parents:
        return f"probability ( {names[v]} ) {{\n  table {', '.join(map(repr, table[0].tolist()))};\n}}\n"
    header = f"probability ( {names[v]} | {', '.join(names[p] for p in parents)} ) {{\n"
    configs = itertools.product(*(states[p] for p in parents))
    rows = [
        f"  ({', '.join(config)}) {', '.join(map(repr, row))};\n"
        for config, row in zip(configs, table.tolist())
    ]
    return header + "".join(rows) + "}\n"


def max_text_bytes():
    """The most BIF text :func:`read_bif` reads, in bytes: an eighth of
    :func:`bnexplore.limits.max_expanded_bytes` (64 MB by default), as parsing
    holds several times the text in tokens. The largest bundled network
    (diabetes) is 5.5 MB of text."""
    return max_expanded_bytes() // 8


def _read_source(source):
    """BIF text of ``source`` and the network name to use for ``unknown``;
    gzip is read through :mod:`bnexplore.limits`, and no more than
    :func:`max_text_bytes` of text is taken."""
    limit = max_text_bytes()
    if isinstance(source, str) and "{" in source:
        return _bounded(source, "the BIF text", limit), None
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            with path.open("rb") as file:
                text = _text_of(file, f"BIF file {path.name!r}", limit)
        except OSError as error:
            raise BIFError(f"cannot read BIF file {_clip(str(path))!r}: {error.strerror}; check the path") from None
        return text, re.sub(r"(\.bif)?(\.gz)?$", "", path.name, flags=re.IGNORECASE)
    if hasattr(source, "read"):
        return _text_of(source, "the BIF stream", limit), None
    raise BIFError(
        f"cannot read a BIF network from a {type(source).__name__}; give a path, BIF text or an open file",
    )


def _text_of(file, what, limit):
    """The text of an open file (text or bytes, plain or gzipped), read up to ``limit``."""
    data = _bounded(file.read(limit + 1), what, limit)
    if isinstance(data, str):
        return data
    if data[:2] == b"\x1f\x8b":
        try:
            data = gunzip(data, what, limit)
        except (EOFError, zlib.error) as error:
            raise BIFError(f"{what} is not a valid gzip file ({error}); check the file") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _clip(text, length=80):
    return text if len(text) <= length else text[: length - 1] + "…"


def _bounded(text, what, limit):
    if len(text) > limit:
        raise ResourceError(f"{what} holds more than {limit / (1 << 20):,.1f} MB of BIF text, the limit of this "
                            f"server ({advice()}); nothing was loaded")
    return text


class _Parser:
    """One pass over comment-free BIF text, block by block.

    Offsets are into the comment-free text, which keeps every newline of the
    original, so line numbers are those of the file. Everything is bounded
    before it is allocated: the text by :func:`max_text_bytes`, the tables
    together by ``max_cells`` (the expansion bound of :mod:`bnexplore.limits`
    in float64 cells), as a ``default`` row expands a line into a table.
    """

    def __init__(self, text, default_name):
        self.text = text  # the line numbers of a comment never closed
        self.text = self._without_comments(text)
        self.default_name = default_name
        self.max_cells = max_expanded_bytes() // 8
        self.cells = 0
        self.name = None
        self.network_line = 0
        self.original_name = None
        self.originals = {}
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

    def _without_comments(self, text):
        """``text`` with every ``//`` and ``/* */`` comment replaced by its
        newlines, in one pass (each character is looked at a bounded number of times)."""
        parts = []
        at = 0
        while (start := _COMMENT_START.search(text, at)) is not None:
            parts.append(text[at:start.start()])
            if start.group() == "//":
                end = text.find("\n", start.end())
                end = len(text) if end < 0 else end
            else:
                end = text.find("*/", start.end())
                if end < 0:
                    self.fail(start.start(), "comment '/*' is never closed; add '*/'")
                end += 2
            parts.append("\n" * text.count("\n", start.start(), end))
            at = end
        parts.append(text[at:])
        return "".join(parts)

    def network(self):
        for keyword, header, header_at, body, body_at in self._blocks():
            if keyword == "network":
                self._network_block(header, header_at, body, body_at)
            elif keyword == "variable":
                self._variable_block(header, header_at, body, body_at)
            else:
                self._probability_block(header, header_at, body, body_at)
        if self.name is None:
            self.fail(0, "no 'network' block; start the file with 'network name { }'")
        if not self.names:
            self.fail(self.network_line, "the file declares no variables; a network needs at least one 'variable' "
                                         "block")
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
        names, states = self._original_names()
        return Network(self.original_name or self.name, names, states, parents, cpts)

    def _original_names(self):
        """Variable and state names with the originals that :func:`write_bif` kept in properties put back."""
        names, states = list(self.names), list(self.states)
        for (v, what), (offset, value) in self.originals.items():
            if what == "name":
                names[v] = value[0]
            elif len(value) != len(states[v]):
                self.fail(offset, f"'bnexplore_states' of variable {self.names[v]!r} lists {len(value)} names for "
                                  f"its {len(states[v])} states; give one per state")
            else:
                try:
                    _check_unique(value, f"variable {self.names[v]!r}", "state")
                except BIFError as error:
                    self.fail(offset, f"'bnexplore_states': {error}")
                states[v] = value
        first = {}
        for v, name in enumerate(names):
            if name in first:
                self.fail(self.variable_line[v], f"variable {self.names[v]!r} is named {name!r} by its "
                                                 f"'bnexplore_name', as is {self.names[first[name]]!r}; give "
                                                 "each variable a distinct name")
            first[name] = v
        return names, states

    def _property(self, statement, offset, v=None):
        """Keep the original name(s) of a ``property bnexplore_name / bnexplore_states = "...";``
        statement (of variable ``v``, or of the network); other properties are skipped."""
        match = _ORIGINAL.match(statement)
        if match is None:
            return
        what, value = match.groups()
        if v is None and what == "states":
            self.fail(offset, "'bnexplore_states' belongs in a variable block, not the network block; remove it")
        if (v, what) in self.originals or (v is None and self.original_name is not None):
            self.fail(offset, f"a second 'bnexplore_{what}' property in this block; keep one")
        try:
            decoded = [unquote(piece, errors="strict") for piece in value.split(",")]
        except UnicodeDecodeError:
            self.fail(offset, f"'bnexplore_{what}' is not percent-encoded UTF-8; fix or remove it")
        if what == "name" and len(decoded) != 1:
            self.fail(offset, "'bnexplore_name' holds one name, percent-encoded; fix or remove it")
        if v is None:
            self.original_name = decoded[0]
        else:
            self.originals[v, what] = (offset, decoded)

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
                    keyword, header, header_at = self._header(end, opened)
                elif depth > 1 or keyword != "variable":
                    self.fail(at, f"'{{' inside {'braces in ' if depth > 1 else ''}a '{keyword}' block; only a "
                                  "variable's list of states is in braces: remove it")
                depth += 1
                continue
            if depth == 0:
                self.fail(at, "'}' closes no block; remove it or add the missing '{'")
            depth -= 1
            if depth == 0:
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

    def _network_block(self, header, at, body, body_at):
        if self.name is not None:
            self.fail(at, "a second 'network' block; a file holds one network")
        name = header.strip().strip('"')
        if name in ("", "unknown") and self.default_name:
            name = self.default_name
        self.name = name or "unknown"
        self.network_line = at
        for statement, offset in self._statements(body, body_at):
            keyword = _KEYWORD.match(statement)
            if keyword and keyword.group(1) == "property":
                self._property(statement, offset)
            elif statement:
                self.fail(offset, f"expected 'property ...;' in the network block, found {statement[:30]!r}")

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
                self._property(statement, offset, len(self.names))
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
            count = kind.group(1).lstrip("0")
            if count != str(len(found)) or not found:
                self.fail(
                    offset,
                    f"variable {name!r} declares [ {count[:12] or 0} ] states but lists {len(found)}; make them "
                    "agree",
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
        q = math.prod(arities)
        if q * r > _MAX_CPT_CELLS:
            self.fail(
                at,
                f"the CPT of {self.names[child]!r} would have {q * r} cells (more than {_MAX_CPT_CELLS}); "
                "give it fewer parents",
            )
        self.cells += q * r
        if self.cells > self.max_cells:
            self.fail(at, f"with the CPT of {self.names[child]!r} ({q * r:,} cells) the network's tables would hold "
                          f"{self.cells:,} cells, more than the {self.max_cells:,} this server allows "
                          f"({advice()}); nothing was allocated")
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
