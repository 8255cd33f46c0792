"""The completed data set of structural EM: every incomplete row replaced by its weighted completions.

Friedman's structural EM (1997, "Learning belief networks in the presence of
missing values and hidden variables", Section 3; 1998, "The Bayesian
structural EM algorithm", Section 3) scores candidate structures on the
*expected* sufficient statistics ``E[N(x_F) | observed cells]`` under the
current network. :func:`completed_data` turns them into a weighted data set:
each row with blank cells becomes the completions of its blank cells, weighted
by their posterior probability given the row's observed cells. The weighted
count of any family on that data set is then the expected count of the family,
so every scorer and search that honours ``Dataset.weights`` computes expected
scores without knowing about EM.

A row whose blank cells have at most ``completions`` joint completions is
enumerated exactly. A row with more gets ``completions`` equally weighted
samples from its exact posterior, drawn one independent group of blank cells at
a time (:func:`bnexplore.em.groups.group_sample_patterns`: each group's states
in their posterior shares of the rows, to within one); a row with a group too
large to enumerate (:data:`bnexplore.em.groups.MAX_GROUP_STATES`) gets
``completions`` likelihood-weighted samples (Fung & Chang 1990; Shachter & Peot
1990): its blank cells are drawn in topological order from their CPTs, the
observed cells clamped, and each sample is weighted by the probability of the
observed cells given their parents. Either way the weights of one row are
normalised to sum to one (times the number of identical rows).

The work is two numba kernels over the distinct incomplete rows (patterns):
:func:`complete_patterns` for the enumerated and the likelihood-weighted rows,
:func:`bnexplore.em.groups.group_sample_patterns` for the others; the
functions the first builds on (:func:`family_probability`,
:func:`draw_state`, :func:`touched_families`, :func:`product_of_families`,
:func:`likelihood_sample`, :func:`fill_completion`), :func:`row_patterns` and
:func:`network_arrays` (the network as flat arrays over the data's columns)
serve :mod:`bnexplore.em.imputation` too.
"""

import numba
import numpy as np
from numba import prange

from ..compiling import njit
from ..data import Dataset, check_dataset, code_dtype
from ..errors import DataError, OptionError, option
from ..options import seed_number, whole_number
from ..resources import check_memory
from .groups import MAX_GROUP_STATES, enumerable_patterns, group_layout, group_sample_patterns

COMPLETIONS = 1
"""Default completions per incomplete row. Each is a row of the completed data, which every search step
counts. Drawn from each row's exact posterior (group by group), one per row completes the table like a
sample of the network with as many rows as the data, which climbs about as fast as the data would whole: on
alarm with a tenth of the cells blank, completed under the true network, the climb lands as close to the
truth with one completion per row as with 32 (and 32 make the table about ten times as long), and structural
EM on alarm and insurance lands closer with one than with 4, 8 or 32 (more rows enumerated, as fractions,
drew fewer true arcs on insurance)."""

SAMPLE_BLOCK_PATTERNS = 2000
"""Patterns per thread when completions are drawn group by group: below that, starting a thread costs about
what drawing them does (as :data:`bnexplore.em.expected.GROUP_BLOCK_PATTERNS` for the E-step)."""

MERGE_COPIES = 4
"""Copies of the completed codes alive at once while identical rows are merged (the codes, their padded
words, the sorted words, the merged result), counted by the memory bound."""


