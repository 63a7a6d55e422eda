"""Where the kit's own files live, for a source checkout or an editable install."""

from pathlib import Path

KIT_ROOT = Path(__file__).resolve().parent.parent
COURSE_FILE = KIT_ROOT / "course.yml"
PRIVATE_FILE = KIT_ROOT / "course.private.yml"
SOLUTIONS = KIT_ROOT / "solutions"
ASSIGNMENTS = KIT_ROOT / "assignments"
