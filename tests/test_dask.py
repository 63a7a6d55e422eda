"""grade-all on a real Dask cluster: a scheduler and two workers started here as processes of their own, a class graded
on it while its workers are killed, the grades compared with a local run's; and the scheduler going away mid-run.

The scheduler, the workers and every `autograder` run come from a new venv holding what `pip install '.[dask]'`
installs: the kit's wheel (never the checkout) and the distributions the dask extra requires, linked from the test
environment without reaching an index. The submitting `autograder` runs from it too: a worker refuses a task from a
process whose kit code differs, and the wheel's kit holds the bundled course, which the checkout's does not."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from autograder import paths
from autograder.cli import main
from tests.support.grading import mutate, quick_course_data
from test_install import KIT, venv_with_the_extra

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed (pip install '.[dask]')")

REFERENCE = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
STUB = (paths.ASSIGNMENTS / "D_grpo" / "grpo.py").read_text()
PRICE_BODY = "    logits_ref, rewards = np.asarray(logits_ref, dtype=float), np.asarray(rewards, dtype=float)\n"
CLASS = {
    "ada": REFERENCE,
    "ben": STUB,
    "dee": REFERENCE.replace("def price_exploit(logits_ref, rewards, exploit):", "def price_exploit("),  # broken
    "eve": mutate(REFERENCE, PRICE_BODY, "    while True:\n        pass\n"),  # hangs in one check
    "zed": REFERENCE,  # graded right, but the test kills every worker that grades it
}


@pytest.fixture(scope="module")
def kit():
    """The venv of `pip install '.[dask]'`: its scripts (dask, autograder) and its site-packages. In a folder every
    uid may pass through, so a worker's sandbox drops student code to a uid of its own, as from an instructor's venv."""
    if not (KIT / "setup.py").is_file():
        pytest.skip("the kit's sources are not here (the tests run from an installed kit)")
    base, venv, site = venv_with_the_extra("dask")
    yield {"bin": venv / "bin", "site": site}
    shutil.rmtree(base, ignore_errors=True)


def dask_env(**config) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the venv's own packages only
    env.update({f"DASK_DISTRIBUTED__{key.upper()}": str(value) for key, value in config.items()})
    return env


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, kit):
    """A scheduler that gives up on a task after a second worker died under it (allowed-failures 1) and hands one
    student at a time to each one-thread worker; two workers, each under its nanny (which restarts it); all run from
    the kit's venv, in a folder of their own."""
    folder = tmp_path_factory.mktemp("cluster")
    file = folder / "scheduler.json"
    env = dask_env(scheduler__allowed_failures=1, scheduler__worker_saturation="1.0")
    # each log is opened for the process that writes it, and stays open for as long as that process runs (SIM115)
    started = [subprocess.Popen([kit["bin"] / "dask", "scheduler", "--host", "127.0.0.1", "--port", "0",
                                 "--no-dashboard", "--scheduler-file", file], env=env, cwd=folder,
                                start_new_session=True, stdout=subprocess.DEVNULL,
                                stderr=open(folder / "scheduler.log", "w"))]  # noqa: SIM115
    deadline = time.monotonic() + 60
    while not file.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    for name in ("w1", "w2"):
        started.append(subprocess.Popen([kit["bin"] / "dask", "worker", "--scheduler-file", file, "--nthreads", "1",
                                         "--no-dashboard", "--name", name, "--host", "127.0.0.1"],
                                        env=env, cwd=folder, start_new_session=True, stdout=subprocess.DEVNULL,
                                        stderr=open(folder / f"{name}.log", "w")))  # noqa: SIM115
    address = json.loads(file.read_text())["address"]
    with distributed.Client(address, timeout=30, set_as_default=False) as client:
        client.wait_for_workers(2, timeout=60)
    yield address, started
    for process in reversed(started):
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture(scope="module")
def course_file(tmp_path_factory):
    """D's three cheap checks, with short limits so the hanging student costs seconds."""
    data = quick_course_data({"D": ("D.weights", "D.kl_penalty", "D.price_exploit")})
    data["limits"]["wall_seconds"] = 4
    path = tmp_path_factory.mktemp("course") / "course.yml"
    path.write_text(yaml.safe_dump(data))
    return path


def make_class(root: Path, students: dict) -> Path:
    for student, source in students.items():
        (root / student / "D_grpo").mkdir(parents=True)
        (root / student / "D_grpo" / "grpo.py").write_text(source)
    return root


