"""The worker pool both servers share (:mod:`coscore.http.pool`): budgets, turns, cancelling."""
from __future__ import annotations

import time

import pytest

pytest.importorskip("starlette")

from coscore.http.pool import JobCancelled, OverBudget, WorkerPool
from http_support import sleeper
from support import wait_until


@pytest.fixture()
def pool():
    workers = WorkerPool(sleeper, size=1, timeout=3.0, memory=None)
    try:
        workers.submit("echo", 0).result(60)  # started
        yield workers
    finally:
        workers.close()


def test_jobs_run_and_a_job_past_its_time_is_stopped(pool):
    assert pool.submit("echo", "x").result(10)[1][:2] == ("echo", "x")
    with pytest.raises(OverBudget) as over:
        pool.submit("sleep", 10, timeout=0.5).result(10)
    assert over.value.budget == "time" and over.value.limit == 0.5
    assert pool.submit("echo", 1).result(60)[0] == 200 and pool.restarts == 1


def test_groups_take_turns_and_requests_go_first(pool):
    blocker = pool.submit("sleep", 0.5)
    big = [pool.submit("echo", ("big", i), group="big") for i in range(5)]
    small = pool.submit("echo", ("small", 0), group="small")
    request = pool.submit("echo", ("request", 0))
    blocker.result(10)
    order = sorted([*big, small, request], key=lambda f: f.result(10)[1][2])
    names = [f.result()[1][1] for f in order]
    assert names[0] == ("request", 0) and names.index(("small", 0)) <= 2, names


def test_cancelling_a_group_drops_its_jobs_and_stops_its_running_one(pool):
    running = pool.submit("sleep", 30, group="task", timeout=60)
    waiting = pool.submit("echo", 1, group="task")
    wait_until(lambda: pool.busy, 10, "the job to run")
    start = time.monotonic()
    pool.cancel("task")
    for job in (running, waiting):
        with pytest.raises(JobCancelled):
            job.result(10)
    assert time.monotonic() - start < 5
    assert pool.submit("echo", 2).result(60)[0] == 200


def test_a_request_that_cannot_get_a_worker_in_time_is_refused(pool):
    pool.submit("sleep", 2, timeout=5)
    with pytest.raises(OverBudget) as over:
        pool.submit("echo", 1, wait=0.3).result(10)
    assert over.value.budget == "workers"


def test_closing_fails_what_is_left():
    workers = WorkerPool(sleeper, size=1, timeout=5, memory=None)
    job = workers.submit("sleep", 30, group="g", timeout=60)
    wait_until(lambda: workers.busy, 60, "the job to run")
    workers.close()
    with pytest.raises(JobCancelled):
        job.result(10)
    with pytest.raises(JobCancelled):
        workers.submit("echo", 1).result(1)
