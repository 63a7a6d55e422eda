"""CPU seconds of a whole process tree, sandboxed children included.

``resource.getrusage(RUSAGE_CHILDREN)`` counts only descendants that were waited for by their parents up the chain;
under bubblewrap a check's processes live in a pid namespace whose init reaps them, and a uid-dropped child can be
killed by its lease's clean-up before anyone waits for it, so both undercount. A cgroup counts every process started
inside it, wherever it is reaped: where this runs as root on a machine with the cgroup-v1 ``cpuacct`` controller (or
cgroup v2 with the ``cpu`` controller), ``Meter`` starts the measured command inside a fresh cgroup and reads its
``cpuacct.usage`` (or ``cpu.stat``'s ``usage_usec``). Elsewhere it falls back to RUSAGE_CHILDREN and says so.
"""

from __future__ import annotations

import os
import resource
import uuid
from pathlib import Path

V1 = Path("/sys/fs/cgroup/cpuacct")
V2 = Path("/sys/fs/cgroup")


class Meter:
    """``with Meter() as meter: subprocess.Popen(cmd, preexec_fn=meter.enter)``; then ``meter.seconds()``."""

    def __init__(self):
        self.folder: Path | None = None
        self.v2 = False
        name = f"bench-{uuid.uuid4().hex[:8]}"
        for base, v2 in ((V1, False), (V2, True)):
            probe = base / ("cpu.stat" if v2 else "cpuacct.usage")
            if os.geteuid() == 0 and probe.exists():
                try:
                    (base / name).mkdir()
                except OSError:
                    continue
                self.folder, self.v2 = base / name, v2
                break
        self._rusage0 = _children_cpu()

    @property
    def how(self) -> str:
        return "cgroup" if self.folder else "rusage (sandboxed children not counted)"

    def enter(self) -> None:
        """Called in the child before exec: join the cgroup (children inherit it)."""
        if self.folder:
            (self.folder / "cgroup.procs").write_text(str(os.getpid()))

    def add(self, pid: int) -> None:
        """Count an already running process (and what it starts from now on) too."""
        if self.folder:
            (self.folder / "cgroup.procs").write_text(str(pid))

    def seconds(self) -> float:
        if not self.folder:
            return _children_cpu() - self._rusage0
        if self.v2:
            stat = dict(line.split() for line in (self.folder / "cpu.stat").read_text().splitlines())
            return int(stat["usage_usec"]) / 1e6
        return int((self.folder / "cpuacct.usage").read_text()) / 1e9

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.folder:
            try:
                self.folder.rmdir()  # fails while a process is still in it; left behind then, harmless
            except OSError:
                pass


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
