"""The workbench in a real headless Chromium at 1280 x 720 (issue 35): an edit by hand, a cross-validation and
an intervention, clicked as a user does.

On asia's ground truth the Networks page's Edit view adds smoke → dysp (the
page shows the score change, equal to an independent Scorer's), with the graph
and the edit controls in the window together; the edited network is kept as a
new network, put beside the truth in the Compare page's held-out likelihood
(its summary and box plot appear), and asked in Ask it with do(lung = yes).
Screenshots go to test-artifacts/ (workbench_*.png).
"""

import os

import pytest

pytest.importorskip("playwright")

from playwright.sync_api import expect  # noqa: E402

from bnexplore import bundled  # noqa: E402
from bnexplore.bif import read_bif  # noqa: E402
from bnexplore.data import read_csv  # noqa: E402
from bnexplore.graphs import DAG  # noqa: E402
from bnexplore.scores import Scorer  # noqa: E402
from bnexplore_app.edit_view import signed  # noqa: E402
from tests.test_browser import SEARCH_MS, browser, server  # noqa: E402,F401 (fixtures)
from tests.test_browser_ask import ARTIFACTS, in_window  # noqa: E402
from tools.browser import (CHROMIUM, STEP_TIMEOUT, choose_option, choose_radio, drawn, new_page,  # noqa: E402
                           open_page, problems, settle)

expect.set_options(timeout=STEP_TIMEOUT)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Chromium is not installed at /usr/bin/chromium"),
]

KEPT = "asia edited"


@pytest.fixture
def page(server, browser):
    opened = new_page(browser, server)
    yield opened
    opened.context.close()


def box(page, label, kind="stSelectbox", exact=False):
    """The select box (or multiselect) whose label holds ``label`` (is ``label`` when ``exact``)."""
    boxes = page.locator(f"[data-testid='{kind}']")
    return (boxes.filter(has=page.get_by_text(label, exact=True)) if exact else boxes.filter(has_text=label)).first


def expected_change():
    """The score change of adding smoke → dysp to asia's true network, from a Scorer made here."""
    truth = read_bif(bundled.network_path("asia")).dag()
    arcs = [(truth.names[u], truth.names[v]) for u, v in truth.arcs()]
    scorer = Scorer(read_csv(bundled.sample_path("asia")), score="bdeu", ess=1.0)
    return scorer.total(DAG.from_arcs([*arcs, ("smoke", "dysp")], truth.names)) - scorer.total(truth)


def test_edit_keep_cross_validate_and_intervene(page):
    ARTIFACTS.mkdir(exist_ok=True)
    open_page(page, "4 · Networks")
    choose_radio(page, "Edit")
    apply = page.get_by_role("button", name="Apply")
    expect(apply).to_be_visible()
    choose_option(page, box(page, "From", exact=True), "smoke")
    choose_option(page, box(page, "To", exact=True), "dysp")
    settle(page, apply.click)
    change = page.locator("[data-testid='stMetric']").filter(has_text="Score change: add smoke → dysp")
    expect(change).to_be_visible()
    expect(change.locator("[data-testid='stMetricValue']")).to_have_text(signed(expected_change()))
    expect(page.get_by_text("ln Bayes factor against the start").first).to_be_visible()
    shown = drawn(page)
    assert shown["nodes"] == 8 and not shown["outside"], shown
    for what, locator in (("the graph", page.locator("[data-testid='stIFrame']").first), ("Apply", apply),
                          ("Undo", page.get_by_role("button", name="Undo")), ("the score change", change)):
        in_window(page, what, locator)
    page.screenshot(path=str(ARTIFACTS / "workbench_edit.png"))
    assert not problems(page), problems(page)

    name = page.get_by_label("Name of the new network")
    name.fill(KEPT)
    settle(page, lambda: name.press("Enter"))
    settle(page, lambda: page.get_by_role("button", name="Keep as a new network").click())
    expect(page.get_by_text(f"Kept as {KEPT}").first).to_be_visible()
    drawn(page)  # the kept network's graph, drawn and still
    page.screenshot(path=str(ARTIFACTS / "workbench_kept.png"))

    open_page(page, "5 · Compare")
    networks = box(page, "Networks (taken as they are)", "stMultiSelect")
    networks.scroll_into_view_if_needed()
    choose_option(page, networks, KEPT)
    page.keyboard.press("Escape")
    expect(networks.get_by_text(KEPT)).to_be_visible()
    settle(page, lambda: page.locator(".st-key-cv_run button").first.click())
    expect(page.get_by_text("Mean over 5 folds").first).to_be_visible(timeout=SEARCH_MS)
    expect(page.get_by_text("Log-likelihood per held-out row, one point per fold")).to_be_visible()
    expect(page.locator("[data-testid='stVegaLiteChart']").last).to_be_visible()
    page.get_by_role("heading", name="Held-out likelihood").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "workbench_heldout.png"))
    assert not problems(page), problems(page)

    open_page(page, "4 · Networks")
    expect(page.get_by_role("combobox", name="Network", exact=True)).to_have_value(KEPT)
    choose_radio(page, "Ask it")
    choose_option(page, box(page, "Observe or set"), "lung")
    settle(page, lambda: page.locator("[data-testid='stRadio'] label").filter(has_text="yes").first.click())
    settle(page, page.get_by_text("do(·)", exact=True).click)
    settle(page, lambda: page.get_by_role("button", name="Set this evidence").click())
    expect(page.get_by_role("button", name="✕ do(lung = yes)")).to_be_visible()
    expect(page.get_by_text("Intervention answer: P(· | do(lung = yes))").first).to_be_visible()
    page.mouse.move(900, 100)  # off the button, whose tooltip would cover the graph
    expect(page.get_by_role("tooltip")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / "workbench_do.png"))
    assert not problems(page), problems(page)
