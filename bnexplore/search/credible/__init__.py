"""Every network within a Bayes factor of the optimum, grouped and averaged.

Liao, Sharma, Cussens & van Beek (2019), "Finding all Bayesian network
structures within a factor of optimal", AAAI: the *credible set* for a Bayes
factor ``BF`` is every DAG ``G`` with ``score(G) >= OPT - epsilon``,
``epsilon = log(BF)`` (Eq. 3; natural-log scores, higher is better). The paper
collects them with GOBNILP; here they are enumerated exactly, each once:

1. candidate parent sets pruned with the epsilon-relaxed rules
   (:func:`bnexplore.parents.pruning.candidate_parent_sets`), which keep the
   parent sets of every credible DAG;
2. ``B(S)``, the best score of a DAG over every subset ``S`` (Silander &
   Myllymaki 2006; :mod:`bnexplore.search.subsets`), and ``OPT = B(V)``;
3. a depth-first search over canonical constructions bounded by ``B``, which
   emits every credible DAG exactly once (:mod:`~bnexplore.search.credible.dp`),
   or beyond the DP's reach branch and cut on SCIP
   (:func:`bnexplore.search.ilp.enumerate_credible`);
4. grouping into Markov equivalence classes (same skeleton and v-structures;
   Verma & Pearl 1990) and into RPDAG classes (same skeleton and head-to-head
   patterns; Acid & de Campos 2003, Proposition 4), and model averaging with
   weights ``exp(score - OPT)`` normalised over the set
   (:mod:`~bnexplore.search.credible.sets`);
5. what an intervention does over the set's fitted DAGs: the range of a
   do-query's answer (:mod:`~bnexplore.search.credible.effects`).

A DAG is taken as credible when its score is at least
``OPT - epsilon - tolerance(OPT)`` (:func:`bnexplore.parents.pruning.tolerance`):
sums of the same local scores in different orders differ in the last bits,
and with ``epsilon = 0`` every DAG equivalent to an optimal one must still be
found. :mod:`~bnexplore.search.credible.solve` puts the steps together.
"""

from ..kbest import DEFAULT_LIMIT, enumeration_memory
from .dp import collect, enumerate_table
from .effects import EffectRange, effect_range, fitted_networks
from .sets import CredibleClass, CredibleSet
from .solve import ILP_FIRST_SHARE, LIMITED_KEPT, LIMITED_SETS, credible_set, ilp_first_budget

__all__ = ["DEFAULT_LIMIT", "ILP_FIRST_SHARE", "LIMITED_KEPT", "LIMITED_SETS", "CredibleClass", "CredibleSet",
           "EffectRange", "collect", "credible_set", "effect_range", "enumerate_table", "enumeration_memory",
           "fitted_networks", "ilp_first_budget"]
