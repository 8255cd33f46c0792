"""The browser helpers' own logic that needs no browser: evaluating in a graph whose frame a rerun replaced."""

import pytest

from tools import browser


class _Frame:
    def __init__(self, outcome):
        self.outcome = outcome

    def evaluate(self, script):
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


def _frames(monkeypatch, outcomes):
    """graph_frame hands out one frame per call, each giving the next outcome; returns the calls made."""
    calls = []

    def graph_frame(page, index=0):
        calls.append(index)
        return _Frame(outcomes[len(calls) - 1])

    monkeypatch.setattr(browser, "graph_frame", graph_frame)
    return calls


def test_a_frame_replaced_by_a_rerun_is_evaluated_again_on_the_new_one(monkeypatch):
    replaced = Exception("Frame.evaluate: Execution context was destroyed, most likely because of a navigation")
    calls = _frames(monkeypatch, [replaced, {"nodes": 8}])
    assert browser.drawn(object(), index=1) == {"nodes": 8} and calls == [1, 1]


def test_any_other_failure_and_the_last_try_are_raised(monkeypatch):
    _frames(monkeypatch, [ValueError("nodes is not defined")])
    with pytest.raises(ValueError, match="not defined"):
        browser.drawn(object())
    detached = Exception("Frame was detached")
    calls = _frames(monkeypatch, [detached] * 3)
    with pytest.raises(Exception, match="detached"):
        browser.text_px(object())
    assert len(calls) == 3
