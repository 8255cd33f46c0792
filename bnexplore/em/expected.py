"""The E-step of EM: expected counts of every family and the observed-data log-likelihood.

For a network and a data set with blank cells, :class:`EStep` prepares once what
does not depend on the tables: the rows grouped into distinct patterns
(observed codes and blank mask) with their counts, the counts of every family
over the rows where the whole family is observed (counted directly, whatever
the tables), and which patterns are summed group by group. Each run for new
tables then adds ``count x P(family | evidence)`` to the families a blank cell
touches: for a pattern whose independent groups of blank cells are small
(:mod:`bnexplore.em.groups`, nearly all rows when a tenth of the cells are
blank) by enumerating each group's completions, for the others by propagating
its evidence through the junction tree compiled by
:class:`bnexplore.inference.InferenceEngine`
(:func:`bnexplore.junction.expected_family_counts`; Lauritzen 1995,
"The EM algorithm for graphical association models with missing data",
Section 3; Dempster, Laird & Rubin 1977, Section 4.1 for the exponential
family's expected sufficient statistics).
"""

import math

import numba
import numpy as np

from bnexplore.bif import Network
from bnexplore.bif.fit import family_layout, observed_counts
from bnexplore.bif.network import check_network
from bnexplore.data import check_dataset
from bnexplore.errors import DataError, ResourceError, subject
from bnexplore.inference import MAX_CELLS, InferenceEngine
from bnexplore.junction import expected_family_counts_blocks, junction_tree
from bnexplore.options import positive_number
from bnexplore.resources import check_memory

from .completions import NetworkArrays, blank_patterns
from .groups import MAX_GROUP_STATES, STORED_CELLS, enumerable_patterns, group_expected_counts, group_layout

CHUNK_CELLS = 2e7
"""Clique cells one chunk of patterns may propagate through on each thread (about a tenth of a second):
between two chunks the run checks its stop flag and time limit, so Stop answers quickly even on a long
E-step."""
PARALLEL_CELLS = 1e6
"""Clique cells (patterns times the tree's cells) below which the E-step runs on one thread: starting
the threads and giving each its own tables costs about what a millisecond of propagation does."""


GROUP_STATES = 1024
"""Most joint states of a group of blank cells that the E-step sums by enumeration; a pattern with a larger
group is propagated through the junction tree, which then costs less (on insurance, with a tenth of the cells
blank, the E-step is fastest with a bound between 256 and 1024, and twice as slow with 4096 or 16)."""
FEW_PROPAGATED = 64
"""At most this many patterns past :data:`GROUP_STATES` are enumerated all the same when every group of
theirs has at most :data:`bnexplore.em.groups.MAX_GROUP_STATES` joint states: building the junction tree
for them costs more than enumerating them on every run of a fit (alarm: 34 ms against a few)."""
GROUP_BLOCK_PATTERNS = 2000
"""Enumerable patterns per thread of the group-by-group E-step: below that, starting a thread and giving it
its own counts costs about what summing the patterns does."""


