"""Honest students for the similarity benchmark: every graded piece written by each student on their own.

How one honest student writes one piece, in the order a person would make the decisions:

1. **An approach.** One of the one to four implementations of the piece written by hand (``similarity_pieces.py``:
   loops against numpy, a helper called or not, masks or comparisons, another order of the steps), drawn uniformly
   and independently for every piece, with each of its ``«a‖b»`` spelling choices drawn on its own.
2. **A decomposition.** Parts of the function may move into helper functions of the student's own, defined beside
   it: a run of two to five statements (its inputs passed in, the names it sets that the rest of the function reads
   returned), or one larger expression.
3. **The order and the grain of the statements.** Adjacent statements that neither read nor write what the other
   writes may be swapped; an intermediate result may be given a name of its own, or a name used once folded back into
   the one statement that reads it; a list built in a loop may be a comprehension and a comprehension a loop; an
   ``if``/``else`` that assigns one name may be a conditional expression and the reverse; ``x += y`` may be
   ``x = x + y``; a loop backwards may be ``reversed(range(n))`` or ``range(n - 1, -1, -1)``.
4. **Spelling.** The edits of ``Rewrite``: a reduction as a method or as numpy's function (either way where the
   value is surely an array), ``len(x)`` or ``x.shape[0]``, ``x ** 2`` as ``x * x`` or ``np.square(x)``, ``0.5 * x``
   or ``x / 2``, ``None`` or ``np.newaxis`` in an index, comparisons mirrored, operands of ``+``, ``*``, ``&``,
   ``|`` in either order (``*`` and ``+`` of numbers and arrays), ``axis=`` and ``dtype=`` by position or by name,
   the last arguments of the module's own functions by position or by name, ``1.0`` or ``1``, a returned expression
   named first, a tuple assignment split, an ``else:`` after an ``if`` that returns, ``if c: return a`` then
   ``return b`` or ``return a if c else b``.
5. **Names, comments and docstrings.** The student's own names for their variables and helpers, comment lines of
   their own, docstrings on their helpers or not.

Every student has a ``Style``, drawn once: how often they make each of these decisions (one student names every
intermediate result, another nests expressions; one likes loops, another comprehensions). The decisions themselves are
drawn independently at every place they can be made, so a student's habits show across their pieces while no two
students share anything but what the task and the approach dictate, as independent people do. No decision looks at
the similarity report, and the ranges the habits are drawn from (``Style.draw``) are the same for every piece.

Every edit keeps the piece's result bit for bit (the same floating-point operations in the same order); the
benchmark's ``--verify`` grades such students with the kit's own checks.
"""

from __future__ import annotations

import ast
import builtins
import copy
import functools
import keyword
import re
import textwrap
from dataclasses import dataclass, field

import numpy as np

from tests.support.similarity_pieces import PIECES

CHOICE = re.compile(r"«([^«»]*)»", re.S)
REDUCTIONS = {"mean", "sum", "std", "max", "min", "var"}
WORDS = ["val", "tmp", "arr", "res", "buf", "acc", "q", "z", "out", "cur", "item", "thing", "data", "vec", "num"]
IMPURE_METHODS = {"append", "extend", "step", "choice", "permutation", "shuffle", "normal", "integers", "random",
                  "uniform", "pop", "update", "insert", "sort", "setdefault", "clear", "remove", "add", "fill", "put",
                  "resize", "seed", "write", "close"}
STATEFUL_NAMES = {"rng", "optimizer", "print", "open"}
HELPER_WORDS = ["part", "core", "terms", "values", "piece", "step", "inner", "calc", "compute", "stats", "math"]
COMMENTS = ["# shapes as in the README", "# vectorised over the batch", "# same as the formula in the notes",
            "# numpy broadcasting does the rest", "# keep the sign right", "# from the lecture",
            "# this is the main step",
            "# not the most efficient, but clear", "# check: matches the docstring", "# careful with the edge case",
            "# loop over the time steps", "# the part the tests check", "# intermediate result", "# as float"]
DOCSTRINGS = ["Helper for {name}.", "Compute part of {name}.", "Small piece of {name}, split out to keep it short.",
              "Used by {name} only.", "Inner step of {name}."]


@dataclass
class Style:
    """One student's habits: how likely they are to make each decision where it can be made."""

    spelling: float  # each spelling site of ``Rewrite``
    helpers: float  # a helper function split out (tried up to twice per piece)
    reorder: float  # adjacent independent statements swapped
    name_parts: float  # an intermediate result named
    inline: float  # a name used once folded into its reader
    loops: float  # a comprehension written as a loop (its complement: a loop written as a comprehension)
    conditionals: float  # an if/else assignment as a conditional expression and the reverse
    augmented: float  # ``x += y`` as ``x = x + y``
    comments: float  # a comment line before a statement
    docstrings: float  # a docstring on a helper
    helpers_first: bool  # helpers defined before the function that uses them, or after
    naming: str  # "as written", "short", "long", "suffixed"

    @classmethod
    def draw(cls, rng: np.random.Generator) -> Style:
        u = lambda low, high: float(rng.uniform(low, high))  # noqa: E731
        return cls(spelling=u(0.3, 0.8), helpers=u(0.0, 0.5), reorder=u(0.0, 0.6), name_parts=u(0.0, 0.4),
                   inline=u(0.0, 0.5), loops=u(0.0, 1.0), conditionals=u(0.0, 0.6), augmented=u(0.0, 0.6),
                   comments=u(0.0, 0.3), docstrings=u(0.0, 1.0), helpers_first=bool(rng.random() < 0.5),
                   naming=["as written", "short", "long", "suffixed"][int(rng.integers(4))])