class NetworkArrays:
    """A network laid out over the columns of a data set, as the kernels read it.

    Variable ``i`` of every array is column ``i`` of the data; the network's
    variables are matched to the columns by name, and their states must be
    the columns' states in the same order.

    Attributes
    ----------
    arities : ndarray of int64, shape (n,)
    parent_start, parents : ndarray of int64
        The parents of column ``v`` are ``parents[parent_start[v]:parent_start[v + 1]]``, in the order of
        its CPT's axes.
    child_start, children : ndarray of int64
        The children of column ``v``, likewise.
    cpt_start, cpt : ndarray
        ``cpt[cpt_start[v] + config * arities[v] + state]`` is ``P(v = state | parents in config)``
        (``config`` in mixed radix, last parent fastest, as :class:`bnexplore.bif.Network` numbers it).
    order : ndarray of int64
        The columns in a topological order of the network.
    """

    def __init__(self, network, data):
        column_of = {name: i for i, name in enumerate(data.names)}
        absent = [name for name in network.names if name not in column_of]
        extra = [name for name in data.names if name not in set(network.names)]
        if absent or extra:
            which = (f"the network's variable {absent[0]!r} is not a column of the data" if absent else
                     f"the data's column {extra[0]!r} is not a variable of the network")
            raise DataError(f"{which}; use a network learnt or fitted on this data's columns")
        n = data.n_vars
        at = [column_of[name] for name in network.names]
        for v, c in enumerate(at):
            if list(network.states[v]) != list(data.states[c]):
                raise DataError(f"column {data.names[c]!r} has the states {data.states[c][:5]} but the network's "
                                f"variable has {network.states[v][:5]}; use a network fitted on this data")
        parents = [[] for _ in range(n)]
        tables = [None] * n
        for v, c in enumerate(at):
            parents[c] = [at[p] for p in network.parents[v]]
            tables[c] = network.cpts[v].reshape(-1)
        children = [[] for _ in range(n)]
        for c in range(n):
            for p in parents[c]:
                children[p].append(c)
        self.arities = np.asarray(data.arities, dtype=np.int64)
        self.parent_start, self.parents = _flat(parents)
        self.child_start, self.children = _flat(children)
        sizes = np.array([t.size for t in tables], dtype=np.int64)
        self.cpt_start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.cpt = np.concatenate(tables).astype(np.float64) if n else np.zeros(0)
        self.order = np.array([at[v] for v in network.topological_order()], dtype=np.int64)

    def kernel_arguments(self):
        """The arrays in the order the kernels take them (after their own arguments)."""
        return (self.order, self.arities, self.parent_start, self.parents, self.child_start, self.children,
                self.cpt_start, self.cpt)

    def completions_of(self, patterns, cap):
        """Joint completions of the blank cells (-1) of every pattern, capped at ``cap + 1`` (int64)."""
        out = np.ones(len(patterns), dtype=np.int64)
        for v in range(patterns.shape[1]):
            blank = patterns[:, v] < 0
            out[blank] = np.minimum(out[blank] * self.arities[v], cap + 1)
        return out


def network_arrays(network, data):
    """The network over the data's columns (:class:`NetworkArrays`).

    Raises
    ------
    DataError
        When the network's variables are not the data's columns, or a
        variable's states differ from its column's.

    Examples
    --------
    >>> from bnexplore.bif import Network
    >>> from bnexplore.data import Dataset
    >>> net = Network("n", ["a", "b"], [["0", "1"], ["0", "1"]], [[], [0]], [[0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]]])
    >>> data = Dataset.from_codes([[0, 1], [1, 1]], names=["b", "a"])
    >>> arrays = network_arrays(net, data)
    >>> arrays.parents.tolist(), arrays.order.tolist()   # b (column 0) has parent a (column 1)
    ([1], [1, 0])
    """
    return NetworkArrays(network, data)


def _flat(lists):
    """``(start, values)``: int64 offsets (length ``len(lists) + 1``) and the concatenated lists."""
    start = np.zeros(len(lists) + 1, dtype=np.int64)
    start[1:] = np.cumsum([len(x) for x in lists])
    values = np.array([x for xs in lists for x in xs], dtype=np.int64)
    return start, values


def row_patterns(data):
    """The distinct incomplete rows of a data set with blank cells.

    Parameters
    ----------
    data : Dataset
        With ``data.blank`` not None.

    Returns
    -------
    rows : ndarray of intp
        The incomplete rows' indices.
    patterns : ndarray of int64, shape (n_patterns, n_vars)
        The distinct incomplete rows, a blank cell as -1.
    inverse : ndarray of intp
        ``patterns[inverse[t]]`` is row ``rows[t]``.
    counts : ndarray of float64
        How many rows each pattern stands for.
    """
    return blank_patterns(data.codes, data.blank, data.arities)


