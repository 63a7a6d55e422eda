"""Dead code: the statements of a file that cannot change what its functions compute, found on Python's syntax tree
so that the tokenizer can leave them out (``tokens.normalise``).

A copier who adds lines between a copy's statements cuts its token runs apart; most such lines do nothing. Dropped:
  * in a function, an assignment to names the function never reads (``unused = 3 * 2``), found again and again
    until none is left, so that a chain of them goes too (``a = 1`` read only by an unused ``b = a + 1``);
  * an ``if`` or ``while`` whose test is a false constant (``if False:``, ``if 0:``), and the ``else`` of an ``if``
    whose test is a true one;
  * the statements after a ``return``, ``raise``, ``continue`` or ``break`` of the same block;
  * ``pass``, a constant on its own (``...``), and ``print(...)`` on its own.
A file that does not parse keeps everything. None of this is run or imported: the tree is only read.
"""

from __future__ import annotations

import ast
import bisect
from collections import Counter

Position = tuple[int, int]  # (line from 1, column in characters), as tokenize counts
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_DYNAMIC = {"locals", "vars", "eval", "exec"}  # a function that calls these may read any of its names


class Spans:
    """Sorted [start, end) ranges of positions; ``holds`` says whether a position is inside one."""

    def __init__(self, spans: list[tuple[Position, Position]]):
        merged: list[list[Position]] = []
        for start, end in sorted(spans):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self.starts = [s for s, _ in merged]
        self.ends = [e for _, e in merged]

    def holds(self, position: Position) -> bool:
        i = bisect.bisect_right(self.starts, position) - 1
        return i >= 0 and position < self.ends[i]


def dead_spans(source: str) -> list[tuple[Position, Position]]:
    """Where the dead statements of ``source`` stand (tokenize's positions); none if it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    lines = source.splitlines()
    ranges = _dead_ranges(tree)
    noise = [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and _noise(n)]
    gone = {id(n) for n in noise} | {id(n) for _, _, nodes in ranges for n in nodes}
    unused = [s for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
              for s in unused_assignments(node, gone)]
    spans = [(_start(n), _end(n)) for n in noise + unused] + [(a, b) for a, b, _ in ranges]
    return [(_position(lines, *a), _position(lines, *b)) for a, b in spans]


def _position(lines: list[str], line: int, byte_column: int) -> Position:
    """The syntax tree counts columns in UTF-8 bytes, tokenize in characters."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    if text.isascii():
        return line, byte_column
    return line, len(text.encode("utf-8")[:byte_column].decode("utf-8", errors="ignore"))


def _blocks(tree: ast.AST):
    """Every statement list: bodies, ``else`` and ``finally`` blocks, exception handlers' bodies."""
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield node, name, block


def _false(test: ast.expr) -> bool | None:
    """True for a false constant, False for a true one, None for anything else."""
    if isinstance(test, ast.Constant):
        return not test.value
    return None


def _start(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _end(node: ast.AST) -> tuple[int, int]:
    return node.end_lineno, node.end_col_offset


def _dead_ranges(tree: ast.AST) -> list[tuple[tuple[int, int], tuple[int, int], list[ast.AST]]]:
    """(start, end, the nodes inside) of each dead run, as the syntax tree counts positions: what follows a jump,
    what a constant test never runs, and the test itself (``if True:``, ``else:`` of ``if False:``)."""
    found = []
    for node, name, block in _blocks(tree):
        for i, statement in enumerate(block[:-1]):
            if isinstance(statement, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
                found.append((_start(block[i + 1]), _end(block[-1]), block[i + 1:]))
                break
        if name != "body" or not isinstance(node, (ast.If, ast.While)):
            continue
        never = _false(node.test)
        if never and node.orelse and isinstance(node, ast.If):  # the test, its block and ``else:``
            found.append((_start(node), _start(node.orelse[0]), [node.test] + node.body))
        elif never and not node.orelse:
            found.append((_start(node), _end(node), [node]))
        elif never is False and isinstance(node, ast.If):  # ``if True:`` and its ``else:`` block
            found.append((_start(node), _start(node.body[0]), [node.test]))
            if node.orelse:
                found.append((_end(node.body[-1]), _end(node.orelse[-1]), node.orelse))
    return found


def _noise(statement: ast.stmt) -> bool:
    """``pass``, a constant alone, a ``print(...)`` alone."""
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr):
        value = statement.value
        if isinstance(value, ast.Constant):
            return True
        return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "print"
    return False


def _own_statements(func: ast.AST):
    """The statements of ``func`` itself, not of functions or classes defined inside it."""
    stack = list(func.body)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt) and not isinstance(child, _NESTED_SCOPES):
                stack.append(child)


def _targets(statement: ast.stmt) -> list[ast.expr]:
    if isinstance(statement, ast.Assign):
        return statement.targets
    return [statement.target]


def _target_names(statement: ast.stmt) -> set[str] | None:
    """The names an assignment binds, or None when it also changes an object (``x[i] = v``, ``x.a = v``)."""
    names = set()
    for target in _targets(statement):
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
                return None
    return names


def _loads(node: ast.AST) -> Counter:
    return Counter(n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))


def unused_assignments(func: ast.FunctionDef | ast.AsyncFunctionDef, gone: set[int] = frozenset()
                       ) -> list[ast.stmt]:
    """The assignments of ``func`` whose names nothing else in it reads (its nested functions included; what the
    nodes of ``gone``, already dead, read does not count), repeated until none is left; none for a function that
    declares names global or nonlocal or calls ``locals()``-like builtins."""
    own = list(_own_statements(func))
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in own) or _DYNAMIC & set(_loads(func)):
        return []
    candidates = {id(s): s for s in own if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                  and getattr(s, "value", None) is not None and _target_names(s) and id(s) not in gone}
    reads = {key: _loads(s) for key, s in candidates.items()}
    total = _loads(func)
    for node in ast.walk(func):
        if id(node) in gone:
            total -= _loads(node)
    dead: dict[int, ast.stmt] = {}
    changed = True
    while changed:
        changed = False
        for key, statement in candidates.items():
            if key in dead:
                continue
            if all(total[name] - reads[key][name] <= 0 for name in _target_names(statement)):
                dead[key] = statement
                total -= reads[key]
                changed = True
    return list(dead.values())
