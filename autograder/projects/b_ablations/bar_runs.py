"""B.bar's runs: the reference's own runs of every setting on a grading seed, trained once in the grader, and a secret
sample of their updates that the folder's pieces must make again.

B.bar grades a submission's choice of details on runs made with its pieces. Pieces that make the reference's
updates make the reference's runs, up to rounding, so the grader makes those runs itself, once for every submission:
each grading seed's runs (the baseline and every detail flipped), trained where no student code runs, with the
judge's recipe (``proofs.reference_recipe``) and the course's hyperparameters. They are made once per course and
machine and kept in the run cache (``autograder.run_cache``): each run's score and, for a sample of its updates, the
state before and after each (``_shared.ppo.reference_runs``). The sample is the first update and ``remade_updates -
1`` others drawn from the course secret, the seed and the setting (``sampled_updates``), no two of them adjacent, so
that no state the child is handed is one it is asked to make.

The recipe (``grader_recipe``) takes the policy's log-softmax in the logits' float32 (``PRECISION``), as the reference
solution does, so that on any machine the grader's runs are the reference solution's own runs there, bit for bit:
rounding apart (the judge's float64 log-softmax moves a weight by 6e-8 at the first update), a run grows over 60 updates
into another path of the same chance, and a conclusion's grade would then hang on which of the two the grader took.

B.bar's child is handed the states before the sampled updates of the settings its row grades, never the states after
nor the scores, and makes those updates again with the folder's pieces (``remade``), the first from the pieces' own
init; the judge compares what it made with the states after (``departed``). Nothing is trained twice: the grader's
runs are made once for every submission, and a submission costs its child's sampled updates alone.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from autograder import run_cache
from autograder.checks import Malformed, pairs
from autograder.departures import departure
from autograder.projects._shared.ppo import reference_runs as sampled
from autograder.projects._shared.ppo.edges import alternatives
from autograder.projects._shared.ppo.hyperparameters import course_config
from autograder.projects._shared.ppo.recording import ReplayBar, per_update_returns
from autograder.projects._shared.proof import decode, encode
from autograder.projects._shared.replay import Departed
from autograder.projects.b_ablations import oracle, proofs
from autograder.projects.b_ablations.catalogue import DETAILS
from autograder.projects.b_ablations.public.settings import student_details
from autograder.projects._shared.public.ppo_remade import OtherActions, made_updates
from capstone_check.student import StudentError
from rlkit.runproof import load, m_gaps, parameters, v_gaps

KIND = "b-bar-runs"  # the run cache's folder of these runs
SETTINGS = ["baseline", *DETAILS]
PRECISION = np.float32  # the log-softmax's in the grader's runs: the reference solution's, whose runs they are


def sample_key(secret: str | None) -> str:
    """The key B.bar's samples are drawn from: a digest of the course secret (none: the sample follows from the seed
    and the setting alone, as anyone reading the kit could work out)."""
    return hashlib.sha256(f"B.bar\n{secret or ''}".encode()).hexdigest()


def sampled_updates(key: str | None, seed: int, setting: str, n_updates: int, k: int) -> list[int]:
    """The updates (from 0) of the run of ``setting`` on ``seed`` that a student's pieces make again: the first, and
    ``k - 1`` others drawn from ``key``, the seed and the setting, none of them the second and no two adjacent (the
    state before update t + 1 is the state after update t), as many as fit."""
    k = max(1, min(k, (n_updates + 1) // 2))
    digest = hashlib.sha256(f"{key or ''}\n{seed}\n{setting}".encode()).digest()
    drawn = np.random.default_rng(int.from_bytes(digest[:16], "little")).choice(
        np.arange(2, n_updates - k + 2), size=k - 1, replace=False)
    return [0, *(int(u) + i for i, u in enumerate(sorted(drawn)))]  # spread: each gap at least 2


class RunsBar(ReplayBar):
    """What of B.bar's bar its runs depend on."""

    remade_updates: int


def grader_recipe(c: dict, setting: str, n_updates: int):
    """The grader's recipe for the run of ``setting``: the judge's, in the reference solution's precision."""
    return proofs.reference_recipe(c, proofs.details_of(setting), n_updates, PRECISION)


def reference(seed: int, bar, key: str | None) -> Path:
    """The run cache's file of ``seed``'s runs under ``bar`` (B.bar's), trained now if it is not there."""
    plain = RunsBar(**{name: getattr(bar, name) for name in RunsBar.model_fields}).model_dump_json()
    depends_on = f"{run_cache.code_digest(Path(__file__).parent)}/{seed}/{plain}/{key or ''}"
    return run_cache.kept(KIND, depends_on, __name__, [str(seed), plain], key, _loads)


def loaded(path) -> tuple[dict, dict]:
    """(per setting its spec: sampled updates, Adam's step counts, random states and, in the grader's file, score;
    the arrays by ``<setting>.<name>``) of a file of runs."""
    with np.load(path, allow_pickle=False) as files:
        arrays = {name: files[name] for name in files.files}
    return json.loads(arrays.pop("spec").tobytes().decode()), arrays


