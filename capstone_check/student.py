"""The student's code as the checks see it: loaded from files, called through a wrapper that turns every failure
into a sentence that says what was expected and what happened, and validated before a value is used.

The students' checker and the grader's checks both use it: it lives in the checker because the students' bundle
ships the checker without the grader, and the grader imports it from here (so its sandbox stages ``capstone_check``
beside ``autograder``).
"""

from __future__ import annotations

import builtins
import errno
import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType

import numpy as np

from capstone_check.located import SHOWN_AT_MOST, shown

MESSAGE_CHARS = 20_000  # an exception's text kept in the child; the grader cuts messages further (limits.message_chars)


class StudentError(Exception):
    """A problem with the student's code or what it returned, worded for the student."""

    def __init__(self, message: str, kind: str = "error", exception: str = ""):
        super().__init__(message)
        self.kind = kind  # "not_implemented", "missing", "syntax", "import", "raised", "invalid"
        self.exception = exception  # the type of the student's exception that caused it, if one did
        # plain data a check had collected when the student's code raised (a whole update: its steps so far),
        # from which the grader says where the output departed before it ended (``Check.located_on_error``)
        self.partial: dict = {}
        # where the output departed, said as statements where the students' checker says it in the same process
        # (final grading's judge remakes them from ``partial``): the row's message is led by them
        self.located: list = []


def collected_or_located(collect, said, student, spec: dict):
    """``collect(student, spec)``, as the students' checker runs a check in one process; where the student's code
    raised, the error goes on up with where the output had departed by then, ``said(spec, exc.partial)``, as final
    grading's judge remakes it from the partial data."""
    try:
        return collect(student, spec)
    except StudentError as exc:
        exc.located = said(spec, exc.partial)
        raise


