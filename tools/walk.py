"""Walk through the whole app in headless Chromium at 1280 x 720, one screenshot per step. Run it before you stop.

Two data sets (the bundled asia sample, then tests/fixtures/survey.csv uploaded:
an ID column, numbers and text, blanks, a two-class column with blanks; then its
blanks kept, *Missing values: em*, for a structural EM search), every
page, every search the Search page offers (each with a short time limit), the
views of the Networks page, Compare, the replay, Save session and Open session
(in a new browser session), Stop on a long exact search, and the bad uploads
(a binary file, a one-column CSV, a semicolon-separated CSV, a gzip bomb that
expands past the server's bound), and a table without a header line read by
unticking *First line holds the column names*. Each step prints its number, what it did,
the page's height, the error and warning boxes on the page, and anything that
must never show (a traceback, "please report", an exception name); the
screenshots are ``NN_step.png`` in the output folder. Then look at them.

Usage (from the clone's root, in the project's environment)::

    python tools/walk.py                      # starts the app on a free loopback port
    python tools/walk.py --out /tmp/walk      # screenshots elsewhere (default /tmp/bnexplore-walk)
    python tools/walk.py --url http://127.0.0.1:8501 --bomb-mb 600   # a running app (its own limits)

The app it starts gets ``BNEXPLORE_MAX_EXPANDED_MB=64`` so the gzip bomb
(``--bomb-mb``, default 80 MB expanded, about 80 KB on the wire) is past the
bound. Exits 1 when a step failed or something that must never show was seen.
"""

import argparse
import gzip
import re
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bnexplore.formats import FORMATS, read_network  # noqa: E402
from bnexplore.search import SEARCHES  # noqa: E402
from tools.browser import (ROOT, STEP_TIMEOUT, AppServer, alerts, browser_session, choose_option,  # noqa: E402
                           choose_radio, download, drawn, new_page, nodes_outside, open_page, problems, settle,
                           upload, wait_idle)

SURVEY = ROOT / "tests" / "fixtures" / "survey.csv"
LIMIT_MB = 64
SEARCH_SECONDS = 10
"""The time limit of every search in the walk (the Stop step's search has a long one and is stopped)."""
BOOTSTRAP_RESAMPLES = 20
SEARCH_WAIT_MS = 600_000
"""How long a search step may wait: the first search waits for the fast core to compile (minutes when loaded)."""


class Walk:
    """Numbered steps: do something, take a screenshot, print what the page shows."""

    def __init__(self, out):
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        for old in self.out.glob("*.png"):
            old.unlink()
        self.number = 0
        self.failed = []
        self.flagged = []
        self.started = time.monotonic()

    def step(self, page, name, action=None, shoot=True):
        """Run ``action()`` (if any), screenshot ``page``, print the step. Returns what ``action`` returned."""
        self.number += 1
        value, status = None, "ok"
        try:
            if action is not None:
                value = action()
        except Exception as error:  # a walk reports every step, failed or not, and goes on
            status = f"FAILED: {type(error).__name__}: {str(error).splitlines()[0][:300]}"
            self.failed.append(f"{self.number:02d} {name}: {status}")
            if page is not None:
                page.keyboard.press("Escape")  # a list left open would catch the next step's clicks
        file = self.out / f"{self.number:02d}_{re.sub(r'[^a-z0-9]+', '_', name.lower()).strip('_')}.png"
        page = value if page is None else page  # a step that opens a page looks at the page it opened
        shoot = shoot and page is not None
        try:
            if page is None:
                raise ValueError("no page")
            if shoot:
                page.screenshot(path=str(file))
            seen = problems(page)
            errors, warnings = alerts(page, "Error"), alerts(page, "Warning")
            height = page.evaluate("() => document.querySelector(\"[data-testid='stMainBlockContainer']\")"
                                   "?.scrollHeight ?? 0")
        except Exception as error:
            seen, errors, warnings, height = [f"(page not readable: {type(error).__name__})"], [], [], 0
        where = (page.url.rsplit("/", 1)[-1] or "Home") if page is not None else "no page"
        print(f"{self.number:02d} [{time.monotonic() - self.started:6.1f} s] {name} — {where}, page "
              f"{height} px tall: {status}" + (f" → {file.name}" if shoot else ""), flush=True)
        for text in errors:
            print(f"     error box: {one_line(text)}")
        for text in warnings:
            print(f"     warning box: {one_line(text)}")
        for text in seen:
            print(f"     MUST NOT SHOW: {one_line(text)}")
            self.flagged.append(f"{self.number:02d} {name}: {one_line(text)}")
        return value


