"""Project B's B.table: the student's own runs (``runs.npz``), bound to the folder's code by a secret sample.

In B.table's child, each run the table needs is read from ``runs.npz`` and a sample of its updates is re-made with the
folder's own pieces (``remade_by_pieces``): the first update, and ``remade_updates - 1`` of the others drawn from a key
the grader makes of the course secret and the file's bytes before the child starts (``sample_key``,
``sampled_updates``). The judge replays every update with the reference's (``replay_own``), each from the recorded
parameters and Adam's moments, and must land on the recorded run and, at the sampled updates, on the pieces' re-make.
Pieces that are wrong depart at the first update (docs/benchmarks.md, "B.table's binding"), which every sample holds.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import zipfile

import numpy as np

from autograder.checks import Malformed
from autograder.departures import Departure, departure
from autograder.projects._shared.ppo.hyperparameters import course_config, differences
from autograder.projects._shared.ppo.recording import student_config
from autograder.projects._shared.proof import decode, encode, init_agent, parameters
from autograder.projects._shared.replay import Departed, audit, bind, remake
from autograder.projects.b_ablations import oracle
from autograder.projects.b_ablations.proofs import OwnReplayBar, RUNS, details_of, reference_recipe, student_recipe
from autograder.projects.b_ablations.public.settings import student_details
from capstone_check.student import StudentError
from rlkit.cartpole import N_ACTIONS
from rlkit.runproof import load_runs, run_name, unpack


class OlderProof(Malformed):
    """A run of runs.npz in the format before Adam's second moment was kept."""


KEYED_BYTES = 64 * 2**20  # of runs.npz the key reads at most (the reference's 18 runs are 10.8 MB): a student's
# file never makes the grader read or hold more


def sample_key(path, secret: str | None) -> str:
    """In the grader, before B.table's child starts: the key its sample of updates is drawn from, a digest of the
    course secret, the size of ``runs.npz`` and its first ``KEYED_BYTES`` bytes (which the grader reads, never loads);
    without a course secret the sample follows from the file alone, so a student could know it."""
    digest = hashlib.sha256()
    try:
        if path.is_file() and not path.is_symlink():
            with path.open("rb") as file:
                digest.update(f"{path.stat().st_size}\n".encode())
                left = KEYED_BYTES
                while left and (chunk := file.read(min(left, 2**20))):
                    digest.update(chunk)
                    left -= len(chunk)
            runs = digest.hexdigest()
        else:
            runs = "none"
    except OSError:
        runs = "unreadable"
    return hashlib.sha256(f"{secret or ''}\n{runs}".encode()).hexdigest()


def sampled_updates(key: str | None, name: str, seed: int, n_updates: int, k: int) -> list[int]:
    """The updates (from 0) of one run the folder's pieces re-make: the first, and ``k - 1`` of the others drawn
    without replacement by a generator seeded from ``key`` and the run."""
    digest = hashlib.sha256(f"{key or ''}\n{run_name(name, seed)}".encode()).digest()
    others = np.random.default_rng(int.from_bytes(digest[:16], "little")).choice(
        np.arange(1, n_updates), size=min(k, n_updates) - 1, replace=False)
    return [0, *sorted(int(u) for u in others)]


def skipped_update(c: dict, name: str):
    """What an update of setting ``name`` draws and counts that ``remake`` does not make: one permutation of the
    batch per epoch (the README's order of random draws) and its Adam steps."""
    epochs = c["epochs"] if details_of(name)["multiple_epochs"] else 1

    def skip(rng, batch_size: int, optimizer) -> None:
        for _ in range(epochs):
            rng.permutation(batch_size)
        optimizer.t += epochs * c["minibatches"]
    return skip


def own_runs(student, names: list[str], seed: int, bar, key: str | None) -> dict:
    """In B.table's child: the proofs of the student's own runs of ``names`` on ``seed`` (from ``runs.npz``, as the
    harness wrote them on the student's machine), as text; refused unless ``Config()``, which they trained with, holds
    the course's hyperparameters (the judge replays them with the course's)."""
    changed = differences(student_config(student), bar.hyperparameters)
    if changed:
        raise StudentError(f"the grader replays your runs with the course's hyperparameters, and your Config() differs:"
                           f" {'; '.join(changed)}. Set Config back to the course's values and run `python "
                           "ablation.py` again", "invalid")
    path = student.folder / RUNS
    if not path.is_file():
        raise StudentError(f"expected {RUNS} beside ablation.py: `python ablation.py` writes it with results.json, "
                           "and the grader replays your runs from it", "missing")
    try:
        runs = load_runs(path)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        raise StudentError(f"{RUNS} cannot be read ({exc}); run `python ablation.py` again", "invalid") from None
    missing = [name for name in names if run_name(name, seed) not in runs]
    if missing:
        raise StudentError(f"{RUNS} holds no run of {', '.join(missing)} on seed {seed}; run `python ablation.py` "
                           "again so that it holds every run of your table", "missing")
    return {"seed": seed, "settings": {
        name: {"seed": seed, "setting": name, "proof": base64.b64encode(runs[run_name(name, seed)]).decode("ascii"),
               **remade_by_pieces(student, name, seed, runs[run_name(name, seed)], bar, key)}
        for name in names}}


