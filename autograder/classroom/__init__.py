"""``autograder grade-all``: a whole class, resumable, one student's failure never stopping the rest.

Layouts: nbgrader's ``ROOT/submitted/{student}/{project}/`` or a plain ``ROOT/{student}/{project}/`` of downloads.
Each student's report is written atomically beside a fingerprint of their files and of the course; a rerun skips every
student whose fingerprint still matches, so an interrupted run resumes where it stopped and regrades nobody twice.

- ``rows``: a student's row (what happened to them) and grades.csv;
- ``resume``: the fingerprints that let a rerun skip the unchanged, and ``--regrade``;
- ``one_student``: one student graded, in the steps a thread or a cluster's worker takes;
- ``local``: the class graded here, ``--jobs`` students at once;
- ``cluster``: the class graded on a Dask cluster, a task per student;
- ``command``: the ``grade-all`` command.

The students of a class folder and the projects they were given are ``autograder.class_folder``'s, which the
similarity report reads too.
"""
