"""Imputation: each incomplete row completed by a network, with its most probable completion or a posterior draw.

:func:`impute` fills the blank cells of a data set with a network (the one
structural EM learnt, or any fitted on the data's columns), so the completed
table can be exported. The work is one numba kernel over rows
(:func:`impute_patterns`) built on the pieces of :mod:`bnexplore.em.completions`.
"""

import numpy as np
from numba import prange

from ..compiling import njit
from ..data import Dataset, check_dataset
from ..errors import OptionError, subject
from ..options import seed_number, whole_number
from ..resources import check_memory
from .completions import (NetworkArrays, family_probability, fill_completion, likelihood_sample, product_of_families,
                          row_patterns, touched_families)

METHODS = ("mode", "sample")
"""What :func:`impute` fills a row with: its most probable completion, or one drawn from the posterior."""

SAMPLES = 256
"""Default likelihood-weighted samples of a row past :data:`LIMIT`. Iterated conditional modes then
climbs from the best, so more samples change little: with 30 % of alarm's cells blank (most rows past
the limit), 256 samples imputed the blank cells' true values as often as 4,096 to a tenth of a percent,
in about a tenth of the time."""

LIMIT = 4096
"""Default most joint completions of a row's blank cells enumerated (twelve blank binary cells), each
costing the CPT entries of the families its blanks touch and nothing kept: with a tenth of alarm's cells
blank almost every incomplete row is enumerated exactly (a fifth blank: about two thirds); rows with more
get :data:`SAMPLES` likelihood-weighted samples instead."""

CHUNK_UNIFORMS = 1 << 23
"""Most uniforms (64 MiB) drawn at once for the sampled rows: they are drawn and used in chunks of rows."""


@njit(cache=True)
def blanket_weight(row, v, arities, parent_start, parents, child_start, children, cpt_start, cpt):
    """The factors of the joint that hold ``v``: its own CPT entry times its children's, at ``row``."""
    weight = family_probability(row, v, arities, parent_start, parents, cpt_start, cpt)
    for t in range(child_start[v], child_start[v + 1]):
        weight *= family_probability(row, children[t], arities, parent_start, parents, cpt_start, cpt)
    return weight


@njit(cache=True)
def conditional_modes(row, blanks, arities, parent_start, parents, child_start, children, cpt_start, cpt):
    """Iterated conditional modes (Besag 1986, "On the statistical analysis of dirty pictures", Section 2.5):
    set each blank cell in turn to the state that maximises the joint given the rest (its Markov blanket),
    moving only on a strict gain, until a sweep changes nothing. The joint never decreases, so it ends,
    at a completion no single cell's change improves: a local optimum."""
    changed = True
    while changed:
        changed = False
        for b in blanks:
            current = row[b]
            best, best_weight = current, blanket_weight(row, b, arities, parent_start, parents, child_start,
                                                        children, cpt_start, cpt)
            for s in range(arities[b]):
                row[b] = s
                weight = blanket_weight(row, b, arities, parent_start, parents, child_start, children, cpt_start, cpt)
                if weight > best_weight:
                    best, best_weight = s, weight
            row[b] = best
            if best != current:
                changed = True