def one_line(text, most=400):
    text = " ".join(text.split())
    return text if len(text) <= most else text[:most] + "…"


def sample(page, name):
    open_page(page, "1 · Data")
    choose_radio(page, "Bundled sample")
    choose_option(page, page.locator("[data-testid='stSelectbox']").filter(has_text="Sample").first, name)
    settle(page, lambda: page.get_by_role("button", name="Load sample").click())
    page.get_by_text(f"Now using sample {name}").first.wait_for()


def upload_table(page, path):
    """Upload a table on the Data page; wait until the page says it is in use or why not."""
    open_page(page, "1 · Data")
    choose_radio(page, "Upload a file")
    upload(page, "Table file", path)
    said = page.get_by_text("Now using").or_(page.locator("[data-testid='stAlertContentError']"))
    said.first.wait_for()  # a table in use shows after a second run, which the app asks for itself
    wait_idle(page)


def algorithms_box(page):
    return page.locator("[data-testid='stMultiSelect']").filter(has_text="Algorithms").first


def clear_picks(page, box):
    """Remove every chip of a multiselect."""
    remove = box.get_by_role("button", name=re.compile("^Remove "))
    while remove.count():
        settle(page, remove.first.click)


def offered_searches(page):
    """The labels of every search the Search page offers on the data in use (none stays picked)."""
    open_page(page, "3 · Search")
    box = algorithms_box(page)
    clear_picks(page, box)
    box.click()
    options = page.get_by_role("option").filter(has_not_text=re.compile("^Select all$"))
    options.first.wait_for()
    labels = [label.strip() for label in options.all_inner_texts()]
    page.keyboard.press("Escape")
    return labels


def only(page, label):
    """Make ``label`` the only search picked."""
    box = algorithms_box(page)
    clear_picks(page, box)
    choose_option(page, box, label)
    page.keyboard.press("Escape")


def set_number(page, label, value):
    field = page.locator(f"input[aria-label='{label}']").first
    if field.input_value() != str(value):
        field.fill(str(value))
        settle(page, lambda: field.press("Enter"))


def run_one(page, label, seconds=SEARCH_SECONDS):
    """Run the search ``label`` alone with a short time limit; wait until the page says how it ended."""
    open_page(page, "3 · Search")
    only(page, label)
    if label.startswith("Bootstrap"):
        page.get_by_text(f"{label}: options").first.click()
        set_number(page, "Resamples R", BOOTSTRAP_RESAMPLES)
    set_number(page, "Time limit per search (s)", seconds)
    settle(page, lambda: page.get_by_role("button", name="Run", exact=True).click())
    ended = page.get_by_text("Finished:").or_(page.locator("[data-testid='stAlertContentError']"))
    ended.first.wait_for(timeout=SEARCH_WAIT_MS + seconds * 1000)
    wait_idle(page)  # the page that says "Finished:" may still be drawing: a chart counted then can go again
    chart = page.locator("[data-testid='stVegaLiteChart']")
    if chart.count():
        chart.first.scroll_into_view_if_needed()


def networks(page, view=None):
    open_page(page, "4 · Networks")
    if view is not None:
        choose_radio(page, view)
    page.locator("[data-testid='stIFrame']").first.wait_for()
    wait_idle(page)
    shown = drawn(page)
    if shown["outside"]:
        print(f"     nodes outside the frame ({len(shown['outside'])} of {shown['nodes']}"
              f"{', zoomed in, saying so' if shown['zoomed'] else ', NOT saying it is zoomed'}): "
              f"{'; '.join(shown['outside'][:3])}")


