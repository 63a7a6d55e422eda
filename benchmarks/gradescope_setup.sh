#!/usr/bin/env bash
# The Python part of a Gradescope build, timed: unpack an autograder zip, run its setup.sh's venv and pip steps
# (apt-get and the final chmod left out) into a temporary /autograder, print the seconds and the venv's size.
#   benchmarks/gradescope_setup.sh autograder.zip
set -euo pipefail
zip=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/source"
(cd "$work/source" && python3 -m zipfile -e "$zip" .)
grep -E '^(python3 -m venv|/autograder/venv/bin/python -m pip)' "$work/source/setup.sh" \
    | sed "s#/autograder#$work#g; s#--quiet#--quiet --no-cache-dir#" > "$work/steps.sh"
start=$(date +%s.%N)
bash -euo pipefail "$work/steps.sh"
end=$(date +%s.%N)
echo "setup: $(python3 -c "print(round($end - $start))") s; venv: $(du -sm "$work/venv" | cut -f1) MB;" \
     "packages: $("$work/venv/bin/python" -m pip list 2>/dev/null | tail -n +3 | wc -l)"
