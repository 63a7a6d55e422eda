"""Whether a located statement is true of a piece's actual output: the piece is run in this process on the check's
own cases and compared with the oracle, and the statement is checked by plain loops written apart from the engine
(``capstone_check.located``), so a wrong statement cannot hide behind the code that made it.

``CASES`` says, per check, how to call the piece on the public seed's cases and what each case's expected output and
features are: one entry per subject the check's statements speak of (their text starts with it)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import numpy as np

from autograder.projects._shared.ppo import oracle as ppo_oracle
from autograder.projects._shared.ppo.cases import gae_cases
from autograder.projects.c_diagnosis import oracle as c_oracle, pieces as c_pieces
from autograder.projects.a_ppo import pieces as a_pieces, update as a_update
from autograder.projects._shared.ppo.cases import update_case
from autograder.projects.d_grpo import stand_ins as d_stand_ins
from autograder.projects.d_grpo.stand_ins import ORACLE_NAMES
from capstone_check.through import in_place_of, numbers as through_numbers
from autograder.projects.d_grpo import oracle as d_oracle, pieces as d_pieces, price as d_price, steps as d_steps
from autograder.projects.a_ppo.public import located as a_located
from autograder.projects.c_diagnosis.public import located as c_located
from autograder.projects.d_grpo.public import located as d_located
from autograder.projects.a_ppo.public.batch import first_surrogate_call
from capstone_check.located import of_kinds
from capstone_check.student import Student, StudentError
from rlkit.nn import Adam, flatten
from tests.support.imports import forgotten_after


EXACT = " exactly "  # what a statement says when the differences are its feature's entries, all of them and no other

def _copies(args) -> list:
    """Fresh copies of a case's arrays, other arguments as they are (a piece may change what it is handed)."""
    return [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]


def _gae(module, seed, bar):
    for _, _, gamma, lam, r, v, term, trunc in gae_cases(seed):
        yield (module.gae(r.copy(), v.copy(), term.copy(), trunc.copy(), gamma, lam)[0],
               ppo_oracle.gae(r, v, term, trunc, gamma, lam), a_located.features(term, trunc))


def _surrogate(module, seed, bar):
    for *case, _ in a_pieces.surrogate_cases(seed):
        yield (module.clipped_surrogate(*_copies(case))[1], ppo_oracle.clipped_surrogate(*case)[1],
               a_pieces.surrogate_features(*case))


def _objective(module, seed, bar):
    for *case, _ in a_pieces.surrogate_cases(seed):
        yield (np.float64(module.clipped_surrogate(*_copies(case))[0]), ppo_oracle.clipped_surrogate(*case)[0], {})


def _value_entropy(part):
    def cases(module, seed, bar):
        rng = np.random.default_rng(seed)
        values, returns = rng.normal(0, 5, 40), rng.normal(0, 5, 40)
        logits = np.vstack([rng.normal(0, 2, (30, 2)), [[60.0, -60.0], [0.0, 0.0]]])
        if part in ("value", "value_loss"):
            at = 1 if part == "value" else 0
            yield (module.value_loss(values.copy(), returns.copy())[at], ppo_oracle.value_loss(values, returns)[at],
                   {})
        elif part == "entropy_value":
            yield np.float64(module.entropy_bonus(logits.copy())[0]), ppo_oracle.entropy_bonus(logits)[0], {}
        else:
            yield (module.entropy_bonus(logits.copy())[1], ppo_oracle.entropy_bonus(logits)[1],
                   a_located.entropy_row_features(logits))
    return cases


def _step(module, seed, bar):
    for i, (case, theta) in enumerate(zip(d_steps.STEP_CASES, d_steps.step_inputs(seed))):
        K, reward_name = case[:2]
        got = module.grpo_step(theta.copy(), K, d_pieces.REWARDS[reward_name], np.random.default_rng(seed + i),
                               **d_steps.step_kwargs(case, judging=False))
        want = d_steps.reference_step(seed, i, theta, d_steps.step_kwargs(case))
        yield np.asarray(got) - theta, want - theta, d_located.step_features(case)


