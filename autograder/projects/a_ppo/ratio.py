"""Project A's A.ratio, written once: ``importance_ratio`` on its own, and the ratio on ``ppo_update``'s first
minibatch of the first epoch, read from the arguments of its first ``clipped_surrogate`` call (exactly 1 there: the
policy has not moved). Its two halves are ``autograder.projects.a_ppo.public.ratio``'s."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from autograder.checks import ToleranceBar
from autograder.findings import computed
from autograder.projects._shared.encode import encode, mistakes_as_values
from autograder.projects._shared.once import WrittenOnce
from autograder.projects._shared.ppo.cases import update_case
from autograder.projects.a_ppo.mistakes import MISTAKES
from autograder.projects.a_ppo.update import UPDATE_CONFIG, ppo_probes
from autograder.projects.a_ppo.public.ratio import collect_ratio, judge_ratio

READ = ("new", "old", "agent", "batch", "config", "probes")  # what the child reads of the spec


class Ratio(WrittenOnce):
    id = "A.ratio"
    name = "The ratio: exp(new - old), and exactly 1 on the first minibatch of the first epoch"

    class Bar(ToleranceBar):
        first_minibatch_tolerance: float = Field(description="largest |ratio - 1| on ppo_update's first minibatch")

    def spec(self, ctx) -> dict:
        rng = np.random.default_rng(ctx.seed)
        new, old = rng.normal(-1, 1, 50), rng.normal(-1, 1, 50)
        agent, batch = update_case(ctx.seed)
        # the stored log-probs taken in batch order are told by the first minibatch's call, a rule of the judge's own
        inverted = computed(MISTAKES["A.ratio.inverted"].variant, new, old)
        named = mistakes_as_values(MISTAKES, {"A.ratio.inverted": inverted})
        named["findings"]["A.ratio.log-probs-not-shuffled"] = MISTAKES["A.ratio.log-probs-not-shuffled"].text
        return {"kind": "a_ratio", "new": encode(new), "old": encode(old), "want": encode(np.exp(new - old)),
                "agent": encode(agent), "batch": encode(batch), "config": UPDATE_CONFIG,
                "probes": encode([tuple(probe) for probe in ppo_probes()]),
                "tol": ctx.bar.tolerance, "first_tol": ctx.bar.first_minibatch_tolerance, **named}

    def inputs(self, spec: dict, ctx) -> dict:
        return {key: spec[key] for key in READ}

    def gather(self, student, inputs: dict) -> dict:
        return collect_ratio(student, inputs)

    def decide(self, spec: dict, data):
        return judge_ratio(spec, data)
