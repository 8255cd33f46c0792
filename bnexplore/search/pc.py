"""TEMPORARY placeholder while issue 32's pc search is written (replaced by its helper)."""


def pc_stable(scorer, *, max_indegree=None, knowledge=None, progress=None, time_limit=None, stop=None, control=None,
        **options):
    raise NotImplementedError("pc is being written")
