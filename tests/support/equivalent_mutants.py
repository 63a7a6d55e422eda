"""Generated mutants that no valid input can tell from the reference: the reviewed list that
benchmarks/mutant_survivors.py reads its survivors against.

A generated mutant (tests/support/mutations.py) that keeps full marks on every check of its project is either a
mistake some check should catch or one no input the project's README allows can reveal. Only the second kind is listed
here, each with the one-line reason, after reading its change in the reference's code; the list is reviewed, never
grown to make a test pass. (A correct implementation written by hand lives in tests/projects/<id>/mutants.py's
``EQUIVALENT`` instead: that is a whole rewrite with the checks it must pass; this is one mechanical change.)

An entry is keyed by what stays put when the module is edited elsewhere: the project, the function, the change as the
generator prints it (before -> after), the reference's line the change starts on (stripped) and its column there (the
same change can sit twice on one line: ``p > 0`` twice in C's entropy). A mutant's id names the line's number, which
moves whenever a line above it changes; the line's text and the column on it move only when that line is edited.
"""

from __future__ import annotations

from typing import NamedTuple

from tests.support.mutations import MODULES, SOLUTIONS


class Equivalence(NamedTuple):
    """A generated mutant that keeps its project's full marks because no valid input tells it apart."""
    project: str
    function: str
    change: str     # before -> after, as GeneratedMutant.change prints it
    line: str       # the reference's line the change starts on, stripped
    column: int     # where on that line (unstripped, in UTF-8 bytes) the changed expression starts, as in the id
    reason: str     # why no input the README allows can tell it from the reference, in one line


A_CLIP = "clipped = ((advantages > 0) & (rho > 1 + eps)) | ((advantages < 0) & (rho < 1 - eps))"
B_SQUARES = "plain_sq, clipped_sq = (values - returns) ** 2, (clipped - returns) ** 2"
B_GRAD = "grad = np.where(use_clipped, (clipped - returns) * (np.abs(values - values_old) < eps), values - returns)"
STATS_AFRESH = ("collects the statistics in earlier epochs too, but each epoch starts their list afresh "
                "(stats = []), so only the last epoch's are returned, as the reference's")
ONE_COLUMN = "the critic's output has one column (its layer sizes end in 1), so column -1 is column 0"
C_ENTROPY = "return -np.sum(np.where(p > 0, p * np.where(p > 0, logp, 0.0), 0.0), axis=1)"
D_CLIP = "clipped = ((A > 0) & (rho > 1 + eps)) | ((A < 0) & (rho < 1 - eps))"
ONE_GUARD = ("0 log 0 is made 0 twice, by the inner and by the outer p > 0; the guard left whole still zeroes every "
             "p = 0 term")
CLIP_ARGUMENTS = "np.clip(a, lo, hi) is minimum(maximum(a, lo), hi), and maximum(a, lo) is maximum(lo, a)"
KINK = ("differs only at a ratio exactly on the clip's edge, the surrogate's kink (both branches equal, no "
        "derivative), where the README accepts either one-sided gradient")

