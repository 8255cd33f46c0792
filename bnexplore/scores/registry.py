"""The table of local scores: every fact about a score, in one place.

Each score a :class:`~bnexplore.scores.Scorer` computes has one
:class:`ScoreSpec` in :data:`SCORES`: its name (as every door spells it), label,
one-line description, hyperparameters with their defaults and ranges, whether
it is score-equivalent, the weight ``w`` of its penalty when it is a penalised
log-likelihood ``LL - w q (r - 1)``, and the code its kernel branches on
(:mod:`bnexplore.scores.kernels`). The command line's ``--score`` choices, the
app's score picker and labels, the searches that need score equivalence (RPDAG,
the ILP's symmetry cuts) and the pruning rules of
:func:`bnexplore.parents.candidate_parent_sets` all read this table (like
bnlearn's ``R/globals.R``). Adding a score is a code and an entry here, its
branch in ``kernels._score_from_counts`` and its twin in ``tests/naive.py``.
This module imports no kernel, so reading the table is cheap.

Examples
--------
>>> from bnexplore.scores import SCORES
>>> SCORES["bdeu"].label, [h.name for h in SCORES["bdeu"].hyperparameters]
('BDeu', ['ess'])
>>> SCORES["bic"].equivalent, SCORES["k2"].equivalent
(True, False)
>>> SCORES["aic"].penalty_weight(1000), SCORES["ll"].penalty_weight(1000), SCORES["bdeu"].penalty_weight(1000)
(1.0, 0.0, None)
>>> SCORES["bdeu"].settings_text({"ess": 2})
'BDeu(2)'
"""

import math
from dataclasses import dataclass

from ..errors import OptionError, ScoreError
from ..options import positive_number

BDEU, K2, BIC, AIC, LL = 0, 1, 2, 3, 4
"""Integer codes of the local scores, as the kernels of :mod:`bnexplore.scores.kernels` branch on them
(here, so that reading the table loads no kernel: the command line builds its flags from it)."""

MAX_ESS = 1e6
"""Largest BDeu equivalent sample size accepted. The score sums differences of
``lgamma`` values near ``lgamma(ess)``, which lose digits as ``ess`` grows: on
asia (5,000 rows) the difference of two local scores is right to 1e-9 at 1e6, to
1e-5 at 1e10, of random sign at 1e12, and every score is 0 (null) at 1e300."""

MIN_ESS = 1e-6
"""Smallest BDeu equivalent sample size accepted. BDeu's prior count of a cell is ``ess / (q r)``; near
the smallest floats it becomes 0 and every score -inf (``ess = 5e-324``), long before that the learned
network no longer depends on the data so much as on the tiny prior (Silander, Kontkanen & Myllymaki 2007,
"On sensitivity of the MAP Bayesian network structure to the equivalent sample size parameter"). A
millionth of a row keeps every prior count a normal float for any table a search can count, far below the
values people use (0.1 to 100)."""


@dataclass(frozen=True)
class Hyperparameter:
    """A number a score takes besides the data (BDeu's equivalent sample size).

    Attributes
    ----------
    name : str
        Keyword of :class:`~bnexplore.scores.Scorer` and of every door (``ess``, ``--ess``).
    label : str
        What it is called in words ("equivalent sample size (ESS)").
    default : float
    low, high : float
        The range a user may set: ``low <= value <= high`` (:meth:`check`);
        the app's widget offers ``[low_widget, high_widget]``.
    low_widget, high_widget : float
        The range the app's widget offers (a picker needs finite, practical ends).
    help : str
        One line for a flag's help or a widget's tooltip.
    """

    name: str
    label: str
    default: float
    low: float
    high: float
    low_widget: float
    high_widget: float
    help: str

    def check(self, value, error=OptionError):
        """``float(value)`` when it is a number in ``[low, high]``, else ``error`` naming the option as the door
        in use names it (``ess``, ``--ess``) and the range.

        Examples
        --------
        >>> ESS.check(2)
        2.0
        >>> ESS.check(0)
        Traceback (most recent call last):
        ...
        bnexplore.errors.OptionError: ess must be a positive number (the equivalent sample size) at least 1e-06 and at most 1,000,000, got 0
        """
        return positive_number(value, self.name, low=self.low, high=self.high, unit=f" (the {self.unit})",
                               error=error)

    @property
    def unit(self):
        """The label without its abbreviation, as messages put it after "number": "equivalent sample size"."""
        return self.label.split(" (")[0]


