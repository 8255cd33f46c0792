"""Parent-set identification on a Dask cluster.

Exploring the candidate parent sets of one variable does not depend on any
other variable (Scanagatta et al. 2015, Section 3.2: "the procedure is
repeated for every variable and can be easily parallelized"), so the
variables are cut into chunks and each chunk is one Dask task:

- ``workers > 1`` starts a ``LocalCluster`` on this machine (worker
  processes, loopback only, no dashboard) and closes it afterwards;
  ``scheduler="tcp://host:port"`` uses an existing cluster instead.
- The data (codes, arities, names, score settings) is shipped once
  (``scatter``, to every worker); each worker builds its scorer once.
- Finished chunks are gathered as they complete, so a worker lost later
  cannot lose them; Dask reruns the tasks of a lost worker, and a chunk
  whose task still fails, or whose finished result was lost with its worker
  before it was fetched, is resubmitted (up to :data:`RESUBMITS` times).

Worker processes are spawned: a script that starts a local cluster must
guard its entry point with ``if __name__ == "__main__":``.

With ``max_evaluations`` budgets the result equals the single-process
:func:`bnexplore.parents.explore.explore_parent_sets` exactly; with time
budgets it depends on each worker's speed, as any time budget does.

Dask is imported here only, so the rest of bnexplore works without it.
"""

import logging
import math
import uuid
import warnings
from contextlib import contextmanager

import numba

from .compiling import search_clock
from .control import Control
from .data import Dataset, require_complete, require_unweighted
from .errors import ResourceError
from .parents.candidates import pack_items
from .parents.explore import (ExploreSettings, assemble, check_budget, explore_variable, score_weight,
                              singleton_entropies, variable_list)
from .scores import Scorer

RESUBMITS = 3
"""Times a chunk whose task failed is submitted again before giving up."""

POLL_SECONDS = 0.25
"""Longest wait for a chunk before the stop flag is checked again."""

CONNECT_SECONDS = 10
"""How long to try reaching a given scheduler."""

_WORKER_STATE = {}
"""In each worker process: the scorer and entropies of the data shipped last."""


def load_dask():
    """The ``dask.distributed`` module, imported here: Dask is an optional extra and
    heavy, so only a distributed run loads it.

    Raises
    ------
    ResourceError
        When Dask is not installed, saying how to install it.
    """
    try:
        from dask import distributed  # optional extra, heavy: loaded by a distributed run only
    except ImportError:
        raise ResourceError("distributed parent-set search needs Dask: pip install 'dask[distributed]'") from None
    return distributed


def _worker_scorer(data):
    """The worker's scorer for ``data`` (built on the first chunk, then reused)."""
    if _WORKER_STATE.get("token") != data["token"]:
        dataset = Dataset.from_codes(data["codes"], data["arities"], data["names"])
        scorer = Scorer(dataset, data["score"], data["ess"], cache=False)
        entropies = singleton_entropies(scorer) if data["entropies"] else None
        _WORKER_STATE.clear()
        _WORKER_STATE.update(token=data["token"], scorer=scorer, entropies=entropies)
    return _WORKER_STATE["scorer"], _WORKER_STATE["entropies"]


def explore_chunk(variables, data, settings):
    """Dask task: explore ``variables``; returns ``[(v, items, stats)]``.

    Numba runs one thread per task: the cluster's processes are the
    parallelism.
    """
    numba.set_num_threads(1)
    scorer, entropies = _worker_scorer(data)
    control = Control()
    return [(v, *explore_variable(scorer, v, settings, control, entropies, data["knowledge"])) for v in variables]


def _payload(scorer, settings, bound=None):
    return {"token": uuid.uuid4().hex, "codes": scorer.data.codes, "arities": scorer.arities,
            "names": scorer.names, "score": scorer.score_name, "ess": scorer.ess,
            "entropies": settings.method == "independence" and score_weight(scorer) is not None,
            "knowledge": bound}


@contextmanager
def dask_client(distributed, workers, scheduler):
    """A Dask client on ``scheduler``, or on a new local cluster of ``workers`` processes.

    Parameters
    ----------
    distributed : module
        ``dask.distributed`` (:func:`load_dask`).
    workers : int
        Processes of the local cluster (ignored with a scheduler).
    scheduler : str or None
        Address of a running scheduler; None starts a local cluster.

    Raises
    ------
    ResourceError
        When the scheduler cannot be reached within :data:`CONNECT_SECONDS`.
    """
    if scheduler is not None:
        try:
            client = distributed.Client(scheduler, timeout=CONNECT_SECONDS)
        except (OSError, TimeoutError) as err:
            raise ResourceError(f"cannot reach the Dask scheduler at {scheduler!r} ({err}); "
                                "start it or check the address") from None
        with client:
            yield client
        return
    with warnings.catch_warnings():
        # the scheduler's HTTP endpoint (loopback) moves to a free port when 8787 is taken
        warnings.filterwarnings("ignore", message="Port .* is already in use")
        cluster = distributed.LocalCluster(n_workers=int(workers), threads_per_worker=1, processes=True,
                                           host="127.0.0.1", dashboard_address=None, silence_logs=logging.ERROR)
    with cluster, distributed.Client(cluster) as client:
        yield client


