"""What a project's planted bugs are made of: each edits the reference once, where its text occurs exactly once, so
one that stops applying after a refactor fails loudly instead of testing nothing."""

from typing import NamedTuple


class Mutant(NamedTuple):
    """A bug planted in the reference: ``old`` becomes ``new`` in ``folder/module``; ``check`` must catch it, and name
    it with the finding ``finding`` (an id of the project's catalogue of mistakes) when one is given."""
    name: str
    folder: str
    module: str
    old: str
    new: str
    check: str
    finding: str | None = None


class Equivalent(NamedTuple):
    """A correct implementation written differently: it must keep full marks on ``checks``."""
    name: str
    folder: str
    module: str
    old: str
    new: str
    checks: tuple[str, ...]
