"""The Search page as a user clicks it: Stop on an exact search, the score trace, the fast core's
compile time, data switches, BNKL on the rows in use, the replay's words and the queue of a shared server.

Every wait here is on a state the page or the job reaches (an event, a report), never on the clock.
"""

import threading

import pytest

from bnexplore.control import Control
from bnexplore.result import Result
from bnexplore.search.exact import exact_search
from bnexplore.search.hillclimb import hill_climb
from bnexplore_app import algorithms, jobs, warmup
from fakes import FakeClock
from test_app import errors, go, load_sample, new_session, no_exception, paste, run_search

ASIA_HC = "hc · BDeu(1) · asia 5k"


@pytest.fixture
def at():
    return new_session()


def until(condition, what, seconds=120):
    """Wait until ``condition()`` holds (checked every 10 ms), failing after ``seconds``."""
    tick = threading.Event()
    for _ in range(int(seconds * 100)):
        if condition():
            return
        tick.wait(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def start_search(at, algorithm, time_limit=None):
    go(at, "3_Search")
    at.multiselect(key="keep.search_algorithms").set_value([algorithm])
    if time_limit is not None:
        at.number_input(key="keep.search_time_limit").set_value(time_limit)
    at.run()
    at.button(key="search_run").click()
    at.run()
    no_exception(at)
    return at.session_state["job"]


def register(key, run, **kwargs):
    algorithms.register(algorithms.Algorithm(key, f"{key} (test)", "A search for one test.", run, **kwargs))


@pytest.fixture
def exact_until_stop():
    """Branch and cut on asia that, once it has a proven bound, waits for the Stop button (whatever the
    machine's speed), so the page is seen while it runs and after Stop."""

    def run(inputs, options, control):
        def progress(info):
            control.progress(info)
            if info.get("bound") is not None and info.get("score") is not None:
                control.stop.wait(120)

        inner = Control(progress=progress, stop=control.stop, min_interval=0.0)
        return exact_search(inputs.scorer(), max_indegree=2, engine="ilp", control=inner)

    register("exact-wait", run)
    yield "exact-wait"
    del algorithms.REGISTRY["exact-wait"]


def test_stop_on_branch_and_cut_shows_the_proven_gap_everywhere(at, exact_until_stop):
    job = start_search(at, exact_until_stop, time_limit=3600)
    until(lambda: any(r["bound"] is not None and r["score"] is not None for r in job.snapshot()), "a bound")
    at.run()
    no_exception(at)
    progress = at.get("progress")[0].proto.text
    assert "proven bound" in progress and "gap" in progress  # the live incumbent and bound
    at.button(key="search_stop").click()
    at.run()
    assert job.wait(120)
    at.run()
    no_exception(at)  # was: TypeError: cummax is not supported for object dtype
    result = job.results[0][1]
    stats = result.stats
    assert stats["stopped"] == "stopped" and stats["gap"] > 0
    note = f"stopped: within {stats['gap']:,.4g} of the optimum (proven bound {stats['bound']:,.2f})"
    assert any(note in s.value for s in at.success)  # the Search summary
    table = at.dataframe[-1].value
    assert table["stopped?"].tolist() == [note]  # the Results table


@pytest.fixture
def exact_stopped_at_once():
    """Branch and cut on asia stopped at its first report, before it has any network or bound."""

    def run(inputs, options, control):
        reported = []

        def progress(info):
            control.progress(info)
            reported.append(info)

        inner = Control(progress=progress, stop=lambda: bool(reported), min_interval=0.0)
        return exact_search(inputs.scorer(), max_indegree=2, engine="ilp", control=inner)

    register("exact-at-once", run)
    yield "exact-at-once"
    del algorithms.REGISTRY["exact-at-once"]


def test_an_exact_search_stopped_before_any_score_shows_no_error(at, exact_stopped_at_once):
    job = start_search(at, exact_stopped_at_once)
    assert job.wait(120)
    at.run()
    no_exception(at)
    assert job.results and all(p["score"] is None for p in job.trace())
    assert not at.error, errors(at)  # was: TypeError: cummax is not supported for object dtype
    assert any("Finished: exact-at-once" in s.value for s in at.success)


def test_the_trace_of_one_search_starts_at_zero_and_says_what_it_shows(at):
    run_search(at, algorithms=("hc",))
    chart = at.get("vega_lite_chart")[0].proto.spec
    assert '"domainMin": 0' in chart or '"domainMin":0' in chart
    assert "time since the search started (ms)" in chart or "time since the search started (s)" in chart
    caption = " ".join(c.value for c in at.caption)
    assert "Hill climbing rises quickly" in caption and "Dashed" not in caption
    run_search(at, algorithms=("rpdag",))
    caption = " ".join(c.value for c in at.caption)
    assert "RPDAG search climbs over equivalence classes" in caption and "Hill climbing" not in caption


def test_exact_and_credible_runs_are_a_table_not_two_dots(at):
    job = run_search(at, algorithms=("exact", "credible"))
    assert not job.errors, job.errors
    assert not at.get("vega_lite_chart")
    table = at.table[0].value
    exact = job.results[0][1]
    row = table[table["search"] == job.tasks[0].name].iloc[0]
    assert float(row["best score"]) == pytest.approx(exact.score, abs=1e-4) and float(row["gap"]) == 0
    assert any("Too few points in time for a line" in c.value for c in at.caption)


# --- compile time --------------------------------------------------------------------------------


class CompileTakes100Seconds:
    """A fast core that is not ready: waiting for it moves the fake clock 100 s on."""

    def __init__(self, clock):
        self.clock = clock
        self.waited = False

    def is_set(self):
        return self.waited

    def wait(self, timeout=None):
        self.clock.now += 100.0
        self.waited = True
        return True


def test_a_result_never_counts_the_wait_for_the_fast_core():
    clock = FakeClock(step=0.5)
    ready = CompileTakes100Seconds(clock)

    def run(control):
        return Result(None, 0.0, "bdeu", "test", stats={"seconds": control.elapsed})

    job = jobs.SearchJob([jobs.Task("t", "t", run)], ready=ready, clock=clock).start()
    assert job.wait(60)
    assert ready.waited and job.compile_seconds >= 100.0
    assert job.results[0][1].stats["seconds"] == pytest.approx(0.5)  # one tick of the fake clock, not 100 s


@pytest.fixture
def core_compiling(monkeypatch):
    """The fast core still compiling until the test says so."""
    done = threading.Event()

    def compiling(progress):
        progress("hill climbing", 0.25)
        done.wait(120)
        return 1.0

    core = warmup.WarmUp(compiling).start()
    until(lambda: core.step, "the warm-up's first report")
    monkeypatch.setattr(warmup, "CORE", core)
    yield done
    done.set()


def test_a_search_started_while_the_core_compiles_waits_and_says_so(at, core_compiling):
    at.run()
    assert any("Compiling the fast core once for this server (now: hill climbing), 25% done" in c.value
               for c in at.sidebar.caption)
    job = start_search(at, "hc")
    until(lambda: job.phase == "compiling", "the job waiting for the core")
    at.run()
    assert not job.reports
    progress = at.get("progress")[0].proto.text
    assert "compiling the fast core (once for this server, 25% done)" in progress and "step 0" not in progress
    core_compiling.set()
    assert job.wait(120)
    at.run()
    no_exception(at)
    result = job.results[0][1]
    assert result.stats["seconds_compiling"] == job.compile_seconds > 0
    assert result.stats["seconds"] < job.compile_seconds or result.stats["seconds"] < 1.0


# --- progress -------------------------------------------------------------------------------------


@pytest.fixture
def halfway_until_stop():
    """A search that reports 43 % done with a message and no step (as the bootstrap does), until Stop."""

    def run(inputs, options, control):
        control.report(done=0.43, message="bootstrap: 86/200 resamples", force=True)
        control.stop.wait(120)
        scorer = inputs.scorer()
        graph = __import__("bnexplore").DAG.empty(inputs.dataset.names)
        return Result(graph, scorer.total(graph), scorer.score_name, "halfway", stats={"stopped": "stopped"})

    register("halfway", run)
    yield "halfway"
    del algorithms.REGISTRY["halfway"]


def test_progress_of_a_search_without_steps_shows_its_message(at, halfway_until_stop):
    job = start_search(at, halfway_until_stop)
    until(lambda: job.reports, "the report")
    at.run()
    progress = at.get("progress")[0]
    assert "bootstrap: 86/200 resamples" in progress.proto.text and "step 0" not in progress.proto.text
    assert progress.value == 43
    at.button(key="search_stop").click()
    at.run()
    assert job.wait(60)


# --- a shared server ----------------------------------------------------------------------------


def test_a_search_queues_behind_the_servers_limit_and_shows_its_place(at, monkeypatch):
    slots = jobs.Slots(1)
    other = object()
    assert slots.acquire(other, threading.Event())  # another user's search holds the only place
    monkeypatch.setattr(jobs, "server_slots", lambda: slots)
    job = start_search(at, "hc")
    until(lambda: job.phase == "waiting" and slots.ahead(job) == 1, "the queue")
    at.run()
    assert "Waiting: 1 search ahead on this server (at most 1 run at once)" in at.get("progress")[0].proto.text
    slots.release(other)
    assert job.wait(120)
    at.run()
    no_exception(at)
    assert job.results and any("Finished" in s.value for s in at.success)


def test_queue_positions_and_borrowed_cores():
    slots = jobs.Slots(2)
    first, second, third, fourth = (object() for _ in range(4))
    stop = threading.Event()
    assert slots.acquire(first, stop) and slots.acquire(second, stop)
    waiting = [threading.Thread(target=slots.acquire, args=(job, stop)) for job in (third, fourth)]
    waiting[0].start()
    until(lambda: slots.ahead(third) == 1, "the third in the queue")
    waiting[1].start()
    until(lambda: slots.ahead(fourth) == 2, "the fourth in the queue")
    assert slots.borrow(first, 8) == 0  # never while others wait
    slots.release(first)
    waiting[0].join(60)
    assert slots.ahead(fourth) == 1 and slots.ahead(third) == 0
    stop.set()  # the fourth is stopped while it waits: it leaves the queue
    waiting[1].join(60)
    assert slots.ahead(fourth) == 0 and slots.borrow(second, 8) == 0  # second and third hold both places
    slots.release(third)
    assert slots.borrow(second, 8) == 1
    slots.give_back(second, 1)
    assert slots.borrow(second, 1) == 1


def test_a_bootstrap_gets_only_the_idle_cores():
    slots = jobs.Slots(4)

    class Job:
        pass

    job, other = Job(), object()
    job.slots = slots
    assert slots.acquire(job, threading.Event()) and slots.acquire(other, threading.Event())
    token = jobs.RUNNING.set(job)
    try:
        with jobs.cores(16) as workers:
            assert workers == 3  # its own place and the two idle ones
            assert slots.borrow(other, 8) == 0
        assert slots.borrow(other, 8) == 2  # given back when the bootstrap ends
    finally:
        jobs.RUNNING.reset(token)
    with jobs.cores(16) as workers:  # outside a job
        assert workers == 16


def test_the_servers_limit_is_read_from_the_environment():
    assert jobs.max_jobs({"BNEXPLORE_MAX_JOBS": "3"}) == 3
    assert jobs.max_jobs({}) >= 1
    for bad in ("0", "two", "-1", "1.5"):
        with pytest.raises(jobs.BNExploreError, match=f"BNEXPLORE_MAX_JOBS='{bad}' is not a whole number"):
            jobs.max_jobs({"BNEXPLORE_MAX_JOBS": bad})


def test_a_closed_tab_ends_its_search_after_the_grace_period():
    clock = FakeClock(step=0.0)
    reaper = jobs.Reaper(grace=120.0, clock=clock)
    connected = {"yes": True}

    def run(control):
        control.stop.wait(120)
        return Result(None, 0.0, "bdeu", "test", stats={"stopped": control.should_stop() and control.reason})

    job = jobs.SearchJob([jobs.Task("t", "t", run)], alive=lambda: connected["yes"])
    job.start()
    reaper._jobs[job] = clock()  # watched, without the reaper's own thread
    assert reaper.sweep() == [] and not job.stop.is_set()
    connected["yes"] = False  # the tab is closed
    clock.now += 119.0
    assert reaper.sweep() == [] and not job.stop.is_set()  # it may still come back
    clock.now += 1.0
    assert reaper.sweep() == [job] and job.stop.is_set()
    assert job.wait(60) and job.ended_by == "its browser tab was closed"
    assert job.results[0][1].stats["stopped"] == "stopped"
    assert reaper.sweep() == [] and not reaper._jobs


# --- switching data ---------------------------------------------------------------------------------


def test_after_switching_data_the_page_shows_the_data_in_use(at):
    run_search(at, algorithms=("hc",))
    assert any("Finished" in s.value for s in at.success)
    load_sample(at, "sachs")
    go(at, "3_Search")
    others = [e for e in at.expander if "other data" in e.label]
    assert [e.label for e in others] == ["Last search on other data: sample asia"]
    # asia's banner and trace only in that expander, one click away; nothing of it on the page itself
    assert [s.value for s in others[0].success] == [s.value for s in at.success] == [f"Finished: {ASIA_HC}. Open it on "
                                                                                     "the Networks page."]
    assert len(others[0].get("vega_lite_chart")) == len(at.get("vega_lite_chart")) == 1
    assert any("Runs on other data: tick the box above" in i.value for i in at.info)
    at.checkbox(key="keep.replay_other_data").check()
    at.run()
    no_exception(at)
    picker = at.selectbox(key="replay_result")
    assert picker.value == ASIA_HC and picker.format_func(ASIA_HC) == f"{ASIA_HC} (other data: sample asia)"
    run_search(at, algorithms=("hc",))
    assert any("Finished: hc · BDeu(1) · sachs" in s.value for s in at.success)
    load_sample(at, "asia")
    go(at, "3_Search")
    others = [e for e in at.expander if "other data" in e.label]
    assert [e.label for e in others] == ["Last search on other data: sample sachs"]
    outside = [s.value for s in at.success if s.value not in {x.value for x in others[0].success}]
    assert outside == [f"Finished: {ASIA_HC}. Open it on the Networks page."]  # asia's own, back again


# --- BNKL on the rows in use ----------------------------------------------------------------------


def test_bnkl_learns_from_the_rows_in_use(at):
    rows = ["x,y,group"] + [f"{i % 7},{'a' if i % 3 else 'b'},{'' if i % 10 == 3 else ('yes' if i % 2 else 'no')}"
                            for i in range(200)]
    paste(at, "\n".join(rows) + "\n")
    key = at.session_state["draft"]["table"].key if "draft" in at.session_state else at.session_state["table"].key
    at.radio(key=f"col-{key}-missing").set_value("drop")
    at.run()
    no_exception(at)
    assert at.session_state["dataset"].n_rows == 180
    at.selectbox(key="data_class").set_value("group")
    at.run()
    go(at, "3_Search")
    at.multiselect(key="keep.search_algorithms").set_value(["bnkl"])
    at.run()
    captions = " ".join(c.value for c in at.caption)
    assert "Runs on the 180 rows in use (of the file's 200" in captions
    assert "learns from the 180 rows in use" in captions and "(*pasted 200, 180 used*)" in captions
    at.button(key="search_run").click()
    at.run()
    job = at.session_state["job"]
    assert job.wait(120)
    at.run()
    no_exception(at)
    assert not job.errors, job.errors
    found = job.results[0][2]["bnkl"]
    assert sum(found.class_counts) == 180 and len(job.results[0][2]["frame"]) == 180
    assert "row 4 is missing" not in errors(at)


# --- the replay's words ----------------------------------------------------------------------------


def test_rpdag_replay_says_each_step_in_words_and_cites_the_paper_on_hover(at):
    job = run_search(at, algorithms=("rpdag",))
    assert not job.errors
    result = job.results[0][1]
    assert result.algorithm == "rpdag" and "rpdag" in result.extra
    at.selectbox(key="replay_result").set_value("rpdag · BDeu(1) · asia 5k")
    at.run()
    at.button(key="replay_next").click()
    at.run()
    no_exception(at)
    first = result.trajectory[0]
    line = next(m for m in at.markdown if m.value.startswith("**Step 1 of"))
    assert "Table 1" not in line.value and first["op"] not in line.value and "before it, " in line.value
    assert f"operator {first['op']}; the pair was in state {first['state']} of Table 1" in line.proto.help
    assert "Acid & de Campos (2003)" in line.proto.help
    play = at.button(key="replay_play")
    assert play.label == "Play" and "⏸" not in play.label


def test_the_replay_legend_draws_a_changed_link_without_an_arrow():
    from bnexplore import bundled
    from bnexplore.bif import read_bif, sample
    from bnexplore.data import Encoder
    from bnexplore.scores import Scorer
    from bnexplore.search.rpdag import rpdag_search
    from bnexplore_app import replay

    data = Encoder().fit_transform(sample(read_bif(bundled.network_path("asia")), 2000, seed=2))
    result = rpdag_search(Scorer(data))
    frames = replay.graphs(result)
    legends = {}
    for k, step in enumerate(result.trajectory):
        picture = replay.drawing(frames[k], frames[k + 1], step, "test")
        changed = next(item for item in picture.legend if item.label == "changed in this step")
        legends[step["op"]] = changed.directed
    assert legends.get("A_link") is False and legends.get("A_arc", legends.get("A_hh")) is True, legends


@pytest.fixture
def ends_at_its_limit():
    """A search that runs to its time limit by design (as OBS and ASOBS do with no count): its best score is
    reached at 0.2 s and held to the limit at 1.0 s (two points in time: a table)."""

    def run(inputs, options, control):
        result = hill_climb(inputs.scorer())
        result.trajectory = [{"step": 0, "seconds": 0.2, "score": result.score},  # too few points for a line
                             {"step": 1, "seconds": 1.0, "score": result.score}]
        result.stats["stopped"] = "time limit"
        return result

    register("anytime", run)
    yield "anytime"
    del algorithms.REGISTRY["anytime"]


def test_a_search_that_ends_at_its_time_limit_is_not_said_to_stop_early(at, ends_at_its_limit):
    """Was: "Stopped early (obs ...)" and a "seconds" column of 0.083 for an OBS run of 10 s: the column held the
    last point's time, read as the run's length, and "early" is not true of a search meant to use its limit."""
    job = start_search(at, ends_at_its_limit)
    assert job.wait(120)
    at.run()
    no_exception(at)
    summary = " ".join(s.value for s in at.success)
    assert f"Ended at the time limit ({job.tasks[0].name}): the best network found by then is kept." in summary
    assert "Stopped early" not in summary
    table = at.table[0].value
    assert list(table.columns) == ["search", "best score", "proven upper bound", "gap", "best found at (s)"]
    assert float(table["best found at (s)"].iloc[0]) == pytest.approx(0.2)
    assert at.dataframe[-1].value["stopped?"].tolist() == ["ended at the time limit"]  # the Results table
