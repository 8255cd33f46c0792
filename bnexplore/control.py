"""Progress reporting, time limits and stop flags for long computations.

Every long computation in bnexplore takes ``progress``, ``time_limit`` and
``stop`` keyword arguments and turns them into one :class:`Control`; the app
wires them to ``st.progress`` and a Stop button, the CLI to a terminal bar.
"""

from .compiling import search_clock
from .errors import OptionError
from .options import positive_number


class Control:
    """Progress callback, time limit and stop flag of one computation.

    Parameters
    ----------
    progress : callable, optional
        Called as ``progress(info)`` with a dict holding at least ``"done"``
        (fraction in [0, 1], or None when unknown) and ``"message"``; searches
        add ``"score"`` (best score so far) and ``"iteration"``.
    time_limit : float, optional
        Seconds after which :meth:`should_stop` becomes true (a finite
        number > 0, else :class:`bnexplore.errors.OptionError`).
    stop : threading.Event or callable, optional
        Checked by :meth:`should_stop`; set it (or return True) to stop.
    min_interval : float
        Minimum seconds between two progress calls (the last call of a run is
        always delivered by :meth:`finish`).
    clock : callable
        Returns the time in seconds (default :func:`bnexplore.compiling.search_clock`, which stands
        still while numba compiles a kernel, so a time limit is the computation's own); tests
        pass a fake clock so time limits and rate limits never depend on how
        fast the machine is.
    """

    def __init__(self, progress=None, time_limit=None, stop=None, min_interval=0.1, clock=search_clock):
        if time_limit is not None:
            time_limit = positive_number(time_limit, "time_limit", unit=" of seconds")
        if progress is not None and not callable(progress):
            raise OptionError(f"progress must be a function called with a dict of progress, not a "
                              f"{type(progress).__name__}")
        if stop is not None and not (callable(stop) or callable(getattr(stop, "is_set", None))):
            raise OptionError(f"stop must be a threading.Event or a function returning True to stop, not a "
                              f"{type(stop).__name__}")
        self.progress = progress
        self.time_limit = time_limit
        self.stop = stop
        self.min_interval = min_interval
        self.clock = clock
        self.start = clock()
        self.reason = None
        self._last = -1e300

    @classmethod
    def of(cls, control=None, progress=None, time_limit=None, stop=None):
        """Return ``control`` if given, else a new Control from the other arguments."""
        if control is not None:
            return control
        return cls(progress=progress, time_limit=time_limit, stop=stop)

    @property
    def elapsed(self):
        """Seconds since the computation started."""
        return self.clock() - self.start

    @property
    def remaining(self):
        """Seconds left before the time limit (None when there is no limit)."""
        if self.time_limit is None:
            return None
        return max(0.0, self.time_limit - self.elapsed)

    def should_stop(self):
        """True once the stop flag is set or the time limit has passed.

        The first reason seen is kept in :attr:`reason` (``"stopped"`` or
        ``"time limit"``) so results can say why they ended early.
        """
        if self.reason is not None:
            return True
        stop = self.stop
        if stop is not None and (stop() if callable(stop) else stop.is_set()):
            self.reason = "stopped"
        elif self.time_limit is not None and self.elapsed >= self.time_limit:
            self.reason = "time limit"
        return self.reason is not None

    def report(self, done=None, message="", force=False, **info):
        """Send one progress report, at most every ``min_interval`` seconds."""
        if self.progress is None:
            return
        now = self.clock()
        if not force and now - self._last < self.min_interval:
            return
        self._last = now
        info.update(done=done, message=message, elapsed=now - self.start)
        self.progress(info)

    def finish(self, message="done", **info):
        """Send the final report (always delivered)."""
        self.report(done=1.0, message=message, force=True, **info)