@dataclass
class Piece:
    """A student's piece: the body of the graded function and the helper functions it calls."""

    body: str
    helpers: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------------------ what code reads, writes


def names_in(node: ast.AST, stored: bool = False) -> list[str]:
    """The names ``node`` reads (or, ``stored``, binds), in order of appearance, each once; a comprehension's or a
    lambda's own variables are left out."""
    found: list[str] = []

    def visit(n: ast.AST, hidden: frozenset) -> None:
        if isinstance(n, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            hidden = hidden | {x.id for g in n.generators for x in ast.walk(g.target) if isinstance(x, ast.Name)}
        elif isinstance(n, ast.Lambda):
            hidden = hidden | {a.arg for a in ast.walk(n.args) if isinstance(a, ast.arg)}
        elif (isinstance(n, ast.Name) and n.id not in hidden and isinstance(n.ctx, ast.Load) != stored
              and n.id not in found):
            found.append(n.id)
        for child in ast.iter_child_nodes(n):
            visit(child, hidden)

    visit(node, frozenset())
    return found


def reads(statement: ast.stmt) -> set[str]:
    """What a statement reads; an augmented assignment reads its target too."""
    found = set(names_in(statement))
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
        found.add(statement.target.id)
    return found


def writes(statement: ast.stmt) -> set[str]:
    """The names a statement binds, and the names of the objects it changes in place (``x[i] = v``, ``x.a = v``)."""
    found = set(names_in(statement, stored=True))
    targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
    for target in targets:
        for node in ast.walk(target) if target is not None else []:
            if isinstance(node, (ast.Subscript, ast.Attribute)):
                base = node.value
                while isinstance(base, (ast.Subscript, ast.Attribute)):
                    base = base.value
                if isinstance(base, ast.Name):
                    found.add(base.id)
    return found


def pure(node: ast.AST, callables: set[str]) -> bool:
    """No call that may change state: no mutating method, no generator, no call of an argument (a reward function
    may count its calls), nothing of the random generator or the optimizer."""
    for n in ast.walk(node):
        if isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)):
            return False
        if isinstance(n, ast.Name) and n.id in STATEFUL_NAMES:
            return False
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Attribute) and f.attr in IMPURE_METHODS:
                return False
            if isinstance(f, ast.Name) and f.id in callables:
                return False
    return True


def size(node: ast.AST) -> int:
    return sum(1 for _ in ast.walk(node))


SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign)
PARTS = (ast.Call, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Subscript)
Slot = tuple  # (parent node, field name, index in the field's list or None)


def slots(root: ast.AST, kinds: tuple, conditional: bool = False) -> list[tuple[Slot, ast.expr]]:
    """Where each read expression of ``kinds`` under ``root`` stands, with the expression; a function being called
    is not one, nor anything inside a comprehension or a lambda (their own variables), nor, unless
    ``conditional``, anything evaluated only on a condition (a branch of ``a if c else b``, the right of ``and``)."""
    found = []
    skipped = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp, ast.Lambda)
    if not conditional:
        skipped += (ast.IfExp, ast.BoolOp)

    def visit(node: ast.AST) -> None:
        if isinstance(node, skipped) or isinstance(node, ast.stmt) and node is not root:
            return
        for name, value in ast.iter_fields(node):
            children = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
            for index, child in children:
                if not isinstance(child, ast.AST):
                    continue
                if (isinstance(child, kinds) and not (isinstance(node, ast.Call) and name == "func")
                        and not isinstance(getattr(child, "ctx", ast.Load()), (ast.Store, ast.Del))):
                    found.append(((node, name, index), child))
                visit(child)

    visit(root)
    return found


def put(slot: Slot, node: ast.expr) -> None:
    """``node`` in the place ``slot`` names."""
    parent, name, index = slot
    if index is None:
        setattr(parent, name, node)
    else:
        getattr(parent, name)[index] = node


def blocks(node: ast.AST) -> list[list[ast.stmt]]:
    """Every statement list in ``node`` (the function's body, loops' and branches' bodies), outermost first."""
    found = []
    for n in ast.walk(node):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(n, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                found.append(block)
    return found


def locals_of(func: ast.FunctionDef) -> tuple[set[str], set[str]]:
    """(the function's parameters, every name it binds: parameters included)."""
    params = {a.arg for a in func.args.args + func.args.kwonlyargs + func.args.posonlyargs}
    params |= {a.arg for a in (func.args.vararg, func.args.kwarg) if a is not None}
    bound = set(params)
    for statement in func.body:
        bound |= set(names_in(statement, stored=True))
    return params, bound


# ------------------------------------------------------------------------------------------ spelling

ARRAY_FUNCTIONS = {"asarray", "array", "exp", "log", "zeros", "ones", "empty", "zeros_like", "ones_like", "where",
                   "clip", "abs", "square", "sqrt", "maximum", "minimum", "stack", "concatenate", "eye", "arange",
                   "subtract", "divide", "log1p", "expm1", "logical_or", "logical_and", "full"}
ARRAY_METHODS = {"astype", "copy", "reshape"}


def array_valued(node: ast.AST, arrays: set[str]) -> bool:
    """Whether ``node`` surely makes a numpy array (or a numpy scalar, which has the same methods): a numpy
    function that returns one, arithmetic with one, a name always set to one."""
    if isinstance(node, ast.Name):
        return node.id in arrays
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        f = node.func
        if isinstance(f.value, ast.Name) and f.value.id == "np":
            return f.attr in ARRAY_FUNCTIONS
        return f.attr in ARRAY_METHODS and array_valued(f.value, arrays)
    if isinstance(node, ast.BinOp):
        return array_valued(node.left, arrays) or array_valued(node.right, arrays)
    if isinstance(node, ast.UnaryOp):
        return array_valued(node.operand, arrays)
    return False


def known_arrays(func: ast.FunctionDef) -> set[str]:
    """The names a function only ever sets to numpy arrays (never a parameter, a loop variable or a tuple's part)."""
    values: dict[str, list] = {}
    unknown = {a.arg for a in ast.walk(func) if isinstance(a, ast.arg)}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values.setdefault(node.targets[0].id, []).append(node.value)
        elif isinstance(node, (ast.Assign, ast.For, ast.comprehension, ast.With, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)] + [
                item.optional_vars for item in getattr(node, "items", [])]
            unknown |= {n.id for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)}
    arrays: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, assigned in values.items():
            if name not in arrays and name not in unknown and all(array_valued(v, arrays) for v in assigned):
                arrays.add(name)
                changed = True
    return arrays




