"""Where an output departs (``capstone_check.located``): each relation and feature is found when it holds on every
case and never when it does not; statements carry no value; the smallest failing case is the first rung that fails and
no array of more than 8 numbers is printed; GAE's features are where a segment has them."""

import numpy as np
import pytest

from autograder import paths
from autograder.projects.a_ppo.public import located as a_located
from capstone_check.located import (RELATIONS, SHOWN_AT_MOST, after_lead, feature, located, of_kinds, relation,
                                    sentence, shown, smallest_case)

RNG = np.random.default_rng(5)
WANT = [RNG.normal(0, 2, (4, 3)), RNG.normal(0, 2, (6, 2)), RNG.normal(0, 2, (3, 3))]


@pytest.mark.parametrize("kind, wrong", [
    ("sign", lambda w: -w), ("factor", lambda w: 0.5 * w), ("offset", lambda w: w + 0.3),
    ("zero", lambda w: 0 * w), ("nan", lambda w: w * np.nan), ("one-minus", lambda w: 1 - w),
    ("later", lambda w: np.vstack([w[1:], w[-1:] + 1])), ("earlier", lambda w: np.vstack([w[:1] - 1, w[:-1]])),
    ("transposed", lambda w: w.T), ("above", lambda w: w + 1 + w ** 2), ("below", lambda w: w - 1 - w ** 2)])
def test_a_relation_that_holds_on_every_case_is_found(kind, wrong):
    assert relation([(wrong(w), w) for w in WANT], 1e-6) == kind


def test_no_relation_is_said_when_one_case_breaks_it():
    pairs = [(0.5 * w, w) for w in WANT[:2]] + [(WANT[2] + RNG.normal(0, 1, WANT[2].shape), WANT[2])]
    assert relation(pairs, 1e-6) is None
    assert relation([(w, w) for w in WANT], 1e-6) is None  # nothing departs: nothing to say


def test_the_smallest_feature_holding_every_departure_is_said_and_whether_it_is_exact():
    masks = [{"row0": np.arange(len(w))[:, None] == 0, "rows01": np.arange(len(w))[:, None] <= 1} for w in WANT]
    got = [w.copy() for w in WANT]
    for g in got:
        g[0] += 1
    assert feature(list(zip(got, WANT)), masks, 1e-6) == ("row0", True)
    got[1][1, 0] += 1  # one departure outside row 0: only the wider feature holds, and not exactly
    assert feature(list(zip(got, WANT)), masks, 1e-6) == ("rows01", False)
    got[2][2, 2] += 1  # and one outside both: nothing is said
    assert feature(list(zip(got, WANT)), masks, 1e-6) is None


def test_nan_where_nan_is_expected_does_not_depart():
    want = [np.array([np.nan, 1.0]), np.array([2.0])]
    got = [np.array([np.nan, 2.0]), np.array([4.0])]
    assert relation(list(zip(got, want)), 1e-6) == "factor"


def test_statements_are_made_of_the_vocabulary_alone_and_carry_no_value():
    features = {"one": "on groups of one sample", "many": "on larger groups"}
    for trial in range(40):
        rng = np.random.default_rng(trial)
        want = [rng.normal(0, 3, int(k)) for k in rng.integers(1, 5, 6)]
        got = [w * rng.choice([1, 1, -1, 0.5]) + rng.choice([0, 0, 0.7]) for w in want]
        kinds = ["one" if len(w) == 1 else "many" for w in want]
        for statement in located(list(zip(got, want)), 1e-6, "D.x", "your weights", features, of_kinds(kinds)):
            allowed = {f"your weights differ {said}" for where in features.values()
                       for said in (f"only {where}", f"exactly {where}")}
            allowed |= {f"{subject} {phrase}" for phrase in RELATIONS.values()
                        for subject in ("your weights", "where they differ, they")}
            assert statement["text"] in allowed, statement
            assert statement["id"].split(".")[-1] in {*features, *RELATIONS}


