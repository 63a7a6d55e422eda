"""B.table's secret sample of updates: drawn from a key the grader makes of the course secret and runs.npz, always
holding the first update; and runs.npz keeping Adam's second moment so that any update can be re-made alone."""

import numpy as np

from autograder.loader import load_course
from autograder import paths
from autograder.plan import planned
from autograder.projects.b_ablations import bar_runs, proofs
from autograder.projects.b_ablations.student_runs import sample_key, sampled_updates
from rlkit.runproof import pack, unpack


def test_a_sample_holds_the_first_update_and_distinct_others():
    for key in ("a", "b", None):
        for k in (1, 2, 4, 60):
            only = sampled_updates(key, "baseline", 7, 60, k)
            assert only[0] == 0 and len(only) == len(set(only)) == k and only == sorted(only)
            assert all(0 <= u < 60 for u in only)
    assert sampled_updates("a", "baseline", 7, 8, 20) == list(range(8))  # never more than the run has


def test_the_sample_follows_from_the_key_and_the_run():
    one = sampled_updates("key", "baseline", 7, 60, 4)
    assert one == sampled_updates("key", "baseline", 7, 60, 4)
    others = [sampled_updates("key", "baseline", 8, 60, 4), sampled_updates("key", "anneal_lr", 7, 60, 4),
              sampled_updates("other", "baseline", 7, 60, 4)]
    assert all(other != one for other in others)
    drawn = {u for key in range(200) for u in sampled_updates(str(key), "baseline", 7, 60, 4)[1:]}
    assert drawn == set(range(1, 60))  # every later update can be drawn


def test_the_key_is_made_of_the_secret_and_the_files_bytes(tmp_path):
    runs = tmp_path / "runs.npz"
    runs.write_bytes(b"first")
    keys = {sample_key(runs, "secret"), sample_key(runs, "another"), sample_key(runs, None)}
    runs.write_bytes(b"second")
    keys |= {sample_key(runs, "secret")}
    assert len(keys) == 4 and not any("secret" in key for key in keys)
    link = tmp_path / "link.npz"
    link.symlink_to(runs)
    assert sample_key(link, "secret") == sample_key(tmp_path / "absent.npz", "secret")


def test_a_huge_runs_file_is_keyed_without_being_read_whole(tmp_path, monkeypatch):
    """A student's file of any size costs the grader at most ``KEYED_BYTES`` read; its size still enters the key."""
    from autograder.projects.b_ablations import student_runs

    monkeypatch.setattr(student_runs, "KEYED_BYTES", 1000)
    runs = tmp_path / "runs.npz"
    with runs.open("wb") as file:
        file.truncate(2**40)  # a terabyte, sparse: reading it whole would never end
    key = sample_key(runs, "secret")
    with runs.open("r+b") as file:
        file.seek(2000)
        file.write(b"past the keyed bytes")
    assert sample_key(runs, "secret") == key
    with runs.open("r+b") as file:
        file.truncate(2**40 + 1)
    assert sample_key(runs, "secret") != key


def test_the_child_is_told_the_key_never_the_secret(tmp_path):
    course = load_course(paths.COURSE_FILE, private=False).model_copy(update={"secret": "course secret"})
    folder = tmp_path / "B_ablations"
    folder.mkdir()
    (folder / proofs.RUNS).write_bytes(b"runs")
    item = planned(course, "B", "B.table", "grading", folder)
    plain = item.request(item.context_for(item.seeds))
    assert plain["key"] == sample_key(folder / proofs.RUNS, "course secret")
    assert "course secret" not in repr(plain)
    assert planned(course, "B", "B.switches", "grading", folder).context.key is None
    bar = planned(course, "B", "B.bar", "grading", folder)  # B.bar's samples are drawn from the secret alone
    plain = bar.request(bar.context_for(bar.seeds))
    assert plain["key"] == bar_runs.sample_key("course secret") != key_of_table(course, folder)
    assert "course secret" not in repr(plain)


def key_of_table(course, folder) -> str:
    return planned(course, "B", "B.table", "grading", folder).context.key


def test_a_proof_keeps_both_moments_and_reads_the_older_one():
    rng = np.random.default_rng(0)
    snapshots, m, v = (rng.normal(size=(3, 5)).astype(np.float32) for _ in range(3))
    actions = rng.integers(0, 2, size=(3, 4, 2)).astype(np.uint8)
    header, s, moments, a = unpack(pack({"seed": 7}, snapshots, m, actions, np.abs(v)))
    assert header["v"] is True and moments.shape == (3, 10) and (s == snapshots).all() and (a == actions).all()
    assert np.allclose(moments[:, 5:], np.abs(v), rtol=0.07) and np.allclose(moments[:, :5], m, rtol=0.07)
    header, _, moments, _ = unpack(pack({"seed": 7}, snapshots, m, actions))
    assert "v" not in header and moments.shape == (3, 5)
