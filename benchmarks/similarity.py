"""Benchmark: the similarity report's precision and recall on a synthetic class, and its cost at scale (issue 28).

    .venv/bin/python benchmarks/similarity.py [--students 60] [--copies 4] [--projects A,B,C,D] [--seed 0]
    .venv/bin/python benchmarks/similarity.py --scale 1000 [--copies 10]       # time and memory, 1,000 students
    .venv/bin/python benchmarks/similarity.py --verify 4                      # honest students graded: correct?

The synthetic class. Honest students are independent correct rewrites: each graded piece is one of two to four
implementations written by hand (``similarity_pieces.py``), its ``«a‖b»`` choice points resolved at random, then
rewritten at random by safe, meaning-preserving edits (a reduction method as numpy's function, ``x ** 2`` as ``x * x``
or ``np.square(x)``, a comparison mirrored, a constant factor moved to the other side, ``axis=`` given by position, a
conditional expression inverted), so two honest students who picked the same implementation still write it
differently, as two people do. ``--verify`` grades such students with the kit's own unit checks.

Planted copies, six kinds, each copying another student of the class (or the reference):
  verbatim     the source's project folder as it is
  renamed      every identifier the source introduced (not the stub's names) renamed consistently
  reordered    the graded functions of each module shuffled
  commented    comments, dead statements (``if False:`` blocks, unused variables) added inside the functions
  function     the copier's own honest work, with one of the source's three largest pieces pasted in
  reference    the reference solution, its solution markers removed
A few students hand in the stubs unchanged. The report is run on the class (``autograder similarity``, this kit's
course, no ``--against``) and scored against the truth: a planted pair is *found* when it ranks above every honest
pair of its project, and *flagged* when it reaches the report's threshold; every honest pair (two honest students,
or an honest student and the reference) must stay below the threshold.

``--scale N`` builds N students with all four projects (notebooks included, as released), a share of them copiers,
and times ``autograder similarity`` on it in a child process: wall time and the child's peak resident memory.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import io
import json
import keyword
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import tokenize
from collections import Counter
from pathlib import Path

import numpy as np

KIT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(KIT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from similarity_pieces import PIECES  # noqa: E402

MODULES = {"A": ("A_ppo", ["ppo.py"]), "B": ("B_ablations", ["ppo.py", "details.py", "ablation.py"]),
           "C": ("C_diagnosis", ["diagnostics.py"]), "D": ("D_grpo", ["grpo.py"])}
KINDS = ("verbatim", "renamed", "reordered", "commented", "function", "reference")
STUB_PIECE = re.compile(r"^(?P<indent>[ \t]*)# YOUR CODE HERE\n[ \t]*raise NotImplementedError\(\)\n", re.M)
CHOICE = re.compile(r"«([^«»]*)»", re.S)
DEF = re.compile(r"^[ \t]*def (\w+)\(", re.M)
REDUCTIONS = {"mean", "sum", "std", "max", "min", "var"}
WORDS = ["val", "tmp", "arr", "res", "buf", "acc", "q", "z", "out", "cur", "item", "thing", "data", "vec", "num"]


# ------------------------------------------------------------------------------------------ honest students


def resolve(template: str, rng: np.random.Generator) -> str:
    """A piece's template with each «a‖b» choice made at random."""
    return CHOICE.sub(lambda m: (alts := m.group(1).split("‖"))[int(rng.integers(len(alts)))],
                      textwrap.dedent(template).strip("\n") + "\n")