def test_a_statement_and_its_sentence():
    said = located([(2 * w, w) for w in WANT], 1e-6, "A.gae", "your advantages")
    text = "your advantages are the expected values scaled by one constant factor"
    assert said == [{"id": "A.gae.factor", "text": text}]
    assert sentence(said) == "Where it differs: your advantages are the expected values scaled by one constant factor."
    assert sentence([]) == ""
    assert after_lead(sentence(said), "case 2: max |difference| 1") == (
        "Where it differs: your advantages are the expected values scaled by one constant factor. "
        "Case 2: max |difference| 1")
    assert after_lead("", "case 2: max |difference| 1") == "case 2: max |difference| 1"


def test_the_smallest_failing_case_is_the_first_rung_that_fails_and_prints_small_arrays_only():
    rungs = [("f(1)", np.array([1.0]), np.array([1.0])), ("f(2)", np.array([3.0, 1.0]), np.array([2.0, 1.0])),
             ("f(3)", None, np.zeros(3))]
    assert smallest_case(rungs, 1e-6) == "Smallest failing case: f(2) returned [3, 1], expected [2, 1]."
    assert smallest_case(rungs[:1], 1e-6) == ""
    assert smallest_case(rungs[2:], 1e-6) == "Smallest failing case: f(3) raised an exception."
    assert shown(np.arange(SHOWN_AT_MOST + 1)) == f"an array of shape ({SHOWN_AT_MOST + 1},)"
    for rung in a_located.LADDER:  # every array of every rung is shown whole
        assert all(np.size(part) <= SHOWN_AT_MOST for part in rung[:4]), a_located.call_text(rung)


def test_gae_features_of_a_segment():
    term = np.array([[0, 0], [1, 0], [0, 0], [0, 0]], dtype=bool)
    trunc = np.array([[0, 0], [0, 0], [0, 1], [0, 0]], dtype=bool)
    f = a_located.features(term, trunc)
    assert f["termination"][:, 0].tolist() == [False, True, False, False]
    assert f["terminated-episode"][:, 0].tolist() == [True, True, False, False]
    assert f["cut-episode"][:, 0].tolist() == [False, False, True, True]
    assert f["truncated-episode"][:, 1].tolist() == [True, True, True, False]
    assert f["after-reset"][:, 0].tolist() == [False, False, True, False]
    assert f["segment-end"][-1].all() and not f["segment-end"][:-1].any()
    assert f["continuing"][:, 0].tolist() == [True, False, True, False]
    assert f["continuing"][:, 1].tolist() == [True, True, False, False]
    assert set(f) == set(a_located.FEATURES)


def test_a_constant_of_each_cases_own_is_said_only_when_two_cases_show_it_twice():
    assert relation([(w * (i + 2), w) for i, w in enumerate(WANT)], 1e-6) == "factor-per-case"
    assert relation([(w + i + 1, w) for i, w in enumerate(WANT)], 1e-6) == "offset-per-case"
    single = [(np.array([7.0]), np.array([1.0]))]  # a case of one departing entry fits any constant of its own
    assert relation([(w + i + 1, w) for i, w in enumerate(WANT)] + single, 1e-6) == "offset-per-case"
    assert relation([(WANT[0] + 1, WANT[0])] + single, 1e-6) == "above"  # one case shows a constant: no offset
    broken = WANT[1] + np.arange(WANT[1].size).reshape(WANT[1].shape)  # a second case departs by no constant
    assert relation([(WANT[0] + 1, WANT[0]), (broken, WANT[1])], 1e-6) != "offset-per-case"
    one_entry = [np.array([1.0, 2.0]), np.array([3.0, 4.0])]
    moved = [np.array([1.0, 5.0]), np.array([3.0, 9.0])]  # one departing entry per case: no constant is seen,
    assert relation(list(zip(moved, one_entry)), 1e-6) == "above"  # only the direction
    assert relation([(np.array([2.0]), np.array([1.0]))], 1e-6) is None  # one entry in all: its example says it
    assert relation([(np.array([2.0, 0.0]), np.array([1.0, 1.0]))], 1e-6) is None  # both ways: nothing