EQUIVALENT: list[Equivalence] = [
    # A: a zero advantage makes a zero term on either branch, the critic's one column, the statistics' list
    Equivalence("A", "clipped_surrogate", "advantages < 0 -> advantages <= 0", A_CLIP, 55,
                "a sample with advantage 0 weighs rho * 0 = 0 unclipped and 0 clipped (rho = exp of a finite "
                "log-ratio)"),
    Equivalence("A", "clipped_surrogate", "advantages > 0 -> advantages >= 0", A_CLIP, 16,
                "a sample with advantage 0 weighs rho * 0 = 0 unclipped and 0 clipped (rho = exp of a finite "
                "log-ratio)"),
    Equivalence("A", "clipped_surrogate", "rho > 1 + eps -> rho >= 1 + eps", A_CLIP, 35, KINK),
    Equivalence("A", "clipped_surrogate", "rho < 1 - eps -> rho <= 1 - eps", A_CLIP, 74, KINK),
    Equivalence("A", "clipped_surrogate", "np.minimum(rho * advantages, np.clip(rho, 1 - eps, 1 + eps) * advantages) "
                "-> np.minimum(np.clip(rho, 1 - eps, 1 + eps) * advantages, rho * advantages)",
                "objective = np.minimum(rho * advantages, np.clip(rho, 1 - eps, 1 + eps) * advantages).mean()", 16,
                "np.minimum is symmetric, NaN included (either argument's NaN is returned)"),
    Equivalence("A", "clipped_surrogate", "np.clip(rho, 1 - eps, 1 + eps) -> np.clip(1 - eps, rho, 1 + eps)",
                "objective = np.minimum(rho * advantages, np.clip(rho, 1 - eps, 1 + eps) * advantages).mean()", 45,
                CLIP_ARGUMENTS),
    Equivalence("A", "ppo_update", "0 -> -1", 'v_loss, d_values = value_loss(values[:, 0], batch["returns"][idx])',
                52, ONE_COLUMN),
    Equivalence("A", "ppo_update", "config.epochs - 1 -> 1 - config.epochs", "if epoch < config.epochs - 1:", 23,
                STATS_AFRESH),
    Equivalence("A", "ppo_update", "1 -> 2", "if epoch < config.epochs - 1:", 39, STATS_AFRESH),
    Equivalence("A", "ppo_update", "np.abs(np.expm1(log_rho)) > config.clip_eps -> "
                "np.abs(np.expm1(log_rho)) >= config.clip_eps",
                'stats.append((np.mean(np.expm1(log_rho) - log_rho), np.mean(np.abs(np.expm1(log_rho)) > '
                'config.clip_eps),', 72,
                "differs only for a ratio whose |rho - 1| is clip_eps exactly, which the README lets count either way"),
    Equivalence("A", "explained_variance", "target - predicted -> predicted - target",
                'return float(1 - np.var(target - predicted) / variance) if variance > 0 else float("nan")', 28,
                "the variance of -x is the variance of x, bit for bit (its mean and every deviation only change sign)"),
    # B: a sign inside a square, np.clip's first two arguments (a max of the two), the value loss's own kinks
    Equivalence("B", "clipped_value_loss", "np.clip(values - values_old, -eps, eps) -> "
                "np.clip(-eps, values - values_old, eps)",
                "clipped = values_old + np.clip(values - values_old, -eps, eps)", 27,
                CLIP_ARGUMENTS),
    Equivalence("B", "clipped_value_loss", "values - returns -> returns - values", B_SQUARES, 28,
                "(a - b) ** 2 and (b - a) ** 2 are the same float: IEEE subtraction rounds symmetrically"),
    Equivalence("B", "clipped_value_loss", "clipped - returns -> returns - clipped", B_SQUARES, 53,
                "(a - b) ** 2 and (b - a) ** 2 are the same float: IEEE subtraction rounds symmetrically"),
    Equivalence("B", "clipped_value_loss", "clipped_sq > plain_sq -> clipped_sq >= plain_sq",
                "use_clipped = clipped_sq > plain_sq", 18,
                "differs only where both branches of the max are equal, the loss's kink (no derivative), where the "
                "README accepts either one-sided gradient"),
    Equivalence("B", "clipped_value_loss", "np.abs(values - values_old) < eps -> np.abs(values - values_old) <= eps",
                B_GRAD, 56,
                "differs only at |V - V_old| == eps exactly, the clip's kink (no derivative), where the README "
                "accepts either one-sided gradient"),
    Equivalence("B", "clipped_value_loss", "values - values_old -> values_old - values", B_GRAD, 63,
                "|a - b| and |b - a| are the same float: IEEE subtraction rounds symmetrically"),
    Equivalence("B", "clipped_value_loss", "np.maximum(plain_sq, clipped_sq) -> np.maximum(clipped_sq, plain_sq)",
                "return 0.5 * np.maximum(plain_sq, clipped_sq).mean(), grad / len(values)", 17,
                "np.maximum is symmetric, NaN included (either argument's NaN is returned)"),
    Equivalence("B", "ppo_update", "epochs - 1 -> 1 - epochs", "if epoch < epochs - 1:", 23, STATS_AFRESH),
    Equivalence("B", "ppo_update", "1 -> 2", "if epoch < epochs - 1:", 32, STATS_AFRESH),
    Equivalence("B", "ppo_update", "0 -> -1", 'v_loss, d_values = clipped_value_loss(values[:, 0], '
                'batch["values"][idx], batch["returns"][idx],', 64, ONE_COLUMN),
    Equivalence("B", "ppo_update", "0 -> -1", 'v_loss, d_values = value_loss(values[:, 0], batch["returns"][idx])', 56,
                ONE_COLUMN),
    Equivalence("B", "ppo_update", "np.abs(np.expm1(log_rho)) > config.clip_eps -> "
                "np.abs(np.expm1(log_rho)) >= config.clip_eps",
                'stats.append((np.mean(np.expm1(log_rho) - log_rho), np.mean(np.abs(np.expm1(log_rho)) > '
                'config.clip_eps),', 72,
                "differs only for a ratio whose |rho - 1| is clip_eps exactly, which Project A's README (whose "
                "statistics B's are) lets count either way"),
    # C: a guard written twice, a sign inside an absolute value or a variance, a count at its exact float edge
    Equivalence("C", "policy_entropy", "p > 0 -> p >= 0", C_ENTROPY, 28, ONE_GUARD),
    Equivalence("C", "policy_entropy", "0 -> -1", C_ENTROPY, 32, ONE_GUARD),
    Equivalence("C", "policy_entropy", "p > 0 -> p >= 0", C_ENTROPY, 48, ONE_GUARD),
    Equivalence("C", "policy_entropy", "0 -> -1", C_ENTROPY, 52, ONE_GUARD),
    Equivalence("C", "logit_magnitude", "z - z.mean(axis=1, keepdims=True) -> z.mean(axis=1, keepdims=True) - z",
                "return np.mean(np.abs(z - z.mean(axis=1, keepdims=True)), axis=1)", 26,
                "|a - b| and |b - a| are the same float: IEEE subtraction rounds symmetrically"),
    Equivalence("C", "clip_fraction", "np.abs(rho - 1) > eps -> np.abs(rho - 1) >= eps",
                "return float(np.mean(np.abs(rho - 1) > eps))", 25,
                "differs only for a ratio whose |rho - 1| is eps exactly, which the README lets count either way"),
    Equivalence("C", "clip_fraction", "rho - 1 -> 1 - rho", "return float(np.mean(np.abs(rho - 1) > eps))", 32,
                "|a - b| and |b - a| are the same float: IEEE subtraction rounds symmetrically"),
    Equivalence("C", "explained_variance", "returns - values -> values - returns",
                "return float(1 - np.var(returns - values) / spread)", 28,
                "the variance of -x is the variance of x, bit for bit (its mean and every deviation only change sign)"),
    Equivalence("C", "q_overestimation", "q > 1 / (1 - gamma) -> q >= 1 / (1 - gamma)",
                '"above_bound": float(np.mean(q > 1 / (1 - gamma)))}', 41,
                "differs only for a Q equal to the bound 1 / (1 - gamma) to the last bit, which the README lets "
                "count either way"),
    # C's diagnose: the README says any threshold inside the course's gap, taken with < or <=, is right, and that no
    # graded log lies on a line (every one at least 0.005 beyond it)
    Equivalence("C", "diagnose", "np.mean(policy_entropy(log['logits'])) < 0.2 -> "
                "np.mean(policy_entropy(log['logits'])) <= 0.2",
                'if np.mean(policy_entropy(log["logits"])) < 0.2:  # ln 2 = 0.69 is uniform over two actions', 7,
                "0.2 lies inside the gap between the README's lines (0.1 and 0.25 nats), where < and <= are both "
                "right"),
    Equivalence("C", "diagnose", "explained_variance(log['values'][late], log['returns'][late]) < 0.3 -> "
                "explained_variance(log['values'][late], log['returns'][late]) <= 0.3",
                'if explained_variance(log["values"][late], log["returns"][late]) < 0.3:', 7,
                "0.3 lies inside the gap between the README's lines (0.25 and 0.4), where < and <= are both right"),
    Equivalence("C", "diagnose", "worst > 0.05 -> worst >= 0.05",
                'return "small_replay_buffer" if worst > 0.05 else "healthy"', 40,
                "differs only for a worst update at 0.05 exactly, on the README's line, where it puts no graded log"),
    # D: a zero advantage makes a zero term on either branch; the clip's own edge is a kink of the surrogate
    Equivalence("D", "clipped_surrogate_gradient", "A > 0 -> A >= 0", D_CLIP, 16,
                "a sample with A = 0 contributes rho * 0 = 0 unclipped and 0 clipped (rho is finite: pi_old > 0)"),
    Equivalence("D", "clipped_surrogate_gradient", "rho > 1 + eps -> rho >= 1 + eps", D_CLIP, 26, KINK),
    Equivalence("D", "clipped_surrogate_gradient", "A < 0 -> A <= 0", D_CLIP, 46,
                "a sample with A = 0 contributes rho * 0 = 0 unclipped and 0 clipped (rho is finite: pi_old > 0)"),
    Equivalence("D", "clipped_surrogate_gradient", "rho < 1 - eps -> rho <= 1 - eps", D_CLIP, 56, KINK),
]


def site_line(mutant) -> str:
    """The reference's line (stripped) that ``mutant``'s change starts on, read from its id's ``L<line>C<column>``."""
    site = mutant.id.split(".")[-2]
    number = int(site[1:site.index("C")])
    folder, module = MODULES[mutant.project]
    return (SOLUTIONS / folder / module).read_text(encoding="utf-8").splitlines()[number - 1].strip()


def key(mutant) -> tuple[str, str, str, str, int]:
    """The list's key of ``mutant``: project, function, change, line text and column."""
    site = mutant.id.split(".")[-2]
    return mutant.project, mutant.id.split(".")[1], mutant.change, site_line(mutant), int(site[site.index("C") + 1:])


def explained(mutant) -> str | None:
    """The list's reason that ``mutant`` is equivalent, or None when the list does not hold it."""
    found = [e.reason for e in EQUIVALENT if e[:5] == key(mutant)]
    return found[0] if found else None
