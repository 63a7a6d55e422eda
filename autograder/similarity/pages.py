"""The similarity report's files: ``similarity.html`` (pairs ranked per project), a side-by-side page per listed pair
under ``similarity/``, and ``similarity.csv``. Static pages, no script: a matched region links to its partner in the
other column."""

from __future__ import annotations

import csv
import html
import os
from pathlib import Path

from autograder.report.html import STYLE
from autograder.similarity.index import K, W, MIN_UNIT, ProjectComparison, Region, matched_regions
from autograder.similarity.tokens import CodeFile, tokens_of

PAGES = "similarity"  # the folder of the side-by-side pages, beside similarity.html
SHOWN_AT_LEAST = 20  # rows listed per project even when fewer pairs are flagged ...
SHOWN_AT_MOST = 300  # ... and at most this many (similarity.csv has every pair down to CSV_FLOOR)
CSV_FLOOR = 0.05
COLOURS = 6

PAGE_STYLE = STYLE + """
.staff { background: #fff4e5; border-left: 4px solid #a66a00; padding: 0.4rem 0.8rem; }
tr.flagged td { background: #fdecea; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.who { font-family: ui-monospace, monospace; }
"""
PAIR_STYLE = PAGE_STYLE.replace("max-width: 62rem", "max-width: none") + """
.sides { display: flex; gap: 1rem; align-items: flex-start; }
.side { flex: 1 1 0; min-width: 0; }
pre { overflow-x: auto; font-size: 12px; line-height: 1.35; background: #fafafa; border: 1px solid #ddd;
      padding: 0.4rem 0; margin: 0.3rem 0 1rem; }
pre .ln { display: inline-block; width: 3.2em; padding-right: 0.6em; text-align: right; color: #999;
          user-select: none; }
a.m { color: inherit; text-decoration: none; border-radius: 2px; }
a.m:target { outline: 2px solid #222; }
.c0 { background: #ffe08a; } .c1 { background: #b9e4ff; } .c2 { background: #c8f0c0; }
.c3 { background: #f7c6e6; } .c4 { background: #ffd2b0; } .c5 { background: #d9d2ff; }
summary { cursor: pointer; font-family: ui-monospace, monospace; }
"""


def _percent(x: float) -> str:
    return f"{100 * x:.0f} %"


def _rows_shown(comparison: ProjectComparison) -> int:
    flagged = sum(p.flagged for p in comparison.pairs)
    return min(len(comparison.pairs), SHOWN_AT_MOST, max(flagged, SHOWN_AT_LEAST))


def page_name(project: str, rank: int) -> str:
    return f"{PAGES}/{project}-{rank}.html"


def write_report(comparisons: list[ProjectComparison], out: Path, titles: dict[str, str], about: list[str],
                 flag: float) -> tuple[Path, Path]:
    """similarity.html, its pair pages and similarity.csv in ``out``; returns the page and the CSV."""
    out.mkdir(parents=True, exist_ok=True)
    (out / PAGES).mkdir(exist_ok=True)
    for old in (out / PAGES).glob("*.html"):  # pages of an earlier run that would no longer be listed
        old.unlink()
    body = ["<h1>Similarity report</h1>",
            "<p class='staff'><b>For course staff only.</b> Nothing of this report reaches a student's report or "
            "feedback. A high score is a reason to read two submissions side by side, not a finding: correct "
            "solutions to the same small pieces resemble each other.</p>",
            "<p>" + " ".join(html.escape(line) for line in about) + "</p>",
            f"<p>How it compares: Python tokens, with identifiers, literals, comments, docstrings and layout "
            f"normalised away and dead code (unused assignments, <code>if False:</code> blocks, lines after a "
            f"<code>return</code>, <code>print</code> lines) left out; fingerprints are {K}-token runs kept by "
            f"winnowing (window {W}) inside each function, so renaming, reordering functions and added comments or "
            f"dead code hide little. Code of the released stubs never counts, nor code that many students share. "
            f"<b>Similarity</b> is the share of the smaller submission's code found in the other (code few others "
            f"share weighs more), or, for one function of either side, how far the other stands out among the "
            f"class's holders of it: the share of the function it holds beyond what the next closest submission "
            f"holds, split among submissions tied with it (a function a whole cluster writes alike counts little; a "
            f"function of fewer than {MIN_UNIT} fingerprints counts in proportion to its size), whichever is "
            f"higher. Pairs at {_percent(flag)} or more are <span class='fail'>flagged</span>.</p>"]
    for comparison in comparisons:
        body.append(_project_section(comparison, titles.get(comparison.project, ""), out))
    page = out / "similarity.html"
    _write(page, f"<!doctype html><html><head><meta charset='utf-8'><title>Similarity report</title>"
                 f"<style>{PAGE_STYLE}</style></head><body>{''.join(body)}</body></html>\n")
    table = out / "similarity.csv"
    _write_csv(comparisons, table)
    return page, table


