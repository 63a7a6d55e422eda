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
           "    for _ in range(epochs):\n        pi, g = policy(theta)",
           "    for _ in range(1):\n        pi, g = policy(theta)", "D.grpo_step"),
    Mutant("beta ignored by the step", "D_grpo", "grpo.py",
           "r = kl_penalized_reward(reward(x, ys), pi_old[x, ys], PI_REF[x, ys], beta)",
           "r = kl_penalized_reward(reward(x, ys), pi_old[x, ys], PI_REF[x, ys], 0.0)", "D.beta_sweep"),
]

D_NEW = [  # the realistic mistakes of issue 16: each reaches its branch on every seed
    Mutant("standardized weight without + 1e-8 (NaN for equal rewards)", "D_grpo", "grpo.py",
           "return (r - r.mean()) / (r.std() + 1e-8)", "return (r - r.mean()) / r.std()", "D.weights"),
    Mutant("standardized weight centred on the median", "D_grpo", "grpo.py",
           "return (r - r.mean()) / (r.std() + 1e-8)", "return (r - np.median(r)) / (r.std() + 1e-8)", "D.weights"),
    Mutant("leave-one-out of one sample returns zeros", "D_grpo", "grpo.py",
           '        raise ValueError("leave-one-out needs at least two samples per group")',
           "        return np.zeros_like(r)", "D.weights"),
    Mutant("KL penalty as the difference of probabilities", "D_grpo", "grpo.py",
           "return r - beta * np.log(p / p_ref)", "return r - beta * (p - p_ref)", "D.kl_penalty"),
    Mutant("gradient scored at pi_old instead of pi", "D_grpo", "grpo.py",
           "return softmax_score(pi_x, ys).T @", "return softmax_score(pi_old_x, ys).T @", "D.clip_gradient"),
    Mutant("ratio clipped on one side only", "D_grpo", "grpo.py",
           "clipped = ((A > 0) & (rho > 1 + eps)) | ((A < 0) & (rho < 1 - eps))",
           "clipped = (A > 0) & (rho > 1 + eps)", "D.clip_gradient"),
    Mutant("grpo_step ignores its weight argument", "D_grpo", "grpo.py",
           "groups.append((ys, weight(r)))", "groups.append((ys, group_standardized_weight(r)))", "D.grpo_step"),
    Mutant("grpo_step flips the KL sign", "D_grpo", "grpo.py",
           "r = kl_penalized_reward(reward(x, ys), pi_old[x, ys], PI_REF[x, ys], beta)",
           "r = kl_penalized_reward(reward(x, ys), pi_old[x, ys], PI_REF[x, ys], -beta)", "D.grpo_step"),
    Mutant("every epoch's gradient at pi_old", "D_grpo", "grpo.py",
           "pi, g = policy(theta), np.zeros_like(theta)\n        for x, (ys, A)",
           "pi, g = pi_old, np.zeros_like(theta)\n        for x, (ys, A)", "D.grpo_step"),
    Mutant("every prompt sampled from the first prompt's policy", "D_grpo", "grpo.py",
           "ys = rng.choice(N_RESPONSES, K, p=pi_old[x])", "ys = rng.choice(N_RESPONSES, K, p=pi_old[0])",
           "D.grpo_step"),
    Mutant("price ignores the floor", "D_grpo", "grpo.py",
           "return float(ceiling) if ceiling > floor else 0.0", "return float(ceiling)", "D.price_exploit"),
    Mutant("price takes the loosest cap", "D_grpo", "grpo.py",
           "ceiling = np.min(gap[disadvantage > 0]", "ceiling = np.max(gap[disadvantage > 0]", "D.price_exploit"),
]