@njit(cache=True, parallel=True)
def impute_patterns(patterns, mode, exact, joint, uniform_start, uniforms, samples, order, arities, parent_start,
                    parents, child_start, children, cpt_start, cpt, out_codes):
    """One completion of every pattern: the most probable (``mode``) or a posterior draw.

    A pattern with ``exact[p]`` has its ``joint[p]`` completions enumerated
    (mixed radix, last blank fastest), each weighed by the factors of the joint
    it touches: ``mode`` keeps the first of the largest; otherwise the one
    where the cumulative weight first exceeds ``uniforms[uniform_start[p]]``
    times the total. Any other pattern draws ``samples`` likelihood-weighted
    samples (one uniform per blank cell each, from ``uniform_start[p]`` on):
    ``mode`` starts :func:`conditional_modes` from the sample of largest joint,
    otherwise one sample is drawn by its likelihood weight with the next
    uniform (sampling-importance resampling, Rubin 1988). A pattern whose
    observed cells have probability 0 gets its first completion (mode) or a
    uniformly drawn one.

    Parameters
    ----------
    patterns : int64 (n_patterns, n_vars), -1 at blank cells
    mode : bool
    exact : bool (n_patterns,)
    joint : int64 (n_patterns,)
    uniform_start : int64 (n_patterns,)
    uniforms : float64
    samples : int
    order, arities, parent_start, parents, child_start, children, cpt_start, cpt
        :meth:`~bnexplore.em.completions.NetworkArrays.kernel_arguments`.
    out_codes : integer (n_patterns, n_vars), written
    """
    n_patterns, n = patterns.shape
    for p in prange(n_patterns):
        row = patterns[p].copy()
        blanks = np.flatnonzero(row < 0)
        touched = touched_families(row, child_start, children)
        observed = touched[row[touched] >= 0]
        at = uniform_start[p]
        chosen = 0
        if exact[p]:
            if mode:
                best = -1.0
                for j in range(joint[p]):
                    fill_completion(row, blanks, j, arities)
                    weight = product_of_families(row, touched, arities, parent_start, parents, cpt_start, cpt)
                    if weight > best:
                        chosen, best = j, weight
            else:
                total = 0.0
                for j in range(joint[p]):
                    fill_completion(row, blanks, j, arities)
                    total += product_of_families(row, touched, arities, parent_start, parents, cpt_start, cpt)
                target = uniforms[at] * total
                chosen = min(int(uniforms[at] * joint[p]), joint[p] - 1)
                if total > 0:
                    cumulative = 0.0
                    for j in range(joint[p]):
                        fill_completion(row, blanks, j, arities)
                        weight = product_of_families(row, touched, arities, parent_start, parents, cpt_start, cpt)
                        cumulative += weight
                        if weight > 0:
                            chosen = j
                            if target < cumulative:
                                break
            fill_completion(row, blanks, chosen, arities)
        else:
            step = blanks.shape[0]
            weights = np.empty(samples)
            for k in range(samples):
                weights[k] = likelihood_sample(row, patterns[p], observed, uniforms, at + k * step, order, arities,
                                               parent_start, parents, cpt_start, cpt)
                if mode:  # the joint's factors that vary, not the likelihood weight
                    weights[k] = product_of_families(row, touched, arities, parent_start, parents, cpt_start, cpt)
            total = weights.sum()
            if mode:
                chosen = int(np.argmax(weights))
            else:
                u = uniforms[at + samples * step]
                chosen = min(int(u * samples), samples - 1)
                if total > 0:
                    target = u * total
                    cumulative = 0.0
                    for k in range(samples):
                        cumulative += weights[k]
                        if weights[k] > 0:
                            chosen = k
                            if target < cumulative:
                                break
            likelihood_sample(row, patterns[p], observed, uniforms, at + chosen * step, order, arities, parent_start,
                              parents, cpt_start, cpt)
            if mode:
                conditional_modes(row, blanks, arities, parent_start, parents, child_start, children, cpt_start, cpt)
        for v in range(n):
            out_codes[p, v] = row[v]