def _write(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def _project_section(comparison: ProjectComparison, title: str, out: Path) -> str:
    pid, sources = comparison.project, comparison.sources
    flagged = sum(p.flagged for p in comparison.pairs)
    others = [s.name for s in sources if s.kind != "student"]
    parts = [f"<h2 id='project-{html.escape(pid)}'>Project {html.escape(pid)}"
             f"{' — ' + html.escape(title) if title else ''}</h2>",
             f"<p>{comparison.students} student submission{'s' if comparison.students != 1 else ''}"
             f"{', compared with ' + html.escape(', '.join(others)) if others else ''}; "
             f"{len(comparison.pairs)} pair{'s' if len(comparison.pairs) != 1 else ''} share code beyond the stubs; "
             f"<b>{flagged} flagged</b>. Stubs: {html.escape(', '.join(comparison.stub_files) or 'none found')}; "
             f"common code: fingerprints in more than {comparison.common_limit} submissions "
             f"({len(comparison.common)} dropped).</p>"]
    shown = _rows_shown(comparison)
    if not shown:
        parts.append("<p class='note'>No two submissions share code beyond the stubs.</p>")
        return "".join(parts)
    rows, read, excluded = [], {}, comparison.excluded()
    for rank, pair in enumerate(comparison.pairs[:shown], start=1):
        a, b = sources[pair.a], sources[pair.b]
        link = page_name(pid, rank)
        for index in (pair.a, pair.b):
            if index not in read:
                files = sources[index].load()
                read[index] = (files, tokens_of(files))
        _write(out / link, _pair_page(comparison, pair, rank, read[pair.a], read[pair.b], excluded))
        rows.append(f"<tr{' class=flagged' if pair.flagged else ''}><td class='num'>{rank}</td>"
                    f"<td class='who'>{html.escape(a.name)}</td><td class='who'>{html.escape(b.name)}</td>"
                    f"<td class='num'><b>{_percent(pair.score)}</b></td><td class='num'>{_percent(pair.whole)}</td>"
                    f"<td>{_unit_cell(pair)}</td><td class='num'>{pair.shared}</td>"
                    f"<td><a href='{link}'>side by side</a></td></tr>")
    parts.append("<table class='pairs'><tr><th>#</th><th>submission</th><th>compared with</th><th>similarity</th>"
                 "<th>whole</th><th>best function</th><th>shared</th><th></th></tr>" + "".join(rows) + "</table>")
    if shown < len(comparison.pairs):
        parts.append(f"<p class='note'>The {shown} highest of {len(comparison.pairs)} pairs; similarity.csv lists "
                     f"every pair from {_percent(CSV_FLOOR)} up.</p>")
    return "".join(parts)


def _unit_cell(pair) -> str:
    if not pair.unit_name:
        return "<span class='note'>—</span>"
    return f"{_percent(pair.unit)} <span class='note'>{html.escape(pair.unit_name)}</span>"


def _pair_page(comparison: ProjectComparison, pair, rank: int, first, second, excluded) -> str:
    a, b = comparison.sources[pair.a], comparison.sources[pair.b]
    files = [first[0], second[0]]
    left, right = matched_regions(first[1], second[1], excluded)
    pid = html.escape(comparison.project)
    sides = "".join(_side(name, code, mine, prefix, other)
                    for name, code, mine, prefix, other in ((a.name, files[0], left, "a", "b"),
                                                            (b.name, files[1], right, "b", "a")))
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>Project {pid}: {html.escape(a.name)} and "
            f"{html.escape(b.name)}</title><style>{PAIR_STYLE}</style></head><body>"
            f"<p class='staff'><b>For course staff only.</b> <a href='../similarity.html#project-{pid}'>Back to the "
            f"report</a>.</p>"
            f"<h1>Project {pid}, pair {rank}: <code>{html.escape(a.name)}</code> and <code>{html.escape(b.name)}"
            f"</code></h1><p>Similarity <b>{_percent(pair.score)}</b>{' (flagged)' if pair.flagged else ''}: "
            f"{_percent(pair.whole)} of the smaller submission"
            f"{f', {_percent(pair.unit)} of one function ({html.escape(pair.unit_name)})' if pair.unit_name else ''}; "
            f"{pair.shared} shared fingerprints, of {a.size} and {b.size}. Highlighted: code found in both (stubs and "
            f"common code left out); a click on a region jumps to its match on the other side."
            f"</p><div class='sides'>{sides}</div></body></html>\n")