class Rewrite(ast.NodeTransformer):
    """Safe, meaning-preserving edits, each made at a site with probability ``p``."""

    DTYPED = {"asarray", "array", "zeros", "ones", "empty"}  # numpy functions whose second positional is dtype

    def __init__(self, rng: np.random.Generator, p: float = 0.6):
        self.rng, self.p = rng, p

    def coin(self) -> bool:
        return bool(self.rng.random() < self.p)

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
        for side in ("left", "right"):  # 1.0 - eps as 1 - eps
            operand = getattr(node, side)
            if (isinstance(operand, ast.Constant) and type(operand.value) is float and operand.value.is_integer()
                    and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)) and self.coin()):
                setattr(node, side, ast.Constant(int(operand.value)))
        pure = (ast.Name, ast.Attribute, ast.Subscript, ast.Compare)
        if (isinstance(node.op, (ast.BitAnd, ast.BitOr)) and all(isinstance(x, (*pure, ast.BinOp, ast.UnaryOp))
                                                                 for x in (node.left, node.right)) and self.coin()):
            return ast.BinOp(node.right, node.op, node.left)  # boolean masks: & and | commute
        if (isinstance(node.op, (ast.Mult, ast.Add)) and isinstance(node.left, pure)
                and isinstance(node.right, pure) and self.coin()):
            return ast.BinOp(node.right, node.op, node.left)
        if (isinstance(node.op, (ast.Mult, ast.Add)) and isinstance(node.left, ast.Constant)
                and isinstance(node.left.value, (int, float)) and self.coin()):
            return ast.BinOp(node.right, node.op, node.left)
        if (isinstance(node.op, (ast.Mult, ast.Add)) and isinstance(node.right, ast.Constant)
                and isinstance(node.right.value, (int, float)) and self.coin()):
            return ast.BinOp(node.right, node.op, node.left)
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
            return ast.IfExp(ast.UnaryOp(ast.Not(), node.test), node.orelse, node.body)
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
        name = WORDS[int(self.rng.integers(len(WORDS)))] + f"_{int(self.rng.integers(100))}"
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
                name = WORDS[int(self.rng.integers(len(WORDS)))] + "_result"
                out += [ast.Assign([ast.Name(name, ast.Store())], statement.value, lineno=0),
                        ast.Return(ast.Name(name, ast.Load()))]
                continue
            if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                    and isinstance(statement.targets[0], ast.Tuple) and isinstance(statement.value, ast.Tuple)
                    and len(statement.targets[0].elts) == len(statement.value.elts)
                    and all(isinstance(t, ast.Name) for t in statement.targets[0].elts) and self.coin()):
                targets = [t.id for t in statement.targets[0].elts]
                reads = [{x.id for x in ast.walk(v) if isinstance(x, ast.Name)} for v in statement.value.elts]
                if not any(targets[i] in reads[j] for i in range(len(targets)) for j in range(len(targets))):
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


def honest_body(key: str, rng: np.random.Generator, variant: int | None = None) -> str:
    """One honest implementation of a piece: a hand-written variant, its choices made, rewritten at random."""
    variants = PIECES[key]
    text = resolve(variants[int(rng.integers(len(variants))) if variant is None else variant], rng)
    tree = Rewrite(rng).visit(ast.parse(text))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def fill(stub: str, bodies: dict[str, str], prefix: str) -> str:
    """The stub with each ``raise NotImplementedError()`` replaced by the body of its function in ``bodies``."""
    def replace(match):
        name = DEF.findall(stub[:match.start()])[-1]
        return textwrap.indent(bodies[f"{prefix}:{name}"], match.group("indent"))
    return STUB_PIECE.sub(replace, stub)


def stub_text(folder: str, module: str) -> str:
    return (KIT / "assignments" / folder / module).read_text(encoding="utf-8")


def pieces_in(folder: str, module: str) -> list[str]:
    stub = stub_text(folder, module)
    return [f"{folder}/{module}:{DEF.findall(stub[:m.start()])[-1]}" for m in STUB_PIECE.finditer(stub)]


def honest_bodies(pid: str, rng: np.random.Generator) -> dict[str, str]:
    folder, modules = MODULES[pid]
    modules = ["ppo.py"] if pid == "A" else [m for m in modules if m != "ppo.py"]
    return {key: honest_body(key, rng) for module in modules for key in pieces_in(folder, module)}


def files_from(pid: str, bodies: dict[str, str], a_bodies: dict[str, str]) -> dict[str, str]:
    """A student's modules of project ``pid`` from their piece bodies (B's ppo.py is the student's own A)."""
    folder, modules = MODULES[pid]
    out = {}
    for module in modules:
        if pid == "B" and module == "ppo.py":
            out[module] = fill(stub_text(folder, module), a_bodies, "A_ppo/ppo.py")
        else:
            out[module] = fill(stub_text(folder, module), bodies, f"{folder}/{module}")
    return out


# ------------------------------------------------------------------------------------------ planted copies


def _names(text: str) -> set[str]:
    try:
        return {t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.NAME}
    except (tokenize.TokenError, SyntaxError):
        return set()