def impute(network, data, method="mode", seed=0, limit=LIMIT, samples=SAMPLES):
    """Fill every blank cell of a data set with a network: each row's most probable completion, or a posterior draw.

    ``method="mode"`` gives each incomplete row the joint completion of its
    blank cells of largest probability given its observed cells under
    ``network``; ``"sample"`` draws one completion from that posterior for each
    row (identical rows draw independently), as the E-step of structural EM
    weighs them (Friedman 1998, Section 3: a completed data set). Both are
    exact for a row whose blank cells have at most ``limit`` joint completions
    (enumerated). A row with more gets ``samples`` likelihood-weighted samples:
    "mode" then takes the most probable of them and improves it by iterated
    conditional modes (a local optimum, not always the most probable
    completion), "sample" draws one of them by weight (approximately a
    posterior draw); the returned data set's warnings say how many rows that was.

    Parameters
    ----------
    network : bnexplore.bif.Network
        Over the data's columns (matched by name, same states): e.g. a network
        structural EM learnt and fitted (:func:`bnexplore.em.em_fit`).
    data : Dataset
        Data with blank cells (``missing="em"``); without any it is returned as it is.
    method : {"mode", "sample"}
    seed : int
        Seed of the draws and samples: same seed, same table.
    limit : int
        Most joint completions of one row enumerated exactly (>= 1).
    samples : int
        Likelihood-weighted samples drawn for a row with more (>= 1).

    Returns
    -------
    Dataset
        The data's rows in their order, no cell blank; ``to_frame()`` gives the
        table to export. Its warnings are the data's, and one more when some
        rows were completed approximately.

    Raises
    ------
    DataError
        When the network does not match the data's columns.
    OptionError
        On an unknown method, a ``limit`` or ``samples`` < 1, or a bad seed.
    ResourceError
        When the completed table would not fit in memory.

    Examples
    --------
    ``b`` copies ``a`` nine times in ten; the blank ``b`` of the row ``a = 1``
    is most probably 1, and the blank ``a`` of the row ``b = 0`` most probably 0:

    >>> from bnexplore.bif import Network
    >>> from bnexplore.data import Dataset
    >>> net = Network("copy", ["a", "b"], [["0", "1"], ["0", "1"]], [[], [0]],
    ...               [[0.5, 0.5], [[0.9, 0.1], [0.1, 0.9]]])
    >>> data = Dataset.from_codes([[1, -1], [-1, 0], [0, 1]], names=["a", "b"], arities=[2, 2], missing="em")
    >>> impute(net, data).codes.tolist()
    [[1, 1], [0, 0], [0, 1]]
    >>> impute(net, data, method="sample", seed=1).to_frame().shape
    (3, 2)
    """
    data = check_dataset(data)
    if method not in METHODS:
        raise OptionError(f"unknown imputation {subject('method', method)}: use 'mode' (the most probable "
                          "completion of each row) or 'sample' (a draw from its posterior)")
    limit = whole_number(limit, "limit", 1)
    samples = whole_number(samples, "samples", 1)
    seed = seed_number(seed)
    if getattr(data, "blank", None) is None:
        return data
    arrays = NetworkArrays(network, data)
    rows, patterns, inverse, _ = row_patterns(data)
    if method == "sample":  # every row draws its own completion
        patterns, inverse = patterns[inverse], np.arange(len(rows))
    check_memory(2 * data.codes.nbytes + 2 * patterns.nbytes + 8 * CHUNK_UNIFORMS, f"imputing {len(rows):,} "
                 "incomplete rows",
                 hint="use fewer rows or columns")
    joint = arrays.completions_of(patterns, limit)
    exact = joint <= limit
    draws = np.where(exact, 0, samples * (patterns < 0).sum(axis=1)) + (method == "sample")
    rng = np.random.default_rng(seed)
    filled = np.empty(patterns.shape, dtype=data.codes.dtype)
    for chunk in chunks(draws):
        uniforms = rng.random(int(draws[chunk].sum()))
        starts = np.concatenate([[0], np.cumsum(draws[chunk])[:-1]]).astype(np.int64)
        out = np.empty((len(chunk), data.n_vars), dtype=data.codes.dtype)
        impute_patterns(patterns[chunk], method == "mode", exact[chunk], joint[chunk], starts, uniforms, samples,
                        *arrays.kernel_arguments(), out)
        filled[chunk] = out
    codes = np.array(data.codes)
    codes[rows] = filled[inverse]
    warnings = list(data.warnings)
    if not exact.all():
        approximate = int((~exact[inverse]).sum())
        how = (f"the most probable of {samples:,} likelihood-weighted samples, improved by iterated conditional "
               "modes: a local optimum, not always the most probable completion" if method == "mode" else
               f"one of {samples:,} likelihood-weighted samples drawn by weight: approximately a posterior draw")
        warnings.append(f"{approximate:,} of the {len(rows):,} incomplete rows have more than {limit:,} joint "
                        f"completions of their blank cells, so each was completed with {how}; raise "
                        f"{subject('limit')} to enumerate more rows exactly")
    return Dataset(codes, data.arities, data.names, data.states, warnings=warnings)


def chunks(draws):
    """Consecutive index ranges of patterns whose uniforms number at most :data:`CHUNK_UNIFORMS` (one pattern
    at least per range)."""
    start, total = 0, 0
    for p, d in enumerate(draws.tolist()):
        if p > start and total + d > CHUNK_UNIFORMS:
            yield np.arange(start, p)
            start, total = p, 0
        total += d
    if start < len(draws):
        yield np.arange(start, len(draws))