def rows_of(out: Path) -> dict[str, dict]:
    if not (out / "grades.csv").exists():
        return {}
    return {r["student"]: r for r in csv.DictReader((out / "grades.csv").open())}


def kill_the_worker_grading(client, student: str, deadline: float, killed: list) -> None:
    """kill -9 the worker process that has ``student``'s task, while the task is on it (one that waits on the worker
    counts as well: the scheduler holds it against the worker that dies)."""
    def holding(worker):
        keys = client.processing().get(worker, ())
        return worker not in {w for _, w in killed} and any(str(key).endswith(f"-{student}") for key in keys)

    while time.monotonic() < deadline:
        for worker in [w for w in client.processing() if holding(w)]:
            pid = client.run(os.getpid, workers=[worker])[worker]
            if holding(worker):  # asked again just before the kill: on a busy machine the task may be done by now
                os.kill(pid, signal.SIGKILL)
                killed.append((student, worker))
                return
        time.sleep(0.05)
    raise AssertionError(f"{student}'s task never reached a worker")


def test_the_scheduler_and_the_workers_run_the_kit_installed_from_its_wheel(cluster, kit):
    address, _ = cluster
    with distributed.Client(address, timeout=30, set_as_default=False) as client:
        client.wait_for_workers(2, timeout=60)
        # a function made here travels by value, so the worker runs it with its own Python and imports its own kit
        workers = client.run(lambda: (sys.executable, __import__("autograder").__file__))
        scheduler = client.run_on_scheduler(lambda: sys.executable)
    assert len(workers) == 2 and scheduler == str(kit["bin"] / "python")
    for executable, package in workers.values():
        assert executable == str(kit["bin"] / "python")
        assert package == str(kit["site"] / "autograder" / "__init__.py")  # the wheel's install, not the checkout


def test_a_class_on_a_cluster_whose_workers_are_killed_gets_the_local_grades(cluster, kit, course_file, tmp_path):
    address, _ = cluster
    root = make_class(tmp_path / "class", CLASS)
    local, remote = tmp_path / "local", tmp_path / "remote"
    common = ["--course", str(course_file), "--seeds", "public", "--projects", "D"]
    alone = subprocess.run([kit["bin"] / "autograder", "grade-all", root, "--out", local, "--jobs", "2", *common],
                           capture_output=True, text=True, env=without_dask(tmp_path))
    assert alone.returncode == 0, alone.stderr  # --jobs needs no Dask

    run = subprocess.Popen([kit["bin"] / "autograder", "grade-all", root, "--out", remote, "--scheduler", address,
                            *common], stderr=subprocess.PIPE, text=True, env=dask_env())
    killed = []
    with distributed.Client(address, timeout=30, set_as_default=False) as client:
        deadline = time.monotonic() + 90
        kill_the_worker_grading(client, "eve", deadline, killed)  # once: eve is graded again elsewhere
        kill_the_worker_grading(client, "zed", deadline, killed)  # twice, past allowed-failures: zed crashed
        kill_the_worker_grading(client, "zed", deadline, killed)
    _, stderr = run.communicate(timeout=120)
    assert run.returncode == 0, stderr
    assert len(killed) == 3

    here, there = rows_of(local), rows_of(remote)
    assert there["zed"]["status"].startswith("crashed: its grading took down a worker 2 times"), there["zed"]
    assert there["zed"]["total"] == "0" and not (remote / "zed" / "report.json").exists()
    assert here["zed"] == {**here["ada"], "student": "zed"}
    del here["zed"], there["zed"]
    assert there == here  # every row but the crashed one, the killed eve's included, as the local run has it
    assert here["eve"]["status"] == "timed out: D.price_exploit" and here["dee"]["status"] == "does not compile: D"
    assert here["ada"]["total"] == "5" and here["ben"]["total"] == "0"
    for student in here:
        mine, theirs = (json.loads((out / student / "report.json").read_text()) for out in (local, remote))
        for report in (mine, theirs):
            for check in report["projects"]["D"]["checks"]:
                check.pop("seconds")
        assert mine == theirs, student
    assert (remote / "summary.html").exists() and "5 students" in stderr

    # a rerun on the cluster resumes: only the crashed student is graded again (and the scheduler lets it finish)
    rerun = subprocess.run([kit["bin"] / "autograder", "grade-all", root, "--out", remote, "--scheduler", address,
                            *common], capture_output=True, text=True, timeout=120, env=dask_env())
    assert rerun.returncode == 0, rerun.stderr
    rows = rows_of(remote)
    assert rows["zed"]["status"] == "graded" and rows["zed"]["total"] == "5"
    assert all(rows[s]["status"].startswith("unchanged") for s in here)