A_NEW = [  # the realistic mistakes of issue 16: each reaches its branch on every seed
    Mutant("GAE done mask one step off", "A_ppo", "ppo.py",
           "running = delta + gamma * lam * (1 - (terminated[t] | truncated[t])) * running",
           "running = delta + gamma * lam * (1 - (terminated[t - 1] | truncated[t - 1])) * running", "A.gae"),
    Mutant("GAE carries across truncations", "A_ppo", "ppo.py",
           "running = delta + gamma * lam * (1 - (terminated[t] | truncated[t])) * running",
           "running = delta + gamma * lam * (1 - terminated[t]) * running", "A.gae"),
    Mutant("batch values are V(s_{t+1})", "A_ppo", "ppo.py",
           '"values": segment.values[:-1][keep]', '"values": segment.values[1:][keep]', "A.batch"),
    Mutant("gradient clipping left out", "A_ppo", "ppo.py",
           "optimizer.step(clip_by_global_norm(grads, config.max_grad_norm)[0])", "optimizer.step(grads)",
           "A.update"),
    Mutant("each network's gradient clipped on its own", "A_ppo", "ppo.py",
           "optimizer.step(clip_by_global_norm(grads, config.max_grad_norm)[0])",
           'n_actor = len(flatten(agent["actor"]))\n'
           "            optimizer.step(clip_by_global_norm(grads[:n_actor], config.max_grad_norm)[0]\n"
           "                           + clip_by_global_norm(grads[n_actor:], config.max_grad_norm)[0])", "A.update"),
    Mutant("sample std in the minibatch normalization", "A_ppo", "ppo.py",
           "adv = (adv - adv.mean()) / (adv.std() + 1e-8)", "adv = (adv - adv.mean()) / (adv.std(ddof=1) + 1e-8)",
           "A.update"),
    Mutant("advantages normalized over the whole batch", "A_ppo", "ppo.py",
           'adv = batch["advantages"][idx]\n            adv = (adv - adv.mean()) / (adv.std() + 1e-8)',
           'adv = batch["advantages"]\n            adv = ((adv - adv.mean()) / (adv.std() + 1e-8))[idx]', "A.update"),
    Mutant("one permutation for every epoch", "A_ppo", "ppo.py",
           "    for epoch in range(config.epochs):\n        perm, stats = rng.permutation(B), []",
           "    perm = rng.permutation(B)\n    for epoch in range(config.epochs):\n        stats = []", "A.update"),
    Mutant("value loss without vf_coef", "A_ppo", "ppo.py",
           "config.vf_coef * d_values[:, None]", "d_values[:, None]", "A.update"),
    Mutant("ratio clipped on one side only", "A_ppo", "ppo.py",
           "clipped = ((advantages > 0) & (rho > 1 + eps)) | ((advantages < 0) & (rho < 1 - eps))",
           "clipped = (advantages > 0) & (rho > 1 + eps)", "A.clip_gradient"),
    Mutant("surrogate gradient without the ratio", "A_ppo", "ppo.py",
           "weight = np.where(clipped, 0.0, rho * advantages) / B", "weight = np.where(clipped, 0.0, advantages) / B",
           "A.clip_gradient"),
    Mutant("value loss without the half", "A_ppo", "ppo.py",
           "return 0.5 * (error ** 2).mean(), error / len(values)",
           "return (error ** 2).mean(), 2 * error / len(values)", "A.value_entropy"),
    Mutant("entropy gradient not divided by the batch size", "A_ppo", "ppo.py",
           "return H.mean(), -p * (logp + H[:, None]) / len(logits)", "return H.mean(), -p * (logp + H[:, None])",
           "A.value_entropy"),
]


class Equivalent(NamedTuple):
    """A correct implementation written differently: it must keep full marks on ``checks``."""
    name: str
    folder: str
    module: str
    old: str
    new: str
    checks: tuple[str, ...]


