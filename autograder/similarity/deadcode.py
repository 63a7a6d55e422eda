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
_JUMPS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
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
        reader = _Reader()
        reader.statements(tree.body, (), False)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    spans = reader.spans + [(_start(n), _end(n)) for scope in reader.scopes for n in scope.unused()]
    lines = source.splitlines()
    return [(_position(lines, *a), _position(lines, *b)) for a, b in spans]


def _position(lines: list[str], line: int, byte_column: int) -> Position:
    """The syntax tree counts columns in UTF-8 bytes, tokenize in characters."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    if text.isascii():
        return line, byte_column
    return line, len(text.encode("utf-8")[:byte_column].decode("utf-8", errors="ignore"))


def _start(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _end(node: ast.AST) -> tuple[int, int]:
    return node.end_lineno, node.end_col_offset


def _false(test: ast.expr) -> bool | None:
    """True for a false constant, False for a true one, None for anything else."""
    if isinstance(test, ast.Constant):
        return not test.value
    return None


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


def _target_names(statement: ast.stmt) -> set[str] | None:
    """The names an assignment binds, or None when it also changes an object (``x[i] = v``, ``x.a = v``)."""
    names = set()
    for target in statement.targets if isinstance(statement, ast.Assign) else [statement.target]:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
                return None
    return names


class _Scope:
    """A function being read: how often each name is read in it (its nested functions included, dead code not), and
    its assignments to plain names, each with what it reads itself."""

    def __init__(self):
        self.loads: Counter = Counter()
        self.assignments: list[tuple[ast.stmt, set[str], Counter]] = []
        self.opaque = False  # names declared global or nonlocal: their readers may be anywhere

    def unused(self) -> list[ast.stmt]:
        """The assignments whose names nothing else reads, again and again until none is left."""
        if self.opaque or _DYNAMIC & set(self.loads):
            return []
        total, dead = Counter(self.loads), []
        pending = list(self.assignments)
        changed = True
        while changed:
            changed, still = False, []
            for statement, names, own in pending:
                if all(total[name] - own[name] <= 0 for name in names):
                    dead.append(statement)
                    total -= own
                    changed = True
                else:
                    still.append((statement, names, own))
            pending = still
        return dead


class _Reader:
    """One pass over a module's syntax tree: the dead runs it finds on the way (``spans``, as the syntax tree counts
    positions), and every function's ``_Scope``."""

    def __init__(self):
        self.spans: list[tuple[tuple[int, int], tuple[int, int]]] = []
        self.scopes: list[_Scope] = []

    def statements(self, block: list[ast.stmt], scopes: tuple, dead: bool) -> None:
        for i, statement in enumerate(block):
            self.statement(statement, scopes, dead)
            if not dead and isinstance(statement, _JUMPS) and i + 1 < len(block):
                self.spans.append((_start(block[i + 1]), _end(block[-1])))
                dead = True

    def statement(self, node: ast.stmt, scopes: tuple, dead: bool) -> None:
        if not dead and _noise(node):
            self.spans.append((_start(node), _end(node)))
            dead = True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for part in node.decorator_list + node.args.defaults + node.args.kw_defaults:
                self.expression(part, scopes, dead)
            scope = _Scope()
            self.scopes.append(scope)
            self.statements(node.body, scopes + (scope,), dead)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for scope in scopes:
                scope.opaque = True
        elif (isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None and scopes
              and not dead and _target_names(node)):
            own: Counter = Counter()
            self.expression(node.value, scopes, dead, own)
            scopes[-1].assignments.append((node, _target_names(node), own))
        elif isinstance(node, (ast.If, ast.While)):
            self.branches(node, scopes, dead)
        else:
            self.fields(node, scopes, dead)

    def branches(self, node: ast.If | ast.While, scopes: tuple, dead: bool) -> None:
        """An ``if`` or ``while``; a constant test makes its block or its ``else`` dead, and the test with it."""
        never = None if dead else _false(node.test)
        self.expression(node.test, scopes, dead)
        body_dead = orelse_dead = dead
        if never and node.orelse and isinstance(node, ast.If):  # the test, its block and ``else:``
            self.spans.append((_start(node), _start(node.orelse[0])))
            body_dead = True
        elif never and not node.orelse:
            self.spans.append((_start(node), _end(node)))
            body_dead = True
        elif never is False and isinstance(node, ast.If):  # ``if True:`` and its ``else:`` block
            self.spans.append((_start(node), _start(node.body[0])))
            if node.orelse:
                self.spans.append((_end(node.body[-1]), _end(node.orelse[-1])))
                orelse_dead = True
        self.statements(node.body, scopes, body_dead)
        self.statements(node.orelse, scopes, orelse_dead)

    def fields(self, node: ast.AST, scopes: tuple, dead: bool) -> None:
        """Any other statement: its blocks as statements, the rest as expressions."""
        for value in ast.iter_fields(node):
            value = value[1]
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                self.statements(value, scopes, dead)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, (ast.excepthandler, getattr(ast, "match_case", ()))):
                        self.fields(item, scopes, dead)
                    elif isinstance(item, ast.AST):
                        self.expression(item, scopes, dead)
            elif isinstance(value, ast.AST):
                self.expression(value, scopes, dead)

    def expression(self, node: ast.AST, scopes: tuple, dead: bool, own: Counter | None = None) -> None:
        """The names an expression reads, counted for every function it is in (and for ``own``), unless dead."""
        if dead:
            return
        stack = [node]
        while stack:
            n = stack.pop()
            if type(n) is ast.Name:
                if type(n.ctx) is ast.Load:
                    for scope in scopes:
                        scope.loads[n.id] += 1
                    if own is not None:
                        own[n.id] += 1
                continue
            stack.extend(ast.iter_child_nodes(n))
