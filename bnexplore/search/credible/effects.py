"""What an intervention does across a credible set: the range of a do-query's answer.

One network answers ``P(target | e, do(X = x))`` by graph surgery
(:func:`bnexplore.inference.query`, Pearl 2009, Section 3.2). The data seldom
single out one network: every DAG of a credible set (Liao et al. 2019) fits
them nearly as well, and the DAGs of one Markov equivalence class fit them
exactly as well with a score-equivalent score, yet can disagree on what an
intervention does (observing cannot tell them apart, setting can). Here each
credible DAG is fitted to the data and asked the same do-query; the answer's
minimum, maximum and model-averaged mean (weights ``exp(score - OPT)``, the
Bayes factors against the optimum, normalised) are reported per state of the
target, over the whole set or over one equivalence class.

A fitted table depends only on its family, so each family's table is fitted
once and shared by every DAG holding it (:func:`fitted_networks`).
"""

from dataclasses import dataclass

import numpy as np

from ...bif.fit import checked_ess, family_layout, fitted_network, observed_counts, posterior_table
from ...data import check_dataset
from ...errors import DataError, SearchError, subject
from ...inference import MAX_CELLS, check_evidence, query
from ..subsets import mask_to_parents
from .sets import CredibleSet
from .solve import credible_set


@dataclass
class EffectRange:
    """The answers of one query over several credible DAGs.

    Attributes
    ----------
    target : str
    states : list of str
        The target's states, the columns of ``probabilities``.
    members : int array
        Indices in the credible set of the DAGs asked.
    probabilities : (k, r) float array
        ``P(target = state | e, do(...))`` in DAG ``members[i]``.
    weights : float array
        Their model-averaging weights, normalised over ``members``.
    do, evidence : dict
        The query.
    """

    target: str
    states: list
    members: np.ndarray
    probabilities: np.ndarray
    weights: np.ndarray
    do: dict
    evidence: dict

    @property
    def minimum(self):
        """Smallest answer per state (float array)."""
        return self.probabilities.min(axis=0)

    @property
    def maximum(self):
        """Largest answer per state (float array)."""
        return self.probabilities.max(axis=0)

    @property
    def mean(self):
        """Bayes-factor-weighted mean answer per state (float array)."""
        return self.weights @ self.probabilities

    def to_json(self):
        """``{"target", "states", "minimum", "maximum", "mean", "members", "do", "evidence"}`` (JSON-ready)."""
        return {"target": self.target, "states": list(self.states), "minimum": self.minimum.tolist(),
                "maximum": self.maximum.tolist(), "mean": self.mean.tolist(), "members": self.members.tolist(),
                "do": dict(self.do), "evidence": dict(self.evidence)}


def fitted_networks(credible, data, ess=1.0, members=None):
    """The credible DAGs fitted to ``data`` (BDeu posterior mean), each family's table fitted once.

    Parameters
    ----------
    credible : CredibleSet
    data : bnexplore.data.Dataset
        Complete data holding every variable of the set.
    ess : float
        BDeu equivalent sample size of the tables (0: maximum likelihood).
    members : iterable of int, optional
        Indices of the DAGs to fit (default: all).

    Returns
    -------
    dict
        ``{index: Network}``, each as :func:`bnexplore.bif.fit_network` fits it.

    Examples
    --------
    >>> from bnexplore import credible_set, read_csv
    >>> data = read_csv("sample_data/asia.csv")
    >>> nets = fitted_networks(credible_set(data, bf=20), data)
    >>> len(nets), nets[0].names[:3]
    (9, ['asia', 'tub', 'smoke'])
    """
    data = check_dataset(data)
    ess = checked_ess(ess)
    if getattr(data, "blank", None) is not None:
        raise DataError("effect_range fits every credible DAG by counting and the data has blank cells; load "
                        "the data with missing='drop'")
    members = [int(i) for i in (range(len(credible)) if members is None else members)]
    if not members:
        return {}
    columns, _, arities = family_layout(credible.dag(members[0]), data)
    codes = np.asarray(data.codes)[:, columns]
    weights = getattr(data, "weights", None)
    states = [data.states[c] for c in columns]
    tables, out = {}, {}
    for i in members:
        parents = [mask_to_parents(m, credible.n_vars) for m in credible.parent_masks[i]]
        counts, cpts = [], []
        for v, mask in enumerate(credible.parent_masks[i]):
            key = (v, int(mask))
            if key not in tables:
                n = observed_counts(codes, weights, v, parents[v], arities)
                tables[key] = (n, posterior_table(n, ess))
            counts.append(tables[key][0])
            cpts.append(tables[key][1])
        network = fitted_network(credible.names, states, parents, counts, ess, "bdeu", codes.shape[0], tables=cpts)
        network.name = f"credible DAG {i}"
        out[i] = network
    return out


