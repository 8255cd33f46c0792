"""Exact inference on discrete Bayesian networks: posterior marginals
``P(X | e)`` of any variables and the probability of the evidence ``P(e)``.

:class:`InferenceEngine` compiles a network once into a junction tree
(:mod:`bnexplore.junction`: min-fill / min-weight triangulation, Hugin
propagation in numba) and calibrates it to the prior, so that the tree holds
``P(C)`` in every clique ``C`` and ``P(S)`` in every separator. A query then
touches only the part of the tree it needs (Jensen & Nielsen 2007, "Bayesian
Networks and Decision Graphs", Section 4.5; Koller & Friedman 2009, Section
10.3.3.2): evidence is collected over the smallest subtree holding every
clique that contains an observed variable, and distributed from its top over
the smallest subtree that also holds a clique of every target. Cliques outside
that subtree are independent of the evidence given the subtree (d-separated
by a separator whose marginal did not change, or barren for the targets) and
are never read. Hard evidence restricts every loop to the cells that agree
with it; likelihood (soft) evidence multiplies a clique by a vector.

:func:`query` answers one question: it first drops the barren variables (not
ancestors of a target or of an observed variable; Shachter 1986), which
cannot change the answer, and compiles only what is left, so a query about a
few variables of a network too wide to compile whole is often answered.

Both also answer what-if questions, ``do={X: x}`` (Pearl 2009, "Causality",
Section 3.2: graph surgery and the truncated factorisation): each set variable
loses its parents and takes its state with probability 1, and the mutilated
network (:func:`mutilated_network`) is queried as usual, observations
included. :func:`query` mutilates before it prunes, so the ancestors of a set
variable drop out unless something else needs them; a compiled engine keeps
its tree and multiplies in the set variable's table with every parent row the
point mass, which is the same distribution.
"""

import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from .bif import Network
from .bif.network import check_network
from .errors import DataError, ResourceError
from .junction import check_size, junction_tree, multiply, normalise_segments, propagate
from .options import positive_number

MAX_CELLS = 2e8
"""Default limit on the cells of all clique tables of one engine (two float64
copies of them are kept: 3.2 GB at the limit)."""


@dataclass
class QueryResult:
    """Posterior marginals and the probability of the evidence.

    Attributes
    ----------
    posterior : dict
        ``{variable: {state: probability}}`` for every target.
    evidence_probability : float
        ``P(e)`` (with likelihood evidence, the likelihood-weighted sum).
    log_evidence_probability : float
        Its natural log (finite even where ``P(e)`` underflows).
    evidence : dict
        The hard evidence used, ``{variable: state}``.
    likelihood : dict
        The likelihood evidence used, ``{variable: [weights]}``.
    do : dict
        The interventions, ``{variable: state}``; with any, the posterior is
        ``P(X | e, do(...))`` and ``evidence_probability`` is ``P(e | do(...))``.
    stats : dict
        ``cliques_visited`` and ``cliques`` of the tree, ``pruned_variables``
        (barren variables dropped by :func:`query`).
    """

    posterior: dict
    evidence_probability: float
    log_evidence_probability: float
    evidence: dict = field(default_factory=dict)
    likelihood: dict = field(default_factory=dict)
    stats: dict = field(default_factory=dict)
    do: dict = field(default_factory=dict)

    def probabilities(self, variable):
        """Posterior of one target as a float array in state order."""
        return np.array(list(self.posterior[variable].values()))

    def to_json(self):
        """``{"posterior": {X: {state: p}}, "evidence_probability": p, ...}`` (JSON-ready)."""
        return {"posterior": {v: {s: float(p) for s, p in d.items()} for v, d in self.posterior.items()},
                "evidence_probability": float(self.evidence_probability),
                "log_evidence_probability": float(self.log_evidence_probability),
                "evidence": dict(self.evidence), "likelihood": {k: list(v) for k, v in self.likelihood.items()},
                "do": dict(self.do), "stats": dict(self.stats)}


