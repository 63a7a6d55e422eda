"""Code as the similarity report sees it: a stream of normalised tokens, cut into units (one per function or class).

Python's own ``tokenize`` reads each file. What a copier can change without changing the program is normalised away:
every identifier becomes one token (``V``), every number one token per kind (int, float, imaginary), every string one
token (``S``, an implicit concatenation or an f-string included), comments, docstrings, blank lines, line breaks
inside brackets and indentation are dropped, and ``;`` is a line end. Trailing commas and grouping parentheses,
which black or ruff format add or take away, are dropped too: formatted given code still matches the stub.
Keywords, operators and attribute names (the ``mean`` of ``np.mean``: a library's or the stub's names, which a
copier cannot rename without breaking the call) stay as they are.

Code that cannot change what a function returns is dropped before tokenizing (``deadcode``): assignments to names
the function never reads, ``if False:`` blocks, statements after a ``return``, ``pass`` and ``print(...)`` lines;
so dead code and debugging lines added between a copy's statements do not cut its token runs apart.

Each top-level function or class (or method of a top-level class), and each run of module-level statements, is a
unit of its own: fingerprints never span two units, so moving functions around changes none of them.

Notebooks are read as JSON (no Jupyter needed): their code cells, each a unit boundary, shown one after another under
a ``# In[n]`` line. IPython's magics and shell lines (``%...``, ``!...``) are blanked before tokenizing.
"""

from __future__ import annotations

import io
import keyword
import tokenize
import zlib
from dataclasses import dataclass, field

import numpy as np

from autograder.similarity.deadcode import Spans, dead_spans
from autograder.similarity.files import CodeFile, code_files, notebook_code  # noqa: F401  (re-exported)

_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER}
FSTRING_START = getattr(tokenize, "FSTRING_START", None)  # Python 3.12+: f-strings come as several tokens
FSTRING_END = getattr(tokenize, "FSTRING_END", None)


@dataclass
class Tokens:
    """A submission's normalised tokens, in order: ``ids`` (a number per token text), ``unit`` (fingerprints never
    span two units), and where each token stands: ``file`` (index into the files), ``start`` and ``end`` (character
    offsets into that file's text)."""

    ids: np.ndarray
    unit: np.ndarray
    file: np.ndarray
    start: np.ndarray
    end: np.ndarray
    unit_names: list[str] = field(default_factory=list)  # per unit: "file: function" (or "file: module code")

    def __len__(self) -> int:
        return len(self.ids)


_IDS: dict[str, int] = {}


def token_id(text: str) -> int:
    """A fixed number for a normalised token's text (the same in every process and run)."""
    found = _IDS.get(text)
    if found is None:
        found = _IDS[text] = zlib.crc32(text.encode()) + 1
    return found


def _number_kind(text: str) -> str:
    low = text.lower()
    if low.endswith("j"):
        return "0j"
    if low.startswith(("0x", "0o", "0b")) or not any(c in low for c in ".e"):
        return "0"
    return "0."


def _tokens_of(source: str) -> list[tokenize.TokenInfo]:
    """Python's tokens of ``source``; where tokenize gives up (a syntax error, a stray indent), the rest is tokenized
    again from the next line on, so a broken file is still read whole."""
    lines = source.splitlines(keepends=True)
    out: list[tokenize.TokenInfo] = []
    first = 0
    while first < len(lines):
        chunk = "".join(lines[first:])
        reached = first
        try:
            for tok in tokenize.generate_tokens(io.StringIO(chunk).readline):
                if first:
                    tok = tok._replace(start=(tok.start[0] + first, tok.start[1]), end=(tok.end[0] + first, tok.end[1]))
                out.append(tok)
                reached = tok.end[0]
            break
        except (tokenize.TokenError, SyntaxError):  # IndentationError is a SyntaxError
            first = max(reached, first + 1)
    return out


def normalise(source: str) -> list[tuple[str, tuple[int, int], tuple[int, int], bool, str]]:
    """(normalised text, start (line, col), end (line, col), starts a unit, the token as written) for each
    significant token of ``source`` outside its dead code; lines count from 1."""
    toks = _tokens_of(source)
    dead = Spans(dead_spans(source))
    out = []
    depth, line_start, previous, prev_line_head, unit_open = 0, True, None, None, False
    groups: list[bool] = []  # per open bracket: whether it only groups (a formatter's parentheses)
    i, n = 0, len(toks)
    while i < n:
        tok = toks[i]
        kind = tok.type
        if kind == tokenize.INDENT:
            depth += 1
        elif kind == tokenize.DEDENT:
            depth = max(0, depth - 1)
        if kind in _SKIPPED or (kind != tokenize.NEWLINE and dead.holds(tok.start)):
            i += 1
            continue
        if kind == tokenize.NEWLINE or (kind == tokenize.OP and tok.string == ";"):
            if out and out[-1][0] != ";":
                out.append((";", tok.start, tok.end, False, ";"))
            line_start, previous = True, None
            i += 1
            continue
        # a string (or an implicit concatenation of strings and f-strings) is one token; alone on its line, a
        # docstring or a string used as a comment, it is dropped
        if kind == tokenize.STRING or kind == FSTRING_START:
            j, nest = i, 0
            while j < n:
                t = toks[j]
                if t.type == FSTRING_START:
                    nest += 1
                elif t.type == FSTRING_END:
                    nest -= 1
                elif nest == 0 and t.type not in (tokenize.STRING, tokenize.NL, tokenize.COMMENT):
                    break
                j += 1
            alone = line_start and (j >= n or toks[j].type in (tokenize.NEWLINE, tokenize.ENDMARKER))
            if not alone:
                last = j - 1
                while toks[last].type in (tokenize.NL, tokenize.COMMENT):
                    last -= 1
                out.append(("S", tok.start, toks[last].end, False, "S"))
                line_start, previous = False, "S"
            i = j
            continue
        if kind == tokenize.NAME:
            word = tok.string
            if keyword.iskeyword(word):
                text = word
            elif previous == ".":
                text = "." + word  # an attribute's name is kept
            else:
                text = "V"
        elif kind == tokenize.NUMBER:
            text = _number_kind(tok.string)
        elif kind == tokenize.OP:
            text = tok.string
            if _layout_only(tok.string, toks, i, previous, groups):  # what a formatter adds or takes away
                previous = ")" if text == ")" else previous
                i += 1
                continue
        elif kind == tokenize.ERRORTOKEN:
            if not tok.string.strip():
                i += 1
                continue
            text = tok.string
        else:
            text = tok.string
        starts_unit = False
        if line_start:
            head = tok.string if kind in (tokenize.NAME, tokenize.OP) else ""
            if depth <= 1 and head in ("def", "class", "async", "@"):
                starts_unit = prev_line_head != "@"  # a decorated def stays with its decorators
                unit_open = True
            elif depth == 0 and unit_open:  # module-level code after a function: a unit of its own
                starts_unit, unit_open = True, False
            prev_line_head = head
        out.append((text, tok.start, tok.end, starts_unit, tok.string))
        line_start, previous = False, text
        i += 1
    return out


