"""End to end in a real headless Chromium, in a projector-sized 1280 x 720 window.

Starts ``streamlit run app.py`` on a free local port and walks a two-data-set
journey with Playwright (using Debian's /usr/bin/chromium, never a downloaded
browser): learn on one sample, load another, learn again; Networks must show
the new network by name with the whole graph on screen, and Compare must refuse
the two networks of different data. Screenshots go to test-artifacts/. Skipped
when Chromium is absent.
"""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Chromium is not installed at /usr/bin/chromium"),
]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_healthy(url, process, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError("streamlit did not start within a minute")


@pytest.fixture(scope="module")
def server():
    port = free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    log = open(ARTIFACTS / "streamlit.log", "w")
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, process)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture(scope="module")
def page(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        tab = context.new_page()
        tab.set_default_timeout(60_000)
        offline = []
        tab.on("request", lambda request: offline.append(request.url)
               if not request.url.startswith(server) and not request.url.startswith("data:") else None)
        tab.goto(server)
        tab.offline_requests = offline
        yield tab
        browser.close()


def open_page(tab, label):
    tab.get_by_role("link", name=label).first.click()
    tab.get_by_role("heading", name=label).first.wait_for()


def shot(tab, name, full=False):
    """A screenshot; ``full`` makes the window tall enough for the whole page first."""
    if full:
        tab.set_viewport_size({"width": 1280, "height": 2400})
        tab.wait_for_timeout(600)
    tab.screenshot(path=str(ARTIFACTS / name))
    if full:
        tab.set_viewport_size({"width": 1280, "height": 720})
        tab.wait_for_timeout(300)


def choose_option(tab, box, option, tries=5):
    """Open a select box and pick ``option``; a rerun of the page may close the list as it opens, so
    open it again (at most ``tries`` times) until the option shows."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(tries):
        box.click()
        item = tab.get_by_role("option", name=option)
        try:
            item.first.wait_for(timeout=5000)
        except PlaywrightTimeout:
            tab.keyboard.press("Escape")
            continue
        item.first.click()
        return
    raise AssertionError(f"the option {option!r} never showed")


def run_hill_climbing(tab, expected_name):
    open_page(tab, "3 · Search")
    tab.get_by_role("button", name="Run").click()
    tab.get_by_text(f"Finished: {expected_name}.").first.wait_for()
    tab.locator("[data-testid='stVegaLiteChart'] canvas, [data-testid='stVegaLiteChart'] svg").first.wait_for()
    tab.wait_for_timeout(1000)


def test_two_data_sets_journey(page):
    page.get_by_text("learn Bayesian networks from a table").first.wait_for()
    page.get_by_text("Data in use:").first.wait_for()
    page.locator("[data-testid='stDataFrame']").first.wait_for()  # the summary of the bundled sample
    page.wait_for_timeout(800)
    shot(page, "01_home.png")

    run_hill_climbing(page, "hc · BDeu(1) · asia 5k")
    shot(page, "02_search_asia.png", full=True)

    # a Search option survives a visit to another page (Streamlit 1.67 dropped it; AppTest did not show it)
    limit = page.locator("input[aria-label='Time limit per search (s)']").first
    limit.fill("30")
    limit.press("Enter")  # sends the value with a rerun, which must finish before the page switch below
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    status = page.locator("[data-testid='stStatusWidget']")
    try:  # a loaded machine shows the rerun running (a switch now would interrupt it); a quick one may not
        status.wait_for(state="attached", timeout=10000)  # under load it appeared more than 2 s after Enter
    except PlaywrightTimeout:
        pass
    status.wait_for(state="detached")
    open_page(page, "2 · Tune")
    open_page(page, "3 · Search")
    assert page.locator("input[aria-label='Time limit per search (s)']").first.input_value() == "30"

    open_page(page, "1 · Data")
    page.get_by_role("button", name="Load sample").wait_for()
    choose_option(page, page.locator("[data-testid='stSelectbox']").filter(has_text="Sample").first, "sachs")
    page.get_by_role("button", name="Load sample").click()
    page.get_by_text("Now using sample sachs").first.wait_for()
    run_hill_climbing(page, "hc · BDeu(1) · sachs 2k")

    open_page(page, "4 · Networks")
    graph = page.frame_locator("[data-testid='stIFrame']").first
    graph.locator("#mynetwork canvas").wait_for()
    graph.get_by_text("hc · BDeu(1) · sachs 2k — DAG").wait_for()
    page.wait_for_timeout(1000)
    box = page.locator("[data-testid='stIFrame']").first.bounding_box()
    assert box["y"] + box["height"] <= 720, f"the graph ends at {box['y'] + box['height']:.0f} px, below the fold"
    assert box["width"] > 500 and box["height"] > 300
    shot(page, "03_networks_1280x720.png")

    open_page(page, "5 · Compare")
    page.frame_locator("[data-testid='stIFrame']").first.locator("#mynetwork canvas").wait_for()
    choose = page.locator("[data-testid='stMultiSelect']").first
    choose.get_by_role("button", name="Remove ground truth: sachs").click()  # the default reference
    choose_option(page, choose, "hc · BDeu(1) · asia 5k")
    page.keyboard.press("Escape")
    page.get_by_text("share fewer than two variables").first.wait_for()
    page.wait_for_timeout(800)
    shot(page, "04_compare_refuses.png")
    assert not page.offline_requests, f"the app asked the internet for {page.offline_requests[:3]}"