def renamed(files: dict[str, str], folder: str, rng: np.random.Generator) -> dict[str, str]:
    """Every identifier the student introduced (absent from the stub, not a keyword or builtin, not an attribute)
    renamed consistently."""
    out = {}
    for module, text in files.items():
        keep = _names(stub_text(folder, module)) | set(keyword.kwlist) | set(dir(builtins))
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
        mapping: dict[str, str] = {}
        lines = text.splitlines(keepends=True)
        edits = []
        for i, tok in enumerate(tokens):
            if tok.type != tokenize.NAME or tok.string in keep or (i and tokens[i - 1].string == "."):
                continue
            if i + 1 < len(tokens) and tokens[i + 1].string == "=" and i and tokens[i - 1].string in ("(", ","):
                continue  # a keyword argument's name belongs to the callee
            new = mapping.setdefault(tok.string, f"{WORDS[int(rng.integers(len(WORDS)))]}_{len(mapping)}")
            edits.append((tok.start, tok.end, new))
        for (l0, c0), (l1, c1), new in reversed(edits):
            line = lines[l0 - 1]
            lines[l0 - 1] = line[:c0] + new + line[c1:]
        out[module] = "".join(lines)
    return out


def _function_spans(text: str, names: set[str]) -> list[tuple[int, int]]:
    """(first line, last line), 0-based, of each top-level function named in ``names``, decorators included."""
    tree = ast.parse(text)
    return [(min([n.lineno] + [d.lineno for d in n.decorator_list]) - 1, n.end_lineno - 1) for n in tree.body
            if isinstance(n, ast.FunctionDef) and n.name in names]


def reordered(files: dict[str, str], folder: str, rng: np.random.Generator) -> dict[str, str]:
    """The graded functions of each module in a shuffled order (each slot keeps its place in the file)."""
    out = {}
    for module, text in files.items():
        names = {key.split(":")[1] for key in pieces_in(folder, module)}
        spans = _function_spans(text, names)
        lines = text.splitlines(keepends=True)
        blocks = ["".join(lines[a:b + 1]) for a, b in spans]
        order = list(range(len(blocks)))
        while len(blocks) > 1 and order == sorted(order):
            order = list(rng.permutation(len(blocks)))
        pieces, cursor = [], 0
        for (a, b), index in zip(spans, order):
            pieces.append("".join(lines[cursor:a]))
            pieces.append(blocks[index])
            cursor = b + 1
        pieces.append("".join(lines[cursor:]))
        out[module] = "".join(pieces)
    return out


COMMENTS = ["# compute this step", "# TODO: check the shapes", "# see the lecture notes", "# vectorised",
            "# careful with the sign here", "# as in the chapter"]


def commented(files: dict[str, str], folder: str, rng: np.random.Generator) -> dict[str, str]:
    """Comments, dead statements and ``if False:`` blocks added before statements of the graded functions."""
    out = {}
    for module, text in files.items():
        names = {key.split(":")[1] for key in pieces_in(folder, module)}
        tree = ast.parse(text)
        starts = []
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name in names:
                for statement in ast.walk(node):
                    if isinstance(statement, ast.stmt) and statement is not node and not (
                            isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)):
                        starts.append((statement.lineno - 1, statement.col_offset))
        lines = text.splitlines(keepends=True)
        for n, (line, col) in enumerate(sorted(set(starts), reverse=True)):
            if lines[line].lstrip().startswith("elif "):  # the ``if`` of an ``elif``: nothing can go before it
                continue
            pad = " " * col
            roll = rng.random()
            if roll < 0.35:
                lines.insert(line, f"{pad}{COMMENTS[int(rng.integers(len(COMMENTS)))]}\n")
            elif roll < 0.55:
                lines.insert(line, f"{pad}unused_{n} = {int(rng.integers(100))} * 2  # debugging\n")
            elif roll < 0.7:
                lines.insert(line, f"{pad}if False:\n{pad}    print('debug', {n})\n")
        out[module] = "".join(lines)
    return out


def reference_files(pid: str) -> dict[str, str]:
    folder, modules = MODULES[pid]
    marker = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION\n", re.M)
    return {m: marker.sub("", (KIT / "solutions" / folder / m).read_text(encoding="utf-8")) for m in modules}


# ------------------------------------------------------------------------------------------ the class