def test_a_sum_off_zero_is_said_only_where_every_departing_case_expects_zero():
    groups = [np.array([1.0, 0.0, 0.0]), np.array([0.3, -1.2]), np.array([2.0, 2.0, 5.0, -1.0])]
    centred = [r - r.mean() for r in groups]
    others = [(r.sum() - r) / (len(r) - 1) for r in groups]  # the leave-one-out baseline, returned for the weight
    assert relation(list(zip(others, centred)), 1e-6) == "nonzero-sum"
    assert relation([(r + b, r - b) for r, b in zip(groups, others)], 1e-6) == "nonzero-sum"
    swapped = [w[::-1] for w in centred]  # wrong entries that still sum to zero: nothing
    assert relation(list(zip(swapped, centred)), 1e-6) is None
    assert relation([(groups[0], np.array([2.0, -1.0, 0.0]))], 1e-6) is None  # the expected values do not sum to 0
    assert relation([(np.array([0.5]), np.array([0.0]))] + list(zip(others, centred)), 1e-6) is None  # one entry


def test_an_update_is_followed_step_by_step_and_a_loop_gone_wild_stays_small():
    params = [np.zeros(3)]
    optimizer = a_located.RecordingAdam(params, lr=0.1)
    for _ in range(a_located.KEPT_STEPS + 36):
        optimizer.step([np.ones(3)])
    assert optimizer.taken == a_located.KEPT_STEPS + 36 and len(optimizer.after) == a_located.KEPT_STEPS
    want = [np.full(3, -0.1 * (k + 1)) for k in range(8)]
    ids = [s["id"] for s in a_located.update_course(optimizer.after, optimizer.taken, want, 1e-6, 4)]
    assert ids == ["A.update.step-count"]
    for first, key in ((0, "first-step"), (2, "later-minibatch"), (5, "later-epoch")):
        got = [w + (k >= first) for k, w in enumerate(want)]
        assert [s["id"] for s in a_located.update_course(got, 8, want, 1e-6, 4)] == [f"A.update.{key}"]
    assert a_located.update_course(want, 8, want, 1e-6, 4) == []  # every step holds: nothing to say
    assert a_located.update_course([np.zeros(2)] * 8, 8, want, 1e-6, 4) == []  # a forged record of another shape


def test_the_page_lists_every_feature_of_every_check():
    """docs/located.md's table holds, on each check's row, every feature id the check's statements can name."""
    from autograder.projects.c_diagnosis.public import located as c_located
    from autograder.projects.d_grpo.public import located as d_located

    vocabulary = {"A.gae": a_located.FEATURES, "A.clip_gradient": a_located.SAMPLE_FEATURES,
                  "A.ratio": [key for key, _ in a_located.UPDATE_RAISED.values()],
                  "A.value_entropy": a_located.ROW_FEATURES, "D.weights": d_located.GROUP_FEATURES,
                  "D.kl_penalty": d_located.KL_FEATURES, "D.clip_gradient": d_located.CLIP_FEATURES,
                  "D.grpo_step": d_located.STEP_FEATURES, "D.price_exploit": d_located.PRICE_FEATURES,
                  "C.explained_variance": c_located.VARIANCE_KINDS, "C.return_drop": c_located.CURVE_KINDS}
    rows = {line.split("|")[1].strip(): line for line in (paths.KIT_ROOT / "docs" / "located.md").read_text(
        encoding="utf-8").splitlines() if line.startswith("| ")}
    missing = {check: [f for f in features if f"`{f.replace(' ', '-')}`" not in rows.get(check, "")]
               for check, features in vocabulary.items()}
    assert not any(missing.values()), missing
    from autograder.projects.d_grpo.stand_ins import ORACLE_NAMES
    page = (paths.KIT_ROOT / "docs" / "located.md").read_text(encoding="utf-8")
    assert "D.grpo_step.through-<piece>" in page and all(f"`{piece}`" in page for piece in ORACLE_NAMES)
    assert "`D.grpo_step.own-lines`" in page and "`D.grpo_step.passes-<piece>`" in page
    assert "A.clip_gradient.through-importance_ratio" in page