def _chunks(variables, size):
    return [variables[i:i + size] for i in range(0, len(variables), size)]


def _gather(distributed, client, chunks, data, settings, control):
    """Run every chunk; return ``{variable: (items, stats)}`` of the finished ones."""
    def submit(chunk):
        return client.submit(explore_chunk, chunk, data, settings, pure=False)

    pending = {submit(chunk): (chunk, 0) for chunk in chunks}
    found = {}
    total = sum(len(c) for c in chunks)
    while pending:
        if control.should_stop():
            client.cancel(list(pending))
            break
        try:
            done, _ = distributed.wait(list(pending), timeout=POLL_SECONDS, return_when="FIRST_COMPLETED")
        except TimeoutError:
            continue
        for future in done:
            chunk, tries = pending.pop(future)
            try:  # a failed task raises; so does a finished one whose worker died before its result was fetched
                rows = future.result()
            except Exception as error:  # the task's error, KilledWorker or the lost result's cancellation
                if tries >= RESUBMITS:
                    raise ResourceError(f"the Dask task for variables {chunk[:5]}... failed {tries + 1} times "
                                        f"({error!r}); check the workers' logs") from None
                pending[submit(chunk)] = (chunk, tries + 1)
                continue
            for v, items, stats in rows:
                found[v] = (pack_items(items), stats)
            control.report(done=len(found) / total, message=f"parent sets: {len(found)}/{total} variables",
                           variables_done=len(found), time_left=control.remaining)
    return found


def explore_distributed(scorer, method="independence", max_indegree=None, time_per_variable=None,
                        max_evaluations=None, variables=None, knowledge=None, workers=2, scheduler=None,
                        chunk_size=None, progress=None, time_limit=None, stop=None, control=None):
    """:func:`bnexplore.parents.explore.explore_parent_sets` on a Dask cluster.

    Parameters
    ----------
    scorer : Scorer
        Its data and score settings are shipped to the workers (the
        workers' scorers keep no cache; counters stay on the workers).
    method, max_indegree, time_per_variable, max_evaluations, variables, knowledge
        As in :func:`~bnexplore.parents.explore.explore_parent_sets` (the
        bound knowledge is shipped with the data).
    workers : int
        Worker processes of the local cluster (ignored with ``scheduler``).
    scheduler : str, optional
        Address of a running Dask scheduler, e.g. ``"tcp://10.0.0.5:8786"``.
    chunk_size : int, optional
        Variables per task (default: about 8 tasks per worker).
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`; a stop cancels the chunks not
        finished, whose variables get the empty set only.

    Returns
    -------
    ParentSets
        Identical to the single-process result for ``max_evaluations``
        budgets; ``stats["workers"]`` and ``stats["chunks"]`` are added.
    """
    control = Control.of(control, progress, time_limit, stop)
    require_complete(scorer.data, "a parent-set search on a Dask cluster")  # the workers get the codes alone
    require_unweighted(scorer.data, "a parent-set search on a Dask cluster")
    settings = ExploreSettings(method, max_indegree, time_per_variable, max_evaluations)
    check_budget(settings, control)
    if int(workers) != workers or workers < 1:
        raise ResourceError(f"workers must be a whole number >= 1, got {workers!r}")
    bound = knowledge.bind(scorer, max_indegree) if knowledge else None
    todo = variable_list(scorer, variables)
    distributed = load_dask()
    start = search_clock()
    with dask_client(distributed, workers, scheduler) as client:
        n_workers = max(1, len(client.scheduler_info()["workers"]))
        size = int(chunk_size) if chunk_size else max(1, math.ceil(len(todo) / (8 * n_workers)))
        chunks = _chunks(todo, size)
        [data] = client.scatter([_payload(scorer, settings, bound)], broadcast=True, hash=False)
        found = _gather(distributed, client, chunks, data, settings, control)
    result = assemble(scorer, found, settings, control, search_clock() - start, bound)
    result.stats.update(workers=n_workers, chunks=len(chunks))
    return result
