"""The command line's terminal progress bar (:class:`TerminalProgress`)."""

import sys


class TerminalProgress:
    """A one-line progress bar on a terminal (silent when not a terminal).

    Called with the ``info`` dicts of :class:`bnexplore.control.Control`:
    shows the fraction done (or a spinner when unknown), the message, the best
    score so far and the time left when there is a time limit. Each iteration of
    structural EM (the records of a report's ``em``) is also written as a line of
    its own, so the log-likelihood of every iteration stays on the screen.
    """

    def __init__(self, stream=sys.stderr, time_limit=None, width=28):
        self.stream = stream
        self.enabled = hasattr(stream, "isatty") and stream.isatty()
        self.time_limit = time_limit
        self.width = width
        self.turn = 0
        self.em_seen = 0
        self.compile_said = False

    def __call__(self, info):
        if not self.enabled:
            return
        for record in (info.get("em") or [])[self.em_seen:]:  # structural EM's iterations not yet written
            self.stream.write(f"\rEM iteration {record['iteration']}: observed-data log-likelihood "
                              f"{record['log_likelihood']:.4f}, {record['arcs']} arcs".ljust(150) + "\n")
            self.em_seen += 1
        done = info.get("done")
        if done is None:
            self.turn += 1
            bar = "".join("#" if (i - self.turn) % 8 < 3 else "." for i in range(self.width))
            pct = "    "
        else:
            filled = int(round(self.width * min(max(done, 0.0), 1.0)))
            bar = "#" * filled + "." * (self.width - filled)
            pct = f"{100 * done:3.0f}%"
        parts = [f"[{bar}] {pct}", info.get("message", "")]
        if info.get("score") is not None and info.get("bound") is None:
            parts.append(f"best {info['score']:.4f}")
        elapsed = info.get("elapsed", 0.0)
        parts.append(f"{elapsed:.1f}s")
        if self.time_limit:
            parts.append(f"{max(0.0, self.time_limit - elapsed):.0f}s left")
        self.stream.write("\r" + "  ".join(p for p in parts if p)[:150].ljust(150))
        self.stream.flush()

    def compiling(self, kernel):
        """Say, once, that numba is compiling (``kernel`` the first one): a wait that is not the search's."""
        if self.enabled and not self.compile_said:
            self.stream.write(f"\rcompiling numba kernels on first use ({kernel} first; kept in numba's disk cache, "
                              "not counted in the search's time)".ljust(150) + "\n")
            self.stream.flush()
            self.compile_said = True

    def close(self):
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
