"""A.bar's proof of learning exercised without the sandbox: correct implementations written differently and cheats
(each an edit of the reference's ``ppo_update`` that must depart from the replay), and ``proof``, which trains one run
as A.bar's child records it and audits it as A.bar's judge does. The proof-of-learning tests use them on short runs;
benchmarks/a_proof_of_learning.py sweeps many seed sets."""

from __future__ import annotations

import sys
import time
import types

from threadpoolctl import threadpool_limits

from autograder import paths
from autograder.checks import validated_bar
from autograder.projects._shared.ppo.hyperparameters import course_config
from autograder.projects._shared.ppo.recording import recorded
from autograder.projects._shared.replay import Departed
from autograder.projects.a_ppo.training import Bar450, audited_run, student_recipe
from tests.support.mutants import EQUIVALENT

REFERENCE = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
REWRITES = {e.name: e for e in EQUIVALENT if e.folder == "A_ppo"}
UPDATE = '    B = len(batch["actions"])\n'
CALLS = "    global CALLS\n    CALLS = globals().get('CALLS', 0) + 1\n"
CHEATS = {  # each edits the reference's ppo_update; every one must depart from the replay
    "pre-trained weights hard-coded": UPDATE.replace("    B", "    PRETRAINED = [np.full(p.shape, 0.05, p.dtype) "
                                                           "for p in optimizer.params]\n    B") ,
    "forged jump at one update": CALLS + "    if CALLS == 7:\n        agent['actor'][0][1] += 1e-3\n" + UPDATE,
    "an update skipped": CALLS + "    if CALLS == 5:\n        return {}\n" + UPDATE,
    "weights trained elsewhere, loaded at the last update": CALLS + "    if CALLS == 12:\n"
        "        for p in optimizer.params:\n            p[...] = np.random.default_rng(1).normal(0, 0.3, p.shape)\n"
        "        return {}\n" + UPDATE,
    "extra steps of the environments": "    import gc\n    from autograder.projects._shared.ppo.recording import "
        "BudgetedEnvs\n    envs = [o for o in gc.get_objects() if isinstance(o, BudgetedEnvs)]\n"
        "    envs and envs[0].step(np.zeros(envs[0].num_envs, dtype=int))\n" + UPDATE,
}
CHEATS["pre-trained weights hard-coded"] += ("    for p, w in zip(optimizer.params, PRETRAINED):\n        p[...] = w\n"
                                             "    return {}\n")


IMPLEMENTATIONS = {"reference": [], "GAE with the TD errors as whole rows": ["GAE with the TD errors computed as "
                                                                              "whole rows first"],
                   "update over the reshaped permutation, ratio as a quotient": [
                       "minibatches as rows of the reshaped permutation", "ratio as a quotient of probabilities"]}


def module_of(source: str) -> types.SimpleNamespace:
    module = types.ModuleType("ppo")
    sys.modules["ppo"] = module  # dataclasses look their module up
    exec(compile(source, "ppo.py", "exec"), module.__dict__)
    return types.SimpleNamespace(modules=[module], fn=lambda name: getattr(module, name))


def source_of(rewrites: list[str]) -> str:
    source = REFERENCE
    for name in rewrites:
        assert source.count(REWRITES[name].old) == 1, name
        source = source.replace(REWRITES[name].old, REWRITES[name].new)
    return source


def proof(source: str, seed: int, bar, n_updates: int) -> tuple[float | None, float, float, float]:
    """(the update that departed or None, its gap, seconds training, seconds auditing) of one run: recorded as
    A.bar's child records it, audited as its judge audits it. ``bar``: A.bar's, as course.yml holds it or validated."""
    if isinstance(bar, dict):
        bar = validated_bar(Bar450, bar, "projects.A.checks.A.bar")
    student = module_of(source)
    graded = bar.model_copy(update={"n_updates": n_updates})
    config, values = course_config(student, graded.hyperparameters), graded.hyperparameters.model_dump()
    started = time.perf_counter()
    try:
        with threadpool_limits(limits=1):  # as the sandboxed child
            run_ = {"seed": seed, **recorded(student_recipe(student, config, values, n_updates), seed, graded,
                                             moments=("m", "v"))}
    except Exception:  # noqa: BLE001 - a cheat that breaks the loop is caught here
        return 0, float("inf"), time.perf_counter() - started, 0.0
    trained = time.perf_counter() - started
    started = time.perf_counter()
    try:
        with threadpool_limits(limits=1):  # as the grader's audit process
            audited_run(run_, seed, graded)
        departed, gap = None, 0.0
    except Departed as exc:
        departed, gap = exc.update, exc.gap
    return departed, gap, trained, time.perf_counter() - started
