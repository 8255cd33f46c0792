"""Drive the app in a real headless Chromium, as a user does: the helpers of the browser test and the walk.

Playwright drives Debian's ``/usr/bin/chromium`` (never a downloaded browser)
in a projector-sized 1280 x 720 window. Every helper waits on what the page
shows, never on the clock: :func:`settle` waits until the script run an action
caused has finished (:class:`ScriptRuns` reads the runs the page asks for and the
server ends from the page's websocket), and the others wait with
Playwright's auto-waiting locators. Timeouts are generous, so a loaded
two-core machine passes as a quiet one does.

Examples
--------
>>> from tools.browser import AppServer, browser_session, new_page, open_page  # doctest: +SKIP
>>> with AppServer() as url, browser_session() as browser:  # doctest: +SKIP
...     page = new_page(browser, url)
...     open_page(page, "3 · Search")
"""

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
VIEWPORT = {"width": 1280, "height": 720}
ROOT = Path(__file__).resolve().parent.parent
STEP_TIMEOUT = 120_000
"""Milliseconds any one wait may take (a page run, an upload) on a loaded machine."""

PICK_TIMEOUT = 30_000
"""Milliseconds a pick in a select list may take to run the page before it is tried again."""

PROBLEMS = re.compile(r"Traceback|(?i:please report)|\b[A-Z]\w*Error\b")
"""What must never show on a page: a traceback, the app's "please report" message, a Python exception name."""

class ScriptRuns:
    """The app's script runs as its server reports them over the page's websocket.

    Every frame is read with Streamlit's own protocol classes: a ``rerun_script`` the page sends (a click, a
    key, a page link; not a fragment's own timer), a ``new_session`` (a run starts) and a ``script_finished``
    (it ends, with how). The root element's ``data-test-script-state`` attribute, watched before, can miss a
    run: on a loaded machine the browser may draw a quick run's start and end in one update, so the attribute
    never changes, and three CI runs under load waited out their time for a run that had happened (a time
    limit's Enter, a multiselect's remove button).

    Parameters
    ----------
    page : playwright Page
        Watched from before its first request (:func:`new_page`), so every socket is seen, a reloaded
        document's too.
    """

    def __init__(self, page):
        self.events = []  # ("socket" | "started", None), ("asked", fragment?), ("ended", status), in the order seen
        self.page = page
        self._sockets = []
        page.on("websocket", self._watch)

    def _watch(self, socket):
        self.events.append(("socket", None))  # a new document's: the runs of the last one are gone with it
        self._sockets.append(socket)
        socket.on("framesent", self._sent)
        socket.on("framereceived", self._received)

    def _sent(self, payload):
        if isinstance(payload, bytes):
            message = BackMsg.FromString(payload)
            if message.WhichOneof("type") == "rerun_script" and not message.rerun_script.is_auto_rerun:
                self.events.append(("asked", bool(message.rerun_script.fragment_id)))

    def _received(self, payload):
        if isinstance(payload, bytes):
            message = ForwardMsg.FromString(payload)
            kind = message.WhichOneof("type")
            if kind == "new_session":
                self.events.append(("started", None))
            elif kind == "script_finished":
                self.events.append(("ended", message.script_finished))

    def mark(self):
        """A mark of what has been seen so far, for :meth:`ended_since`."""
        return len(self.events)

    def ended_since(self, mark):
        """Whether a run the page asked for after ``mark`` has ended: a run of the whole script, or a fragment's
        when the page asked for one (a fragment's own timer runs it too; those ends do not count otherwise)."""
        ends = set()
        for kind, value in self.events[mark:]:
            if kind == "asked":
                ends |= _WHOLE_RUN_ENDS | (_FRAGMENT_RUN_ENDS if value else set())
            elif kind == "ended" and value in ends:
                return True
        return False

    def idle(self):
        """Whether the last run that started has ended (none is going on by the server's word). A run cut short
        by the next request sends no end (with Streamlit's fast reruns the next one starts at once)."""
        last = next((kind for kind, _ in reversed(self.events) if kind in ("socket", "started", "ended")), None)
        return last != "started"

    def wait(self, condition, timeout, what):
        """Wait until ``condition()`` holds, reading the frames as they come (it changes on one only); on
        ``timeout`` milliseconds raise Playwright's TimeoutError saying ``what`` was waited for and what was seen."""
        from playwright.sync_api import Error, TimeoutError as PlaywrightTimeout

        deadline = time.monotonic() + timeout / 1000
        while not condition():
            left = (deadline - time.monotonic()) * 1000
            if left <= 0:
                raise PlaywrightTimeout(f"{what} within {timeout / 1000:g} s; the page's runs so far: "
                                        f"{self.events[-12:]}")
            try:
                if not self._sockets or self._sockets[-1].is_closed():  # the page loads (anew): wait for its socket
                    self.page.wait_for_event("websocket", timeout=left)
                else:
                    self._sockets[-1].wait_for_event("framereceived", predicate=lambda _: condition(), timeout=left)
            except PlaywrightTimeout:
                continue  # said above, with what was seen
            except Error:  # the socket closed while waited on: the next one is waited for
                if self.page.is_closed() or (self._sockets and not self._sockets[-1].is_closed()):
                    raise


