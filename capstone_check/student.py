"""The student's modules as the checker sees them: loaded from the project folder, every failure said in a sentence."""

from __future__ import annotations

import builtins
import importlib.util
import sys
import traceback
from pathlib import Path

import numpy as np


class StudentError(Exception):
    """A problem with the student's code or what it returned, worded for the student."""

    def __init__(self, message: str, kind: str = "error"):
        super().__init__(message)
        self.kind = kind


def _line(exc: BaseException, folder: Path) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).parent == folder]
    return f" ({Path(frames[-1].filename).name}, line {frames[-1].lineno})" if frames else ""


def _named(exc: BaseException) -> str:
    try:
        text = str(exc)
    except BaseException:  # noqa: BLE001 - a student's exception class may raise from __str__
        text = "(its message could not be read)"
    return f"{type(exc).__name__}: {text[:2000]}"


def reworded(name: str, exc: BaseException, folder: Path) -> StudentError:
    if isinstance(exc, NotImplementedError):
        return StudentError(f"`{name}` is not implemented yet (it raises NotImplementedError)", "not_implemented")
    if isinstance(exc, SystemExit):
        return StudentError(f"`{name}` called sys.exit({exc.code!r}); a graded function must return", "raised")
    if isinstance(exc, RecursionError):
        return StudentError(f"`{name}` recursed without end{_line(exc, folder)}", "raised")
    return StudentError(f"`{name}` raised {_named(exc)}{_line(exc, folder)}", "raised")


def load_module(folder: Path, name: str):
    path = folder / f"{name}.py"
    if not path.is_file():
        raise StudentError(f"expected {folder.name}/{name}.py, found no such file", "missing")
    try:
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
    except SyntaxError as exc:
        raise StudentError(f"{name}.py does not compile: {exc.msg} at line {exc.lineno}", "syntax") from None
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SystemExit as exc:
        raise StudentError(f"importing {name}.py called sys.exit({exc.code!r}); put scripts under "
                           "`if __name__ == '__main__':`", "import") from None
    except BaseException as exc:  # noqa: BLE001 - any failure at import is the student's to see
        raise StudentError(f"importing {name}.py raised {_named(exc)}{_line(exc, folder)}", "import") from None
    return module


class Student:
    """The loaded modules of one project folder; ``fn(name)`` gives a callable whose failures are sentences."""

    def __init__(self, folder: Path, module_names):
        self.folder = Path(folder).resolve()
        sys.path.insert(0, str(self.folder))
        self.modules = [load_module(self.folder, name) for name in module_names]

    def module(self, name: str):
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
        func, folder = self.lookup(name, module), self.folder

        def guarded(*args, **kwargs):
            try:
                return func(*args, **kwargs)
            except MemoryError:
                raise
            except BaseException as exc:  # noqa: BLE001
                raise reworded(name, exc, folder) from None
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
            raise reworded(name, exc, self.folder) from None
        return False


def describe(value) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of length {len(value)}"
    return f"{type(value).__name__} {value!r}"[:120]


def as_array(value, shape, what: str, finite: bool = True) -> np.ndarray:
    """``value`` as a float array of ``shape`` (finite unless ``finite=False``), or a StudentError."""
    try:
        array = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise StudentError(f"{what}: expected numbers of shape {tuple(shape)}, found {describe(value)}",
                           "invalid") from None
    if array.shape != tuple(shape):
        raise StudentError(f"{what}: expected shape {tuple(shape)}, found {describe(value)}", "invalid")
    if finite and not np.all(np.isfinite(array)):
        raise StudentError(f"{what}: expected finite numbers, found NaN or inf in {np.array2string(array, 60)}",
                           "invalid")
    return array


def as_float(value, what: str, nan: bool = False) -> float:
    """A real number; NaN (unless ``nan``: the check then fails it and may name its cause) and non-numbers are a
    StudentError."""
    try:
        number = float(np.asarray(value, dtype=float).item())
    except (TypeError, ValueError):
        raise StudentError(f"{what}: expected one number, found {describe(value)}", "invalid") from None
    if np.isnan(number) and not nan:
        raise StudentError(f"{what}: expected a number, found NaN", "invalid")
    return number
