"""Project Z, the template: discounted returns (D2L §15.7's return, G_t = r_t + gamma * G_{t+1}).

Copy this folder to ``autograder/projects/<name>/``, rename the id, title, folder and module, and replace the checks
(``pieces.py``, and ``public/``, the collector and judge of the check handed objects), its oracle (``oracle.py``) and
what the students' checker runs of them (``student_kit.py``); docs/adding-a-project.md says what else a project
needs (its course.yml section, its solution folder, its tests folder).
"""

from autograder.project import Project
from autograder.projects.z_returns.pieces import Returns, ValueStep

PROJECT = Project.of("Z", "Discounted returns (template)", "Z_returns", ("returns",), [Returns, ValueStep])
