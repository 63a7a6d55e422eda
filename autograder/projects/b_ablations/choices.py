"""The student's choice in Project B: which details ``ablation.py`` ablates and which its conclusion names, as the
child reads them from the student's module and as the judge reads them back from the child's report."""

from __future__ import annotations

from autograder.checks import Malformed
from autograder.projects.b_ablations.catalogue import DETAILS
from capstone_check.student import StudentError, describe


def choices(student, factors: int) -> tuple[list[str], list[str]]:
    """The student's ``ablated()`` and ``conclusion()`` from ablation.py, checked to be names of details."""
    ablated, named = student.fn("ablated", "ablation")(), student.fn("conclusion", "ablation")()
    problem = choice_problem(ablated, named, factors)
    if problem:
        raise StudentError(problem, "invalid")
    return list(dict.fromkeys(ablated)), list(dict.fromkeys(named))


def choice_problem(ablated, named, factors: int) -> str | None:
    """What is wrong with a choice of ablated details and a conclusion, or None."""
    for what, value in (("ablated()", ablated), ("conclusion()", named)):
        if not isinstance(value, (tuple, list)) or not all(isinstance(v, str) for v in value):
            return f"{what} should return a tuple of detail names, found {describe(value)}"
    unknown = sorted(set(ablated) - set(DETAILS))
    if unknown:
        return f"ablated() names {', '.join(unknown)}, which are not fields of Details ({', '.join(DETAILS)})"
    if len(set(ablated)) != factors:
        return f"ablated() should name {factors} different details, it names {len(set(ablated))}"
    if not named or not set(named) <= set(ablated):
        return f"conclusion() should name one or more of your ablated details, found {describe(named)}"
    return None


def collected_choices(data: dict, factors: int) -> tuple[list[str], list[str]]:
    """The choices a re-run's child reported, refused if they are not what ``choices`` lets through."""
    try:
        ablated, named = data["ablated"][0], data["named"][0]
    except (KeyError, IndexError, TypeError):
        raise Malformed("the re-run did not report the ablated details and the conclusion") from None
    if choice_problem(ablated, named, factors) or len(set(ablated)) != len(ablated) or len(set(named)) != len(named):
        raise Malformed("the re-run reported a choice of details that ablation.py could not have made")
    return ablated, named
