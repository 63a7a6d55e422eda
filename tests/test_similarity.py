"""The similarity report: what the fingerprints see through (dead code too), that stubs never count and
never take a fingerprint's place, one copied function, the six kinds of planted copies on a small synthetic class,
that the synthetic honest students are correct and write alike no more than chance makes them, the command,
grade-all --similarity, and that no student sees any of it. The pages in a browser: tests/test_pages.py."""

from __future__ import annotations

import csv
import importlib.util
import json
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import yaml

from autograder import paths
from autograder.cli import main
from autograder.similarity import Layout, compare_class
from autograder.similarity.fingerprints import W, fingerprints, kgram_hashes, winnow
from autograder.similarity.index import FLAG, MIN_UNIT
from autograder.similarity.tokens import CodeFile, code_files, notebook_code, tokens_of
from tests.support.grading import quick_course_data

from tests.support import synthetic_class as synthetic

REFERENCE_D = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()


def prints(text: str) -> np.ndarray:
    return fingerprints(tokens_of([CodeFile("m.py", text, [(1, text)])]))[0]


ORIGINAL = '''
import numpy as np

def spread(values, eps):
    """How far apart."""
    centred = values - values.mean()
    scale = np.sqrt((centred ** 2).mean()) + eps
    total = 0.0
    for i in range(len(values)):
        total += abs(centred[i]) / scale
    return total / len(values), np.max(centred) - np.min(centred)

def clipped(rho, advantages, eps):
    low, high = 1 - eps, 1 + eps
    mask = ((advantages > 0) & (rho > high)) | ((advantages < 0) & (rho < low))
    return np.where(mask, 0.0, rho * advantages).mean(), mask.sum()
'''

DISGUISED = '''
import numpy as np


def clipped(r, adv, e):  # the clip
    lo, hi = 1 - e, 1 + e
    m = ((adv > 0) &
         (r > hi)) | ((adv < 0) & (r < lo))
    return np.where(m, 0.0, r * adv).mean(), m.sum()


def spread(xs, epsilon):
    """Spread of xs, written my own way."""
    # centre first
    c = xs - xs.mean()
    s = np.sqrt((c ** 2).mean()) + epsilon
    acc = 0.0
    for j in range(len(xs)):
        acc += abs(c[j]) / s  # accumulate
    return acc / len(xs), np.max(c) - np.min(c)
'''


def test_renaming_reordering_comments_docstrings_and_layout_change_no_fingerprint():
    assert len(prints(ORIGINAL)) > 10
    assert np.array_equal(prints(ORIGINAL), prints(DISGUISED))


def test_literals_count_by_kind_and_library_names_count_as_written():
    assert np.array_equal(prints(ORIGINAL), prints(ORIGINAL.replace("0.0", "1.5").replace("1 - eps", "2 - eps")))
    assert not np.array_equal(prints(ORIGINAL), prints(ORIGINAL.replace("0.0", "0")))  # a float is not an int
    assert not np.array_equal(prints(ORIGINAL), prints(ORIGINAL.replace("np.max", "np.median")))


DEAD = '''
import numpy as np

def spread(values, eps):
    """How far apart."""
    unused_0 = 17 * 2  # debugging
    centred = values - values.mean()
    if False:
        print('debug', 1)
    scale = np.sqrt((centred ** 2).mean()) + eps
    print("scale", scale)
    total = 0.0
    first = centred[0]
    note = first * 2
    for i in range(len(values)):
        total += abs(centred[i]) / scale
        pass
    return total / len(values), np.max(centred) - np.min(centred)
    raise RuntimeError("never reached")

def clipped(rho, advantages, eps):
    while 0:
        eps = eps * 2
    low, high = 1 - eps, 1 + eps
    mask = ((advantages > 0) & (rho > high)) | ((advantages < 0) & (rho < low))
    if True:
        pass
    else:
        mask = None
    return np.where(mask, 0.0, rho * advantages).mean(), mask.sum()
'''


def test_dead_code_and_debugging_lines_change_no_fingerprint():
    """Unused assignments (a chain of them too), ``if False:``/``while 0:`` blocks, the dead branch of ``if True:``,
    lines after a ``return``, ``pass`` and ``print`` lines are left out before tokenizing."""
    assert np.array_equal(prints(ORIGINAL), prints(DEAD))


