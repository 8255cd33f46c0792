"""End to end in a real headless Chromium: load a sample, run hill climbing, look at the network.

Starts ``streamlit run app.py`` on a free local port, drives the main flow with
Playwright (using Debian's /usr/bin/chromium, never a downloaded browser) and
saves screenshots under test-artifacts/. Skipped when Chromium is absent.
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
        context = browser.new_context(viewport={"width": 1400, "height": 2000})
        tab = context.new_page()
        tab.set_default_timeout(45_000)
        tab.goto(server)
        yield tab
        browser.close()


def open_page(tab, label):
    tab.get_by_role("link", name=label).first.click()
    tab.get_by_role("heading", name=label).first.wait_for()


def test_main_flow(page):
    page.get_by_text("learn Bayesian networks from a table").first.wait_for()
    page.get_by_text("Data in use:").first.wait_for()
    page.locator("[data-testid='stDataFrame']").first.wait_for()  # the summary of the bundled sample
    page.wait_for_timeout(1000)
    page.screenshot(path=str(ARTIFACTS / "01_home.png"), full_page=True)

    open_page(page, "3 · Search")
    page.get_by_role("button", name="Run").click()
    page.get_by_text("Finished: hc").first.wait_for()
    page.locator("[data-testid='stDataFrame']").first.wait_for()
    page.locator("[data-testid='stVegaLiteChart'] canvas, [data-testid='stVegaLiteChart'] svg").first.wait_for()
    page.wait_for_timeout(1500)
    page.screenshot(path=str(ARTIFACTS / "02_search.png"), full_page=True)

    open_page(page, "4 · Networks")
    page.get_by_text("Colour nodes by local score").first.wait_for()
    frame = page.frame_locator("[data-testid='stIFrame']").first
    frame.locator("#mynetwork canvas").wait_for()
    page.wait_for_timeout(800)
    box = page.locator("[data-testid='stIFrame']").first.bounding_box()
    assert box["height"] > 400 and box["width"] > 400
    page.screenshot(path=str(ARTIFACTS / "03_networks.png"), full_page=True)

    open_page(page, "5 · Compare")
    page.frame_locator("[data-testid='stIFrame']").first.locator("#mynetwork canvas").wait_for()
    page.wait_for_timeout(800)
    page.screenshot(path=str(ARTIFACTS / "04_compare.png"), full_page=True)
