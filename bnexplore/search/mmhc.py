"""TEMPORARY placeholder while issue 32's mmhc search is written (replaced by its helper)."""


def mmhc(scorer, *, max_indegree=None, knowledge=None, progress=None, time_limit=None, stop=None, control=None,
        **options):
    raise NotImplementedError("mmhc is being written")
