"""What the students' checker runs of project Z: its check's own spec, recorded at release on the public seeds, so
that `capstone-check Z` calls the student's function and judges as final grading does, with no oracle in the kit."""

from autograder.projects.z_returns.pieces import Returns

SPECS = {"Z.returns": Returns().spec}  # check id -> its spec; a check not listed is final grading's alone
KINDS = {}  # kind -> the capstone_check function that runs it; "calls" (the student's functions called) is built in