def effect_range(source, target, do, evidence=None, data=None, ess=1.0, bf=20, equivalence_class=None,
                 networks=None, max_cells=MAX_CELLS):
    """Minimum, maximum and Bayes-factor-weighted mean of ``P(target | evidence, do)`` over credible DAGs.

    Parameters
    ----------
    source : CredibleSet or Dataset
        A credible set (then ``data`` is the data its DAGs are fitted to), or
        the data itself (its credible set for ``bf`` is found first, BIC).
    target : str
    do : dict
        Interventions ``{variable: state}`` (as :func:`bnexplore.inference.query`).
    evidence : dict, optional
        Observations ``{variable: state}`` in the same query.
    data : Dataset, optional
        Required with a credible set.
    ess : float
        BDeu equivalent sample size of the fitted tables.
    bf : float
        Bayes factor of the credible set found when ``source`` is data.
    equivalence_class : int, optional
        Only the members of this Markov equivalence class (its ``rank``, 1
        for the best class): where a do-query varies while an observation cannot.
    networks : dict, optional
        ``{index: Network}`` from :func:`fitted_networks` to reuse (several
        queries on one set); DAGs missing from it are fitted and added.
    max_cells : float
        As in :func:`bnexplore.inference.query`.

    Returns
    -------
    EffectRange

    Raises
    ------
    SearchError
        If the set is empty or ``equivalence_class`` is not one of its classes.
    DataError
        On an unknown variable or state, a conflict between ``do`` and
        ``evidence``, or data without a column of the set.

    Examples
    --------
    >>> from bnexplore import credible_set, read_csv
    >>> data = read_csv("sample_data/asia.csv")
    >>> cs = credible_set(data, bf=20)
    >>> answer = effect_range(cs, "dysp", {"bronc": "yes"}, data=data)
    >>> bool(answer.minimum[0] <= answer.mean[0] <= answer.maximum[0])
    True
    """
    check_evidence(evidence=evidence, do=do)  # before a credible set is found
    if isinstance(source, CredibleSet):
        if data is None:
            raise DataError("effect_range needs data= with a credible set: the data its DAGs are fitted to")
        credible = source
    else:
        credible, data = credible_set(source, bf=bf), source
    if not len(credible):
        raise SearchError("the credible set is empty: the search stopped before the optimum was found")
    _check_names(credible.names, target, do, evidence)
    if equivalence_class is None:
        members = np.arange(len(credible))
    else:
        ranks = len(credible.classes)
        if isinstance(equivalence_class, bool) or not isinstance(equivalence_class, (int, np.integer)) \
                or not 1 <= equivalence_class <= ranks:
            raise SearchError(f"{subject('equivalence_class')} must be a class rank from 1 to {ranks}, got "
                              f"{equivalence_class!r}")
        members = np.asarray(credible.classes[int(equivalence_class) - 1].members)
    networks = {} if networks is None else networks
    missing = [int(i) for i in members if int(i) not in networks]
    if missing:
        networks.update(fitted_networks(credible, data, ess, missing))
    answers = [query(networks[int(i)], [target], evidence, do=do, max_cells=max_cells) for i in members]
    states = list(answers[0].posterior[target])
    probabilities = np.array([[a.posterior[target][s] for s in states] for a in answers])
    weights = credible.weights[members]
    return EffectRange(target, states, members, probabilities, weights / weights.sum(), dict(do or {}),
                       dict(evidence or {}))


def _check_names(names, target, do, evidence):
    """A DataError naming the first of ``target``, ``do`` and ``evidence``'s variables that is not in ``names``."""
    asked = [("target", target, target)] + [("do", name, name) for name in do or ()] + [
        ("evidence", name, name) for name in evidence or ()]
    for keyword, name, key in asked:
        if name not in names:
            shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
            where = subject(keyword, name) if keyword == "target" else subject(keyword, key=key)
            raise DataError(f"{where}: {name!r} is not a variable of the credible set (its variables: {shown})")

