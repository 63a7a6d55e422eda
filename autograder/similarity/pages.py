"""The similarity report's files: ``similarity.html`` (pairs ranked per project), a side-by-side page per listed pair
under ``similarity/``, and ``similarity.csv``. Static pages, no script: a matched region links to its partner in the
other column. The pages are this package's templates ``similarity.html`` and ``pair.html`` (``templates/``), which
extend the report's ``page.html`` and are rendered as the report's pages are."""

from __future__ import annotations

import csv
import os
from functools import cache
from pathlib import Path

from jinja2 import ChoiceLoader, Environment, PackageLoader

from autograder.report.pages import environment
from autograder.similarity.index import K, W, MIN_UNIT, ProjectComparison, Region, matched_regions
from autograder.similarity.tokens import CodeFile, tokens_of

PAGES = "similarity"  # the folder of the side-by-side pages, beside similarity.html
SHOWN_AT_LEAST = 20  # rows listed per project even when fewer pairs are flagged ...
SHOWN_AT_MOST = 300  # ... and at most this many (similarity.csv has every pair down to CSV_FLOOR)
CSV_FLOOR = 0.05
COLOURS = 6


@cache
def _pages() -> Environment:
    """The report's environment (its filters, escaping and ``page.html``), finding this package's templates first."""
    report = environment()
    return report.overlay(loader=ChoiceLoader([PackageLoader(__package__, "templates"), report.loader]))


def _render(template: str, **values) -> str:
    return _pages().get_template(template).render(**values) + "\n"


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
    sections = [_project_section(comparison, titles.get(comparison.project, ""), out) for comparison in comparisons]
    page = out / "similarity.html"
    _write(page, _render("similarity.html", styles=["page.css", "similarity.css"], about=about, flag=flag,
                        sections=sections, K=K, W=W, MIN_UNIT=MIN_UNIT, CSV_FLOOR=CSV_FLOOR))
    table = out / "similarity.csv"
    _write_csv(comparisons, table)
    return page, table


def _write(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def _project_section(comparison: ProjectComparison, title: str, out: Path) -> dict:
    """One project's part of similarity.html; writes the side-by-side page of each pair it lists."""
    shown, read, excluded = _rows_shown(comparison), {}, comparison.excluded()
    rows = []
    for rank, pair in enumerate(comparison.pairs[:shown], start=1):
        for index in (pair.a, pair.b):
            if index not in read:
                files = comparison.sources[index].load()
                read[index] = (files, tokens_of(files))
        _write(out / page_name(comparison.project, rank),
               _pair_page(comparison, pair, rank, read[pair.a], read[pair.b], excluded))
        rows.append({"rank": rank, "pair": pair, "a": comparison.sources[pair.a], "b": comparison.sources[pair.b],
                     "link": page_name(comparison.project, rank)})
    return {"comparison": comparison, "title": title, "rows": rows, "shown": shown,
            "flagged": sum(p.flagged for p in comparison.pairs),
            "others": [s.name for s in comparison.sources if s.kind != "student"]}


def _pair_page(comparison: ProjectComparison, pair, rank: int, first, second, excluded) -> str:
    a, b = comparison.sources[pair.a], comparison.sources[pair.b]
    left, right = matched_regions(first[1], second[1], excluded)
    sides = [_side(name, code, mine, prefix, other)
             for name, code, mine, prefix, other in ((a.name, first[0], left, "a", "b"),
                                                     (b.name, second[0], right, "b", "a"))]
    return _render("pair.html", styles=["page.css", "similarity.css", "pair.css"], page_width="none",
                  pid=comparison.project, pair=pair, rank=rank, a=a, b=b, sides=sides)


def _side(name: str, files: list[CodeFile], mine: list[Region], prefix: str, other: str) -> dict:
    """One column of a pair's page: each code file with its matched regions."""
    shown = []
    for number, code in enumerate(files):
        regions = [(i, r) for i, r in enumerate(mine) if r.file == number]
        shown.append({"name": code.name, "regions": len(regions), "matched": sum(r.end - r.start for _, r in regions),
                      "lines": _highlighted(code.text, regions, prefix, other)})
    return {"name": name, "files": shown}


def _region_colour(index: int, region: Region, prefix: str) -> int:
    """Both sides colour a matching pair of regions alike: by the first (``a``) side's region number."""
    if prefix == "b" and region.partner >= 0:
        return region.partner % COLOURS
    return index % COLOURS


def _highlighted(text: str, regions: list[tuple[int, Region]], prefix: str, other: str) -> list[list[dict]]:
    """``text`` as lines of pieces, each piece plain or a region linked to its partner (regions split at line ends):
    a region piece has its ``colour`` and, where the region starts, its ``anchor``; ``target`` is its partner's."""
    marks = sorted((r.start, r.end, i, r) for i, r in regions)
    out, position, m = [], 0, 0
    for line in text.splitlines(keepends=True) or [""]:
        content_end = position + len(line.rstrip("\n").rstrip("\r"))
        pieces, cursor = [], position
        while m < len(marks) and marks[m][1] <= position:
            m += 1
        j = m
        while j < len(marks) and marks[j][0] < content_end:
            start, end, index, region = marks[j]
            s, e = max(start, cursor), min(end, content_end)
            if s > cursor:
                pieces.append({"text": text[cursor:s]})
            if e > s:
                pieces.append({"text": text[s:e], "colour": _region_colour(index, region, prefix),
                               "anchor": f"{prefix}{index}" if start >= position else None,
                               "target": f"{other}{region.partner}" if region.partner >= 0 else None})
                cursor = e
            if end > content_end:
                break
            j += 1
        if cursor < content_end:
            pieces.append({"text": text[cursor:content_end]})
        out.append(pieces)
        position += len(line)
    return out


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
