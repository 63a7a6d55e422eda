"""Wrong implementations nobody wrote by hand: mechanical mutants of the reference's student-written functions.

The functions a project leaves to students are the ones the reference marks with nbgrader's solution block
(``### BEGIN SOLUTION`` ... ``### END SOLUTION``). Each operator below looks at one expression inside such a block and
proposes small changes to it (flip a comparison, swap two arguments, shift an index by one, drop a term, change a
constant or an ``axis=``, negate, swap ``min``/``max`` or ``mean``/``sum``). A mutant is the whole module's source with
that one expression rewritten in place (comments and layout kept); mutants that do not parse, or parse to the
reference's own tree, are dropped. The list is the same on every run: nodes in the tree's walk order, operators in the
order of ``OPERATORS``.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions"
MODULES = {"A": ("A_ppo", "ppo.py"), "B": ("B_ablations", "details.py"), "C": ("C_diagnosis", "diagnostics.py"),
           "D": ("D_grpo", "grpo.py")}
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


@dataclass(frozen=True)
class GeneratedMutant:
    id: str          # "D.group_centered_weight.drop_term.L52C15.1": project, function, operator, site, variant
    project: str
    folder: str      # the project's folder under solutions/
    module: str      # the module's file name in it
    change: str      # the rewritten expression, before -> after
    source: str      # the whole module's source with the change made


NEGATED = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
BOUNDARY = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
SWAPPED_NAMES = {"min": "max", "max": "min", "mean": "sum", "sum": "mean", "argmin": "argmax", "argmax": "argmin",
                 "minimum": "maximum", "maximum": "minimum", "nanmin": "nanmax", "nanmax": "nanmin"}
SWAPPED_OPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult}


def flip_compare(node):
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        for table in (NEGATED, BOUNDARY):
            if type(node.ops[0]) in table:
                yield node, ast.Compare(node.left, [table[type(node.ops[0])]()], node.comparators)


def swap_args(node):
    if isinstance(node, ast.Call):
        plain = [a for a in node.args if not isinstance(a, ast.Starred)]
        for i in range(len(plain) - 1):
            args = list(node.args)
            args[i], args[i + 1] = args[i + 1], args[i]
            yield node, ast.Call(node.func, args, node.keywords)


def shift_index(node):
    if isinstance(node, ast.Subscript):
        bounds = [node.slice.lower, node.slice.upper] if isinstance(node.slice, ast.Slice) else [node.slice]
        for bound in bounds:
            if bound is not None and not isinstance(bound, (ast.Tuple, ast.Slice)):
                for op in (ast.Add, ast.Sub):
                    yield bound, ast.BinOp(bound, op(), ast.Constant(1))


def drop_term(node):
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        yield node, node.left
        yield node, node.right


def change_constant(node):
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        for value in ((node.value + 1, node.value - 1) if isinstance(node.value, int) else (node.value * 2, 0.0)):
            yield node, ast.Constant(value)


def change_axis(node):
    if isinstance(node, ast.Call):
        for value in (k.value for k in node.keywords if k.arg == "axis"):
            if isinstance(value, ast.Constant) and isinstance(value.value, int):
                yield value, ast.Constant(0 if value.value else 1)
                yield value, ast.Constant(None)


def negate(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        yield node, node.operand
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
        yield node, ast.BinOp(node.right, ast.Sub(), node.left)


def swap_name(node):
    if isinstance(node, ast.Attribute) and node.attr in SWAPPED_NAMES:
        yield node, ast.Attribute(node.value, SWAPPED_NAMES[node.attr], node.ctx)
    if isinstance(node, ast.Name) and node.id in SWAPPED_NAMES:
        yield node, ast.Name(SWAPPED_NAMES[node.id], node.ctx)
    if isinstance(node, ast.BinOp) and type(node.op) in SWAPPED_OPS:
        yield node, ast.BinOp(node.left, SWAPPED_OPS[type(node.op)](), node.right)


OPERATORS = (flip_compare, swap_args, shift_index, drop_term, change_constant, change_axis, negate, swap_name)


def solution_lines(source: str) -> list[range]:
    """The line numbers (1-based) inside each solution block."""
    lines, blocks, start = source.splitlines(), [], None
    for number, line in enumerate(lines, 1):
        if line.strip() == BEGIN:
            start = number + 1
        elif line.strip() == END and start is not None:
            blocks.append(range(start, number))
            start = None
    return blocks


def student_functions(tree: ast.Module, blocks: list[range]) -> list[ast.FunctionDef]:
    """The top-level functions holding a solution block."""
    return [f for f in tree.body if isinstance(f, ast.FunctionDef)
            and any(f.lineno < b.start <= f.end_lineno for b in blocks)]


def replaced(source: str, target: ast.expr, new: ast.expr) -> str:
    """``source`` with ``target``'s text replaced by ``new``'s, in parentheses unless it is atomic (node offsets
    count UTF-8 bytes)."""
    lines = source.encode().splitlines(keepends=True)
    start = sum(map(len, lines[:target.lineno - 1])) + target.col_offset
    end = sum(map(len, lines[:target.end_lineno - 1])) + target.end_col_offset
    text = ast.unparse(new)
    if not isinstance(new, (ast.Name, ast.Constant, ast.Attribute, ast.Call, ast.Subscript)):
        text = f"({text})"
    data = source.encode()
    return (data[:start] + text.encode() + data[end:]).decode()


def changes(function: ast.FunctionDef, blocks: list[range]):
    """(operator name, target, new expression) for every proposal inside ``function``'s solution block."""
    for node in ast.walk(function):
        if isinstance(node, ast.expr) and any(node.lineno in b and node.end_lineno in b for b in blocks):
            for operator in OPERATORS:
                for target, new in operator(node):
                    yield operator.__name__, target, new


def generate(project: str) -> list[GeneratedMutant]:
    """Every mutant of ``project``'s student-written functions that parses and differs from the reference."""
    folder, module = MODULES[project]
    source = (SOLUTIONS / folder / module).read_text(encoding="utf-8")
    tree = ast.parse(source)
    reference, blocks = ast.dump(tree), solution_lines(source)
    mutants, seen, used = [], {reference}, Counter()
    for function in student_functions(tree, blocks):
        for operator, target, new in changes(function, blocks):
            text = replaced(source, target, new)
            try:
                dumped = ast.dump(ast.parse(text))
            except SyntaxError:
                continue
            if dumped in seen:
                continue
            seen.add(dumped)
            site = f"{project}.{function.name}.{operator}.L{target.lineno}C{target.col_offset}"
            used[site] += 1
            change = f"{ast.unparse(target)} -> {ast.unparse(new)}"
            mutants.append(GeneratedMutant(f"{site}.{used[site]}", project, folder, module, change, text))
    return mutants
