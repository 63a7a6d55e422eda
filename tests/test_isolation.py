"""The child sees only its own files: each attack of an adversarial student against bubblewrap's isolation earns
nothing and leaks nothing, and where bubblewrap cannot run the grader falls back, says so, and refuses private
material without an isolation of some kind.

Every attack runs inside D's ``kl_penalized_reward`` and reports what it found in an exception, which the check's
message carries back (a message is the one channel student code has to the student).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
import warnings
from pathlib import Path

import pytest

from autograder import paths
from autograder.loader import load_course
from autograder.grading import grade
from autograder.projects.c_diagnosis import fresh
from autograder.sandbox import jail, user
from tests.support.grading import checks_by_id, mutate, write_submission

REFERENCE_D = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
KL_BODY = "    r, p, p_ref = (np.asarray(a, dtype=float) for a in (r, p, p_ref))\n"
JAILED = not jail._probe(None)
needs_bwrap = pytest.mark.skipif(not JAILED, reason="bubblewrap cannot run here")
ATTACK = """    import json as _json, os as _os
    _found = {{}}
{probe}
    raise RuntimeError('FOUND<<' + _json.dumps(_found) + '>>FOUND')
"""


def attack(tmp_path: Path, probe: str) -> Path:
    code = ATTACK.format(probe="\n".join("    " + line for line in probe.strip("\n").splitlines()))
    return write_submission(tmp_path, mutate(REFERENCE_D, KL_BODY, code + KL_BODY))


def found(root: Path, course, seed_set: str = "public") -> dict:
    # in full: a report for the student on the private grading seeds would not quote what the probe found
    message = checks_by_id(grade(root, course, seed_set=seed_set, checks=["D.kl_penalty"],
                                 for_student=False).report.to_json())["D.kl_penalty"]["message"]
    assert "FOUND<<" in message, message
    return json.loads(message[message.index("FOUND<<") + 7:message.rindex(">>FOUND")])


@pytest.fixture()
def open_folder():
    folder = Path(tempfile.mkdtemp(prefix="isolation-"))
    folder.chmod(0o755)
    yield folder
    subprocess.run(["rm", "-rf", str(folder)], check=False)


@needs_bwrap
def test_the_kit_its_oracles_and_solutions_are_out_of_sight(tmp_path, course):
    oracle = paths.KIT_ROOT / "autograder" / "projects" / "d_grpo" / "oracle.py"
    seen = found(attack(tmp_path, f"""
_found['kit'] = sorted(_os.listdir({str(paths.KIT_ROOT)!r})) if _os.path.isdir({str(paths.KIT_ROOT)!r}) else []
try:
    _found['oracle'] = open({str(oracle)!r}).read()[:40]
except OSError as _e:
    _found['oracle'] = type(_e).__name__
_found['root'] = sorted(_os.listdir('/'))
"""), course)
    # the kit's folder shows only the Python environment inside it (make's .venv), when there is one
    venv = Path(sys.prefix).relative_to(paths.KIT_ROOT).parts[0] if Path(sys.prefix).is_relative_to(paths.KIT_ROOT) \
        else None
    assert set(seen["kit"]) <= {venv} and seen["oracle"] == "FileNotFoundError"
    assert set(seen["root"]) <= {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "proc", "dev", "tmp",
                                 *(p.split("/")[1] for p in {sys.prefix, sys.base_prefix, sys.executable})}


@needs_bwrap
def test_an_overlay_anyone_may_read_is_still_out_of_reach(tmp_path, course, open_folder):
    overlay = open_folder / "course.private.yml"
    overlay.write_text("seeds: {grading: [4711, 815, 2026]}\nsecret: open-secret-0x5e\n")
    overlay.chmod(0o644)  # the instructor forgot chmod 600
    private = load_course(paths.COURSE_FILE, private=overlay)
    seen = found(attack(tmp_path, f"""
try:
    _found['overlay'] = open({str(overlay)!r}).read()
except OSError as _e:
    _found['overlay'] = type(_e).__name__
"""), private, seed_set="grading")
    assert seen["overlay"] == "FileNotFoundError"


@needs_bwrap
def test_no_unix_socket_on_the_host_can_be_reached(tmp_path, course, open_folder):
    path, abstract = str(open_folder / "grader.sock"), f"\0autograder-test-{uuid.uuid4().hex}"
    servers = []
    for address in (path, abstract):
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(address)
        server.listen()
        server.settimeout(0)
        servers.append(server)
    os.chmod(path, 0o777)
    try:
        seen = found(attack(tmp_path, f"""
import socket as _socket
for _name, _address in (('path', {path!r}), ('abstract', {abstract!r})):
    try:
        _s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        _s.connect(_address)
        _s.sendall(b'seeds')
        _found[_name] = 'connected'
    except OSError as _e:
        _found[_name] = type(_e).__name__
"""), course)
        assert seen["path"] != "connected" and seen["abstract"] != "connected"
        for server in servers:
            with pytest.raises(BlockingIOError):
                server.accept()
    finally:
        for server in servers:
            server.close()


@pytest.mark.skipif(shutil.which("bwrap") is None or sys.platform != "linux", reason="no bubblewrap here")
def test_a_python_environment_under_tmp_stays_visible_inside_the_jail(monkeypatch):
    """The jail's /tmp is private; a venv that lives under /tmp (a CI checkout, say) must still start in there."""
    env_dir = Path(tempfile.mkdtemp(prefix="venv-", dir="/tmp"))
    try:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=120)
        monkeypatch.setattr(sys, "prefix", str(env_dir))  # what the jail binds is this interpreter's environment
        monkeypatch.setattr(sys, "exec_prefix", str(env_dir))
        argv = jail.command([str(env_dir / "bin" / "python"), "-S", "-c", "print('ok')"], readable=[], writable=[],
                            workdir="/")
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, env={}, cwd="/")
        assert done.stdout.strip() == "ok", done.stderr
    finally:
        shutil.rmtree(env_dir, ignore_errors=True)


