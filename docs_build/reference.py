"""The reference pages the docs build writes from the kit itself: every command and option from the CLI's parser,
every check of the course from course.yml and the checks' own models. Nothing here is typed by hand, so the pages
cannot drift from the code."""

from __future__ import annotations

import argparse

from autograder.cli import parser as autograder_parser
from autograder.checks import validated_bar
from autograder.loader import load_course
from autograder.paths import KIT_ROOT
from autograder.projects import PROJECTS


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _usage(command: argparse.ArgumentParser) -> str:
    return " ".join(command.format_usage().split())[len("usage: "):]


def _options(command: argparse.ArgumentParser) -> list[str]:
    rows = ["| argument | what it is | default |", "|---|---|---|"]
    for action in command._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        name = ", ".join(action.option_strings) or action.dest
        if action.choices and not isinstance(action, argparse._SubParsersAction):
            name += " {" + ",".join(map(str, action.choices)) + "}"
        elif action.option_strings and action.nargs != 0:
            name += f" {action.metavar or action.dest.upper()}"
        default = action.default
        shown = "" if default in (None, False, argparse.SUPPRESS, []) else f"`{default}`"
        rows.append(f"| `{_cell(name)}` | {_cell(action.help or '')} | {shown} |")
    return rows


def commands_page() -> str:
    """Every `autograder` command with its usage line and a table of its arguments."""
    top = autograder_parser()
    lines = ["# Commands", "",
             "Every command of the kit's `autograder` and its options, as its parser defines them (this page is "
             "written by the docs build from that parser). Students have `capstone-check` instead: see the "
             "[Student guide](../student-guide.md).", "",
             f"`{_usage(top)}`", "", *_options(top), ""]
    subcommands = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help for choice in subcommands._choices_actions}
    for name, command in subcommands.choices.items():
        lines += [f"## `autograder {name}`", "", helps.get(name) or "", "", f"`{_usage(command)}`", "",
                  *_options(command), ""]
    return "\n".join(lines)


def _bar_rows(bar) -> list[str]:
    rows = []
    for key, field in type(bar).model_fields.items():
        rows.append(f"| `{key}` | `{_cell(getattr(bar, key))}` | {_cell(field.description or '')} |")
    return rows


def checks_page() -> str:
    """Every check of the kit's course: its points, how its verdict becomes points, and its bar from course.yml."""
    course = load_course(KIT_ROOT / "course.yml", private=False)
    lines = ["# Checks of A–D", "",
             "Every check of the kit's course, with its points and its bar as `course.yml` sets them (this page is "
             "written by the docs build from course.yml and the checks' own models; [course.yml](../course-yml.md) "
             "says what each key means, and [What each check's inputs reach](../check-coverage.md) which branches "
             "of a piece its inputs reach).", ""]
    for pid, project in course.projects.items():
        registered = PROJECTS[pid]
        total = sum(c.points for c in project.checks.values())
        lines += [f"## {pid}: {registered.title}", "", f"{total:g} points in all; the student's folder is "
                  f"`{registered.folder}/`.", ""]
        for cid, check in project.checks.items():
            graded = registered.checks[cid]
            unit = "point" if check.points == 1 else "points"
            lines += [f"### `{cid}` — {check.points:g} {unit}", "", graded.name + ".", "",
                      f"Credit: `{check.credit or graded.credit}`.", ""]
            bar_rows = _bar_rows(validated_bar(graded, check.bar, f"projects.{pid}.checks.{cid}"))
            if bar_rows:
                lines += ["| bar key | value | what it is |", "|---|---|---|", *bar_rows, ""]
    return "\n".join(lines)