def _price(module, seed, bar):
    for case, kind in zip(d_price.price_cases(seed), d_price.price_kinds()):
        want = d_oracle.price_exploit(*case)
        yield module.price_exploit(*_copies(case)), want, d_located.price_features(kind, want)


def _price_raised(module, seed):
    """Per row of D.price_exploit: whether the piece raised on it, and the row's features."""
    for case, kind in zip(d_price.price_cases(seed), d_price.price_kinds()):
        try:
            module.price_exploit(*_copies(case))
            raised = False
        except StudentError:
            raised = True
        yield raised, d_located.price_features(kind, d_oracle.price_exploit(*case))


def _step_raised(module, seed):
    """Per case of D.grpo_step: whether the piece raised on it, and the case's features."""
    for i, (case, theta) in enumerate(zip(d_steps.STEP_CASES, d_steps.step_inputs(seed))):
        try:
            module.grpo_step(theta.copy(), case[0], d_pieces.REWARDS[case[1]], np.random.default_rng(seed + i),
                             **d_steps.step_kwargs(case, judging=False))
            raised = False
        except StudentError:
            raised = True
        yield raised, d_located.step_features(case)


# check -> per case, whether the piece raised and the case's features
RAISING = {"D.price_exploit": _price_raised, "D.grpo_step": _step_raised}


def raising_true(check: str, statement: dict, piece, seed: int) -> bool:
    """Whether "your <piece> raises only <where>" holds: it raised on some case, every case it raised on has the
    feature, and, when the statement says "exactly", it raised on each case that has it."""
    feature = statement["id"].split(".raises-")[1]
    rows = list(RAISING[check](piece, seed))
    name = next(n for n in rows[0][1] if n.replace(" ", "-") == feature)
    raised_on = [has for raised, features in rows for has in [bool(features[name])] if raised]
    exact = [raised for raised, features in rows if features[name]]
    return bool(raised_on) and all(raised_on) and (EXACT not in statement["text"] or all(exact))


def _kl(module, seed, bar):
    for case in d_pieces.kl_cases(seed):
        yield module.kl_penalized_reward(*case), d_oracle.kl_penalized(*case), d_located.kl_features(*case)


def _clip(module, seed, bar):
    for region, *case in d_pieces.clip_cases(seed, bar["cases"]):
        yield (module.clipped_surrogate_gradient(*_copies(case)), d_oracle.clipped_gradient(*case),
               d_located.clip_features(d_pieces.REGIONS.index(region), *case))


def _weights(name):
    def cases(module, seed, bar):
        reference = d_pieces.WEIGHTS[name]
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
            yield getattr(module, name)(*_copies(args)), want_of(*args), mask
    return cases