class EStep:
    """The E-step of one network structure on one data set, prepared once and run for any tables.

    Parameters
    ----------
    network : bnexplore.bif.Network
        Gives the variables, states and parents (its tables are the default
        of :meth:`run`).
    data : bnexplore.data.Dataset or similar
        ``codes``, ``names``, ``states``, and ``blank`` (None or a bool mask,
        codes 0 at blank cells) and ``weights`` (None or float64 per row) when
        it has them. The network's variables are found in it by name, with the
        same states.
    max_cells : float
        Refuse (ResourceError) a junction tree whose tables would hold more
        cells than this, before any table is allocated.
    group_states : int
        A pattern whose every group of blank cells has at most this many joint
        states is summed group by group (0: every pattern goes through the
        junction tree); so are the others when they are at most
        :data:`FEW_PROPAGATED` and their groups have at most
        :data:`~bnexplore.em.groups.MAX_GROUP_STATES` states.
    previous : EStep, optional
        An E-step of another structure on the same data (the same object,
        the same variables and states in the same order): what depends on the
        data alone (its distinct incomplete rows, the counts of the families
        both structures have) is taken from it, not computed again, as
        structural EM prepares one E-step per network.

    Attributes
    ----------
    rows : int
    blank_cells : int
    patterns : int
        Distinct incomplete row patterns.
    enumerated, propagated : int arrays
        The patterns summed group by group, and those propagated through the junction tree.
    pattern_codes : int array (patterns, n_vars)
        Their observed codes, -1 where blank (the smallest signed integer type that holds the codes).
    pattern_weights : float64 array (patterns,)
        How many rows (or how much weight) each stands for.
    """

    def __init__(self, network, data, max_cells=MAX_CELLS, group_states=GROUP_STATES, previous=None):
        check_network(network, "EM")
        max_cells = positive_number(max_cells, "max_cells", unit=" of cells")
        data = check_dataset(data)
        self.network = network
        shared = previous if (previous is not None and previous.source is data
                              and previous.network.names == network.names
                              and previous.network.states == network.states) else None
        self.source = data
        self.columns = codes, blank, weights = _columns(network, data) if shared is None else shared.columns
        n_rows, n_vars = codes.shape
        self.rows = n_rows
        self.blank_cells = 0 if blank is None else int(np.count_nonzero(blank))
        arities = network.arities.astype(np.int64)
        parents = network.parents
        families = [list(parents[v]) + [v] for v in range(n_vars)]
        complete = slice(None) if blank is None else ~blank.any(axis=1)
        # the counts of a family over the rows where it is observed whole, and over the complete rows
        self.family_counts = {} if shared is None else shared.family_counts
        for v, family in enumerate(families):
            key = tuple(family)
            if key not in self.family_counts:
                whole = None if blank is None else ~blank[:, family].any(axis=1)
                self.family_counts[key] = tuple(
                    observed_counts(codes, weights, v, parents[v], arities, rows=rows).astype(np.float64)
                    for rows in (whole, complete))
        self.observed = [self.family_counts[tuple(family)][0] for family in families]
        self.complete = [self.family_counts[tuple(family)][1] for family in families]
        self.complete_rows = np.arange(n_rows)[complete]
        self.codes = codes
        self.patterns = 0
        if blank is None:
            return
        incomplete = np.flatnonzero(blank.any(axis=1))
        tree = junction_tree(parents, arities)
        if tree.total > max_cells:
            raise ResourceError(
                f"EM on this DAG needs a junction tree of {tree.total:.2g} cells (largest clique {tree.largest:.2g}, "
                f"{tree.total * 16 / 2**30:.1f} GiB), more than the limit of {max_cells:.2g}; give the variables "
                f"fewer parents (or fewer states), fit the complete rows (load with {subject('missing', 'drop')}), "
                f"or raise {subject('max_cells')}")
        dtype = np.result_type(np.min_scalar_type(-int(arities.max(initial=2))), np.int8)
        self.blocks = numba.get_num_threads() if len(incomplete) * tree.total >= PARALLEL_CELLS else 1
        cells = sum(math.prod(arities[f].tolist()) for f in families)
        # the marked rows, np.unique's sorted copy and its index arrays; the tree's tables in the engine
        # (two), the potentials and each thread's work (one each); each thread's counts; the stored cells
        check_memory(len(incomplete) * (n_vars * dtype.itemsize * 3 + 24) + tree.total * 8 * (3 + self.blocks)
                     + cells * 8 * (1 + self.blocks) + STORED_CELLS * 8,
                     f"EM on {len(incomplete):,} incomplete rows", f"use fewer rows or variables, or load the data "
                     f"with {subject('missing', 'drop')}")
        if shared is None or shared.patterns == 0:
            self.distinct = blank_patterns(codes, blank, arities)[1:3]  # completed_data's order of the patterns
        else:
            self.distinct = shared.distinct
        unique, inverse = self.distinct
        first = np.empty(len(unique), np.int64)
        first[inverse[::-1]] = np.arange(len(inverse))[::-1]
        self.pattern_codes = np.ascontiguousarray(unique.astype(dtype))
        self.pattern_rows = incomplete[first]
        row_weights = np.ones(len(incomplete)) if weights is None else weights[incomplete]
        self.pattern_weights = np.bincount(inverse.reshape(-1), weights=row_weights, minlength=len(unique))
        self.patterns = len(unique)
        self.arrays = arrays = NetworkArrays(network, network)
        self.group_states = int(group_states)
        wide = unique
        graph = (arrays.parent_start, arrays.parents, arrays.child_start, arrays.children, arrays.arities)
        enumerable = (enumerable_patterns(wide, self.group_states, *graph) if self.group_states > 0
                      else np.zeros(self.patterns, bool))
        rest = np.flatnonzero(~enumerable)
        if (self.group_states > 0 and len(rest) <= FEW_PROPAGATED
                and enumerable_patterns(wide[rest], MAX_GROUP_STATES, *graph).all()):
            self.group_states = MAX_GROUP_STATES  # no junction tree to build for a few patterns
            enumerable[rest] = True
        self.enumerated = np.flatnonzero(enumerable)  # summed group by group (bnexplore.em.groups)
        self.enumerated_codes = np.ascontiguousarray(wide[enumerable])
        *self.groups, self.untouched = group_layout(
            self.enumerated_codes, self.pattern_weights[enumerable], self.group_states, arrays.arities,
            arrays.parent_start, arrays.parents, arrays.child_start, arrays.children, arrays.cpt_start,
            sum(n.size for n in self.observed), STORED_CELLS)
        self.propagated = np.flatnonzero(~enumerable)  # propagated through the junction tree
        self.engine = None
        if not len(self.propagated):
            return
        self.engine = engine = InferenceEngine(network, max_cells=max_cells, calibrate=False)
        self.schedule = engine.schedule()
        self.chunk = max(1, int(CHUNK_CELLS * self.blocks / max(tree.total, 1.0)))
        fam_ptr = np.zeros(n_vars + 1, np.int64)
        fam_ptr[1:] = np.cumsum([len(f) for f in families])
        fam_optr = np.zeros(n_vars + 1, np.int64)
        fam_ostr = []
        for v, f in enumerate(families):
            c = engine.assigned[v]
            strides = dict(zip(f, np.cumprod([1] + [int(arities[u]) for u in f[::-1]])[:-1][::-1].tolist()))
            row = [strides.get(int(u), 0) for u in engine.cl_vars[engine.cl_ptr[c]:engine.cl_ptr[c + 1]]]
            fam_ostr += row
            fam_optr[v + 1] = fam_optr[v] + len(row)
        fam_off = np.zeros(n_vars + 1, np.int64)
        fam_off[1:] = np.cumsum([n.size for n in self.observed])
        self.family = (fam_ptr, np.array([u for f in families for u in f], np.int64), engine.assigned,
                       fam_optr[:-1].copy(), np.array(fam_ostr, np.int64), fam_off)

    @classmethod
    def of(cls, dag, data, max_cells=MAX_CELLS, previous=None):
        """The E-step of a DAG's structure on data, as :func:`bnexplore.em.em_fit` prepares it.

        Its network has the DAG's variables and parents, the data's states and
        uniform tables (:meth:`run` is then given the tables to use).

        Parameters
        ----------
        dag : bnexplore.graphs.DAG or similar
            Anything with ``.n``, ``.names`` and ``.parents(v)``; its variables are columns of the data.
        data, max_cells, previous
            As for :class:`EStep`.

        Returns
        -------
        EStep

        Examples
        --------
        >>> from bnexplore.data import Dataset
        >>> from bnexplore.graphs import DAG
        >>> data = Dataset.from_codes([[0, 0], [1, -1], [-1, 1]], names=["rain", "wet"], missing="em")
        >>> estep = EStep.of(DAG.from_arcs([("rain", "wet")], ["rain", "wet"]), data)
        >>> estep.network.parents, estep.patterns
        ([[], [0]], 2)
        """
        columns, parents, _ = family_layout(dag, data)
        states = [[str(s) for s in data.states[c]] for c in columns]
        skeleton = Network("fitted", [str(name) for name in dag.names], states, parents,
                           [np.full(tuple(len(states[u]) for u in ps + [v]), 1.0 / len(states[v]))
                            for v, ps in enumerate(parents)])
        return cls(skeleton, data, max_cells, previous=previous)

    def run(self, cpts=None, control=None, counts=True):
        """Expected counts and the observed-data log-likelihood under ``cpts``.

        Parameters
        ----------
        cpts : list of arrays, optional
            Tables shaped like the network's (default: the network's).
        control : bnexplore.control.Control, optional
            Checked between chunks of patterns; when it says stop, the run
            returns None.
        counts : bool
            False computes the log-likelihood alone.

        Returns
        -------
        (list of float64 arrays or None, float) or None
            ``counts[v]`` shaped like variable ``v``'s CPT, and
            ``sum_rows log P(observed cells of the row)``.

        Raises
        ------
        DataError
            When a row has probability 0 under the tables (naming the row).
        """
        cpts = self.network.cpts if cpts is None else cpts
        log_likelihood = self._complete_log_likelihood(cpts)
        expected = [n.copy() for n in self.observed] if counts else None
        if not self.patterns:
            return expected, log_likelihood
        flat = np.zeros(sum(n.size for n in self.observed))
        if len(self.enumerated):
            if control is not None and control.should_stop():
                return None
            arrays = self.arrays
            cpt = np.concatenate([np.asarray(t, np.float64).reshape(-1) for t in cpts])
            part, bad = group_expected_counts(
                min(numba.get_num_threads(), len(self.enumerated) // GROUP_BLOCK_PATTERNS + 1), self.enumerated_codes,
                self.pattern_weights[self.enumerated], self.group_states, *self.groups, arrays.arities,
                arrays.parent_start, arrays.parents, arrays.cpt_start, cpt, flat)
            seen = self.untouched > 0
            if bad < 0 and (cpt[seen] <= 0).any():  # a family observed whole in an incomplete row cannot happen
                bad = self._pattern_with(np.flatnonzero(seen & (cpt <= 0))[0])
            if bad >= 0:
                raise DataError(_impossible(int(self.pattern_rows[self.enumerated[bad]]), "its observed cells"))
            log_likelihood += part + float(self.untouched[seen] @ np.log(cpt[seen]))
        if self.engine is not None:
            engine = self.engine
            initial = engine.potentials(cpts)
            codes, weights, rows = (self.pattern_codes[self.propagated], self.pattern_weights[self.propagated],
                                    self.pattern_rows[self.propagated])
            for lo in range(0, len(codes), self.chunk):
                if control is not None and control.should_stop():
                    return None
                hi = min(lo + self.chunk, len(codes))
                bad, part = expected_family_counts_blocks(
                    min(self.blocks, hi - lo), codes[lo:hi], weights[lo:hi], counts, initial, engine.cl_ptr,
                    engine.cl_vars, engine.cl_str, engine.cl_off, engine.cards, engine.sep_off, engine.sep_size,
                    engine.e_child, engine.e_cptr, engine.e_str_child, engine.e_pptr, engine.e_str_parent,
                    *self.schedule, engine.marg_off, *self.family, flat)
                if bad >= 0:
                    raise DataError(_impossible(int(rows[lo + bad]), "its observed cells"))
                log_likelihood += part
        if counts:
            off = self.arrays.cpt_start
            for v, n in enumerate(expected):
                n += flat[off[v]:off[v] + n.size].reshape(n.shape)
        return expected, log_likelihood

    def _pattern_with(self, cell):
        """The first enumerated pattern that has the family cell ``cell`` (flat) with its family observed whole."""
        arrays = self.arrays
        for t, pattern in enumerate(self.enumerated_codes):
            *_, untouched = group_layout(pattern[None], np.ones(1), self.group_states, arrays.arities,
                                         arrays.parent_start, arrays.parents, arrays.child_start, arrays.children,
                                         arrays.cpt_start, len(self.untouched), 0)
            if untouched[cell] > 0:
                return t
        return 0

    def _complete_log_likelihood(self, cpts):
        """``sum N_ijk log theta_ijk`` over the complete rows' counts (0 log 0 = 0)."""
        total = 0.0
        for v, n in enumerate(self.complete):
            table = np.asarray(cpts[v], dtype=np.float64)
            seen = n > 0
            if (table[seen] <= 0).any():
                cell = np.argwhere(seen & (table <= 0))[0]
                raise DataError(_impossible(self._row_with(v, cell), "it"))
            total += float((n[seen] * np.log(table[seen])).sum())
        return total

    def _row_with(self, v, cell):
        """The first complete row whose family of ``v`` is in ``cell``."""
        family = list(self.network.parents[v]) + [v]
        rows = self.complete_rows
        hit = np.all(self.codes[np.ix_(rows, family)] == np.asarray(cell), axis=1)
        return int(rows[np.argmax(hit)])


def _impossible(row, what):
    return (f"row {row + 1} of the data has probability 0 under the network's tables ({what} cannot happen "
            f"together); fit with {subject('ess', 1.0)} or more so that no table has a 0, or remove that row")


def _columns(network, data):
    """The codes (network order), blank mask and weights of the data, checked against the network."""
    column_of = {str(name): i for i, name in enumerate(data.names)}
    missing = [name for name in network.names if name not in column_of]
    if missing:
        raise DataError(f"variable {missing[0]!r} of the network is not a column of the data; use data with "
                        f"the network's variables")
    columns = [column_of[name] for name in network.names]
    for v, c in enumerate(columns):
        if [str(s) for s in data.states[c]] != network.states[v]:
            raise DataError(f"column {network.names[v]!r} has states {list(data.states[c])[:6]} but the network "
                            f"has {network.states[v][:6]}; code the data with the network's states")
    codes = np.asarray(data.codes)[:, columns]
    blank = getattr(data, "blank", None)
    blank = None if blank is None else np.asarray(blank, dtype=bool)[:, columns]
    if blank is not None and not blank.any():
        blank = None
    weights = getattr(data, "weights", None)
    if weights is not None and blank is not None:
        raise DataError("the data has both row weights and blank cells; give one of them")
    return codes, blank, None if weights is None else np.asarray(weights, dtype=np.float64)


def expected_counts(network, data, max_cells=MAX_CELLS):
    """The E-step: expected family counts given the observed cells, and the observed-data log-likelihood.

    ``counts[X][j, k] = sum over rows of P(X = k, Pa(X) = j | the row's observed
    cells)`` under the network's tables (Dempster, Laird & Rubin 1977,
    "Maximum likelihood from incomplete data via the EM algorithm", Section
    4.1; Lauritzen 1995, Section 3). Rows with the whole family observed add
    their count to one cell; each distinct incomplete row pattern is
    propagated once through the junction tree and weighted by how often it
    occurs.

    Parameters
    ----------
    network : bnexplore.bif.Network
    data : bnexplore.data.Dataset
        Has the network's variables (by name) with the same states; blank
        cells (``data.blank``) are what EM completes.
    max_cells : float
        Refuse a junction tree with more cells than this (ResourceError).

    Returns
    -------
    counts : dict
        ``{variable: float64 array shaped like its CPT}`` (parent
        configurations, then states).
    log_likelihood : float
        ``sum over rows of log P(observed cells of the row)``.

    Raises
    ------
    DataError
        If a variable or state does not match, or a row has probability 0
        (naming the row).

    Examples
    --------
    Rain makes the grass wet; the second row's rain is blank, so its count is
    split by ``P(rain | wet = yes)``:

    >>> import numpy as np
    >>> from bnexplore.bif import Network
    >>> from bnexplore.data import Dataset
    >>> net = Network("rain", ["rain", "wet"], [["no", "yes"], ["no", "yes"]], [[], [0]],
    ...               [[0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]]])
    >>> data = Dataset.from_codes([[0, 0], [-1, 1]], names=["rain", "wet"], states=net.states,
    ...                           arities=[2, 2], missing="em")
    >>> counts, log_likelihood = expected_counts(net, data)
    >>> counts["rain"].round(4).tolist()
    [1.1111, 0.8889]
    >>> bool(np.isclose(log_likelihood, 2 * np.log(0.45)))  # P(no, no) = P(wet = yes) = 0.45
    True
    """
    counts, log_likelihood = EStep(network, data, max_cells).run()
    return dict(zip(network.names, counts)), log_likelihood


def observed_log_likelihood(network, data, max_cells=MAX_CELLS):
    """``sum over rows of log P(observed cells of the row)`` under the network's tables.

    Blank cells are summed out (each incomplete row pattern propagated once);
    on complete data this is the ordinary log-likelihood.

    Parameters
    ----------
    network : bnexplore.bif.Network
    data : bnexplore.data.Dataset
    max_cells : float
        As in :func:`expected_counts`.

    Returns
    -------
    float
        Natural log.

    Raises
    ------
    DataError
        As in :func:`expected_counts`.

    Examples
    --------
    >>> import math
    >>> from bnexplore.bif import Network
    >>> from bnexplore.data import Dataset
    >>> net = Network("rain", ["rain", "wet"], [["no", "yes"], ["no", "yes"]], [[], [0]],
    ...               [[0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]]])
    >>> data = Dataset.from_codes([[0, 0], [-1, 1]], names=["rain", "wet"], states=net.states,
    ...                           arities=[2, 2], missing="em")
    >>> math.isclose(observed_log_likelihood(net, data), math.log(0.45 * 0.45))
    True
    """
    return EStep(network, data, max_cells).run(counts=False)[1]


