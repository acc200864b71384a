#!/usr/bin/env bash
# Run step of the verdict GitHub Action (action.yml): `verdict run` with the action's inputs, the
# human report in the log and SARIF in a file for code scanning. Under GITHUB_ACTIONS=true verdict
# itself prints the annotations and appends the job summary to $GITHUB_STEP_SUMMARY.
#
# Every input comes through the environment and becomes one element of an argument array, so no
# input is ever evaluated by a shell (`$(…)`, `;`, quotes are verdict's arguments, literally):
#   VERDICT                    the verdict to run (the install step's output)
#   INPUT_WORKING_DIRECTORY    -C DIR
#   INPUT_ONLY, INPUT_SKIP     --only / --skip (comma-separated verifier names)
#   INPUT_BUDGET               --budget N
#   INPUT_SHARD                --shard I/N; SARIF categories then start with verdict-shard-I-of-N
#   INPUT_STRICT               true: --strict
#   INPUT_FORMATS              more reports, FORMAT=PATH entries separated by spaces or lines
#   INPUT_ARGS                 more arguments, split on spaces and lines
#   RUNNER_TEMP, GITHUB_OUTPUT as GitHub sets them
# Writes `exit-code`, `sarif-file` (empty when verdict wrote none) and `category` (the label of
# the SARIF upload) to $GITHUB_OUTPUT, and exits with verdict's exit code.
set -uo pipefail

fail() {
    echo "::error title=verdict::$*"
    {
        echo "exit-code=2"
        echo "sarif-file="
    } >>"$GITHUB_OUTPUT"
    exit 2
}

[[ -n "${VERDICT:-}" ]] || fail "no verdict to run: the install step gave no path"
[[ -n "${RUNNER_TEMP:-}" && -n "${GITHUB_OUTPUT:-}" ]] || fail "RUNNER_TEMP and GITHUB_OUTPUT must be set"

reports="$(mktemp -d "$RUNNER_TEMP/verdict-XXXXXX")" || fail "cannot create a directory in $RUNNER_TEMP"
sarif="$reports/verdict.sarif"
argv=(run --format human --format "sarif=$sarif")

# Split on spaces, tabs and newlines, without globbing (bash 3.2 as well: macOS runners).
extra=()
read -r -d '' -a extra <<<"${INPUT_ARGS:-}" || true
directory="${INPUT_WORKING_DIRECTORY:-}"
[[ -n "$directory" ]] && argv+=(-C "$directory")
[[ -n "${INPUT_ONLY:-}" ]] && argv+=(--only "$INPUT_ONLY")
[[ -n "${INPUT_SKIP:-}" ]] && argv+=(--skip "$INPUT_SKIP")
[[ -n "${INPUT_BUDGET:-}" ]] && argv+=(--budget "$INPUT_BUDGET")

label="verdict${directory:+/$directory}"
if [[ -n "${INPUT_SHARD:-}" ]]; then
    argv+=(--shard "$INPUT_SHARD")
    shard="${INPUT_SHARD//\//-of-}"
    label="$label/shard-$shard"
    # Each shard's SARIF holds part of the tests: with categories of their own, one shard's
    # upload never closes the alerts another one found.
    case " ${extra[*]-} " in
        *" --category "* | *" --category="*) ;;
        *) argv+=(--category "verdict-shard-$shard") ;;
    esac
fi

case "${INPUT_STRICT:-false}" in
    true) argv+=(--strict) ;;
    false | "") ;;
    *) fail "strict: '$INPUT_STRICT' is neither true nor false" ;;
esac

formats=()
read -r -d '' -a formats <<<"${INPUT_FORMATS:-}" || true
for format in ${formats[@]+"${formats[@]}"}; do
    argv+=(--format "$format")
done
argv+=(${extra[@]+"${extra[@]}"})

echo "verdict ${argv[*]}"
"$VERDICT" "${argv[@]}"
code=$?

{
    echo "exit-code=$code"
    if [[ -s "$sarif" ]]; then
        echo "sarif-file=$sarif"
    else
        echo "sarif-file="
    fi
    echo "category=$label"
} >>"$GITHUB_OUTPUT"
exit "$code"
