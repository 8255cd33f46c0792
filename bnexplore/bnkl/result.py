"""The result of a BNKL search: :class:`BNKLResult`, its JSON and its class networks read back from JSON."""

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from bnexplore.bif import Network
from bnexplore.bnkl.classes import plain_label
from bnexplore.bnkl.networks import network_details, network_loglik
from bnexplore.bnkl.path import rule_values
from bnexplore.data import Dataset, require_complete
from bnexplore.errors import BIFError, DataError, SearchError
from bnexplore.graphs import DAG
from bnexplore.result import Result
from bnexplore.scores.kl import KLStatistics


@dataclass
class BNKLResult:
    """A learned two-class KL network, its complexity path and its two CPT sets.

    Nodes are integers (positions in ``names``) everywhere except in
    :meth:`to_json`, which uses names.

    Attributes
    ----------
    names : list of str
        Variables, in column order.
    classes : list
        ``[class 0 label, class 1 label]``; class 0 is the reference whose
        conditionals R is measured against.
    class_counts : tuple of int
        Training rows of class 0 and class 1.
    class_column : str or None
        Name of the class column, when known.
    order : list of int
        The node order searched (IDE unless given): least differential first.
    pvalues : ndarray
        Marginal class-difference p-value of each node.
    tests : list of str
        Test behind each p-value: ``"welch-t"`` (numeric, before
        discretization) or ``"g-test"`` (categorical or coded).
    marginal_R : ndarray
        R of each node without parents, as the score counts it (sdnet
        convention: cells without class-0 rows skipped, so it can be negative).
    marginal_kl : ndarray
        Each node's marginal class difference as a true KL divergence
        (:func:`marginal_divergence`, never negative).
    path : list of dict
        The complexity path, by increasing ``df``: ``{"df", "R", "S",
        "parents"}`` with ``parents[v]`` the parent tuple of node v.
    selected : int
        Index of the network in ``path`` that ``select`` picked.
    select : str
        ``"ratio"``, ``"bic"`` or ``"aic"`` (see :func:`select_index`).
    dag : DAG
        The network at ``selected``.
    R, df, S : float, int, float
        Its statistic, complexity and score ``S = R / df``.
    node_R, node_df : ndarray
        Per-node ``R_i`` and ``df_i``.
    arc_kl : list of (int, int, float)
        KL edge contributions: for each arc u -> v, how much ``R_v`` drops
        when u is removed from v's parents.
    networks : tuple of Network
        Class-0 and class-1 networks (CPTs of Eq. 2, zeros reset to
        ``1 / (3 n)``).
    cut_points : dict of str to list of float
        Cut points of the discretized columns (learned on the training rows).
    encoder : Encoder or None
        The fitted encoder, to code new rows the same way.
    params, stats : dict
        Settings and search statistics (keys of ``bnexplore.result.STATS_KEYS``).
    data : Dataset
        The coded training rows (not in the JSON), kept for :meth:`at`.
    labels : ndarray
        Their 0 / 1 classes.
    """

    names: list
    classes: list
    class_counts: tuple
    class_column: object
    order: list
    pvalues: np.ndarray
    tests: list
    marginal_R: np.ndarray
    marginal_kl: np.ndarray
    path: list
    selected: int
    select: str
    dag: DAG
    R: float
    df: int
    S: float
    node_R: np.ndarray
    node_df: np.ndarray
    arc_kl: list
    networks: tuple
    cut_points: dict
    encoder: object
    params: dict
    stats: dict
    data: Dataset = field(repr=False)
    labels: np.ndarray = field(repr=False)

    def dag_at(self, index):
        """The DAG at path index ``index``."""
        self._check_index(index)
        return DAG.from_parents([list(ps) for ps in self.path[index]["parents"]], self.names)

    def at(self, index):
        """This result with path network ``index`` selected instead: its DAG,
        statistics, KL edge contributions and CPTs."""
        self._check_index(index)
        scorer = KLStatistics(self.data, self.labels)
        details = network_details(self.data, self.labels, self.path[index]["parents"], scorer)
        return dataclasses.replace(self, selected=int(index), **details)

    def _check_index(self, index):
        if not isinstance(index, (int, np.integer)) or not -len(self.path) <= index < len(self.path):
            raise SearchError(f"path index {index!r} is out of range; the path has {len(self.path)} networks "
                              f"(0..{len(self.path) - 1})")

    def coded(self, X):
        """Code a table of new rows with the training encoder (a Dataset is taken by column names)."""
        if isinstance(X, Dataset):
            require_complete(X, "a BNKL network's log-likelihood of rows")
            columns = X.indices(self.names)
            changed = [v for v, c in enumerate(columns) if X.arities[c] != self.data.arities[v]]
            if changed:
                name = self.names[changed[0]]
                raise DataError(f"column {name!r} has {X.arities[columns[changed[0]]]} states here but "
                                f"{self.data.arities[changed[0]]} in the training data; code both the same way")
            return X.codes[:, columns]
        if self.encoder is None:
            raise DataError("this network was learned from coded data (no encoder); pass a Dataset with its columns")
        if not isinstance(X, pd.DataFrame):
            raise DataError(f"expected a pandas DataFrame of new rows, got {type(X).__name__}")
        coded = self.encoder.transform(X)
        require_complete(coded, "a BNKL network's log-likelihood of rows")
        if coded.n_rows != len(X):
            raise DataError(f"the encoder dropped {len(X) - coded.n_rows} rows with missing values; "
                            f"drop or fill them before scoring rows")
        return coded.codes[:, coded.indices(self.names)]

    def log_likelihoods(self, X):
        """``(l0, l1)`` of each row under the two class networks, Algorithm 1 step 2.

        Parameters
        ----------
        X : pandas.DataFrame or Dataset
            New rows with the training columns (extra columns are ignored).

        Returns
        -------
        ndarray of float64, shape (n_rows, 2)
        """
        codes = self.coded(X)
        return np.column_stack([network_loglik(net, codes) for net in self.networks])

    def to_json(self):
        """A JSON-ready dict; nodes by name, the complexity path included."""
        names = self.names
        path = [{"df": int(point["df"]), "R": float(point["R"]), "S": float(point["S"]),
                 "arcs": [[names[u], names[v]] for v, ps in enumerate(point["parents"]) for u in ps]}
                for point in self.path]
        cpts = {net.name: [{"node": names[i], "parents": [names[p] for p in net.parents[i]], "table": t.tolist()}
                           for i, t in enumerate(net.cpts)]
                for net in self.networks}
        return {
            "algorithm": "bnkl",
            "names": list(names),
            "states": {name: list(labels) for name, labels in zip(names, self.networks[0].states)},
            "class_column": self.class_column,
            "classes": [plain_label(c) for c in self.classes],
            "class_counts": [int(c) for c in self.class_counts],
            "order": [names[v] for v in self.order],
            "pvalues": {names[v]: float(p) for v, p in enumerate(self.pvalues)},
            "tests": {names[v]: t for v, t in enumerate(self.tests)},
            "marginal_R": {names[v]: float(r) for v, r in enumerate(self.marginal_R)},
            "marginal_kl": {names[v]: float(d) for v, d in enumerate(self.marginal_kl)},
            "cut_points": {k: [float(c) for c in v] for k, v in self.cut_points.items()},
            "select": self.select,
            "selected": int(self.selected),
            "graph": self.dag.to_json(),
            "R": float(self.R),
            "df": int(self.df),
            "S": float(self.S),
            "node_R": {names[v]: float(r) for v, r in enumerate(self.node_R)},
            "node_df": {names[v]: int(d) for v, d in enumerate(self.node_df)},
            "arc_kl": [{"from": names[u], "to": names[v], "kl": float(kl)} for u, v, kl in self.arc_kl],
            "cpts": cpts,
            "path": path,
            "params": _json_params(self.params),
            "stats": dict(self.stats),
        }

    def to_result(self):
        """A :class:`bnexplore.result.Result`: algorithm ``"bnkl"``, score the value
        the selection rule maximised (``S`` for ``"ratio"``), score name
        ``"kl-ratio"``, ``"kl-bic"`` or ``"kl-aic"``; the rest of :meth:`to_json` in ``extra``."""
        extra = {k: v for k, v in self.to_json().items() if k not in ("algorithm", "graph", "params", "stats")}
        score = rule_values([self.df], [self.R], self.params["n_rows"], self.select)[0]
        return Result(graph=self.dag, score=float(score), score_name=f"kl-{self.select}", algorithm="bnkl",
                      params=_json_params(self.params), stats=dict(self.stats), extra=extra)


