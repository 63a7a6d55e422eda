"""Project B, part 2: the ablation. Baseline plus one detail flipped at a time, three seeds each, one number per run.

Run it with ``python ablation.py``: it trains every (setting, seed) pair in parallel processes, prints the table,
writes ``results.json``, ``runs.npz`` (each run's proof: the grader replays your runs update by update from it and
recomputes your table's scores, so hand both in) and ``ablation.png``. Choose your five
details in ``ablated()`` first; fill in ``conclusion()`` from what you measured.
"""

import json
from concurrent.futures import ProcessPoolExecutor
from dataclasses import fields, replace
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from details import Details, train
from rlkit.cartpole import make_envs
from rlkit.runproof import RunRecorder, run_name, save_runs

# ---------------------------------------------------------------- given: the course's budget and seeds (course.yml)

NUM_ENVS, N_STEPS, N_UPDATES = 64, 32, 60  # samples per update 64 x 32; Project A's 60 updates
SEEDS = (7, 8, 9)  # the public seeds; the grader re-runs your five ablations with its own seeds as well
RESULTS = Path(__file__).with_name("results.json")
RUNS = Path(__file__).with_name("runs.npz")

# ---------------------------------------------------------------- yours: the five details you ablate, and your finding



def ablated() -> tuple:
    """The five different details (field names of ``Details``) you ablate."""
    # YOUR CODE HERE
    raise NotImplementedError()


def conclusion() -> tuple:
    """The one or more of your ablated details that, by your table, change the median beyond the seed spread."""
    # YOUR CODE HERE
    raise NotImplementedError()


# ---------------------------------------------------------------- yours: the statistics


def setting(name: str) -> Details:
    """The details of one setting: ``"baseline"`` is ``Details()``; any other name is a field of ``Details``,
    flipped from its default, everything else left at the default."""
    # YOUR CODE HERE
    raise NotImplementedError()


def training_score(log) -> float:
    """The metric: the mean over updates of each update's ``episode_return``, skipping updates in which no episode
    ended (their entry is NaN). Unlike the final return, it does not saturate at CartPole's 500."""
    # YOUR CODE HERE
    raise NotImplementedError()


def summarize(scores: dict) -> dict:
    """``scores`` maps a setting to its list of per-seed scores; return, per setting, its median, min and max over
    the seeds: ``{"baseline": {"median": ..., "min": ..., "max": ...}, ...}``."""
    # YOUR CODE HERE
    raise NotImplementedError()


def matters(scores: dict, name: str) -> bool:
    """The chapter's bar for one factor: flipping ``name`` moves the median by more than the seed spread, the larger
    of the two settings' max - min: |median(name) - median(baseline)| > max(range(name), range(baseline))."""
    # YOUR CODE HERE
    raise NotImplementedError()


# ---------------------------------------------------------------- given: the harness


def run_one(job) -> tuple[float, bytes]:
    """Train one (setting, seed) pair from scratch: its score and its proof (``rlkit.runproof``). One BLAS thread,
    as in the grader: a matrix product split across threads rounds differently, and training amplifies it."""
    name, seed = job
    recorder = RunRecorder(name, seed)
    with threadpool_limits(limits=1):
        _, log = train(make_envs(NUM_ENVS), N_UPDATES, N_STEPS, seed, details=setting(name), on_update=recorder)
    return training_score(log), recorder.packed()


def run_ablation(which=None, seeds=SEEDS, workers: int = 2) -> dict:
    """Scores of the baseline and of each ablated detail, per seed: ``{setting: [score per seed]}``; every run's
    proof goes to ``runs.npz`` (runs already there that these replace are overwritten, others kept)."""
    from tqdm.auto import tqdm

    names = ["baseline", *(ablated() if which is None else which)]
    jobs = [(name, seed) for name in names for seed in seeds]
    with ProcessPoolExecutor(workers) as pool:
        done = list(tqdm(pool.map(run_one, jobs), total=len(jobs), desc="ablation runs", unit="run"))
    save_runs(RUNS, {run_name(*job): proof for job, (_, proof) in zip(jobs, done)})
    return {name: [score for score, _ in done[i * len(seeds):(i + 1) * len(seeds)]] for i, name in enumerate(names)}


def save_results(scores: dict, path: Path = RESULTS) -> None:
    """The table the grader checks against the runs of ``runs.npz``, replayed on its side, on the public seeds."""
    path.write_text(json.dumps({"seeds": list(SEEDS), "budget": [NUM_ENVS, N_STEPS, N_UPDATES],
                                "scores": scores, "summary": summarize(scores)}, indent=1))


def print_table(scores: dict) -> None:
    base = scores["baseline"]
    print(f"{'setting':24s} {'median':>8s} {'min':>8s} {'max':>8s} {'change':>8s} {'spread':>8s}  matters")
    for name, row in summarize(scores).items():
        spread = max(np.ptp(scores[name]), np.ptp(base))
        change = row["median"] - np.median(base)
        verdict = "" if name == "baseline" else ("yes" if matters(scores, name) else "no")
        print(f"{name:24s} {row['median']:8.1f} {row['min']:8.1f} {row['max']:8.1f} {change:+8.1f} {spread:8.1f}  "
              f"{verdict}")


if __name__ == "__main__":
    from rlkit.plots import ablation_figure

    scores = run_ablation()
    save_results(scores)
    print_table(scores)
    ablation_figure(scores, conclusion()).savefig(Path(__file__).with_name("ablation.png"), dpi=120)
