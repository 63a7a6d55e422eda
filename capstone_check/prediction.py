"""What final grading will make of a run of this checker: each row's predicted points (the least and the most, where
this kit cannot tell), and for a row final grading credits on more than this kit checks (a replay against the
reference, logs built at grading time), what it adds and what the rows it builds on already say here."""

from __future__ import annotations

from capstone_check.verdict import RECOGNISED, led, names

LOST = "Predicted 0/"  # how a row lost through a row it builds on starts: the verdict, then the next step


def waiting(spec: dict, rows: dict, wanted: list[str]) -> bool:
    """Whether a row it builds on or trusts is still running (a row not asked for, with --checks, is waited on by no
    one)."""
    return any(cid in wanted and cid not in rows for cid in (*spec.get("builds_on", ()), *spec.get("trusts", ())))


def lead(row, spec: dict, rows: dict) -> str:
    """The row's message as final grading says it: a failing row led by the rows it builds on (``led_by``) that
    fail here, which final grading leads it with too."""
    failed = [cid for cid in spec.get("led_by", ()) if cid in rows and not rows[cid].passed]
    return led(row.message, row.score, failed) if failed and not row.passed and not row.final_only else row.message


def holds(row, by: str) -> bool:
    """Whether what the course's training uses of ``row``'s piece passes, for the runs row ``by`` grades: the row
    passes, or its check found it fails only in what those runs do not use (``row.basis``, per row it builds for: a
    term every graded run sets to 0, a switch that only some row's runs flip)."""
    basis = row.basis.get(by) if isinstance(row.basis, dict) else row.basis
    return row.passed if basis is None else basis


def failing(spec: dict, rows: dict, by: str) -> list[str] | None:
    """The rows ``spec`` (row ``by``'s) builds on whose failure here reaches its runs; None when one of them, or of
    the rows it trusts, was not run."""
    builds_on = spec.get("builds_on", ())
    if any(cid not in rows for cid in (*builds_on, *spec.get("trusts", ()))):
        return None
    return [cid for cid in builds_on if not holds(rows[cid], by)]


def aside(spec: dict, rows: dict, by: str) -> str:
    """The rows ``spec`` (row ``by``'s) builds on that fail here only in what its runs do not use, said as such."""
    spared = [cid for cid in spec.get("builds_on", ())
              if cid in rows and not rows[cid].passed and holds(rows[cid], by)]
    if not spared:
        return ""
    verb = "fails" if len(spared) == 1 else "fail"
    return f" as far as the training uses them: {names(spared)} {verb} only in what the course's runs do not use"


def unsure(spec: dict, rows: dict) -> list[str]:
    """The rows ``spec`` trusts (its evidence shows the row right only if they are right) that fail here: agreeing
    with a wrong diagnosis is no evidence of a right one."""
    return [cid for cid in spec.get("trusts", ()) if cid in rows and not right(rows[cid])]


def right(row) -> bool:
    """A checked row passes; a row left to final grading has public evidence that earns it whole (or none)."""
    return row.passed if not row.final_only else row.foreseen is None or row.foreseen >= 1


def whole(row, spec: dict, most: bool = False) -> float:
    """What the row earns when everything it builds on holds: the least (or with ``most`` the most) its seeds' spread
    allows (``Verdict.spread``), else its score here or what its public evidence foresees."""
    spread = getattr(row, "spread", None)
    if spread:
        return round(row.points * spread[int(most)], 2)
    return foreseen(row, spec) if row.final_only else row.score


def remakes(row) -> bool | None:
    """Whether the row's training pieces remake the reference's own runs on the public seeds (a training bar's
    evidence: what final grading's replay of every update turns on); None where this kit cannot tell."""
    return None if getattr(row, "remade", None) is None else not row.remade


def status(counts: list[int] | None) -> str:
    """[right, of how many] as "right" (all), "wrong" (none) or "mixed" (some, or not known)."""
    if not counts or not counts[1]:
        return "mixed"
    return "right" if counts[0] == counts[1] else "wrong" if counts[0] == 0 else "mixed"