def _side(name: str, files: list[CodeFile], mine: list[Region], prefix: str, other: str) -> str:
    parts = [f"<div class='side'><h2><code>{html.escape(name)}</code></h2>"]
    for number, code in enumerate(files):
        regions = [(i, r) for i, r in enumerate(mine) if r.file == number]
        matched = sum(r.end - r.start for _, r in regions)
        said = (f"{len(regions)} matched region{'s' if len(regions) > 1 else ''}, {matched} characters" if regions
                else "no match")
        parts.append(f"<details{' open' if regions else ''}><summary>{html.escape(code.name)} ({said})"
                     f"</summary><pre>{_highlighted(code.text, regions, prefix, other)}</pre>"
                     f"</details>")
    if not files:
        parts.append("<p class='note'>No code files.</p>")
    parts.append("</div>")
    return "".join(parts)


def _region_colour(index: int, region: Region, prefix: str) -> int:
    """Both sides colour a matching pair of regions alike: by the first (``a``) side's region number."""
    if prefix == "b" and region.partner >= 0:
        return region.partner % COLOURS
    return index % COLOURS


def _highlighted(text: str, regions: list[tuple[int, Region]], prefix: str, other: str) -> str:
    """``text`` as numbered lines, each region wrapped in a link to its partner (split at line ends)."""
    marks = sorted((r.start, r.end, i, r) for i, r in regions)
    out, line_no, position = [], 1, 0
    lines = text.splitlines(keepends=True) or [""]
    m = 0
    for line in lines:
        line_end = position + len(line)
        body = line.rstrip("\n").rstrip("\r")
        content_end = position + len(body)
        pieces, cursor = [], position
        while m < len(marks) and marks[m][1] <= position:
            m += 1
        j = m
        while j < len(marks) and marks[j][0] < content_end:
            start, end, index, region = marks[j]
            s, e = max(start, cursor), min(end, content_end)
            if s > cursor:
                pieces.append(html.escape(text[cursor:s]))
            if e > s:
                anchor = f" id='{prefix}{index}'" if start >= position else ""
                target = f" href='#{other}{region.partner}'" if region.partner >= 0 else ""
                pieces.append(f"<a class='m c{_region_colour(index, region, prefix)}'{anchor}{target}>"
                              f"{html.escape(text[s:e])}</a>")
                cursor = e
            if end > content_end:
                break
            j += 1
        if cursor < content_end:
            pieces.append(html.escape(text[cursor:content_end]))
        out.append(f"<span class='ln'>{line_no}</span>{''.join(pieces)}\n")
        line_no += 1
        position = line_end
    return "".join(out)


def _write_csv(comparisons: list[ProjectComparison], path: Path) -> None:
    partial = path.with_name(path.name + ".partial")
    with open(partial, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["project", "submission", "compared_with", "kind", "similarity", "whole", "best_function",
                         "best_function_share", "shared", "submission_fingerprints", "compared_fingerprints",
                         "flagged", "page"])
        for comparison in comparisons:
            shown = _rows_shown(comparison)
            for rank, pair in enumerate(comparison.pairs, start=1):
                if pair.score < CSV_FLOOR and rank > shown:
                    break
                a, b = comparison.sources[pair.a], comparison.sources[pair.b]
                writer.writerow([comparison.project, a.name, b.name, b.kind, f"{pair.score:.3f}",
                                 f"{pair.whole:.3f}", pair.unit_name, f"{pair.unit:.3f}", pair.shared, a.size, b.size,
                                 "yes" if pair.flagged else "",
                                 page_name(comparison.project, rank) if rank <= shown else ""])
    os.replace(partial, path)