def _loads(path: Path) -> bool:
    try:
        spec, arrays = loaded(path)
        return set(spec) == set(SETTINGS) and all(f"{s}.after" in arrays for s in SETTINGS)
    except Exception:  # noqa: BLE001 - a damaged file of any kind is made again
        return False


def child_inputs(seed: int, bar, key: str | None) -> str:
    """``prepare``: the file B.bar's child is handed for ``seed``, made once beside the grader's: every setting's
    states before its sampled updates, step counts, random states and actions; no state after and no score."""
    path = reference(seed, bar, key)
    out = path.with_name(f"{path.stem}.child.npz")
    if not out.exists():
        spec, arrays = loaded(path)
        handed = {name: array for name, array in arrays.items() if not name.endswith(".after")}
        plain = {s: {field: entry[field] for field in ("updates", "t", "rng")} for s, entry in spec.items()}
        run_cache.written(str(out), {**handed, "spec": np.frombuffer(json.dumps(plain).encode(), np.uint8)})
    return str(out)


def run_of(spec: dict, arrays: dict, setting: str, bar) -> dict:
    """The sampled run of ``setting`` as ``made_updates`` follows it."""
    entry = spec[setting]
    shape = (max(entry["updates"]) + 1, bar.n_steps, bar.num_envs)
    actions = np.unpackbits(arrays[f"{setting}.actions"])[:int(np.prod(shape))].reshape(shape)
    return {**entry, "before": arrays[f"{setting}.before"], "actions": actions}


def remade(student, inputs: str, settings: list[str], seed: int, bar) -> dict:
    """In B.bar's child: per setting, what the folder's pieces make of its sampled updates on ``seed``, each from
    the reference's state before it (the first from the pieces' own init): {"init": the initial weights, "after":
    the parameters and Adam's m and v after each}, or, in place of "after", "actions": the update at which an action
    was not the run's."""
    spec, arrays = loaded(inputs)
    config = course_config(student, bar.hyperparameters)
    out = {}
    for setting in settings:
        recipe = proofs.student_recipe(student, config, student_details(student, proofs.details_of(setting)),
                                       bar.n_updates)
        try:
            out[setting] = remade_run(recipe, run_of(spec, arrays, setting, bar), seed, bar.model_dump())
        except (AttributeError, TypeError, ValueError, KeyError, IndexError) as exc:
            raise StudentError(f"under {setting}, your pieces handed the course's loop what it cannot use ({exc}); "
                               "make_optimizer should return rlkit's Adam and ppo_update update the agent's arrays "
                               "in place", "invalid") from None
    return out


def remade_run(recipe, run: dict, seed: int, bar: dict) -> dict:
    """``remade``'s entry for one run, made with ``recipe`` (the student's pieces under its setting)."""
    started = np.random.default_rng(seed)
    agent = recipe.init(started)
    optimizer, init, made = recipe.optimizer(agent), parameters(agent), []
    if init.size * 3 != run["before"].shape[1]:
        raise StudentError(f"init_agent makes {init.size} weights where the course's network has "
                           f"{run['before'].shape[1] // 3}", "invalid")

    def learn(segment, rng):
        advantages, returns = recipe.advantages(segment)
        recipe.update(agent, optimizer, recipe.batch(segment, advantages, returns), rng)

    try:
        for _ in made_updates(run, bar, seed, agent, optimizer, recipe.lr, learn, started):
            made.append(sampled.state(agent, optimizer))
    except OtherActions as exc:
        return {"init": encode([init]), "actions": exc.update}
    return {"init": encode([init]), "after": encode(made)}


def scored(made: list, ctx, settings: list[str]) -> tuple[dict, list[tuple[str, str]]]:
    """In the judge: ({setting: the reference's score per seed}, (the run as a message names it, its departure) of
    every run whose sampled updates the folder's pieces did not make as the reference did)."""
    bar, scores, departed = ctx.bar, {name: [] for name in settings}, []
    for seed, by_setting in pairs(ctx.seeds, made, "seeds"):
        if not isinstance(by_setting, dict) or list(by_setting) != settings:
            raise Malformed(f"the re-make of one seed does not hold the settings {settings}")
        spec, arrays = loaded(reference(seed, bar, ctx.key))
        for name in settings:
            scores[name].append(float(spec[name]["score"]))
            found = departed_at(by_setting[name], spec[name], arrays, name, seed, bar)
            if found:
                departed.append((f"the {name} run of {ctx.seed_shown(seed)}",
                                 departure(found, bar.n_updates, bar.replay_tolerance, bar.moment_tolerance)))
    return scores, departed