def resolve(template: str, rng: np.random.Generator) -> str:
    """A piece's template with each «a‖b» choice made at random."""
    return CHOICE.sub(lambda m: (alts := m.group(1).split("‖"))[int(rng.integers(len(alts)))],
                      textwrap.dedent(template).strip("\n") + "\n")


class Rewrite(ast.NodeTransformer):
    """Safe, meaning-preserving edits of spelling, each made at a site with probability ``p``."""

    DTYPED = {"asarray", "array", "zeros", "ones", "empty"}  # numpy functions whose second positional is dtype

    def __init__(self, rng: np.random.Generator, p: float = 0.6, taken: set[str] = frozenset(),
                 signatures: dict[str, tuple[list[str], int]] | None = None):
        self.rng, self.p, self.taken = rng, p, set(taken)
        self.signatures = signatures or {}  # the module's functions: (parameter names, how many are positional-only)
        self.arrays: set[str] = set()
        self.params: set[str] = set()

    def visit_FunctionDef(self, node):
        self.arrays = known_arrays(node)
        self.params = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        return self.generic_visit(node)

    def by_keyword(self, node: ast.Call) -> ast.Call:
        """A call of one of the module's functions with its last arguments passed by name, or such arguments passed
        by position again."""
        names, positional_only = self.signatures[node.func.id]
        args, keywords = node.args, node.keywords
        if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in keywords):
            return node
        if len(args) >= 2 and not keywords and len(args) <= len(names):
            cut = int(self.rng.integers(max(1, positional_only), len(args)))
            return ast.Call(node.func, args[:cut], [ast.keyword(names[i], a) for i, a in enumerate(args) if i >= cut])
        following = names[len(args):len(args) + len(keywords)]
        if keywords and [k.arg for k in keywords] == following:
            return ast.Call(node.func, args + [k.value for k in keywords], [])
        return node

    def coin(self) -> bool:
        return bool(self.rng.random() < self.p)

    def fresh(self, stem: str) -> str:
        """``stem`` with a number, not yet a name of the function or the module."""
        name = f"{stem}_{int(self.rng.integers(100))}"
        while name in self.taken:
            name = f"{stem}_{int(self.rng.integers(1000))}"
        self.taken.add(name)
        return name

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        numpy_call = isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "np"
        if (isinstance(f, ast.Attribute) and f.attr in REDUCTIONS and not node.args and not numpy_call
                and all(k.arg in ("axis", "keepdims") for k in node.keywords) and self.coin()):
            return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), f.attr, ast.Load()), [f.value], node.keywords)
        if (numpy_call and f.attr in REDUCTIONS | {"median"} and len(node.args) == 1 and len(node.keywords) >= 1
                and node.keywords[0].arg == "axis" and self.coin()):
            return ast.Call(f, node.args + [node.keywords[0].value], node.keywords[1:])
        if numpy_call and f.attr in self.DTYPED and self.coin():
            if len(node.args) == 1 and any(k.arg == "dtype" for k in node.keywords):
                dtype = next(k.value for k in node.keywords if k.arg == "dtype")
                return ast.Call(f, node.args + [dtype], [k for k in node.keywords if k.arg != "dtype"])
            if len(node.args) == 2:
                return ast.Call(f, node.args[:1], node.keywords + [ast.keyword("dtype", node.args[1])])
        if (numpy_call and f.attr in REDUCTIONS and node.args and array_valued(node.args[0], self.arrays)
                and self.coin()):  # np.mean(x) as x.mean() where x is surely an array
            return ast.Call(ast.Attribute(node.args[0], f.attr, ast.Load()), node.args[1:], node.keywords)
        if (isinstance(f, ast.Name) and f.id == "len" and len(node.args) == 1 and not node.keywords
                and array_valued(node.args[0], self.arrays) and self.coin()):
            return ast.Subscript(ast.Attribute(node.args[0], "shape", ast.Load()), ast.Constant(0), ast.Load())
        if isinstance(f, ast.Name) and f.id in self.signatures and self.coin():
            return self.by_keyword(node)
        if isinstance(f, ast.Name) and f.id == "range" and self.coin():
            if len(node.args) == 1:
                return ast.Call(f, [ast.Constant(0), node.args[0]], [])
            if len(node.args) == 2 and isinstance(node.args[0], ast.Constant) and node.args[0].value == 0:
                return ast.Call(f, node.args[1:], [])
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        simple = (ast.Name, ast.Attribute, ast.Subscript)
        if (isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) and node.right.value == 2
                and isinstance(node.left, simple) and self.coin()):
            if self.coin():
                return ast.BinOp(node.left, ast.Mult(), node.left)
            return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "square", ast.Load()), [node.left], [])
        half = [side for side in ("left", "right") if isinstance(getattr(node, side), ast.Constant)
                and getattr(node, side).value == 0.5]
        if isinstance(node.op, ast.Mult) and half and self.coin():  # 0.5 * x as x / 2: the same float
            other = node.right if half[0] == "left" else node.left
            return ast.BinOp(other, ast.Div(), ast.Constant(2))
        if (isinstance(node.op, ast.Div) and isinstance(node.right, ast.Constant) and node.right.value == 2
                and not isinstance(node.right.value, bool) and self.coin()):
            return ast.BinOp(ast.Constant(0.5), ast.Mult(), node.left)
        for side in ("left", "right"):  # 1.0 - eps as 1 - eps
            operand = getattr(node, side)
            if (isinstance(operand, ast.Constant) and type(operand.value) is float and operand.value.is_integer()
                    and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)) and self.coin()):
                setattr(node, side, ast.Constant(int(operand.value)))
        pure_operand = (ast.Name, ast.Attribute, ast.Subscript, ast.Compare)
        if (isinstance(node.op, (ast.BitAnd, ast.BitOr))
                and all(isinstance(x, (*pure_operand, ast.BinOp, ast.UnaryOp)) for x in (node.left, node.right))
                and self.coin()):
            return ast.BinOp(node.right, node.op, node.left)  # boolean masks: & and | commute
        if (isinstance(node.op, (ast.Mult, ast.Add)) and isinstance(node.left, pure_operand)
                and isinstance(node.right, pure_operand) and self.coin()):
            return ast.BinOp(node.right, node.op, node.left)
        numeric = isinstance(node.op, ast.Mult) or any(array_valued(x, self.arrays) for x in (node.left, node.right))
        if (isinstance(node.op, (ast.Mult, ast.Add)) and numeric and pure(node, self.params) and self.coin()):
            return ast.BinOp(node.right, node.op, node.left)  # numbers and arrays: * and + commute
        if (isinstance(node.op, (ast.Mult, ast.Add)) and isinstance(node.left, ast.Constant)
                and isinstance(node.left.value, (int, float)) and self.coin()):
            return ast.BinOp(node.right, node.op, node.left)
        if (isinstance(node.op, (ast.Mult, ast.Add)) and isinstance(node.right, ast.Constant)
                and isinstance(node.right.value, (int, float)) and self.coin()):
            return ast.BinOp(node.right, node.op, node.left)
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if (isinstance(node.value, ast.Attribute) and node.value.attr == "shape" and isinstance(node.ctx, ast.Load)
                and isinstance(node.slice, ast.Constant) and node.slice.value == 0 and self.coin()):
            return ast.Call(ast.Name("len", ast.Load()), [node.value.value], [])  # x.shape[0] as len(x)
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else []
        for i, part in enumerate(parts):  # x[:, None] as x[:, np.newaxis] and back
            if isinstance(part, ast.Constant) and part.value is None and self.coin():
                parts[i] = ast.Attribute(ast.Name("np", ast.Load()), "newaxis", ast.Load())
            elif isinstance(part, ast.Attribute) and part.attr == "newaxis" and self.coin():
                parts[i] = ast.Constant(None)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        mirror = {ast.Gt: ast.Lt, ast.Lt: ast.Gt, ast.GtE: ast.LtE, ast.LtE: ast.GtE, ast.Eq: ast.Eq,
                  ast.NotEq: ast.NotEq}
        if len(node.ops) == 1 and type(node.ops[0]) in mirror and self.coin():
            return ast.Compare(node.comparators[0], [mirror[type(node.ops[0])]()], [node.left])
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        if self.coin():
            negated = node.test.operand if isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not) \
                else ast.UnaryOp(ast.Not(), node.test)
            return ast.IfExp(negated, node.orelse, node.body)
        return node

    @staticmethod
    def _pure(node) -> bool:
        """A subscript of names, constants and slices of them: reading it twice or once is the same."""
        if isinstance(node, ast.Name):
            return True
        if isinstance(node, ast.Subscript):
            index = node.slice
            parts = index.elts if isinstance(index, ast.Tuple) else [index]
            return Rewrite._pure(node.value) and all(
                isinstance(x, (ast.Name, ast.Constant)) or (isinstance(x, ast.Slice) and all(
                    y is None or isinstance(y, (ast.Name, ast.Constant)) for y in (x.lower, x.upper, x.step)))
                for x in parts)
        return False

    def hoisted(self, statement) -> list:
        """``[temporary = EXPR, statement reading the temporary]`` for a pure subscript EXPR the statement reads."""
        value = getattr(statement, "value", None)
        if not isinstance(statement, (ast.Assign, ast.Expr, ast.Return)) or value is None or any(
                isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))
                for n in ast.walk(value)):
            return [statement]
        found = [n for n in ast.walk(value) if isinstance(n, ast.Subscript) and self._pure(n)
                 and isinstance(n.ctx, ast.Load)]
        if not found or not self.coin():
            return [statement]
        chosen = ast.dump(found[int(self.rng.integers(len(found)))])
        name = self.fresh(WORDS[int(self.rng.integers(len(WORDS)))])
        expression = next(n for n in found if ast.dump(n) == chosen)

        class Swap(ast.NodeTransformer):
            def visit_Subscript(self, node):
                if ast.dump(node) == chosen:
                    return ast.Name(name, ast.Load())
                return self.generic_visit(node)

        statement.value = Swap().visit(value)
        return [ast.Assign([ast.Name(name, ast.Store())], expression, lineno=0), statement]

    def statements(self, body: list) -> list:
        """A block with statements split or joined: ``return EXPR`` through a named result, ``a, b = x, y`` as two
        assignments (when ``y`` does not read ``a``), an ``else:`` after an ``if`` that returns."""
        out = []
        for n, statement in enumerate(body):
            if (isinstance(statement, ast.Return) and statement.value is not None
                    and not isinstance(statement.value, (ast.Name, ast.Constant)) and self.coin()):
                name = self.fresh(WORDS[int(self.rng.integers(len(WORDS)))] + "_result")
                out += [ast.Assign([ast.Name(name, ast.Store())], statement.value, lineno=0),
                        ast.Return(ast.Name(name, ast.Load()))]
                continue
            if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                    and isinstance(statement.targets[0], ast.Tuple) and isinstance(statement.value, ast.Tuple)
                    and len(statement.targets[0].elts) == len(statement.value.elts)
                    and all(isinstance(t, ast.Name) for t in statement.targets[0].elts) and self.coin()):
                targets = [t.id for t in statement.targets[0].elts]
                reads_of = [{x.id for x in ast.walk(v) if isinstance(x, ast.Name)} for v in statement.value.elts]
                if not any(targets[i] in reads_of[j] for i in range(len(targets)) for j in range(len(targets))):
                    out += [ast.Assign([ast.Name(t, ast.Store())], v, lineno=0)
                            for t, v in zip(targets, statement.value.elts)]
                    continue
            if (isinstance(statement, ast.If) and not statement.orelse and statement.body
                    and isinstance(statement.body[-1], (ast.Return, ast.Raise)) and n + 1 < len(body)
                    and self.coin()):
                statement.orelse = self.statements(body[n + 1:])
                out.append(statement)
                return out
            out += self.hoisted(statement)
        return out

    def generic_visit(self, node):
        super().generic_visit(node)
        for field_name in ("body", "orelse"):
            block = getattr(node, field_name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(node, field_name, self.statements(block))
        return node


# ------------------------------------------------------------------------------------------ statements


class Writer:
    """One student writing one function: the decisions of steps 2 to 5 above, drawn with the student's ``Style``."""

    def __init__(self, func: ast.FunctionDef, rng: np.random.Generator, style: Style, taken: set[str]):
        self.func, self.rng, self.style = func, rng, style
        self.params, _ = locals_of(func)
        self.module_names = set(taken) | set(dir(builtins)) | set(keyword.kwlist)
        self.taken = set(self.module_names)
        self.taken |= {n.id for n in ast.walk(func) if isinstance(n, ast.Name)} | self.params
        self.helpers: list[ast.FunctionDef] = []

    def coin(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def pick(self, options: list):
        return options[int(self.rng.integers(len(options)))]

    def fresh(self, stem: str) -> str:
        """A name not yet used in the module or the function."""
        name, n = stem, 1
        while name in self.taken:
            n += 1
            name = f"{stem}{n}"
        self.taken.add(name)
        return name

    def pure(self, node: ast.AST) -> bool:
        return pure(node, self.params)

    # -- decomposition -------------------------------------------------------------------------------------------

    def helper_name(self) -> str:
        """A helper's name, with its function's in it: pieces are written apart, and their helpers share a module."""
        word = self.pick(HELPER_WORDS)
        return self.fresh(self.pick([f"_{self.func.name}_{word}", f"{word}_for_{self.func.name}",
                                     f"{self.func.name}_{word}"]))

    def new_helper(self, inputs: list[str], body: list[ast.stmt]) -> str:
        name = self.helper_name()
        self.module_names.add(name)
        if self.coin(self.style.docstrings):
            doc = self.pick(DOCSTRINGS).format(name=self.func.name)
            body = [ast.Expr(ast.Constant(doc))] + body
        args = ast.arguments(posonlyargs=[], args=[ast.arg(x) for x in inputs], kwonlyargs=[], kw_defaults=[],
                             defaults=[])
        self.helpers.append(function(name, args, body))
        return name

    def extract_block(self) -> bool:
        """A run of two to five pure assignments moved into a helper: its inputs the names it reads before setting
        them, its results the names it sets that the function reads elsewhere."""
        _, bound = locals_of(self.func)
        runs = []
        for block in blocks(self.func):
            start = 0
            while start < len(block):
                end = start
                while end < len(block) and isinstance(block[end], SIMPLE) and self.pure(block[end]):
                    end += 1
                for a in range(start, end):
                    for b in range(a + 2, min(end, a + 5) + 1):
                        runs.append((block, a, b))
                start = end + 1
        if not runs:
            return False
        block, a, b = self.pick(runs)
        chosen = block[a:b]
        inputs: list[str] = []
        set_here: set[str] = set()
        for statement in chosen:
            inputs += [x for x in names_in(statement) + ([statement.target.id] if isinstance(statement, ast.AugAssign)
                                                          and isinstance(statement.target, ast.Name) else [])
                       if x in bound and x not in set_here and x not in inputs]
            set_here |= set(names_in(statement, stored=True))
        elsewhere = set()
        for statement in ast.walk(self.func):
            if isinstance(statement, ast.stmt) and statement is not self.func and not any(
                    statement is s or any(statement is n for n in ast.walk(s)) for s in chosen):
                if not isinstance(statement, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                    elsewhere |= reads(statement)
                else:  # a compound statement: only what it reads itself (its test, its iterable)
                    for part in ("test", "iter", "items"):
                        value = getattr(statement, part, None)
                        if isinstance(value, ast.AST):
                            elsewhere |= set(names_in(value))
        results = [x for x in dict.fromkeys(x for s in chosen for x in names_in(s, stored=True))
                   if x in elsewhere or x in inputs]  # read before set here: a loop may carry it
        body = list(chosen)
        if results:
            body.append(ast.Return(ast.Name(results[0], ast.Load()) if len(results) == 1 else
                                   ast.Tuple([ast.Name(x, ast.Load()) for x in results], ast.Load())))
        name = self.new_helper(inputs, body)
        call = ast.Call(ast.Name(name, ast.Load()), [ast.Name(x, ast.Load()) for x in inputs], [])
        if not results:
            replacement: ast.stmt = ast.Expr(call)
        elif len(results) == 1:
            replacement = ast.Assign([ast.Name(results[0], ast.Store())], call, lineno=0)
        else:
            replacement = ast.Assign([ast.Tuple([ast.Name(x, ast.Store()) for x in results], ast.Store())], call,
                                     lineno=0)
        block[a:b] = [replacement]
        return True

    def extract_expression(self) -> bool:
        """One larger computation (no call that changes state) moved into a helper that returns it, its local names
        passed in."""
        _, bound = locals_of(self.func)
        kinds = (ast.Call, ast.BinOp, ast.Compare, ast.BoolOp, ast.IfExp, ast.UnaryOp)
        statements = [n for n in ast.walk(self.func) if isinstance(n, ast.stmt) and n is not self.func]
        found = [(slot, e) for statement in statements for slot, e in slots(statement, kinds, conditional=True)
                 if size(e) >= 10 and self.pure(e) and not isinstance(slot[0], ast.Expr)]
        if not found:
            return False
        slot, expression = self.pick(found)
        inputs = [x for x in names_in(expression) if x in bound]
        helper = self.new_helper(inputs, [ast.Return(expression)])
        put(slot, ast.Call(ast.Name(helper, ast.Load()), [ast.Name(x, ast.Load()) for x in inputs], []))
        return True

    # -- order and grain ---------------------------------------------------------------------------------------

    def independent(self, first: ast.stmt, second: ast.stmt) -> bool:
        if not (isinstance(first, SIMPLE) and isinstance(second, SIMPLE)):
            return False
        if not (self.pure(first) and self.pure(second)):
            return False
        w1, w2 = writes(first), writes(second)
        return not (w1 & (reads(second) | w2)) and not (w2 & reads(first))

    def reorder(self) -> None:
        """Adjacent independent statements swapped, each such pair with the style's probability."""
        for block in blocks(self.func):
            i = 0
            while i + 1 < len(block):
                if self.independent(block[i], block[i + 1]) and self.coin(self.style.reorder):
                    block[i], block[i + 1] = block[i + 1], block[i]
                    i += 2
                else:
                    i += 1

    def name_parts(self) -> None:
        """An intermediate result given a name of its own, in some of the assignments and returns."""
        for block in blocks(self.func):
            i = 0
            while i < len(block):
                statement = block[i]
                if (isinstance(statement, (ast.Assign, ast.Return)) and statement.value is not None
                        and self.pure(statement) and self.coin(self.style.name_parts)):
                    options = [(slot, e) for slot, e in slots(statement.value, PARTS) if size(e) >= 4]
                    if options:
                        slot, expression = self.pick(options)
                        temporary = self.fresh(self.pick(WORDS) + self.pick(["", "_part", "_term", "_tmp"]))
                        put(slot, ast.Name(temporary, ast.Load()))
                        block.insert(i, ast.Assign([ast.Name(temporary, ast.Store())], expression, lineno=0))
                        i += 1
                i += 1

    def inline(self) -> None:
        """``t = EXPR`` folded into the next statement when that is the only place that reads ``t``."""
        for block in blocks(self.func):
            i = 0
            while i + 1 < len(block):
                first, second = block[i], block[i + 1]
                if (isinstance(first, ast.Assign) and len(first.targets) == 1
                        and isinstance(first.targets[0], ast.Name) and isinstance(second, (ast.Assign, ast.Return))
                        and second.value is not None and self.pure(first) and self.pure(second)):
                    name = first.targets[0].id
                    uses = [n for n in ast.walk(self.func) if isinstance(n, ast.Name) and n.id == name]
                    found = slots(second.value, (ast.Name,)) + [((second, "value", None), second.value)]
                    places = [slot for slot, e in found if isinstance(e, ast.Name) and e.id == name]
                    if (len(uses) == 2 and len(places) == 1 and name not in self.params
                            and self.coin(self.style.inline)):
                        put(places[0], first.value)
                        del block[i]
                        continue
                i += 1

    def loops(self) -> None:
        """A list comprehension assigned to a name as a loop that appends, and such a loop as a comprehension."""
        for block in blocks(self.func):
            i = 0
            while i < len(block):
                statement = block[i]
                if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                        and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.ListComp)
                        and len(statement.value.generators) == 1 and not statement.value.generators[0].is_async
                        and len(statement.value.generators[0].ifs) <= 1 and self.coin(self.style.loops)):
                    loop = self._as_loop(statement.targets[0].id, statement.value)
                    if loop:
                        block[i:i + 1] = loop
                        i += 2
                        continue
                if i + 1 < len(block) and self.coin(1 - self.style.loops):
                    made = self._as_comprehension(block[i], block[i + 1])
                    if made:
                        block[i:i + 2] = [made]
                i += 1

    def _loop_variables_free(self, target: ast.expr, skip: ast.AST) -> bool:
        """The loop's variables are used nowhere else in the function (a loop leaves them bound, a comprehension
        does not)."""
        inside = {id(n) for n in ast.walk(skip)}
        variables = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        return not any(isinstance(n, ast.Name) and n.id in variables and id(n) not in inside
                       for n in ast.walk(self.func)) and not (variables & self.params)

    def _as_loop(self, name: str, comprehension: ast.ListComp) -> list[ast.stmt] | None:
        generator = comprehension.generators[0]
        if not self._loop_variables_free(generator.target, comprehension):
            return None
        append = ast.Expr(ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "append", ast.Load()),
                                   [comprehension.elt], []))
        body = [ast.If(generator.ifs[0], [append], [])] if generator.ifs else [append]
        return [ast.Assign([ast.Name(name, ast.Store())], ast.List([], ast.Load()), lineno=0),
                ast.For(generator.target, generator.iter, body, [], lineno=0)]

    def _as_comprehension(self, first: ast.stmt, second: ast.stmt) -> ast.stmt | None:
        if not (isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], ast.Name)
                and isinstance(first.value, ast.List) and not first.value.elts and isinstance(second, ast.For)
                and not second.orelse and len(second.body) == 1):
            return None
        name, inner, condition = first.targets[0].id, second.body[0], None
        if isinstance(inner, ast.If) and not inner.orelse and len(inner.body) == 1:
            condition, inner = inner.test, inner.body[0]
        if not (isinstance(inner, ast.Expr) and isinstance(inner.value, ast.Call)
                and isinstance(inner.value.func, ast.Attribute) and inner.value.func.attr == "append"
                and isinstance(inner.value.func.value, ast.Name) and inner.value.func.value.id == name
                and len(inner.value.args) == 1 and not inner.value.keywords):
            return None
        element = inner.value.args[0]
        if name in names_in(element) or not self._loop_variables_free(second.target, second):
            return None
        if not self.pure(element) or (condition is not None and not self.pure(condition)):
            return None
        generator = ast.comprehension(second.target, second.iter, [condition] if condition else [], 0)
        return ast.Assign([ast.Name(name, ast.Store())], ast.ListComp(element, [generator]), lineno=0)

    def conditionals(self) -> None:
        """``if c: x = a`` / ``else: x = b`` as ``x = a if c else b``, and the reverse."""
        for block in blocks(self.func):
            for i, statement in enumerate(block):
                if not self.coin(self.style.conditionals):
                    continue
                if (isinstance(statement, ast.If) and len(statement.body) == 1 and len(statement.orelse) == 1
                        and all(isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                                for s in statement.body + statement.orelse)
                        and statement.body[0].targets[0].id == statement.orelse[0].targets[0].id):
                    name = statement.body[0].targets[0].id
                    block[i] = ast.Assign([ast.Name(name, ast.Store())],
                                          ast.IfExp(statement.test, statement.body[0].value,
                                                    statement.orelse[0].value), lineno=0)
                elif (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                      and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.IfExp)):
                    name, choice = statement.targets[0].id, statement.value
                    block[i] = ast.If(choice.test, [ast.Assign([ast.Name(name, ast.Store())], choice.body, lineno=0)],
                                      [ast.Assign([ast.Name(name, ast.Store())], choice.orelse, lineno=0)])

    def returns(self) -> None:
        """``if c: return a`` then ``return b`` as ``return a if c else b``, and the reverse."""
        for block in blocks(self.func):
            i = 0
            while i < len(block):
                statement = block[i]
                following = block[i + 1] if i + 1 < len(block) else None
                if (isinstance(statement, ast.If) and not statement.orelse and len(statement.body) == 1
                        and isinstance(statement.body[0], ast.Return) and statement.body[0].value is not None
                        and isinstance(following, ast.Return) and following.value is not None
                        and self.coin(self.style.conditionals)):
                    block[i:i + 2] = [ast.Return(ast.IfExp(statement.test, statement.body[0].value,
                                                           following.value))]
                elif (isinstance(statement, ast.Return) and isinstance(statement.value, ast.IfExp)
                      and self.coin(self.style.conditionals)):
                    choice = statement.value
                    block[i:i + 1] = [ast.If(choice.test, [ast.Return(choice.body)], []), ast.Return(choice.orelse)]
                    i += 1
                i += 1

    def augmented(self) -> None:
        """``x += y`` (a name) as ``x = x + y``."""
        for block in blocks(self.func):
            for i, statement in enumerate(block):
                if (isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name)
                        and self.coin(self.style.augmented)):
                    name = statement.target.id
                    block[i] = ast.Assign([ast.Name(name, ast.Store())],
                                          ast.BinOp(ast.Name(name, ast.Load()), statement.op, statement.value),
                                          lineno=0)

    def backwards(self) -> None:
        """``reversed(range(n))`` as ``range(n - 1, -1, -1)`` and the reverse, in ``for`` loops."""
        for node in ast.walk(self.func):
            if not isinstance(node, ast.For) or not isinstance(node.iter, ast.Call) or not self.coin(0.5):
                continue
            call = node.iter
            if (isinstance(call.func, ast.Name) and call.func.id == "reversed" and len(call.args) == 1
                    and isinstance(call.args[0], ast.Call) and isinstance(call.args[0].func, ast.Name)
                    and call.args[0].func.id == "range" and len(call.args[0].args) == 1):
                n = call.args[0].args[0]
                node.iter = ast.Call(ast.Name("range", ast.Load()),
                                     [ast.BinOp(n, ast.Sub(), ast.Constant(1)), ast.Constant(-1), ast.Constant(-1)],
                                     [])
            elif (isinstance(call.func, ast.Name) and call.func.id == "range" and len(call.args) == 3
                  and all(isinstance(a, ast.Constant) and a.value == -1 for a in call.args[1:])
                  and isinstance(call.args[0], ast.BinOp) and isinstance(call.args[0].op, ast.Sub)
                  and isinstance(call.args[0].right, ast.Constant) and call.args[0].right.value == 1):
                node.iter = ast.Call(ast.Name("reversed", ast.Load()),
                                     [ast.Call(ast.Name("range", ast.Load()), [call.args[0].left], [])], [])

    # -- names -------------------------------------------------------------------------------------------------

    def rename(self, func: ast.FunctionDef) -> None:
        """The function's own variables (not its parameters) named in the student's way."""
        if self.style.naming == "as written":
            return
        _, bound = locals_of(func)
        comprehension = {n.id for c in ast.walk(func) if isinstance(c, ast.comprehension)
                         for n in ast.walk(c.target) if isinstance(n, ast.Name)}
        params = {a.arg for a in ast.walk(func) if isinstance(a, ast.arg)}  # a lambda's too
        mapping = {}
        for name in sorted((bound | comprehension) - params):
            if self.style.naming == "short":
                stem = name.replace("_", "")[:3] or name
            elif self.style.naming == "long":
                stem = name if len(name) > 4 else f"{name}_value"
            else:
                stem = f"{name}_{self.pick(['t', 'v', 'np', 'arr', 'x'])}"
            mapping[name] = stem
        used = (self.module_names | {n.id for n in ast.walk(func) if isinstance(n, ast.Name)}) - set(mapping)
        for name, stem in mapping.items():  # distinct inside this function, clear of the module's names
            new, n = stem, 1
            while new in used:
                n += 1
                new = f"{stem}{n}"
            used.add(new)
            mapping[name] = new
        for node in ast.walk(func):
            if isinstance(node, ast.Name) and node.id in mapping:
                node.id = mapping[node.id]

    # -- the whole piece ----------------------------------------------------------------------------------------

    def write(self) -> None:
        """Steps 2 and 3 of the module's docstring, in a person's order: the decomposition first, then the grain."""
        for _ in range(2):
            if self.coin(self.style.helpers):
                (self.extract_block if self.coin(0.5) else self.extract_expression)()
        self.loops()
        self.conditionals()
        self.returns()
        self.augmented()
        self.backwards()
        self.name_parts()
        self.inline()
        self.reorder()