@dataclass(frozen=True)
class ScoreSpec:
    """One local score.

    Attributes
    ----------
    name : str
        Its name in every door (``score="bdeu"``, ``--score bdeu``).
    label : str
        Short label in results and pickers ("BDeu").
    description : str
        One line: what it is.
    code : int
        The code its kernel branches on (:data:`BDEU`, ...).
    equivalent : bool
        Score-equivalent: Markov-equivalent DAGs (same skeleton and
        v-structures, e.g. ``a -> b`` and ``b -> a``) always score the same.
        Searches over equivalence classes (RPDAG) need it, and the ILP adds
        symmetry cuts with it.
    penalty : float, "log(N)/2" or None
        The weight ``w`` when the score is ``LL - w q (r - 1)`` (a constant, or
        ``"log(N)/2"`` for BIC); None for a score of another form (the
        Bayesian Dirichlet scores). See :meth:`penalty_weight`.
    dirichlet_bound : bool
        Every parent configuration that occurs in the data adds at most
        ``-log r`` to the score (a Bayesian Dirichlet score with the same prior
        on every state of a configuration: BDeu and K2; Cussens & Bartlett
        2012), so the "bdeu" pruning rule applies.
    hyperparameters : tuple of Hyperparameter
    """

    name: str
    label: str
    description: str
    code: int
    equivalent: bool
    penalty: object = None
    dirichlet_bound: bool = False
    hyperparameters: tuple = ()

    def penalty_weight(self, n_rows):
        """The weight ``w`` of the penalty ``w q (r - 1)``, or None for a score of another form.

        The log-likelihood is the penalised form with ``w = 0``: the bounds of
        the penalty and entropy pruning rules hold for it but never remove a
        set, so :attr:`pruning_rules` leaves them out; the parent-set
        explorers' BIC* (Scanagatta et al. 2015, Eq. 1) is exact for it.

        Parameters
        ----------
        n_rows : int or float
            The sample size ``N`` (the total weight of weighted data).

        Returns
        -------
        float or None
        """
        if self.penalty is None:
            return None
        if self.penalty == "log(N)/2":
            return 0.5 * math.log(n_rows)
        return float(self.penalty)

    @property
    def pruning_rules(self):
        """The rules of :data:`bnexplore.parents.pruning.RULES` that can remove a set under this score."""
        penalised = self.penalty is not None and self.penalty != 0
        return ("subset",) + ("penalty", "entropy") * penalised + ("bdeu",) * self.dirichlet_bound

    def settings_text(self, params):
        """The score and its hyperparameters in a few characters: "BDeu(1)", "BIC".

        Parameters
        ----------
        params : dict
            Hyperparameter values by name (a result's ``params``); missing ones are left out.
        """
        values = [f"{float(params[h.name]):g}" for h in self.hyperparameters if params.get(h.name) is not None]
        return f"{self.label}({', '.join(values)})" if values else self.label


ESS = Hyperparameter(
    "ess", "equivalent sample size (ESS)", 1.0, MIN_ESS, MAX_ESS, 0.01, 1000.0,
    "How many imaginary rows the uniform prior is worth. Larger ESS lets more arcs in; 1 is the usual choice.")

SCORES = {spec.name: spec for spec in (
    ScoreSpec("bdeu", "BDeu", "Bayesian, uniform prior; its strength is the equivalent sample size (ESS)",
              BDEU, equivalent=True, dirichlet_bound=True, hyperparameters=(ESS,)),
    ScoreSpec("k2", "K2", "Bayesian, uniform Dirichlet(1) prior on every table; not score-equivalent",
              K2, equivalent=False, dirichlet_bound=True),
    ScoreSpec("bic", "BIC", "log-likelihood minus ½·log(N) per free parameter",
              BIC, equivalent=True, penalty="log(N)/2"),
    ScoreSpec("aic", "AIC", "log-likelihood minus 1 per free parameter",
              AIC, equivalent=True, penalty=1.0),
    ScoreSpec("ll", "LL", "log-likelihood alone: every added parent raises it, so it prefers the densest network",
              LL, equivalent=True, penalty=0.0),
)}
"""The scores by name, in the order doors list them."""


def score_spec(name):
    """The :class:`ScoreSpec` of a score name (any case).

    Raises
    ------
    ScoreError
        Naming the unknown score and the known ones.
    """
    spec = SCORES.get(str(name).lower())
    if spec is None:
        raise ScoreError(f"unknown score {name!r}: choose one of {', '.join(SCORES)}")
    return spec


def score_equivalent(name):
    """True when the score of this name is score-equivalent (False for an unknown name)."""
    spec = SCORES.get(name)
    return spec is not None and spec.equivalent


def equivalent_names():
    """The names of the score-equivalent scores, for messages ("bdeu, bic, aic, ll")."""
    return tuple(name for name, spec in SCORES.items() if spec.equivalent)


def penalty_weight(score_name, n_rows):
    """``w`` of the penalty ``w q (r - 1)`` of the score ``score_name`` on ``n_rows`` rows; None when it has none.

    Examples
    --------
    >>> round(penalty_weight("bic", 100), 4)
    2.3026
    >>> penalty_weight("ll", 100), penalty_weight("k2", 100)
    (0.0, None)
    """
    return score_spec(score_name).penalty_weight(n_rows)
