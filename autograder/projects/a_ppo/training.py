"""Project A's bar: the kit's training loop (the stub's given ``train``) with the student's pieces, in the child, on
budgeted environments, with the course's hyperparameters (``_shared.ppo.hyperparameters``); the judge replays every
update with the reference (``_shared.replay``), and evaluates the final policy itself, in its own process, with its
own seeds. Only a run whose every update follows from the one before
earns the bar; what a forger can steer through the tolerances is bounded in docs/design-notes.md.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field

from capstone_check.cascade import explained
from autograder.checks import validated_bar
from autograder.checks import Check, VerdictDetails, Malformed, Verdict, pairs
from autograder.projects._shared import audits
from autograder.projects._shared.proof import Recipe, adam, annealed, decode, init_agent, load, transitions
from autograder.departures import Departure, departed_message, departed_update, departure
from autograder.projects._shared.replay import Departed, audit
from autograder.projects._shared.ppo import oracle
from autograder.projects._shared.ppo.edges import Edges, alternatives
from autograder.projects._shared.ppo.hyperparameters import config_note, course_config
from autograder.projects._shared.ppo.recording import ReplayBar, per_update_returns, recorded, student_config, unpacked
from autograder.projects.a_ppo.update import train_probes
from rlkit.cartpole import evaluate


def student_recipe(student, config, c: dict, n_updates: int) -> Recipe:
    """The kit's loop with the student's ``gae``, ``flatten_batch`` and ``ppo_update`` (the given ``train``)."""
    gae, batch, update = student.fn("gae"), student.fn("flatten_batch"), student.fn("ppo_update")
    return Recipe(init=lambda rng: init_agent(rng, int(c["hidden"])),
                  optimizer=lambda agent: adam(agent, c["lr"], c["adam_eps"]), lr=annealed(c["lr"], n_updates),
                  advantages=lambda s: gae(s.rewards, s.values, s.terminated, s.truncated, c["gamma"], c["lam"]),
                  batch=batch, update=lambda agent, optimizer, b, rng: update(agent, optimizer, b, config, rng))


def reference_recipe(c: dict, n_updates: int) -> Recipe:
    """The same loop with the reference's pieces, for the judge's replay."""
    def advantages(s):
        adv = oracle.gae(s.rewards, s.values, s.terminated, s.truncated, c["gamma"], c["lam"])
        return adv, adv + s.values[:-1]

    def update(agent, optimizer, b, rng, flips=frozenset()):  # returns the terms met on the clip's edge
        edges = Edges(flips)
        oracle.ppo_update(agent, optimizer, b, c, rng, surrogate=edges.surrogate)
        return edges.seen

    return Recipe(init=lambda rng: init_agent(rng, c["hidden"]),
                  optimizer=lambda agent: adam(agent, c["lr"], c["adam_eps"]), lr=annealed(c["lr"], n_updates),
                  advantages=advantages, batch=transitions, update=update, alternatives=alternatives)


def recorded_run(student, seed: int, bar) -> dict:
    """One graded run in the child: the kit's loop with the student's pieces and the course's hyperparameters on
    budgeted environments, the parameters after every update and the actions taken (the judge's replay steps its
    environments with them)."""
    config = course_config(student, bar.hyperparameters)
    recipe = student_recipe(student, config, bar.hyperparameters.model_dump(), bar.n_updates)
    return {"seed": seed, "config": student_config(student),  # for a note in the message only; never replayed
            **recorded(recipe, seed, bar, lambda go: explained(student, "ppo_update", go, train_probes()),
                       moments=("m", "v"))}


NOT_CREDITED = "Not credited: training with your pieces left the reference's updates."
NEXT_STEP = ("If your pieces pass their checks, look for what training hands them that the checks do not: a config "
             "field, a longer batch, a later update.")


class Bar450(Check):
    id = "A.bar"
    builds_on = ("A.gae", "A.batch", "A.ratio", "A.update")  # a run's every update is made of these pieces
    credit = "per_case"  # a share of runs, seeds or table rows: partial results earn their share
    name = "The chapter's bar: median return above 450 on CartPole within 60 updates, 3 seeds"
    cost, per_seed = 4.0, True
    # the grader's own rollouts, and the update of each run its replay found not to follow from the pieces
    grader_details = ("evaluated", "median", "training_tail", "curves", "threshold", "departed")

    class Bar(ReplayBar):
        threshold: float = Field(description="the median evaluation return over the seeds must be above this")
        eval_episodes: int = Field(description="episodes the grader samples from each returned policy")
        last_updates: int = Field(description="last updates whose training returns are reported")

    class Details(VerdictDetails):
        evaluated: list[float] = Field(description="per seed, the median return of the grader's own evaluation of the "
                                       "final policy (0 for a run whose updates did not all follow)")
        median: float = Field(description="the median of evaluated over the seeds, held to the bar's threshold")
        training_tail: list[float] = Field(description="per seed, the mean return of the episodes of the last "
                                           "last_updates updates in the grader's replay (NaN when none finished)")
        curves: list[list[float | None]] = Field(description="per seed, the mean return of the episodes that "
                                                 "finished in each update of the grader's replay (None where none did)")
        threshold: float = Field(description="the bar's threshold, drawn as a line")
        departed: list[int | None] | None = Field(None, description="per seed, the update of the run that did not "
                                                  "follow from the pieces (None: every update did)")

    def collect(self, student, ctx):
        return {"runs": [recorded_run(student, seed, ctx.bar) for seed in ctx.seeds]}

    def on_shard(self, data, ctx):
        """Run by the grader as soon as one seed's child returns: audit its run now, in a process of its own."""
        for seed, run_ in zip(ctx.seeds, data.get("runs", [])):
            audits.start(ctx.grading, run_, seed, ctx.bar.model_dump(), replay_plain, self.id)

    def judge(self, data, ctx):
        bar = ctx.bar
        evaluated, curves, recent, departed, updates = [], [], [], [], []
        for seed, run_ in pairs(ctx.seeds, data["runs"], "seeds"):
            episodes, actor, failure = audited(run_, seed, bar, ctx.grading)
            updates.append(departed_update(failure))
            if failure:
                departed.append((f"the run of {ctx.seed_shown(seed)}", failure))
                evaluated.append(0.0)
            else:
                evaluated.append(float(np.median(evaluate(actor, bar.eval_episodes, seed=10_007 * seed + 1))))
            curves.append(per_update_returns(episodes, bar.n_updates))
            tail = [ret for update, ret in episodes if update >= bar.n_updates - bar.last_updates]
            recent.append(float(np.mean(tail)) if tail else float("nan"))
        median = float(np.median(evaluated))
        details = {"evaluated": evaluated, "median": median, "training_tail": recent, "curves": curves,
                   "threshold": bar.threshold, "departed": updates}
        first = data["runs"][0] if data["runs"] else {}
        note = config_note(first.get("config") if isinstance(first, dict) else None, bar.hyperparameters)
        if departed:
            said = departed_message(NOT_CREDITED, NEXT_STEP, departed, len(ctx.seeds))
            return Verdict(0.0, f"{said} {note.removeprefix('. ')}." if note else said, details)
        figures = (f"the grader's evaluation of your three policies ({bar.eval_episodes} episodes each): "
                   f"{', '.join(f'{v:.0f}' for v in evaluated)}; median {median:.0f}. Training returns of the last "
                   f"{bar.last_updates} updates: {', '.join(f'{v:.0f}' for v in recent)}")
        if median > bar.threshold:
            return Verdict(1.0, figures + note, details)
        return Verdict(0.0, f"median return should be above {bar.threshold:g}; {figures}{note}", details)


