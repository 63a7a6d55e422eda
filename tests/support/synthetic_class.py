"""The synthetic class: honest students who each write every graded piece their own way
(``similarity_honest.py``), planted copies of six kinds, and students who hand in the stubs. ``make_class`` writes it
and returns the truth; benchmarks/similarity.py scores the similarity report against it, and tests/test_similarity.py
checks the report on a small one."""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import re
import shutil
import textwrap
import tokenize
from pathlib import Path

import numpy as np

from autograder import paths
from tests.support.similarity_honest import WORDS, Piece, Style, write_piece

KIT = paths.KIT_ROOT

MODULES = {"A": ("A_ppo", ["ppo.py"]), "B": ("B_ablations", ["ppo.py", "details.py", "ablation.py"]),
           "C": ("C_diagnosis", ["diagnostics.py"]), "D": ("D_grpo", ["grpo.py"])}
KINDS = ("verbatim", "renamed", "reordered", "commented", "function", "reference")
STUB_PIECE = re.compile(r"^(?P<indent>[ \t]*)# YOUR CODE HERE\n[ \t]*raise NotImplementedError\(\)\n", re.M)
DEF = re.compile(r"^[ \t]*def (\w+)\(", re.M)


# ------------------------------------------------------------------------------------------ honest students


def fill(stub: str, pieces: dict[str, Piece], prefix: str, helpers_first: bool) -> str:
    """The stub with each ``raise NotImplementedError()`` replaced by the body of its function's piece, and the
    piece's helpers defined just before that function or just after it."""
    lines = stub.splitlines(keepends=True)
    functions = {n.name: n for n in ast.parse(stub).body if isinstance(n, ast.FunctionDef)}
    out, cursor = [], 0
    for match in STUB_PIECE.finditer(stub):
        name = DEF.findall(stub[:match.start()])[-1]
        piece, node = pieces[f"{prefix}:{name}"], functions[name]
        first = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1  # lines count from 0 here
        stub_line = stub.count("\n", 0, match.start())  # "# YOUR CODE HERE", then the raise
        helpers = "".join(h + "\n\n" for h in piece.helpers)
        out.append("".join(lines[cursor:first]))
        if helpers_first:
            out.append(helpers)
        out.append("".join(lines[first:stub_line]) + textwrap.indent(piece.body, match.group("indent")))
        out.append("".join(lines[stub_line + 2:node.end_lineno]))
        if helpers and not helpers_first:
            out.append("\n\n" + helpers.rstrip("\n") + "\n")
        cursor = node.end_lineno
    return "".join(out) + "".join(lines[cursor:])


def stub_text(folder: str, module: str) -> str:
    return (KIT / "assignments" / folder / module).read_text(encoding="utf-8")


def pieces_in(folder: str, module: str) -> list[str]:
    stub = stub_text(folder, module)
    return [f"{folder}/{module}:{DEF.findall(stub[:m.start()])[-1]}" for m in STUB_PIECE.finditer(stub)]


def honest_pieces(pid: str, rng: np.random.Generator, style: Style) -> dict[str, Piece]:
    """Every piece of project ``pid`` as one honest student writes it (B's ppo.py is the student's A)."""
    folder, modules = MODULES[pid]
    modules = ["ppo.py"] if pid == "A" else [m for m in modules if m != "ppo.py"]
    return {key: write_piece(key, stub_text(folder, module), rng, style)
            for module in modules for key in pieces_in(folder, module)}


def files_from(pid: str, pieces: dict[str, Piece], a_pieces: dict[str, Piece], style: Style) -> dict[str, str]:
    """A student's modules of project ``pid`` from their pieces (B's ppo.py is the student's own A)."""
    folder, modules = MODULES[pid]
    out = {}
    for module in modules:
        if pid == "B" and module == "ppo.py":
            out[module] = fill(stub_text(folder, module), a_pieces, "A_ppo/ppo.py", style.helpers_first)
        else:
            out[module] = fill(stub_text(folder, module), pieces, f"{folder}/{module}", style.helpers_first)
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
        for (l0, c0), (_, c1), new in reversed(edits):
            line = lines[l0 - 1]
            lines[l0 - 1] = line[:c0] + new + line[c1:]
        out[module] = "".join(lines)
    return out


def _function_spans(text: str, names: set[str]) -> list[tuple[int, int]]:
    """(first line, last line), 0-based, of each top-level function named in ``names``, decorators included."""
    tree = ast.parse(text)
    return [(min([n.lineno] + [d.lineno for d in n.decorator_list]) - 1, n.end_lineno - 1) for n in tree.body
            if isinstance(n, ast.FunctionDef) and n.name in names]


def students_functions(text: str, folder: str, module: str) -> set[str]:
    """The top-level functions of a student's module that are theirs: the graded ones and their own helpers."""
    given = {n.name for n in ast.parse(stub_text(folder, module)).body if isinstance(n, ast.FunctionDef)}
    graded = {key.split(":")[1] for key in pieces_in(folder, module)}
    return graded | {n.name for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)} - given


def reordered(files: dict[str, str], folder: str, rng: np.random.Generator) -> dict[str, str]:
    """The student's functions of each module (graded ones, helpers) in a shuffled order (each slot keeps its place
    in the file)."""
    out = {}
    for module, text in files.items():
        names = students_functions(text, folder, module)
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
    """Comments, dead statements and ``if False:`` blocks added before statements of the student's functions."""
    out = {}
    for module, text in files.items():
        names = students_functions(text, folder, module)
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
    styles = {sid: Style.draw(rng) for sid in regular}
    pieces = {sid: {pid: honest_pieces(pid, rng, styles[sid]) for pid in projects} for sid in regular}
    if "B" in projects and "A" not in projects:
        for sid in regular:
            pieces[sid]["A"] = honest_pieces("A", rng, styles[sid])
    truth = {}
    files: dict[str, dict[str, dict[str, str]]] = {sid: {} for sid in ids}
    for pid in projects:
        folder, _ = MODULES[pid]
        for sid in regular:
            files[sid][pid] = files_from(pid, pieces[sid][pid], pieces[sid]["A"] if pid == "B" else {}, styles[sid])
        for sid in stub_only:
            files[sid][pid] = {m: stub_text(folder, m) for m in MODULES[pid][1]}
        n_copies = copies * len(KINDS)
        if 2 * n_copies > students:
            raise SystemExit(f"--students {students} is too few for {copies} copies of each of {len(KINDS)} kinds")
        chosen = list(rng.permutation(regular))
        copiers, sources = chosen[:n_copies], chosen[n_copies:2 * n_copies]
        planted, copied = [], {}
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
                own = dict(pieces[copier][pid])
                theirs = pieces[source][pid]
                largest = sorted(theirs, key=lambda k: -len(theirs[k].body + "".join(theirs[k].helpers)))[:3]
                key = largest[int(rng.integers(len(largest)))]
                own[key] = theirs[key]
                copied[copier] = key
                made = files_from(pid, own, pieces[copier]["A"] if pid == "B" else {}, styles[copier])
            else:
                made, source = reference_files(pid), "reference"
            files[copier][pid] = made
            planted.append((copier, source, kind))
        truth[pid] = {"planted": planted, "stub_only": stub_only, "copied": copied,
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
