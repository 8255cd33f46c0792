"""TEMPORARY placeholder while issue 32's ges search is written (replaced by its helper)."""


def ges(scorer, *, max_indegree=None, knowledge=None, progress=None, time_limit=None, stop=None, control=None,
        **options):
    raise NotImplementedError("ges is being written")