def test_code_that_is_used_is_never_dropped_as_dead():
    used = ORIGINAL.replace("    return total / len(values)", "    extra = total * 2\n    return extra / len(values)")
    assert not np.array_equal(prints(ORIGINAL), prints(used))
    in_closure = ORIGINAL.replace("    total = 0.0\n", "    total = 0.0\n    k = 3\n    f = lambda v: v * k\n"
                                  ).replace("abs(centred[i])", "abs(f(centred[i]))")
    assert not np.array_equal(prints(ORIGINAL), prints(in_closure))
    unread_mutation = ORIGINAL.replace("    total = 0.0\n", "    total = 0.0\n    values[0] = 1.0\n")
    assert not np.array_equal(prints(ORIGINAL), prints(unread_mutation))  # x[i] = v changes an object: kept


def test_excluded_kgrams_never_take_a_fingerprints_place():
    """The stubs' and the common k-grams are left out before winnowing, not after: W k-grams that winnowing over all
    of them passes over (a smaller excluded one in each of their windows) are fingerprinted once the rest is left
    out, so what is left of a copy between given lines is never lost."""
    tokens = tokens_of([CodeFile("m.py", ORIGINAL, [(1, ORIGINAL)])])
    hashes = kgram_hashes(tokens)
    hashes = hashes[hashes != np.uint64(2**64 - 1)]  # not the k-grams that span two functions
    passed_over = [h for h in dict.fromkeys(hashes.tolist()) if h not in set(hashes[winnow(hashes)].tolist())]
    kept_apart = np.array(passed_over[:W], dtype=np.uint64)
    assert len(kept_apart) == W
    kept, _ = fingerprints(tokens, excluded=np.setdiff1d(hashes, kept_apart))
    assert len(kept) and set(kept.tolist()) <= set(kept_apart.tolist())


def test_a_file_that_does_not_compile_is_still_read_whole():
    broken = ORIGINAL.replace("def clipped(rho, advantages, eps):", "def clipped(rho, advantages, eps)\n  )")
    found = set(prints(broken).tolist())
    assert len(found & set(prints(ORIGINAL).tolist())) > 0.6 * len(prints(ORIGINAL))


def test_notebooks_are_read_as_json_cell_by_cell_and_magics_do_not_break_them():
    cells = [{"cell_type": "markdown", "source": "# words"},
             {"cell_type": "code", "source": ["%matplotlib inline\n", "!pip install nothing\n", "x = 1\n"]},
             {"cell_type": "code", "source": ORIGINAL}]
    code = notebook_code(json.dumps({"cells": cells, "nbformat": 4}), "n.ipynb")
    assert code.text.startswith("# In[1]\n%matplotlib inline") and "# In[2]" in code.text
    tokens = tokens_of([code])
    assert set(prints(ORIGINAL).tolist()) <= set(fingerprints(tokens)[0].tolist())
    assert "n.ipynb: spread" in tokens.unit_names
    assert "%" not in {code.text[s:e] for s, e in zip(tokens.start, tokens.end)}


def write_class(root: Path, modules: dict[str, str]) -> Path:
    for student, source in modules.items():
        (root / student / "D_grpo").mkdir(parents=True)
        (root / student / "D_grpo" / "grpo.py").write_text(source)
    return root


def test_the_released_stubs_never_count(tmp_path):
    stub = (paths.ASSIGNMENTS / "D_grpo" / "grpo.py").read_text()
    root = write_class(tmp_path / "class", {"ann": stub, "bob": stub, "cy": stub + "\n# mine\n",
                                            "dee": REFERENCE_D})
    [comparison] = compare_class(Layout([(p.name, p) for p in sorted(root.iterdir())], paths.BUNDLED, []),
                                 {"D": "D_grpo"})
    sizes = {s.name: s.size for s in comparison.sources}
    assert sizes["ann"] == sizes["bob"] == sizes["cy"] == 0
    names = {frozenset((comparison.sources[p.a].name, comparison.sources[p.b].name)) for p in comparison.pairs}
    assert names == {frozenset(("dee", "reference"))}  # the only pair: the reference handed in as it is
    assert comparison.pairs[0].score == pytest.approx(1.0)