@pytest.mark.parametrize("partial", [{}, {"steps": "many", "taken": 3}, {"steps": [[1.0, 2.0]], "taken": 1},
                                     {"steps": [], "taken": "0"}, {"steps": [[[0.0]]] * 2, "taken": 2},
                                     {"steps": [], "taken": 10 ** 9}])
def test_what_a_raising_child_sends_of_its_update_says_nothing_unless_it_is_the_update_s_steps(course, partial):
    """The child's account of the steps an update made before it raised is untrusted: of any other form, the row that
    names the exception stands as it is. Only steps of the parameters' shape are read, into the vocabulary's words."""
    from autograder.checks import Context, validated_bar
    from autograder.findings import led_on_error
    from autograder.projects import PROJECTS
    from autograder.report.model import CheckResult

    check = PROJECTS["A"].checks["A.update"]
    ctx = Context((7,), "public", validated_bar(check, course.projects["A"].checks["A.update"].bar, "A.update"))
    entry = CheckResult("A.update", check.name, 0.0, 2.0, False, "`ppo_update` raised IndexError")
    assert led_on_error(entry, check, partial, ctx) == entry
    said = led_on_error(entry, check, {"steps": [], "taken": 0}, ctx)
    assert [s.id for s in said.located] == ["A.update.first-step"]
    assert said.message.startswith("Where it differs: your update differs from its first Adam step")


def test_what_a_child_sends_of_its_reruns_says_nothing_unless_every_step_is_the_expected_one(course):
    """The re-runs with a stand-in (``capstone_check.through``) come from the child, untrusted: only the pieces the
    step calls are read, each only when it holds an expected step for every case; any other form says nothing."""
    from autograder.checks import Context, validated_bar
    from autograder.findings import led_on_error
    from autograder.projects import PROJECTS
    from autograder.projects.d_grpo.steps import reference_steps
    from autograder.report.model import CheckResult

    check = PROJECTS["D"].checks["D.grpo_step"]
    ctx = Context((7,), "public", validated_bar(check, course.projects["D"].checks["D.grpo_step"].bar, "D.grpo_step"))
    entry = CheckResult("D.grpo_step", check.name, 0.0, 3.0, False, "`grpo_step` raised IndexError")
    right = [w.ravel().tolist() for w in reference_steps(7)]  # each step as one row of numbers, as sent
    for forged in ("all", {"you passed": right}, {"kl_penalized_reward": right[:-1]},
                   {"kl_penalized_reward": [[1.0]] * len(right)}, {"kl_penalized_reward": [None] * len(right)},
                   {"kl_penalized_reward": right[:-1] + [(np.array(right[-1]) + 1).tolist()]}):
        assert led_on_error(entry, check, {"through": forged}, ctx) == entry, forged
    said = led_on_error(entry, check, {"through": {"group_standardized_weight": None, "kl_penalized_reward": right}},
                        ctx)
    assert [s.id for s in said.located] == ["D.grpo_step.through-kl_penalized_reward"]