EQUIVALENT = [
    Equivalent("GAE with the TD errors computed as whole rows first", "A_ppo", "ppo.py",
               "    running = 0.0\n    for t in reversed(range(T)):\n"
               "        delta = rewards[t] + gamma * (1 - terminated[t]) * values[t + 1] - values[t]\n"
               "        running = delta + gamma * lam * (1 - (terminated[t] | truncated[t])) * running\n"
               "        advantages[t] = running\n",
               "    deltas = rewards + gamma * (1.0 - terminated) * values[1:] - values[:-1]\n"
               "    carry = gamma * lam * (1.0 - (terminated | truncated))\n"
               "    t = T - 1\n    while t >= 0:\n"
               "        advantages[t] = deltas[t] + (carry[t] * advantages[t + 1] if t + 1 < T else 0.0)\n"
               "        t -= 1\n", ("A.gae",)),
    Equivalent("minibatches as rows of the reshaped permutation", "A_ppo", "ppo.py",
               "        for k in range(config.minibatches):\n            idx = perm[k * size:(k + 1) * size]\n",
               "        for idx in perm[:size * config.minibatches].reshape(config.minibatches, size):\n",
               ("A.ratio", "A.update")),
    Equivalent("ratio as a quotient of probabilities", "A_ppo", "ppo.py",
               "return np.exp(logp_new - logp_old)", "return np.exp(logp_new) / np.exp(logp_old)", ("A.ratio",)),
    Equivalent("leave-one-out as K/(K-1) times the centred weight", "D_grpo", "grpo.py",
               "return r - (r.sum() - r) / (K - 1)", "return K / (K - 1) * (r - r.mean())",
               ("D.weights", "D.enumeration")),
    Equivalent("standardized weight with the std written out", "D_grpo", "grpo.py",
               "return (r - r.mean()) / (r.std() + 1e-8)",
               "centred = r - r.mean()\n    return centred / (np.sqrt(np.mean(centred ** 2)) + 1e-8)",
               ("D.weights", "D.grpo_step")),
    Equivalent("price as a loop over the other responses", "D_grpo", "grpo.py",
               "    if np.any((disadvantage >= 0) & (gap <= 0)):\n",
               "    for g, d in zip(gap, disadvantage):\n        if d >= 0 and g <= 0:\n            return 0.0\n"
               "    if False:\n", ("D.price_exploit",)),
    Equivalent("medians as the 50th percentile", "B_ablations", "ablation.py",
               "np.median(table, axis=1)", "np.percentile(table, 50, axis=1)", ("B.summary",)),
    Equivalent("the metric as a NaN-skipping mean", "B_ablations", "ablation.py",
               "return float(np.mean(returns[~np.isnan(returns)]))", "return float(np.nanmean(returns))",
               ("B.summary",)),
    Equivalent("matters as the negation of at-or-below the spread", "B_ablations", "ablation.py",
               'return bool(abs(np.median(scores[name]) - np.median(scores["baseline"])) > spread)',
               'return not abs(np.median(scores[name]) - np.median(scores["baseline"])) <= spread', ("B.summary",)),
    Equivalent("diagnose with its own entropy and explained-variance thresholds inside the README's windows",
               "C_diagnosis", "diagnostics.py",
               '        return "small_replay_buffer" if worst > 0.05 else "healthy"\n'
               '    if np.mean(policy_entropy(log["logits"])) < 0.2:  # ln 2 = 0.69 is uniform over two actions\n'
               '        return "saturated_policy"\n'
               '    if explained_variance(log["values"][late], log["returns"][late]) < 0.3:\n',
               '        return "small_replay_buffer" if worst > 0.05 else "healthy"\n'
               '    if np.mean(policy_entropy(log["logits"])) < 0.15:\n'
               '        return "saturated_policy"\n'
               '    if explained_variance(log["values"][late], log["returns"][late]) < 0.35:\n',
               ("C.diagnose_rules", "C.fresh_runs")),
    Equivalent("clip fraction counted", "C_diagnosis", "diagnostics.py",
               "return float(np.mean(np.abs(rho - 1) > eps))",
               "return float(np.count_nonzero(np.abs(rho - 1) > eps) / rho.size)", ("C.kl_clip",)),
    Equivalent("logit magnitude centred by broadcasting", "C_diagnosis", "diagnostics.py",
               "return np.mean(np.abs(z - z.mean(axis=1, keepdims=True)), axis=1)",
               "return np.abs(z - z.mean(axis=1)[:, None]).mean(axis=1)", ("C.entropy",)),
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
    Mutant("ppo_update divides the step size by the batch size, so nothing is learnt", "A_ppo", "ppo.py",
           '    B = len(batch["actions"])\n', '    B = len(batch["actions"])\n    optimizer.lr = optimizer.lr / B\n',
           "A.bar"),
    Mutant("GAE ignores lambda", "A_ppo", "ppo.py",
           "running = delta + gamma * lam * (1 - (terminated[t] | truncated[t])) * running",
           "running = delta + gamma * (1 - (terminated[t] | truncated[t])) * running", "A.gae"),
    Mutant("returns without the value baseline", "A_ppo", "ppo.py",
           "return advantages, advantages + values[:T]", "return advantages, advantages", "A.gae"),
    Mutant("entropy bonus descended instead of ascended", "A_ppo", "ppo.py",
           "-d_surrogate - config.ent_coef * d_entropy", "-d_surrogate + config.ent_coef * d_entropy", "A.update"),
]