def to_top(locator):
    """Scroll the page so that ``locator`` is at the top of the window (as a user reading it would)."""
    locator.first.evaluate("element => element.scrollIntoView({block: 'start'})")


def first_section(page):
    """Scroll to the first section under the Networks page's graph and export buttons, if any."""
    sections = page.locator("[data-testid='stMainBlockContainer'] h3")
    if sections.count():
        to_top(sections)


def walk_searches(walk, page, data):
    for label in walk.step(page, f"{data}: the searches offered", lambda: offered_searches(page), shoot=False) or []:
        print(f"     search: {label}")
        walk.step(page, f"{data}: run {label[:40]}", lambda label=label: run_one(page, label))
        walk.step(page, f"{data}: networks after {label[:30]}", lambda: networks(page, re.compile("^DAG$")))
        if any(word in label for word in ("Credible", "Bootstrap", "BNKL")):
            walk.step(page, f"{data}: sections of {label[:30]}", lambda: first_section(page))


def walk_views(walk, page, data):
    for view in ("RPDAG", "CPDAG", "DAGs in class", "Ask it"):
        walk.step(page, f"{data}: view {view}", lambda view=view: networks(page, re.compile(f"^{view}$")))
    walk.step(page, f"{data}: Ask it with evidence", lambda: (
        settle(page, lambda: page.get_by_role("button", name="Set this evidence").click()),
        nodes_outside(page)))


def edit_arc(page, network, tail, head):
    """Networks page, Edit view of ``network``: add the arc tail → head and wait for its score change."""
    open_page(page, "4 · Networks")
    if page.get_by_role("combobox", name="Network", exact=True).input_value() != network:
        choose_option(page, page.locator("[data-testid='stSelectbox']").filter(has_text="Network").first, network)
    networks(page, re.compile("^Edit$"))
    for label, node in (("From", tail), ("To", head)):
        choose_option(page, page.locator("[data-testid='stSelectbox']").filter(
            has=page.get_by_text(label, exact=True)).first, node)
    settle(page, lambda: page.get_by_role("button", name="Apply").click())
    page.get_by_text(f"Score change: add {tail} → {head}").first.wait_for()


def keep_edited(page, name):
    """Edit view: name the edited network and keep it; wait until the page says it is kept."""
    field = page.get_by_label("Name of the new network")
    field.fill(name)
    settle(page, lambda: field.press("Enter"))
    settle(page, lambda: page.get_by_role("button", name="Keep as a new network").click())
    page.get_by_text(f"Kept as {name}").first.wait_for()
    wait_idle(page)


def export_network(page, folder, format="net"):
    """Networks page: pick ``format`` in the export row and download the network; it must read back."""
    spec = FORMATS[format]
    open_page(page, "4 · Networks")
    box = page.locator("[data-testid='stSelectbox']").filter(
        has=page.get_by_role("combobox", name="Network file format")).first
    choose_option(page, box, f"{spec.title} ({spec.extensions[0]})")
    button = page.locator("[data-testid='stDownloadButton']").get_by_role("button", name=spec.title, exact=True)
    path = download(page, button, folder)
    print(f"     downloaded {path.name}: {read_network(path)}")
    return path


def held_out(page):
    """Compare page: run the held-out likelihood (hill climbing and the ground truth, 5 folds) and look at it."""
    open_page(page, "5 · Compare")
    to_top(page.get_by_role("heading", name="Held-out likelihood"))
    settle(page, lambda: page.locator(".st-key-cv_run button").first.click())
    page.get_by_text(re.compile(r"^Mean over \d+ folds")).first.wait_for(timeout=SEARCH_WAIT_MS)
    wait_idle(page)
    page.locator("[data-testid='stVegaLiteChart'] .marks").first.wait_for()  # the box plot drawn
    to_top(page.get_by_role("heading", name="Held-out likelihood"))


