"""The app's Stop during a bootstrap frees the cores: its worker processes are gone when the job ends
(issue 30 item 5: two workers were still busy 70 s after Stop)."""

import importlib
import multiprocessing
import time

import psutil

from bnexplore_app import jobs
from test_app import go, new_session, no_exception


def wait_for(condition, seconds=300):
    """Wait (generously) until ``condition()`` holds; returns its last value."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


def test_stop_during_a_bootstrap_ends_its_worker_processes(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    # processes whatever this machine's speed: a warm, quiet machine learned 2,000 asia resamples
    # serially faster than starting processes pays for, so the job ended before any worker started
    # the module (the attribute bnexplore.bootstrap is the function of that name)
    monkeypatch.setattr(importlib.import_module("bnexplore.bootstrap"), "POOL_START_SECONDS", 0.0)
    slots = jobs.Slots(2)  # a server of its own: searches other tests left running hold no core of it
    monkeypatch.setattr(jobs, "server_slots", lambda: slots)
    at = new_session()
    go(at, "3_Search")
    at.multiselect(key="keep.search_algorithms").set_value(["bootstrap"])
    at.run()
    at.number_input(key="keep.search_bootstrap_R").set_value(2000)
    at.number_input(key="keep.search_time_limit").set_value(3600)
    at.run()
    at.button(key="search_run").click()
    at.run()
    no_exception(at)
    job = at.session_state["job"]
    workers = []

    def learning():
        workers[:] = multiprocessing.active_children()
        return len(workers) == 2 or not job.running

    assert wait_for(learning) and job.running and len(workers) == 2, (
        f"the bootstrap did not start two workers: {len(workers)} children, job running: {job.running}, "
        f"error: {job.error!r}")
    pids = [p.pid for p in workers]
    at.button(key="search_stop").click()
    at.run()
    assert job.wait(120)
    at.run()
    no_exception(at)
    assert job.results[0][1].stats["stopped"] == "stopped"
    assert not multiprocessing.active_children()
    assert not [pid for pid in pids if psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