def kind_statuses(spec: dict, rows: dict) -> dict[str, list[str]] | None:
    """For a row whose cases hold one of each kind (``one_of_each``: C's own logs hold one of each fault), the kinds by
    how the failing rows it trusts handled them on the public cases ("right" every time, "wrong" every time, "mixed");
    None when that does not apply or one of them does not tell."""
    kinds, doubted = spec.get("one_of_each"), unsure(spec, rows)
    if not kinds or not doubted or any(getattr(rows[cid], "by_kind", None) is None for cid in doubted):
        return None
    seen = {kind: [status(rows[cid].by_kind.get(kind)) for cid in doubted] for kind in kinds}
    out = {"right": [], "wrong": [], "mixed": []}
    for kind, statuses in seen.items():
        out["wrong" if "wrong" in statuses else "right" if set(statuses) == {"right"} else "mixed"].append(kind)
    return out


def kind_bounds(row, spec: dict, rows: dict) -> tuple[float, float] | None:
    """The least and most of a row whose evidence agrees in full with a trusted row that fails (``row.foreseen`` 1:
    `my_labels` names every log as `diagnose` does), from how that row handled each kind (``kind_statuses``): a kind
    right every time earns its share, one wrong every time does not, a mixed one may go either way."""
    statuses = kind_statuses(spec, rows)
    if statuses is None or row.foreseen != 1:
        return None
    share = row.points / len(spec["one_of_each"])
    return round(share * len(statuses["right"]), 2), round(share * (len(spec["one_of_each"]) -
                                                                    len(statuses["wrong"])), 2)


def predicted(row, spec: dict, rows: dict) -> float | None:
    """The least final grading will give ``row`` on the grading seeds, as far as this kit can tell (None: a row it
    builds on was not run): where the pieces were tried on the reference's own runs, ``whole`` if they remake them
    and 0 if not; else 0 when a row it builds on fails here or a row its evidence trusts does, else ``whole``."""
    failed = failing(spec, rows, row.check)
    if failed is None:
        return None
    if remakes(row) is not None:
        return whole(row, spec) if remakes(row) else 0.0
    if getattr(row, "raised", False):
        return 0.0
    if not failed and kind_bounds(row, spec, rows):
        return kind_bounds(row, spec, rows)[0]
    return 0.0 if failed or unsure(spec, rows) else whole(row, spec)


def ceiling(row, spec: dict, rows: dict) -> float | None:
    """The most final grading may give ``row``, where this kit cannot tell: a row whose pieces fail here is still
    credited if the runs final grading checks never reach what fails (then as it scored here); a row left to final
    grading whose evidence trusts a failing row may be right all the same (all its points), a checked one as it
    scored here."""
    if failing(spec, rows, row.check) is None:
        return None
    if remakes(row) is not None or getattr(row, "raised", False):
        return predicted(row, spec, rows)
    if not failing(spec, rows, row.check) and kind_bounds(row, spec, rows):
        return kind_bounds(row, spec, rows)[1]
    return row.points if unsure(spec, rows) and row.final_only else whole(row, spec, most=True)


def span(row, spec: dict, rows: dict) -> str:
    """``0/6`` where the prediction is one number, ``0/6, or up to 6`` where it is a range."""
    low, high = predicted(row, spec, rows), ceiling(row, spec, rows)
    return f"{low:g}/{row.points:g}" + (f", or up to {high:g}" if high != low else "")


def foreseen(row, spec: dict) -> float:
    """A row left to final grading: whole, or the share its public evidence earns, as the row's credit counts it."""
    if row.foreseen is None:
        return row.points
    share = 0.0 if spec.get("credit") == "all_or_nothing" and row.foreseen < 1 else row.foreseen
    return round(row.points * share, 2)


def recognised(row) -> str:
    """The known mistakes the row's evidence names (carried beside it), for a prediction that leaves the evidence
    out."""
    return "".join(f"; {RECOGNISED}{sentence}" for sentence in row.named)


