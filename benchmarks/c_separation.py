"""Project C: how far apart faulty and healthy runs lie on each diagnostic the reference's ``diagnose`` uses, over
many fresh seeds, and how many runs the reference misclassifies.

    .venv/bin/python -m benchmarks.c_separation --seeds 20 [--first 2000] [--extra 7,8,9] [--jobs 2] [--keep DIR]

Each seed trains the eight runs the grader makes for one seed (every fault at two severities, a healthy PPO and a
healthy DQN). For each statistic, it prints the range over the runs it should flag and over the runs it should pass,
and the margin: the gap between the two ranges (negative if they overlap).
"""

from __future__ import annotations

import argparse
import importlib.util
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from autograder import run_cache
from autograder.projects.c_diagnosis import fresh, run_plan

ROOT = Path(__file__).resolve().parent.parent


def reference():
    spec = importlib.util.spec_from_file_location("diagnostics", ROOT / "solutions/C_diagnosis/diagnostics.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def statistics(ref, log) -> dict:
    """The numbers the reference's ``diagnose`` compares with its thresholds."""
    late = ref.late_half(log)
    if "q_values" in log:
        q_all = log["q_values"][np.arange(len(late)), log["actions"]]
        spikes = [ref.td_error_stats(log["td_errors"][now], q_all[now])["relative"]
                  for u in np.unique(log["update"][late]) for now in [log["update"] == u]]
        q = q_all[late]
        return {"DQN: largest per-update TD error / |Q| (late half)": max(spikes),
                "DQN: TD error / |Q| (late half, pooled)": ref.td_error_stats(log["td_errors"][late], q)["relative"],
                "DQN: mean Q / mean MC return (late half)": ref.q_overestimation(q, log["mc_returns"][late],
                                                                                float(log["gamma"]))["ratio_mc"],
                "DQN: return drop after the peak": ref.return_drop(ref.return_curve(log))}
    return {"PPO: mean entropy (nats)": float(np.mean(ref.policy_entropy(log["logits"]))),
            "PPO: explained variance (late half)": ref.explained_variance(log["values"][late], log["returns"][late])}


# statistic -> (the label it flags, the other labels it is compared against, which side is faulty)
USED = {"PPO: mean entropy (nats)": ("saturated_policy", "below"),
        "PPO: explained variance (late half)": ("untrained_critic", "below"),
        "DQN: largest per-update TD error / |Q| (late half)": ("small_replay_buffer", "above")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--extra", default="", help="more seeds, comma-separated (e.g. the course's public seeds)")
    parser.add_argument("--keep", help="keep the trained runs in this folder and reuse those already there")
    args = parser.parse_args()
    if args.keep:
        Path(args.keep).mkdir(parents=True, exist_ok=True)
        run_cache.keep_in(fresh.KIND, Path(args.keep))
    ref = reference()
    seeds = list(range(args.first, args.first + args.seeds)) + [int(s) for s in args.extra.split(",") if s]
    with ThreadPoolExecutor(args.jobs) as pool:
        paths = list(pool.map(fresh.fresh_logs, seeds))
    rows, wrong = [], []
    for seed, path in zip(seeds, paths):
        for run, log in zip(run_plan.fresh_plan(seed), fresh.unbundle(path)):
            label = ref.diagnose(log)
            rows.append((run, statistics(ref, log)))
            if label != run.label:
                wrong.append(f"seed {seed}: {run.label} (severity {run.severity}) labelled {label}")
    print(f"{len(rows)} runs from {len(seeds)} seeds ({', '.join(map(str, seeds))})\n")
    print("| statistic | runs it must flag | range | runs it must pass | range | margin |")
    print("|---|---|---|---|---|---|")
    for name, (flagged, side) in USED.items():
        bad = [s[name] for r, s in rows if name in s and r.label == flagged]
        good = [s[name] for r, s in rows if name in s and r.label != flagged and
                not (flagged != "saturated_policy" and r.label == "saturated_policy")]
        margin = min(good) - max(bad) if side == "below" else min(bad) - max(good)
        print(f"| {name} | {flagged} ({len(bad)}) | {min(bad):.3f} to {max(bad):.3f} | "
              f"others ({len(good)}) | {min(good):.3f} to {max(good):.3f} | {margin:.3f} |")
    print("\nnot used by diagnose, for the record:")
    for name in ("DQN: TD error / |Q| (late half, pooled)", "DQN: mean Q / mean MC return (late half)",
                 "DQN: return drop after the peak"):
        for label in ("small_replay_buffer", "healthy"):
            values = [s[name] for r, s in rows if name in s and r.label == label]
            print(f"  {name}, {label}: {min(values):.3f} to {max(values):.3f} (median {np.median(values):.3f})")
    print(f"\nmisclassified by the reference diagnose: {len(wrong)} of {len(rows)}")
    for line in wrong:
        print("  " + line)


if __name__ == "__main__":
    main()