MINE = '''
import numpy as np

def returns_to_go(rewards, gamma):
    out = np.zeros(len(rewards))
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + gamma * running
        out[t] = running
    return out

def normalised(x):
    x = np.asarray(x, dtype=float)
    return (x - x.mean()) / (x.std() + 1e-8)

def greedy(q, rng, epsilon):
    if rng.random() < epsilon:
        return int(rng.integers(q.shape[1]))
    best = np.flatnonzero(q[0] == q[0].max())
    return int(best[0])
'''

THEIRS = '''
import numpy as np

def discounted(rs, g):
    acc, result = 0, []
    for r in reversed(list(rs)):
        acc = acc * g + r
        result.insert(0, acc)
    return np.array(result)

def standardise(values):
    arr = np.array(values, float)
    mu, sd = np.mean(arr), np.std(arr)
    return (arr - mu) / (1e-8 + sd)

def choose(qs, gen, eps):
    explore = gen.random() < eps
    return int(gen.integers(qs.shape[1])) if explore else int(np.argmax(qs[0]))
'''


def test_one_copied_function_stands_out_in_otherwise_independent_code(tmp_path):
    """A function pasted into code written otherwise alone scores as the function, not as the submission; one of
    fewer than MIN_UNIT fingerprints counts in proportion to its size rather than not at all."""
    whole_function = ORIGINAL.split("def clipped")[0].replace("import numpy as np", "")
    small_function = "def clipped" + ORIGINAL.split("def clipped")[1]
    root = tmp_path / "class"
    for student, text in {"ann": MINE + whole_function, "bob": THEIRS + whole_function,
                          "cy": MINE + small_function, "dee": THEIRS + small_function}.items():
        (root / student / "D_grpo").mkdir(parents=True)
        (root / student / "D_grpo" / "grpo.py").write_text(text)
    [comparison] = compare_class(Layout([(p.name, p) for p in sorted(root.iterdir())], None, []), {"D": "D_grpo"})
    pairs = {frozenset((comparison.sources[p.a].name, comparison.sources[p.b].name)): p for p in comparison.pairs}
    copied = pairs[frozenset(("ann", "bob"))]
    assert copied.whole < 0.6 and copied.unit == pytest.approx(1.0) and copied.score == copied.unit and copied.flagged
    assert copied.unit_name.endswith("grpo.py: spread")
    small = pairs[frozenset(("cy", "dee"))]
    size = next(int(np.sum(s.units == s.unit_names.index("grpo.py: clipped"))) for s in comparison.sources
                if s.name == "dee")
    assert size < MIN_UNIT and small.unit == pytest.approx(size / MIN_UNIT)
    assert small.unit_name.endswith("grpo.py: clipped")


BACKWARDS = '''
def backwards(rewards, values, dones, gamma, lam):
    """Advantages by a backward pass."""
    steps = len(rewards)
    advantages = np.zeros(steps)
    carry = 0.0
    for t in reversed(range(steps)):
        keep = 1.0 - dones[t]
        target = rewards[t] + gamma * values[t + 1] * keep
        carry = target - values[t] + gamma * lam * keep * carry
        advantages[t] = carry
    scale = np.abs(advantages).max() or 1.0
    return advantages / scale, advantages + values[:steps]
'''


