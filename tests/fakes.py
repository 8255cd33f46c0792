"""Deterministic stand-ins for the clock and the stop flag.

No test may pass or fail with the speed of the machine: a search is stopped
after a fixed number of stop checks, and time limits run on a clock that
advances by a fixed step at every reading.
"""


class StopAfter:
    """A stop callable that answers True from its ``k``-th call on.

    Attributes
    ----------
    calls : int
        How many times the search asked.
    """

    def __init__(self, k):
        self.k = k
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return self.calls >= self.k


class FakeClock:
    """A clock for :class:`bnexplore.control.Control` that advances ``step``
    seconds every time it is read."""

    def __init__(self, step=1.0):
        self.step = step
        self.now = 0.0

    def __call__(self):
        self.now += self.step
        return self.now
