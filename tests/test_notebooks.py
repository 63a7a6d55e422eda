"""The reference notebooks run top to bottom and print the chapter's tables."""

import shutil

import nbclient
import nbformat
import pytest

from autograder import paths
from autograder.nbcells import TAG

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out


def printed_by(folder_name: str, tmp_path, timeout: int) -> str:
    """Run a copy of the reference notebook of ``folder_name``, without its check cells (those are exercised through
    nbgrader in test_nbgrader), and return everything its code cells printed."""
    folder = shutil.copytree(paths.SOLUTIONS / folder_name, tmp_path / folder_name)
    notebook = nbformat.read(folder / f"{folder_name}.ipynb", as_version=4)
    notebook.cells = [c for c in notebook.cells if TAG not in c.metadata.get("tags", [])]
    nbclient.NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}}).execute()
    return "".join(out.get("text", "") for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs)


def test_the_d_notebook_runs_and_reproduces_the_chapters_tables(tmp_path):
    printed = printed_by("D_grpo", tmp_path, timeout=300)
    for line in ["K =  1: success 0.062", "K = 32: success 0.500",
                 "beta = 0.2: sloppy 0.60, gold 0.48, hedge 0.12", "beta = 0.5: sloppy 0.25, gold 0.24, hedge 0.01"]:
        assert line in printed


def test_the_a_notebook_runs_its_self_checks_and_trains_past_the_bar(tmp_path):
    printed = printed_by("A_ppo", tmp_path, timeout=600)
    assert "False" not in printed
    for line in ["GAE at lambda = 1 equals reward-to-go minus V: True",
                 "the clipped gradient equals the plain policy gradient: True",
                 "the ratio is 1 on the first minibatch: True", "above 450: True"]:
        assert line in printed


def test_the_b_notebook_checks_the_defaults_and_tables_the_ablation(tmp_path):
    printed = printed_by("B_ablations", tmp_path, timeout=600)
    for line in ["details.train with Details() reproduces ppo.train bit for bit: True",
                 "the gradient matches finite differences: True",
                 "at V = V_old the clipped loss is the plain loss, gradient included: True"]:
        assert line in printed
    assert any(line.startswith("multiple_epochs") and line.split()[-2:] == ["yes", "yes"]
               for line in printed.splitlines())
