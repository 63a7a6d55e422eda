"""Project C: where each kind of fresh run lies on the statistics its label is graded by, against the fresh runs'
edges (``c_diagnosis/lines.py``, ``EDGES``), to which C.fresh_runs shapes every run: an edge beyond the runs' own range
would make the graded runs milder than any a real run of the kind shows.

    .venv/bin/python -m benchmarks.c_fresh_edges --seeds 7,8,9,101,102,103 [--range 200,240]

Each seed's eight runs come from the run cache (trained there the first time, without a course secret). Per kind
(label and severity) it prints each statistic's range over the seeds and its edge.
"""

from __future__ import annotations

import argparse

import numpy as np

from autograder.projects.c_diagnosis import fresh, lines, oracle, run_plan


def statistics(log: dict) -> dict[str, float]:
    if "q_values" in log:
        return {"largest late update": lines.worst_late_td(log)}
    return {"mean entropy": float(np.mean(oracle.entropy_nats(log["logits"]))),
            "late explained variance": lines.late_variance(log)}


def edge(label: str, statistic: str) -> float:
    gap = {"mean entropy": lines.EDGES.entropy, "late explained variance": lines.EDGES.variance,
           "largest late update": lines.EDGES.td}[statistic]
    return gap.healthy if label == "healthy" or (statistic == "mean entropy" and label == "untrained_critic") \
        else gap.fault


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="7,8,9,101,102,103", help="comma-separated seeds")
    parser.add_argument("--range", help="FIRST,LAST: every seed from FIRST to LAST as well")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",") if s]
    if args.range:
        first, last = map(int, args.range.split(","))
        seeds += list(range(first, last + 1))
    found: dict[tuple, dict[str, list[float]]] = {}
    for seed in seeds:
        for run, log in zip(run_plan.fresh_plan(seed), fresh.unbundle(fresh.fresh_logs(seed))):
            for name, value in statistics(log).items():
                found.setdefault((run.label, run.severity), {}).setdefault(name, []).append(value)
    print(f"{len(seeds)} seeds, {8 * len(seeds)} runs\n")
    print("| kind | statistic | range | edge |\n|---|---|---|---|")
    for (label, severity), stats in sorted(found.items()):
        for name, values in stats.items():
            if label == "saturated_policy" and name == "late explained variance":
                continue  # no edge: the policy's rule decides first
            print(f"| {label.replace('_', ' ')} ({severity}) | {name} | {min(values):.4f} to {max(values):.4f} | "
                  f"{edge(label, name):g} |")


if __name__ == "__main__":
    main()
