"""The reference notebooks run top to bottom and print the chapter's tables."""

import shutil

import nbclient
import nbformat

from autograder import paths
from autograder.nbcells import TAG


def without_check_cells(notebook):
    """The autograded check cells are exercised through nbgrader in test_nbgrader; here only the teaching cells run."""
    notebook.cells = [c for c in notebook.cells if TAG not in c.metadata.get("tags", [])]
    return notebook


def test_the_d_notebook_runs_and_reproduces_the_chapters_tables(tmp_path):
    folder = shutil.copytree(paths.SOLUTIONS / "D_grpo", tmp_path / "D_grpo")
    notebook = without_check_cells(nbformat.read(folder / "D_grpo.ipynb", as_version=4))
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}}).execute()
    printed = "".join(out.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
                      for out in cell.outputs)
    for line in ["K =  1: success 0.062", "K = 32: success 0.500",
                 "beta = 0.2: sloppy 0.60, gold 0.48, hedge 0.12", "beta = 0.5: sloppy 0.25, gold 0.24, hedge 0.01"]:
        assert line in printed


def test_the_a_notebook_runs_its_self_checks_and_trains_past_the_bar(tmp_path):
    folder = shutil.copytree(paths.SOLUTIONS / "A_ppo", tmp_path / "A_ppo")
    notebook = without_check_cells(nbformat.read(folder / "A_ppo.ipynb", as_version=4))
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}}).execute()
    printed = "".join(out.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
                      for out in cell.outputs)
    assert "False" not in printed
    for line in ["GAE at lambda = 1 equals reward-to-go minus V: True",
                 "the clipped gradient equals the plain policy gradient: True",
                 "the ratio is 1 on the first minibatch: True", "above 450: True"]:
        assert line in printed