def test_a_function_a_cluster_writes_alike_is_evidence_for_none_of_its_pairs(tmp_path):
    """Five honest students who write one function alike share it with four others each: their pairs score 2/5 of
    it at most, while two students who alone share a function score it whole."""
    synthetic.make_class(tmp_path / "class", 9, 0, ["D"], seed=2, stubs=0)
    students = sorted((tmp_path / "class").iterdir())
    spread = ORIGINAL.split("def clipped")[0].replace("import numpy as np", "")
    for student in students[:5]:
        with open(student / "D_grpo" / "grpo.py", "a") as module:
            module.write("\n\n" + spread)
    for student in students[5:7]:
        with open(student / "D_grpo" / "grpo.py", "a") as module:
            module.write("\n\n" + BACKWARDS)
    [comparison] = compare_class(Layout([(p.name, p) for p in students], paths.BUNDLED, []), {"D": "D_grpo"})
    pairs = {frozenset((comparison.sources[p.a].name, comparison.sources[p.b].name)): p for p in comparison.pairs}
    cluster = [pairs[frozenset((a.name, b.name))] for i, a in enumerate(students[:5]) for b in students[i + 1:5]]
    by_spread = [p for p in cluster if p.unit_name.endswith("grpo.py: spread")]
    assert by_spread and max(p.unit for p in by_spread) <= 2 / 5 + 1e-9
    alone = pairs[frozenset((students[5].name, students[6].name))]
    assert alone.unit_name.endswith("grpo.py: backwards") and alone.unit > 0.8 and alone.flagged


def test_at_equal_similarity_whole_copies_come_before_one_function(tmp_path):
    """A whole module copied and one long function copied both score 100 %; the whole copy is listed first, though
    the function shares more fingerprints."""
    longer = BACKWARDS.replace("    return advantages / scale, advantages + values[:steps]\n", textwrap.dedent('''
        centred = values - values.mean()
        spread = np.sqrt((centred ** 2).mean()) + scale
        total = 0.0
        for i in range(len(values)):
            total += abs(centred[i]) / spread
        return advantages / scale, total / len(values), np.max(centred) - np.min(centred)
    ''').replace("\n", "\n    "))
    root = tmp_path / "class"
    for student, text in {"ann": ORIGINAL, "bob": ORIGINAL, "cy": MINE + longer, "dee": THEIRS + longer}.items():
        (root / student / "D_grpo").mkdir(parents=True)
        (root / student / "D_grpo" / "grpo.py").write_text(text)
    [comparison] = compare_class(Layout([(p.name, p) for p in sorted(root.iterdir())], None, []), {"D": "D_grpo"})
    first, second = comparison.pairs[:2]
    assert {comparison.sources[first.a].name, comparison.sources[first.b].name} == {"ann", "bob"}
    assert {comparison.sources[second.a].name, comparison.sources[second.b].name} == {"cy", "dee"}
    assert first.score == second.score == pytest.approx(1.0) and first.shared < second.shared


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A synthetic class of D (tests/support/synthetic_class.py): 14 students, one copy of each kind, 3 stub-only."""
    base = tmp_path_factory.mktemp("planted")
    truth = synthetic.make_class(base / "class", 14, 1, ["D"], seed=3)
    assert main(["--course", str(paths.BUNDLED), "similarity", str(base / "class"), "--out",
                 str(base / "report")]) == 0
    return truth["D"], base / "report"


def test_every_kind_of_planted_copy_is_flagged_and_whole_copies_rank_first(planted):
    truth, out = planted
    rows = list(csv.DictReader((out / "similarity.csv").open()))
    scores = {frozenset((r["submission"], r["compared_with"])): float(r["similarity"]) for r in rows}
    copies = {frozenset((copier, source)): kind for copier, source, kind in truth["planted"]}
    honest = [v for key, v in scores.items() if key not in copies]
    assert len(copies) == 6
    for pair, kind in copies.items():
        assert scores.get(pair, 0) >= FLAG, f"{kind} copy {sorted(pair)} scored {scores.get(pair, 0)}"
        if kind in ("verbatim", "renamed", "reordered", "reference"):  # the rest: benchmarks/similarity.py
            assert scores[pair] > max(honest), f"{kind} copy {sorted(pair)} ranks below an honest pair"
    assert all(not (key & set(truth["stub_only"])) for key in scores), "a stub-only student shares code"


def load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_honest_students_compute_what_the_reference_computes(tmp_path):
    """The synthetic honest students (tests/support/similarity_honest.py) rewrite every piece without changing what it
    computes: D's pieces of twelve of them against the reference's on random groups (the full check with the
    grader: benchmarks/similarity.py --verify)."""
    from rlkit.toy import THETA_REF, verify

    synthetic.make_class(tmp_path, 12, 0, ["D"], seed=5, stubs=0)
    reference = load_module(paths.SOLUTIONS / "D_grpo" / "grpo.py", "reference_grpo")
    rng = np.random.default_rng(0)
    groups = [rng.normal(size=k) for k in (2, 3, 8)] + [np.ones(4), rng.integers(0, 2, 6).astype(float)]
    for n, folder in enumerate(sorted(tmp_path.iterdir())):
        student = load_module(folder / "D_grpo" / "grpo.py", f"honest_grpo_{n}")
        for r in groups:
            for name in ("group_centered_weight", "group_standardized_weight", "leave_one_out_weight"):
                assert np.allclose(getattr(student, name)(r), getattr(reference, name)(r), atol=1e-12), name
            p, p_ref = rng.uniform(0.1, 1, len(r)), rng.uniform(0.1, 1, len(r))
            assert np.allclose(student.kl_penalized_reward(r, p, p_ref, 0.3),
                               reference.kl_penalized_reward(r, p, p_ref, 0.3), atol=1e-12)
            logits = rng.normal(size=len(r))
            assert student.price_exploit(logits, r, 0) == pytest.approx(reference.price_exploit(logits, r, 0))
        theta = {name: module.grpo_step(THETA_REF, 4, verify, np.random.default_rng(7), beta=0.1, epochs=2)
                 for name, module in (("student", student), ("reference", reference))}
        assert np.allclose(theta["student"], theta["reference"], atol=1e-10), folder.name


def test_honest_students_do_not_write_whole_files_alike(tmp_path):
    """Independent students share what the task and their approach dictate, never a whole file: among thirty honest
    students of D and C, no two modules have the same normalised tokens, nor two of D's largest pieces."""
    synthetic.make_class(tmp_path, 30, 0, ["C", "D"], seed=1, stubs=0)
    def tokens(path: Path):
        text = path.read_text()
        return tokens_of([CodeFile(path.name, text, [(1, text)])])

    for folder, module in (("C_diagnosis", "diagnostics.py"), ("D_grpo", "grpo.py")):
        streams = [tuple(tokens(student / folder / module).ids) for student in sorted(tmp_path.iterdir())]
        assert len(set(streams)) == len(streams), module
    functions = {}
    for student in sorted(tmp_path.iterdir()):
        read = tokens(student / "D_grpo" / "grpo.py")
        for unit, name in enumerate(read.unit_names):
            if name.split(": ")[1] in ("grpo_step", "price_exploit", "clipped_surrogate_gradient"):
                functions.setdefault(name, []).append(tuple(read.ids[read.unit == unit]))
    assert functions and all(len(set(v)) == len(v) for v in functions.values())