def comment(text: str, rng: np.random.Generator, p: float) -> str:
    """Comment lines of the student's own before some statement lines of ``text``."""
    out = []
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip()
        if stripped and not stripped.startswith(("else", "elif", "except", "finally", ")", "]", "}")) \
                and rng.random() < p:
            out.append(line[:len(line) - len(stripped)] + COMMENTS[int(rng.integers(len(COMMENTS)))] + "\n")
        out.append(line)
    return "".join(out)


def function(name: str, args: ast.arguments, body: list[ast.stmt]) -> ast.FunctionDef:
    """A ``def`` node (parsed from text, so that it has every field this Python's ``ast`` expects)."""
    node = ast.parse(f"def {name}():\n    pass\n").body[0]
    node.args, node.body = args, body
    return node


@functools.cache
def parsed(stub: str) -> ast.Module:
    return ast.parse(stub)


def signature(stub: str, name: str) -> ast.arguments:
    """The parameters of the stub's function ``name`` (a copy), and, as if they were parameters too, the names its
    given lines set before the student's part (bound when the student's code runs)."""
    node = next(n for n in parsed(stub).body if isinstance(n, ast.FunctionDef) and n.name == name)
    args = copy.deepcopy(node.args)
    given = [x for statement in node.body for x in names_in(statement, stored=True)]
    args.args += [ast.arg(x) for x in dict.fromkeys(given)]
    return args