B = [
    Mutant("a gradient-clipping switch that does nothing", "B_ablations", "details.py",
           "if details.clip_gradients:\n", "if True:\n", "B.switches"),
    Mutant("flipping gradient clipping also drops advantage normalization", "B_ablations", "details.py",
           "if details.normalize_advantages:\n", "if details.normalize_advantages and details.clip_gradients:\n",
           "B.switches"),
    Mutant("an Adam-epsilon switch that is ignored", "B_ablations", "details.py",
           "eps = config.adam_eps if details.large_adam_eps else SMALL_ADAM_EPS", "eps = config.adam_eps",
           "B.switches"),
    Mutant("clipped value loss with the plain gradient everywhere", "B_ablations", "details.py",
           "grad = np.where(use_clipped, (clipped - returns) * (np.abs(values - values_old) < eps), values - returns)",
           "grad = values - returns", "B.switches"),
    Mutant("truncation switch that never bootstraps", "B_ablations", "details.py",
           ("terminated = segment.terminated if details.bootstrap_truncation "
            "else segment.terminated | segment.truncated"),
           "terminated = segment.terminated | segment.truncated", "B.switches"),
    Mutant("annealing one update early, so the defaults no longer train as Project A", "B_ablations", "details.py",
           "return config.lr * (1 - update / n_updates) if details.anneal_lr else config.lr",
           "return config.lr * (1 - (update + 1) / n_updates) if details.anneal_lr else config.lr", "B.defaults"),
    Mutant("medians taken over the wrong axis", "B_ablations", "ablation.py",
           "np.median(table, axis=1)", "np.median(table, axis=0)", "B.summary"),
    Mutant("a metric that keeps the NaN of updates without episodes", "B_ablations", "ablation.py",
           "return float(np.mean(returns[~np.isnan(returns)]))", "return float(np.mean(returns))", "B.summary"),
    Mutant("a conclusion naming a factor that does not meet the bar", "B_ablations", "ablation.py",
           'return ("multiple_epochs",)', 'return ("orthogonal_init",)', "B.bar"),
    Mutant("a Config whose step size is not the course's, so the table's runs trained with another", "B_ablations",
           "ppo.py", "lr: float = 2.5e-3", "lr: float = 2.5e-6", "B.table"),
    Mutant("a results table with a made-up run", "B_ablations", "results.json",
           '"baseline": [\n', '"baseline": [\n   400.0,\n', "B.table"),
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
           '        return float("nan")\n    return float(1 - np.var',
           '        return 0.0\n    return float(1 - np.var', "C.explained_variance"),
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


