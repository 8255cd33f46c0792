"""Searches that run in a background thread while the page stays responsive.

Streamlit reruns the page script on every click, so a search cannot run inside
the script. A :class:`SearchJob` runs one or more searches, one after the other,
in a daemon thread; the page keeps the job in ``st.session_state`` and polls it
(``@st.fragment(run_every=...)``) to draw the progress bar and the score trace,
and the Stop button sets the job's ``threading.Event``, which every search
checks through its :class:`bnexplore.control.Control`. Nothing here touches
Streamlit, so the thread never calls into the page.

A server is shared: before its searches start, a job waits until the fast core
is compiled (its clock starts after that, so no result counts compile time),
then for one of the server's :class:`Slots` (at most ``BNEXPLORE_MAX_JOBS``
searches at once, default one per core; the others queue and know their place).
A :class:`Reaper` stops the work of a session whose browser tab is gone.
"""

import contextlib
import contextvars
import logging
import os
import threading
import time
from dataclasses import dataclass, field

from bnexplore.control import Control
from bnexplore.errors import BNExploreError

log = logging.getLogger("bnexplore.app")

CHECK_SECONDS = 0.5
"""How often a waiting job looks at its stop flag."""
SESSION_GRACE_SECONDS = 120.0
"""How long a job survives its session being disconnected (Streamlit keeps a disconnected session this long
for the tab to come back)."""
REAP_SECONDS = 5.0
"""How often the reaper looks at the sessions of running jobs."""

RUNNING = contextvars.ContextVar("bnexplore_running_job", default=None)
"""The job whose thread is running (set in that thread only)."""


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
    algorithm : str
        The algorithm's key ("hc", "exact"), so the page can say what the chart shows.
    em : bool
        It learns by structural EM (data with blank cells): its searches score other completed data at
        each iteration, so it is not traced; the page draws its log-likelihood per iteration instead.
    """

    name: str
    label: str
    run: object
    context: dict = field(default_factory=dict)
    traced: bool = True
    algorithm: str = ""
    em: bool = False


def max_jobs(environ=os.environ):
    """How many searches may run at once on this server: ``BNEXPLORE_MAX_JOBS``, default one per core.

    Raises
    ------
    BNExploreError
        When the variable is set to anything but a whole number >= 1.
    """
    text = environ.get("BNEXPLORE_MAX_JOBS", "").strip()
    if not text:
        return os.cpu_count() or 1
    if not text.isdigit() or int(text) < 1:
        raise BNExploreError(f"the server setting BNEXPLORE_MAX_JOBS={text!r} is not a whole number >= 1; "
                             "ask whoever runs the app to fix it")
    return int(text)


class Slots:
    """The heavy work a server allows at once: ``capacity`` units, taken in the order asked.

    A job takes one unit for its searches (:meth:`acquire`, blocking) and may
    borrow idle units for worker processes (:meth:`borrow`, never blocking, never
    while another job waits).

    Parameters
    ----------
    capacity : int
    """

    def __init__(self, capacity):
        self.capacity = int(capacity)
        self._cond = threading.Condition()
        self._held = {}
        self._waiting = []

    def _used(self):
        return sum(self._held.values())

    def acquire(self, job, stop):
        """Wait for a unit, first come first served; False (and out of the queue) when ``stop`` is set first."""
        with self._cond:
            self._waiting.append(job)
            while not (self._waiting[0] is job and self._used() < self.capacity):
                if stop.is_set():
                    self._waiting.remove(job)
                    self._cond.notify_all()
                    return False
                self._cond.wait(CHECK_SECONDS)
            self._waiting.pop(0)
            self._held[job] = 1
            self._cond.notify_all()
            return True

    def release(self, job):
        """Give back every unit ``job`` holds."""
        with self._cond:
            self._held.pop(job, None)
            self._cond.notify_all()

    def ahead(self, job):
        """How many searches must end before ``job`` starts (0 when it is not waiting)."""
        with self._cond:
            if job not in self._waiting:
                return 0
            return max(1, self._used() + self._waiting.index(job) - self.capacity + 1)

    def borrow(self, job, most):
        """Take up to ``most`` idle units for ``job`` (none while another job waits); returns how many."""
        with self._cond:
            extra = 0 if self._waiting else max(0, min(int(most), self.capacity - self._used()))
            if extra:
                self._held[job] = self._held.get(job, 0) + extra
            return extra

    def give_back(self, job, units):
        """Return ``units`` borrowed by ``job``."""
        with self._cond:
            if job in self._held:
                self._held[job] = max(1, self._held[job] - units)
            self._cond.notify_all()


_server = {}
_server_lock = threading.Lock()


def server_slots():
    """The server's :class:`Slots` (created on first use with :func:`max_jobs` units)."""
    with _server_lock:
        if "slots" not in _server:
            _server["slots"] = Slots(max_jobs())
        return _server["slots"]


@contextlib.contextmanager
def cores(most):
    """Processes the running search may start: its own core plus idle ones, at most ``most``.

    Outside a job (or in a job without slots) ``most``. The borrowed units go
    back when the block ends.
    """
    job = RUNNING.get()
    if job is None or job.slots is None:
        yield most
        return
    extra = job.slots.borrow(job, most - 1)
    try:
        yield 1 + extra
    finally:
        job.slots.give_back(job, extra)