def class_networks_from_json(doc):
    """The class-0 and class-1 networks of a BNKL result from its JSON.

    Parameters
    ----------
    doc : dict
        :meth:`BNKLResult.to_json`, or the ``extra`` of its
        :meth:`~BNKLResult.to_result` (what the app keeps and re-imports).

    Returns
    -------
    tuple of Network
        Named ``class0`` and ``class1``, ready for :func:`bnexplore.write_bif`.

    Raises
    ------
    BIFError
        If the JSON lacks the state labels (files written before they were
        stored) or its tables do not fit the graph.
    """
    names = list(doc["names"])
    if "states" not in doc:
        raise BIFError("this BNKL result has no state labels (saved by an older version); learn it again to "
                       "export its class networks")
    states = [doc["states"][name] for name in names]
    position = {name: v for v, name in enumerate(names)}
    networks = []
    for label in ("class0", "class1"):
        families = {family["node"]: family for family in doc["cpts"][label]}
        parents = [[position[p] for p in families[name]["parents"]] for name in names]
        cpts = [families[name]["table"] for name in names]
        networks.append(Network(label, names, states, parents, cpts))
    return tuple(networks)


def _json_params(params):
    return {k: (v if isinstance(v, (str, int, float, bool, type(None))) else repr(v)) for k, v in params.items()}
