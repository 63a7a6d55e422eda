"""Every statement of "Where it differs" is said in a student's words: as short as the guides' sentences (20 words at
most, counted as tests/test_plain_guides.py counts them) and free of the words only the kit used to use ("depart",
"own lines", "a factor of each case's own", "(at every one of them)"). Each statement is made here by the code that
makes it in a row, from every subject with the features its check names, and every relation."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from capstone_check import located, through
from autograder.projects.a_ppo.public import located as a_located
from autograder.projects.c_diagnosis.public import located as c_located
from autograder.projects.d_grpo.public import located as d_located
from tests.test_plain_guides import words

MOST_WORDS = 20
KIT_ONLY = re.compile(r"\bdepart|own lines|of each case's own|at every one of them")
C_KINDS = {**c_located.RATIO_KINDS, **c_located.VARIANCE_KINDS, **c_located.TD_KINDS, **c_located.CURVE_KINDS}
SUBJECTS_AND_FEATURES = [  # who a statement is about, and the features its check names
    (a_located.SUBJECT, a_located.FEATURES), (a_located.SURROGATE_SUBJECT, a_located.SAMPLE_FEATURES),
    (a_located.VALUE_SUBJECT, a_located.ROW_FEATURES), (a_located.ENTROPY_SUBJECT, a_located.ROW_FEATURES),
    (d_located.KL_SUBJECT, d_located.KL_FEATURES), (d_located.CLIP_SUBJECT, d_located.CLIP_FEATURES),
    (d_located.STEP_SUBJECT, d_located.STEP_FEATURES), (d_located.PRICE_SUBJECT, d_located.PRICE_FEATURES),
    (d_located.weights_subject("group_standardized_weight"), d_located.GROUP_FEATURES),
    *((subject, C_KINDS) for subject in c_located.SUBJECTS.values())]
RAISING = [("price_exploit", d_located.PRICE_FEATURES), ("grpo_step", d_located.STEP_FEATURES)]


def statements() -> list[str]:
    said = []
    mask = [{"it": np.array([True, True, False])}]
    for subject, features in SUBJECTS_AND_FEATURES:
        for where in features.values():
            for got in ([1.0, 1.0, 0.0], [1.0, 0.0, 0.0]):  # differing at all of the feature's entries, or some
                pairs = [(np.array(got), np.zeros(3))]
                said += [s["text"] for s in located.located(pairs, 1e-9, "X.x", subject, {"it": where}, mask)]
        for relation in located.RELATIONS.values():
            said += [f"{subject} {relation}", f"where they differ, they {relation}"]
    for piece, features in RAISING:
        for where in features.values():
            said += [s["text"] for s in located.raising("X.x", piece, {"it": where}, [{"it": True}] * 2, [True] * 2)]
    said += [f"{a_located.UPDATE_SUBJECT} {text}" for text in a_located.COURSE.values()]
    said += [text for _, text in a_located.UPDATE_RAISED.values()]
    said.append(through.statement("D.grpo_step", "grpo_step", "clipped_surrogate_gradient", "steps")["text"])
    return said


def test_the_statements_are_made_from_every_feature_both_ways():
    said = statements()
    assert any(" differ exactly " in text for text in said) and any(" differ only " in text for text in said)
    assert any(" raises exactly " in text for text in said)
    assert len(said) > sum(2 * len(features) for _, features in SUBJECTS_AND_FEATURES)


def test_every_statement_is_a_short_sentence_in_a_students_words():
    said = sorted(set(statements()))
    assert [(len(words(text)), text) for text in said if len(words(text)) > MOST_WORDS] == []
    assert [text for text in said if KIT_ONLY.search(text)] == []


def test_the_bounds_fail_a_statement_in_the_old_words():
    old = ("your advantages depart only at the steps whose episode goes on inside the segment (neither an episode's "
           "end nor the segment's last step) (at every one of them)")
    assert KIT_ONLY.search(old) and len(words(old)) > MOST_WORDS


def located_ids(markdown: str) -> set[str]:
    """The statement ids docs/located.md's tables list (relations, features, steps), as `code`."""
    rows = [line for line in markdown.splitlines() if line.startswith("|")]
    return {token for row in rows for token in re.findall(r"`([a-z][a-z0-9<>-]*)`", row)}


def test_the_student_guides_glossary_explains_every_statement_id():
    docs = Path(__file__).resolve().parents[1] / "docs"
    ids = located_ids((docs / "located.md").read_text(encoding="utf-8"))
    guide = (docs / "student-guide.md").read_text(encoding="utf-8")
    glossary = guide[guide.index("## Words you will meet"):]
    assert len(ids) > 40 and "factor-per-case" in ids and "truncated-episode" in ids
    assert sorted(i for i in ids if f"`{i}`" not in glossary) == []
    assert sorted(located_ids("| `nan` | x |\n| A.x | `a-new-feature` |") - ids) == ["a-new-feature"]