class Reaper:
    """Stops the jobs whose session is gone.

    Each watched job has an ``alive()`` check; a job whose check has failed
    for ``grace`` seconds is stopped (its search returns its best network so
    far, the remaining searches are skipped) and says why in ``ended_by``.

    Parameters
    ----------
    grace : float
        Seconds a session may be away (a reconnecting tab) before its work ends.
    clock : callable
    """

    def __init__(self, grace=SESSION_GRACE_SECONDS, clock=time.monotonic):
        self.grace = grace
        self.clock = clock
        self._jobs = {}
        self._lock = threading.Lock()
        self._thread = None

    def watch(self, job):
        """Check ``job`` from now on (the checking thread starts with the first job)."""
        with self._lock:
            self._jobs[job] = self.clock()
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="bnexplore-reaper", daemon=True)
                self._thread.start()

    def sweep(self):
        """Check every watched job once; returns the jobs stopped now."""
        stopped = []
        with self._lock:
            for job, seen in list(self._jobs.items()):
                if not job.running:
                    del self._jobs[job]
                elif job.alive():
                    self._jobs[job] = self.clock()
                elif self.clock() - seen >= self.grace:
                    log.warning("stopping the search of a session gone for %.0f s (%s)", self.grace,
                                ", ".join(task.name for task in job.tasks))
                    job.ended_by = "its browser tab was closed"
                    job.stop.set()
                    del self._jobs[job]
                    stopped.append(job)
        return stopped

    def _loop(self):
        while True:
            threading.Event().wait(REAP_SECONDS)
            self.sweep()


REAPER = Reaper()
"""The server's reaper."""


class SearchJob:
    """Run tasks in a background thread, with progress reports and a stop flag.

    Parameters
    ----------
    tasks : list of Task
    time_limit : float or None
        Seconds allowed to each task.
    data_key, data_label : str
        The data the tasks search (the page shows a job with its data).
    ready : threading.Event, optional
        Set when the fast core is compiled; the searches wait for it, and
        their clocks start after it.
    slots : Slots, optional
        The server's slots; the job holds one while its searches run.
    alive : callable, optional
        ``alive() -> bool``: the session that started the job is still there
        (checked by :data:`REAPER`).
    clock : callable
        The clock of the searches' :class:`Control` (tests pass a fake one).

    Attributes
    ----------
    stop : threading.Event
        Set it to stop the running task (it returns its best result so far)
        and skip the tasks not yet started.
    phase : str
        ``"starting"``, ``"compiling"`` (waiting for the fast core),
        ``"waiting"`` (for a slot), ``"running"`` or ``"done"``.
    compile_seconds : float
        Seconds spent waiting for the fast core (never counted in a result).
    ended_by : str or None
        Why the job was stopped from outside (a closed tab), when it was.
    reports : list of dict
        Every progress report: ``task``, ``seconds`` (since the task started),
        ``score``, ``done``, ``message``, ``iteration``, from an exact
        search ``bound`` (proven upper bound) and ``found`` (credible DAGs so far), and from
        structural EM ``log_likelihood`` and ``em`` (its iterations so far, as in ``extra["em"]``).
    results : list of (Task, Result, dict)
        Finished tasks, in order, with the extra objects their search returned.
    errors : list of (Task, str)
        Tasks that failed, with a message for the user.
    notes : list of (str, str)
        What happened, ``(kind, text)``, filled by the page when it collects the results.
    """

    def __init__(self, tasks, time_limit=None, data_key=None, data_label="", ready=None, slots=None,
                 alive=None, clock=time.perf_counter):
        self.tasks = list(tasks)
        self.time_limit = time_limit
        self.data_key = data_key
        self.data_label = data_label
        self.ready = ready
        self.slots = slots
        self.alive = alive if alive is not None else (lambda: True)
        self.clock = clock
        self.stop = threading.Event()
        self.phase = "starting"
        self.compile_seconds = 0.0
        self.ended_by = None
        self.reports = []
        self.results = []
        self.errors = []
        self.notes = []
        self.current = None
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

    def ahead(self):
        """How many searches on this server must end before this job's start (0 unless waiting)."""
        return self.slots.ahead(self) if self.slots is not None and self.phase == "waiting" else 0

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
                     "bound": info.get("bound"), "found": info.get("found"),
                     "log_likelihood": info.get("log_likelihood"), "em": info.get("em")}
            with self._lock:
                self.reports.append(entry)
        return progress

    def _wait_for_core(self):
        """Wait until the fast core is compiled; False when stopped first."""
        if self.ready is None or self.ready.is_set():
            return True
        self.phase = "compiling"
        began = self.clock()
        while not self.ready.wait(CHECK_SECONDS):
            if self.stop.is_set():
                return False
        self.compile_seconds = self.clock() - began
        return True

    def _run(self):
        RUNNING.set(self)
        try:
            if not self._wait_for_core():
                return
            self.phase = "waiting"
            if self.slots is not None and not self.slots.acquire(self, self.stop):
                return
            self.phase = "running"
            try:
                self._run_tasks()
            finally:
                if self.slots is not None:
                    self.slots.release(self)
        finally:
            self.current = None
            self.phase = "done"

    def _run_tasks(self):
        for task in self.tasks:
            if self.stop.is_set():
                break
            self.current = task
            # created here, after the waits: the task's clock starts when it does
            control = Control(progress=self._reporter(task), time_limit=self.time_limit, stop=self.stop,
                              clock=self.clock)
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