@needs_bwrap
def test_nothing_a_check_writes_or_starts_outlives_it(tmp_path, course):
    marker = f"leftover-{uuid.uuid4().hex[:12]}"
    seen = found(attack(tmp_path, f"""
import subprocess as _sp
for _where in ('/dev/shm', '/tmp'):
    with open(_where + '/{marker}', 'wb') as _f:
        _f.write(b'x' * (8 << 20))
_sp.Popen(['sleep', '987'], start_new_session=True)
_found['written'] = sorted(_os.listdir('/dev/shm'))
"""), course)
    assert marker in seen["written"]  # the write happened, inside
    assert not Path("/dev/shm", marker).exists() and not Path(tempfile.gettempdir(), marker).exists()
    assert not Path("/tmp", marker).exists()
    left = subprocess.run(["pgrep", "-f", "^sleep 987$"], capture_output=True, text=True).stdout
    assert left == ""


def test_the_child_gets_c_runs_under_a_name_that_tells_nothing(tmp_path, course):
    secret, seed = "guessable", 7
    bundle = fresh.fresh_logs(seed, secret)
    import hashlib
    assert hashlib.sha256(f"{seed}/{secret}".encode()).hexdigest()[:16] not in bundle.name
    assert bundle.parent.stat().st_mode & 0o077 == 0  # the cache folder is the grader's alone
    from autograder.sandbox import runner
    staged = runner._stage_inputs({"inputs": str(bundle)}, tmp_path)
    assert Path(staged["inputs"]).name == "inputs.npz" and Path(staged["inputs"]).read_bytes() == bundle.read_bytes()


@needs_bwrap
def test_the_fresh_run_cache_is_out_of_sight(tmp_path, course):
    bundle = fresh.fresh_logs(7, "guessable")  # the course's run cache holds at least this bundle now
    seen = found(attack(tmp_path, f"""
_found['listed'] = _os.listdir({str(bundle.parent)!r}) if _os.path.isdir({str(bundle.parent)!r}) else 'absent'
try:
    _found['read'] = len(open({str(bundle)!r}, 'rb').read())
except OSError as _e:
    _found['read'] = type(_e).__name__
"""), course)
    assert seen == {"listed": "absent", "read": "FileNotFoundError"}


# ------------------------------------------------------------------------------------------------ the fallback


@pytest.fixture()
def no_bubblewrap(monkeypatch):
    monkeypatch.setattr(jail, "_probed", {True: "bubblewrap (bwrap) is not installed",
                                          False: "bubblewrap (bwrap) is not installed"})
    jail._warn_once.cache_clear()


def test_without_bubblewrap_grading_falls_back_and_says_so_once(tmp_path, course, no_bubblewrap):
    root = write_submission(tmp_path, REFERENCE_D)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = checks_by_id(grade(root, course, seed_set="public",
                                     checks=["D.weights", "D.kl_penalty"]).report.to_json())
    assert all(r["passed"] for r in results.values())
    said = [str(w.message) for w in caught if "without its own namespaces" in str(w.message)]
    assert len(said) == 1 and "not installed" in said[0]


def test_bubblewrap_required_but_missing_is_a_course_error(tmp_path, course, no_bubblewrap):
    strict = course.model_copy(update={"limits": course.limits.model_copy(update={"isolation": "bubblewrap"})})
    root = write_submission(tmp_path, REFERENCE_D)
    with pytest.raises(jail.Unavailable, match="limits.isolation is bubblewrap, but bubblewrap .* not installed"):
        grade(root, strict, seed_set="public", checks=["D.weights"])


def test_private_material_without_any_isolation_is_refused_unless_insecure(tmp_path, course, no_bubblewrap,
                                                                           monkeypatch):
    overlay = tmp_path / "private.yml"
    overlay.write_text("seeds: {grading: [5, 6, 7]}\n")
    private = load_course(paths.COURSE_FILE, private=overlay)
    monkeypatch.setattr(user, "dropping", lambda uids: False)
    root = write_submission(tmp_path, REFERENCE_D)
    with pytest.raises(jail.Unisolated, match="--insecure"):
        grade(root, private, seed_set="grading", checks=["D.weights"])
    grade(root, private, seed_set="public", checks=["D.weights"])  # public seeds: nothing private reaches the child
    monkeypatch.setenv("AUTOGRADER_INSECURE", "1")
    assert grade(root, private, seed_set="grading", checks=["D.weights"]).report.to_json()["score"] == 2


# ------------------------------------------------------------------------------------------------ two graders


@pytest.mark.skipif(os.geteuid() != 0, reason="uids are leased only by a grader running as root")
def test_a_uid_leased_by_another_grader_process_is_skipped_and_cleanup_never_crashes(monkeypatch):
    course_uids = load_course(paths.COURSE_FILE, private=False).limits.sandbox_uids
    first = course_uids
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, sys, time; from autograder.sandbox.user import _lock_folder; "
        f"fd = os.open(_lock_folder() / '{first[0]}', os.O_CREAT | os.O_RDWR, 0o600); "
        "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        lease = user.Lease(course_uids)
        try:
            assert lease.uid != first[0]
        finally:
            lease.release()
    finally:
        holder.kill()
        holder.wait()

    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(user, "tasks_of", lambda uid: 1)
    monkeypatch.setattr(user.subprocess, "run", refused)
    with pytest.warns(RuntimeWarning, match="could not end the processes"):
        user.kill_all(first[0])
