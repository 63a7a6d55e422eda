"""The course's hyperparameters in the student's own ``Config``: what A's and B's graded runs hand the student's PPO
pieces, in the students' checker and in final grading alike."""

from __future__ import annotations

import dataclasses

from capstone_check.student import StudentError


def course_config(student, values: dict):
    """The student's ``Config`` class (``ppo.py``'s) holding the course's hyperparameters ``values``: what the
    student's pieces are handed in a graded run, whatever the Config's defaults say (final grading's own, which
    ``_shared.ppo.hyperparameters.course_config`` calls). Refused when the class cannot hold them."""
    config_class = getattr(student.modules[0], "Config", None)
    if config_class is None:
        raise StudentError("expected a class `Config` in ppo.py (it is given in the stub)", "missing")
    try:
        config = config_class()
        if dataclasses.is_dataclass(config):
            missing = sorted(set(values) - {f.name for f in dataclasses.fields(config)})
            if missing:
                raise TypeError(f"it has no field {', '.join(missing)}")
            config = dataclasses.replace(config, **values)
        else:
            for name, value in values.items():
                setattr(config, name, value)
        held = {name: getattr(config, name) for name in values}
    except Exception as exc:  # noqa: BLE001 - any failure of student code is the student's to read
        raise StudentError(f"the grader trains with the course's hyperparameters, handed to your pieces as "
                           f"Config(); your Config cannot hold them ({type(exc).__name__}: {exc})", "invalid") from None
    changed = [name for name in values if held[name] != values[name]]
    if changed:
        raise StudentError(f"the grader trains with the course's hyperparameters, handed to your pieces as Config(); "
                           f"your Config changes {', '.join(changed)} when it is set", "invalid")
    return config