def test_what_a_child_sends_of_its_whole_reruns_names_only_the_steps_pieces_and_their_arguments(course):
    """The re-runs with every piece replaced at once come from the child too: a piece or an argument outside the step's
    own, or outcomes of another count or shape, say nothing; an outcome that departs says the step's own lines do."""
    from autograder.checks import Context, validated_bar
    from autograder.findings import led_on_error
    from autograder.projects import PROJECTS
    from autograder.projects.d_grpo.steps import reference_steps
    from autograder.report.model import CheckResult
    from capstone_check.own_lines import EVERY

    check = PROJECTS["D"].checks["D.grpo_step"]
    ctx = Context((7,), "public", validated_bar(check, course.projects["D"].checks["D.grpo_step"].bar, "D.grpo_step"))
    entry = CheckResult("D.grpo_step", check.name, 0.0, 3.0, False, "`grpo_step` raised IndexError")
    right = [w.tolist() for w in reference_steps(7)]
    for forged in ("all", right[:-1], [None] * len(right), [[1.0]] * len(right), right,
                   [{"piece": "os.system", "argument": None}] * len(right),
                   [{"piece": ["kl_penalized_reward"]}] * len(right)):
        assert led_on_error(entry, check, {"through": {EVERY: forged}}, ctx) == entry, forged
    odd = led_on_error(entry, check, {"through": {EVERY: [{"piece": "kl_penalized_reward", "argument": "seed"}]
                                                  * len(right)}}, ctx)  # an argument the stub does not name: none
    assert "`seed`" not in odd.message and "passes `kl_penalized_reward` inputs" in odd.message, odd.message
    passed = [{"piece": "kl_penalized_reward", "argument": "beta"}] + right[1:]
    said = led_on_error(entry, check, {"through": {EVERY: passed}}, ctx)
    assert [s.id for s in said.located] == ["D.grpo_step.passes-kl_penalized_reward"] and "`beta`" in said.message
    moved = right[:-1] + [(np.array(right[-1]) + 1).tolist()]
    said = led_on_error(entry, check, {"through": {EVERY: passed[:1] + moved[1:]}}, ctx)
    assert [s.id for s in said.located] == ["D.grpo_step.own-lines"]  # a departing step outranks an odd input


def test_a_whole_rerun_binds_arguments_by_name_and_a_swallowed_stand_in_says_nothing():
    """With every piece replaced, a call passed by keyword in any order is matched; a call near a recorded one (but not
    it), a piece missing, or a piece the composite reaches by another name (its own, not the stand-in) says nothing;
    a stand-in's exception that the composite catches is seen all the same."""
    import types

    from capstone_check.own_lines import reran_whole

    module = types.ModuleType("composite")
    exec("def piece(a, b=2.0):\n    raise NotImplementedError\n", module.__dict__)
    records = {"piece": [[[np.array([1.0, 2.0]), 2.0], np.array(5.0)]]}
    runs = [lambda: module.piece(b=2.0, a=np.array([1.0, 2.0])), lambda: module.piece(np.array([1.0, 2.0])),
            lambda: module.piece(np.array([1.0, 2.0]), 3.0), lambda: module.piece(np.array([1.0, 2.0 + 1e-8]))]
    assert [out if out is None or isinstance(out, dict) else out.tolist() for out in reran_whole(module, records, runs)
            ] == [[5.0], [5.0], {"piece": "piece", "argument": "b"}, None]

    exec("def piece(*args):\n    raise NotImplementedError\n", module.__dict__)  # no names to bind: never "wrong"
    assert reran_whole(module, records, runs[2:3]) == [None]
    exec("def piece(a, b=2.0):\n    raise NotImplementedError\n", module.__dict__)

    def swallowing():
        try:
            return module.piece(np.array([9.0, 9.0]))
        except Exception:  # noqa: BLE001 - the student's own catch
            return np.array(5.0)
    assert reran_whole(module, records, [swallowing]) == [{"piece": "piece", "argument": "a"}]  # seen all the same
    assert reran_whole(module, {"gone": records["piece"]}, runs[:1]) == [None]
    exec("def piece(a, b=2.0):\n    return 4.0\nalias = piece\n", module.__dict__)  # a wrong piece, by another name
    assert reran_whole(module, records, [lambda: module.alias(np.array([1.0, 2.0]))]) == [None]
    assert reran_whole(module, records, [lambda: module.piece(np.array([1.0, 2.0]))])[0].tolist() == [5.0]


@pytest.mark.parametrize("reached", [None, "yes", 1, 0, [True]])
def test_where_a_raising_update_stood_is_said_only_from_a_bool(reached):
    """A.ratio's child says whether ppo_update had made its first clipped_surrogate call before it raised: untrusted,
    so only a bool says anything."""
    assert a_located.update_raised(reached) == []
    assert [s["id"] for s in a_located.update_raised(True)] == ["A.ratio.update-raises-after-objective"]
    assert [s["id"] for s in a_located.update_raised(False)] == ["A.ratio.update-raises-before-objective"]
