"""Independent correct rewrites of every graded piece, for the synthetic class of ``synthetic_class.py``.

Each piece (a function whose body the stubs leave to the student) has one to four implementations written by hand,
each a different way to the same result (a loop against numpy, a helper called or not, masks or comparisons, another
order of the steps). Inside each, ``«a‖b‖c»`` marks a choice between equivalent spellings that a student could have
made either way; each student makes each choice on their own, then writes the rest of the piece their way
(``similarity_honest.py``). Every choice keeps the piece correct: ``python -m benchmarks.similarity --verify``
grades honest students made from them with the kit's own checks.
"""

PIECES = {
    # ------------------------------------------------------------------------------------------------ Project D
    "D_grpo/grpo.py:group_centered_weight": [
        """
        r = «np.asarray(r, dtype=float)‖np.array(r, dtype=np.float64)‖np.asarray(r).astype(float)»
        return «r - r.mean()‖r - np.mean(r)‖r - r.sum() / len(r)»
        """,
        """
        rewards = np.array(r, dtype=float)
        «baseline = rewards.mean()‖baseline = np.average(rewards)»
        return rewards - baseline
        """,
        """
        mean = float(np.mean(r))
        return np.array([«x - mean‖float(x) - mean» for x in r], dtype=float)
        """,
    ],
    "D_grpo/grpo.py:group_standardized_weight": [
        """
        r = «np.asarray(r, dtype=float)‖np.array(r, dtype=float)»
        return (r - «r.mean()‖np.mean(r)») / («r.std()‖np.std(r)‖r.std(ddof=0)» + 1e-8)
        """,
        """
        rewards = np.asarray(r, «float‖dtype=float»)
        mu = rewards.mean()
        sigma = «np.sqrt(((rewards - mu) ** 2).mean())‖np.sqrt(np.mean(np.square(rewards - mu)))»
        return (rewards - mu) / (sigma + 1e-8)
        """,
        """
        centred = group_centered_weight(r)
        «spread = centred.std()‖spread = np.sqrt(np.mean(centred ** 2))‖spread = np.std(centred, ddof=0)»
        return centred / (spread + 1e-8)
        """,
    ],
    "D_grpo/grpo.py:leave_one_out_weight": [
        """
        r = np.asarray(r, dtype=float)
        K = «len(r)‖r.shape[0]‖r.size»
        if K < 2:
            raise ValueError(«"leave-one-out needs K >= 2"‖"need at least two rewards per group"»)
        return r - (r.sum() - r) / (K - 1)
        """,
        """
        r = «np.asarray(r, dtype=float)‖np.array(r, dtype=float)»
        if «r.size < 2‖len(r) <= 1»:
            raise ValueError("a group of one has no other samples")
        return r.size / (r.size - 1) * (r - r.mean())
        """,
        """
        n = len(r)
        if n «<= 1‖< 2»:
            raise ValueError("leave_one_out_weight: K must be at least 2")
        out = np.empty(n)
        for j in range(n):
            «others = [r[i] for i in range(n) if i != j]‖others = list(r[:j]) + list(r[j + 1:])»
            out[j] = r[j] - np.mean(others)
        return out
        """,
    ],
    "D_grpo/grpo.py:kl_penalized_reward": [
        """
        r, p, p_ref = (np.asarray(a, dtype=float) for a in (r, p, p_ref))
        return r - beta * «np.log(p / p_ref)‖(np.log(p) - np.log(p_ref))»
        """,
        """
        log_ratio = np.log(np.asarray(p, dtype=float)) - np.log(np.asarray(p_ref, dtype=float))
        «penalized = np.asarray(r, dtype=float) - beta * log_ratio‖penalized = np.asarray(r, float) - log_ratio * beta»
        return penalized
        """,
        """
        rewards = np.array(r, dtype=float)
        if beta == 0:
            return rewards
        return rewards - beta * np.log(np.divide(«p, p_ref‖np.asarray(p, float), np.asarray(p_ref, float)»))
        """,
    ],
    "D_grpo/grpo.py:clipped_surrogate_gradient": [
        """
        ys, A = np.asarray(ys), np.asarray(A, dtype=float)
        rho = pi_x[ys] / pi_old_x[ys]
        «clipped = ((A > 0) & (rho > 1 + eps)) | ((A < 0) & (rho < 1 - eps))‖clipped = np.where(A > 0, rho > 1 + eps, A < 0) & ~((A < 0) & (rho >= 1 - eps))»
        return softmax_score(pi_x, ys).T @ np.where(clipped, 0.0, rho * A) / «len(ys)‖ys.size»
        """,
        """
        pi_x = np.asarray(pi_x, dtype=float)
        grad = np.zeros_like(pi_x)
        for y, a in zip(ys, «A‖np.asarray(A, dtype=float)»):
            ratio = pi_x[y] / pi_old_x[y]
            if «(a > 0 and ratio > 1 + eps) or (a < 0 and ratio < 1 - eps)‖a > 0 and ratio > 1 + eps or a < 0 and ratio < 1 - eps»:
                continue
            score = -pi_x.copy()
            score[y] += 1.0
            grad «+= ratio * a * score‖= grad + a * ratio * score»
        return grad / len(ys)
        """,
        """
        ys = np.asarray(ys)
        A = np.asarray(A, «float‖dtype=float»)
        rho = pi_x[ys] / pi_old_x[ys]
        keep = ~(((A > 0) & (rho > 1 + eps)) | ((A < 0) & (rho < 1 - eps)))
        onehot = np.eye(«len(pi_x)‖pi_x.shape[0]»)[ys]
        weights = rho * A * keep
        return «(weights[:, None] * (onehot - pi_x[None, :])).sum(axis=0)‖weights @ (onehot - pi_x)» / len(ys)
        """,
    ],
    "D_grpo/grpo.py:grpo_step": [
        """
        pi_old, groups = policy(theta), []
        for x in range(N_PROMPTS):
            ys = rng.choice(N_RESPONSES, K, p=pi_old[x])
            r = kl_penalized_reward(reward(x, ys), «pi_old[x, ys], PI_REF[x, ys]‖pi_old[x][ys], PI_REF[x][ys]», beta)
            groups.append((ys, weight(r)))
        for _ in range(epochs):
            pi, g = policy(theta), np.zeros_like(theta)
            for x, (ys, A) in enumerate(groups):
                g[x] = clipped_surrogate_gradient(pi[x], pi_old[x], ys, A, eps)
            theta = theta + lr * g
        return theta
        """,
        """
        pi_old = policy(theta)
        batch = []
        for x in range(N_PROMPTS):
            ys = rng.choice(N_RESPONSES, K, p=pi_old[x])
            rewards = reward(x, ys)
            «rewards = kl_penalized_reward(rewards, pi_old[x][ys], PI_REF[x][ys], beta)‖if beta:
                rewards = kl_penalized_reward(rewards, pi_old[x][ys], PI_REF[x][ys], beta)»
            batch.append((x, ys, weight(rewards)))
        new_theta = np.array(theta, dtype=float)
        for «epoch‖_» in range(epochs):
            pi_now = policy(new_theta)
            step = «np.zeros_like(new_theta)‖np.zeros(new_theta.shape)»
            for x, ys, adv in batch:
                step[x] = clipped_surrogate_gradient(pi_now[x], pi_old[x], ys, adv, eps)
            new_theta = new_theta + lr * step
        return new_theta
        """,
        """
        old = policy(theta)
        samples = [rng.choice(N_RESPONSES, K, p=old[x]) for x in range(N_PROMPTS)]
        advantages = [weight(kl_penalized_reward(reward(x, ys), old[x, ys], PI_REF[x, ys], beta))
                      for x, ys in enumerate(samples)]
        current = np.array(theta, dtype=float)
        «for _ in range(epochs):
            probs = policy(current)
            grad = np.stack([clipped_surrogate_gradient(probs[x], old[x], samples[x], advantages[x], eps)
                             for x in range(N_PROMPTS)])
            current = current + lr * grad‖epoch = 0
        while epoch < epochs:
            probs = policy(current)
            grad = np.array([clipped_surrogate_gradient(probs[x], old[x], samples[x], advantages[x], eps)
                             for x in range(N_PROMPTS)])
            current = current + lr * grad
            epoch += 1»
        return current
        """,
    ],
    "D_grpo/grpo.py:price_exploit": [
        """
        logits_ref, rewards = np.asarray(logits_ref, dtype=float), np.asarray(rewards, dtype=float)
        others = np.arange(len(rewards)) != exploit
        gap = rewards[exploit] - rewards[others]
        disadvantage = logits_ref[others] - logits_ref[exploit]
        if «np.any((disadvantage >= 0) & (gap <= 0))‖((disadvantage >= 0) & (gap <= 0)).any()»:
            return 0.0
        ceiling = np.min(gap[disadvantage > 0] / disadvantage[disadvantage > 0], initial=np.inf)
        floor = np.max(gap[disadvantage < 0] / disadvantage[disadvantage < 0], initial=0.0)
        return float(ceiling) if ceiling > floor else 0.0
        """,
        """
        l = np.asarray(logits_ref, dtype=float)
        r = np.asarray(rewards, dtype=float)
        cap, floor = «np.inf, 0.0‖float("inf"), 0.0»
        for y in range(len(r)):
            if y == exploit:
                continue
            gap, dis = r[exploit] - r[y], l[y] - l[exploit]
            if dis > 0:
                if gap <= 0:
                    return 0.0
                cap = min(cap, gap / dis)
            elif dis == 0:
                if gap <= 0:
                    return 0.0
            else:
                floor = max(floor, gap / dis)
        return float(cap) if «cap > floor else 0.0‖floor < cap else 0.0»
        """,
        """
        logits_ref = np.asarray(logits_ref, float)
        rewards = np.asarray(rewards, float)
        mask = np.ones(len(rewards), dtype=bool)
        mask[exploit] = False
        reward_gap = rewards[exploit] - rewards[mask]
        logit_gap = logits_ref[mask] - logits_ref[exploit]
        if ((logit_gap >= 0) & (reward_gap <= 0)).any():
            return 0.0
        ahead, behind = logit_gap > 0, logit_gap < 0
        upper = «(reward_gap[ahead] / logit_gap[ahead]).min() if ahead.any() else np.inf‖np.inf if not ahead.any() else np.min(reward_gap[ahead] / logit_gap[ahead])»
        lower = max(0.0, (reward_gap[behind] / logit_gap[behind]).max()) if behind.any() else 0.0
        return float(upper) if upper > lower else 0.0
        """,
    ],
    # ------------------------------------------------------------------------------------------------ Project A
    "A_ppo/ppo.py:gae": [
        """
        T = «len(rewards)‖rewards.shape[0]»
        advantages = np.zeros((T,) + np.shape(rewards)[1:])
        running = 0.0
        for t in reversed(range(T)):
            delta = rewards[t] + gamma * (1 - terminated[t]) * values[t + 1] - values[t]
            running = delta + gamma * lam * (1 - (terminated[t] | truncated[t])) * running
            advantages[t] = running
        return advantages, advantages + values[:T]
        """,
        """
        rewards = np.asarray(rewards, dtype=float)
        T, N = rewards.shape
        adv = np.zeros((T, N))
        last = «np.zeros(N)‖np.zeros_like(rewards[0])»
        for t in range(T - 1, -1, -1):
            not_terminal = 1.0 - terminated[t].astype(float)
            not_done = 1.0 - np.logical_or(terminated[t], truncated[t]).astype(float)
            delta = rewards[t] + gamma * values[t + 1] * not_terminal - values[t]
            last = delta + gamma * lam * not_done * last
            adv[t] = last
        «returns = adv + values[:-1]‖returns = adv + values[:T]»
        return adv, returns
        """,
        """
        values = np.asarray(values, dtype=float)
        deltas = rewards + gamma * (1 - np.asarray(terminated, dtype=float)) * values[1:] - values[:-1]
        carry = gamma * lam * (1 - (np.asarray(terminated) | np.asarray(truncated)).astype(float))
        advantages = np.zeros_like(deltas)
        «acc = np.zeros(deltas.shape[1:])
        for t in range(len(deltas) - 1, -1, -1):
            acc = deltas[t] + carry[t] * acc
            advantages[t] = acc‖for t in reversed(range(len(deltas))):
            following = advantages[t + 1] if t + 1 < len(deltas) else 0.0
            advantages[t] = deltas[t] + carry[t] * following»
        return advantages, advantages + values[:-1]
        """,
    ],
    "A_ppo/ppo.py:flatten_batch": [
        """
        keep = segment.valid
        return {"obs": segment.obs[keep], "actions": segment.actions[keep], "logp": segment.logp[keep],
                "advantages": advantages[keep], "returns": returns[keep], "values": segment.values[:-1][keep]}
        """,
        """
        mask = «segment.valid‖np.asarray(segment.valid, dtype=bool)»
        batch = {}
        batch["obs"] = segment.obs[mask]
        batch["actions"] = segment.actions[mask]
        batch["logp"] = segment.logp[mask]
        batch["advantages"] = advantages[mask]
        batch["returns"] = returns[mask]
        batch["values"] = «segment.values[:-1][mask]‖segment.values[: len(segment.values) - 1][mask]»
        return batch
        """,
        """
        valid = segment.valid
        fields = {"obs": segment.obs, "actions": segment.actions, "logp": segment.logp, "advantages": advantages,
                  "returns": returns, "values": segment.values[:-1]}
        return «{key: array[valid] for key, array in fields.items()}‖dict((k, v[valid]) for k, v in fields.items())»
        """,
    ],
    "A_ppo/ppo.py:importance_ratio": [
        """
        return np.exp(«logp_new - logp_old‖np.asarray(logp_new) - np.asarray(logp_old)»)
        """,
        """
        log_ratio = np.subtract(logp_new, logp_old)
        return np.exp(log_ratio)
        """,
    ],
    "A_ppo/ppo.py:clipped_surrogate": [
        """
        B = len(actions)
        logp_all = log_softmax(logits)
        rho = importance_ratio(logp_all[np.arange(B), actions], logp_old)
        objective = np.minimum(rho * advantages, np.clip(rho, 1 - eps, 1 + eps) * advantages).mean()
        «clipped = ((advantages > 0) & (rho > 1 + eps)) | ((advantages < 0) & (rho < 1 - eps))‖clipped = (advantages > 0) & (rho > 1 + eps) | (advantages < 0) & (rho < 1 - eps)»
        weight = np.where(clipped, 0.0, rho * advantages) / B
        return objective, weight[:, None] * (np.eye(logits.shape[1])[actions] - np.exp(logp_all))
        """,
        """
        n = logits.shape[0]
        log_probs = log_softmax(logits)
        probs = np.exp(log_probs)
        ratio = importance_ratio(log_probs[np.arange(n), actions], logp_old)
        unclipped = ratio * advantages
        clipped_obj = np.clip(ratio, 1.0 - eps, 1.0 + eps) * advantages
        L = «np.mean(np.minimum(unclipped, clipped_obj))‖np.minimum(unclipped, clipped_obj).sum() / n»
        active = ~(((advantages > 0) & (ratio > 1.0 + eps)) | ((advantages < 0) & (ratio < 1.0 - eps)))
        onehot = np.zeros_like(logits)
        onehot[np.arange(n), actions] = 1.0
        grad = (active * unclipped)[:, None] * (onehot - probs) / n
        return L, grad
        """,
        """
        logp = log_softmax(logits)
        rows = np.arange(len(actions))
        rho = np.exp(logp[rows, actions] - logp_old)
        surrogate = «np.where(advantages >= 0, np.minimum(rho, 1 + eps), np.maximum(rho, 1 - eps)) * advantages‖np.minimum(rho * advantages, np.clip(rho, 1 - eps, 1 + eps) * advantages)»
        flat = np.where(advantages > 0, rho > 1 + eps, rho < 1 - eps) & (advantages != 0)
        coef = np.where(flat, 0.0, rho * advantages)
        dlogits = -np.exp(logp) * coef[:, None]
        dlogits[rows, actions] += coef
        return surrogate.mean(), dlogits / len(actions)
        """,
    ],
    "A_ppo/ppo.py:value_loss": [
        """
        error = values - returns
        return 0.5 * (error ** 2).mean(), error / len(values)
        """,
        """
        diff = np.asarray(values, dtype=float) - np.asarray(returns, dtype=float)
        loss = «np.mean(np.square(diff)) / 2‖0.5 * np.mean(diff * diff)»
        return loss, diff / diff.size
        """,
    ],
    "A_ppo/ppo.py:entropy_bonus": [
        """
        logp = log_softmax(logits)
        p = np.exp(logp)
        H = -(p * logp).sum(1)
        return H.mean(), -p * (logp + H[:, None]) / len(logits)
        """,
        """
        log_probs = log_softmax(logits)
        probs = np.exp(log_probs)
        entropy = «-np.sum(probs * log_probs, axis=1)‖-(probs * log_probs).sum(axis=-1)»
        grad = -probs * (log_probs + entropy[:, None])
        return «float(entropy.mean()), grad / logits.shape[0]‖entropy.mean(), grad / len(logits)»
        """,
        """
        z = logits - logits.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        pi = np.exp(logp)
        per_state = -np.einsum("ij,ij->i", pi, logp)
        return per_state.mean(), -pi * (logp + per_state[:, None]) / len(per_state)
        """,
    ],
    "A_ppo/ppo.py:ppo_update": [
        """
        B = len(batch["actions"])
        size = B // config.minibatches
        for epoch in range(config.epochs):
            perm, stats = rng.permutation(B), []
            for k in range(config.minibatches):
                idx = perm[k * size:(k + 1) * size]
                adv = batch["advantages"][idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                logits, actor_cache = mlp_forward(agent["actor"], batch["obs"][idx])
                values, critic_cache = mlp_forward(agent["critic"], batch["obs"][idx])
                surrogate, d_surrogate = clipped_surrogate(logits, batch["actions"][idx], batch["logp"][idx], adv,
                                                           config.clip_eps)
                v_loss, d_values = value_loss(values[:, 0], batch["returns"][idx])
                H, d_entropy = entropy_bonus(logits)
                grads = flatten(mlp_backward(agent["actor"], actor_cache, -d_surrogate - config.ent_coef * d_entropy))
                grads += flatten(mlp_backward(agent["critic"], critic_cache, config.vf_coef * d_values[:, None]))
                optimizer.step(clip_by_global_norm(grads, config.max_grad_norm)[0])
                if epoch < config.epochs - 1:
                    continue
                log_rho = log_softmax(logits)[np.arange(len(idx)), batch["actions"][idx]] - batch["logp"][idx]
                stats.append((np.mean(np.expm1(log_rho) - log_rho), np.mean(np.abs(np.expm1(log_rho)) > config.clip_eps),
                              H, v_loss))
        kl, clip_fraction, H, v_loss = np.mean(stats, axis=0)
        return {"approx_kl": kl, "clip_fraction": clip_fraction, "entropy": H, "value_loss": v_loss}
        """,
        """
        n = batch["actions"].shape[0]
        mb = n // config.minibatches
        kls, fracs, ents, vls = [], [], [], []
        for epoch in range(config.epochs):
            order = rng.permutation(n)
            last_epoch = epoch == config.epochs - 1
            for start in range(0, mb * config.minibatches, mb):
                sel = order[start:start + mb]
                obs, acts, old_logp = batch["obs"][sel], batch["actions"][sel], batch["logp"][sel]
                a = batch["advantages"][sel]
                «a = (a - a.mean()) / (a.std() + 1e-8)‖a = (a - np.mean(a)) / (np.std(a) + 1e-8)»
                actor_out, actor_cache = mlp_forward(agent["actor"], obs)
                critic_out, critic_cache = mlp_forward(agent["critic"], obs)
                _, g_pi = clipped_surrogate(actor_out, acts, old_logp, a, config.clip_eps)
                vl, g_v = value_loss(critic_out[:, 0], batch["returns"][sel])
                ent, g_ent = entropy_bonus(actor_out)
                actor_grad = mlp_backward(agent["actor"], actor_cache, -(g_pi + config.ent_coef * g_ent))
                critic_grad = mlp_backward(agent["critic"], critic_cache, (config.vf_coef * g_v)[:, None])
                total = flatten(actor_grad) + flatten(critic_grad)
                total, _norm = clip_by_global_norm(total, config.max_grad_norm)
                optimizer.step(total)
                if last_epoch:
                    lr_ = log_softmax(actor_out)[np.arange(len(sel)), acts] - old_logp
                    ratio = np.exp(lr_)
                    kls.append(np.mean(ratio - 1 - lr_))
                    fracs.append(np.mean(np.abs(ratio - 1) > config.clip_eps))
                    ents.append(ent)
                    vls.append(vl)
        return {«"approx_kl": np.mean(kls), "clip_fraction": np.mean(fracs)‖"clip_fraction": np.mean(fracs), "approx_kl": np.mean(kls)»,
                "entropy": np.mean(ents), "value_loss": np.mean(vls)}
        """,
        """
        n_samples = len(batch["actions"])
        per_minibatch = n_samples // config.minibatches
        history = []
        for epoch in range(config.epochs):
            shuffled = rng.permutation(n_samples)
            history = []
            for k in range(config.minibatches):
                rows = shuffled[k * per_minibatch:(k + 1) * per_minibatch]
                mb = «{key: batch[key][rows] for key in ("obs", "actions", "logp", "advantages", "returns")}‖{key: value[rows] for key, value in batch.items()}»
                advantages = (mb["advantages"] - mb["advantages"].mean()) / (mb["advantages"].std() + 1e-8)
                logits, actor_cache = mlp_forward(agent["actor"], mb["obs"])
                values, critic_cache = mlp_forward(agent["critic"], mb["obs"])
                _, d_policy = clipped_surrogate(logits, mb["actions"], mb["logp"], advantages, config.clip_eps)
                v_loss, d_value = value_loss(values[:, 0], mb["returns"])
                entropy, d_entropy = entropy_bonus(logits)
                d_logits = -d_policy - config.ent_coef * d_entropy
                grads = flatten(mlp_backward(agent["actor"], actor_cache, d_logits))
                grads = grads + flatten(mlp_backward(agent["critic"], critic_cache, config.vf_coef * d_value[:, None]))
                clipped, _ = clip_by_global_norm(grads, config.max_grad_norm)
                optimizer.step(clipped)
                log_ratio = log_softmax(logits)[np.arange(len(rows)), mb["actions"]] - mb["logp"]
                ratio = np.exp(log_ratio)
                history.append({"approx_kl": np.mean((ratio - 1) - log_ratio),
                                "clip_fraction": np.mean(np.abs(ratio - 1) > config.clip_eps),
                                "entropy": entropy, "value_loss": v_loss})
        «return {key: np.mean([h[key] for h in history]) for key in history[0]}‖summary = {}
        for key in ("approx_kl", "clip_fraction", "entropy", "value_loss"):
            summary[key] = np.mean([entry[key] for entry in history])
        return summary»
        """,
    ],
    "A_ppo/ppo.py:explained_variance": [
        """
        variance = np.var(target)
        return float(1 - np.var(target - predicted) / variance) if variance > 0 else float("nan")
        """,
        """
        target = np.asarray(target, dtype=float)
        var_y = «target.var()‖np.var(target)»
        if var_y == 0:
            return float("nan")
        return float(1.0 - np.var(target - np.asarray(predicted, dtype=float)) / var_y)
        """,
    ],
    # ------------------------------------------------------------------------------------------------ Project C
    "C_diagnosis/diagnostics.py:policy_entropy": [
        """
        z = np.asarray(logits, dtype=float)
        z = z - z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        p = np.exp(logp)
        return -np.sum(np.where(p > 0, p * np.where(p > 0, logp, 0.0), 0.0), axis=1)
        """,
        """
        logits = np.array(logits, dtype=float)
        shifted = logits - «np.max(logits, axis=1, keepdims=True)‖logits.max(axis=-1, keepdims=True)»
        weights = np.exp(shifted)
        probs = weights / weights.sum(axis=1, keepdims=True)
        «safe_log = np.log(np.where(probs > 0, probs, 1.0))‖safe_log = np.log(np.clip(probs, 1e-300, None)) * (probs > 0)»
        return -(probs * safe_log).sum(axis=1)
        """,
        """
        out = []
        for row in np.asarray(logits, dtype=float):
            row = row - row.max()
            p = np.exp(row) / np.exp(row).sum()
            «h = -sum(pk * np.log(pk) for pk in p if pk > 0)‖h = -np.sum(p[p > 0] * np.log(p[p > 0]))»
            out.append(h)
        return np.array(out, dtype=float)
        """,
    ],
    "C_diagnosis/diagnostics.py:logit_magnitude": [
        """
        z = np.asarray(logits, dtype=float)
        return np.mean(np.abs(z - z.mean(axis=1, keepdims=True)), axis=1)
        """,
        """
        logits = np.array(logits, dtype=float)
        centred = logits - «logits.mean(axis=-1)[:, None]‖np.mean(logits, axis=1, keepdims=True)»
        return np.abs(centred).sum(axis=1) / logits.shape[1]
        """,
    ],
    "C_diagnosis/diagnostics.py:approx_kl": [
        """
        log_rho = np.asarray(logp_new, dtype=float) - np.asarray(logp_old, dtype=float)
        return float(np.mean(np.expm1(log_rho) - log_rho))
        """,
        """
        diff = np.subtract(logp_new, logp_old, dtype=float)
        ratio = np.exp(diff)
        return «float(((ratio - 1) - diff).mean())‖float(np.mean(ratio - 1 - diff))»
        """,
    ],
    "C_diagnosis/diagnostics.py:clip_fraction": [
        """
        rho = np.exp(np.asarray(logp_new, dtype=float) - np.asarray(logp_old, dtype=float))
        return float(np.mean(np.abs(rho - 1) > eps))
        """,
        """
        ratio = np.exp(np.subtract(logp_new, logp_old, dtype=float))
        outside = «(ratio > 1 + eps) | (ratio < 1 - eps)‖np.logical_or(ratio > 1 + eps, ratio < 1 - eps)»
        return float(outside.sum()) / outside.size
        """,
    ],
    "C_diagnosis/diagnostics.py:explained_variance": [
        """
        values, returns = np.asarray(values, dtype=float), np.asarray(returns, dtype=float)
        spread = np.var(returns)
        if spread == 0:
            return float("nan")
        return float(1 - np.var(returns - values) / spread)
        """,
        """
        y = np.array(returns, dtype=float)
        residual = y - np.array(values, dtype=float)
        var_y = «y.var()‖((y - y.mean()) ** 2).mean()»
        return float("nan") if var_y == 0 else float(1.0 - residual.var() / var_y)
        """,
    ],
    "C_diagnosis/diagnostics.py:td_error_stats": [
        """
        td, q = np.abs(np.asarray(td_errors, dtype=float)), np.abs(np.asarray(q_taken, dtype=float))
        return {"mean_abs": float(td.mean()), "max_abs": float(td.max()), "relative": float(td.mean() / q.mean())}
        """,
        """
        abs_td = np.abs(np.array(td_errors, dtype=float))
        mean_abs = «float(np.mean(abs_td))‖float(abs_td.sum() / abs_td.size)»
        stats = {"mean_abs": mean_abs, "max_abs": float(np.max(abs_td))}
        stats["relative"] = mean_abs / float(np.mean(np.abs(np.array(q_taken, dtype=float))))
        return stats
        """,
    ],
    "C_diagnosis/diagnostics.py:q_overestimation": [
        """
        q, g = np.asarray(q_taken, dtype=float), np.asarray(mc_returns, dtype=float)
        return {"vs_mc": float(np.mean(q - g)), "ratio_mc": float(q.mean() / g.mean()),
                "above_bound": float(np.mean(q > 1 / (1 - gamma)))}
        """,
        """
        q = np.array(q_taken, dtype=float)
        g = np.array(mc_returns, dtype=float)
        bound = 1.0 / (1.0 - gamma)
        result = {}
        result["vs_mc"] = «float(q.mean() - g.mean())‖float(np.mean(q) - np.mean(g))»
        result["ratio_mc"] = float(np.mean(q) / np.mean(g))
        result["above_bound"] = float((q > bound).sum() / q.size)
        return result
        """,
    ],
    "C_diagnosis/diagnostics.py:return_drop": [
        """
        y = np.asarray(curve, dtype=float)
        y = y[~np.isnan(y)]
        if len(y) == 0:
            return 0.0
        peak = int(np.argmax(y))
        if peak == len(y) - 1:
            return 0.0
        return float(1 - y[peak + 1:].mean() / y[peak])
        """,
        """
        finite = [float(v) for v in curve if not np.isnan(v)]
        if not finite:
            return 0.0
        best = max(range(len(finite)), key=lambda i: (finite[i], -i))
        after = finite[best + 1:]
        if «not after‖len(after) == 0»:
            return 0.0
        return 1.0 - (sum(after) / len(after)) / finite[best]
        """,
    ],
    "C_diagnosis/diagnostics.py:diagnose": [
        """
        late = late_half(log)
        if "q_values" in log:
            q = log["q_values"][np.arange(len(late)), log["actions"]]
            worst = max(td_error_stats(log["td_errors"][now], q[now])["relative"]
                        for u in np.unique(log["update"][late]) for now in [log["update"] == u])
            return "small_replay_buffer" if worst > 0.05 else "healthy"
        if np.mean(policy_entropy(log["logits"])) < 0.2:
            return "saturated_policy"
        if explained_variance(log["values"][late], log["returns"][late]) < 0.3:
            return "untrained_critic"
        return "healthy"
        """,
        """
        second_half = late_half(log)
        if «"q_values" in log‖"q_values" in log.keys()»:
            taken = log["q_values"][np.arange(len(log["actions"])), log["actions"]]
            spikes = []
            for update in np.unique(log["update"][second_half]):
                rows = log["update"] == update
                spikes.append(td_error_stats(log["td_errors"][rows], taken[rows])["relative"])
            return "small_replay_buffer" if max(spikes) > 0.05 else "healthy"
        entropy = float(np.mean(policy_entropy(log["logits"])))
        if entropy < 0.2:
            return "saturated_policy"
        ev = explained_variance(log["values"][second_half], log["returns"][second_half])
        return "untrained_critic" if ev < 0.3 else "healthy"
        """,
    ],
    "C_diagnosis/diagnostics.py:my_labels": [
        """
        return {path.stem: diagnose(load_log(path)) for path in sorted(LOGS.glob("*.npz"))}
        """,
        """
        labels = {}
        for name in («"agent_a", "agent_b", "agent_c"‖["agent_a", "agent_b", "agent_c"]»):
            labels[name] = diagnose(load_log(LOGS / f"{name}.npz"))
        return labels
        """,
    ],
    # ------------------------------------------------------------------------------------------------ Project B
    "B_ablations/details.py:init_agent": [
        """
        if details.orthogonal_init:
            return {"actor": mlp_init(sizes + [N_ACTIONS], rng, out_gain=0.01),
                    "critic": mlp_init(sizes + [1], rng, out_gain=1.0)}
        return {"actor": mlp_init_gaussian(sizes + [N_ACTIONS], rng), "critic": mlp_init_gaussian(sizes + [1], rng)}
        """,
        """
        actor_sizes, critic_sizes = sizes + [N_ACTIONS], sizes + [1]
        if «not details.orthogonal_init‖details.orthogonal_init is False»:
            actor = mlp_init_gaussian(actor_sizes, rng)
            critic = mlp_init_gaussian(critic_sizes, rng)
        else:
            actor = mlp_init(actor_sizes, rng, out_gain=0.01)
            critic = mlp_init(critic_sizes, rng, out_gain=1.0)
        return dict(actor=actor, critic=critic)
        """,
    ],
    "B_ablations/details.py:make_optimizer": [
        """
        eps = config.adam_eps if details.large_adam_eps else SMALL_ADAM_EPS
        return Adam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=config.lr, eps=eps)
        """,
        """
        params = flatten(agent["actor"])
        params = params + flatten(agent["critic"])
        return Adam(params, lr=config.lr, eps=«SMALL_ADAM_EPS if not details.large_adam_eps else config.adam_eps‖(config.adam_eps if details.large_adam_eps else SMALL_ADAM_EPS)»)
        """,
    ],
    "B_ablations/details.py:learning_rate": [
        """
        return config.lr * (1 - update / n_updates) if details.anneal_lr else config.lr
        """,
        """
        if not details.anneal_lr:
            return config.lr
        «frac = 1.0 - update / n_updates‖frac = (n_updates - update) / n_updates»
        return frac * config.lr
        """,
    ],
    "B_ablations/details.py:advantages_and_returns": [
        """
        terminated = segment.terminated if details.bootstrap_truncation else segment.terminated | segment.truncated
        return gae(segment.rewards, segment.values, terminated, segment.truncated, config.gamma, config.lam)
        """,
        """
        ends = segment.terminated
        if not details.bootstrap_truncation:
            ends = «np.logical_or(segment.terminated, segment.truncated)‖segment.truncated | segment.terminated»
        return gae(segment.rewards, segment.values, ends, segment.truncated, gamma=config.gamma, lam=config.lam)
        """,
    ],
    "B_ablations/details.py:clipped_value_loss": [
        """
        clipped = values_old + np.clip(values - values_old, -eps, eps)
        plain_sq, clipped_sq = (values - returns) ** 2, (clipped - returns) ** 2
        use_clipped = clipped_sq > plain_sq
        grad = np.where(use_clipped, (clipped - returns) * (np.abs(values - values_old) < eps), values - returns)
        return 0.5 * np.maximum(plain_sq, clipped_sq).mean(), grad / len(values)
        """,
        """
        delta = values - values_old
        v_clip = values_old + «np.clip(delta, -eps, eps)‖np.minimum(np.maximum(delta, -eps), eps)»
        loss_plain = np.square(values - returns)
        loss_clip = np.square(v_clip - returns)
        loss = 0.5 * np.mean(np.maximum(loss_plain, loss_clip))
        inside = np.abs(delta) < eps
        grad = values - returns
        takes_clip = loss_clip > loss_plain
        grad[takes_clip] = ((v_clip - returns) * inside)[takes_clip]
        return loss, grad / values.shape[0]
        """,
    ],
    "B_ablations/details.py:ppo_update": [
        """
        B = len(batch["actions"])
        size = B // config.minibatches
        epochs = config.epochs if details.multiple_epochs else 1
        ent_coef = ENTROPY_COEF if details.entropy_bonus else config.ent_coef
        for epoch in range(epochs):
            perm, stats = rng.permutation(B), []
            for k in range(config.minibatches):
                idx = perm[k * size:(k + 1) * size]
                adv = batch["advantages"][idx]
                if details.normalize_advantages:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                logits, actor_cache = mlp_forward(agent["actor"], batch["obs"][idx])
                values, critic_cache = mlp_forward(agent["critic"], batch["obs"][idx])
                surrogate, d_surrogate = clipped_surrogate(logits, batch["actions"][idx], batch["logp"][idx], adv,
                                                           config.clip_eps)
                if details.clip_value_loss:
                    v_loss, d_values = clipped_value_loss(values[:, 0], batch["values"][idx], batch["returns"][idx],
                                                          config.clip_eps)
                else:
                    v_loss, d_values = value_loss(values[:, 0], batch["returns"][idx])
                H, d_entropy = entropy_bonus(logits)
                grads = flatten(mlp_backward(agent["actor"], actor_cache, -d_surrogate - ent_coef * d_entropy))
                grads += flatten(mlp_backward(agent["critic"], critic_cache, config.vf_coef * d_values[:, None]))
                if details.clip_gradients:
                    grads = clip_by_global_norm(grads, config.max_grad_norm)[0]
                optimizer.step(grads)
                if epoch < epochs - 1:
                    continue
                log_rho = log_softmax(logits)[np.arange(len(idx)), batch["actions"][idx]] - batch["logp"][idx]
                stats.append((np.mean(np.expm1(log_rho) - log_rho), np.mean(np.abs(np.expm1(log_rho)) > config.clip_eps),
                              H, v_loss))
        kl, clip_fraction, H, v_loss = np.mean(stats, axis=0)
        return {"approx_kl": kl, "clip_fraction": clip_fraction, "entropy": H, "value_loss": v_loss}
        """,
        """
        n = batch["actions"].shape[0]
        mb = n // config.minibatches
        n_epochs = «1 if not details.multiple_epochs else config.epochs‖config.epochs if details.multiple_epochs else 1»
        c_ent = ENTROPY_COEF if details.entropy_bonus else config.ent_coef
        kls, fracs, ents, vls = [], [], [], []
        for epoch in range(n_epochs):
            order = rng.permutation(n)
            for start in range(0, mb * config.minibatches, mb):
                sel = order[start:start + mb]
                obs, acts, old_logp = batch["obs"][sel], batch["actions"][sel], batch["logp"][sel]
                a = batch["advantages"][sel]
                if details.normalize_advantages:
                    a = (a - np.mean(a)) / (np.std(a) + 1e-8)
                actor_out, actor_cache = mlp_forward(agent["actor"], obs)
                critic_out, critic_cache = mlp_forward(agent["critic"], obs)
                _, g_pi = clipped_surrogate(actor_out, acts, old_logp, a, config.clip_eps)
                v_now = critic_out[:, 0]
                if details.clip_value_loss:
                    vl, g_v = clipped_value_loss(v_now, batch["values"][sel], batch["returns"][sel], config.clip_eps)
                else:
                    vl, g_v = value_loss(v_now, batch["returns"][sel])
                ent, g_ent = entropy_bonus(actor_out)
                actor_grad = mlp_backward(agent["actor"], actor_cache, -(g_pi + c_ent * g_ent))
                critic_grad = mlp_backward(agent["critic"], critic_cache, (config.vf_coef * g_v)[:, None])
                total = flatten(actor_grad) + flatten(critic_grad)
                if details.clip_gradients:
                    total, _norm = clip_by_global_norm(total, config.max_grad_norm)
                optimizer.step(total)
                if epoch == n_epochs - 1:
                    lr_ = log_softmax(actor_out)[np.arange(len(sel)), acts] - old_logp
                    ratio = np.exp(lr_)
                    kls.append(np.mean(ratio - 1 - lr_))
                    fracs.append(np.mean(np.abs(ratio - 1) > config.clip_eps))
                    ents.append(ent)
                    vls.append(vl)
        return {"approx_kl": np.mean(kls), "clip_fraction": np.mean(fracs), "entropy": np.mean(ents),
                "value_loss": np.mean(vls)}
        """,
        """
        n_samples = len(batch["actions"])
        per_minibatch = n_samples // config.minibatches
        n_epochs = «config.epochs if details.multiple_epochs else 1‖1 if not details.multiple_epochs else config.epochs»
        ent_coef = ENTROPY_COEF if details.entropy_bonus else config.ent_coef
        history = []
        for epoch in range(n_epochs):
            shuffled = rng.permutation(n_samples)
            history = []
            for k in range(config.minibatches):
                rows = shuffled[k * per_minibatch:(k + 1) * per_minibatch]
                mb = {key: value[rows] for key, value in batch.items()}
                advantages = mb["advantages"]
                if details.normalize_advantages:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
                logits, actor_cache = mlp_forward(agent["actor"], mb["obs"])
                values, critic_cache = mlp_forward(agent["critic"], mb["obs"])
                _, d_policy = clipped_surrogate(logits, mb["actions"], mb["logp"], advantages, config.clip_eps)
                if details.clip_value_loss:
                    v_loss, d_value = clipped_value_loss(values[:, 0], mb["values"], mb["returns"], config.clip_eps)
                else:
                    v_loss, d_value = value_loss(values[:, 0], mb["returns"])
                entropy, d_entropy = entropy_bonus(logits)
                grads = flatten(mlp_backward(agent["actor"], actor_cache, -d_policy - ent_coef * d_entropy))
                grads = grads + flatten(mlp_backward(agent["critic"], critic_cache, config.vf_coef * d_value[:, None]))
                if details.clip_gradients:
                    grads, _ = clip_by_global_norm(grads, config.max_grad_norm)
                optimizer.step(grads)
                log_ratio = log_softmax(logits)[np.arange(len(rows)), mb["actions"]] - mb["logp"]
                ratio = np.exp(log_ratio)
                history.append(«(np.mean((ratio - 1) - log_ratio), np.mean(np.abs(ratio - 1) > config.clip_eps), entropy, v_loss)‖(np.mean(ratio - 1 - log_ratio), np.mean(np.abs(ratio - 1) > config.clip_eps), entropy, v_loss)»)
        kl, clip_fraction, entropy, v_loss = np.mean(np.array(history), axis=0)
        return {"approx_kl": kl, "clip_fraction": clip_fraction, "entropy": entropy, "value_loss": v_loss}
        """,
    ],
    "B_ablations/ablation.py:ablated": [
        """
        return («"normalize_advantages", "clip_value_loss", "orthogonal_init", "anneal_lr", "multiple_epochs"‖"multiple_epochs", "anneal_lr", "clip_gradients", "normalize_advantages", "orthogonal_init"»)
        """,
    ],
    "B_ablations/ablation.py:conclusion": [
        """
        return («"multiple_epochs",‖"multiple_epochs", "anneal_lr"»)
        """,
    ],
    "B_ablations/ablation.py:setting": [
        """
        if name == "baseline":
            return Details()
        if name not in {f.name for f in fields(Details)}:
            raise ValueError(f"{name!r} is not a field of Details")
        return replace(Details(), **{name: not getattr(Details(), name)})
        """,
        """
        base = Details()
        if name «== "baseline"‖in ("baseline",)»:
            return base
        known = [field.name for field in fields(Details)]
        if name not in known:
            raise ValueError("unknown detail: " + name)
        flipped = {name: not getattr(base, name)}
        return replace(base, **flipped)
        """,
    ],
    "B_ablations/ablation.py:training_score": [
        """
        returns = np.array([entry["episode_return"] for entry in log], dtype=float)
        return float(np.mean(returns[~np.isnan(returns)])) if (~np.isnan(returns)).any() else float("nan")
        """,
        """
        values = [e["episode_return"] for e in log if not np.isnan(e["episode_return"])]
        «return float(np.mean(values)) if values else float("nan")‖if not values:
            return float("nan")
        return float(sum(values) / len(values))»
        """,
    ],
    "B_ablations/ablation.py:summarize": [
        """
        names = list(scores)
        table = np.array([scores[name] for name in names], dtype=float)
        medians, lows, highs = np.median(table, axis=1), table.min(axis=1), table.max(axis=1)
        return {name: {"median": float(m), "min": float(lo), "max": float(hi)}
                for name, m, lo, hi in zip(names, medians, lows, highs)}
        """,
        """
        summary = {}
        for name, values in scores.items():
            values = np.asarray(values, dtype=float)
            summary[name] = «{"median": float(np.median(values)), "min": float(values.min()), "max": float(values.max())}‖dict(median=float(np.median(values)), min=float(np.min(values)), max=float(np.max(values)))»
        return summary
        """,
    ],
    "B_ablations/ablation.py:matters": [
        """
        spread = max(np.ptp(scores[name]), np.ptp(scores["baseline"]))
        return bool(abs(np.median(scores[name]) - np.median(scores["baseline"])) > spread)
        """,
        """
        ours, base = np.asarray(scores[name], float), np.asarray(scores["baseline"], float)
        widest = max(ours.max() - ours.min(), base.max() - base.min())
        «return bool(abs(np.median(ours) - np.median(base)) > widest)‖change = np.median(ours) - np.median(base)
        return bool(abs(change) > widest)»
        """,
    ],
}
