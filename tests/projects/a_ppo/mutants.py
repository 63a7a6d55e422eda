"""Project A's planted bugs, each naming the check that must catch it, and its correct implementations written
differently, which must keep full marks on the checks they name (both graded by tests/test_mutants.py)."""

from tests.support.planted import Equivalent, Mutant

STATISTICS_KL = "np.mean(np.expm1(log_rho) - log_rho)"
STATISTICS_MEAN = "np.mean(stats, axis=0)"
EXPLAINED = 'return float(1 - np.var(target - predicted) / variance) if variance > 0 else float("nan")'

MUTANTS = [
    Mutant("no terminal mask in GAE", "A_ppo", "ppo.py",
           "delta = rewards[t] + gamma * (1 - terminated[t]) * values[t + 1] - values[t]",
           "delta = rewards[t] + gamma * values[t + 1] - values[t]", "A.gae", "A.gae.no-terminal-mask"),
    Mutant("bootstrapping from the wrong step", "A_ppo", "ppo.py",
           "delta = rewards[t] + gamma * (1 - terminated[t]) * values[t + 1] - values[t]",
           "delta = rewards[t] + gamma * (1 - terminated[t]) * values[t] - values[t]", "A.gae",
                  "A.gae.bootstrap-from-same-step"),
    Mutant("truncation treated as termination", "A_ppo", "ppo.py",
           "delta = rewards[t] + gamma * (1 - terminated[t]) * values[t + 1] - values[t]",
           "delta = rewards[t] + gamma * (1 - (terminated[t] | truncated[t])) * values[t + 1] - values[t]", "A.gae",
                  "A.gae.truncation-as-termination"),
    Mutant("reset steps left in the batch", "A_ppo", "ppo.py",
           "keep = segment.valid", "keep = np.ones_like(segment.valid)", "A.batch", "A.batch.reset-steps-kept"),
    Mutant("ratio as exp(old - new)", "A_ppo", "ppo.py",
           "return np.exp(logp_new - logp_old)", "return np.exp(logp_old - logp_new)", "A.ratio", "A.ratio.inverted"),
    Mutant("log-probs not shuffled with the minibatch", "A_ppo", "ppo.py",
           'batch["actions"][idx], batch["logp"][idx], adv,', 'batch["actions"][idx], batch["logp"][:len(idx)], adv,',
           "A.ratio", "A.ratio.log-probs-not-shuffled"),
    Mutant("min and max swapped in the clipped surrogate", "A_ppo", "ppo.py",
           "objective = np.minimum(rho * advantages", "objective = np.maximum(rho * advantages", "A.clip_gradient",
                  "A.clip_gradient.max-for-min"),
    Mutant("clip applied on the wrong side", "A_ppo", "ppo.py",
           "clipped = ((advantages > 0) & (rho > 1 + eps)) | ((advantages < 0) & (rho < 1 - eps))",
           "clipped = ((advantages < 0) & (rho > 1 + eps)) | ((advantages > 0) & (rho < 1 - eps))", "A.clip_gradient",
                  "A.clip_gradient.sides-swapped"),
    Mutant("clipping the advantage instead of the ratio", "A_ppo", "ppo.py",
           "np.clip(rho, 1 - eps, 1 + eps) * advantages", "rho * np.clip(advantages, -eps, eps)", "A.clip_gradient",
                  "A.clip_gradient.advantage-clipped"),
    Mutant("value-loss gradient sign flipped", "A_ppo", "ppo.py",
           "return 0.5 * (error ** 2).mean(), error / len(values)",
           "return 0.5 * (error ** 2).mean(), -error / len(values)", "A.value_entropy",
                  "A.value_entropy.value-gradient-sign"),
    Mutant("entropy gradient sign flipped", "A_ppo", "ppo.py",
           "return H.mean(), -p * (logp + H[:, None]) / len(logits)",
           "return H.mean(), p * (logp + H[:, None]) / len(logits)", "A.value_entropy",
                  "A.value_entropy.entropy-gradient-sign"),
    Mutant("no per-minibatch advantage normalization", "A_ppo", "ppo.py",
           "            adv = (adv - adv.mean()) / (adv.std() + 1e-8)\n", "", "A.update",
                  "A.update.advantages-not-normalized"),
    Mutant("ppo_update clips the surrogate at a hard-coded 0.2, not config.clip_eps", "A_ppo", "ppo.py",
           'batch["logp"][idx], adv,\n                                                       config.clip_eps)',
           'batch["logp"][idx], adv,\n                                                       0.2)', "A.update",
                  "A.update.clip-eps-fixed"),
    Mutant("ppo_update clips the joint gradient at a hard-coded 0.5, not config.max_grad_norm", "A_ppo", "ppo.py",
           "clip_by_global_norm(grads, config.max_grad_norm)", "clip_by_global_norm(grads, 0.5)", "A.update",
                  "A.update.max-grad-norm-fixed"),
    Mutant("ppo_update divides the step size by the batch size, so nothing is learnt", "A_ppo", "ppo.py",
           '    B = len(batch["actions"])\n', '    B = len(batch["actions"])\n    optimizer.lr = optimizer.lr / B\n',
           "A.bar"),
    Mutant("GAE ignores lambda", "A_ppo", "ppo.py",
           "running = delta + gamma * lam * (1 - (terminated[t] | truncated[t])) * running",
           "running = delta + gamma * (1 - (terminated[t] | truncated[t])) * running", "A.gae", "A.gae.no-lambda"),
    Mutant("returns without the value baseline", "A_ppo", "ppo.py",
           "return advantages, advantages + values[:T]", "return advantages, advantages", "A.gae",
                  "A.gae.returns-without-baseline"),
    Mutant("entropy bonus descended instead of ascended", "A_ppo", "ppo.py",
           "-d_surrogate - config.ent_coef * d_entropy", "-d_surrogate + config.ent_coef * d_entropy", "A.update",
                  "A.update.entropy-descended"),
    # realistic mistakes: each reaches its branch on every seed
    Mutant("GAE done mask one step off", "A_ppo", "ppo.py",
           "running = delta + gamma * lam * (1 - (terminated[t] | truncated[t])) * running",
           "running = delta + gamma * lam * (1 - (terminated[t - 1] | truncated[t - 1])) * running", "A.gae",
                  "A.gae.done-mask-lagged"),
    Mutant("GAE carries across truncations", "A_ppo", "ppo.py",
           "running = delta + gamma * lam * (1 - (terminated[t] | truncated[t])) * running",
           "running = delta + gamma * lam * (1 - terminated[t]) * running", "A.gae", "A.gae.carries-across-truncation"),
    Mutant("batch values are V(s_{t+1})", "A_ppo", "ppo.py",
           '"values": segment.values[:-1][keep]', '"values": segment.values[1:][keep]', "A.batch",
                  "A.batch.next-values"),
    Mutant("gradient clipping left out", "A_ppo", "ppo.py",
           "optimizer.step(clip_by_global_norm(grads, config.max_grad_norm)[0])", "optimizer.step(grads)",
           "A.update", "A.update.gradients-not-clipped"),
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
           "config.vf_coef * d_values[:, None]", "d_values[:, None]", "A.update", "A.update.vf-coef-ignored"),
    Mutant("ratio clipped on one side only", "A_ppo", "ppo.py",
           "clipped = ((advantages > 0) & (rho > 1 + eps)) | ((advantages < 0) & (rho < 1 - eps))",
           "clipped = (advantages > 0) & (rho > 1 + eps)", "A.clip_gradient", "A.clip_gradient.one-side"),
    Mutant("surrogate gradient without the ratio", "A_ppo", "ppo.py",
           "weight = np.where(clipped, 0.0, rho * advantages) / B", "weight = np.where(clipped, 0.0, advantages) / B",
           "A.clip_gradient", "A.clip_gradient.no-ratio-in-gradient"),
    Mutant("value loss without the half", "A_ppo", "ppo.py",
           "return 0.5 * (error ** 2).mean(), error / len(values)",
           "return (error ** 2).mean(), 2 * error / len(values)", "A.value_entropy",
                  "A.value_entropy.value-without-half"),
    Mutant("entropy gradient not divided by the batch size", "A_ppo", "ppo.py",
           "return H.mean(), -p * (logp + H[:, None]) / len(logits)", "return H.mean(), -p * (logp + H[:, None])",
           "A.value_entropy", "A.value_entropy.entropy-gradient-not-averaged"),
    # the statistics ppo_update returns: the networks it leaves are right, the numbers are not
    Mutant("approx_kl adds log rho", "A_ppo", "ppo.py", STATISTICS_KL, "np.mean(np.expm1(log_rho) + log_rho)",
           "A.update", "A.update.kl-adds-log-ratio"),
    Mutant("approx_kl summed over the minibatch", "A_ppo", "ppo.py", STATISTICS_KL,
           "np.sum(np.expm1(log_rho) - log_rho)", "A.update", "A.update.kl-summed"),
    Mutant("statistics summed over the update's last epoch", "A_ppo", "ppo.py", STATISTICS_MEAN,
           "np.sum(stats, axis=0)", "A.update", "A.update.statistics-summed"),
    Mutant("statistics' log rho adds the old log-probability", "A_ppo", "ppo.py",
           '["actions"][idx]] - batch["logp"][idx]', '["actions"][idx]] + batch["logp"][idx]', "A.update",
           "A.update.statistics-old-log-prob-added"),
    Mutant("clip fraction as a count", "A_ppo", "ppo.py", "np.mean(np.abs(np.expm1(log_rho)) > config.clip_eps)",
           "np.sum(np.abs(np.expm1(log_rho)) > config.clip_eps)", "A.update", "A.update.clip-fraction-counted"),
    Mutant("statistics averaged over the wrong axis (raises where minibatches != 4)", "A_ppo", "ppo.py",
           STATISTICS_MEAN, "np.mean(stats, axis=-1)", "A.update", "A.update.statistics-mixed"),
    # explained_variance, graded in A.value_entropy beside the critic's loss
    Mutant("explained variance without the zero-variance guard", "A_ppo", "ppo.py", EXPLAINED,
           "return float(1 - np.var(target - predicted) / variance)", "A.value_entropy",
           "A.value_entropy.explained-variance-unguarded"),
    Mutant("explained variance upside down", "A_ppo", "ppo.py", EXPLAINED,
           'return float(1 - variance / np.var(target - predicted)) if variance > 0 else float("nan")',
           "A.value_entropy", "A.value_entropy.explained-variance-inverted"),
]

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
    Equivalent("statistics over the last epoch's samples at once, rho from importance_ratio", "A_ppo", "ppo.py",
               "            log_rho = log_softmax(logits)[np.arange(len(idx)), batch[\"actions\"][idx]] - "
               "batch[\"logp\"][idx]\n"
               "            stats.append((np.mean(np.expm1(log_rho) - log_rho), "
               "np.mean(np.abs(np.expm1(log_rho)) > config.clip_eps),\n                          H, v_loss))\n"
               "    kl, clip_fraction, H, v_loss = np.mean(stats, axis=0)\n",
               "            rho = importance_ratio(log_softmax(logits)[np.arange(len(idx)), batch[\"actions\"][idx]], "
               "batch[\"logp\"][idx])\n"
               "            stats.append((rho, H, v_loss))\n"
               "    rho = np.concatenate([r for r, _, _ in stats])\n"
               "    kl, clip_fraction = np.mean((rho - 1) - np.log(rho)), np.mean(np.abs(rho - 1) > config.clip_eps)\n"
               "    H, v_loss = np.mean([h for _, h, _ in stats]), np.mean([v for _, _, v in stats])\n",
               ("A.update",)),
    Equivalent("explained variance with sample variances and an explicit zero test", "A_ppo", "ppo.py", EXPLAINED,
               "residual, spread = np.var(target - predicted, ddof=1), np.var(target, ddof=1)\n"
               "    if spread == 0:\n        return float(\"nan\")\n    return float(1 - residual / spread)",
               ("A.value_entropy",)),
]