_WHOLE_RUN_ENDS = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR}
_FRAGMENT_RUN_ENDS = {ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}
"""How a run the page asked for can end (``FINISHED_EARLY_FOR_RERUN`` is a run cut short by the next)."""


def free_port():
    """A free TCP port on the loopback interface."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class AppServer:
    """``streamlit run app.py`` on a free loopback port, for the length of a ``with`` block.

    Parameters
    ----------
    log : path, optional
        Where the server's output goes (default: discarded).
    env : dict, optional
        Environment variables to add (e.g. ``BNEXPLORE_MAX_EXPANDED_MB``).
    start_seconds : float
        How long the server may take to answer its health check.

    Examples
    --------
    >>> with AppServer() as url:  # doctest: +SKIP
    ...     print(url)
    http://127.0.0.1:38025
    """

    def __init__(self, log=None, env=None, start_seconds=120.0):
        self.log_path = log
        self.env = {**os.environ, **(env or {})}
        self.start_seconds = start_seconds
        self.process = None
        self.url = None

    def __enter__(self):
        port = free_port()
        self._log = open(self.log_path, "w") if self.log_path else subprocess.DEVNULL
        self.process = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT, env=self.env)
        self.url = f"http://127.0.0.1:{port}"
        try:
            self._wait_healthy()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self.url

    def _wait_healthy(self):
        deadline = time.monotonic() + self.start_seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {self.process.returncode}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=5) as response:
                    if response.read().strip() == b"ok":
                        return
            except OSError:
                time.sleep(0.3)  # polling the health check, not waiting for the app's behaviour
        raise TimeoutError(f"streamlit did not answer within {self.start_seconds:g} s")

    def __exit__(self, *exc):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self._log is not subprocess.DEVNULL:
            self._log.close()
        return False


@contextlib.contextmanager
def browser_session():
    """Headless Chromium (Debian's) under Playwright, for the length of a ``with`` block."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser, url, timeout=STEP_TIMEOUT):
    """A new browser context (a new app session) at 1280 x 720 with the app open and its first run done.

    The page records every request that leaves the app's server (``page.offline_requests``) and watches its
    script runs (``page.script_runs``, a :class:`ScriptRuns`).
    """
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    context.set_default_timeout(timeout)
    page = context.new_page()
    page.script_runs = ScriptRuns(page)
    page.offline_requests = []
    page.on("request", lambda request: page.offline_requests.append(request.url)
            if not request.url.startswith((url, "data:", "blob:", "about:")) else None)
    page.goto(url)
    page.get_by_text("Data in use:").first.wait_for()
    wait_idle(page)
    return page


def wait_idle(page, timeout=STEP_TIMEOUT):
    """Wait until no script run is going on (the first run of a page included): the server has ended every run
    it started, and the page shows it has (its root's ``data-test-script-state``)."""
    page.script_runs.wait(page.script_runs.idle, timeout, "the server did not end the run going on")
    page.wait_for_function("() => document.querySelector(\"[data-testid='stApp']\")"
                           "?.getAttribute('data-test-script-state') === 'notRunning'", timeout=timeout)


def settle(page, action, timeout=STEP_TIMEOUT):
    """Do ``action()`` (a click, a key press) and wait until the script run it causes has finished.

    The page is idle first, so the run that ends is the action's: a run the page asks for after the action
    (:class:`ScriptRuns`, the server's own word) that the server has ended, and the page shows no run going
    on. Only for actions that run the script again; a download button that ignores its click would wait out
    the timeout.
    """
    wait_idle(page, timeout)
    mark = page.script_runs.mark()
    action()
    page.script_runs.wait(lambda: page.script_runs.ended_since(mark), timeout, "no run the action asked for ended")
    wait_idle(page, timeout)


def open_page(page, label, tries=3):
    """Go to the page ``label`` ("3 · Search") with the sidebar's link and wait until it is drawn.

    A click on a link can be lost: the app's status fragment reruns every few seconds while the fast core
    compiles, and on a loaded machine a click that met one of those runs left the page where it was. (Some
    of the losses seen before :class:`ScriptRuns` were runs that had happened but were missed by the
    attribute watch it replaced; the retry stays for the clicks a redraw swallows.) So a click that runs
    nothing, or a page not drawn, within :data:`PICK_TIMEOUT` is asked for again (a click on the link of the
    page being opened only opens it), at most ``tries`` times, the last waiting the full :data:`STEP_TIMEOUT`.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    heading = page.get_by_role("heading", name=label).first
    for attempt in range(1, tries + 1):
        timeout = PICK_TIMEOUT if attempt < tries else STEP_TIMEOUT
        try:
            settle(page, lambda: page.get_by_role("link", name=label).first.click(), timeout=timeout)
            heading.wait_for(timeout=timeout)
            return
        except PlaywrightTimeout:
            if attempt == tries:
                raise


def choose_option(page, box, option, tries=5):
    """Open a select box and pick ``option`` (its text, or a regular expression); the page is idle first,
    so no rerun closes the list, and a list that closes anyway is opened again, at most ``tries`` times,
    the last waiting the full :data:`STEP_TIMEOUT` (a loaded machine can take longer than a pick's wait
    to show the options of a page that has just run). A pick whose run outlasted the wait has still been
    made: once the box shows ``option`` (a multiselect's list no longer offers it), the run is waited for."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(1, tries + 1):
        if attempt > 1 and box.get_by_text(option, exact=isinstance(option, str)).count():
            wait_idle(page)
            return
        timeout = PICK_TIMEOUT if attempt < tries else STEP_TIMEOUT
        box.click()
        item = page.get_by_role("option", name=option, exact=isinstance(option, str))
        try:
            item.first.wait_for(timeout=timeout)
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
            continue
        try:
            settle(page, item.first.click, timeout=timeout)
        except PlaywrightTimeout:  # a click the list let pass (it scrolled under the pointer): pick again
            page.keyboard.press("Escape")
            continue
        return
    raise AssertionError(f"the option {option!r} never showed, or picking it never ran the page")


def choose_radio(page, option, tries=3):
    """Click the radio button ``option`` (its label's text, or a regular expression) and wait for the run
    (none when it is chosen already). A click after which no run starts within :data:`PICK_TIMEOUT` (seen
    once on a loaded machine) is made again while the button is still not chosen, at most ``tries`` times,
    the last waiting the full :data:`STEP_TIMEOUT`."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    choice = page.locator("[data-testid='stRadio'] label").filter(has_text=option).first
    for attempt in range(1, tries + 1):
        if choice.locator("input").is_checked():
            wait_idle(page)
            return
        try:
            settle(page, choice.click, timeout=PICK_TIMEOUT if attempt < tries else STEP_TIMEOUT)
            return
        except PlaywrightTimeout:
            if attempt == tries:
                raise


def uploader(page, label):
    """The file uploader whose label is ``label``."""
    return page.locator("[data-testid='stFileUploader']").filter(has_text=label).first


def upload(page, label, path):
    """Give the uploader ``label`` the file at ``path`` and wait until the app has read it."""
    box = uploader(page, label)
    settle(page, lambda: box.locator("input[type='file']").set_input_files(str(path)))


def download(page, button, folder):
    """Click a download button and save what the browser receives into ``folder``; returns its path."""
    with page.expect_download() as caught:
        button.click()
    received = caught.value
    path = Path(folder) / received.suggested_filename
    received.save_as(path)
    return path


def alerts(page, kind):
    """The texts of the page's alert boxes of one kind ("Error", "Warning", "Info", "Success")."""
    return page.locator(f"[data-testid='stAlertContent{kind}']").all_inner_texts()


def problems(page):
    """What shows on the page that must not: tracebacks, "please report", exception names (with context)."""
    found = [f"exception box: {text[:300]}" for text in
             page.locator("[data-testid='stException']").all_inner_texts()]
    text = page.locator("[data-testid='stApp']").inner_text()
    for match in PROBLEMS.finditer(text):
        found.append("…" + text[max(0, match.start() - 120):match.end() + 120].replace("\n", " ") + "…")
    return found


_FIT = """
() => {
  const canvas = document.querySelector("#mynetwork canvas");
  const frame = canvas.getBoundingClientRect();
  const outside = [], SLACK = 4;  // a node's bounding box reaches a few pixels past its drawn border
  for (const id of network.body.nodeIndices) {
    const box = network.getBoundingBox(id);
    const a = network.canvasToDOM({x: box.left, y: box.top});
    const b = network.canvasToDOM({x: box.right, y: box.bottom});
    if (a.x < -SLACK || a.y < -SLACK || b.x > frame.width + SLACK || b.y > frame.height + SLACK)
      outside.push(`${id}: (${a.x.toFixed(0)}, ${a.y.toFixed(0)})-(${b.x.toFixed(0)}, ${b.y.toFixed(0)})`
                   + ` in ${frame.width.toFixed(0)} x ${frame.height.toFixed(0)}`);
  }
  const hint = document.getElementById("bnx-zoom-hint");
  return {nodes: network.body.nodeIndices.length, outside: outside,
          zoomed: !!hint && getComputedStyle(hint).display !== "none"};
}
"""


_STILL = """
() => {
  const canvas = document.querySelector("#mynetwork canvas");
  const view = JSON.stringify([network.getScale(), network.getViewPosition(), canvas.clientWidth,
                               canvas.clientHeight]);
  window.__bnxStill = window.__bnxView === view ? (window.__bnxStill || 0) + 1 : 0;
  window.__bnxView = view;
  return window.__bnxStill >= 10;
}
"""
"""True once the drawing's scale, position and size have stayed the same for ten animation frames: the picture
fits itself to its frame after the frame's last resize, and is measured after that."""


def graph_frame(page, index=0):
    """The ``index``-th embedded graph (vis-network in an iframe) once it is drawn and holds still."""
    frame_element = page.locator("[data-testid='stIFrame']").nth(index)
    frame_element.wait_for()
    frame = frame_element.element_handle().content_frame()
    frame.locator("#mynetwork canvas").wait_for()
    frame.wait_for_function("() => typeof network !== 'undefined' && network.body.nodeIndices.length > 0")
    frame.wait_for_function(_STILL)
    return frame


def nodes_outside(page, index=0):
    """``(number of nodes, descriptions of the nodes not wholly inside the drawing's canvas)``."""
    found = drawn(page, index)
    return found["nodes"], found["outside"]


_REPLACED = re.compile(r"Execution context was destroyed|[Ff]rame (was|got) detached")
"""What Playwright says when the frame it evaluates in is replaced: a rerun redrew the graph meanwhile."""


def in_graph(page, script, index=0, tries=3):
    """``script`` evaluated in the ``index``-th graph once it is drawn and holds still, on the frame of the
    redrawn graph again when a rerun replaced the frame while it ran (what the page shows is then the new one)."""
    for attempt in range(tries):
        try:
            return graph_frame(page, index).evaluate(script)
        except Exception as error:  # Playwright's Error; anything else is raised at once
            if attempt == tries - 1 or not _REPLACED.search(str(error)):
                raise


def drawn(page, index=0):
    """What the ``index``-th graph shows: ``{"nodes": count, "outside": [nodes not wholly inside the canvas],
    "zoomed": whether it says it is zoomed in to keep names readable (drag to pan)}``."""
    return in_graph(page, _FIT, index)


_TEXT_PX = """
() => {
  let smallest = Infinity;
  for (const node of nodes.get()) {
    const svg = node.image ? decodeURIComponent(node.image.split(",").slice(1).join(",")) : "";
    const sizes = [...svg.matchAll(/font-size="([\\d.]+)"/g)].map(m => parseFloat(m[1]));
    const size = sizes.length ? Math.min(...sizes) : (node.font && node.font.size) || 14;
    smallest = Math.min(smallest, size);
  }
  return {scale: network.getScale(), font: smallest, px: network.getScale() * smallest};
}
"""


def text_px(page, index=0):
    """The smallest text of the ``index``-th graph on screen once it holds still: ``{"scale": the canvas
    scale, "font": the smallest font size drawn in a node (a belief node's SVG, or a label), "px": their
    product, the text's height in screen pixels}``."""
    return in_graph(page, _TEXT_PX, index)