class InferenceEngine:
    """A network compiled for many exact queries.

    Parameters
    ----------
    network : bnexplore.bif.Network
    max_cells : float
        Refuse (ResourceError) a junction tree whose clique tables would hold
        more cells than this in all; the size is estimated from the
        triangulation before any table is allocated.
    calibrate : bool
        Propagate once without evidence so that every query touches only the
        part of the tree it needs, and ``priors`` is known (default). False
        skips that propagation, and every query then propagates over the whole
        tree: the right choice for one query (:func:`query` uses it).

    Attributes
    ----------
    tree : bnexplore.junction.JunctionTree
        Cliques, separators, sizes and the triangulation heuristic used.
    priors : dict or None
        ``{variable: float array}``: the marginal of every variable without
        evidence (None when not calibrated).
    assigned : int64 array
        The clique each variable's CPT is multiplied into: the smallest one
        holding its family (so ``P(family | e)`` is read from it).

    Raises
    ------
    ResourceError
        If the tree would exceed ``max_cells``.

    Notes
    -----
    The engine keeps one set of work tables, reused by every query (so a
    query allocates nothing large); queries from several threads take turns.

    Examples
    --------
    >>> engine = InferenceEngine(read_bif("sample_data/networks/asia.bif.gz"))
    >>> engine.query(["lung"], {"smoke": "yes"}).posterior["lung"]["yes"]
    0.1
    """

    def __init__(self, network, max_cells=MAX_CELLS, calibrate=True):
        self.network = check_network(network, "InferenceEngine")
        self.names = list(network.names)
        self._index = {name: i for i, name in enumerate(self.names)}
        self.cards = network.arities.astype(np.int64)
        self.tree = junction_tree(network.parents, self.cards)
        check_size(self.tree, positive_number(max_cells, "max_cells", unit=" of cells"), f"network {network.name!r}")
        self._lock = threading.Lock()
        self._compile()
        self.calibrated = bool(calibrate)
        if calibrate:
            self._calibrate()
        else:
            self.prior = self.potentials()
            self.sep_prior = np.ones(int(self.sep_off[-1]))
            self._work = np.empty_like(self.prior)
            self._sep_work = np.empty_like(self.sep_prior)
            self._scratch = np.zeros(self._scratch_size)
            self.priors = None

    # -- compilation ------------------------------------------------------
    def _compile(self):
        tree, cards = self.tree, self.cards
        cliques = tree.cliques
        n_cl = len(cliques)
        self.parent = tree.parent
        self.children = [[] for _ in range(n_cl)]
        for c, p in enumerate(self.parent):
            if p >= 0:
                self.children[p].append(c)
        self.depth = np.zeros(n_cl, np.int64)
        order = [0]
        for c in order:
            for d in self.children[c]:
                self.depth[d] = self.depth[c] + 1
                order.append(d)
        self.bfs = order
        self.cl_ptr = np.zeros(n_cl + 1, np.int64)
        self.cl_ptr[1:] = np.cumsum([len(c) for c in cliques])
        self.cl_vars = np.array([v for c in cliques for v in c], np.int64)
        self.cl_str = np.concatenate([_strides(c, cards) for c in cliques]).astype(np.int64)
        sizes = np.array([int(np.prod(cards[list(c)])) for c in cliques], np.int64)
        self.cl_off = np.zeros(n_cl + 1, np.int64)
        self.cl_off[1:] = np.cumsum(sizes)
        self.var_cliques = [[] for _ in self.names]
        for c, members in enumerate(cliques):
            for v in members:
                self.var_cliques[v].append(c)
        self.home = np.array([min(cs, key=lambda c: sizes[c]) for cs in self.var_cliques], np.int64)
        net = self.network
        self.assigned = np.array([min((c for c in self.var_cliques[v] if set(net.parents[v]) <= set(cliques[c])),
                                      key=lambda c: sizes[c]) for v in range(len(self.names))], np.int64)
        # separators: edge c joins clique c and its parent
        self.sep_off = np.zeros(n_cl + 1, np.int64)
        sep_sizes = np.zeros(n_cl, np.int64)
        self.e_cptr = self.cl_ptr[:-1].copy()
        str_child = np.zeros(len(self.cl_vars), np.int64)
        self.e_pptr = np.zeros(n_cl, np.int64)
        str_parent = []
        at = 0
        for c in range(n_cl):
            p = self.parent[c]
            self.e_pptr[c] = at
            if p < 0:
                continue
            sep = sorted(set(cliques[c]) & set(cliques[p]))
            stride = dict(zip(sep, _strides(sep, cards)))
            sep_sizes[c] = int(np.prod(cards[sep])) if sep else 1
            str_child[self.cl_ptr[c]:self.cl_ptr[c + 1]] = [stride.get(v, 0) for v in cliques[c]]
            str_parent.append([stride.get(v, 0) for v in cliques[p]])
            self.e_pptr[c] = at
            at += len(cliques[p])
        self.e_str_child = str_child
        self.e_str_parent = np.array([s for row in str_parent for s in row], np.int64)
        self.sep_off[1:] = np.cumsum(sep_sizes)
        self.sep_size = sep_sizes
        self.e_child = np.arange(n_cl, dtype=np.int64)
        self.marg_off = (self.sep_off[-1] + np.concatenate([[0], np.cumsum(cards)[:-1]])).astype(np.int64)
        self._scratch_size = int(self.sep_off[-1] + cards.sum())

    def potentials(self, cpts=None):
        """Clique tables holding the product of the CPTs assigned to them (each CPT to the smallest
        clique holding its family, :attr:`assigned`), before any propagation.

        Parameters
        ----------
        cpts : list of arrays, optional
            Tables shaped like the network's (default: the network's own), so
            that EM can reuse one compiled tree for new parameters.

        Returns
        -------
        numpy.ndarray
            float64, the clique tables one after the other (clique ``c`` at
            ``cl_off[c]:cl_off[c + 1]``).
        """
        cards, net = self.cards, self.network
        cpts = net.cpts if cpts is None else cpts
        pot = np.ones(int(self.cl_off[-1]))
        fixed = np.full(len(self.names), -1, np.int64)
        for v in range(len(self.names)):
            family = list(net.parents[v]) + [v]
            c = self.assigned[v]
            a, b = self.cl_ptr[c], self.cl_ptr[c + 1]
            stride = dict(zip(family, _strides(family, cards)))
            rstr = np.array([stride.get(int(u), 0) for u in self.cl_vars[a:b]], np.int64)
            multiply(pot, pot, self.cl_off[c], self.cl_vars[a:b], self.cl_str[a:b], cards, fixed, rstr, 0,
                     np.ascontiguousarray(cpts[v], dtype=np.float64).reshape(-1))
        return pot

    def schedule(self):
        """The visits of one propagation over the whole tree without targets: collect to clique 0
        (deepest cliques first), then distribute from it, packed as :func:`bnexplore.junction.propagate`
        reads them (``vis_clique, vis_eptr, vis_edges, vis_dst, vis_mptr, vis_mvars, vis_collect``).

        Started from :meth:`potentials` with separators of ones, every clique
        then holds ``P(C, e)`` up to a constant (Jensen & Nielsen 2007, Section 4.5).
        """
        n_cl = len(self.tree.cliques)
        collect = [c for c in sorted(range(n_cl), key=lambda c: -self.depth[c]) if self.parent[c] >= 0]
        visits = [(c, [(c, self.parent[c])], [], True) for c in collect]
        return _packed(visits + self._distribute(set(range(n_cl)), 0, (), set()))

    def _calibrate(self):
        """One full collect and distribute without evidence: every clique and
        separator then holds its prior marginal (normalised)."""
        initial = self.potentials()
        n_cl = len(self.tree.cliques)
        collect = [c for c in sorted(range(n_cl), key=lambda c: -self.depth[c]) if self.parent[c] >= 0]
        visits = [(c, [(c, self.parent[c])], [], True) for c in collect]
        visits += self._distribute(set(range(n_cl)), 0, range(len(self.names)), set())
        sep_prior = np.ones(int(self.sep_off[-1]))
        self._work = np.empty_like(initial)
        self._sep_work = np.empty_like(sep_prior)
        self._scratch = np.zeros(self._scratch_size)
        live, scratch, status, _, _ = self._run(initial, sep_prior, np.full(len(self.names), -1), visits, [])
        if status:
            raise DataError(f"network {self.network.name!r} gives probability 0 to every configuration; check "
                            "its tables")
        for c in np.flatnonzero(live == 0):  # cliques no message reached (a tree of one clique)
            self._work[self.cl_off[c]:self.cl_off[c + 1]] = initial[self.cl_off[c]:self.cl_off[c + 1]]
        normalise_segments(self._work, self.cl_off)
        normalise_segments(self._sep_work, self.sep_off)
        self.prior, self._work = self._work, initial  # the initial tables' memory becomes the work space
        self.sep_prior = self._sep_work.copy()
        self.priors = {name: self._marginal(scratch, v) for v, name in enumerate(self.names)}

    # -- one query --------------------------------------------------------
    def _steiner(self, marked):
        """The smallest subtree holding every clique in ``marked``, and its top."""
        inside = set()
        for c in marked:
            while c >= 0 and c not in inside:
                inside.add(c)
                c = self.parent[c]
        top = 0
        while top not in marked:
            kids = [d for d in self.children[top] if d in inside]
            if len(kids) != 1:
                break
            inside.discard(top)
            top = kids[0]
        return inside, top

    def _distribute(self, region, top, targets, hard):
        """Visits of a breadth-first distribution from ``top`` over ``region``;
        each visit is ``(clique, [(edge, destination)], [target variables], collect?)``."""
        wanted = {}
        for v in targets:
            if v not in hard:
                wanted.setdefault(int(self.home[v]), []).append(int(v))
        visits, seen, queue = [], {top}, [top]
        for x in queue:
            out = []
            p = self.parent[x]
            if p >= 0 and p in region and p not in seen:
                out.append((x, p))
            for d in self.children[x]:
                if d in region and d not in seen:
                    out.append((d, d))
            for _, y in out:
                seen.add(y)
                queue.append(y)
            visits.append((x, out, wanted.get(x, []), False))
        return visits

    def _run(self, prior, sep_prior, fixed, visits, soft):
        """Run ``visits`` with the engine's work buffers (reused by every query: the
        caller holds :attr:`_lock`). Returns ``(live, scratch, status, logz, top)``."""
        n_cl = len(self.tree.cliques)
        work, sep_work, scratch = self._work, self._sep_work, self._scratch
        live = np.zeros(n_cl, np.uint8)
        sep_live = np.zeros(n_cl, np.uint8)
        vis_clique, vis_eptr, vis_edges, vis_dst, vis_mptr, vis_mvars, vis_collect = _packed(visits)
        soft_var = np.array([v for v, _ in soft], np.int64)
        soft_clique = self.home[soft_var] if soft else np.zeros(0, np.int64)
        soft_ptr = np.zeros(len(soft), np.int64)
        if soft:
            soft_ptr[1:] = np.cumsum([len(w) for _, w in soft])[:-1]
        soft_values = np.concatenate([w for _, w in soft]) if soft else np.zeros(0)
        status, logz, top = propagate(
            prior, work, live, self.cl_ptr, self.cl_vars, self.cl_str, self.cl_off, self.cards,
            np.asarray(fixed, np.int64), sep_prior, sep_work, sep_live, self.sep_off, self.sep_size, self.e_child,
            self.e_cptr, self.e_str_child, self.e_pptr, self.e_str_parent, soft_clique, soft_var, soft_ptr,
            soft_values, vis_clique, vis_eptr, vis_edges, vis_dst, vis_mptr, vis_mvars, vis_collect, self.marg_off,
            scratch)
        return live, scratch, status, logz, top

    def _marginal(self, scratch, v):
        values = scratch[self.marg_off[v]:self.marg_off[v] + self.cards[v]]
        return values / values.sum()

    def variable(self, name):
        """Index of a variable by name (DataError naming it when unknown)."""
        try:
            return self._index[name]
        except (KeyError, TypeError):
            raise DataError(f"network {self.network.name!r} has no variable {name!r}; its variables include "
                            f"{', '.join(self.names[:8])}{', ...' if len(self.names) > 8 else ''}") from None

    def _state(self, v, state):
        labels = self.network.states[v]
        if isinstance(state, str) and state in labels:
            return labels.index(state)
        raise DataError(f"{state!r} is not a state of {self.names[v]!r}; its states are {', '.join(labels)}")

    def _evidence(self, evidence, likelihood):
        fixed = np.full(len(self.names), -1, np.int64)
        hard = {}
        for name, state in (evidence or {}).items():
            v = self.variable(name)
            fixed[v] = self._state(v, state)
            hard[v] = state
        soft = []
        for name, weights in (likelihood or {}).items():
            v = self.variable(name)
            if v in hard:
                raise DataError(f"{name!r} has both hard and likelihood evidence; give one")
            soft.append((v, self._weights(v, weights)))
        return fixed, hard, soft

    def _weights(self, v, weights):
        labels = self.network.states[v]
        if isinstance(weights, dict):
            unknown = [s for s in weights if s not in labels]
            if unknown:
                raise DataError(f"{unknown[0]!r} is not a state of {self.names[v]!r}; its states are "
                                f"{', '.join(labels)}")
            weights = [weights.get(s, 0.0) for s in labels]
        try:
            w = np.asarray(weights, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            raise DataError(f"likelihood of {self.names[v]!r} must be numbers, got {weights!r}") from None
        if w.shape != (len(labels),) or not np.all(np.isfinite(w)) or w.min() < 0 or not w.max() > 0:
            raise DataError(f"likelihood of {self.names[v]!r} must be {len(labels)} numbers >= 0, not all 0 (one "
                            f"per state: {', '.join(labels)}); got {weights!r}")
        return w

    def query(self, targets=None, evidence=None, likelihood=None, do=None):
        """Posterior marginals of ``targets`` given the evidence, and P(e).

        Parameters
        ----------
        targets : str or list of str, optional
            Variables to report (default: all).
        evidence : dict, optional
            Hard evidence ``{variable: state name}``.
        likelihood : dict, optional
            Likelihood (virtual) evidence ``{variable: weights}``: weights one
            per state (a list in state order, or ``{state: weight}``), >= 0.
        do : dict, optional
            Interventions ``{variable: state name}`` (see the module
            docstring). Such a query propagates over the whole tree, from the
            network's tables with the set variables' replaced.

        Returns
        -------
        QueryResult

        Raises
        ------
        DataError
            On an unknown variable or state, a variable both set and observed
            in another state, or evidence of probability 0 (the message says which).
        """
        check_evidence(evidence, likelihood, do)
        targets = self._targets(targets)
        setting = do_states(self.network, do)
        fixed, hard, soft = self._evidence(*without_set(self.network, evidence, likelihood, setting))
        n_cl = len(self.tree.cliques)
        if not hard and not soft and not setting and self.calibrated:
            return self._answer(targets, {v: self.priors[self.names[v]] for v in targets}, 0.0, hard, soft,
                                visited=0)
        prior, sep_prior = self.prior, self.sep_prior
        if setting:
            prior, sep_prior = self.potentials(surgery_tables(self.network, setting)), np.ones(len(sep_prior))
        if self.calibrated and not setting:
            marked = {c for v in hard for c in self.var_cliques[v]} | {int(self.home[v]) for v, _ in soft}
            region, top = self._steiner(marked)
        else:  # the tables hold the CPTs, not the prior: every clique must send its message
            region, top = set(range(n_cl)), 0
        collect = sorted((c for c in region if c != top), key=lambda c: -self.depth[c])
        visits = [(c, [(c, self.parent[c])], [], True) for c in collect]
        wide, _ = self._steiner(region | {int(self.home[v]) for v in targets if v not in hard})
        visits += self._distribute(wide, top, targets, hard)
        with self._lock:
            _, scratch, status, logz, total = self._run(prior, sep_prior, fixed, visits, soft)
            if status or not total > 0:
                raise DataError(self._impossible(hard, soft, setting))
            marginals = {v: self._marginal(scratch, v) for v in targets if v not in hard}
        for v in targets:
            if v in hard:
                marginals[v] = np.eye(self.cards[v])[fixed[v]]
        answer = self._answer(targets, marginals, logz + math.log(total), hard, soft, visited=len(wide))
        answer.stats["cliques"] = n_cl
        answer.do = {self.names[v]: self.network.states[v][s] for v, s in setting.items()}
        return answer

    def _targets(self, targets):
        if targets is None:
            return list(range(len(self.names)))
        if isinstance(targets, str):
            targets = [targets]
        return [self.variable(t) for t in targets]

    def _answer(self, targets, marginals, log_pe, hard, soft, visited):
        states = self.network.states
        posterior = {self.names[v]: dict(zip(states[v], marginals[v].tolist())) for v in targets}
        return QueryResult(posterior, math.exp(log_pe), log_pe,
                           {self.names[v]: s for v, s in hard.items()},
                           {self.names[v]: w.tolist() for v, w in soft},
                           {"cliques_visited": visited, "cliques": len(self.tree.cliques)})

    def _impossible(self, hard, soft, setting=None):
        """The message for evidence of probability 0, naming a culprit when one item alone is impossible
        (the priors say so only without interventions)."""
        alone = self.priors is not None and not setting
        for v, state in hard.items() if alone else ():
            if self.priors[self.names[v]][self.network.states[v].index(state)] == 0:
                return (f"the evidence has probability 0: {self.names[v]}={state} is impossible in network "
                        f"{self.network.name!r} whatever else is observed; remove or change it")
        for v, w in soft if alone else ():
            if float(self.priors[self.names[v]] @ w) == 0:
                return (f"the evidence has probability 0: the likelihood on {self.names[v]} is 0 on every state it "
                        "can take; change it")
        items = [f"{self.names[v]}={s}" for v, s in hard.items()] + [f"likelihood on {self.names[v]}"
                                                                     for v, _ in soft]
        states = self.network.states
        under = (f" under do({', '.join(f'{self.names[v]}={states[v][s]}' for v, s in setting.items())})"
                 if setting else "")
        return (f"the evidence has probability 0 in network {self.network.name!r}{under}: no configuration agrees "
                f"with {', '.join(items)} together; remove or change one of them")


def _packed(visits):
    """Visits ``(clique, [(edge, destination)], [target variables], collect?)`` as the flat arrays
    :func:`bnexplore.junction.propagate` reads."""
    vis_clique = np.array([v[0] for v in visits], np.int64)
    vis_eptr = np.zeros(len(visits) + 1, np.int64)
    vis_eptr[1:] = np.cumsum([len(v[1]) for v in visits])
    vis_edges = np.array([e for v in visits for e, _ in v[1]], np.int64)
    vis_dst = np.array([d for v in visits for _, d in v[1]], np.int64)
    vis_mptr = np.zeros(len(visits) + 1, np.int64)
    vis_mptr[1:] = np.cumsum([len(v[2]) for v in visits])
    vis_mvars = np.array([m for v in visits for m in v[2]], np.int64)
    vis_collect = np.array([v[3] for v in visits], np.uint8)
    return vis_clique, vis_eptr, vis_edges, vis_dst, vis_mptr, vis_mvars, vis_collect


def _strides(variables, cards):
    """C-order strides (last variable fastest) of a table over ``variables``."""
    out = np.ones(len(variables), np.int64)
    for i in range(len(variables) - 2, -1, -1):
        out[i] = out[i + 1] * cards[variables[i + 1]]
    return out


def _no_variable(network, name):
    """The message for a name that is not a variable of ``network``."""
    return (f"network {network.name!r} has no variable {name!r}; its variables include "
            f"{', '.join(network.names[:8])}{', ...' if network.n_vars > 8 else ''}")


def do_states(network, do):
    """Interventions ``{variable: state name}`` checked against ``network``, as ``{index: state index}``.

    Raises
    ------
    DataError
        If ``do`` is not a dict, or names an unknown variable or state.
    """
    check_evidence(do=do)
    if do is None:
        return {}
    index = {name: i for i, name in enumerate(network.names)}
    setting = {}
    for name, state in do.items():
        if name not in index:
            raise DataError(_no_variable(network, name))
        v = index[name]
        labels = network.states[v]
        if not (isinstance(state, str) and state in labels):
            raise DataError(f"{state!r} is not a state of {name!r}; its states are {', '.join(labels)}")
        setting[v] = labels.index(state)
    return setting


def check_evidence(evidence=None, likelihood=None, do=None):
    """A DataError when ``evidence``, ``likelihood`` or ``do`` is given and not a dict keyed by variable.

    Read by every door that takes them (:func:`query`, :meth:`InferenceEngine.query`, :func:`do_states`
    under :func:`mutilated_network`, :func:`bnexplore.search.effect_range`), so a list of pairs is refused
    showing the dict form instead of being read as a variable named ``('a', 'x')``.

    Examples
    --------
    >>> try:
    ...     check_evidence(evidence=[("smoke", "yes")])
    ... except DataError as error:
    ...     print(error)
    evidence must be a dict keyed by variable, e.g. evidence={'smoke': 'yes'}, not a list
    """
    for keyword, value, example in (("evidence", evidence, "'yes'"), ("likelihood", likelihood, "[0.9, 0.1]"),
                                    ("do", do, "'yes'")):
        if value is not None and not isinstance(value, Mapping):
            raise DataError(f"{keyword} must be a dict keyed by variable, e.g. {keyword}={{'smoke': {example}}}, "
                            f"not a {type(value).__name__}")


def without_set(network, evidence, likelihood, setting):
    """The evidence and likelihood left once the variables set by ``do`` are taken out.

    Observing a set variable in the state it is set to says nothing more (it
    is dropped); observing it in another state, or giving it a likelihood,
    contradicts the intervention and is refused.

    Returns
    -------
    (dict, dict)
        ``evidence, likelihood`` (each possibly None, as given).

    Raises
    ------
    DataError
        Naming the variable both set and observed.
    """
    if not setting:
        return evidence, likelihood
    names = {network.names[v]: network.states[v][s] for v, s in setting.items()}
    for name, weights in (likelihood or {}).items():
        if name in names:
            raise DataError(f"{name!r} is set by do and also has likelihood evidence; give one")
    kept = {}
    for name, state in (evidence or {}).items():
        if name not in names:
            kept[name] = state
        elif state != names[name]:
            raise DataError(f"{name!r} is set by do to {names[name]!r} and observed as {state!r}; give one "
                            "state or drop one of them")
    return kept, likelihood


def surgery_tables(network, setting):
    """The network's CPTs with each set variable's replaced by its point mass on every parent row.

    Shaped like the originals, so a tree compiled for ``network`` holds them;
    the child no longer depends on its parents, which is the mutilated
    network's distribution (Pearl 2009, Section 3.2.3).
    """
    cpts = list(network.cpts)
    for v, s in setting.items():
        table = np.zeros(network.cpts[v].shape)
        table[..., s] = 1.0
        cpts[v] = table
    return cpts


def mutilated_network(network, do):
    """The network after graph surgery for ``do``: each set variable loses its parents
    and takes its state with probability 1 (Pearl 2009, "Causality", Section 3.2).

    Parameters
    ----------
    network : Network
    do : dict
        ``{variable: state name}``.

    Returns
    -------
    Network
        Same variables in the same order (the network itself when ``do`` is empty).

    Raises
    ------
    DataError
        On an unknown variable or state.

    Examples
    --------
    >>> from bnexplore import read_bif
    >>> asia = read_bif("sample_data/networks/asia.bif.gz")
    >>> cut = mutilated_network(asia, {"lung": "yes"})
    >>> cut.parents[cut.names.index("lung")], cut.cpts[cut.names.index("lung")].tolist()
    ([], [1.0, 0.0])
    """
    check_network(network, "mutilated_network")
    setting = do_states(network, do)
    if not setting:
        return network
    parents = [[] if v in setting else list(ps) for v, ps in enumerate(network.parents)]
    cpts = [np.eye(len(network.states[v]))[setting[v]] if v in setting else t for v, t in enumerate(network.cpts)]
    return Network(network.name, network.names, network.states, parents, cpts)


def ancestral_network(network, variables):
    """The sub-network of ``variables`` and all their ancestors.

    Every other variable is barren for a question about ``variables`` (it is
    not an ancestor of any of them): summing it out of the joint leaves the
    rest unchanged (Shachter 1986, "Evaluating influence diagrams"), so the
    sub-network gives the same posteriors and the same P(e).

    Parameters
    ----------
    network : Network
    variables : iterable of str

    Returns
    -------
    Network
        The kept variables in the original order (the network itself when
        nothing is barren).
    """
    index = {name: i for i, name in enumerate(network.names)}
    keep = set()
    stack = [index[v] for v in variables]
    while stack:
        v = stack.pop()
        if v not in keep:
            keep.add(v)
            stack.extend(network.parents[v])
    if len(keep) == network.n_vars:
        return network
    order = sorted(keep)
    new = {v: i for i, v in enumerate(order)}
    return Network(network.name, [network.names[v] for v in order], [network.states[v] for v in order],
                   [[new[p] for p in network.parents[v]] for v in order], [network.cpts[v] for v in order])


def query(network, targets=None, evidence=None, likelihood=None, do=None, max_cells=MAX_CELLS):
    """Posterior marginals and P(e) in one call, observations and interventions together.

    A network is compiled without the calibrating propagation (one
    propagation in all), which is what one question costs least with.

    Parameters
    ----------
    network : Network or InferenceEngine
        A network is first reduced to the ancestors of the targets and of the
        evidence variables (:func:`ancestral_network`), then compiled; an
        engine answers directly (reuse one for many queries).
    targets, evidence, likelihood
        As in :meth:`InferenceEngine.query` (targets default to all variables).
    do : dict, optional
        Interventions ``{variable: state name}``: the query is answered on
        :func:`mutilated_network` (before the pruning), so the posterior is
        ``P(X | e, do(...))``. A variable may be both set and observed only
        in the same state.
    max_cells : float
        As in :class:`InferenceEngine`.

    Returns
    -------
    QueryResult
        ``stats["pruned_variables"]`` counts the barren variables dropped.

    Examples
    --------
    >>> from bnexplore import query, read_bif
    >>> asia = read_bif("sample_data/networks/asia.bif.gz")
    >>> query(asia, ["lung"], {"smoke": "yes"}).posterior["lung"]
    {'yes': 0.1, 'no': 0.9}

    Setting ``lung`` does not change what it says about ``smoke``; observing it does:

    >>> round(query(asia, ["smoke"], do={"lung": "yes"}).posterior["smoke"]["yes"], 4)
    0.5
    >>> round(query(asia, ["smoke"], {"lung": "yes"}).posterior["smoke"]["yes"], 4)
    0.9091
    """
    if isinstance(network, InferenceEngine):
        return network.query(targets, evidence, likelihood, do)
    check_network(network, "query")
    check_evidence(evidence, likelihood, do)
    names = network.names if targets is None else [targets] if isinstance(targets, str) else list(targets)
    known = set(network.names)
    asked = list(names) + list(evidence or {}) + list(likelihood or {})
    for name in asked:
        if name not in known:
            raise DataError(_no_variable(network, name))
    setting = do_states(network, do)
    evidence, likelihood = without_set(network, evidence, likelihood, setting)
    asked = list(names) + list(evidence or {}) + list(likelihood or {})
    pruned = ancestral_network(mutilated_network(network, do), asked)
    try:
        engine = InferenceEngine(pruned, max_cells=max_cells, calibrate=False)
    except ResourceError as error:
        raise ResourceError(f"{error} ({pruned.n_vars} of {network.n_vars} variables are relevant to this "
                            "query)") from None
    answer = engine.query(targets, evidence, likelihood)
    answer.stats["pruned_variables"] = network.n_vars - pruned.n_vars
    answer.do = {network.names[v]: network.states[v][s] for v, s in setting.items()}
    return answer