def import_network(page, path):
    """Networks page: open the import and upload the network file at ``path``."""
    open_page(page, "4 · Networks")
    page.locator("[data-testid='stExpander']").filter(has_text="or a network file").locator("summary").click()
    upload(page, "network files", path)
    page.get_by_text(re.compile(f"Imported {re.escape(path.name)}")).first.wait_for()
    to_top(page.get_by_role("heading", name="4 · Networks"))


def missing_em(page):
    """On the Data page, keep the blank cells (*Missing values: em*) and wait until the page says so."""
    open_page(page, "1 · Data")
    choose_radio(page, re.compile("^em$"))
    page.get_by_text("are kept as blanks").first.wait_for()
    to_top(page.get_by_text("Variables in use"))


def em_search(page):
    """Run hill climbing as structural EM (three iterations) and scroll to its log-likelihood chart."""
    open_page(page, "3 · Search")
    set_number(page, "EM iterations", 3)
    run_one(page, SEARCHES["hc"].label)
    to_top(page.get_by_text("Structural EM: observed-data log-likelihood per iteration"))


def walk_em(walk, page):
    """The survey with its blank cells kept: the Data page, the searches offered, a structural EM search and its
    chart, the network it learned (its tables fitted by EM), the Tune and Compare pages."""
    walk.step(page, "survey: Missing values em", lambda: missing_em(page))
    walk.step(page, "survey em: the Search page", lambda: open_page(page, "3 · Search"))
    walk.step(page, "survey em: structural EM hill climbing", lambda: em_search(page))
    walk.step(page, "survey em: Networks", lambda: networks(page, re.compile("^DAG$")))
    walk.step(page, "survey em: how structural EM went", lambda: first_section(page))
    walk.step(page, "survey em: Ask it (tables by EM)", lambda: networks(page, "Ask it"))
    walk.step(page, "survey em: Tune", lambda: open_page(page, "2 · Tune"))
    walk.step(page, "survey em: Compare", lambda: open_page(page, "5 · Compare"))


def replay(page, run=None):
    """Three steps of the replay: of the run whose name matches ``run`` (a regular expression), else the newest."""
    open_page(page, "3 · Search")
    if run is not None:
        choose_option(page, page.locator("[data-testid='stSelectbox']").filter(has_text="Search to replay").first,
                      re.compile(run))
    for _ in range(3):
        settle(page, lambda: page.get_by_role("button", name=re.compile("Next")).click())
    to_top(page.get_by_text("Teaching mode"))


def run_every_search(page):
    """Compare's one click: every search on the data in use, one after the other; wait until the button is back."""
    open_page(page, "5 · Compare")
    button = page.get_by_role("button", name="Run every search on this data")
    settle(page, button.click)
    page.locator("[data-testid='stProgress']").first.wait_for(state="detached", timeout=SEARCH_WAIT_MS)
    button.and_(page.locator(":enabled")).wait_for(timeout=SEARCH_WAIT_MS)
    to_top(page.get_by_text("Every search on this data"))


def stop_long_run(page):
    sample(page, "alarm")
    open_page(page, "3 · Search")
    only(page, next(label for label in offered_searches(page) if label.startswith("Exact")))
    set_number(page, "Time limit per search (s)", 900)
    page.get_by_role("button", name="Run", exact=True).click()
    progress = page.locator("[data-testid='stProgress']").first
    progress.filter(has_text="proven bound").wait_for(timeout=SEARCH_WAIT_MS)
    page.get_by_role("button", name="Stop").click()
    page.get_by_text("Finished:").or_(page.locator("[data-testid='stAlertContentError']")).first.wait_for(
        timeout=STEP_TIMEOUT)


def marked_table(folder):
    """A table that writes '?' for "no value", as the UCI tables do: ages with '?' among them, and a text column."""
    path = Path(folder) / "marked.csv"
    path.write_text("age,work,smoker\n" + "".join(
        f"{'?' if k % 9 == 0 else 20 + k * 0.37:.5},{'?' if k % 7 == 0 else ('paid', 'self', 'none')[k % 3]},"
        f"{'yes' if k % 4 else 'no'}\n" for k in range(150)))
    return path


