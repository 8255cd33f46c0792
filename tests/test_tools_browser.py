"""The browser helpers' own logic that needs no browser: evaluating in a graph whose frame a rerun replaced;
telling from the page's websocket frames when the run an action asked for has ended."""

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

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


class _Emitter:
    """A page or websocket that calls its handlers when told to."""

    def __init__(self):
        self.handlers = {}

    def on(self, event, handler):
        self.handlers.setdefault(event, []).append(handler)

    def emit(self, event, payload):
        for handler in self.handlers.get(event, []):
            handler(payload)


def _asked(fragment="", auto=False):
    message = BackMsg()
    message.rerun_script.fragment_id = fragment
    message.rerun_script.is_auto_rerun = auto
    return message.SerializeToString()


def _started():
    message = ForwardMsg()
    message.new_session.SetInParent()
    return message.SerializeToString()


def _ended(status):
    message = ForwardMsg()
    message.script_finished = status
    return message.SerializeToString()


@pytest.fixture
def watched():
    page, socket = _Emitter(), _Emitter()
    runs = browser.ScriptRuns(page)
    page.emit("websocket", socket)
    return runs, socket


def test_the_run_an_action_asked_for_ends_with_the_servers_end_not_a_fragments_timer(watched):
    """A fragment's own timer run ending after the click does not end the click's run; a run cut short by the
    next request sends no end and does not leave the page looking busy."""
    runs, socket = watched
    mark = runs.mark()
    socket.emit("framesent", _asked())
    socket.emit("framereceived", _started())
    assert not runs.ended_since(mark) and not runs.idle()
    socket.emit("framesent", _asked("status-note", auto=True))  # the warm-up note's timer, queued behind it
    socket.emit("framereceived", _ended(ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY))
    assert not runs.ended_since(mark)
    socket.emit("framesent", _asked())  # a second click cuts the first run short: no end for it
    socket.emit("framereceived", _started())
    assert not runs.ended_since(mark) and not runs.idle()
    socket.emit("framereceived", _ended(ForwardMsg.FINISHED_SUCCESSFULLY))
    assert runs.ended_since(mark) and runs.idle()
    assert not runs.ended_since(runs.mark())


def test_a_click_in_a_fragment_ends_with_the_fragments_run(watched):
    runs, socket = watched
    mark = runs.mark()
    socket.emit("framesent", _asked("progress"))
    socket.emit("framereceived", _started())
    socket.emit("framereceived", _ended(ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY))
    assert runs.ended_since(mark) and runs.idle()


def test_no_request_no_end_and_a_new_document_starts_idle(watched):
    """An end the page did not ask for (a run already going) does not count; a run left going by a document
    that loaded anew is gone with its socket."""
    runs, socket = watched
    socket.emit("framereceived", _started())
    mark = runs.mark()
    socket.emit("framereceived", _ended(ForwardMsg.FINISHED_SUCCESSFULLY))
    assert not runs.ended_since(mark) and runs.idle()
    socket.emit("framereceived", _started())
    assert not runs.idle()
    runs.page.emit("websocket", _Emitter())
    assert runs.idle()