def _student_line(exc: BaseException, folder: Path) -> str:
    """' (module.py, line 42)' for the innermost frame in the student's folder, or ''."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).parent == folder]
    return f" ({Path(frames[-1].filename).name}, line {frames[-1].lineno})" if frames else ""


def load_module(folder: Path, name: str) -> ModuleType:
    path = folder / f"{name}.py"
    if not path.is_file():
        present = ", ".join(sorted(p.name for p in folder.iterdir())) or "nothing"
        raise StudentError(f"expected {folder.name}/{name}.py, found no such file (the folder holds: {present})",
                           "missing")
    try:
        source = path.read_text(encoding="utf-8")
        compile(source, str(path), "exec")
    except SyntaxError as exc:
        raise StudentError(f"{name}.py does not compile: {exc.msg} at line {exc.lineno}", "syntax") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise StudentError(f"{name}.py could not be read as Python source: {exc}", "syntax") from None
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except MemoryError:
        raise
    except SystemExit as exc:
        raise StudentError(f"importing {name}.py called sys.exit({exc.code!r}); a module must not exit when "
                           "imported (put scripts under `if __name__ == '__main__':`)", "import") from None
    except BaseException as exc:  # noqa: BLE001 - any failure at import is the student's to see
        raise StudentError(f"importing {name}.py raised {_named(exc)}{_student_line(exc, folder)}",
                           "import", type(exc).__name__) from None
    return module


class Student:
    """The loaded modules of one project folder; ``fn(name)`` gives a guarded callable."""

    def __init__(self, folder: Path, module_names: tuple[str, ...]):
        self.folder = Path(folder).resolve()
        sys.path.insert(0, str(self.folder))
        self.modules = [load_module(self.folder, name) for name in module_names]

    def module(self, name: str) -> ModuleType:
        """The loaded module ``name`` (one of the project's modules)."""
        return next(m for m in self.modules if m.__name__ == name)

    def lookup(self, name: str, module: str | None = None):
        for source in [self.module(module)] if module else self.modules:
            if hasattr(source, name):
                value = getattr(source, name)
                if not callable(value):
                    raise StudentError(f"`{name}` should be a function, found {type(value).__name__}", "missing")
                return value
        files = f"{module}.py" if module else ", ".join(f"{m.__name__}.py" for m in self.modules)
        raise StudentError(f"expected a function `{name}` in {files}, found none", "missing")

    def fn(self, name: str, module: str | None = None):
        """``name`` from the student's modules (or from ``module`` alone), wrapped so that any failure becomes a
        StudentError."""
        func, folder = self.lookup(name, module), self.folder

        def guarded(*args, **kwargs):
            try:
                return func(*args, **kwargs)
            except MemoryError:
                raise
            except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt included: never the grader's
                raise _reworded(name, exc, folder) from None

        guarded.raw = func
        return guarded

    def call(self, name: str, module: str | None, args, kwargs, raises: str | None = None):
        """``name(*args, **kwargs)``; with ``raises``, whether it raised that exception (any other is reworded)."""
        if raises is None:
            return self.fn(name, module)(*args, **kwargs)
        try:
            self.lookup(name, module)(*args, **kwargs)
        except MemoryError:
            raise
        except BaseException as exc:  # noqa: BLE001
            if isinstance(exc, getattr(builtins, raises)):
                return True
            raise _reworded(name, exc, self.folder) from None
        return False

    def raises(self, name: str, expected: type[Exception], *args) -> bool:
        """Whether ``name(*args)`` raises ``expected``; any other failure is reworded as usual."""
        func = self.lookup(name)
        try:
            func(*args)
        except expected:
            return True
        except MemoryError:
            raise
        except BaseException as exc:  # noqa: BLE001
            raise _reworded(name, exc, self.folder) from None
        return False


def _out_of_processes(exc: BaseException) -> bool:
    """The process limit, as Python reports it: fork failing with EAGAIN, or a thread that cannot start."""
    if isinstance(exc, RuntimeError) and "can't start new thread" in str(exc):
        return True
    return (isinstance(exc, OSError) and exc.errno == errno.EAGAIN
            and any("fork" in (frame.line or "") or frame.name == "_execute_child"
                    for frame in traceback.extract_tb(exc.__traceback__)))


def _reworded(name: str, exc: BaseException, folder: Path) -> StudentError:
    if isinstance(exc, NotImplementedError):
        return StudentError(f"`{name}` is not implemented yet (it raises NotImplementedError)", "not_implemented")
    if isinstance(exc, SystemExit):
        return StudentError(f"`{name}` called sys.exit({exc.code!r}); a graded function must return", "raised")
    if _out_of_processes(exc):
        return StudentError(f"`{name}` could not start another process or thread ({exc})", "processes")
    if isinstance(exc, OSError) and exc.errno == errno.EFBIG:  # CPython ignores SIGXFSZ: the write fails instead
        return StudentError(f"`{name}` wrote more output than the grader allows (course.yml's limits.output_mb) and "
                            "was stopped; print less", "raised")
    if isinstance(exc, RecursionError):
        return StudentError(f"`{name}` recursed without end{_student_line(exc, folder)}", "raised", "RecursionError")
    return StudentError(f"`{name}` raised {_named(exc)}{_student_line(exc, folder)}", "raised", _type_of(exc))


def _type_of(exc: BaseException) -> str:
    """The type of the exception behind ``exc``: for a StudentError (one guarded call inside another), the one it
    was made from."""
    return (exc.exception or "StudentError") if isinstance(exc, StudentError) else type(exc).__name__


def _named(exc: BaseException) -> str:
    """'KeyError: 'x'' for any exception, even one whose ``__str__`` fails or never ends in a sentence's length."""
    try:
        text = str(exc)
    except BaseException:  # noqa: BLE001 - a student's exception class may raise from __str__
        text = "(its message could not be read)"
    return f"{type(exc).__name__}: {text[:MESSAGE_CHARS]}"


def raised_by_student(exc: BaseException, folder: Path) -> StudentError | None:
    """A StudentError for an exception that passed through the student's files (code of theirs called other than
    through ``fn``, e.g. a method of an object they returned), else None: then it is the grader's own failure."""
    frames = traceback.extract_tb(exc.__traceback__)
    if any(Path(frame.filename).resolve().is_relative_to(folder) for frame in frames):  # a link in the path aside
        return StudentError(f"your code raised {_named(exc)}{_student_line(exc, folder)}", "raised", _type_of(exc))
    return None


def describe(value) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of length {len(value)}"
    return f"{type(value).__name__} {value!r}"[:120]


def as_array(value, shape: tuple, what: str, finite: bool = True) -> np.ndarray:
    """``value`` as a float array of ``shape`` (with finite entries unless ``finite=False``: some cases expect NaN or
    inf), or a StudentError saying what was found."""
    try:
        array = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise StudentError(f"{what}: expected numbers of shape {shape}, found {describe(value)}", "invalid") from None
    if array.shape != tuple(shape):
        raise StudentError(f"{what}: expected shape {tuple(shape)}, found {describe(value)}", "invalid")
    if finite and not np.all(np.isfinite(array)):
        bad = int(np.sum(~np.isfinite(array)))
        raise StudentError(f"{what}: expected finite numbers, found NaN or inf at {bad} of its {array.size} entries"
                           + (f": {shown(array)}" if array.size <= SHOWN_AT_MOST else ""), "invalid")
    return array


def as_float(value, what: str, nan: bool = False) -> float:
    """A finite-or-infinite real scalar; NaN (unless ``nan``: a judge then fails it and may name its cause) and
    non-numbers are a StudentError."""
    try:
        number = float(np.asarray(value, dtype=float).item())
    except (TypeError, ValueError):
        raise StudentError(f"{what}: expected one number, found {describe(value)}", "invalid") from None
    if np.isnan(number) and not nan:
        raise StudentError(f"{what}: expected a number, found NaN", "invalid")
    return number
