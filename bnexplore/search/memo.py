"""Results a search remembers for a later call: a small keyed store of the last few.

A credible set cut by its counting limit answers every larger Bayes factor
(:mod:`bnexplore.search.credible.solve`), and a proven ILP optimum answers
every later search over the same candidates (:mod:`bnexplore.search.ilp.optimum`).
Each owner holds its own :class:`Memo`, keyed by a :func:`digest` of what the
result depends on, and passes it where it is used.
"""

import hashlib

import numpy as np


def digest(arrays, text=""):
    """A 128-bit hex digest of the bytes of ``arrays`` and of ``text``: the key of a remembered result.

    Examples
    --------
    >>> import numpy as np
    >>> digest([np.arange(3)], "bic") == digest([np.arange(3)], "bic") != digest([np.arange(4)], "bic")
    True
    """
    h = hashlib.blake2b(digest_size=16)
    for array in arrays:
        h.update(np.ascontiguousarray(array).tobytes())
    h.update(text.encode())
    return h.hexdigest()


class Memo:
    """The last ``kept`` results put, by key (the oldest is forgotten first; putting a key again renews it).

    Examples
    --------
    >>> memo = Memo(2)
    >>> memo.put("a", 1); memo.put("b", 2); memo.put("c", 3)
    >>> memo.get("a"), memo.get("c"), len(memo)
    (None, 3, 2)
    >>> memo.clear(); len(memo)
    0
    """

    def __init__(self, kept):
        self.kept = int(kept)
        self._entries = {}

    def __len__(self):
        return len(self._entries)

    def get(self, key):
        """The result put under ``key``, or None."""
        return self._entries.get(key)

    def put(self, key, value):
        """Remember ``value`` under ``key``, forgetting the oldest beyond :attr:`kept`."""
        self._entries.pop(key, None)
        self._entries[key] = value
        while len(self._entries) > self.kept:
            del self._entries[next(iter(self._entries))]

    def clear(self):
        """Forget everything."""
        self._entries.clear()
