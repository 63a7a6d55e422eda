"""Where C's diagnostics depart: each case of a diagnostic's check is of one kind (one-hot logits, a constant critic,
a curve with NaN gaps), and a located statement (``capstone_check.located``) names the kinds its departures line up
with. Final grading and the students' checker both read the subjects and kinds from here."""

from __future__ import annotations

from capstone_check.located import located, of_kinds

SUBJECTS = {  # a diagnostic (and a statistic's key) -> how a located statement names its output
    "policy_entropy": "your entropies", "logit_magnitude": "your logit magnitudes", "approx_kl": "your KL estimates",
    "clip_fraction": "your clip fractions", "explained_variance": "your explained variances",
    "return_drop": "your return drops",
    **{f"td_error_stats:{key}": f"your td_error_stats['{key}']" for key in ("mean_abs", "max_abs", "relative")},
    **{f"q_overestimation:{key}": f"your q_overestimation['{key}']" for key in ("vs_mc", "ratio_mc", "above_bound")}}


ENTROPY_KINDS = {"ordinary": "on ordinary logits", "one-hot": "on logits of one-hot policies",
                 "shifted": "on logits shifted by a large constant", "far apart": "on logits far apart within a row"}

RATIO_KINDS = {"unchanged": "for an unchanged policy", "changed": "for a policy that changed"}

VARIANCE_KINDS = {"ordinary": "for ordinary critics", "perfect critic": "for a perfect critic",
                  "constant critic": "for a constant critic", "constant returns": "for constant returns"}

TD_KINDS = {"negative Q": "when some Q-values are negative", "positive Q": "when every Q-value is positive"}

CURVE_KINDS = {"ordinary": "on ordinary curves", "with NaN gaps": "on curves with NaN gaps",
               "peak at the end": "on curves that peak at their end", "no episodes": "on a curve with no episodes"}


def where(check: str, piece: str, kinds: list[str], got: list, want: list, tol: float, texts: dict) -> list[dict]:
    """Where the output of ``piece`` (a key of ``SUBJECTS``) departs over a check's cases, each case of one kind
    (``texts``: kind -> where, as a statement says it)."""
    return located(list(zip(got, want)), tol, check, SUBJECTS[piece], texts, of_kinds(kinds))