def make_class(root: Path, students: int, copies: int, projects: list[str], seed: int, stubs: int = 3,
               notebooks: bool = False) -> dict:
    """Write a synthetic class under ``root``; returns the truth: {pid: {"planted": [(copier, source, kind)],
    "stub_only": [...], "honest": [...]}}."""
    rng = np.random.default_rng(seed)
    ids = [f"student{i:04d}" for i in range(students + stubs)]
    names = list(rng.permutation(ids))  # the copiers' names tell nothing
    regular, stub_only = names[:students], names[students:]
    bodies = {sid: {pid: honest_bodies(pid, rng) for pid in projects} for sid in regular}
    if "B" in projects and "A" not in projects:
        for sid in regular:
            bodies[sid]["A"] = honest_bodies("A", rng)
    truth = {}
    files: dict[str, dict[str, dict[str, str]]] = {sid: {} for sid in ids}
    for pid in projects:
        folder, _ = MODULES[pid]
        for sid in regular:
            files[sid][pid] = files_from(pid, bodies[sid][pid], bodies[sid]["A"] if pid == "B" else {})
        for sid in stub_only:
            files[sid][pid] = {m: stub_text(folder, m) for m in MODULES[pid][1]}
        n_copies = copies * len(KINDS)
        if 2 * n_copies > students:
            raise SystemExit(f"--students {students} is too few for {copies} copies of each of {len(KINDS)} kinds")
        chosen = list(rng.permutation(regular))
        copiers, sources = chosen[:n_copies], chosen[n_copies:2 * n_copies]
        planted = []
        for n, copier in enumerate(copiers):
            kind, source = KINDS[n % len(KINDS)], sources[n]
            original = files[source][pid]
            if kind == "verbatim":
                made = dict(original)
            elif kind == "renamed":
                made = renamed(original, folder, rng)
            elif kind == "reordered":
                made = reordered(original, folder, rng)
            elif kind == "commented":
                made = commented(original, folder, rng)
            elif kind == "function":
                own = dict(bodies[copier][pid])
                theirs = bodies[source][pid]
                largest = sorted(theirs, key=lambda k: -len(theirs[k]))[:3]
                key = largest[int(rng.integers(len(largest)))]
                own[key] = theirs[key]
                made = files_from(pid, own, bodies[copier]["A"] if pid == "B" else {})
            else:
                made, source = reference_files(pid), "reference"
            files[copier][pid] = made
            planted.append((copier, source, kind))
        truth[pid] = {"planted": planted, "stub_only": stub_only,
                      "honest": [s for s in regular if s not in copiers]}
    for sid in ids:
        for pid, modules in files[sid].items():
            folder = root / sid / MODULES[pid][0]
            folder.mkdir(parents=True, exist_ok=True)
            for module, text in modules.items():
                (folder / module).write_text(text, encoding="utf-8")
            if notebooks:
                notebook = KIT / "assignments" / MODULES[pid][0] / f"{MODULES[pid][0]}.ipynb"
                shutil.copyfile(notebook, folder / notebook.name)
    return truth