def test_the_report_lists_pairs_and_a_side_by_side_page_for_each(planted):
    _, out = planted
    page = (out / "similarity.html").read_text()
    assert "For course staff only" in page and "Project D" in page
    rows = list(csv.DictReader((out / "similarity.csv").open()))
    linked = [r["page"] for r in rows if r["page"]]
    assert linked and all((out / link).is_file() for link in linked)
    first = (out / linked[0]).read_text()
    assert first.count("<div class='side'>") == 2 and "class='m c0'" in first and "href='#b" in first


def test_the_command_compares_with_outside_folders_and_says_what_it_did(tmp_path, capsys):
    root = write_class(tmp_path / "class", {"ann": REFERENCE_D.replace("theta", "weights"),
                                            "bob": (paths.ASSIGNMENTS / "D_grpo" / "grpo.py").read_text()})
    public = tmp_path / "cleanrl"
    public.mkdir()
    (public / "grpo_impl.py").write_text(REFERENCE_D)
    assert main(["--course", str(paths.BUNDLED), "similarity", str(root), "--out", str(tmp_path / "out"),
                 "--against", str(public)]) == 0
    rows = list(csv.DictReader((tmp_path / "out" / "similarity.csv").open()))
    assert {(r["submission"], r["compared_with"], r["kind"]) for r in rows} == {
        ("ann", "reference", "reference"), ("ann", "cleanrl", "against")}
    said = capsys.readouterr().err
    assert "project D: 2 submissions" in said and "1 flagged" not in said
    assert main(["--course", str(paths.BUNDLED), "similarity", str(root), "--out", str(tmp_path / "o"),
                 "--against", str(tmp_path / "nowhere")]) == 2