def remade_by_pieces(student, name: str, seed: int, proof: bytes, bar, key: str | None) -> dict:
    """In B.table's child: what the folder's own pieces make of the sampled updates of one recorded run
    (``sampled_updates``), each from the state the judge's replay starts it from (``replay.remake``), as
    {"remade": text}; nothing for a proof the judge will refuse as malformed anyway. The judge requires its replay of
    each of those updates to land on this too, so runs made by other pieces (a classmate's) earn nothing whatever the
    folder's pieces are."""
    try:
        c, snapshots, moments, actions = own_proof(proof, seed, name, bar)
    except OlderProof as exc:
        raise StudentError(str(exc), "invalid") from None
    except Malformed:
        return {}
    config = course_config(student, bar.hyperparameters)
    recipe = student_recipe(student, config, student_details(student, details_of(name)), bar.n_updates)
    only = sampled_updates(key, name, seed, bar.n_updates, bar.remade_updates)
    return {"remade": encode(remake(snapshots, actions, seed, recipe, moments, only, skipped_update(c, name)))}


def unpacked_own(run_: dict, seed: int, bar) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray]:
    """(the course's hyperparameters, snapshots, Adam's moments (m then v), actions) of one of the student's own runs,
    or Malformed."""
    if not isinstance(run_, dict) or run_.get("seed") != seed:
        raise Malformed("one seed's run is not that seed's")
    try:
        proof = base64.b64decode(str(run_.get("proof")), validate=True)
    except (ValueError, binascii.Error) as exc:
        raise Malformed(f"the proof of a run in {RUNS} cannot be read: {exc}") from None
    return own_proof(proof, seed, run_.get("setting"), bar)


def own_proof(proof: bytes, seed: int, setting, bar) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray]:
    """``unpacked_own`` of a proof's bytes, as ``runs.npz`` holds them."""
    c = bar.hyperparameters.model_dump()
    try:
        header, snapshots, moments, actions = unpack(proof)
    except ValueError as exc:
        raise Malformed(f"the proof of a run in {RUNS} cannot be read: {exc}") from None
    size = parameters(init_agent(np.random.default_rng(0), c["hidden"])).size
    wanted = {"seed": seed, "setting": setting, "updates": bar.n_updates, "parameters": size,
              "steps": bar.n_steps, "envs": bar.num_envs}
    wrong = [key for key, value in wanted.items() if header.get(key) != value]
    if wrong or actions.max(initial=0) >= N_ACTIONS:
        raise Malformed(f"a run in {RUNS} is not the one the table needs (its {', '.join(wrong) or 'actions'}): "
                        f"expected {bar.n_updates} updates of {bar.num_envs} x {bar.n_steps} steps with {size} "
                        "parameters")
    if moments.shape[1] != 2 * size:
        raise OlderProof(f"{RUNS} holds Adam's first moment alone, as the kit's earlier rlkit wrote it; run `python "
                         "ablation.py` again so that it holds both moments")
    return c, snapshots, moments, actions


def replay_own(run_: dict, seed: int, bar: dict) -> tuple[list, Departure | None]:
    """``replay`` for one of the student's own runs: the judge's episodes, or the sentence naming the departure.
    Every update is replayed from the student's parameters and Adam's m before it, with Adam's v the judge's own
    (carried from zero, so the recorded v steers nothing), and must land on the recorded run. Then each update of the
    sample (drawn here again from the grader's key, whatever the child says) is made again from the recorded state,
    v included, and must land on what the folder's pieces made of it in the child (``remade_by_pieces``)."""
    bar = OwnReplayBar.model_validate(bar)
    c, snapshots, moments, actions = unpacked_own(run_, seed, bar)
    name = run_.get("setting")
    if name != "baseline" and name not in oracle.DETAILS:
        raise Malformed("a run names no setting of the ablation")
    only = sampled_updates(bar.key, name, seed, bar.n_updates, bar.remade_updates)
    remade = decode(run_.get("remade"), (len(only), 2 * snapshots.shape[1]))
    if remade is None:
        raise Malformed(f"the re-run did not hand back what your pieces make of the sampled updates of {name}'s run")
    recipe = reference_recipe(c, details_of(name), bar.n_updates)
    try:
        episodes = audit(snapshots, actions, seed, recipe, bar.replay_tolerance, moments[:, :snapshots.shape[1]],
                         bar.moment_tolerance)
        bind(snapshots, actions, seed, recipe, moments, dict(zip(only, remade)),
             (bar.pieces_tolerance, bar.pieces_moment_tolerance), skipped_update(c, name))
        return episodes, None
    except Departed as exc:
        if exc.what.startswith("pieces"):
            return [], pieces_departure(exc, bar)
        return [], departure(exc, bar.n_updates, bar.replay_tolerance, bar.moment_tolerance)


def pieces_departure(exc: Departed, bar) -> Departure:
    """The departure of a run in runs.npz whose update the folder's own pieces do not make as the reference does."""
    gap = (f"parameters {exc.gap:.3g} away from" if exc.what == "pieces" else
           f"Adam's second moment {exc.gap:.3g} (relative) away from")
    most = bar.pieces_tolerance if exc.what == "pieces" else bar.pieces_moment_tolerance
    return Departure(update=exc.update, of=bar.n_updates, how=f"your details.py and ppo.py, run by the grader from "
                     f"your recorded run, made {gap} the reference's update (tolerance {most:g})")
