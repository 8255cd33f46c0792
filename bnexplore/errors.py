"""Exceptions raised by bnexplore.

Every error a user can cause derives from :class:`BNExploreError` and carries a
one-line message that names the column, row, line or value at fault and says
what to do. The app and the CLI print ``str(error)``, never a traceback.
"""


class BNExploreError(Exception):
    """Base class of every error a user can cause."""


class DataError(BNExploreError, ValueError):
    """A table cannot be read, typed, encoded or discretized."""


class BIFError(BNExploreError, ValueError):
    """A BIF network file is malformed (the message names the line)."""


class ScoreError(BNExploreError, ValueError):
    """A local score was asked for something impossible."""


class SearchError(BNExploreError, ValueError):
    """A search was given impossible parameters or graphs."""


class ResourceError(BNExploreError, MemoryError):
    """A request would need more memory or time than the machine has."""
