"""Ask it at 1280 x 720 in a real headless Chromium (issue 29 items 4 and 11): whole and readable.

For asia (8 nodes), the survey table (10 nodes of 2 to 6 states, uploaded)
and sachs (11 nodes) the Networks page's Ask it view draws every node inside
its frame with the state names and percentages at least ``READABLE_PX`` high
on screen (the canvas scale from vis-network times the font size written in
the nodes' pictures), before and after evidence, with the evidence controls
in the window beside it. alarm (37 nodes), which cannot be both whole and
readable there, opens zoomed in to the least readable scale and says so.
Screenshots go to test-artifacts/ (ask_*.png).
"""

import os
import re

import pytest

pytest.importorskip("playwright")

from playwright.sync_api import expect  # noqa: E402

from bnexplore import viz  # noqa: E402
from tests.test_browser import (SEARCH_MS, SURVEY, browser, run_search, server,  # noqa: E402,F401 (fixtures)
                                upload_table)
from tools.browser import (CHROMIUM, ROOT, STEP_TIMEOUT, choose_option,  # noqa: E402
                           choose_radio, drawn, new_page, open_page, problems, settle, text_px)

expect.set_options(timeout=STEP_TIMEOUT)

ARTIFACTS = ROOT / "test-artifacts"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Chromium is not installed at /usr/bin/chromium"),
]


@pytest.fixture
def page(server, browser):
    opened = new_page(browser, server)
    yield opened
    opened.context.close()


def load_sample(page, name):
    open_page(page, "1 · Data")
    choose_option(page, page.locator("[data-testid='stSelectbox']").filter(has_text="Sample").first, name)
    settle(page, lambda: page.get_by_role("button", name="Load sample").click())
    expect(page.get_by_text(f"Now using sample {name}").first).to_be_visible()


def ask_it(page):
    """Networks -> Ask it; what its graph shows: node count, nodes cut off, zoomed or not, text size."""
    open_page(page, "4 · Networks")
    choose_radio(page, "Ask it")
    expect(page.get_by_role("button", name="Set this evidence")).to_be_visible()
    return {**drawn(page), **text_px(page)}


def in_window(page, what, locator):
    box = locator.bounding_box()
    assert box is not None, f"{what} is not shown"
    assert 0 <= box["y"] and box["y"] + box["height"] <= 720, \
        f"{what} spans {box['y']:.0f}-{box['y'] + box['height']:.0f} px, outside the 720 px window"


def assert_whole_and_readable(page, nodes, name):
    shown = ask_it(page)
    assert shown["nodes"] == nodes, shown
    assert not shown["outside"] and not shown["zoomed"], f"first draw: not whole: {shown}"
    assert shown["font"] == viz.BAR_FONT
    assert shown["px"] >= viz.READABLE_PX, f"state names {shown['px']:.1f} px high on screen: {shown}"
    in_window(page, "the graph", page.locator("[data-testid='stIFrame']").first)
    in_window(page, "Set this evidence", page.get_by_role("button", name="Set this evidence"))
    page.screenshot(path=str(ARTIFACTS / f"ask_{name}.png"))
    settle(page, lambda: page.get_by_role("button", name="Set this evidence").click())
    expect(page.get_by_text("Evidence", exact=True)).to_be_visible()
    shown = {**drawn(page), **text_px(page)}
    page.screenshot(path=str(ARTIFACTS / f"ask_{name}_evidence.png"))
    assert not shown["outside"] and not shown["zoomed"] and shown["px"] >= viz.READABLE_PX, \
        f"after evidence: {shown}"
    in_window(page, "the button that removes the evidence", page.get_by_role("button", name=re.compile("^✕ ")))
    in_window(page, "Clear all evidence", page.get_by_role("button", name="Clear all evidence"))
    assert not problems(page), problems(page)


def test_ask_it_shows_asia_whole_and_readable(page):
    run_search(page, "hc · BDeu(1) · asia 5k")
    assert_whole_and_readable(page, 8, "asia")


def test_ask_it_shows_the_survey_network_whole_and_readable(page):
    upload_table(page, SURVEY)
    expect(page.get_by_text("Now using upload survey.csv").first).to_be_visible()
    open_page(page, "2 · Tune")
    choose_radio(page, "BIC — log-likelihood")
    run_search(page, "hc · BIC · survey 300")
    assert_whole_and_readable(page, 10, "survey")


def test_ask_it_shows_sachs_whole_and_readable(page):
    load_sample(page, "sachs")
    run_search(page, "hc · BDeu(1) · sachs 2k")
    assert_whole_and_readable(page, 11, "sachs")


def test_ask_it_opens_alarm_zoomed_in_to_readable_names(page):
    load_sample(page, "alarm")
    open_page(page, "3 · Search")
    settle(page, lambda: page.get_by_role("button", name="Run", exact=True).click())
    expect(page.get_by_text(re.compile(r"Finished: hc · BDeu\(1\) · alarm")).first).to_be_visible(timeout=SEARCH_MS)
    shown = ask_it(page)
    assert shown["nodes"] == 37 and shown["zoomed"], shown
    assert shown["px"] == pytest.approx(viz.READABLE_PX, rel=1e-3), shown
    frame = page.frame_locator("[data-testid='stIFrame']").first
    expect(frame.get_by_text("Zoomed in to keep names readable · double-click: whole network")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "ask_alarm.png"))
    assert not problems(page), problems(page)
