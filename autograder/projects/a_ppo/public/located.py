"""Where A's pieces depart, in their inputs' own terms: the features of a (T, N) segment that A.gae's located
statements name, with the ladder of small public segments whose smallest failing rung a failing A.gae row shows
whole; the features of a minibatch's samples that A.clip_gradient's and A.value_entropy's statements name; and where
along its Adam steps a whole update (A.update) first departs.
Final grading and the students' checker both read them from here."""

from __future__ import annotations

import numpy as np

from capstone_check.located import departing, shown
from rlkit.nn import Adam

SUBJECT = "your advantages"
FEATURES = {  # feature id -> where, as a statement says it ("your advantages differ only <where>")
    "termination": "at the steps where an episode terminates",
    "truncation": "at the steps where an episode is truncated",
    "segment-end": "at the segment's last step",
    "after-reset": "at the first step of an episode that starts inside the segment",
    "terminated-episode": "in the episodes that terminate inside the segment",
    "truncated-episode": "in the episodes that are truncated inside the segment",
    "ended-episode": "in the episodes that end inside the segment",
    "cut-episode": "in the episode that the segment's end cuts off",
    "continuing": "at the steps in mid-episode (neither an episode's end nor the segment's last step)",
}


def features(terminated, truncated) -> dict[str, np.ndarray]:
    """Each feature's (T, N) mask for a segment with these ends."""
    term, trunc = np.asarray(terminated, dtype=bool), np.asarray(truncated, dtype=bool)
    T = term.shape[0]
    ended = term | trunc
    ends = np.zeros(term.shape, dtype=int)  # how the episode of each step ends: 0 cut off, 1 terminated, 2 truncated
    following = np.zeros(term.shape[1:], dtype=int)
    for t in reversed(range(T)):
        following = np.where(term[t], 1, np.where(trunc[t], 2, following))
        ends[t] = following
    last = np.zeros(term.shape, dtype=bool)
    last[-1] = True
    after = np.zeros(term.shape, dtype=bool)
    after[1:] = ended[:-1]
    return {"termination": term, "truncation": trunc & ~term, "segment-end": last, "after-reset": after,
            "terminated-episode": ends == 1, "truncated-episode": ends == 2, "ended-episode": ends > 0,
            "cut-episode": ends == 0, "continuing": ~ended & ~last}


def _rung(gamma, lam, rewards, values, terminated, truncated) -> tuple:
    r = np.array(rewards, dtype=float).reshape(len(rewards), -1)
    return (r, np.array(values, dtype=float).reshape(len(values), -1),
            np.array(terminated, dtype=bool).reshape(r.shape), np.array(truncated, dtype=bool).reshape(r.shape),
            gamma, lam)


# (rewards, values, terminated, truncated, gamma, lam) per rung, smallest first: one step, then two, then an episode
# ending inside the segment each way, then both at once in two environments; every array 8 numbers at most
LADDER = [
    _rung(0.9, 0.5, [1], [0.5, 0.25], [0], [0]),
    _rung(0.9, 0.5, [1], [0.5, 0.25], [1], [0]),
    _rung(0.9, 0.5, [1], [0.5, 0.25], [0], [1]),
    _rung(0.9, 0.5, [1, 0], [0.5, 0.25, 1], [0, 0], [0, 0]),
    _rung(0.9, 0.0, [1, 0], [0.5, 0.25, 1], [1, 0], [0, 0]),
    _rung(0.9, 1.0, [1, 0], [0.5, 0.25, 1], [1, 0], [0, 0]),
    _rung(0.9, 0.5, [1, 0], [0.5, 0.25, 1], [1, 0], [0, 0]),
    _rung(0.9, 0.5, [1, 0], [0.5, 0.25, 1], [0, 0], [1, 0]),
    _rung(0.9, 0.5, [1, 0, 1], [0.5, 0.25, 1, 2], [0, 1, 0], [1, 0, 0]),
    _rung(0.99, 0.95, [[1, 0], [0, 1], [1, 1]], [[0.5, 1], [0.25, 0.5], [1, 2], [2, 1]],
          [[0, 0], [0, 1], [0, 0]], [[0, 0], [1, 0], [0, 0]]),
]


def call_text(rung) -> str:
    """How a rung's call is shown whole."""
    r, v, term, trunc, gamma, lam = rung
    return (f"gae(rewards {shown(r)}, values {shown(v)}, terminated {shown(term)}, truncated {shown(trunc)}, "
            f"gamma {gamma:g}, lambda {lam:g})")


SURROGATE_SUBJECT = "your gradients"
OBJECTIVE_SUBJECT = "your objectives"  # clipped_surrogate's, one per minibatch: said by relations alone
SAMPLE_FEATURES = {  # a minibatch sample's features: its gradient row is its own
    "above": "at the samples whose ratio is above 1 + eps",
    "below": "at the samples whose ratio is below 1 - eps",
    "beyond": "at the samples whose ratio is beyond the clip, on either side",
    "inside": "at the samples whose ratio is inside the clip range",
    "favourable": "at the samples beyond the clip on the favourable side (where the clip removes the gradient)",
    "unfavourable": "at the samples beyond the clip on the unfavourable side",
    "kept": "at the samples whose gradient the clip keeps",  # inside the clip range, or beyond it unfavourably
    "positive-advantage": "at the samples whose advantage is positive",
    "negative-advantage": "at the samples whose advantage is negative",
}


