"""Forward sampling of a :class:`~bnexplore.bif.Network` and the likelihood of rows under it."""

import numpy as np

from bnexplore.data import code_dtype
from bnexplore.errors import DataError
from bnexplore.options import seed_number
from bnexplore.resources import check_memory

from bnexplore.bif.network import check_network, parent_configurations


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
    check_network(network, "sample")
    n = _row_count(n)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed_number(seed))
    arities = network.arities
    dtype = code_dtype(int(arities.max(initial=1)))
    # the codes, a table of them (sample), and one column's uniforms, configurations and states at a time
    check_memory(n * (2 * network.n_vars * dtype.itemsize + 32), f"sampling {n:,} rows of {network.n_vars} "
                 "variables", hint="sample fewer rows")
    codes = np.empty((n, network.n_vars), dtype=dtype, order="F")
    for v in network.topological_order():
        thresholds = _thresholds(network.cpts[v])
        config = parent_configurations(codes, network.parents[v], arities)
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

    Examples
    --------
    >>> from bnexplore import bundled
    >>> from bnexplore.bif import read_bif
    >>> sample(read_bif(bundled.network_path("asia")), 4, seed=0)
      asia  tub smoke lung bronc either xray dysp
    0   no   no    no   no    no     no   no   no
    1   no   no    no   no    no     no   no   no
    2   no   no    no   no   yes     no   no  yes
    3   no  yes    no   no    no    yes   no  yes
    """
    import pandas as pd  # heavy: loaded where a table is built, not for codes

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
            config = parent_configurations(codes, network.parents[v], arities)
            flat = np.log(network.cpts[v].reshape(-1))
            index = codes[:, v].astype(np.intp)
            if config is not None:
                index += config * arities[v]
            total += float(flat[index].sum())
    return total


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

