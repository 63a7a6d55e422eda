"""Whether a located statement is true of a piece's actual output: the piece is run in this process on the check's
own cases and compared with the oracle, and the statement is checked by plain loops written apart from the engine
(``capstone_check.located``), so a wrong statement cannot hide behind the code that made it.

``CASES`` says, per check, how to call the piece on the public seed's cases and what each case's expected output and
features are: one entry per subject the check's statements speak of (their text starts with it)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from autograder.projects._shared.ppo import oracle as ppo_oracle
from autograder.projects._shared.ppo.cases import gae_cases
from autograder.projects.c_diagnosis import oracle as c_oracle, pieces as c_pieces
from autograder.projects.d_grpo import oracle as d_oracle, pieces as d_pieces
from capstone_check.kinds import a_located, c_located, d_located
from capstone_check.located import of_kinds
from capstone_check.student import Student
from tests.support.imports import forgotten_after


def _gae(module, seed, bar):
    for _, _, gamma, lam, r, v, term, trunc in gae_cases(seed):
        yield (module.gae(r.copy(), v.copy(), term.copy(), trunc.copy(), gamma, lam)[0],
               ppo_oracle.gae(r, v, term, trunc, gamma, lam), a_located.features(term, trunc))


def _kl(module, seed, bar):
    for case in d_pieces.kl_cases(seed):
        yield module.kl_penalized_reward(*case), d_oracle.kl_penalized(*case), d_located.kl_features(*case)


def _clip(module, seed, bar):
    for region, *case in d_pieces.clip_cases(seed, bar["cases"]):
        yield (module.clipped_surrogate_gradient(*[np.copy(a) for a in case]), d_oracle.clipped_gradient(*case),
               d_located.clip_features(d_pieces.REGIONS.index(region), *case))


def _weights(name):
    def cases(module, seed, bar):
        reference = d_pieces.WEIGHTS[name][0]
        for r in d_pieces.make_groups(seed, bar["groups"]):
            if name == "leave_one_out_weight" and len(r) < 2:
                continue
            yield getattr(module, name)(r.copy()), reference(r), d_located.group_features(r)
    return cases


def _kinds(name, cases_of, want_of, texts_kinds):
    def cases(module, seed, bar):
        listed = list(cases_of(seed))
        masks = of_kinds([kind for kind, *_ in listed])
        for (_, *args), mask in zip(listed, masks):
            yield getattr(module, name)(*[np.copy(a) for a in args]), want_of(*args), mask
    return cases


CASES = {  # check -> subject -> the piece's (got, want, features) on each case of a seed and bar
    "A.gae": {a_located.SUBJECT: _gae},
    "D.kl_penalty": {d_located.KL_SUBJECT: _kl},
    "D.weights": {d_located.weights_subject(name): _weights(name) for name in d_pieces.WEIGHTS},
    "D.clip_gradient": {d_located.CLIP_SUBJECT: _clip},
    "C.explained_variance": {c_located.SUBJECTS["explained_variance"]: _kinds(
        "explained_variance", c_pieces.variance_cases, c_oracle.explained_variance, c_located.VARIANCE_KINDS)},
    "C.return_drop": {c_located.SUBJECTS["return_drop"]: _kinds(
        "return_drop", c_pieces.curve_cases, c_oracle.return_drop, c_located.CURVE_KINDS)},
    "C.entropy": {c_located.SUBJECTS["policy_entropy"]: _kinds(
        "policy_entropy", c_pieces.entropy_logits_cases, c_oracle.entropy_nats, c_located.ENTROPY_KINDS)},
}


class Piece:
    """A project folder's module, its functions reached by name (``getattr``), loaded as the checker loads a student's
    folder and forgotten afterwards (``tests.support.imports``)."""

    def __init__(self, student: Student):
        self._student = student

    def __getattr__(self, name):
        return self._student.fn(name)


@contextmanager
def loaded(folder: Path, modules: tuple[str, ...]) -> Iterator[Piece]:
    with forgotten_after(modules):
        yield Piece(Student(folder, modules))


def _apart(got, want, tol) -> np.ndarray:
    got, want = np.asarray(got, float), np.asarray(want, float)
    out = np.zeros(want.shape, dtype=bool)
    for index in np.ndindex(want.shape):
        g, w = got[index], want[index]
        if np.isnan(g) and np.isnan(w):
            continue
        out[index] = not (abs(g - w) <= tol * max(1.0, abs(w)))
    return out


def true_of(statement: dict, triples: list, tol: float) -> bool:
    """Whether ``statement`` holds of ``triples`` (got, want, features) of every case."""
    kind = statement["id"].split(".")[-1]
    departures = [_apart(g, w, tol) for g, w, _ in triples]
    if not any(d.any() for d in departures):
        return False
    if "depart only" in statement["text"]:
        feature = next(name for name in triples[0][2] if name.replace(" ", "-") == kind)
        for d, (_, _, features) in zip(departures, triples):
            where = np.broadcast_to(np.asarray(features[feature], dtype=bool), d.shape)
            if (d & ~where).any():
                return False
        return True
    got = [np.asarray(g, float)[d] for (g, _, _), d in zip(triples, departures)]
    want = [np.asarray(w, float)[d] for (_, w, _), d in zip(triples, departures)]
    got, want = np.concatenate(got), np.concatenate(want)
    if kind == "nan":
        return bool(np.all(~np.isfinite(got)))
    if kind == "zero":
        return bool(np.all(np.abs(got) <= tol))
    if kind == "sign":
        return bool(np.all(np.abs(got + want) <= tol * np.maximum(1, np.abs(want))))
    if kind in ("factor", "offset"):
        spread = got / want if kind == "factor" else got - want
        spread = spread[np.abs(want) > 1e-6] if kind == "factor" else spread
        return bool(spread.size and np.ptp(spread) <= 10 * tol * max(1.0, float(np.max(np.abs(spread)))))
    if kind in ("later", "earlier"):
        ahead = kind == "later"
        return all(np.all(np.abs(np.asarray(g, float)[:-1] - np.asarray(w, float)[1:]) <= tol * np.maximum(
            1, np.abs(np.asarray(w, float)[1:]))) if ahead else np.all(np.abs(
                np.asarray(g, float)[1:] - np.asarray(w, float)[:-1]) <= tol * np.maximum(
                1, np.abs(np.asarray(w, float)[:-1]))) for g, w, _ in triples)
    return False  # a relation this check does not know is not taken as true
