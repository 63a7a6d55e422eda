"""Generated mutants that no valid input can tell from the reference: the reviewed list that
benchmarks/mutant_survivors.py reads its survivors against.

A generated mutant (tests/support/mutations.py) that keeps full marks on every check of its project is either a
mistake some check should catch or one no input the project's README allows can reveal. Only the second kind is listed
here, each with the one-line reason, after reading its change in the reference's code; the list is reviewed, never
grown to make a test pass. (A correct implementation written by hand lives in tests/projects/<id>/mutants.py's
``EQUIVALENT`` instead: that is a whole rewrite with the checks it must pass; this is one mechanical change.)

An entry is keyed by what stays put when the module is edited elsewhere: the project, the function, the change as the
generator prints it (before -> after) and the reference's line the change sits on, stripped. A mutant's id names its
line and column, which move whenever a line above it changes; the line's own text only moves with the change itself.
"""

from __future__ import annotations

from typing import NamedTuple

from tests.support.mutations import MODULES, SOLUTIONS


class Equivalence(NamedTuple):
    """A generated mutant that keeps its project's full marks because no valid input tells it apart."""
    project: str
    function: str
    change: str     # before -> after, as GeneratedMutant.change prints it
    line: str       # the reference's line the change starts on, stripped
    reason: str     # why no input the README allows can tell it from the reference, in one line


D_CLIP = "clipped = ((A > 0) & (rho > 1 + eps)) | ((A < 0) & (rho < 1 - eps))"

EQUIVALENT: list[Equivalence] = [
    # D: a zero advantage makes a zero term on either branch; the clip's own edge is a kink of the surrogate
    Equivalence("D", "clipped_surrogate_gradient", "A > 0 -> A >= 0", D_CLIP,
                "a sample with A = 0 contributes rho * 0 = 0 unclipped and 0 clipped (rho is finite: pi_old > 0)"),
    Equivalence("D", "clipped_surrogate_gradient", "A < 0 -> A <= 0", D_CLIP,
                "a sample with A = 0 contributes rho * 0 = 0 unclipped and 0 clipped (rho is finite: pi_old > 0)"),
    Equivalence("D", "clipped_surrogate_gradient", "rho > 1 + eps -> rho >= 1 + eps", D_CLIP,
                "differs only at rho == 1 + eps exactly, the surrogate's kink (both branches equal, no derivative): "
                "either one-sided gradient is right there"),
    Equivalence("D", "clipped_surrogate_gradient", "rho < 1 - eps -> rho <= 1 - eps", D_CLIP,
                "differs only at rho == 1 - eps exactly, the surrogate's kink (both branches equal, no derivative): "
                "either one-sided gradient is right there"),
]


def site_line(mutant) -> str:
    """The reference's line (stripped) that ``mutant``'s change starts on, read from its id's ``L<line>C<column>``."""
    site = mutant.id.split(".")[-2]
    number = int(site[1:site.index("C")])
    folder, module = MODULES[mutant.project]
    return (SOLUTIONS / folder / module).read_text(encoding="utf-8").splitlines()[number - 1].strip()


def key(mutant) -> tuple[str, str, str, str]:
    return mutant.project, mutant.id.split(".")[1], mutant.change, site_line(mutant)


def explained(mutant) -> str | None:
    """The list's reason that ``mutant`` is equivalent, or None when the list does not hold it."""
    found = [e.reason for e in EQUIVALENT if (e.project, e.function, e.change, e.line) == key(mutant)]
    return found[0] if found else None