def test_the_scheduler_going_away_stops_the_run_and_keeps_what_is_done(cluster, kit, course_file, tmp_path):
    address, started = cluster
    root = make_class(tmp_path / "class", {"ada": REFERENCE, "eve": CLASS["eve"], "fox": CLASS["eve"],
                                           "gil": CLASS["eve"]})
    out = tmp_path / "out"
    run = subprocess.Popen([kit["bin"] / "autograder", "grade-all", root, "--out", out, "--scheduler", address,
                            "--course", course_file, "--seeds", "public"], stderr=subprocess.PIPE, text=True,
                           env=dask_env())
    deadline = time.monotonic() + 60
    while "ada" not in rows_of(out) and time.monotonic() < deadline:
        time.sleep(0.2)
    os.killpg(started[0].pid, signal.SIGKILL)  # the scheduler, while hanging students are still being graded
    gone = time.monotonic()
    _, stderr = run.communicate(timeout=60)
    assert time.monotonic() - gone < 45
    assert run.returncode == 3, stderr
    assert f"lost the scheduler at {address}" in stderr and "rerun to resume" in stderr, stderr
    assert "Traceback" not in stderr, stderr
    rows = rows_of(out)
    assert "ada" in rows and rows["ada"]["status"] == "graded"
    assert f"{len(rows)} graded, {4 - len(rows)} left" in stderr


def without_dask(tmp_path) -> dict:
    """An environment in which ``import distributed`` fails, as where the dask extra is not installed."""
    blocker = tmp_path / "nodask"
    blocker.mkdir(exist_ok=True)
    (blocker / "distributed.py").write_text("raise ImportError('no distributed here')\n")
    return {**os.environ, "PYTHONPATH": str(blocker)}


def test_without_dask_a_scheduler_is_refused_with_what_to_install(kit, tmp_path, course_file):
    root = make_class(tmp_path / "class", {"ada": REFERENCE})
    refused = subprocess.run([kit["bin"] / "autograder", "grade-all", root, "--out", tmp_path / "a", "--scheduler",
                              "tcp://127.0.0.1:1", "--course", course_file], capture_output=True, text=True,
                             env=without_dask(tmp_path))
    assert refused.returncode == 2, refused.stderr
    assert "error: --scheduler needs Dask's distributed" in refused.stderr
    assert "pip install 'rl-capstone-kit[dask]'" in refused.stderr and "grading on" not in refused.stderr


def test_jobs_and_insecure_are_refused_beside_a_scheduler(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_INSECURE", "0")  # main() sets it for --insecure: restored after this test
    root = make_class(tmp_path / "class", {"ada": REFERENCE})
    for extra in (["--jobs", "2"], ["--insecure"]):
        assert main(["grade-all", str(root), "--out", str(tmp_path / "o"), "--scheduler", "tcp://127.0.0.1:1",
                     *extra]) == 2
    said = capsys.readouterr().err
    assert "--jobs and --scheduler do not go together" in said and "AUTOGRADER_INSECURE=1" in said


def test_a_worker_with_other_kit_code_or_without_the_class_folder_refuses_with_a_row(tmp_path, course_file):
    from autograder.classroom.cluster import grade_on_worker, kit_digest
    from autograder.loader import load_course

    course = load_course(course_file, private=False)
    root = make_class(tmp_path / "class", {"ada": REFERENCE})
    other = grade_on_worker("ada", str(root / "ada"), course, "public", ["D"], kit="0" * 16)
    assert other.report is None and other.status.startswith("error: the worker on ")
    assert f"runs another version of the kit (its code {kit_digest()}, here {'0' * 16})" in other.status
    unseen = grade_on_worker("ada", str(tmp_path / "elsewhere" / "ada"), course, "public", ["D"], kit=kit_digest())
    assert unseen.report is None and "cannot see" in unseen.status and "shared file system" in unseen.status
    assert len(kit_digest()) == 16 and kit_digest() == kit_digest()
