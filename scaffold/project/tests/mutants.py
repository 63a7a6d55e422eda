"""Project Z's planted bugs, each naming the check that must catch it, and its correct implementations written
differently, which must keep full marks on the checks they name (both graded by tests/test_mutants.py)."""

from tests.support.planted import Equivalent, Mutant

MUTANTS = [
    Mutant("the discount applied to the reward too", "Z_returns", "returns.py",
           "rewards[t] + gamma * following", "gamma * (rewards[t] + following)", "Z.returns"),
    Mutant("the critic stepped up the loss's gradient", "Z_returns", "returns.py",
           "    optimizer.step(grads)\n", "    optimizer.step([-g for g in grads])\n", "Z.value_step"),
]

EQUIVALENT = [
    Equivalent("the discounted tail added before the reward", "Z_returns", "returns.py",
               "following = rewards[t] + gamma * following", "following = gamma * following + rewards[t]",
               ("Z.returns",)),
]
