"""Project C's planted bugs, each naming the check that must catch it, and its correct implementations written
differently, which must keep full marks on the checks they name (both graded by tests/test_mutants.py)."""

from tests.support.planted import Equivalent, Mutant

MUTANTS = [
    Mutant("entropy in bits instead of nats", "C_diagnosis", "diagnostics.py",
           "return -np.sum(np.where(p > 0, p * np.where(p > 0, logp, 0.0), 0.0), axis=1)",
           "return -np.sum(np.where(p > 0, p * np.where(p > 0, logp, 0.0), 0.0), axis=1) / np.log(2)", "C.entropy",
                  "C.entropy.bits"),
    Mutant("entropy with 0 log 0 left as NaN", "C_diagnosis", "diagnostics.py",
           "return -np.sum(np.where(p > 0, p * np.where(p > 0, logp, 0.0), 0.0), axis=1)",
           "return -np.sum(p * logp, axis=1)", "C.entropy", "C.entropy.zero-log-zero"),
    Mutant("logit magnitude not centred", "C_diagnosis", "diagnostics.py",
           "return np.mean(np.abs(z - z.mean(axis=1, keepdims=True)), axis=1)",
           "return np.mean(np.abs(z), axis=1)", "C.entropy", "C.entropy.magnitude-not-centred"),
    Mutant("KL as the mean log-ratio", "C_diagnosis", "diagnostics.py",
           "return float(np.mean(np.expm1(log_rho) - log_rho))", "return float(np.mean(-log_rho))", "C.kl_clip",
                  "C.kl_clip.mean-log-ratio"),
    Mutant("clip fraction of one side only", "C_diagnosis", "diagnostics.py",
           "return float(np.mean(np.abs(rho - 1) > eps))", "return float(np.mean(rho - 1 > eps))", "C.kl_clip",
                  "C.kl_clip.one-sided-clip-fraction"),
    Mutant("explained variance with the ratio inverted", "C_diagnosis", "diagnostics.py",
           "return float(1 - np.var(returns - values) / spread)",
           "return float(1 - spread / np.var(returns - values))", "C.explained_variance",
                  "C.explained_variance.inverted"),
    Mutant("explained variance 0 for constant returns", "C_diagnosis", "diagnostics.py",
           '        return float("nan")\n    return float(1 - np.var',
           '        return 0.0\n    return float(1 - np.var', "C.explained_variance",
                  "C.explained_variance.zero-for-constant"),
    Mutant("TD errors averaged with their sign", "C_diagnosis", "diagnostics.py",
           "td, q = np.abs(np.asarray(td_errors, dtype=float)), np.abs(np.asarray(q_taken, dtype=float))",
           "td, q = np.asarray(td_errors, dtype=float), np.abs(np.asarray(q_taken, dtype=float))", "C.td_q",
                  "C.td_q.signed-td-errors"),
    Mutant("the bound 1 / gamma instead of 1 / (1 - gamma)", "C_diagnosis", "diagnostics.py",
           '"above_bound": float(np.mean(q > 1 / (1 - gamma)))', '"above_bound": float(np.mean(q > 1 / gamma))',
           "C.td_q", "C.td_q.bound-one-over-gamma"),
    Mutant("return drop measured from the first return", "C_diagnosis", "diagnostics.py",
           "    peak = int(np.argmax(y))\n    if peak == len(y) - 1:", "    peak = 0\n    if peak == len(y) - 1:",
           "C.return_drop", "C.return_drop.from-first-return"),
    Mutant("each verdict filed under the next log's name", "C_diagnosis", "diagnostics.py",
           '    return {path.stem: diagnose(load_log(path)) for path in sorted(LOGS.glob("*.npz"))}',
           '    found = sorted(LOGS.glob("*.npz"))\n'
           '    return {p.stem: diagnose(load_log(q)) for p, q in zip(found, found[1:] + found[:1])}', "C.own_labels"),
    Mutant("diagnose that always says one label", "C_diagnosis", "diagnostics.py",
           "    late = late_half(log)\n    if", '    return "untrained_critic"\n    late = late_half(log)\n    if',
           "C.fresh_runs",
           "C.fresh_runs.always-untrained_critic"),
    Mutant("a threshold that only works on the public logs", "C_diagnosis", "diagnostics.py",
           'if explained_variance(log["values"][late], log["returns"][late]) < 0.3:',
           'if explained_variance(log["values"][late], log["returns"][late]) < 0.97:', "C.fresh_runs",
           "C.fresh_runs.critic-line-too-high"),
    Mutant("a value-based agent is always the faulty one", "C_diagnosis", "diagnostics.py",
           'return "small_replay_buffer" if worst > ', 'return "small_replay_buffer" if worst > -1 or ',
           "C.fresh_runs",
           "C.fresh_runs.value-based-always-faulty"),
    # neighbours: each statistic and rule against its plausible neighbours, on every seed
    Mutant("relative TD error against |mean Q|", "C_diagnosis", "diagnostics.py",
           '"relative": float(td.mean() / q.mean())', '"relative": float(td.mean() / abs(np.mean(q_taken)))',
           "C.td_q", "C.td_q.relative-to-mean-q"),
    Mutant("diagnose reads the critic before the policy", "C_diagnosis", "diagnostics.py",
           '    if np.mean(policy_entropy(log["logits"])) < 0.2:  # ln 2 = 0.69 is uniform over two actions\n'
           '        return "saturated_policy"\n'
           '    if explained_variance(log["values"][late], log["returns"][late]) < 0.3:\n'
           '        return "untrained_critic"\n',
           '    if explained_variance(log["values"][late], log["returns"][late]) < 0.3:\n'
           '        return "untrained_critic"\n'
           '    if np.mean(policy_entropy(log["logits"])) < 0.2:\n'
           '        return "saturated_policy"\n', "C.diagnose_rules",
           "C.diagnose_rules.critic-before-policy"),
    Mutant("diagnose pools the TD errors over the whole log", "C_diagnosis", "diagnostics.py",
           '        worst = max(td_error_stats(log["td_errors"][now], q[now])["relative"]\n'
           '                    for u in np.unique(log["update"][late]) for now in [log["update"] == u])\n',
           '        worst = td_error_stats(log["td_errors"], q)["relative"]\n', "C.diagnose_rules",
           "C.diagnose_rules.td-pooled-over-log"),
    Mutant("diagnose pools the late half's TD errors", "C_diagnosis", "diagnostics.py",
           '        worst = max(td_error_stats(log["td_errors"][now], q[now])["relative"]\n'
           '                    for u in np.unique(log["update"][late]) for now in [log["update"] == u])\n',
           '        worst = td_error_stats(log["td_errors"][late], q[late])["relative"]\n', "C.diagnose_rules",
           "C.diagnose_rules.td-pooled-over-late-half"),
    Mutant("diagnose reads explained variance over the whole run, not its late half", "C_diagnosis",
           "diagnostics.py", 'if explained_variance(log["values"][late], log["returns"][late]) < 0.3:',
           'if explained_variance(log["values"], log["returns"]) < 0.3:', "C.diagnose_rules",
           "C.diagnose_rules.variance-over-whole-run"),
    Mutant("diagnose with the entropy and explained-variance thresholds swapped", "C_diagnosis", "diagnostics.py",
           '    if np.mean(policy_entropy(log["logits"])) < 0.2:  # ln 2 = 0.69 is uniform over two actions\n'
           '        return "saturated_policy"\n'
           '    if explained_variance(log["values"][late], log["returns"][late]) < 0.3:\n',
           '    if np.mean(policy_entropy(log["logits"])) < 0.3:\n'
           '        return "saturated_policy"\n'
           '    if explained_variance(log["values"][late], log["returns"][late]) < 0.2:\n', "C.diagnose_rules",
           "C.diagnose_rules.lines-swapped"),
    # generated mutants that kept full marks until C.entropy's cases ended with logits far apart and
    # C.diagnose_rules' logs with a small buffer whose first and last Q-values are far larger
    Mutant("entropy shifted by the smallest logit", "C_diagnosis", "diagnostics.py",
           "z = z - z.max(axis=1, keepdims=True)", "z = z - z.min(axis=1, keepdims=True)", "C.entropy"),
    Mutant("diagnose reads each update's TD errors against the log's first and last Q-values", "C_diagnosis",
           "diagnostics.py", 'td_error_stats(log["td_errors"][now], q[now])',
           'td_error_stats(log["td_errors"][now], q[now - 1])', "C.diagnose_rules"),
    # the README's earlier healthy-DQN line: once it passed on some draws of grading seeds and failed on others
    Mutant("diagnose with the old healthy-DQN line of 0.03", "C_diagnosis", "diagnostics.py",
           'return "small_replay_buffer" if worst > 0.05 else "healthy"',
           'return "small_replay_buffer" if worst > 0.03 else "healthy"', "C.diagnose_rules"),
]

