"""The nine PPO details Project B can switch, with Project A's choice for each: plain data that both sides of the
sandbox use (the child to build the student's ``Details``, the grader to judge), unlike the oracle."""

DETAILS = {  # name -> Project A's choice (the default); flipping one is the ablation of that detail
    "normalize_advantages": True, "clip_value_loss": False, "orthogonal_init": True, "anneal_lr": True,
    "clip_gradients": True, "entropy_bonus": False, "large_adam_eps": True, "bootstrap_truncation": True,
    "multiple_epochs": True}

WHERE = {  # the function of details.py in which each switch acts
    "orthogonal_init": "init_agent", "large_adam_eps": "make_optimizer", "anneal_lr": "learning_rate",
    "bootstrap_truncation": "advantages_and_returns", "normalize_advantages": "ppo_update",
    "clip_value_loss": "ppo_update", "clip_gradients": "ppo_update", "entropy_bonus": "ppo_update",
    "multiple_epochs": "ppo_update"}


def flipped(name: str | None) -> dict:
    """The details of a setting: the baseline (``None``) or the baseline with ``name`` flipped."""
    return {**DETAILS, name: not DETAILS[name]} if name else dict(DETAILS)
