"""Project B's planted bugs, each naming the check that must catch it, and its correct implementations written
differently, which must keep full marks on the checks they name (both graded by tests/test_mutants.py)."""

from planted import Equivalent, Mutant

MUTANTS = [
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
    # issue 32's neighbours: each statistic and rule against its plausible neighbours, on every seed
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
]

EQUIVALENT = [
    Equivalent("medians as the 50th percentile", "B_ablations", "ablation.py",
               "np.median(table, axis=1)", "np.percentile(table, 50, axis=1)", ("B.summary",)),
    Equivalent("the metric as a NaN-skipping mean", "B_ablations", "ablation.py",
               "return float(np.mean(returns[~np.isnan(returns)]))", "return float(np.nanmean(returns))",
               ("B.summary",)),
    Equivalent("matters as the negation of at-or-below the spread", "B_ablations", "ablation.py",
               'return bool(abs(np.median(scores[name]) - np.median(scores["baseline"])) > spread)',
               'return not abs(np.median(scores[name]) - np.median(scores["baseline"])) <= spread', ("B.summary",)),
]