ROUND_TWO = [  # issue 32's neighbours: each statistic and rule against its plausible neighbours, on every seed
    Mutant("matters compares the means", "B_ablations", "ablation.py",
           'return bool(abs(np.median(scores[name]) - np.median(scores["baseline"])) > spread)',
           'return bool(abs(np.mean(scores[name]) - np.mean(scores["baseline"])) > spread)', "B.summary"),
    Mutant("matters with >= at the bar", "B_ablations", "ablation.py",
           'np.median(scores["baseline"])) > spread)', 'np.median(scores["baseline"])) >= spread)', "B.summary"),
    Mutant("matters with the baseline's spread alone", "B_ablations", "ablation.py",
           'spread = max(np.ptp(scores[name]), np.ptp(scores["baseline"]))',
           'spread = np.ptp(scores["baseline"])', "B.summary"),
    Mutant("summarize with means for medians", "B_ablations", "ablation.py",
           "np.median(table, axis=1)", "np.mean(table, axis=1)", "B.summary"),
    Mutant("value-loss clip half-width hard-coded at the default", "B_ablations", "details.py",
           'batch["returns"][idx],\n                                                      config.clip_eps)',
           'batch["returns"][idx],\n                                                      0.2)', "B.switches"),
    Mutant("Adam's large epsilon hard-coded at the default", "B_ablations", "details.py",
           "eps = config.adam_eps if details.large_adam_eps else SMALL_ADAM_EPS",
           "eps = 1e-5 if details.large_adam_eps else SMALL_ADAM_EPS", "B.switches"),
    Mutant("relative TD error against |mean Q|", "C_diagnosis", "diagnostics.py",
           '"relative": float(td.mean() / q.mean())', '"relative": float(td.mean() / abs(np.mean(q_taken)))',
           "C.td_q"),
    Mutant("diagnose reads the critic before the policy", "C_diagnosis", "diagnostics.py",
           '    if np.mean(policy_entropy(log["logits"])) < 0.2:  # ln 2 = 0.69 is uniform over two actions\n'
           '        return "saturated_policy"\n'
           '    if explained_variance(log["values"][late], log["returns"][late]) < 0.3:\n'
           '        return "untrained_critic"\n',
           '    if explained_variance(log["values"][late], log["returns"][late]) < 0.3:\n'
           '        return "untrained_critic"\n'
           '    if np.mean(policy_entropy(log["logits"])) < 0.2:\n'
           '        return "saturated_policy"\n', "C.diagnose_rules"),
    Mutant("diagnose pools the TD errors over the whole log", "C_diagnosis", "diagnostics.py",
           '        worst = max(td_error_stats(log["td_errors"][now], q[now])["relative"]\n'
           '                    for u in np.unique(log["update"][late]) for now in [log["update"] == u])\n',
           '        worst = td_error_stats(log["td_errors"], q)["relative"]\n', "C.diagnose_rules"),
    Mutant("diagnose pools the late half's TD errors", "C_diagnosis", "diagnostics.py",
           '        worst = max(td_error_stats(log["td_errors"][now], q[now])["relative"]\n'
           '                    for u in np.unique(log["update"][late]) for now in [log["update"] == u])\n',
           '        worst = td_error_stats(log["td_errors"][late], q[late])["relative"]\n', "C.diagnose_rules"),
    Mutant("diagnose with the entropy and explained-variance thresholds swapped", "C_diagnosis", "diagnostics.py",
           '    if np.mean(policy_entropy(log["logits"])) < 0.2:  # ln 2 = 0.69 is uniform over two actions\n'
           '        return "saturated_policy"\n'
           '    if explained_variance(log["values"][late], log["returns"][late]) < 0.3:\n',
           '    if np.mean(policy_entropy(log["logits"])) < 0.3:\n'
           '        return "saturated_policy"\n'
           '    if explained_variance(log["values"][late], log["returns"][late]) < 0.2:\n', "C.diagnose_rules"),
    Mutant("price ignores a logit tie with the exploit", "D_grpo", "grpo.py",
           "if np.any((disadvantage >= 0) & (gap <= 0)):", "if np.any((disadvantage > 0) & (gap <= 0)):",
           "D.price_exploit"),
    Mutant("price when the cap equals the floor", "D_grpo", "grpo.py",
           "return float(ceiling) if ceiling > floor else 0.0", "return float(ceiling) if ceiling >= floor else 0.0",
           "D.price_exploit"),
]

NEW = A_NEW + D_NEW + ROUND_TWO
ALL = A + B + C + D + NEW
