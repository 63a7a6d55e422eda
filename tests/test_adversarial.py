"""Adversarial submissions: each attack costs the checks it touches, with a reason, and gains nothing; the other
checks of the submission and the other students of a class are graded as usual, and nothing outlives its check.

Infinite loops, memory bombs, sys.exit/os._exit and output floods of a single piece are in test_bad_input.py; this
file adds the CPU and process limits, attacks in the middle of A's training, forged results, monkeypatching, lying
objects, snooping for the solutions and seeds, the network, and attacks on a class run's and Gradescope's output.
Where an attack is stopped only by the drop to an unprivileged uid (the grader runs as root), the test is skipped
when the drop is not in effect, and says so.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from autograder import paths
from autograder.classroom.local import grade_all
from autograder.loader import load_course
from autograder.grading import grade
from autograder.sandbox import user
from autograder.sandbox.child import plain
from autograder.sandbox.limits import network_isolation_available
from tests.support.grading import checks_by_id, grade_checks, mutate, quick_course_data, write_submission

REFERENCE_D = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
REFERENCE_A = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
CHEAP = ["D.weights", "D.kl_penalty"]
KL_BODY = "    r, p, p_ref = (np.asarray(a, dtype=float) for a in (r, p, p_ref))\n"
DROPPED = user.dropping(load_course(paths.COURSE_FILE, private=False).limits.sandbox_uids)
LIMIT_BINDS = DROPPED or os.geteuid() != 0  # the process limit never binds root
needs_drop = pytest.mark.skipif(not DROPPED, reason="stopped by the drop to a uid of its own, which needs a grader "
                                                    "running as root with a Python other users can run")


def tight(course, **limits):
    return course.model_copy(update={"limits": course.limits.model_copy(update=limits)})


def only_fails(results: dict, failing: str, phrase: str):
    """``failing`` scored 0 with ``phrase`` in its message; every other check passed."""
    for check_id, result in results.items():
        if check_id == failing:
            assert result["score"] == 0 and phrase in result["message"], result
            assert "Traceback" not in result["message"]
        else:
            assert result["passed"], (check_id, result["message"])


def in_kl(tmp_path, code: str) -> Path:
    """The reference D with ``code`` run first thing in kl_penalized_reward."""
    return write_submission(tmp_path, mutate(REFERENCE_D, KL_BODY, code + KL_BODY))


def processes_with(marker: str) -> int:
    count = 0
    for entry in Path("/proc").iterdir():
        try:
            count += marker.encode() in (entry / "cmdline").read_bytes()
        except OSError:
            continue
    return count


@pytest.fixture()
def open_folder():
    """A temporary folder other uids may enter (pytest's own are closed to them), so that only the grader's
    protections, not the folder's mode, can stop an attack on what is inside."""
    folder = Path(tempfile.mkdtemp(prefix="adversarial-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


# ------------------------------------------------------------------------------------------------ limits


def test_a_cpu_burner_is_stopped_by_the_cpu_limit(tmp_path, course):
    root = in_kl(tmp_path, "    while True:\n        pass\n")
    only_fails(grade_checks(root, tight(course, cpu_seconds=2, wall_seconds=60), CHEAP), "D.kl_penalty",
               "used more than 2 s of CPU")


@pytest.mark.skipif(not LIMIT_BINDS, reason="run as root without the drop, no process limit binds")
@pytest.mark.parametrize("escape", [False, pytest.param(True, marks=needs_drop)], ids=["in-group", "setsid"])
def test_a_process_bomb_is_capped_and_leaves_no_process_behind(tmp_path, course, escape):
    marker = f"{4000 + os.getpid() % 1000}.{int(escape)}25"
    root = in_kl(tmp_path, f"    import subprocess\n    for _ in range(300):\n"
                           f"        subprocess.Popen(['sleep', '{marker}'], start_new_session={escape})\n")
    results = grade_checks(root, tight(course, processes=16), CHEAP)
    only_fails(results, "D.kl_penalty", "started more than 16 processes")
    assert processes_with(marker) == 0


@pytest.mark.parametrize("exit_call, phrase", [("sys.exit(0)", "`ppo_update` called sys.exit(0)"),
                                               ("os._exit(0)", "exited with code 0 before the check finished")])
def test_exiting_in_the_middle_of_training_costs_the_bar_only(tmp_path, course, exit_call, phrase):
    source = mutate(REFERENCE_A, '    B = len(batch["actions"])\n',
                    f"    global CALLS\n    CALLS = globals().get('CALLS', 0) + 1\n    if CALLS == 3:\n"
                    f"        import os, sys\n        {exit_call}\n" '    B = len(batch["actions"])\n')
    root = write_submission(tmp_path, source, "A_ppo", "ppo.py")
    only_fails(grade_checks(root, course, ["A.gae", "A.bar"]), "A.bar", phrase)


def test_an_output_flood_that_ignores_the_size_limit_is_stopped_by_the_wall_clock(tmp_path, course):
    root = in_kl(tmp_path, "    while True:\n        try:\n            print('x' * 10_000, flush=True)\n"
                           "        except OSError:\n            pass\n")
    only_fails(grade_checks(root, tight(course, output_mb=1, wall_seconds=4), CHEAP), "D.kl_penalty",
               "did not finish within 4 s")


# ------------------------------------------------------------------------------------------------ forged results

FORGE = """
import json as _json, os as _os, sys as _sys
_request = _json.load(open(_sys.argv[1]))
if _request["check"] == "D.weights":
{forge}
    _os._exit(0)
"""
FORGERIES = {
    "short lists": ("    open(_request['result'], 'w').write(_json.dumps({'status': 'ok', 'data': {"
                    "'group_centered_weight': [], 'group_standardized_weight': [], 'leave_one_out_weight': [], "
                    "'loo_k1_raises': True}}))", "not what the check collects"),
    "a pickle": ("    import pickle\n    open(_request['result'], 'wb').write(pickle.dumps({'status': 'ok'}))",
                 "it is not valid JSON"),
    "a link": ("    _os.symlink('/etc/hostname', _request['result'])", "it is not a plain file"),
    "a status that is no text": ("    open(_request['result'], 'w').write(_json.dumps({'status': ['ok'], 'data': {}}))",
                                 "does not have the form the grader writes"),
    "a huge file": ("    open(_request['result'], 'w').write('[' + '0,' * 9_000_000 + '0]')", "larger than 2 MB"),
    "a fifo": ("    _os.mkfifo(_request['result'])", "it is not a plain file"),
    "over the configured size": ("    open(_request['result'], 'w').write('[' + '0,' * 600_000 + '0]')",
                                 "larger than 1 MB"),
    # under the size limit, but a million tiny values would cost the grader 32 bytes each once parsed
    "many tiny values": ("    open(_request['result'], 'w').write(_json.dumps({'status': 'ok', 'data': {"
                         "'group_centered_weight': [0] * 900_000}}, separators=(',', ':')))",
                         "holds more than 131072 values"),
}


@pytest.mark.parametrize("forgery", FORGERIES)
def test_a_result_file_written_by_student_code_gains_nothing(tmp_path, course, forgery):
    code, phrase = FORGERIES[forgery]
    root = write_submission(tmp_path, REFERENCE_D + FORGE.format(forge=code))
    only_fails(grade_checks(root, tight(course, result_mb=1) if "1 MB" in phrase else course, CHEAP), "D.weights",
               phrase)


RANDOM_TRAIN = """
def ppo_update(agent, optimizer, batch, config, rng):
    import json, os, sys
    actor = [[np.zeros((4, 8)), np.zeros(8)], [np.zeros((8, 2)), np.zeros(2)]]  # a coin-flipping policy
{attack}
    return {{}}
"""
A_BAR_ATTACKS = {
    "forged result": """
    request = json.load(open(sys.argv[1]))
    run = {"actor": [[w.tolist() for w in layer] for layer in actor], "steps": 1920,
           "episodes": [[u, 500.0] for u in range(60) for _ in range(4)]}
    open(request["result"], "w").write(json.dumps({"status": "ok", "data": {"runs": [run]}}))
    os._exit(0)""",
    "patched evaluation and CartPole": """
    import gymnasium, rlkit.cartpole
    rlkit.cartpole.evaluate = lambda *args, **kwargs: np.full(16, 500.0)
    step = gymnasium.envs.classic_control.cartpole.CartPoleEnv.step
    def never_falls(self, action):
        obs, reward, terminated, truncated, info = step(self, action)
        return obs, reward, False, truncated, info
    gymnasium.envs.classic_control.cartpole.CartPoleEnv.step = never_falls""",
}


@pytest.mark.parametrize("attack", A_BAR_ATTACKS)
def test_claimed_returns_do_not_reach_the_bar_the_grader_replays_the_run(tmp_path, course, attack):
    root = write_submission(tmp_path, REFERENCE_A + RANDOM_TRAIN.format(attack=A_BAR_ATTACKS[attack]),
                            "A_ppo", "ppo.py")
    result = grade_checks(root, course, ["A.bar"])["A.bar"]
    assert result["score"] == 0, result
    assert "at update 1 of 60" in result["message"] or result["details"] == {"status": "malformed"}


# ------------------------------------------------------------------------------------------------ monkeypatching

ZERO_WEIGHTS = """
def group_centered_weight(r):
    return np.zeros(len(r))


group_standardized_weight = leave_one_out_weight = group_centered_weight
"""
PATCHES = {
    "the grader's case generator": "import autograder.projects.d_grpo.pieces as _p\n"
                                   "_p.make_groups = lambda seed, n: []\n",
    "the grader's comparison": "import autograder.checks as _c\n_c.close = lambda *args: True\n"
                               "_c.Verdict.of = classmethod(lambda cls, failures, total, message, **kw: "
                               "cls(1.0, message))\n",
    "numpy": "np.allclose = np.array_equal = lambda *args, **kwargs: True\n"
             "_rng = np.random.default_rng\nnp.random.default_rng = lambda seed=None: _rng(0)\n",
}


@pytest.mark.parametrize("patched", PATCHES)
def test_monkeypatching_the_grader_or_numpy_in_the_child_gains_nothing(tmp_path, course, patched):
    root = write_submission(tmp_path, REFERENCE_D + ZERO_WEIGHTS + PATCHES[patched])
    results = grade_checks(root, course, CHEAP)
    assert results["D.weights"]["score"] == 0, results["D.weights"]
    assert results["D.kl_penalty"]["passed"] or patched == "numpy", results["D.kl_penalty"]


def test_a_first_minibatch_made_up_by_patching_the_recorder_is_refused(tmp_path, course):
    buggy = mutate(REFERENCE_A, 'batch["actions"][idx], batch["logp"][idx], adv,',
                   'batch["actions"][idx], batch["logp"][:len(idx)], adv,')
    patch = """
import autograder.projects.a_ppo.public.ratio as _collector
from rlkit.categorical import log_prob as _log_prob
def _made_up(student, agent, batch, make_config, seen):
    logits = np.random.default_rng(0).normal(size=(8, 2))
    actions = np.zeros(8, dtype=int)
    seen.update(logits=logits, actions=actions, logp_old=_log_prob(logits, actions))
    return seen
_collector.first_surrogate_call = _made_up
"""
    result = grade_checks(write_submission(tmp_path, buggy + patch, "A_ppo", "ppo.py"), course, ["A.ratio"])["A.ratio"]
    assert result["score"] < result["max_score"] and "a minibatch of the batch it was given" in result["message"]


LIARS = """
class _Liar:
    def __init__(self, n):
        self.n = n
    def __array__(self, dtype=None, copy=None):
        return np.full(self.n, 7.0)
    def __eq__(self, other):
        return True
    def __float__(self):
        return 0.25
    def __len__(self):
        return self.n


class _Quarter(float):
    def __eq__(self, other):
        return True
    def __float__(self):
        return 0.25


def kl_penalized_reward(r, p, p_ref, beta):
    return _Liar(len(r))


def price_exploit(logits_ref, rewards, exploit):
    return _Quarter(0.0)
"""


def test_objects_whose_eq_float_or_array_lie_gain_nothing(tmp_path, course):
    results = grade_checks(write_submission(tmp_path, REFERENCE_D + LIARS), course,
                           ["D.weights", "D.kl_penalty", "D.price_exploit"])
    assert results["D.weights"]["passed"]
    assert results["D.kl_penalty"]["score"] == 0
    assert results["D.price_exploit"]["score"] < results["D.price_exploit"]["max_score"]


def test_results_cross_the_boundary_as_plain_data_and_never_as_pickles():
    assert plain({"a": __import__("numpy").arange(3), "b": (1.5, True)}) == {"a": [0, 1, 2], "b": [1.5, True]}
    with pytest.raises(TypeError):
        plain(object())
    sources = [p.read_text() for p in (Path(paths.KIT_ROOT) / "autograder").rglob("*.py")]
    assert not any("import pickle" in s or "allow_pickle=True" in s or "marshal" in s for s in sources)


# ------------------------------------------------------------------------------------------------ snooping

SNOOP = """    import json, os, sys, autograder, autograder.paths
    from autograder.projects.d_grpo import oracle

    def readable(path):
        try:
            open(path).read(1)
            return True
        except OSError:
            return False
    try:
        oracle.kl_penalized(r, p, p_ref, beta)
        reference = "ran"
    except RuntimeError:
        reference = "refused"
    found = {{"env": dict(os.environ), "path": sys.path, "cwd": os.getcwd(), "file": autograder.__file__,
             "solutions": readable(autograder.paths.SOLUTIONS / "D_grpo" / "grpo.py"),
             "overlay": readable({overlay!r}), "uid": os.getuid(), "reference": reference,
             "request": open(sys.argv[1]).read(),
             "oracles": {{p.name: p.read_bytes().count(b"not available to code running in the sandbox")
                         for p in __import__("pathlib").Path(autograder.__file__).parent.rglob("oracle*")}}}}
    raise ValueError("FOUND<<" + json.dumps(found) + ">>FOUND")
"""


def test_student_code_finds_no_path_to_the_solutions_the_oracle_or_the_private_overlay(tmp_path, course, open_folder):
    overlay = open_folder / "course.private.yml"
    overlay.write_text("seeds: {grading: [4711, 815, 2026]}\n")
    overlay.chmod(0o600)
    private = load_course(paths.COURSE_FILE, private=overlay)
    root = in_kl(tmp_path, SNOOP.format(overlay=str(overlay)))
    graded = grade(root, private, seed_set="grading", checks=["D.kl_penalty"], for_student=False)  # what it found
    message = checks_by_id(graded.report.to_json())["D.kl_penalty"]["message"]
    found = json.loads(message[message.index("FOUND<<") + 7:message.rindex(">>FOUND")])
    kit = str(paths.KIT_ROOT)
    # the Python environment the grader runs in is on sys.path; only it may lie inside the kit's folder
    assert not any(entry == kit or (entry.startswith(kit + os.sep) and not entry.startswith(sys.prefix))
                   for entry in found["path"])
    assert not found["file"].startswith(kit) and not found["cwd"].startswith(kit)
    assert not any(kit in value or str(overlay) in value for value in found["env"].values())
    assert "AUTOGRADER_PRIVATE" not in found["env"]
    assert kit not in found["request"] and str(overlay) not in found["request"]
    assert found["reference"] == "refused" and not found["solutions"]
    # the stubs alone, as source and as the bytecode the child loads: no oracle's compiled code was staged
    assert "oracle.py" in found["oracles"] and any(name.endswith(".pyc") for name in found["oracles"])
    assert all(count > 0 for count in found["oracles"].values())
    if DROPPED:
        assert found["uid"] != 0 and not found["overlay"]  # a file closed to others stays closed


@pytest.mark.skipif(not network_isolation_available(), reason="no network namespace can be made here")
def test_student_code_cannot_reach_the_network(tmp_path, course):
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(0)
        port = server.getsockname()[1]
        root = in_kl(tmp_path, f"    import socket\n    try:\n"
                               f"        socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'leak')\n"
                               "    except OSError:\n        pass\n")
        results = grade_checks(root, course, CHEAP)
        assert all(r["passed"] for r in results.values())
        with pytest.raises(BlockingIOError):
            server.accept()


# ------------------------------------------------------------------------------------------------ the output folders

def vandal(targets: list[Path], spoiled: Path, marker: str) -> str:
    """Module-level code that forges files, spoils another student's submission, and leaves a process behind to try
    again after the grader has written its own files."""
    return f"""
import subprocess as _subprocess, sys as _sys
_TARGETS = {[str(t) for t in targets]!r}


def _try(path, text):
    try:
        with open(path, "w") as handle:
            handle.write(text)
    except OSError:
        pass


for _target in _TARGETS:
    _try(_target, '{{"score": 1000}}')
_try({str(spoiled)!r}, "raise SystemExit('spoiled')\\n")
_later = "import time\\ntime.sleep(3)\\nfor t in %r:\\n    open(t, 'w').write('forged')\\n# {marker}" % (_TARGETS,)
_subprocess.Popen([_sys.executable, "-c", _later], start_new_session=True, stdout=_subprocess.DEVNULL,
                  stderr=_subprocess.DEVNULL)
"""


def quick_course_file(folder: Path) -> Path:
    data = quick_course_data({"D": CHEAP})
    (folder / "course.yml").write_text(yaml.safe_dump(data))
    return folder / "course.yml"


@needs_drop
def test_a_class_run_keeps_its_grades_reports_and_other_students_intact(open_folder):
    course = load_course(quick_course_file(open_folder), private=False)
    submitted, out = open_folder / "class" / "submitted", open_folder / "out"
    alice = submitted / "alice" / "D_grpo" / "grpo.py"
    targets = [out / "grades.csv", out / "alice" / "report.json", out / "mallory" / "report.json"]
    marker = f"vandal-{os.getpid()}"
    for student, source in (("alice", REFERENCE_D), ("mallory", REFERENCE_D + vandal(targets, alice, marker))):
        (submitted / student / "D_grpo").mkdir(parents=True)
        (submitted / student / "D_grpo" / "grpo.py").write_text(source)
    for folder in (submitted.parent, submitted, *submitted.iterdir()):
        folder.chmod(0o755)
    (out / "alice").mkdir(parents=True)
    (out / "mallory").mkdir()

    rows = {row.student: row for row in grade_all(open_folder / "class", out, course)}
    assert alice.read_text() == REFERENCE_D
    assert rows["alice"].report.score == rows["mallory"].report.score == 3.0
    assert processes_with(f"  # {marker}") == 0
    for target in targets:
        assert "1000" not in target.read_text() and "forged" not in target.read_text()


@needs_drop
def test_a_gradescope_run_writes_its_own_results_whatever_the_upload_writes(open_folder, monkeypatch):
    import autograder.loader
    from autograder import gradescope

    course = load_course(quick_course_file(open_folder), private=False)
    monkeypatch.setattr(autograder.loader, "load_course", lambda *args, **kwargs: course)
    root = open_folder / "autograder"
    results = root / "results" / "results.json"
    marker = f"vandal-{os.getpid()}-gs"
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "grpo.py").write_text(REFERENCE_D + vandal([results], root / "nothing.py", marker))
    for folder in (root, root / "submission"):
        folder.chmod(0o755)

    assert gradescope.run(root)["score"] == 3.0
    assert json.loads(results.read_text())["score"] == 3.0
    assert processes_with(f"  # {marker}") == 0


READ_LINKS = """    import os
    seen = []
    for name in ("notes.yml", "more.txt"):
        try:
            seen.append(open(os.path.join(os.path.dirname(__file__), name)).read())
        except OSError as exc:
            seen.append(type(exc).__name__)
    if seen == ["FileNotFoundError", "FileNotFoundError"]:  # nothing read: the attack gives up; else it goes on
        raise ValueError(" | ".join(seen))
"""


@needs_drop
def test_a_link_in_a_gradescope_upload_does_not_reveal_the_grading_seeds(open_folder, monkeypatch):
    import autograder.loader
    from autograder import gradescope

    overlay = open_folder / "course.private.yml"
    overlay.write_text("seeds: {grading: [4711, 815, 2026]}\n")
    overlay.chmod(0o644)  # as unzipped: readable by anyone, until run() makes it root's alone
    course = load_course(quick_course_file(open_folder), private=overlay)
    monkeypatch.setattr(paths, "PRIVATE_FILE", overlay)
    monkeypatch.setattr(autograder.loader, "load_course", lambda *args, **kwargs: course)
    root = open_folder / "autograder"
    closed = open_folder / "closed"  # a file anyone may read, in a folder only root may enter
    closed.mkdir(mode=0o700)
    (closed / "secret.txt").write_text("SECRET-8841")
    source = mutate(REFERENCE_D, KL_BODY, READ_LINKS + KL_BODY)
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "grpo.py").write_text(source)
    (root / "submission" / "notes.yml").symlink_to(overlay)
    (root / "submission" / "more.txt").symlink_to(closed / "secret.txt")
    (root / "submission" / "closed").symlink_to(closed)  # the grader must not open it up while copying
    for folder in (root, root / "submission"):
        folder.chmod(0o755)

    results = gradescope.run(root)
    assert overlay.stat().st_mode & 0o077 == 0
    kl = next(test for test in results["tests"] if test["name"].startswith("D.kl_penalty"))
    assert kl["score"] == 0 and "your code raised ValueError" in kl["output"]  # links out: left out, nothing read
    assert "4711" not in json.dumps(results) and "SECRET-8841" not in json.dumps(results)
    assert closed.stat().st_mode & 0o777 == 0o700


def test_grading_warns_when_the_private_overlay_is_readable_by_others(tmp_path, capsys):
    from autograder.cli import main

    overlay = tmp_path / "course.private.yml"
    overlay.write_text("seeds: {grading: [4711, 815, 2026]}\n")
    overlay.chmod(0o644)
    main(["grade", str(tmp_path), "--projects", "D", "--private", str(overlay)])
    assert "can be read by other users" in capsys.readouterr().err
    overlay.chmod(0o600)
    main(["grade", str(tmp_path), "--projects", "D", "--private", str(overlay)])
    assert "can be read by other users" not in capsys.readouterr().err


INPUTS_TAMPERED = """
import glob as _glob, os as _os, sys as _sys
for _name in _glob.glob(_os.path.join(_os.path.dirname(_sys.argv[1]), "inputs*")):  # beside the child's request
    try:
        _os.remove(_name)
    except OSError:
        pass
    try:
        with open(_name, "w") as _out:
            _out.write('{"calls": []}')
    except OSError:
        pass
"""


def test_a_module_that_rewrites_the_childs_inputs_at_import_changes_nothing(tmp_path, course):
    """A check written once hands its child the calls' inputs as a file, and the student's modules load in that
    child. In the sandbox the file is mounted read-only; a module that tries to remove or rewrite it at import leaves
    every row as it was."""
    results = grade_checks(write_submission(tmp_path, REFERENCE_D + INPUTS_TAMPERED), course, CHEAP)
    for cid in CHEAP:
        assert results[cid]["passed"], results[cid]


def test_a_childs_inputs_are_read_before_the_students_modules_load(tmp_path, course):
    """Where nothing mounts it read-only, the child still reads its inputs before the student's code runs: a module
    that rewrites the file at import, run by the child itself with the file writable, leaves the row as it was."""
    from autograder.plan import planned
    from autograder.sandbox.child import run

    item = planned(course, "D", "D.kl_penalty", "public")
    inputs = tmp_path / "inputs.json"
    inputs.write_text(Path(item.check.prepare(item.context)).read_text())
    attack = f"\nwith open({str(inputs)!r}, 'w') as _out:\n    _out.write('{{\"calls\": []}}')\n"
    root = write_submission(tmp_path / "sub", REFERENCE_D + attack)
    request = {**item.context.plain(), "inputs": str(inputs), "check": "D.kl_penalty", "project": "D",
               "package": "autograder.projects.d_grpo", "folder": str(root / "D_grpo")}
    from tests.support.imports import forgotten_after

    with forgotten_after(["grpo"]):
        result = run(request)
    assert inputs.read_text() == '{"calls": []}'  # the module did rewrite it
    assert result["status"] == "ok", result
    assert item.check.judge(result["data"], item.context).fraction == 1
