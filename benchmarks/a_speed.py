"""Benchmark: how fast the reference PPO trains, and what vectorizing the environments buys.

    .venv/bin/python -m benchmarks.a_speed [--runs 5]

1. Wall time of one full reference run (60 updates of 64 envs x 32 steps), median over --runs.
2. Environment steps per second of the rollout + update loop, vectorized (numpy CartPoleVectorEnv, 64 envs) next to
   the same loop on a single plain CartPole env (same 2048 samples per update), a few updates each.
"""

import argparse
import statistics
import time
from pathlib import Path

import gymnasium as gym

from benchmarks.reference import reference_module
from rlkit.cartpole import make_envs

KIT = Path(__file__).resolve().parent.parent
ppo = reference_module("A_ppo", "ppo")


def timed_train(envs, n_updates: int, n_steps: int, seed: int = 0) -> float:
    started = time.perf_counter()
    ppo.train(envs, n_updates, n_steps, seed)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    walls = [timed_train(make_envs(64), 60, 32, seed) for seed in range(args.runs)]
    print(f"one reference run (60 updates x 64 envs x 32 steps): median {statistics.median(walls):.2f} s "
          f"(min {min(walls):.2f}, max {max(walls):.2f}) over {args.runs} runs")
    updates = 5
    vectorized = 64 * 32 * updates / timed_train(make_envs(64), updates, 32)
    single_env = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")])
    plain = 2048 * updates / timed_train(single_env, updates, 2048)
    print(f"rollout + update, environment steps per second: vectorized (64 envs) {vectorized:,.0f}; "
          f"single plain env {plain:,.0f}; speed-up {vectorized / plain:.1f}x")


if __name__ == "__main__":
    main()