def blank_patterns(codes, blank, arities):
    """:func:`row_patterns` of codes, their blank mask and their columns' arities.

    The patterns come in the order of :func:`distinct_rows` with a blank cell
    coded as its column's arity, whatever the codes' type: the E-step
    (:class:`bnexplore.em.expected.EStep`) and :func:`completed_data` number
    the patterns alike and so can share the E-step's layout of them.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 1], [0, 0], [1, 1], [0, 0]], np.uint8)
    >>> blank = np.array([[False, True], [False, False], [True, False], [False, True]])
    >>> rows, patterns, inverse, counts = blank_patterns(codes, blank, [2, 2])
    >>> rows.tolist(), patterns.tolist(), inverse.tolist(), counts.tolist()
    ([0, 2, 3], [[0, -1], [-1, 1]], [0, 1, 0], [2.0, 1.0])
    """
    rows = np.flatnonzero(blank.any(axis=1))
    marker = np.asarray(arities, dtype=np.int64)
    wide = code_dtype(int(marker.max(initial=1)) + 1)
    marked = np.where(blank[rows], marker.astype(wide), np.asarray(codes)[rows].astype(wide))
    unique, inverse = distinct_rows(marked)
    del marked
    patterns = unique.astype(np.int64)
    patterns[patterns == marker] = -1
    return rows, patterns, inverse, np.bincount(inverse, minlength=len(unique)).astype(np.float64)


