"""Generated mutants that kept full marks in an earlier round, each a real mistake a check now reads: picked by
project, function, change and the reference's line, never by an id's line number, which moves when a line above it
is edited."""

from tests.support.equivalent_mutants import key
from tests.support.mutations import generate

A_NORMALIZATION = "adv = (adv - adv.mean()) / (adv.std() + 1e-8)"
A_EPOCH_TEST = "if epoch < config.epochs - 1:"
B_NORMALIZATION = A_NORMALIZATION
B_LOSS = "return 0.5 * np.maximum(plain_sq, clipped_sq).mean(), grad / len(values)"
B_LOG_RHO = 'log_rho = log_softmax(logits)[np.arange(len(idx)), batch["actions"][idx]] - batch["logp"][idx]'
B_STATS = "kl, clip_fraction, H, v_loss = np.mean(stats, axis=0)"

CAUGHT = [  # (project, function, change, the reference's line, the check that now fails it)
    # a first minibatch of nearly equal advantages: the normalization's epsilon decides its scale
    ("A", "ppo_update", "adv.std() + 1e-08 -> adv.std()", A_NORMALIZATION, "A.update"),
    ("A", "ppo_update", "1e-08 -> 2e-08", A_NORMALIZATION, "A.update"),
    ("A", "ppo_update", "1e-08 -> 0.0", A_NORMALIZATION, "A.update"),
    # one epoch returns no statistics: the ladder's one-epoch rungs are graded calls
    ("A", "ppo_update", "config.epochs - 1 -> 1", A_EPOCH_TEST, "A.update"),
    ("B", "ppo_update", "adv.std() + 1e-08 -> adv.std()", B_NORMALIZATION, "B.switches"),
    ("B", "ppo_update", "adv.std() + 1e-08 -> adv.std() - 1e-08", B_NORMALIZATION, "B.switches"),
    ("B", "ppo_update", "1e-08 -> 2e-08", B_NORMALIZATION, "B.switches"),
    # the value loss clipped_value_loss returns is the statistic ppo_update returns as value_loss
    ("B", "clipped_value_loss", "0.5 -> 1.0", B_LOSS, "B.switches"),
    ("B", "clipped_value_loss", "np.maximum -> np.minimum", B_LOSS, "B.switches"),
    ("B", "clipped_value_loss", "np.maximum(plain_sq, clipped_sq).mean -> np.maximum(plain_sq, clipped_sq).sum", B_LOSS,
     "B.switches"),
    # the statistics ppo_update returns under each setting
    ("B", "ppo_update", "0 -> None", B_STATS, "B.switches"),
    ("B", "ppo_update", "np.mean -> np.sum", B_STATS, "B.switches"),
    ("B", "ppo_update", "log_softmax(logits)[np.arange(len(idx)), batch['actions'][idx]] - batch['logp'][idx] -> "
     "log_softmax(logits)[np.arange(len(idx)), batch['actions'][idx]] + batch['logp'][idx]", B_LOG_RHO, "B.switches"),
]


def mutant_of(project: str, function: str, change: str, line: str):
    found = [m for m in generate(project) if key(m)[:4] == (project, function, change, line)]
    assert len(found) == 1, f"the generator no longer makes {project}.{function}: {change} (found {len(found)})"
    return found[0]
