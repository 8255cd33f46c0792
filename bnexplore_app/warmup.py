"""Compile (or load from numba's disk cache) the fast core once per server process, in the background.

:func:`start` (called by every run of :func:`bnexplore_app.main.main`) starts
:func:`bnexplore.warmup.warm_up` in a daemon thread the first time; the user
reads the first page meanwhile, and :func:`note` says what is happening. A
search started before it is done waits for :data:`CORE`'s ``ready`` event
(:class:`bnexplore_app.jobs.SearchJob`), so no result counts compile time.
"""

import logging
import threading

import streamlit as st

from bnexplore.warmup import warm_up

log = logging.getLogger("bnexplore.app")

NOTE_SECONDS = 2.0
"""How often the note refreshes while the core compiles."""


class WarmUp:
    """The warm-up of one server process.

    Parameters
    ----------
    run : callable
        ``run(progress=...)``, the warm-up itself (tests pass a fake).

    Attributes
    ----------
    ready : threading.Event
        Set when the warm-up has ended (also when it failed: a search then
        compiles what it needs itself).
    step : str or None
        What it is compiling now.
    done : float
        Fraction finished.
    seconds : float or None
        How long it took.
    """

    def __init__(self, run=warm_up):
        self.run = run
        self.ready = threading.Event()
        self.step = None
        self.done = 0.0
        self.seconds = None
        self._lock = threading.Lock()
        self._thread = None

    def start(self):
        """Start the warm-up thread unless it has started already; returns self."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="bnexplore-warmup", daemon=True)
                self._thread.start()
        return self

    def _progress(self, step, done):
        self.step, self.done = step, done

    def _work(self):
        try:
            self.seconds = self.run(progress=self._progress)
        except Exception as error:  # noqa: BLE001 - the searches still work, they compile on first call
            log.error("warming up the fast core failed", exc_info=error)
        finally:
            self.done = 1.0
            self.ready.set()


CORE = WarmUp()
"""This server process's warm-up."""


def start():
    """Start compiling the fast core in the background (once per server process)."""
    CORE.start()


def message():
    """What the core is doing, for the note; None once ready."""
    core = CORE
    if core.ready.is_set():
        return None
    what = f" (now: {core.step})" if core.step else ""
    return (f"Compiling the fast core once for this server{what}, {core.done:.0%} done — two to three minutes on a "
            f"fresh install, a few seconds after. Read on meanwhile: a search started now waits for it, and its "
            f"time counts only the search.")


def note():
    """A note in the sidebar while the core compiles; it refreshes itself and goes when the core is ready."""
    if CORE.ready.is_set():
        return

    @st.fragment(run_every=NOTE_SECONDS)
    def refresh():
        text = message()
        if text is None:
            st.rerun()  # the whole app, so this timer ends
        st.caption(text)

    refresh()

