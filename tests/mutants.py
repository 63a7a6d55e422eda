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
    Mutant("centred weight that forgets the mean", "D_grpo", "grpo.py",
           "    return r - r.mean()\n", "    return r\n", "D.enumeration"),
    Mutant("clip half-width fixed at 0.2", "D_grpo", "grpo.py",
           "clipped = ((A > 0) & (rho > 1 + eps)) | ((A < 0) & (rho < 1 - eps))",
           "clipped = ((A > 0) & (rho > 1.2)) | ((A < 0) & (rho < 0.8))", "D.clip_gradient"),
    Mutant("epochs ignored", "D_grpo", "grpo.py",
           "    for _ in range(epochs):\n        pi, g = policy(theta)", "    for _ in range(1):\n        pi, g = policy(theta)",
           "D.grpo_step"),
    Mutant("beta ignored by the step", "D_grpo", "grpo.py",
           "r = kl_penalized_reward(reward(x, ys), pi_old[x, ys], PI_REF[x, ys], beta)",
           "r = kl_penalized_reward(reward(x, ys), pi_old[x, ys], PI_REF[x, ys], 0.0)", "D.beta_sweep"),
]

A = [
    Mutant("no terminal mask in GAE", "A_ppo", "ppo.py",
           "delta = rewards[t] + gamma * (1 - terminated[t]) * values[t + 1] - values[t]",
           "delta = rewards[t] + gamma * values[t + 1] - values[t]", "A.gae"),
    Mutant("bootstrapping from the wrong step", "A_ppo", "ppo.py",
           "delta = rewards[t] + gamma * (1 - terminated[t]) * values[t + 1] - values[t]",
           "delta = rewards[t] + gamma * (1 - terminated[t]) * values[t] - values[t]", "A.gae"),
    Mutant("truncation treated as termination", "A_ppo", "ppo.py",
           "delta = rewards[t] + gamma * (1 - terminated[t]) * values[t + 1] - values[t]",
           "delta = rewards[t] + gamma * (1 - (terminated[t] | truncated[t])) * values[t + 1] - values[t]", "A.gae"),
    Mutant("reset steps left in the batch", "A_ppo", "ppo.py",
           "keep = segment.valid", "keep = np.ones_like(segment.valid)", "A.batch"),
    Mutant("ratio as exp(old - new)", "A_ppo", "ppo.py",
           "return np.exp(logp_new - logp_old)", "return np.exp(logp_old - logp_new)", "A.ratio"),
    Mutant("log-probs not shuffled with the minibatch", "A_ppo", "ppo.py",
           'batch["actions"][idx], batch["logp"][idx], adv,', 'batch["actions"][idx], batch["logp"][:len(idx)], adv,',
           "A.ratio"),
    Mutant("min and max swapped in the clipped surrogate", "A_ppo", "ppo.py",
           "objective = np.minimum(rho * advantages", "objective = np.maximum(rho * advantages", "A.clip_gradient"),
    Mutant("clip applied on the wrong side", "A_ppo", "ppo.py",
           "clipped = ((advantages > 0) & (rho > 1 + eps)) | ((advantages < 0) & (rho < 1 - eps))",
           "clipped = ((advantages < 0) & (rho > 1 + eps)) | ((advantages > 0) & (rho < 1 - eps))", "A.clip_gradient"),
    Mutant("clipping the advantage instead of the ratio", "A_ppo", "ppo.py",
           "np.clip(rho, 1 - eps, 1 + eps) * advantages", "rho * np.clip(advantages, -eps, eps)", "A.clip_gradient"),
    Mutant("value-loss gradient sign flipped", "A_ppo", "ppo.py",
           "return 0.5 * (error ** 2).mean(), error / len(values)",
           "return 0.5 * (error ** 2).mean(), -error / len(values)", "A.value_entropy"),
    Mutant("entropy gradient sign flipped", "A_ppo", "ppo.py",
           "return H.mean(), -p * (logp + H[:, None]) / len(logits)",
           "return H.mean(), p * (logp + H[:, None]) / len(logits)", "A.value_entropy"),
    Mutant("no per-minibatch advantage normalization", "A_ppo", "ppo.py",
           "            adv = (adv - adv.mean()) / (adv.std() + 1e-8)\n", "", "A.update"),
    Mutant("a learning rate a thousand times too small", "A_ppo", "ppo.py",
           "lr: float = 2.5e-3", "lr: float = 2.5e-6", "A.bar"),
    Mutant("GAE ignores lambda", "A_ppo", "ppo.py",
           "running = delta + gamma * lam * (1 - (terminated[t] | truncated[t])) * running",
           "running = delta + gamma * (1 - (terminated[t] | truncated[t])) * running", "A.gae"),
    Mutant("returns without the value baseline", "A_ppo", "ppo.py",
           "return advantages, advantages + values[:T]", "return advantages, advantages", "A.gae"),
    Mutant("entropy bonus descended instead of ascended", "A_ppo", "ppo.py",
           "-d_surrogate - config.ent_coef * d_entropy", "-d_surrogate + config.ent_coef * d_entropy", "A.update"),
]

