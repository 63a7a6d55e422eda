"""``autograder student-kit [--out DIR] [--wheel]``: build the students' bundle (``autograder release`` of every
project builds it too)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

err = Console(stderr=True, highlight=False)


def student_kit(root: Path, out: str | None, wheel: bool) -> int:
    from autograder.student_kit import StudentKitError, build
    from autograder.student_kit import wheel as build_wheel

    folder = Path(out) if out else root / "student-kit"
    try:
        build(root, folder)
        made = build_wheel(folder) if wheel else None
    except StudentKitError as exc:
        err.print(f"error: {exc}")
        return 2
    err.print(f"the students' bundle is in {folder}" + (
        f", its wheel {made}" if made else " (`pip install` it, or `autograder student-kit --wheel` for its wheel)"),
        soft_wrap=True)  # paths whole on one line, so that they can be copied
    return 0


def add_student_kit(commands, course_option, course_root) -> None:
    parser = commands.add_parser("student-kit", help="build the students' bundle (stubs, given code, the public "
                                 "checker; no answer inside); `release` builds it too")
    parser.add_argument("--out", help="the folder to write (default: student-kit/ in the course folder)")
    parser.add_argument("--wheel", action="store_true", help="also build its wheel into OUT/dist")
    course_option(parser)
    parser.set_defaults(run=lambda args: student_kit(course_root(args), args.out, args.wheel))