@functools.cache
def signatures(stub: str) -> dict[str, tuple[list[str], int]]:
    """The stub's functions: their parameters' names in order and how many of them are positional-only."""
    found = {}
    for node in parsed(stub).body:
        if isinstance(node, ast.FunctionDef):
            args = node.args
            found[node.name] = ([a.arg for a in args.posonlyargs + args.args], len(args.posonlyargs))
    return found


@functools.cache
def module_names(stub: str) -> frozenset[str]:
    """Every name the stub uses or defines: a student's new names stay clear of them."""
    tree = parsed(stub)
    return frozenset({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
                     | {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))})


def write_piece(key: str, stub: str, rng: np.random.Generator, style: Style, variant: int | None = None) -> Piece:
    """One student's piece ``key`` ("folder/module.py:function") of the stub ``stub``: steps 1 to 5 above."""
    name = key.split(":")[1]
    variants = PIECES[key]
    text = resolve(variants[int(rng.integers(len(variants))) if variant is None else variant], rng)
    func = function(name, signature(stub, name), ast.parse(text).body)
    taken = module_names(stub) | {n.id for n in ast.walk(func) if isinstance(n, ast.Name)}
    func = Rewrite(rng, style.spelling, taken, signatures(stub)).visit(func)
    writer = Writer(func, rng, style, module_names(stub))
    writer.write()
    for helper in writer.helpers:
        writer.rename(helper)
    writer.rename(func)
    module = ast.fix_missing_locations(ast.Module([func] + writer.helpers, []))
    body = "".join(ast.unparse(statement) + "\n" for statement in module.body[0].body)
    helpers = [ast.unparse(helper) + "\n" for helper in module.body[1:]]
    return Piece(comment(body, rng, style.comments), [comment(h, rng, style.comments) for h in helpers])