C = [
    Mutant("entropy in bits instead of nats", "C_diagnosis", "diagnostics.py",
           "return -np.sum(np.where(p > 0, p * np.where(p > 0, logp, 0.0), 0.0), axis=1)",
           "return -np.sum(np.where(p > 0, p * np.where(p > 0, logp, 0.0), 0.0), axis=1) / np.log(2)", "C.entropy"),
    Mutant("entropy with 0 log 0 left as NaN", "C_diagnosis", "diagnostics.py",
           "return -np.sum(np.where(p > 0, p * np.where(p > 0, logp, 0.0), 0.0), axis=1)",
           "return -np.sum(p * logp, axis=1)", "C.entropy"),
    Mutant("logit magnitude not centred", "C_diagnosis", "diagnostics.py",
           "return np.mean(np.abs(z - z.mean(axis=1, keepdims=True)), axis=1)",
           "return np.mean(np.abs(z), axis=1)", "C.entropy"),
    Mutant("KL as the mean log-ratio", "C_diagnosis", "diagnostics.py",
           "return float(np.mean(np.expm1(log_rho) - log_rho))", "return float(np.mean(-log_rho))", "C.kl_clip"),
    Mutant("clip fraction of one side only", "C_diagnosis", "diagnostics.py",
           "return float(np.mean(np.abs(rho - 1) > eps))", "return float(np.mean(rho - 1 > eps))", "C.kl_clip"),
    Mutant("explained variance with the ratio inverted", "C_diagnosis", "diagnostics.py",
           "return float(1 - np.var(returns - values) / spread)",
           "return float(1 - spread / np.var(returns - values))", "C.explained_variance"),
    Mutant("explained variance 0 for constant returns", "C_diagnosis", "diagnostics.py",
           '        return float("nan")\n    return float(1 - np.var', '        return 0.0\n    return float(1 - np.var',
           "C.explained_variance"),
    Mutant("TD errors averaged with their sign", "C_diagnosis", "diagnostics.py",
           "td, q = np.abs(np.asarray(td_errors, dtype=float)), np.abs(np.asarray(q_taken, dtype=float))",
           "td, q = np.asarray(td_errors, dtype=float), np.abs(np.asarray(q_taken, dtype=float))", "C.td_q"),
    Mutant("the bound 1 / gamma instead of 1 / (1 - gamma)", "C_diagnosis", "diagnostics.py",
           '"above_bound": float(np.mean(q > 1 / (1 - gamma)))', '"above_bound": float(np.mean(q > 1 / gamma))',
           "C.td_q"),
    Mutant("return drop measured from the first return", "C_diagnosis", "diagnostics.py",
           "    peak = int(np.argmax(y))\n    if peak == len(y) - 1:", "    peak = 0\n    if peak == len(y) - 1:",
           "C.return_drop"),
    Mutant("each verdict filed under the next log's name", "C_diagnosis", "diagnostics.py",
           '    return {path.stem: diagnose(load_log(path)) for path in sorted(LOGS.glob("*.npz"))}',
           '    found = sorted(LOGS.glob("*.npz"))\n'
           '    return {p.stem: diagnose(load_log(q)) for p, q in zip(found, found[1:] + found[:1])}', "C.own_labels"),
    Mutant("diagnose that always says one label", "C_diagnosis", "diagnostics.py",
           "    late = late_half(log)\n    if", '    return "untrained_critic"\n    late = late_half(log)\n    if',
           "C.fresh_runs"),
    Mutant("a threshold that only works on the public logs", "C_diagnosis", "diagnostics.py",
           'if explained_variance(log["values"][late], log["returns"][late]) < 0.3:',
           'if explained_variance(log["values"][late], log["returns"][late]) < 0.97:', "C.fresh_runs"),
    Mutant("a value-based agent is always the faulty one", "C_diagnosis", "diagnostics.py",
           'return "small_replay_buffer" if worst > ', 'return "small_replay_buffer" if worst > -1 or ',
           "C.fresh_runs"),
]

ALL = A + C + D
