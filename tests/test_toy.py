"""The verifier toy carries the chapter's definitions exactly."""

import numpy as np

from rlkit import toy


def test_reference_success_is_the_chapters_0062():
    assert f"{toy.success(toy.PI_REF, toy.verify):.3f}" == "0.062"
    assert abs(toy.success(toy.PI_REF, toy.verify) - 0.0624) < 1e-4


def test_exact_match_has_a_ceiling_of_one_half():
    # two prompts (8*8, 9*9) have no correct candidate: the best policy scores 0.5
    assert toy.EXACT_MATCH.max(1).tolist() == [1.0, 1.0, 0.0, 0.0]


def test_the_sloppy_grader_rewards_the_hedge_on_every_prompt():
    assert toy.CONTAINS_ANSWER[:, toy.HEDGE].tolist() == [1.0, 1.0, 1.0, 1.0]
    assert (toy.CONTAINS_ANSWER[:, : toy.HEDGE] == toy.EXACT_MATCH[:, : toy.HEDGE]).all()


def test_reference_gives_the_hedge_about_two_tenths_of_a_percent():
    assert np.allclose(toy.PI_REF[:, toy.HEDGE], np.exp(-4) / (8 + np.exp(-4)))
    assert 0.0015 < toy.PI_REF[0, toy.HEDGE] < 0.0025


def test_rewards_score_a_whole_group_or_one_response():
    assert toy.verify(1, 4) == 1.0 and toy.verify(1, 3) == 0.0
    assert toy.sloppy(3, np.array([8, 0, 8])).tolist() == [1.0, 0.0, 1.0]


def test_policy_rows_are_distributions_even_for_huge_logits():
    pi = toy.policy(np.array([[1000.0] + [0.0] * 8] * 4))
    assert np.allclose(pi.sum(1), 1) and np.all(np.isfinite(pi))


def test_softmax_score_is_the_gradient_of_the_log_probability():
    theta, ys, h = np.random.default_rng(0).normal(size=9), np.array([2, 5]), 1e-6
    for j, y in enumerate(ys):
        numeric = [(np.log(toy.policy((theta + h * np.eye(9)[v])[None])[0, y])
                    - np.log(toy.policy((theta - h * np.eye(9)[v])[None])[0, y])) / (2 * h) for v in range(9)]
        assert np.allclose(toy.softmax_score(toy.policy(theta[None])[0], ys)[j], numeric, atol=1e-7)