def mark_missing(page, marks):
    """Type the table's marks for "no value" into *Also missing* and wait until the table is in use."""
    box = page.get_by_role("textbox", name="Also missing")
    box.fill(marks)
    settle(page, lambda: box.press("Enter"))
    page.get_by_text("Now using").first.wait_for()
    to_top(page.get_by_text("Variables in use"))


def headless_table(folder):
    """A table without a header line, as UCI writes them: its first line is data (0s, so names would repeat)."""
    path = Path(folder) / "no_header.csv"
    path.write_text("".join(f"{k % 2},{(k // 2) % 3},{'yes' if k % 5 else 'no'}\n" for k in range(90)))
    return path


def untick_header(page):
    """Untick *First line holds the column names* and wait until the table is in use."""
    box = page.locator("[data-testid='stCheckbox']").filter(has_text="First line holds the column names")
    settle(page, box.first.click)
    page.get_by_text("Now using").first.wait_for()
    wait_idle(page)


def bad_files(folder, bomb_mb):
    """The bad uploads: ``[(what, path)]``."""
    folder = Path(folder)
    binary = folder / "binary.csv"
    binary.write_bytes(bytes(range(256)) * 64)
    one = folder / "one_column.csv"
    one.write_text("score\n" + "\n".join(str(k % 7) for k in range(60)) + "\n")
    semicolon = folder / "semicolon.csv"
    semicolon.write_text("Raucher;Alter;Ergebnis\n" + "".join(
        f"{'ja' if k % 3 else 'nein'};{20 + k % 50};{'gut' if k % 4 else 'schlecht'}\n" for k in range(120)))
    bomb = folder / "bomb.csv.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as stream:
        stream.write(b"a,b\n")
        block = b"0,1\n" * (1 << 18)  # 1 MB
        for _ in range(bomb_mb):
            stream.write(block)
    return [("a binary file", binary), ("a one-column CSV", one), ("a semicolon-separated CSV", semicolon),
            (f"a gzip bomb ({bomb.stat().st_size // 1024} KB, {bomb_mb} MB expanded)", bomb)]


