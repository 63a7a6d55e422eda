"""Wrong implementations nobody wrote by hand: mechanical mutants of the reference's student-written code.

Each mutant changes one site of one function the stubs leave to the student (the code between the reference's
solution markers) with one operator: a comparison flipped, an arithmetic operator swapped, a term dropped, a numeric
constant changed, an index shifted by one, an axis changed, a negation dropped, a reduction swapped for its neighbour
(min/max, mean/sum) or two arguments of a call swapped. A mutant is the whole module's source with that function
rewritten; the list is the same on every run. Mutants equal to the reference, or that no longer parse, are left out.
The planted bugs of tests/projects/ are mistakes someone imagined; these are what measures feedback and prediction on
mistakes no one did (benchmarks/mutant_feedback.py).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from autograder import paths

FOLDERS = {"A": ("A_ppo", "ppo.py"), "C": ("C_diagnosis", "diagnostics.py"), "D": ("D_grpo", "grpo.py")}
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"

COMPARISONS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
               ast.NotEq: ast.Eq}
ARITHMETIC = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult}
NEIGHBOURS = {"min": "max", "max": "min", "mean": "sum", "sum": "mean", "argmin": "argmax", "argmax": "argmin",
              "minimum": "maximum", "maximum": "minimum"}


@dataclass(frozen=True)
class Generated:
    """One mutant: ``source`` is the whole module with ``function`` changed by ``operator`` at ``line``."""

    id: str
    project: str
    folder: str
    module: str
    function: str
    operator: str
    line: int
    source: str


# ------------------------------------------------------------------------------------------------ operators
# Each takes a node and returns the mutated node, or None where the operator does not apply.


def flip_comparison(node):
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in COMPARISONS:
        node.ops = [COMPARISONS[type(node.ops[0])]()]
        return node
    return None


def swap_arithmetic(node):
    if isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
        node.op = ARITHMETIC[type(node.op)]()
        return node
    return None


def drop_term(node):
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return node.left
    return None


def change_constant(node):
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        node.value = node.value + 1 if isinstance(node.value, int) else (node.value * 2 if node.value else 1.0)
        return node
    return None


def shift_index(node):
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int):
        node.slice = ast.Constant(node.slice.value + 1 if node.slice.value >= 0 else node.slice.value - 1)
        return node
    return None


def change_axis(node):
    if isinstance(node, ast.keyword) and node.arg == "axis" and isinstance(node.value, ast.Constant) \
            and node.value.value in (0, 1, -1):
        node.value = ast.Constant({0: 1, 1: 0, -1: 0}[node.value.value])
        return node
    return None


def drop_negation(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
        return node.operand
    return None


def swap_reduction(node):
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in NEIGHBOURS:
        node.func.attr = NEIGHBOURS[node.func.attr]
        return node
    return None


def swap_arguments(node):
    if isinstance(node, ast.Call) and len(node.args) >= 2 and not any(isinstance(a, ast.Starred) for a in node.args):
        first, second = node.args[0], node.args[1]
        if ast.dump(first) == ast.dump(second):
            return None
        node.args = [second, first, *node.args[2:]]
        return node
    return None


OPERATORS: dict[str, Callable] = {
    "flip-comparison": flip_comparison, "swap-arithmetic": swap_arithmetic, "drop-term": drop_term,
    "change-constant": change_constant, "shift-index": shift_index, "change-axis": change_axis,
    "drop-negation": drop_negation, "swap-reduction": swap_reduction, "swap-arguments": swap_arguments,
}


# ------------------------------------------------------------------------------------------------ sites


def solution_lines(source: str) -> list[tuple[int, int]]:
    """The 1-based line ranges strictly between each pair of solution markers."""
    ranges, start = [], None
    for number, line in enumerate(source.splitlines(), 1):
        if BEGIN in line:
            start = number
        elif END in line and start is not None:
            ranges.append((start + 1, number - 1))
            start = None
    return ranges


def student_functions(tree: ast.Module, source: str) -> list[ast.FunctionDef]:
    """The module's top-level functions that hold solution code."""
    ranges = solution_lines(source)
    return [node for node in tree.body if isinstance(node, ast.FunctionDef)
            and any(node.lineno <= start and end <= node.end_lineno for start, end in ranges)]


def sites(function: ast.FunctionDef, ranges: list[tuple[int, int]]) -> list[tuple[int, ast.AST]]:
    """(position in a walk of ``function``, node) for every node inside the solution lines, in a fixed order."""
    inside = []
    for position, node in enumerate(ast.walk(function)):
        line = getattr(node, "lineno", None)
        if line is not None and any(start <= line <= end for start, end in ranges):
            inside.append((position, node))
    return inside


class _AtPosition(ast.NodeTransformer):
    """Applies ``operator`` to the node at ``position`` of ``ast.walk`` order, once."""

    def __init__(self, function: ast.FunctionDef, position: int, operator: Callable):
        self.target = next(node for i, node in enumerate(ast.walk(function)) if i == position)
        self.operator, self.applied = operator, False

    def visit(self, node):
        if node is self.target and not self.applied:
            self.applied = True
            changed = self.operator(node)
            return node if changed is None else changed
        return self.generic_visit(node)


def with_function(source: str, function: ast.FunctionDef, rewritten: ast.FunctionDef) -> str:
    """``source`` with the lines of ``function`` (decorators included) replaced by ``rewritten``'s text."""
    lines = source.splitlines(keepends=True)
    first = min([function.lineno, *(d.lineno for d in function.decorator_list)]) - 1
    return "".join(lines[:first]) + ast.unparse(rewritten) + "\n" + "".join(lines[function.end_lineno:])


def mutants_of(project: str) -> Iterator[Generated]:
    """Every mutant of ``project``'s student-written functions, in a fixed order."""
    folder, module = FOLDERS[project]
    source = (paths.SOLUTIONS / folder / module).read_text(encoding="utf-8")
    tree, ranges = ast.parse(source), solution_lines(source)
    for function in student_functions(tree, source):
        reference = ast.dump(function)
        for position, node in sites(function, ranges):
            for name, operator in OPERATORS.items():
                if operator(copy.deepcopy(node)) is None:
                    continue
                mutated = copy.deepcopy(function)
                changer = _AtPosition(mutated, position, operator)
                mutated = ast.fix_missing_locations(changer.visit(mutated))
                if not changer.applied or ast.dump(mutated) == reference:
                    continue
                text = with_function(source, function, mutated)
                try:
                    ast.parse(text)
                except SyntaxError:
                    continue
                yield Generated(f"{project}.{function.name}.{name}@{node.lineno}:{position}", project, folder,
                                module, function.name, name, node.lineno, text)


def all_mutants(projects: tuple[str, ...] = tuple(FOLDERS)) -> list[Generated]:
    return [mutant for project in projects for mutant in mutants_of(project)]


def write_mutant(root: Path, mutant: Generated) -> Path:
    """A submission in ``root``: the reference's project folder with ``mutant``'s module in place of its own."""
    import shutil

    shutil.copytree(paths.SOLUTIONS / mutant.folder, root / mutant.folder,
                    ignore=shutil.ignore_patterns("*.ipynb", "__pycache__", "*.png"), dirs_exist_ok=True)
    (root / mutant.folder / mutant.module).write_text(mutant.source, encoding="utf-8")
    return root
