"""Ask it with an intervention at 1280 x 720 in a real headless Chromium (issue 35 item 3): the do(·)
toggle beside "Set this evidence" is clicked like a user does, and the answer is the do-answer.
Screenshot to test-artifacts/ask_asia_do.png."""

import os

import pytest

pytest.importorskip("playwright")

from playwright.sync_api import expect  # noqa: E402

from tests.test_browser import browser, run_search, server  # noqa: E402,F401 (fixtures)
from tests.test_browser_ask import ARTIFACTS, ask_it, in_window  # noqa: E402
from tools.browser import CHROMIUM, STEP_TIMEOUT, choose_option, new_page, problems, settle  # noqa: E402

expect.set_options(timeout=STEP_TIMEOUT)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Chromium is not installed at /usr/bin/chromium"),
]


@pytest.fixture
def page(server, browser):
    opened = new_page(browser, server)
    yield opened
    opened.context.close()


def test_intervening_on_lung_in_the_browser(page):
    run_search(page, "hc · BDeu(1) · asia 5k")
    ask_it(page)
    box = page.locator("[data-testid='stSelectbox']").filter(has_text="Observe or set").first
    choose_option(page, box, "lung")
    settle(page, lambda: page.locator("[data-testid='stRadio'] label").filter(has_text="yes").first.click())
    toggle = page.get_by_text("do(·)", exact=True)
    in_window(page, "the do(·) toggle", toggle)
    settle(page, toggle.click)
    settle(page, lambda: page.get_by_role("button", name="Set this evidence").click())
    chip = page.get_by_role("button", name="✕ do(lung = yes)")
    expect(chip).to_be_visible()
    in_window(page, "the intervention's chip", chip)
    expect(page.get_by_text("Intervention answer: P(· | do(lung = yes))").first).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "ask_asia_do.png"))
    assert not problems(page), problems(page)
