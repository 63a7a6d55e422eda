"""Project C's expected values for the students' checker: the grader's crafted data and the oracle's values on it,
the fresh runs of the public seeds as C.fresh_runs' own spec records them (final grading trains its own with the
grading seeds), and the smallest public seed's logs at the lines as C.diagnose_rules' own spec records them."""

from __future__ import annotations

from autograder.projects.c_diagnosis import labels, pieces, run_plan
from autograder.projects.c_diagnosis.public import diagnose as checker


def own_labels(ctx) -> dict:
    return {"probe": {"kind": "c_own_labels", "labels": list(run_plan.LABELS), "names": list(run_plan.NAMES)}}


# the checker's function that runs each kind of check SPECS and the probes make (a "calls" check runs the student's
# functions)
KINDS = {"c_fresh_runs": checker.fresh_runs, "c_at_the_lines": checker.at_the_lines, "c_own_labels": checker.own_labels}

SPECS = {"C.entropy": pieces.Entropy().spec, "C.kl_clip": pieces.KLClip().spec,
         "C.explained_variance": pieces.ExplainedVariance().spec, "C.td_q": pieces.TDAndQ().spec,
         "C.return_drop": pieces.ReturnDrop().spec, "C.fresh_runs": labels.FreshRuns().spec,
         "C.diagnose_rules": labels.DiagnoseRules().spec}
# What final grading adds that this kit cannot check, and the public evidence the row is predicted from (``probe``).
# Which fault each of the student's own logs holds follows from the course secret, so nothing here tells whether
# `my_labels` names them right: C.own_labels is predicted from how many of the three `my_labels` names as `diagnose`
# does. The student's logs are fresh runs of the three faults, shaped as the fresh runs are, so that evidence holds
# while `diagnose` labels the public fresh runs right: C.own_labels ``trusts`` C.fresh_runs (agreeing with a diagnosis
# shown wrong shows nothing). When it fails, the student's logs still hold one of each fault (``one_of_each``): a fault
# whose public runs `diagnose` labels right every time earns its point, one it labels wrong every time does not, one it
# labels both ways may go either way (``prediction.kind_bounds``).
# benchmarks/kit_prediction.py measured both choices on planted bugs and generated mutants (docs/benchmarks.md).
FINAL_GRADING = {
    "C.own_labels": {"adds": "left to final grading, which knows what the agents of your own logs are (made from your "
                             "student id and the course secret, not in this kit): predicted from how many of them "
                             "`my_labels` names as your `diagnose` does", "probe": own_labels,
                     "trusts": ("C.fresh_runs",), "one_of_each": list(run_plan.FAULTS),
                     "unsure": ", so `my_labels` agreeing with your `diagnose` shows nothing"}}