def said(row, spec: dict, rows: dict) -> str:
    """What final grading adds to ``row`` and what this run already tells of it ('' for a row it adds nothing to)."""
    if "adds" not in spec:
        return ""
    evidence = f"; {row.evidence}{recognised(row)}" if row.evidence else ""  # with the mistakes it named, beside it
    points = f"{row.points:g}"
    text = f"{spec['adds']} {names(spec['builds_on'])}" if spec["builds_on"] else spec["adds"]
    failed = failing(spec, rows, row.check)
    if failed is None:
        return f"{text}; run every check of {row.check[0]} to see whether they do"
    if remakes(row) is not None:
        return remade_said(row, spec, rows, text)
    high = ceiling(row, spec, rows)
    if failed:
        they, verb = names(failed), "fails" if len(failed) == 1 else "fail"
        reach = f", or up to {high:g} if the runs final grading checks never reach what fails" if high else ""
        return (f"{LOST}{points}{reach}: this row builds on {they}, which {verb} here. Fix {they} first. Why: {text}"
                f"{recognised(row) if row.final_only else ''}")  # a checked row says them after its own message
    if getattr(row, "raised", False):
        return f"{text}; {row.evidence} (predicted 0/{points}: final grading makes the same call)"
    doubted = unsure(spec, rows)
    if doubted:
        they, verb = names(doubted), "fails" if len(doubted) == 1 else "fail"
        why = f"{they} {verb} here{spec.get('unsure', ', which the evidence above takes as right')}"
        if kind_bounds(row, spec, rows):
            why = f"{they} {verb} here, {by_kind_said(kind_statuses(spec, rows))}"
        if not row.final_only:  # a checked row: the next step first, as for a row it builds on
            return f"{LOST}{points}" + (f", or up to {high:g}" if high else "") + f": {why}. Fix {they} first. " \
                f"Why: {text}"
        return f"{text}{evidence} (predicted {span(row, spec, rows)}: {why})"
    if not spec["builds_on"]:
        return f"{text}{evidence} (predicted {foreseen(row, spec):g}/{points})"
    they = "it passes" if len(spec["builds_on"]) == 1 else "they pass"
    return f"{text}: {they} here{aside(spec, rows, row.check)}{evidence} (predicted {span(row, spec, rows)})"


def remade_said(row, spec: dict, rows: dict, text: str) -> str:
    """What the reference's own runs showed of the row's pieces: the next step first where they do not remake them
    (the failing rows to fix, or where no row fails, what to look for); that rows failing here fail only where the
    sampled updates never meet, where they do."""
    failed = [cid for cid in (*spec.get("builds_on", ()), *spec.get("trusts", ()))
              if cid in rows and not right(rows[cid])]
    they, verb = names(failed) if failed else "", "fails" if len(failed) == 1 else "fail"
    if remakes(row):
        spared = f": {they} {verb} here only in cases those updates never meet" if failed else ""
        sampled = len(spec.get("reference_runs", {}).get("updates", ())) or "the sampled"
        return (f"{text}: your pieces make {sampled} updates of each of the reference's runs on the public seeds "
                "as it did"
                f"{spared} (predicted {whole(row, spec):g}/{row.points:g})")
    d = row.remade
    run = f"{d['setting']} run" if "setting" in d else "run"
    where = (f"your pieces do not make update {d['update']} of the reference's {run} of seed {d['seed']} as it "
             f"did ({d['what']} {d['gap']:.2g} away)")
    step = (f"Fix {they} first" if failed else "Look for the difference in what training calls: gae, flatten_batch, "
            "ppo_update and the pieces it uses; no check above shows it, but training reaches it")
    return f"{LOST}{row.points:g}: {step}; {where}. Why: {text}"


def by_kind_said(statuses: dict) -> str:
    """How the public runs of each kind went, for a row predicted from it (``kind_bounds``)."""
    def kinds(names_):
        return names([name.replace("_", " ") for name in names_])

    said_ = [f"{how} {kinds(statuses[key])}" for key, how in (("right", "right on every public run of"),
                                                              ("wrong", "wrong on every one of"),
                                                              ("mixed", "both ways on"))
             if statuses[key]]
    return f"and your `diagnose` is {names(said_)}; your logs hold one of each fault"
