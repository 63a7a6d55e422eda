"""Planted bugs: each edits the reference once and names the check that must catch it.

A mutant is (name, project folder, module, old text, new text, check id). The text must occur exactly once in the
reference, so a mutant that stops applying after a refactor fails loudly instead of testing nothing.
"""

from typing import NamedTuple


class Mutant(NamedTuple):
    name: str
    folder: str
    module: str
    old: str
    new: str
    check: str


D = [
    Mutant("sample std instead of population std", "D_grpo", "grpo.py",
           "return (r - r.mean()) / (r.std() + 1e-8)", "return (r - r.mean()) / (r.std(ddof=1) + 1e-8)", "D.weights"),
    Mutant("flipped KL sign", "D_grpo", "grpo.py",
           "return r - beta * np.log(p / p_ref)", "return r + beta * np.log(p / p_ref)", "D.kl_penalty"),
    Mutant("leave-one-out divides by K", "D_grpo", "grpo.py",
           "return r - (r.sum() - r) / (K - 1)", "return r - (r.sum() - r) / K", "D.weights"),
    Mutant("leave-one-out keeps the sample in its own baseline", "D_grpo", "grpo.py",
           "return r - (r.sum() - r) / (K - 1)", "return r - r.sum() / K", "D.enumeration"),
    Mutant("clip applied on the wrong side", "D_grpo", "grpo.py",
           "clipped = ((A > 0) & (rho > 1 + eps)) | ((A < 0) & (rho < 1 - eps))",
           "clipped = ((A < 0) & (rho > 1 + eps)) | ((A > 0) & (rho < 1 - eps))", "D.clip_gradient"),
    Mutant("missing 1/K in the gradient", "D_grpo", "grpo.py",
           "np.where(clipped, 0.0, rho * A) / len(ys)", "np.where(clipped, 0.0, rho * A)", "D.clip_gradient"),
    Mutant("ratio against the current policy (stale pi_old)", "D_grpo", "grpo.py",
           "clipped_surrogate_gradient(pi[x], pi_old[x], ys, A, eps)",
           "clipped_surrogate_gradient(pi[x], pi[x], ys, A, eps)", "D.grpo_step"),
    Mutant("hard-coded price of the exploit", "D_grpo", "grpo.py",
           "    logits_ref, rewards = np.asarray(logits_ref, dtype=float), np.asarray(rewards, dtype=float)\n",
           "    return 0.25\n", "D.price_exploit"),
    Mutant("a stabilizer of 1e-2 instead of 1e-8", "D_grpo", "grpo.py",
           "return (r - r.mean()) / (r.std() + 1e-8)", "return (r - r.mean()) / (r.std() + 1e-2)",
           "D.chapter_tables"),
    Mutant("baseline that excludes the sample at K = 1", "D_grpo", "grpo.py",
           "    return (r - r.mean()) / (r.std() + 1e-8)",
           "    return r if len(r) == 1 else (r - r.mean()) / (r.std() + 1e-8)", "D.k_sweep"),
    Mutant("beta ignored by the step", "D_grpo", "grpo.py",
           "r = kl_penalized_reward(reward(x, ys), pi_old[x, ys], PI_REF[x, ys], beta)",
           "r = kl_penalized_reward(reward(x, ys), pi_old[x, ys], PI_REF[x, ys], 0.0)", "D.beta_sweep"),
]

ALL = D
