"""The comparison helpers every judge uses: what counts as close, as apart, and as the wrong number of results."""

import math

import numpy as np
import pytest

from autograder.checks import Malformed, Verdict, pairs, require
from capstone_check.verdict import LONGEST
from autograder.comparisons import all_close, apart, below, beyond, close, close_where_defined, difference, numbers

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("got, want, tolerance, expected", [
    ([1.0, 2.0], [1.0, 2.0 + 1e-10], 1e-9, True),
    ([1.0, 2.0], [1.0, 2.1], 1e-3, False),
    (1000.5, 1000.0, 1e-3, True),  # relative above 1: 0.5 <= 1e-3 * 1000
    (0.5, 0.0, 0.4, False),  # absolute below 1
    ([1.0, 2.0], [[1.0, 2.0]], 1e-9, False),  # another shape
    ([NAN], [NAN], 1e-9, False),  # NaN is close to nothing here
    ([INF], [INF], 1e-9, False),
    ("1.0", 1.0, 1e-9, False),  # text is not a number
    ([[1.0], [1.0, 2.0]], [[1.0, 1.0], [1.0, 2.0]], 1e-9, False),  # ragged
    ([True, False], [1.0, 0.0], 1e-9, True),
])
def test_close(got, want, tolerance, expected):
    assert close(got, want, tolerance) is expected


@pytest.mark.parametrize("got, want, expected", [
    ([NAN, 1.0], [NAN, 1.0], True),  # undefined where the oracle says so
    ([0.0, 1.0], [NAN, 1.0], False),  # a number where the statistic is undefined
    ([NAN, 1.0], [0.0, 1.0], False),  # NaN where a number is expected
    ([NAN, 1.5], [NAN, 1.0], False),
    ([INF, 1.0], [NAN, 1.0], False),
    ("x", [1.0], False),
])
def test_close_where_defined(got, want, expected):
    assert close_where_defined(got, want, 1e-6) is expected


def test_all_close_wants_one_close_entry_per_expected_entry():
    want = [np.zeros(2), np.ones(3)]
    assert all_close([np.zeros(2), np.ones(3)], want, 1e-9)
    assert not all_close([np.zeros(2)], want, 1e-9)  # shortened
    assert not all_close([np.zeros(2), np.ones(3) * 2], want, 1e-9)
    assert not all_close((np.zeros(2), np.ones(3)), want, 1e-9)  # not the list collect returns


def test_apart_beyond_and_below_treat_anything_not_finite_numbers_as_failing():
    assert apart([1.0, 2.5], [1.0, 2.0], 0.1) and not apart([1.0, 2.05], [1.0, 2.0], 0.1)
    assert apart([NAN], [1.0], 10) and apart([1.0], [1.0, 1.0], 10)
    assert beyond([0.1, 0.6], 0.5) and not beyond([0.1, 0.5], 0.5) and beyond(NAN, 0.5)
    assert below([0.4], 0.5) and not below(0.5, 0.5) and below(None, 0.5)


def test_numbers_refuses_what_is_not_finite_numbers():
    assert numbers([1, 2]).dtype == float
    assert numbers([1.0, NAN]) is None and numbers("abc") is None and numbers([[1], [1, 2]]) is None


def test_difference_names_the_largest_gap_and_skips_entries_undefined_in_both():
    assert difference([1.0, 2.0], [1.0, 2.5]) == "max |difference| 0.5"
    assert difference([NAN, 2.0], [NAN, 2.25]) == "max |difference| 0.25"
    assert difference([NAN], [NAN]) == "max |difference| nan"


def test_pairs_insists_on_one_result_per_case():
    assert list(pairs([1, 2], ["a", "b"])) == [(1, "a"), (2, "b")]
    with pytest.raises(Malformed, match="expected 2 results for the rows, found 1 results"):
        list(pairs([1, 2], ["a"], "rows"))
    with pytest.raises(Malformed, match="found dict"):
        pairs([1], {"a": 1})


def test_require_names_the_key_and_what_was_found():
    assert require({"out": [1]}, "out", list) == [1]
    with pytest.raises(Malformed, match="expected 'out' in the collected data, found str"):
        require({"out": "x"}, "out", list)
    with pytest.raises(Malformed, match="found NoneType"):
        require(["out"], "out", list)


def test_a_verdict_is_the_share_of_sub_tests_passed_and_names_the_first_failures():
    assert Verdict.of([], 4, "all good").fraction == 1.0
    verdict = Verdict.of(["a", "b", "c", "d", "e"], 10, "all good", note="hint")
    assert math.isclose(verdict.fraction, 0.5)
    assert verdict.message == "hint; a; b; c; and 2 more failing cases"
    assert Verdict.of(["x"] * 12, 10, "").fraction == 0.0  # never below zero


def test_a_failing_message_shows_what_fits_its_length_and_counts_the_rest():
    long = [f"case {i}: " + "x" * 120 for i in range(5)]
    message = Verdict.of(long, 5, "").message
    assert message.startswith("case 0") and "case 1" in message and "case 2" not in message
    assert message.endswith("; and 3 more failing cases") and len(message) <= LONGEST
    huge = ["y" * 400]
    assert Verdict.of(huge, 1, "").message == huge[0]  # the first failure is always shown
    hinted = Verdict.of(long, 5, "", note="hint: " + "z" * 200).message
    assert hinted.endswith("; 5 failing cases") and "case 0" not in hinted and len(hinted) <= LONGEST


def test_where_it_departs_keeps_the_statements_that_leave_room_for_the_first_failure():
    said = [{"id": "X.a", "text": "your values differ only " + "a" * 60},
            {"id": "X.b", "text": "where they depart, they " + "b" * 60}]
    short = Verdict.of(["small"], 1, "", located=said).message
    assert short.startswith("Where it differs: your values") and "bbb" in short
    long = Verdict.of(["f" * 180], 1, "", located=said).message
    assert "aaa" in long and "bbb" not in long and len(long) <= LONGEST and long.endswith("f" * 179)


def test_the_checks_that_spent_a_budget_are_counted_with_their_noun():
    from autograder.submission_budget import SubmissionBudget

    budget = SubmissionBudget(600)
    for number, seconds in enumerate([50, 40, 30, 20, 10, 5], start=1):
        budget.charge(f"X.c{number}", seconds)
    assert budget.spenders() == "X.c1 50 s, X.c2 40 s, X.c3 30 s, X.c4 20 s and 2 more checks"
    budget.charge("X.c6", -5)  # spent nothing now: no longer named
    assert budget.spenders().endswith("X.c4 20 s and 1 more check")
