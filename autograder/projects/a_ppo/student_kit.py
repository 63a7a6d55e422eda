"""Project A's expected values for the students' checker: the grader's inputs and the oracle's outputs on them, and
A.bar's settings (the checker trains with the given loop and evaluates; final grading also replays the run)."""

from __future__ import annotations


from autograder.projects.a_ppo import clip_gradient as clip_gradient_check, pieces, reference_runs, update
from autograder.projects.a_ppo import ratio as ratio_check
from autograder.projects.a_ppo.public import bar as a_bar
from autograder.projects.a_ppo.public import batch as checker
from autograder.projects.a_ppo.public import ratio as a_ratio
from autograder.projects.a_ppo.public import update as a_update


# What a training run takes from the pieces, for predicting A.bar when a piece's check fails only elsewhere: the keys
# of the batch ppo_update reads (``pieces.UPDATE_READS``), and the values of the update's configuration every graded
# run trains with (the chapter's, course.yml's hyperparameters: A.update's own are off them, so that a piece
# hard-coding one fails there; tests/test_kit_prediction.py compares them with course.yml)
UPDATE_READS = pieces.UPDATE_READS
TRAINED = update.TRAINED


def bar(ctx) -> dict:
    settings = ctx.bar.model_dump()
    return {"kind": "a_bar", "bar": settings, "seeds": list(ctx.seeds),
            **reference_runs.reference_runs(settings, list(ctx.seeds))}


# the checker's function that runs each kind of check SPECS makes (a "calls" check runs the student's functions)
KINDS = {"a_batch": checker.batch, "a_ratio": a_ratio.ratio, "a_update": a_update.update, "a_bar": a_bar.bar}

SPECS = {"A.gae": pieces.GAE().spec, "A.batch": pieces.Batch().spec, "A.ratio": ratio_check.Ratio().spec,
         "A.clip_gradient": clip_gradient_check.ClippedSurrogateGradient().spec,
         "A.value_entropy": pieces.ValueEntropy().spec, "A.update": update.Update().spec, "A.bar": bar}
# A.bar's ``builds_on``, the rows whose failure here means the replay of every update departs there: a run's updates
# are made of gae, flatten_batch, the ratio and ppo_update, which A.update checks with clipped_surrogate, value_loss and
# entropy_bonus inside it. A failure of A.clip_gradient or A.value_entropy alone is an edge case training may or may
# not reach (benchmarks/kit_prediction.py measured runs credited with such a bug, and a clip that tests A < 1 for
# A < 0 whose runs were not), so the row ``trusts`` them: from 0 to its score here when one fails.
FINAL_GRADING = {"A.bar": {"adds": "final grading also replays each run update by update and credits it only if "
                                   "every update follows from pieces that pass",
                           "trusts": ("A.clip_gradient", "A.value_entropy"),
                           "unsure": ", and this run cannot tell whether your training reaches what fails"}}