def run_report(root: Path, out: Path, projects: list[str], extra: list[str] = ()) -> tuple[float, float]:
    """``autograder similarity`` on the class in a child process: (wall seconds, peak resident MB of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "autograder", "--course", str(KIT), "similarity", str(root), "--out",
                    str(out), "--projects", ",".join(projects), *extra], check=True, cwd=KIT,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before) / 1024


def read_pairs(out: Path) -> dict[str, list[dict]]:
    import csv

    pairs: dict[str, list[dict]] = {}
    with open(out / "similarity.csv", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            pairs.setdefault(row["project"], []).append(row)
    return pairs


def score_class(truth: dict, out: Path, flag: float) -> dict:
    """Per project and kind: planted pairs found (ranked above every honest pair) and flagged; honest pairs above
    the threshold; the highest honest score."""
    pairs = read_pairs(out)
    results = {}
    for pid, facts in truth.items():
        rows = pairs.get(pid, [])
        score = {frozenset((r["submission"], r["compared_with"])): float(r["similarity"]) for r in rows}
        copiers = {c for c, _, _ in facts["planted"]}
        related = {frozenset((c, s)) for c, s, _ in facts["planted"]}
        ref_copiers = [c for c, _, k in facts["planted"] if k == "reference"]
        related |= {frozenset((a, b)) for a in ref_copiers for b in ref_copiers if a != b}
        honest_people = set(facts["honest"]) | set(facts["stub_only"]) | {"reference"}
        honest_scores = [v for key, v in score.items() if key not in related and key <= honest_people]
        top_honest = max(honest_scores, default=0.0)
        kinds = {}
        for copier, source, kind in facts["planted"]:
            value = score.get(frozenset((copier, source)), 0.0)
            entry = kinds.setdefault(kind, {"pairs": 0, "found": 0, "flagged": 0, "lowest": 1.0})
            entry["pairs"] += 1
            entry["found"] += value > top_honest
            entry["flagged"] += value >= flag
            entry["lowest"] = min(entry["lowest"], value)
        flagged_rows = [key for key, v in score.items() if v >= flag]
        false_flags = [key for key in flagged_rows if key not in related and not (key & copiers)]
        results[pid] = {"kinds": kinds, "top_honest": top_honest, "honest_pairs": len(honest_scores),
                        "honest_flagged": sum(v >= flag for v in honest_scores), "flagged": len(flagged_rows),
                        "false_flags": len(false_flags),
                        "stub_only_top": max([v for key, v in score.items() if key & set(facts["stub_only"])],
                                             default=0.0)}
    return results


def print_results(results: dict, flag: float) -> None:
    print(f"\nflag threshold {flag:.2f}")
    print("| project | kind | planted pairs | ranked above every honest pair | flagged | lowest score |")
    print("|---|---|---|---|---|---|")
    total = Counter()
    for pid, r in results.items():
        for kind in KINDS:
            k = r["kinds"].get(kind)
            if not k:
                continue
            total["pairs"] += k["pairs"]
            total["found"] += k["found"]
            total["flagged"] += k["flagged"]
            print(f"| {pid} | {kind} | {k['pairs']} | {k['found']} | {k['flagged']} | {k['lowest']:.2f} |")
    print(f"| all | all | {total['pairs']} | {total['found']} ({total['found'] / max(total['pairs'], 1):.0%}) | "
          f"{total['flagged']} ({total['flagged'] / max(total['pairs'], 1):.0%}) | |")
    print("\n| project | honest pairs scored | highest honest score | honest pairs flagged | "
          "flagged pairs, of which not planted | stub-only students' highest |")
    print("|---|---|---|---|---|---|")
    for pid, r in results.items():
        print(f"| {pid} | {r['honest_pairs']} | {r['top_honest']:.2f} | {r['honest_flagged']} | "
              f"{r['flagged']}, {r['false_flags']} | {r['stub_only_top']:.2f} |")


def verify(count: int, projects: list[str], seed: int) -> None:
    """Grade ``count`` honest students per project with the kit's unit checks (public seeds): every one must pass."""
    from autograder.config import load_course
    from autograder.grading import grade

    course = load_course(KIT / "course.yml", private=False)
    quick = {"A": ["A.gae", "A.batch", "A.ratio", "A.clip_gradient", "A.value_entropy", "A.update"],
             "B": ["B.defaults", "B.switches", "B.summary"],
             "C": ["C.entropy", "C.kl_clip", "C.explained_variance", "C.td_q", "C.return_drop", "C.own_labels"],
             "D": ["D.weights", "D.kl_penalty", "D.enumeration", "D.clip_gradient", "D.grpo_step",
                   "D.price_exploit", "D.chapter_tables"]}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_class(root, count, 0, projects, seed, stubs=0)
        for sid in sorted(p.name for p in root.iterdir()):
            for pid in projects:
                folder = root / sid / MODULES[pid][0]
                if pid == "C":
                    shutil.copytree(KIT / "assignments" / "C_diagnosis" / "logs", folder / "logs")
                report = grade(folder, course, seed_set="public", projects=[pid], checks=quick[pid]).report
                failed = [c.id for c in report.projects[pid].checks if not c.passed]
                print(f"{sid} {pid}: {report.projects[pid].score:g} / {report.projects[pid].max_score:g}"
                      f"{'  FAILED ' + ', '.join(failed) if failed else ''}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=60, help="students besides the stub-only ones")
    parser.add_argument("--copies", type=int, default=4, help="planted copies of each kind, per project")
    parser.add_argument("--projects", default="A,B,C,D")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scale", type=int, help="time and measure the report on this many students")
    parser.add_argument("--verify", type=int, help="grade this many honest students per project")
    parser.add_argument("--keep", help="write the class and the report here instead of a temporary folder")
    args = parser.parse_args()
    projects = args.projects.split(",")
    if args.verify:
        verify(args.verify, projects, args.seed)
        return
    from autograder.similarity.index import FLAG

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.keep) if args.keep else Path(tmp)
        root, out = base / "class", base / "report"
        shutil.rmtree(root, ignore_errors=True)
        students = args.scale or args.students
        started = time.perf_counter()
        truth = make_class(root, students, args.copies, projects, args.seed, notebooks=bool(args.scale))
        size = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
        print(f"class: {students} students + 3 stub-only, projects {','.join(projects)}, {args.copies} copies of "
              f"each of {len(KINDS)} kinds per project, {size / 1e6:.0f} MB, made in "
              f"{time.perf_counter() - started:.0f} s", flush=True)
        wall, peak = run_report(root, out, projects)
        print(f"autograder similarity: {wall:.1f} s wall, peak resident memory {peak:.0f} MB")
        print_results(score_class(truth, out, FLAG), FLAG)
        print(json.dumps({"students": students, "wall_seconds": round(wall, 1), "peak_mb": round(peak)}))


if __name__ == "__main__":
    main()
