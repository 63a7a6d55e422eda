"""Project B's B.table: the student's results table against their own runs (``runs.npz``), each replayed update by
update by the judge (``proofs``), so its numbers never depend on which CPU made them."""

from __future__ import annotations

from pydantic import Field

from autograder.checks import Check, Verdict, require
from autograder.comparisons import close
from autograder.projects.b_ablations import oracle, proofs, student_runs
from autograder.projects.b_ablations.bar import RunBar, departed_verdict
from autograder.projects.b_ablations.choices import choices, collected_choices
from autograder.projects.b_ablations.summary import close_table, plain_table
from autograder.projects.b_ablations.public.evidence import results_table
from capstone_check.verdict import LONGEST, shown_failures

TABLE = "results.json"
NOT_CREDITED = "Not credited: the runs in runs.npz did not come from your pieces as the reference's would."
NEXT_STEP = ("The table counts only runs that the code you hand in makes: fix your pieces, then run `python "
             "ablation.py` again.")


class TableBar(RunBar):
    tolerance: float = Field(description="largest gap between the table's scores and the judge's on the same episodes")
    pieces_tolerance: float = Field(description="largest gap per parameter between the reference's replay of an "
                                    "update and what the folder's own pieces make of it from the same state")
    pieces_moment_tolerance: float = Field(description="largest relative gap in Adam's v between the two")
    remade_updates: int = Field(ge=1, description="updates of each run the folder's pieces re-make: the first and "
                                "others drawn from the course secret and runs.npz (docs/benchmarks.md)")


class Table(Check):
    id = "B.table"
    builds_on = ("B.defaults", "B.switches")  # the training pieces the runs of runs.npz are made of
    credit = "per_case"  # a share of runs, seeds or table rows: partial results earn their share
    name = ("Your results table is what your own runs (runs.npz) scored, each replayed update by update by the grader "
            "on the public seeds (baseline and named factors)")
    cost, per_seed, fixed_seeds = 4.0, True, "public"
    Bar = TableBar

    def collect(self, student, ctx):
        table = results_table(student)
        ablated, named = choices(student, ctx.bar.factors)
        return {"runs": [student_runs.own_runs(student, ["baseline", *named], ctx.seed, ctx.bar, ctx.key)],
                "table": [table], "ablated": [ablated], "named": [named]}

    def key_for(self, folder, secret):
        """The key of the secret sample of updates the child re-makes (``student_runs.sample_key``); none before a
        submission is there to draw it from."""
        return None if folder is None else student_runs.sample_key(folder / proofs.RUNS, secret)

    def on_shard(self, data, ctx):
        """Run by the grader as soon as one seed's child returns: audit its runs now, in a process of its own."""
        proofs.start_audits(data, ctx, self.id, student_runs.replay_own)

    def judge(self, data, ctx):
        """The judge's replay of the student's own runs is the truth; results.json is only compared with it. Its rows
        the grader replayed earn their share when they match; its form (every ablated row present, a summary of its own
        scores) earns its two cases only for a table whose replayed rows all match, so a made-up table earns
        nothing."""
        ablated, named = collected_choices(data, ctx.bar.factors)
        grader, departed = proofs.audited_scores(require(data, "runs", list), ctx, ["baseline", *named],
                                                 student_runs.replay_own)
        if departed:
            return departed_verdict(departed, sum(map(len, grader.values())), NOT_CREDITED, NEXT_STEP)
        table, tol = (data.get("table") or [None])[0], ctx.bar.tolerance
        theirs = table.get("scores") if isinstance(table, dict) else None
        if not isinstance(theirs, dict):
            return Verdict(0.0, f"{TABLE} should hold 'scores': {{setting: [score per seed]}}, as save_results writes")
        wrong = [f"{name}: your table says {rounded(theirs.get(name))}, your runs in {proofs.RUNS}, replayed by the "
                 f"grader, score {rounded(want)}" for name, want in grader.items()
                 if not isinstance(theirs.get(name), list) or not close(theirs.get(name), want, tol)]
        form = []
        missing = [name for name in ["baseline", *ablated] if name not in theirs]
        if missing:
            form.append(f"{TABLE} has no scores for {', '.join(missing)}; it should hold the baseline and all "
                        "your ablated() details")
        summary = plain_table(table.get("summary")) if isinstance(table.get("summary"), dict) else {}
        if not _summarizes(summary, theirs, len(ctx.seeds)):
            form.append(f"the table's summary should be the median, min and max of its own scores, per setting, "
                        f"over the {len(ctx.seeds)} seeds")
        if not wrong and not form:
            return Verdict(1.0, f"the baseline and your named factors are what your runs scored on "
                           f"{ctx.seeds_shown()}, replayed by the grader, and the summary matches the scores",
                           {"scores": grader})
        credited = len(grader) - len(wrong) + (0 if wrong else 2 - len(form))
        note = " (its form counts only once every replayed row matches)" if wrong else ""
        shown = shown_failures(wrong + form, room=LONGEST - len(note)) + note
        return Verdict(credited / (len(grader) + 2), shown, {"scores": grader})


def rounded(scores):
    """A table's scores as a message shows them: 3 decimals (anything else as it is)."""
    if isinstance(scores, list) and all(isinstance(x, (int, float)) for x in scores):
        return [round(float(x), 3) for x in scores]
    return scores


def _summarizes(summary: dict, scores: dict, n_seeds: int) -> bool:
    """Whether ``summary`` is the median/min/max of ``scores``, each a list of ``n_seeds`` numbers."""
    try:
        rows = {k: [float(x) for x in v] for k, v in scores.items() if len(v) == n_seeds}
    except (TypeError, ValueError):
        return False
    return len(rows) == len(scores) and close_table(summary, oracle.summarize(rows), 1e-9)