def audited_run(run_: dict, seed: int, bar) -> list:
    """The episodes of the judge's own rollouts of a run whose every update follows, else ``Departed``: each update
    replayed from the student's parameters and Adam's moments before it, the moments checked after each update within
    ``moment_tolerance``, small enough that what they can steer stays under the parameters' own tolerance (docs/
    design-notes.md, "What a forger can steer"). Moments carried by the judge from zero depart honest runs: 48 Adam
    steps amplify a rounding difference, and Adam's v remembers it for hundreds of steps."""
    c, snapshots, actions = unpacked(run_, seed, bar)
    moments = decode(run_.get("moments"), (snapshots.shape[0], 2 * snapshots.shape[1]))
    if moments is None:
        raise Malformed(f"the run did not hand back the optimizer's moments after each of {bar.n_updates} updates")
    return audit(snapshots, actions, seed, reference_recipe(c, bar.n_updates), bar.replay_tolerance, moments,
                 bar.moment_tolerance)


def replay(run_: dict, seed: int, bar) -> tuple[list, Departure | None]:
    """(episodes of the judge's own rollouts, None), or ([], where the run departed: ``departures.Departure``)."""
    try:
        return audited_run(run_, seed, bar), None
    except Departed as exc:
        return [], departure(exc, bar.n_updates, bar.replay_tolerance, bar.moment_tolerance)


def replay_plain(run_: dict, seed: int, bar: dict) -> tuple[list, Departure | None]:
    """``replay`` with the bar as plain data (how the audit process is handed it), validated as course.yml's is."""
    return replay(run_, seed, validated_bar(Bar450, bar, "projects.A.checks.A.bar"))


def audited(run_: dict, seed: int, bar, grading=None) -> tuple[list, list | None, Departure | None]:
    """(episodes, the final actor, None), or ([], None, the departure): the outcome the grader kept
    from its early audit of this very run (in ``grading``, the grading run), else a replay now."""
    c, snapshots, _ = unpacked(run_, seed, bar)
    episodes, failure = audits.kept_or_replayed(grading, run_, seed, bar.model_dump(), replay_plain)
    if failure:
        return [], None, failure
    agent = init_agent(np.random.default_rng(0), c["hidden"])
    load(agent, snapshots[-1])
    return episodes, agent["actor"], None
