"""The course.yml reference, written from the models that read course.yml: every key of the course, its seeds and
limits, a project's and a check's settings, and each check's bar, with its type, default and description.

``python -m autograder.course_reference [FILE]`` writes it (by default to ``docs/course-yml.md``); a test keeps that
file equal to what this module writes, so the reference changes with the models and nowhere else.
"""

from __future__ import annotations

import sys
import types
import typing
from pathlib import Path

from annotated_types import Ge, Gt, Le, Lt, MaxLen, MinLen
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from autograder import paths
from autograder.config import CheckConfig, Course, Limits, ProjectConfig, Seeds

DEFAULT_FILE = paths.KIT_ROOT / "docs" / "course-yml.md"  # in a checkout of the kit

# The course's own models, each a section of the reference: (model, where its keys sit in course.yml, a heading)
SECTIONS = [
    (Course, "", "The course file"),
    (Seeds, "seeds", "Seeds"),
    (Limits, "limits", "Limits"),
    (ProjectConfig, "projects.<project id>", "A project"),
    (CheckConfig, "projects.<project id>.checks.<check id>", "A check"),
]
SCALARS = {int: "integer", float: "number", bool: "true or false", str: "text", type(None): "null",
           typing.Any: "any value"}
BOUNDS = {Gt: ("gt", ">"), Ge: ("ge", "≥"), Lt: ("lt", "<"), Le: ("le", "≤")}

INTRO = """# course.yml reference

Every key course.yml may hold, written from the models that read it (`autograder/config.py`, and each check's `Bar`
in `autograder/projects/`) by `python -m autograder.course_reference`; edit those, not this page. A key the models do
not know is an error, and so is a value of the wrong type or out of its range: `autograder` says which key, and why,
before it grades anything.

The private overlay (`course.private.yml`, `--private FILE` or `$AUTOGRADER_PRIVATE`) may hold `seeds: {grading:
[...]}` and `secret:`, and nothing else.
"""


def type_text(annotation) -> str:
    """A type as the reference says it: ``list[int]`` -> ``list of integers``, a model -> a link to its section."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation in SCALARS:
        return SCALARS[annotation]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        heading = next((heading for model, _, heading in SECTIONS if model is annotation), annotation.__name__)
        return f"[{heading.lower()}](#{heading.lower().replace(' ', '-')})"
    if origin is typing.Annotated:
        return with_range(type_text(args[0]), constraints(args[1:])[0])
    if origin is typing.Literal:
        return "one of " + ", ".join(f"`{value}`" for value in args)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(type_text(arg) for arg in args)
    if origin is list or (origin is tuple and args[-1] is Ellipsis):
        return f"list of {plural(type_text(args[0]))}"
    if origin is tuple:
        return "[" + ", ".join(type_text(arg) for arg in args) + "]"
    if origin is dict:
        return f"mapping of {type_text(args[0])} to {type_text(args[1])}"
    return str(annotation)


def plural(text: str) -> str:
    """``integer ≥ 0`` -> ``integers ≥ 0``: the first word made plural, the rest kept."""
    word, _, rest = text.partition(" ")
    if word.startswith("[") or word.endswith("s"):
        return text
    return f"{word}s {rest}".rstrip()


def constraints(metadata) -> tuple[list[str], str]:
    """The constraints pydantic holds for a field or an annotated type, in words: the range of its value (``> 0``,
    ``≥ 1``) and, for a list, how many items it may hold (``1 to 10 items``, or "")."""
    said, sizes = [], {}
    for item in metadata:
        if isinstance(item, FieldInfo):
            said += constraints(item.metadata)[0]
        said += [f"{sign} {getattr(item, name)}" for kind, (name, sign) in BOUNDS.items() if isinstance(item, kind)]
        if isinstance(item, MinLen):
            sizes["min"] = item.min_length
        if isinstance(item, MaxLen):
            sizes["max"] = item.max_length
    if "max" in sizes:
        return said, f"{sizes.get('min', 0)} to {sizes['max']} items"
    return said, f"at least {sizes['min']} items" if sizes else ""


def with_range(text: str, said: list[str]) -> str:
    """``integer`` and [``≥ 0``, ``≤ 9``] -> ``integer ≥ 0 and ≤ 9``."""
    return f"{text} {' and '.join(said)}" if said else text


def field_type(field: FieldInfo) -> str:
    """A field's type with its constraints: ``number > 0``, ``number > 0 or null`` (the range is the number's), ``list
    of integers ≥ 0, 1 to 10 items``."""
    said, size = constraints(field.metadata)
    args = typing.get_args(field.annotation)
    if typing.get_origin(field.annotation) in (typing.Union, types.UnionType) and type(None) in args:
        text = with_range(" or ".join(type_text(arg) for arg in args if arg is not type(None)), said) + " or null"
    else:
        text = with_range(type_text(field.annotation), said)
    return f"{text}, {size}" if size else text


def default_text(field: FieldInfo) -> str:
    """A field's default as YAML writes it, or *required*."""
    if field.is_required():
        return "*required*"
    return f"`{yaml_text(field.get_default(call_default_factory=True))}`"