_CALLERS = ("V", ")", "]", "S")  # what a "(" after it calls (or, after ``def``'s name, declares)


def _layout_only(text: str, toks: list, i: int, previous: str | None, groups: list[bool]) -> bool:
    """Whether the bracket or comma ``text`` at ``toks[i]`` is one that black or ruff format adds or removes without
    changing the program: a trailing comma before a closing bracket, or grouping parentheses (around an import
    list, a long expression, a condition) and their closing one. ``groups`` tracks the open brackets."""
    if text == ",":
        j = i + 1
        while j < len(toks) and toks[j].type in (tokenize.NL, tokenize.COMMENT):
            j += 1
        return j < len(toks) and toks[j].string in (")", "]", "}")
    if text in ("(", "[", "{"):
        grouping = text == "(" and not (previous in _CALLERS or (previous or "").startswith("."))
        groups.append(grouping)
        return grouping
    if text in (")", "]", "}"):
        return bool(groups) and groups.pop()
    return False


def _line_offsets(text: str) -> list[int]:
    offsets = [0, 0]  # lines count from 1
    for line in text.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    return offsets


@dataclass
class _Chunk:
    """A chunk's normalised tokens as arrays (lines count from 1 inside the chunk), and the name of the function or
    class each unit of it defines (None for module code)."""

    ids: np.ndarray
    l0: np.ndarray
    c0: np.ndarray
    l1: np.ndarray
    c1: np.ndarray
    new_unit: np.ndarray
    names: dict[int, str]  # token index of a unit's start -> the name it defines


_CACHE: dict[str, _Chunk] = {}  # chunk text -> its tokens: a notebook cell left as released is read once per run
_CACHE_LIMIT = 20_000


def _chunk(source: str) -> _Chunk:
    found = _CACHE.get(source)
    if found is not None:
        return found
    tokens = normalise(source)
    names, unit_start, expect = {}, 0, False
    for index, (text, _, _, starts_unit, raw) in enumerate(tokens):
        if starts_unit:
            unit_start = index
        if expect and text == "V":
            names.setdefault(unit_start, raw)
        expect = text in ("def", "class")
    found = _Chunk(np.array([token_id(t[0]) for t in tokens], dtype=np.uint64),
                   np.array([t[1][0] for t in tokens], dtype=np.int64), np.array([t[1][1] for t in tokens], np.int64),
                   np.array([t[2][0] for t in tokens], dtype=np.int64), np.array([t[2][1] for t in tokens], np.int64),
                   np.array([t[3] for t in tokens], dtype=bool), names)
    if len(_CACHE) < _CACHE_LIMIT and len(source) < 20_000:
        _CACHE[source] = found
    return found


def tokens_of(files: list[CodeFile]) -> Tokens:
    """The normalised tokens of a submission's files, each chunk (a .py file, a notebook cell) starting a unit."""
    parts, unit_names, next_unit = [], [], 0
    for index, code in enumerate(files):
        offsets = np.array(_line_offsets(code.text), dtype=np.int64)
        last = len(offsets) - 1
        cell = code.name.endswith(".ipynb")
        for first_line, source in code.chunks:
            chunk = _chunk(source)
            if not len(chunk.ids):
                continue
            starts = chunk.new_unit.copy()
            starts[0] = True
            unit = next_unit + np.cumsum(starts) - 1
            for position in np.flatnonzero(starts):
                name = chunk.names.get(int(position))
                unit_names.append(f"{code.name}: {name}" if name else
                                  f"{code.name}: {'a cell' if cell else 'module code'}")
            next_unit = int(unit[-1]) + 1
            shift = first_line - 1
            parts.append((chunk.ids, unit, np.full(len(chunk.ids), index, dtype=np.int32),
                          offsets[np.minimum(chunk.l0 + shift, last)] + chunk.c0,
                          offsets[np.minimum(chunk.l1 + shift, last)] + chunk.c1))
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return Tokens(np.zeros(0, dtype=np.uint64), empty.astype(np.int32), empty.astype(np.int32), empty, empty, [])
    ids, unit, where, start, end = (np.concatenate(column) for column in zip(*parts))
    return Tokens(ids, unit.astype(np.int32), where, start, end, unit_names)