def departed_at(made, entry: dict, arrays: dict, setting: str, seed: int, bar) -> Departed | None:
    """Where the pieces' re-make of the run of ``setting`` on ``seed`` (``remade``'s entry) first leaves the
    reference's run, or None."""
    before, after = arrays[f"{setting}.before"], arrays[f"{setting}.after"]
    size = before.shape[1] // 3
    init = decode(made.get("init") if isinstance(made, dict) else None, (1, size))
    if init is None:
        raise Malformed(f"the re-make of {setting} did not hand back its initial weights")
    gap = np.abs(init[0].astype(float) - before[0][:size])
    if not gap.max() <= bar.replay_tolerance:
        return Departed(1, float(np.nan_to_num(gap.max(), nan=np.inf)), 0, "initial weights")
    if "actions" in made:
        claimed = made["actions"]
        if isinstance(claimed, bool) or not isinstance(claimed, int) or not 1 <= claimed <= bar.n_updates:
            raise Malformed(f"the re-make of {setting} named no update of its run")
        return Departed(claimed, 0.0, 0, "actions")
    states = decode(made.get("after"), after.shape)
    if states is None:
        raise Malformed(f"the re-make of {setting} did not hand back the state after each of its sampled updates")
    eps = oracle.adam_eps(bar.hyperparameters.model_dump(), proofs.details_of(setting))
    for i, (k, mine) in enumerate(zip(entry["updates"], states.astype(float))):
        missed = miss(mine, after[i].astype(float), size, eps, bar)
        if missed and not settles(mine, i, entry, arrays, setting, seed, bar):
            return Departed(k + 1, missed[1], 0, missed[0])
    return None


def miss(mine: np.ndarray, want: np.ndarray, size: int, eps: float, bar) -> tuple[str, float] | None:
    """("parameters" or "moments", the largest gap) where the state ``mine`` after an update is not within the bar's
    tolerances of ``want`` (parameters, then Adam's m and v, on Adam's own scale), else None."""
    weights = np.abs(mine[:size] - want[:size])
    weights[~np.isfinite(weights)] = np.inf
    if not weights.max() <= bar.replay_tolerance:
        return "parameters", float(weights.max())
    moments = np.concatenate([m_gaps(mine[size:2 * size], want[size:2 * size], want[2 * size:], eps),
                              v_gaps(mine[2 * size:], want[2 * size:], eps)])
    if not moments.max() <= bar.moment_tolerance:
        return "moments", float(moments.max())
    return None


def settles(mine: np.ndarray, i: int, entry: dict, arrays: dict, setting: str, seed: int, bar) -> bool:
    """Whether the reference's ``i``-th sampled update, made again from the grader's state before it with terms on
    the clip's edge taken the other way (``_shared.ppo.edges``), lands where the pieces' did: an honest update whose
    ratio rounds to the other side of the edge does (by up to 1.1e-3 a weight with advantages left unnormalized), as
    the replay of a student's own run settles it."""
    c, details = bar.hyperparameters.model_dump(), proofs.details_of(setting)
    judge = grader_recipe(c, setting, bar.n_updates)
    agent = judge.init(np.random.default_rng(seed))
    optimizer, eps = judge.optimizer(agent), oracle.adam_eps(c, details)
    size = arrays[f"{setting}.before"].shape[1] // 3
    run = run_of({setting: entry}, arrays, setting, bar)
    one = {**run, "updates": [entry["updates"][i]], "before": run["before"][i:i + 1], "t": [entry["t"][i]],
           "rng": [entry["rng"][i]]}
    landed = []

    def learn(segment, rng):
        batch = judge.batch(segment, *judge.advantages(segment))
        state = parameters(agent), optimizer.m.copy(), optimizer.v.copy(), optimizer.t, rng.bit_generator.state
        for flips in alternatives(judge.update(agent, optimizer, batch, rng)):
            load(agent, state[0])
            optimizer.m[...], optimizer.v[...], optimizer.t, rng.bit_generator.state = state[1:]
            judge.update(agent, optimizer, batch, rng, flips)
            if miss(mine, sampled.state(agent, optimizer).astype(float), size, eps, bar) is None:
                landed.append(flips)
                return

    try:
        for _ in made_updates(one, bar.model_dump(), seed, agent, optimizer, judge.lr, learn):
            pass
    except OtherActions:
        return False
    return bool(landed)


def main(seed: int, plain: str, out: str, key: str) -> None:
    """Trains ``seed``'s runs of every setting under the bar ``plain`` (JSON) with the grader's recipe and writes them
    to ``out``; ``key`` (``sample_key``) is read from the standard input."""
    bar = RunsBar.model_validate_json(plain)
    c, n, spec, arrays = bar.hyperparameters.model_dump(), bar.n_updates, {}, {}
    for setting in SETTINGS:
        updates, episodes = sampled_updates(key or None, seed, setting, n, bar.remade_updates), []
        entry, made = sampled.recorded_run(grader_recipe(c, setting, n), seed, bar.model_dump(), updates, n,
                                           episodes)
        spec[setting] = {**entry, "updates": updates,
                         "score": oracle.training_score(per_update_returns(episodes, n))}
        arrays.update({f"{setting}.{name}": array for name, array in made.items()})
    run_cache.written(out, {**arrays, "spec": np.frombuffer(json.dumps(spec).encode(), np.uint8)})


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.stdin.read())