def yaml_text(value) -> str:
    """A default value in YAML's flow style: ``null``, ``true``, ``[61000, 61063]``, ``{}``, ``2``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(yaml_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {yaml_text(v)}" for k, v in value.items()) + "}"
    return f"{value:g}" if isinstance(value, float) else str(value)


def cell(text: str) -> str:
    """Text that fits in a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def field_table(model: type[BaseModel]) -> list[str]:
    """One row per field of ``model``: key, type (with its range), default, description."""
    rows = ["| key | type | default | what it sets |", "| --- | --- | --- | --- |"]
    for name, field in model.model_fields.items():
        described = cell(field.description or "")
        rows.append(f"| `{name}` | {cell(field_type(field))} | {default_text(field)} | {described} |")
    return rows


def course_sections() -> list[str]:
    """A section per model of the course file, from the top level down to a check's settings."""
    lines = []
    for model, where, heading in SECTIONS:
        lines += ["", f"## {heading}", ""]
        if where:
            lines += [f"Under `{where}`." + (f" {cell(model.__doc__)}" if model.__doc__ else ""), ""]
        lines += field_table(model)
    return lines


def bar_sections() -> list[str]:
    """A section per project, a table per check with a bar: the keys its ``bar:`` may hold."""
    from autograder.projects import PROJECTS

    lines = ["", "## Bars", "",
             "A check's `bar:` holds its thresholds and sizes; each check has its own keys. A check with no keys "
             "below takes no `bar:`."]
    for pid, project in PROJECTS.items():
        lines += ["", f"### Project {pid}: {project.title}"]
        for cid, check in project.checks.items():
            lines += ["", f"#### `{cid}`", "", cell(check.name), ""]
            lines += field_table(check.Bar) if check.Bar.model_fields else ["No bar."]
    for model in nested_models():
        lines += ["", f"### {model.__name__}", "", cell(model.__doc__ or ""), ""]
        lines += field_table(model)
    return lines


def nested_models() -> list[type[BaseModel]]:
    """The models a bar's keys hold (the PPO runs' ``hyperparameters``), each once, in the order first met."""
    from autograder.projects import PROJECTS

    found = []
    for project in PROJECTS.values():
        for check in project.checks.values():
            for field in check.Bar.model_fields.values():
                kind = field.annotation
                if isinstance(kind, type) and issubclass(kind, BaseModel) and kind not in found:
                    found.append(kind)
    return found


def reference() -> str:
    """The whole reference, as Markdown."""
    return "\n".join([INTRO.rstrip("\n"), *course_sections(), *bar_sections()]) + "\n"


def undescribed() -> list[str]:
    """Every key of the course's models and of a check's bar that has no description: what the reference would
    leave blank."""
    from autograder.projects import PROJECTS

    models = [(where or "course", model) for model, where, _ in SECTIONS]
    models += [(f"{cid}.bar", check.Bar) for project in PROJECTS.values() for cid, check in project.checks.items()]
    models += [(model.__name__, model) for model in nested_models()]
    return [f"{where}.{name}" for where, model in models for name, field in model.model_fields.items()
            if not field.description]


def main(argv: list[str] | None = None) -> int:
    """Write the reference to the file named (by default the kit's ``docs/course-yml.md``)."""
    argv = sys.argv[1:] if argv is None else argv
    path = Path(argv[0]) if argv else DEFAULT_FILE
    path.write_text(reference(), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
