"""Each project's own checks in the students' checker, one module per project (B's in two, to stay short): the
functions a project's ``student_kit.KINDS`` names, which run in a check's child. Nothing outside this folder names
a project or a check."""
