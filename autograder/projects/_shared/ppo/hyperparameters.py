"""The hyperparameters every graded PPO run trains with: the course's (course.yml), never the submission's.

A run's hyperparameters decide how far one update can move the weights (the step size, Adam's epsilon, the gradient's
clip) and what the judge's replay costs (epochs, minibatches, the width of the networks). A student who chose them
could turn any gap the replay tolerates into a jump anywhere, or make the grader's audit as long as they like, so the
child hands the student's pieces a ``Config`` holding the course's values and the judge replays with the same values.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from autograder.projects._shared.public import ppo_config


class Hyperparameters(BaseModel):
    """The chapter's PPO configuration (the stubs' ``Config`` defaults); the bounds keep the judge's replay of a run
    within what a course can afford."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    gamma: float = Field(default=0.99, gt=0, le=1, description="discount")
    lam: float = Field(default=0.95, ge=0, le=1, description="GAE lambda")
    clip_eps: float = Field(default=0.2, gt=0, lt=1, description="clip half-width epsilon")
    epochs: int = Field(default=6, ge=1, le=32, description="passes over each batch")
    minibatches: int = Field(default=8, ge=1, le=64, description="minibatches per epoch")
    lr: float = Field(default=2.5e-3, gt=0, le=0.1, description="Adam's step size, annealed linearly to 0")
    adam_eps: float = Field(default=1e-5, gt=0, le=1e-2, description="Adam's epsilon")
    max_grad_norm: float = Field(default=0.5, gt=0, description="global-norm clip of each minibatch's gradient")
    vf_coef: float = Field(default=0.5, ge=0, description="weight of the value loss")
    ent_coef: float = Field(default=0.0, ge=0, description="weight of the entropy bonus")
    hidden: int = Field(default=32, ge=1, le=256, description="units in each hidden layer of both networks")


def course_config(student, hyper: Hyperparameters):
    """The student's ``Config`` class (``ppo.py``'s) holding the course's values: what the student's pieces are
    handed in a graded run. Refused when the class cannot hold them. The students' checker's own (``ppo_config``), so
    the two sides hand the pieces the same Config and refuse the same classes."""
    return ppo_config.course_config(student, hyper.model_dump())


def differences(student_values: dict, hyper: Hyperparameters) -> list[str]:
    """``name: yours -> the course's`` for each hyperparameter where a student's ``Config()`` differs from the
    course's (their own runs, made with their ``Config()``, are replayed with the course's)."""
    wanted = hyper.model_dump()
    return [f"{name} {student_values.get(name)!r} (the course's: {value!r})" for name, value in wanted.items()
            if student_values.get(name) != value]


def config_note(values, hyper: Hyperparameters) -> str:
    """A sentence for a graded run's message when the student's own ``Config()`` (``values``, as their child reported
    it) differs from the course's, which their pieces trained with; empty otherwise, and for anything that is not
    numbers by name."""
    if not isinstance(values, dict):
        return ""
    numbers = {name: value for name, value in values.items() if name in Hyperparameters.model_fields
               and isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)}
    changed = [line for line in differences(numbers, hyper) if line.split(" ", 1)[0] in numbers]
    if not changed:
        return ""
    return (f". Your Config() differs from the course's ({'; '.join(changed)}): graded runs train with the course's "
            "hyperparameters, whatever Config() says")
