"""Project A's expected values for the students' checker: the grader's inputs and the oracle's outputs on them, and
A.bar's settings (the checker trains with the given loop and evaluates; final grading also replays the run)."""

from __future__ import annotations


from autograder.projects._shared.ppo.hyperparameters import Hyperparameters
from autograder.projects.a_ppo import clip_gradient as clip_gradient_check, pieces, reference_runs, update
from autograder.projects.a_ppo import ratio as ratio_check
from autograder.findings import of_check
from autograder.projects._shared.encode import encode, mistakes_as_values
from autograder.projects.a_ppo.mistakes import MISTAKES
from capstone_check.calls import flat
from capstone_check.kinds import a_bar, a_ppo as checker, a_ratio


# What a training run takes from the pieces, for predicting A.bar when a piece's check fails only elsewhere: the keys
# of the batch ppo_update reads (``pieces.UPDATE_READS``), and the values of the update's configuration every graded
# run trains with (the chapter's, course.yml's hyperparameters: A.update's own are off them, so that a piece
# hard-coding one fails there; tests/test_kit_prediction.py compares them with course.yml)
UPDATE_READS = pieces.UPDATE_READS
TRAINED = {key: getattr(Hyperparameters(), key) for key in update.UPDATE_CONFIG}


def update_check(ctx) -> dict:
    agent, batch_ = update.update_inputs(ctx.seed)
    want = update.reference_update(ctx.seed)
    want_trained = update.reference_update(ctx.seed, config=TRAINED)
    statistics = update.statistics_variants(ctx.seed)  # the statistics' known mistakes, told by their four numbers
    return {"kind": "a_update", "agent": encode(agent), "batch": encode(batch_), "config": update.UPDATE_CONFIG,
            "lr": update.UPDATE_LR, "seed": ctx.seed, "want": encode({net: list(want[net]) for net in want}),
            "tol": ctx.bar.tolerance,
            "trained": {"config": TRAINED, "want": encode({net: list(want_trained[net]) for net in want_trained})},
            "related": [{**statement, "want": flat(params)} for statement, params in update.related_updates(ctx.seed)],
            "one_network": {net: update.one_network([net]) for net in ("actor", "critic")},
            "steps": encode([list(step) for step in update.reference_steps(ctx.seed)]),
            "minibatches": update.UPDATE_CONFIG["minibatches"],
            "statistics": {"want": update.reference_statistics(ctx.seed), "rungs": update.rung_statistics()},
            **mistakes_as_values(MISTAKES, {**{m.id: update.reference_update(ctx.seed, *m.variant)
                                               for m in of_check(MISTAKES, "A.update") if m.piece is None},
                                            **{mid: values for mid, values in statistics.items()
                                               if values is not None}})}


def bar(ctx) -> dict:
    settings = ctx.bar.model_dump()
    return {"kind": "a_bar", "bar": settings, "seeds": list(ctx.seeds),
            **reference_runs.reference_runs(settings, list(ctx.seeds))}


# the checker's function that runs each kind of check SPECS makes (a "calls" check runs the student's functions)
KINDS = {"a_batch": checker.batch, "a_ratio": a_ratio.ratio, "a_update": checker.update, "a_bar": a_bar.bar}

SPECS = {"A.gae": pieces.GAE().spec, "A.batch": pieces.Batch().spec, "A.ratio": ratio_check.Ratio().spec,
         "A.clip_gradient": clip_gradient_check.ClippedSurrogateGradient().spec,
         "A.value_entropy": pieces.ValueEntropy().spec, "A.update": update_check, "A.bar": bar}
# A.bar's ``builds_on``, the rows whose failure here means the replay of every update departs there: a run's updates
# are made of gae, flatten_batch, the ratio and ppo_update, which A.update checks with clipped_surrogate, value_loss and
# entropy_bonus inside it. A failure of A.clip_gradient or A.value_entropy alone is an edge case training may or may
# not reach (benchmarks/kit_prediction.py measured runs credited with such a bug, and a clip that tests A < 1 for
# A < 0 whose runs were not), so the row ``trusts`` them: from 0 to its score here when one fails.
FINAL_GRADING = {"A.bar": {"adds": "final grading also replays each run update by update and credits it only if "
                                   "every update follows from pieces that pass",
                           "trusts": ("A.clip_gradient", "A.value_entropy"),
                           "unsure": ", and this run cannot tell whether your training reaches what fails"}}
