"""Project C: diagnose faulty agents from their training logs (D2L §15.7.6 C)."""

from autograder.project import Project
from autograder.projects.c_diagnosis.pieces import Entropy, ExplainedVariance, KLClip, ReturnDrop, TDAndQ
from autograder.projects.c_diagnosis.labels import DiagnoseRules, FreshRuns, OwnLabels, needs_secret
from autograder.projects.c_diagnosis.plots import plots
from autograder.projects.c_diagnosis.run_plan import NAMES

PROJECT = Project.of("C", "Diagnose three faulty agents", "C_diagnosis", ("diagnostics",),
                     [Entropy, KLClip, ExplainedVariance, TDAndQ, ReturnDrop, OwnLabels, FreshRuns, DiagnoseRules],
                     plots=plots,
                     own_files=tuple(f"logs/{name}.npz" for name in NAMES), knows_student=True,
                     commands=f"{__name__}.command:add_commands", needs_secret=needs_secret)
