"""Project B: which PPO implementation details matter (D2L §15.7.6 B)."""

from autograder.project import Project
from autograder.projects.b_ablations.bar import AblationBar
from autograder.projects.b_ablations.summary import Summary
from autograder.projects.b_ablations.table import Table
from autograder.projects.b_ablations.plots import plots
from autograder.projects.b_ablations.switches import Defaults, Switches

PROJECT = Project.of("B", "Which PPO implementation details matter", "B_ablations", ("ppo", "details", "ablation"),
                     [Defaults, Switches, Summary, Table, AblationBar], plots=plots,
                     made_by_students=("results.json", "runs.npz", "ablation.png"), copies={"ppo.py": "A_ppo/ppo.py"})
