"""Searches that run in a background thread while the page stays responsive.

Streamlit reruns the page script on every click, so a search cannot run inside
the script. A :class:`SearchJob` runs one or more searches, one after the other,
in a daemon thread; the page keeps the job in ``st.session_state`` and polls it
(``@st.fragment(run_every=...)``) to draw the progress bar and the score trace,
and the Stop button sets the job's ``threading.Event``, which every search
checks through its :class:`bnexplore.control.Control`. Nothing here touches
Streamlit, so the thread never calls into the page.
"""

import contextvars
import logging
import threading
import time
from dataclasses import dataclass, field

from bnexplore.control import Control
from bnexplore.errors import BNExploreError

log = logging.getLogger("bnexplore.app")


@dataclass
class Task:
    """One search of a job.

    Attributes
    ----------
    name : str
        Name under which the result will be kept.
    label : str
        What runs (algorithm and settings), for messages.
    run : callable
        ``run(control) -> Result``.
    context : dict
        What the page needs to keep the result (e.g. the data it was learned
        from); the job only carries it.
    traced : bool
        Its scores are on the common scale of the job's score chart (False
        for a search with a score of its own, such as BNKL's KL).
    """

    name: str
    label: str
    run: object
    context: dict = field(default_factory=dict)
    traced: bool = True


class SearchJob:
    """Run tasks in a background thread, with progress reports and a stop flag.

    Parameters
    ----------
    tasks : list of Task
    time_limit : float or None
        Seconds allowed to each task.

    Attributes
    ----------
    stop : threading.Event
        Set it to stop the running task (it returns its best result so far)
        and skip the tasks not yet started.
    reports : list of dict
        Every progress report: ``task``, ``seconds`` (since the task started),
        ``score``, ``done``, ``message``, ``iteration``, and from an exact
        search ``bound`` (proven upper bound) and ``found`` (credible DAGs so far).
    results : list of (Task, Result, dict)
        Finished tasks, in order, with the extra objects their search returned.
    errors : list of (Task, str)
        Tasks that failed, with a message for the user.
    """

    def __init__(self, tasks, time_limit=None):
        self.tasks = list(tasks)
        self.time_limit = time_limit
        self.stop = threading.Event()
        self.reports = []
        self.results = []
        self.errors = []
        self.current = None
        self.started = time.perf_counter()
        self.collected = False
        self._lock = threading.Lock()
        # the thread runs in a copy of this context, so the library's messages keep the app's words (its door)
        self.thread = threading.Thread(target=contextvars.copy_context().run, args=(self._run,),
                                       name="bnexplore-search", daemon=True)

    def start(self):
        """Start the thread; returns self."""
        self.thread.start()
        return self

    @property
    def running(self):
        """True while the thread is alive."""
        return self.thread.is_alive()

    def wait(self, timeout=None):
        """Block until the thread ends (or ``timeout`` seconds pass); returns not running."""
        self.thread.join(timeout)
        return not self.running

    def snapshot(self):
        """A copy of the reports so far (safe to read while the thread appends)."""
        with self._lock:
            return list(self.reports)

    def trace(self):
        """Score points to draw (``task``, ``seconds``, ``score``, ``bound``, ``iteration``): the
        progress reports, replaced for every finished search by its trajectory, which has
        every step (or every change of an exact search's incumbent and bound) where the
        reports are rate-limited; none of the tasks that are not ``traced``."""
        reports = [r for r in self.snapshot() if r["score"] is not None or r.get("bound") is not None]
        steps = [{"task": task.name, "seconds": step["seconds"], "score": step.get("score"),
                  "bound": step.get("bound"), "iteration": step["step"]}
                 for task, result, _ in list(self.results) for step in result.trajectory or ()
                 if "seconds" in step]
        exact = {point["task"] for point in steps}
        hidden = {task.name for task in self.tasks if not task.traced}
        return [r for r in [r for r in reports if r["task"] not in exact] + steps if r["task"] not in hidden]

    def latest(self):
        """The last progress report, or None."""
        with self._lock:
            return self.reports[-1] if self.reports else None

    def _reporter(self, task):
        def progress(info):
            entry = {"task": task.name, "seconds": float(info.get("elapsed", 0.0)),
                     "score": info.get("score"), "done": info.get("done"),
                     "message": info.get("message", ""), "iteration": info.get("iteration"),
                     "bound": info.get("bound"), "found": info.get("found")}
            with self._lock:
                self.reports.append(entry)
        return progress

    def _run(self):
        for task in self.tasks:
            if self.stop.is_set():
                break
            self.current = task
            control = Control(progress=self._reporter(task), time_limit=self.time_limit, stop=self.stop)
            try:
                result = task.run(control)
            except BNExploreError as error:
                self.errors.append((task, str(error)))
            except Exception as error:  # noqa: BLE001 - reported to the page, logged for the developer
                log.error("search %s failed", task.label, exc_info=error)
                self.errors.append((task, f"failed unexpectedly ({type(error).__name__}: {str(error)[:160]}); "
                                          "please report this"))
            else:
                result, extras = result if isinstance(result, tuple) else (result, {})
                self.results.append((task, result, extras))
        self.current = None