CASES = {  # check -> subject -> the piece's (got, want, features) on each case of a seed and bar
    "A.gae": {a_located.SUBJECT: _gae},
    "A.clip_gradient": {a_located.SURROGATE_SUBJECT: _surrogate, a_located.OBJECTIVE_SUBJECT: _objective},
    "A.value_entropy": {a_located.VALUE_SUBJECT: _value_entropy("value"),
                        a_located.ENTROPY_SUBJECT: _value_entropy("entropy"),
                        a_located.VALUE_LOSS_SUBJECT: _value_entropy("value_loss"),
                        a_located.ENTROPY_VALUE_SUBJECT: _value_entropy("entropy_value")},
    "D.grpo_step": {d_located.STEP_SUBJECT: _step},
    "D.price_exploit": {d_located.PRICE_SUBJECT: _price},
    "D.kl_penalty": {d_located.KL_SUBJECT: _kl},
    "D.weights": {d_located.weights_subject(name): _weights(name) for name in d_pieces.WEIGHTS},
    "D.clip_gradient": {d_located.CLIP_SUBJECT: _clip},
    "C.explained_variance": {c_located.SUBJECTS["explained_variance"]: _kinds(
        "explained_variance", c_pieces.variance_cases, c_oracle.explained_variance, c_located.VARIANCE_KINDS)},
    "C.return_drop": {c_located.SUBJECTS["return_drop"]: _kinds(
        "return_drop", c_pieces.curve_cases, c_oracle.return_drop, c_located.CURVE_KINDS)},
    "C.entropy": {c_located.SUBJECTS["policy_entropy"]: _kinds(
        "policy_entropy", c_pieces.entropy_logits_cases, c_oracle.entropy_nats, c_located.ENTROPY_KINDS)},
    "C.kl_clip": {c_located.SUBJECTS["approx_kl"]: _kinds(
        "approx_kl", lambda seed: [("unchanged" if np.all(n == o) else "changed", n, o)
                                   for n, o, _ in c_pieces.ratio_cases(seed)], c_oracle.approx_kl,
        c_located.RATIO_KINDS)},
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
        if g == w or (np.isnan(g) and np.isnan(w)):  # equal infinities too, as the grader takes them
            continue
        out[index] = not (abs(g - w) <= tol * max(1.0, abs(w)))
    return out


def true_of(statement: dict, triples: list, tol: float) -> bool:
    """Whether ``statement`` holds of ``triples`` (got, want, features) of every case."""
    kind = statement["id"].split(".")[-1]
    departures = [_apart(g, w, tol) for g, w, _ in triples]
    if not any(d.any() for d in departures):
        return False
    if "differ only" in statement["text"] or EXACT in statement["text"]:
        feature = next(name for name in triples[0][2] if name.replace(" ", "-") == kind)
        for d, (_, _, features) in zip(departures, triples):
            where = np.broadcast_to(np.asarray(features[feature], dtype=bool), d.shape)
            if (d & ~where).any() or (EXACT in statement["text"] and (where & ~d).any()):
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
    if kind == "one-minus":
        return bool(got.size >= 2 and np.all(np.abs(got - (1 - want)) <= tol * np.maximum(1, np.abs(want))))
    if kind in ("factor", "offset"):
        spread = got / want if kind == "factor" else got - want
        spread = spread[np.abs(want) > 1e-6] if kind == "factor" else spread
        return bool(spread.size and np.ptp(spread) <= 10 * tol * max(1.0, float(np.max(np.abs(spread)))))
    if kind in ("factor-per-case", "offset-per-case"):
        shown = 0  # cases that show their constant at two departing entries or more
        for (g, w, _), d in zip(triples, departures):
            g, w = np.asarray(g, float)[d], np.asarray(w, float)[d]
            if g.size >= 2:
                shown += 1
                spread = g / w if kind == "factor-per-case" else g - w
                spread = spread[np.abs(w) > 1e-6] if kind == "factor-per-case" else spread
                if np.ptp(spread) > 10 * tol * max(1.0, float(np.max(np.abs(spread)))):
                    return False
        return shown >= 2
    if kind in ("later", "earlier"):
        ahead = kind == "later"
        return all(np.all(np.abs(np.asarray(g, float)[:-1] - np.asarray(w, float)[1:]) <= tol * np.maximum(
            1, np.abs(np.asarray(w, float)[1:]))) if ahead else np.all(np.abs(
                np.asarray(g, float)[1:] - np.asarray(w, float)[:-1]) <= tol * np.maximum(
                1, np.abs(np.asarray(w, float)[:-1]))) for g, w, _ in triples)
    if kind == "nonzero-sum":
        sums = [(float(np.sum(g)), float(np.sum(w)), np.size(w))
                for (g, w, _), d in zip(triples, departures) if d.any()]
        return all(size >= 2 and abs(want) < 1e-6 and abs(have) > tol for have, want, size in sums)
    if kind in ("above", "below"):
        return bool(np.all(np.isfinite(got)) and np.all(got > want if kind == "above" else got < want))
    return False  # a relation this check does not know is not taken as true


def _steps(run, seed: int) -> tuple[list[np.ndarray], bool]:
    """The parameters after each optimizer step of ``run(agent, optimizer, batch, rng)`` on A.update's case, read by
    wrapping the plain Adam's step (apart from the grader's recording optimizer), and whether the run raised."""
    agent, batch = update_case(seed, a_update.RETURN_SCALE)
    params = flatten(agent["actor"]) + flatten(agent["critic"])
    optimizer, after = Adam(params, lr=a_update.UPDATE_LR), []
    plain = optimizer.step

    def step(grads):
        plain(grads)
        after.append(np.concatenate([np.ravel(p) for p in params]).copy())

    optimizer.step = step
    try:
        run(agent, optimizer, batch, np.random.default_rng(seed))
    except StudentError:
        return after, True
    return after, False


def update_course_true(key: str, piece, seed: int, bar: dict) -> bool:
    """Whether A.update's statement ``key`` (where along its Adam steps the update first departs) holds of the
    student's ``ppo_update``."""
    def student(agent, optimizer, batch, rng):
        piece.ppo_update(agent, optimizer, batch, a_update.student_config(piece._student), rng)

    def reference(agent, optimizer, batch, rng):
        ppo_oracle.ppo_update(agent, optimizer, batch, a_update.UPDATE_CONFIG, rng)

    (got, raised), (want, _) = _steps(student, seed), _steps(reference, seed)
    if key == "step-count":
        return not raised and len(got) != len(want)
    first = next((k for k, (g, w) in enumerate(zip(got, want)) if _apart(g, w, bar["tolerance"]).any()), None)
    if raised and first is None and len(got) < len(want):  # every step it made held: it departs at the one it raised in
        first = len(got)
    if (len(got) != len(want) and not raised) or first is None:
        return False
    minibatches = a_update.UPDATE_CONFIG["minibatches"]
    return {"first-step": first == 0, "later-minibatch": 0 < first < minibatches,
            "later-epoch": first >= minibatches}[key]


def _through_outputs(check: str, module, seed: int):
    """(the student's output, the reference's) of every case of a check that may depart through one piece."""
    if check == "A.clip_gradient":
        for case in a_pieces.surrogate_cases(seed):
            yield (through_numbers(module.clipped_surrogate(*_copies(case[:5]))),
                   through_numbers(ppo_oracle.clipped_surrogate(*case[:5])))
        return
    for i, (case, theta) in enumerate(zip(d_steps.STEP_CASES, d_steps.step_inputs(seed))):
        yield (module.grpo_step(theta.copy(), case[0], d_pieces.REWARDS[case[1]], np.random.default_rng(seed + i),
                                **d_steps.step_kwargs(case, False)),
               d_steps.reference_step(seed, i, theta, d_steps.step_kwargs(case)))


THROUGH_REFERENCE = {  # the reference's own piece (never the grader's recorded stand-in), per check and piece
    "A.clip_gradient": ("ppo", {"importance_ratio": lambda new, old: np.exp(new - old)}),
    "D.grpo_step": ("grpo", {piece: getattr(d_oracle, name) for piece, name in ORACLE_NAMES.items()}),
}


def through_true(check: str, statement: dict, piece, seed: int, bar: dict) -> bool:
    """Whether "your <composite> differs only through your `<p>`" holds: with the reference's own ``p`` in place of
    the student's, every case gives the reference's output."""
    name = statement["id"].split(".through-")[1]
    module_name, pieces = THROUGH_REFERENCE[check]
    module = piece._student.module(module_name)
    with in_place_of(module, name, pieces[name]):
        outputs = list(_through_outputs(check, module, seed))
    return all(not _apart(got, want, bar["tolerance"]).any() for got, want in outputs)


def own_lines_true(check: str, statement: dict, piece, seed: int, bar: dict) -> bool:
    """Whether "your <composite> itself differs" holds, with the reference's own pieces (not the recorded
    stand-ins) in place of every one the student's composite calls: some case then still departs ("own-lines"), or
    some call of the named piece takes arguments no call of the reference's composite takes (within 1e-6), and, when
    an argument is named, takes the others of one of them ("passes-<piece>")."""
    module_name, pieces = THROUGH_REFERENCE[check]
    module, calls = piece._student.module(module_name), {name: [] for name in pieces}

    def calling(name):
        def call(*args, **kwargs):
            bound = inspect.signature(pieces[name]).bind(*args, **kwargs)
            bound.apply_defaults()
            calls[name].append(list(bound.arguments.values()))
            return pieces[name](*args, **kwargs)
        return call

    with ExitStack() as stack:
        for name in pieces:
            stack.enter_context(in_place_of(module, name, calling(name)))
        try:
            outputs = list(_through_outputs(check, module, seed))
        except Exception:  # noqa: BLE001 - a composite that raises with the reference's pieces says nothing here
            outputs = []
    if statement["id"].endswith(".own-lines"):
        return any(_apart(np.ravel(got), np.ravel(want), bar["tolerance"]).any() for got, want in outputs)
    name = statement["id"].split(".passes-")[1]
    right = d_stand_ins.recorded_calls(d_steps.STEP_CASES, d_steps.step_inputs(seed), seed,
                                       lambda case: d_steps.step_kwargs(case, judging=False))[name]
    named = re.search(r"passes `[a-z_]+` a `([A-Za-z_]+)`", statement["text"])
    position = list(inspect.signature(pieces[name]).parameters).index(named.group(1)) if named else None

    def near(a, b) -> bool:
        a, b = np.asarray(a, float), np.asarray(b, float)
        return a.shape == b.shape and bool(np.all(np.abs(a - b) <= 1e-6 * np.maximum(1, np.abs(b))))

    for args in calls[name]:
        if any(all(near(a, b) for a, b in zip(args, recorded)) for recorded, _ in right):
            continue
        if position is None or any(not near(args[position], recorded[position]) and all(
                near(a, b) for i, (a, b) in enumerate(zip(args, recorded)) if i != position) for recorded, _ in right):
            return True
    return False


def update_raised_true(key: str, piece, seed: int) -> bool:
    """Whether A.ratio's "your ppo_update raises before/after its first clipped_surrogate call" holds: the student's
    update, run as A.ratio runs it, raises, having made that call or not as said."""
    student, seen = piece._student, {}
    try:
        first_surrogate_call(student, *update_case(seed), lambda: a_update.student_config(student), seen)
    except StudentError:
        return key == a_located.UPDATE_RAISED[bool(seen)][0]
    return False


def judged_statements(check: str, statements: list[dict], piece, seed: int, bar: dict) -> tuple[int, list[str]]:
    """How many of a row's ``statements`` could be replayed here, and the ids of those that do not hold of ``piece``'s
    own output. A "where they differ, they ..." statement speaks of the subject said before it; a subject ``CASES``
    does not replay is skipped."""
    checked, false, subject = 0, [], None
    for statement in statements:
        text, key = statement["text"], statement["id"].split(".")[-1]
        if check == "A.ratio" and key in {k for k, _ in a_located.UPDATE_RAISED.values()}:
            checked += 1
            false += [] if update_raised_true(key, piece, seed) else [statement["id"]]
            continue
        if key == "own-lines" or ".passes-" in statement["id"]:
            checked += 1
            false += [] if own_lines_true(check, statement, piece, seed, bar) else [statement["id"]]
            continue
        if ".through-" in statement["id"]:
            checked += 1
            false += [] if through_true(check, statement, piece, seed, bar) else [statement["id"]]
            continue
        if ".raises-" in statement["id"] and check in RAISING:
            checked += 1
            false += [] if raising_true(check, statement, piece, seed) else [statement["id"]]
            continue
        if check == "A.update" and key in a_located.COURSE:
            checked += 1
            false += [] if update_course_true(key, piece, seed, bar) else [statement["id"]]
            continue
        if not text.startswith("where they differ"):
            subject = next((s for s in CASES.get(check, {}) if text.startswith(s)), None)
        if subject is None:
            continue
        checked += 1
        if not true_of(statement, list(CASES[check][subject](piece, seed, bar)), bar["tolerance"]):
            false.append(statement["id"])
    return checked, false