def test_grade_all_writes_it_links_it_from_the_summary_and_no_student_sees_it(tmp_path):
    data = quick_course_data({"D": ("D.weights",)})
    course = tmp_path / "course.yml"
    course.write_text(yaml.safe_dump(data))
    root = write_class(tmp_path / "class", {"ann": REFERENCE_D, "bob": REFERENCE_D.replace("theta", "t")})
    out = tmp_path / "out"
    assert main(["grade-all", str(root), "--out", str(out), "--course", str(course), "--seeds", "public",
                 "--similarity"]) == 0
    assert (out / "similarity.html").is_file() and (out / "similarity.csv").is_file()
    assert "href='similarity.html'" in (out / "summary.html").read_text()
    for student in ("ann", "bob"):
        for file in (out / student).iterdir():
            assert "similar" not in file.read_text().lower(), f"{file} mentions the similarity report"


def test_a_summary_written_before_the_report_gets_its_link(tmp_path):
    from autograder.report.summary import link_similarity

    summary = tmp_path / "summary.html"
    summary.write_text("<html><body><h1>Class summary</h1><p>3 students</p></body></html>")
    link_similarity(summary)
    link_similarity(summary)
    assert summary.read_text().count("href='similarity.html'") == 1


def test_every_project_folder_file_is_read_and_caches_are_left_out(tmp_path):
    folder = tmp_path / "D_grpo"
    (folder / "__pycache__").mkdir(parents=True)
    (folder / "helpers").mkdir()
    (folder / "grpo.py").write_text("x = 1\n")
    (folder / "helpers" / "util.py").write_text("y = 2\n")
    (folder / "__pycache__" / "grpo.py").write_text("z = 3\n")
    (folder / "notes.txt").write_text("words")
    assert [c.name for c in code_files(folder)] == ["grpo.py", "helpers/util.py"]


def formatters() -> list:
    """The code formatters students run, as commands over a folder; those not installed here are skipped."""
    found = []
    for name, argv in (("ruff", ["format", "-q"]), ("black", ["-q"])):
        path = Path(sys.executable).parent / name
        command = [str(path), *argv] if path.is_file() else None
        found.append(pytest.param(command, id=name, marks=pytest.mark.skipif(
            command is None, reason=f"{name} is not installed here")))
    return found


@pytest.mark.parametrize("formatter", formatters())
def test_honest_students_who_run_a_formatter_are_not_made_alike_by_it(tmp_path, formatter):
    """black and ruff format rewrite the given code too (trailing commas, parentheses around imports and long lines):
    two honest students of A, and two who handed in the stubs, score what they scored before formatting."""
    import shutil
    import subprocess

    root = tmp_path / "class"
    synthetic.make_class(root, 2, 0, ["A"], seed=1, stubs=0)
    for student in ("stub1", "stub2"):
        shutil.copytree(paths.KIT_ROOT / "assignments" / "A_ppo", root / student / "A_ppo",
                        ignore=shutil.ignore_patterns("*.ipynb", "*.md"))

    def scores(kind: str) -> dict:  # each pair of two students: the honest ones, or the two stubs
        layout = Layout([(p.name, p) for p in sorted(root.iterdir()) if p.name.startswith(kind)], paths.KIT_ROOT, [])
        [comparison] = compare_class(layout, {"A": "A_ppo"})
        return {frozenset((comparison.sources[p.a].name, comparison.sources[p.b].name)): p.score
                for p in comparison.pairs}

    before = {kind: scores(kind) for kind in ("student", "stub")}
    subprocess.run([*formatter, str(root)], check=True, timeout=120)  # it rewrites the given code as well:
    assert (root / "stub1" / "A_ppo" / "ppo.py").read_text() != (
        paths.KIT_ROOT / "assignments" / "A_ppo" / "ppo.py").read_text()
    honest = frozenset(p.name for p in root.iterdir() if p.name.startswith("student"))
    assert scores("student").get(honest, 0) == before["student"].get(honest, 0) < FLAG
    assert before["stub"] == scores("stub") == {}, "students who only formatted the stubs share code"
