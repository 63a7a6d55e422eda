"""What the students' checker runs of project Z: its check's own spec, recorded at release on the public seeds, so
that `capstone-check Z` calls the student's function and judges as final grading does, with no oracle in the kit."""

from autograder.projects.z_returns.pieces import Returns, ValueStep
from autograder.projects.z_returns.public.value_step import value_step

SPECS = {"Z.returns": Returns().spec, "Z.value_step": ValueStep().spec}  # a check not listed is final grading's alone
# kind -> the function of the public half that runs it; "calls" (the student's functions called) is built in
KINDS = {"z_value_step": value_step}