def sample_features(ratios, advantages, eps) -> dict[str, np.ndarray]:
    """Each feature's mask over a minibatch's gradient rows, (B, 1)."""
    rho, adv = np.asarray(ratios, dtype=float)[:, None], np.asarray(advantages, dtype=float)[:, None]
    above, below = rho > 1 + eps, rho < 1 - eps
    return {"above": above, "below": below, "beyond": above | below, "inside": ~(above | below),
            "favourable": (above & (adv > 0)) | (below & (adv < 0)),
            "unfavourable": (above & (adv < 0)) | (below & (adv > 0)),
            "kept": ~((above & (adv > 0)) | (below & (adv < 0))),
            "positive-advantage": adv > 0, "negative-advantage": adv < 0}


VALUE_SUBJECT = "the entries of your value-loss gradient"
ENTROPY_SUBJECT = "the entries of your entropy gradient"
VALUE_LOSS_SUBJECT = "the losses of your value_loss"  # one per call: said by relations alone
ENTROPY_VALUE_SUBJECT = "the mean entropies of your entropy_bonus"  # likewise
ROW_FEATURES = {"near-one-hot": "at the near one-hot policy's row", "uniform": "at the uniform policy's row",
                "ordinary": "at the ordinary rows"}


def entropy_row_features(logits) -> dict[str, np.ndarray]:
    """Each feature's mask over the entropy gradient's rows, (B, 1): A.value_entropy's last two rows are a near
    one-hot policy and a uniform one."""
    z = np.asarray(logits, dtype=float)
    gap = np.abs(z[:, :1] - z[:, 1:2])
    return {"near-one-hot": gap > 50, "uniform": gap == 0, "ordinary": (gap > 0) & (gap <= 50)}


UPDATE_SUBJECT = "your update"
RATIO_SUBJECT = "your ratios"  # importance_ratio's, said by relations alone
# where ppo_update raised, against its first clipped_surrogate call, when A.ratio could not read that call's ratio
UPDATE_RAISED = {
    False: ("update-raises-before-objective", "your ppo_update raises before its first clipped_surrogate call"),
    True: ("update-raises-after-objective", "your ppo_update raises after its first clipped_surrogate call"),
}


def update_raised(reached) -> list[dict]:
    """A.ratio's statement of where ppo_update raised (``reached``: whether its first clipped_surrogate call was made
    before, as a child sent it: any other value than a bool says nothing)."""
    if type(reached) is not bool:
        return []
    key, text = UPDATE_RAISED[reached]
    return [{"id": f"A.ratio.{key}", "text": text}]
COURSE = {  # where along its Adam steps a whole update first departs -> what a statement says of it
    "first-step": "differs from its first Adam step: look at one minibatch's samples, loss and gradient, not at the "
                  "loops",
    "later-minibatch": "follows the first Adam step (every ratio is 1) and differs later in the first epoch",
    "later-epoch": "follows the reference's whole first epoch and differs only in a later epoch",
    "step-count": "takes another number of steps of the optimizer it is given than epochs times minibatches",
}


KEPT_STEPS = 64  # steps whose parameters are kept (an update of the course takes 16): a loop gone wild stays small


class RecordingAdam(Adam):
    """The given Adam, keeping the parameters after each of its first ``KEPT_STEPS`` steps (one flat vector per step)
    and counting them all, so that a whole update can be followed step by step."""

    def __init__(self, params, lr: float):
        super().__init__(params, lr)
        self.after: list[np.ndarray] = []
        self.taken = 0

    def step(self, grads) -> None:
        super().step(grads)
        self.taken += 1
        if self.taken <= KEPT_STEPS:
            self.after.append(np.concatenate([np.ravel(p) for p in self.params]).astype(float))


def _course_statement(first: int, minibatches: int) -> list[dict]:
    key = "first-step" if first == 0 else "later-minibatch" if first < minibatches else "later-epoch"
    return [{"id": f"A.update.{key}", "text": f"{UPDATE_SUBJECT} {COURSE[key]}"}]


def raised_course(partial: dict, want_steps, tolerance: float, minibatches: int) -> list[dict]:
    """Where an update that raised had first departed, from ``partial`` (its optimizer's ``steps``, the parameters
    after each, and how many it had ``taken``): at the first of its steps that departs from the reference's, else at
    the step it was making when it raised. Nothing when it raised after the reference's last step, or when ``partial``
    is of another form (the grader reads it from the child: untrusted)."""
    got_steps, taken = partial.get("steps"), partial.get("taken")
    if not isinstance(got_steps, list) or not isinstance(taken, int):
        return []
    got_steps = [np.asarray(step, dtype=float) for step in got_steps]
    for k, (got, want) in enumerate(zip(got_steps[:taken], want_steps)):
        wrong = departing(got, want, tolerance)
        if wrong is None:
            return []
        if wrong.any():
            return _course_statement(k, minibatches)
    if taken > len(got_steps) or taken >= len(want_steps):
        return []
    return _course_statement(int(taken), minibatches)


def update_course(got_steps, taken: int, want_steps, tolerance: float, minibatches: int) -> list[dict]:
    """The statement (``COURSE``, id ``A.update.<key>``) of where the student's Adam steps (``taken`` of them, the
    first kept as flat parameter vectors) first depart from the reference's; nothing when every step holds (the update
    departs after its last step) or a step is not of the parameters' shape."""
    if taken != len(want_steps):
        key = "step-count"
    else:
        first = None
        for k, (got, want) in enumerate(zip(got_steps, want_steps)):
            wrong = departing(got, want, tolerance)
            if wrong is None:
                return []
            if wrong.any():
                first = k
                break
        if first is None:
            return []
        return _course_statement(first, minibatches)
    return [{"id": f"A.update.{key}", "text": f"{UPDATE_SUBJECT} {COURSE[key]}"}]