def distinct_rows(codes):
    """The distinct rows of an integer matrix, and which of them each row is.

    The rows' bytes are read as big-endian 64-bit words and sorted by
    :func:`numpy.lexsort` on the words: many times faster than
    ``numpy.unique(axis=0)``, which sorts the rows as opaque records.

    Parameters
    ----------
    codes : ndarray of unsigned int, shape (n_rows, n_vars)

    Returns
    -------
    unique : ndarray, shape (n_distinct, n_vars)
        In lexicographic order for one-byte codes (a fixed order for wider ones).
    inverse : ndarray of intp
        ``unique[inverse[s]]`` is row ``s``.

    Examples
    --------
    >>> import numpy as np
    >>> unique, inverse = distinct_rows(np.array([[1, 0], [0, 2], [1, 0]], np.uint8))
    >>> unique.tolist(), inverse.tolist()
    ([[0, 2], [1, 0]], [1, 0, 1])
    """
    n = codes.shape[0]
    raw = np.ascontiguousarray(codes).view(np.uint8).reshape(n, -1)
    padded = np.zeros((n, -(-raw.shape[1] // 8) * 8), np.uint8)
    padded[:, :raw.shape[1]] = raw
    words = padded.view(">u8")
    order = np.lexsort(words.T[::-1])
    ranked = words[order]
    new = np.ones(n, dtype=bool)
    new[1:] = (ranked[1:] != ranked[:-1]).any(axis=1)
    inverse = np.empty(n, dtype=np.intp)
    inverse[order] = np.cumsum(new) - 1
    return codes[order[new]], inverse


@njit(cache=True)
def family_probability(row, v, arities, parent_start, parents, cpt_start, cpt):
    """``P(row[v] | row's parents of v)`` from the flat CPT (every cell of the family filled)."""
    config = 0
    for t in range(parent_start[v], parent_start[v + 1]):
        p = parents[t]
        config = config * arities[p] + row[p]
    return cpt[cpt_start[v] + config * arities[v] + row[v]]


@njit(cache=True)
def draw_state(row, v, u, arities, parent_start, parents, cpt_start, cpt):
    """The state of ``v`` a uniform ``u`` in [0, 1) picks from its CPT row given ``row``'s parents.

    The state whose cumulative probability first exceeds ``u``; a state of
    probability 0 is never picked (rounding that leaves ``u`` above the last
    cumulative sum picks the last state of positive probability).
    """
    config = 0
    for t in range(parent_start[v], parent_start[v + 1]):
        p = parents[t]
        config = config * arities[p] + row[p]
    base = cpt_start[v] + config * arities[v]
    cumulative = 0.0
    last = 0
    for k in range(arities[v]):
        pk = cpt[base + k]
        if pk > 0:
            last = k
            cumulative += pk
            if u < cumulative:
                return k
    return last


@njit(cache=True)
def touched_families(pattern, child_start, children):
    """The variables whose family holds a blank cell of ``pattern`` (the blank ones and their children),
    in increasing order: the only factors of the joint that change with the completion."""
    n = pattern.shape[0]
    mark = np.zeros(n, np.bool_)
    for v in range(n):
        if pattern[v] < 0:
            mark[v] = True
            for t in range(child_start[v], child_start[v + 1]):
                mark[children[t]] = True
    return np.flatnonzero(mark)


@njit(cache=True)
def product_of_families(row, families, arities, parent_start, parents, cpt_start, cpt):
    """The product of the CPT entries of ``families`` (variables) at ``row``."""
    weight = 1.0
    for f in families:
        weight *= family_probability(row, f, arities, parent_start, parents, cpt_start, cpt)
    return weight


@njit(cache=True)
def likelihood_sample(row, pattern, observed, uniforms, at, order, arities, parent_start, parents, cpt_start, cpt):
    """Draw the blank cells of ``pattern`` into ``row`` in topological ``order``, one uniform each from
    ``uniforms[at]`` on, the observed cells clamped; return the likelihood weight: the product of the CPT
    entries of the ``observed`` variables (those with a blank parent: the others weigh every sample alike)."""
    for v in order:
        if pattern[v] < 0:
            row[v] = draw_state(row, v, uniforms[at], arities, parent_start, parents, cpt_start, cpt)
            at += 1
    return product_of_families(row, observed, arities, parent_start, parents, cpt_start, cpt)


@njit(cache=True)
def fill_completion(row, blanks, j, arities):
    """Write the ``j``-th joint completion of the ``blanks`` into ``row`` (mixed radix, last blank fastest)."""
    rest = j
    for t in range(blanks.shape[0] - 1, -1, -1):
        b = blanks[t]
        row[b] = rest % arities[b]
        rest //= arities[b]


@njit(cache=True, parallel=True)
def complete_patterns(patterns, counts, exact, out_start, uniform_start, uniforms, order, arities, parent_start,
                      parents, child_start, children, cpt_start, cpt, out_codes, out_weights):
    """Every completion of every pattern with its weight (Friedman 1997, Section 3: the E-step as data).

    Pattern ``p`` fills ``out_codes[out_start[p]:out_start[p + 1]]``. When
    ``exact[p]`` those rows are all its joint completions in mixed-radix order
    (last blank variable fastest), each weighted by the product of the CPT
    entries of the families it touches (:func:`touched_families`: the others
    are the same for every completion); otherwise they are likelihood-weighted
    samples drawn in ``order`` with the uniforms from ``uniforms[uniform_start[p]]``
    on (one per blank cell per sample), each weighted by the CPT entries of the
    observed variables with a blank parent. The weights of a pattern are then
    normalised to sum to ``counts[p]``; a pattern whose observed cells have
    probability 0 under the network gets equal weights.

    Parameters
    ----------
    patterns : int64 (n_patterns, n_vars), -1 at blank cells
    counts : float64 (n_patterns,)
    exact : bool (n_patterns,)
    out_start : int64 (n_patterns + 1,)
    uniform_start : int64 (n_patterns,)
    uniforms : float64
    order, arities, parent_start, parents, child_start, children, cpt_start, cpt
        :meth:`NetworkArrays.kernel_arguments`.
    out_codes : integer (total, n_vars), written
    out_weights : float64 (total,), written
    """
    n_patterns, n = patterns.shape
    for p in prange(n_patterns):
        row = patterns[p].copy()
        blanks = np.flatnonzero(row < 0)
        touched = touched_families(row, child_start, children)
        observed = touched[row[touched] >= 0]
        start = out_start[p]
        size = out_start[p + 1] - start
        total = 0.0
        for j in range(size):
            if exact[p]:
                fill_completion(row, blanks, j, arities)
                weight = product_of_families(row, touched, arities, parent_start, parents, cpt_start, cpt)
            else:
                weight = likelihood_sample(row, patterns[p], observed, uniforms, uniform_start[p] + j * blanks.shape[0],
                                           order, arities, parent_start, parents, cpt_start, cpt)
            for v in range(n):
                out_codes[start + j, v] = row[v]
            out_weights[start + j] = weight
            total += weight
        for j in range(size):
            if total > 0:
                out_weights[start + j] *= counts[p] / total
            else:
                out_weights[start + j] = counts[p] / size


def completed_data(network, data, completions=COMPLETIONS, seed=0, estep=None):
    """The completed data set of structural EM: each incomplete row as its completions, weighted.

    Every row with blank cells becomes the completions of its blank cells,
    weighted by their posterior probability under ``network`` given the row's
    observed cells (Friedman 1997, Section 3; Friedman 1998, Section 3): all of
    them when the blank cells have at most ``completions`` joint completions,
    else ``completions`` samples from the row's posterior (drawn group by
    group; likelihood-weighted when a group of blank cells is too large to
    enumerate); either way a row's weights sum to one. Complete rows weigh
    one. Identical rows are merged, their weights summed. The weighted count of any family is then its expected
    count given the observed cells: exact when every incomplete row was
    enumerated, a Monte Carlo estimate for the sampled ones.

    Parameters
    ----------
    network : bnexplore.bif.Network
        Over the data's columns (matched by name, same states), e.g. the
        result of parameter EM (:func:`bnexplore.em.em_fit`).
    data : Dataset
        With blank cells (``data.blank``); data without any is returned as it is.
    completions : int
        At most this many completions per incomplete row (>= 1).
    seed : int
        Seed of the sampled completions: same seed, same data set.
    estep : bnexplore.em.EStep, optional
        The E-step of the network's structure on this data, as parameter EM
        (:func:`bnexplore.em.em_fit`) prepared it: its distinct incomplete
        rows and their groups of blank cells are taken from it instead of
        found again (structural EM completes the data under each network it
        has just fitted). Its network must have the variables in the data's
        column order and the parents of ``network``; the completed data is the
        same with it as without.

    Returns
    -------
    Dataset
        No blank cell; ``weights`` holds the summed weights of the distinct
        completed rows (:func:`distinct_rows`' order), the columns, states and
        warnings are the data's.

    Raises
    ------
    DataError
        When the network does not match the data's columns.
    OptionError
        When ``completions`` is not a whole number >= 1 or ``seed`` not a whole number >= 0, or ``estep`` is
        not of this network's structure on this data.
    ResourceError
        When the completed rows would not fit in the memory available (the message says to lower
        ``completions``), before anything is allocated.

    Examples
    --------
    ``b`` copies ``a`` with probability 0.9; the blank ``b`` of the row ``a = 1``
    becomes ``b = 1`` with weight 0.9 and ``b = 0`` with weight 0.1:

    >>> from bnexplore.bif import Network
    >>> from bnexplore.data import Dataset
    >>> net = Network("copy", ["a", "b"], [["0", "1"], ["0", "1"]], [[], [0]],
    ...               [[0.5, 0.5], [[0.9, 0.1], [0.1, 0.9]]])
    >>> data = Dataset.from_codes([[0, 0], [1, -1]], names=["a", "b"], arities=[2, 2], missing="em")
    >>> done = completed_data(net, data, completions=2)
    >>> done.codes.tolist(), done.weights.round(3).tolist()
    ([[0, 0], [1, 0], [1, 1]], [1.0, 0.1, 0.9])
    """
    data = check_dataset(data)
    completions = whole_number(completions, "completions", 1)
    seed = seed_number(seed)
    if getattr(data, "blank", None) is None:
        return data
    arrays = NetworkArrays(network, data)
    if estep is None:
        rows, patterns, _, counts = row_patterns(data)
        incomplete = len(rows)
    else:
        _check_estep(estep, network, data)
        patterns, counts = estep.pattern_codes.astype(np.int64), estep.pattern_weights
        incomplete = int(round(counts.sum()))
    joint = arrays.completions_of(patterns, completions)
    grouped = joint > completions
    unknown = grouped.copy()  # the patterns not known to be enumerable (the E-step's enumerated ones are)
    if estep is not None and estep.group_states <= MAX_GROUP_STATES:
        unknown[estep.enumerated] = False
    grouped[unknown] = enumerable_patterns(patterns[unknown], MAX_GROUP_STATES, arrays.parent_start, arrays.parents,
                                           arrays.child_start, arrays.children, arrays.arities)
    others = np.flatnonzero(~grouped)
    exact, out_start, uniform_start, n_uniforms = completion_layout(arrays, patterns[others], completions)
    grouped = np.flatnonzero(grouped)
    n_grouped = completions * len(grouped)
    total = int(out_start[-1]) + n_grouped
    complete = np.flatnonzero(~data.blank.any(axis=1))
    n_out = total + len(complete)
    itemsize = data.codes.dtype.itemsize
    draws = completions * (patterns[grouped] < 0).sum(axis=1)
    check_memory(n_out * (MERGE_COPIES * (data.n_vars * itemsize + 7) + 5 * 8) + (n_uniforms + draws.sum()) * 8,
                 f"the completed data ({incomplete:,} incomplete rows with up to {completions:,} completions each, "
                 f"{n_out:,} rows in all)",
                 hint=f"lower {option('completions')} (now {completions:,}), or use fewer rows or columns")
    rng = np.random.default_rng(seed)
    out_codes = np.empty((total, data.n_vars), dtype=data.codes.dtype)
    out_weights = np.empty(total, dtype=np.float64)
    complete_patterns(patterns[others], counts[others], exact, out_start, uniform_start, rng.random(n_uniforms),
                      *arrays.kernel_arguments(), out_codes, out_weights)
    if len(grouped):
        starts = np.arange(len(grouped), dtype=np.int64) * completions + int(out_start[-1])
        uniform_start = np.concatenate([[0], np.cumsum(draws)[:-1]]).astype(np.int64)
        uniforms = rng.random(int(draws.sum()))
        for source, at in _group_layouts(arrays, patterns, counts, grouped, estep):
            group_sample_patterns(min(numba.get_num_threads(), len(at) // SAMPLE_BLOCK_PATTERNS + 1), *source, starts[at],
                                  uniform_start[at], uniforms, completions, MAX_GROUP_STATES, arrays.arities,
                                  arrays.parent_start, arrays.parents, arrays.cpt_start, arrays.cpt, out_codes,
                                  out_weights)
    codes = np.concatenate([np.ascontiguousarray(data.codes[complete]), out_codes])
    weights = np.concatenate([np.ones(len(complete)), out_weights])
    keep = weights > 0
    codes, weights = codes[keep], weights[keep]
    merged, inverse = distinct_rows(codes)
    summed = np.bincount(inverse, weights=weights, minlength=len(merged))
    return Dataset(merged, data.arities, data.names, data.states, warnings=data.warnings, weights=summed)


def _group_layouts(arrays, patterns, counts, grouped, estep):
    """The sources :func:`group_sample_patterns` draws the ``grouped`` patterns from, each with the positions
    in ``grouped`` it serves: the E-step's layout for the patterns it sums group by group (when given), a layout
    found here for the others."""
    rest = np.arange(len(grouped))
    if estep is not None and len(estep.enumerated):
        inside = np.isin(grouped, estep.enumerated)
        at = np.flatnonzero(inside)
        pick = np.searchsorted(estep.enumerated, grouped[at])
        yield (estep.enumerated_codes, estep.pattern_weights[estep.enumerated], pick, *estep.groups), at
        rest = np.flatnonzero(~inside)
    if len(rest):
        own = patterns[grouped[rest]]
        layout = group_layout(own, counts[grouped[rest]], MAX_GROUP_STATES, arrays.arities, arrays.parent_start,
                              arrays.parents, arrays.child_start, arrays.children, arrays.cpt_start, arrays.cpt.size,
                              0)  # drawn from once: no cells worth storing
        yield (own, counts[grouped[rest]], np.arange(len(rest)), *layout[:-1]), rest


def _check_estep(estep, network, data):
    """Refuse an E-step that is not of ``network``'s structure on ``data`` (in the data's column order)."""
    mine = estep.network
    if (list(mine.names) != [str(name) for name in data.names] or list(network.names) != list(mine.names)
            or [list(p) for p in mine.parents] != [list(p) for p in network.parents]
            or estep.rows != data.n_rows or estep.blank_cells != int(np.count_nonzero(data.blank))):
        raise OptionError(f"{option('estep')} must be the E-step of the network's structure on this data, its "
                          f"variables in the data's column order (as em_fit prepares it); leave it out otherwise")


def completion_layout(arrays, patterns, completions):
    """Where :func:`complete_patterns` writes each pattern's rows and reads its uniforms.

    Returns
    -------
    exact : ndarray of bool
        The patterns whose blank cells have at most ``completions`` joint completions (enumerated).
    out_start : ndarray of int64
        Pattern ``p``'s rows are ``out_start[p]:out_start[p + 1]``.
    uniform_start : ndarray of int64
        Where pattern ``p``'s uniforms begin (a sampled pattern draws one per blank cell per sample).
    n_uniforms : int
    """
    joint = arrays.completions_of(patterns, completions)
    exact = joint <= completions
    sizes = np.where(exact, joint, completions)
    out_start = np.zeros(len(patterns) + 1, dtype=np.int64)
    out_start[1:] = np.cumsum(sizes)
    draws = np.where(exact, 0, completions * (patterns < 0).sum(axis=1))
    uniform_start = np.zeros(len(patterns), dtype=np.int64)
    uniform_start[1:] = np.cumsum(draws)[:-1]
    return exact, out_start, uniform_start, int(draws.sum())