EQUIVALENT = [
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
    Equivalent("diagnose taking the README's fault-side lines, inclusive", "C_diagnosis", "diagnostics.py",
               '        return "small_replay_buffer" if worst > 0.05 else "healthy"\n'
               '    if np.mean(policy_entropy(log["logits"])) < 0.2:  # ln 2 = 0.69 is uniform over two actions\n'
               '        return "saturated_policy"\n'
               '    if explained_variance(log["values"][late], log["returns"][late]) < 0.3:\n',
               '        return "small_replay_buffer" if worst >= 0.08 else "healthy"\n'
               '    if np.mean(policy_entropy(log["logits"])) <= 0.1:\n'
               '        return "saturated_policy"\n'
               '    if explained_variance(log["values"][late], log["returns"][late]) <= 0.25:\n',
               ("C.diagnose_rules", "C.fresh_runs")),
    Equivalent("diagnose taking the README's healthy-side lines, inclusive", "C_diagnosis", "diagnostics.py",
               '        return "small_replay_buffer" if worst > 0.05 else "healthy"\n'
               '    if np.mean(policy_entropy(log["logits"])) < 0.2:  # ln 2 = 0.69 is uniform over two actions\n'
               '        return "saturated_policy"\n'
               '    if explained_variance(log["values"][late], log["returns"][late]) < 0.3:\n',
               '        return "small_replay_buffer" if not worst <= 0.05 else "healthy"\n'
               '    if np.mean(policy_entropy(log["logits"])) < 0.25:\n'
               '        return "saturated_policy"\n'
               '    if explained_variance(log["values"][late], log["returns"][late]) < 0.4:\n',
               ("C.diagnose_rules", "C.fresh_runs")),
    Equivalent("clip fraction counted", "C_diagnosis", "diagnostics.py",
               "return float(np.mean(np.abs(rho - 1) > eps))",
               "return float(np.count_nonzero(np.abs(rho - 1) > eps) / rho.size)", ("C.kl_clip",)),
    Equivalent("logit magnitude centred by broadcasting", "C_diagnosis", "diagnostics.py",
               "return np.mean(np.abs(z - z.mean(axis=1, keepdims=True)), axis=1)",
               "return np.abs(z - z.mean(axis=1)[:, None]).mean(axis=1)", ("C.entropy",)),
]