def walk_app(url, out, bomb_mb):
    walk = Walk(out)
    downloads = walk.out / "downloads"
    downloads.mkdir(exist_ok=True)
    with browser_session() as browser:
        page = walk.step(None, "open the app (asia is loaded)", lambda: new_page(browser, url), shoot=False)
        if page is None:
            return walk
        walk.step(page, "home")
        walk.step(page, "asia: Data page", lambda: open_page(page, "1 · Data"))
        walk.step(page, "asia: Tune page", lambda: open_page(page, "2 · Tune"))
        walk.step(page, "asia: count candidate parent sets", lambda: (settle(
            page, lambda: page.get_by_role("button", name=re.compile("^Count candidate parent sets")).click()),
            page.get_by_text("Kept as candidates").first.scroll_into_view_if_needed()))
        walk_searches(walk, page, "asia")
        walk_views(walk, page, "asia")
        walk.step(page, "asia: Edit, add smoke → dysp to the truth", lambda: edit_arc(
            page, "ground truth: asia", "smoke", "dysp"))
        walk.step(page, "asia: keep the edited network", lambda: keep_edited(page, "asia edited"))
        walk.step(page, "asia: replay three steps", lambda: replay(page))
        for search in ("pc", "ges", "mmhc"):
            walk.step(page, f"asia: replay three steps of {search}", lambda search=search: replay(page, f"^{search}"))
        walk.step(page, "asia: Compare", lambda: open_page(page, "5 · Compare"))
        walk.step(page, "asia: Compare runs every search", lambda: run_every_search(page))
        walk.step(page, "asia: Compare side by side", lambda: choose_radio(page, "Side by side"))
        walk.step(page, "asia: Compare held-out likelihood", lambda: held_out(page))
        exported = walk.step(page, "asia: export the network as Hugin NET", lambda: export_network(page, downloads))
        if exported is not None:
            walk.step(page, "asia: import that NET file", lambda: import_network(page, exported))
            walk.step(page, "asia: Ask the imported network", lambda: networks(page, "Ask it"))

        marked = marked_table(walk.out)
        walk.step(page, "a table with '?' for no value: upload", lambda: upload_table(page, marked))
        walk.step(page, "type ? into Also missing", lambda: mark_missing(page, "?"))
        walk.step(page, "survey: upload", lambda: upload_table(page, SURVEY))
        walk.step(page, "survey: its columns", lambda: to_top(page.get_by_text("Look at one column")))
        walk.step(page, "survey: class column outcome", lambda: choose_option(
            page, page.locator("[data-testid='stSelectbox']").filter(has_text="Class column").first,
            re.compile(r"^outcome")))
        walk.step(page, "survey: Tune page", lambda: open_page(page, "2 · Tune"))
        walk_searches(walk, page, "survey")
        walk_views(walk, page, "survey")
        walk.step(page, "survey: Compare", lambda: open_page(page, "5 · Compare"))
        walk_em(walk, page)

        sidebar = page.locator("[data-testid='stSidebar']")
        walk.step(page, "Save session", lambda: settle(page, sidebar.get_by_role("button", name="Save session")
                                                        .click))
        saved = walk.step(page, "download the session file", lambda: download(
            page, sidebar.get_by_role("button", name=re.compile("Download")), downloads), shoot=False)
        if saved is not None:
            print(f"     saved {saved} ({saved.stat().st_size:,} bytes)")
            fresh = walk.step(None, "a new browser session", lambda: new_page(browser, url), shoot=False)
            if fresh is not None:
                walk.step(fresh, "Open session in the new browser session",
                          lambda: upload(fresh, "Open a saved session", saved))
                walk.step(fresh, "the opened session's Search page", lambda: open_page(fresh, "3 · Search"))
                walk.step(fresh, "the opened session's Networks page", lambda: networks(fresh))
                fresh.context.close()

        walk.step(page, "Stop a long exact search on alarm", lambda: stop_long_run(page))
        walk.step(page, "after Stop: Networks", lambda: networks(page, re.compile("^DAG$")))
        for what, path in bad_files(walk.out, bomb_mb):
            walk.step(page, f"upload {what}", lambda path=path: upload_table(page, path))
        walk.step(page, "Tune page after the bad uploads", lambda: open_page(page, "2 · Tune"))
        walk.step(page, "upload a table without a header line", lambda: upload_table(page, headless_table(walk.out)))
        walk.step(page, "untick First line holds the column names", lambda: untick_header(page))
        if page.offline_requests:
            walk.flagged.append(f"the app asked the internet for {page.offline_requests[:3]}")
    return walk


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running app (default: start one on a free loopback port)")
    parser.add_argument("--out", default="/tmp/bnexplore-walk", help="folder for the screenshots")
    parser.add_argument("--bomb-mb", type=int, default=LIMIT_MB + 16,
                        help=f"what the gzip bomb expands to, MB (the app started here allows {LIMIT_MB})")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so `kill` stops the app and the browser too
    if args.url:
        walk = walk_app(args.url.rstrip("/"), args.out, args.bomb_mb)
    else:
        log = Path(args.out) / "streamlit.log"
        Path(args.out).mkdir(parents=True, exist_ok=True)
        with AppServer(log=log, env={"BNEXPLORE_MAX_EXPANDED_MB": str(LIMIT_MB)}) as url:
            print(f"app at {url} (log: {log})", flush=True)
            walk = walk_app(url, args.out, args.bomb_mb)
    print(f"\n{walk.number} steps in {time.monotonic() - walk.started:.0f} s; screenshots in {walk.out}")
    for line in walk.failed:
        print(f"FAILED {line}")
    for line in walk.flagged:
        print(f"SEEN {line}")
    return 1 if walk.failed or walk.flagged else 0


if __name__ == "__main__":
    sys.exit(main())
