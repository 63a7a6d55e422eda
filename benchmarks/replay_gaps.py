"""The largest gaps between honest runs and the judge's replay, recorded for the proof-of-learning benchmarks."""

from autograder.projects._shared import replay


def spy_on_gaps() -> dict:
    """Record the largest parameter and moment gap the judge compared with its tolerances in a run, in the dict
    returned (reset it before each run). Per update that is the last parameter gap measured against that update's
    snapshot and moments (the settling of the clip's edge measures the replays it discards first)."""
    largest = {"parameters": 0.0, "moments": 0.0}
    last = {"parameters": {}, "moments": {}}  # per recorded array (its data address): the last replay's gap to it
    gaps, moment_gaps = replay.gaps, replay.moment_gaps

    def spy(key, measure):
        def measured(recorded, *args):
            found = measure(recorded, *args)
            last[key][recorded.__array_interface__["data"][0]] = float(found.max(initial=0.0))
            largest[key] = max(last[key].values())
            return found
        return measured

    def reset():
        for kept in last.values():
            kept.clear()
        largest.update(parameters=0.0, moments=0.0)

    replay.gaps, replay.moment_gaps = spy("parameters", gaps), spy("moments", moment_gaps)
    largest["reset"] = reset
    return largest
