"""The runtime a check's child imports is staged once per process and reused only while it and the kit are what they
were: a copy written into (as a child could where the grader has neither bubblewrap nor uids to give) or a kit that
changed since is staged again, and the new copy holds the kit's code, oracles stubbed."""

import os

from autograder.sandbox import runtime

CHECKS = os.path.join("autograder", "checks.py")


def test_the_runtime_is_staged_once_and_reused_by_the_next_grading():
    with runtime.staged() as first, runtime.staged() as again:
        assert first == again and (first / CHECKS).is_file()
    assert "not available to code running in the sandbox" in (first / "autograder" / "projects" / "d_grpo"
                                                               / "oracle.py").read_text()


def test_a_copy_written_into_is_never_handed_to_another_child():
    with runtime.staged() as first:
        kit_code = (first / CHECKS).read_bytes()
        (first / CHECKS).chmod(0o644)
        (first / CHECKS).write_bytes(kit_code.replace(b"def ", b"def forged_", 1))  # same file, other code
    with runtime.staged() as after:
        assert after != first and (after / CHECKS).read_bytes() == kit_code
    with runtime.staged() as planted:
        (planted / "autograder" / "sitecustomize.py").write_text("print('planted')\n")  # a file added, none changed
    with runtime.staged() as after:
        assert after != planted and not (after / "autograder" / "sitecustomize.py").exists()


def test_a_kit_that_changed_since_the_copy_was_staged_is_staged_again(monkeypatch):
    with runtime.staged() as first:
        pass
    source = runtime._source()
    monkeypatch.setattr(runtime, "_source", lambda: source + (("a module edited since", 1, 1),))
    with runtime.staged() as after:
        assert after != first and (after / CHECKS).read_bytes() == (first / CHECKS).read_bytes()


def test_a_forked_process_stages_a_copy_of_its_own_and_leaves_its_parents_alone():
    with runtime.staged() as parent:
        pass
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a copy of its own, and at its exit only that one removed
        with runtime.staged() as own:
            os.write(write, str(own).encode())
        runtime._remove_copies()
        os._exit(0)
    os.waitpid(pid, 0)
    child = os.read(read, 4096).decode()
    assert child != str(parent) and parent.is_dir() and not os.path.exists(child)
    with runtime.staged() as again:
        assert again == parent
