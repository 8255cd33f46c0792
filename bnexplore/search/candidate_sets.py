"""The candidate parent sets an exact search runs over: given ones checked, or new ones built.

The subset DP, the credible set and the ILP all search over candidate parent
sets (:class:`bnexplore.parents.ParentSets`); :func:`prepare_parent_sets`
makes sure those given fit the scorer, the margin and the knowledge, or
builds them (:func:`bnexplore.parents.pruning.candidate_parent_sets`).
"""

from ..errors import SearchError
from ..parents import ParentSets
from ..parents.pruning import RULES, candidate_parent_sets
from .subsets import check_size

def prepare_parent_sets(scorer, parent_sets, max_indegree, epsilon, control, rules=RULES, knowledge=None):
    """The given candidate sets (checked, cut to ``max_indegree``) or new ones pruned for ``epsilon``.

    Given sets must come from the scorer's variables and score and, when
    their ``stats`` say how they were pruned, be complete and pruned for at
    least ``epsilon`` (sets kept for a larger margin are a superset of those
    a smaller one needs). With ``knowledge`` new sets are built under it
    (:func:`candidate_parent_sets`); given ones must have been built under the
    same knowledge, or scored without pruning (then filtered): filtering
    pruned sets could lose the best DAG honouring it (DESIGN.md, "Knowledge").
    """
    if parent_sets is None:
        check_size(scorer.n_vars)
        return candidate_parent_sets(scorer, epsilon=epsilon, max_indegree=max_indegree, rules=rules,
                                     knowledge=knowledge, control=control)
    if not isinstance(parent_sets, ParentSets):
        raise SearchError(f"parent_sets must be a ParentSets, got {type(parent_sets).__name__}")
    if list(parent_sets.names) != list(scorer.names):
        raise SearchError("parent_sets were built for other variables than the scorer's data")
    if parent_sets.score_name != scorer.score_name:
        raise SearchError(f"parent_sets hold {parent_sets.score_name} scores but the scorer computes "
                          f"{scorer.score_name}")
    pruned_for = parent_sets.stats.get("epsilon", epsilon)
    if pruned_for < epsilon:
        raise SearchError(f"the candidate parent sets were pruned for epsilon={pruned_for:g}, less than the "
                          f"{epsilon:g} needed: rebuild them for this Bayes factor")
    if parent_sets.stats.get("complete") is False:
        raise SearchError("the candidate parent sets are incomplete (their computation was stopped): rebuild them")
    if knowledge and parent_sets.stats.get("knowledge") != knowledge.to_json():
        if "knowledge" in parent_sets.stats or parent_sets.stats.get("rules") != []:
            raise SearchError("the candidate parent sets were not built under this knowledge: rebuild them with "
                              "candidate_parent_sets(..., knowledge=...), or leave parent_sets out")
        parent_sets = knowledge.bind(scorer, max_indegree).filter(parent_sets)
    if max_indegree is None:
        return parent_sets
    kept = [[(ps, s) for ps, s in zip(parent_sets.sets(v), parent_sets.scores(v)) if len(ps) <= max_indegree]
            for v in range(parent_sets.n_vars)]
    return ParentSets(parent_sets.names, kept, parent_sets.score_name, parent_sets.stats)
