#!/usr/bin/env bash
# Install step of the verdict GitHub Action (action.yml): finds or installs the `verdict` command
# and writes its path to $GITHUB_OUTPUT as `verdict=PATH`.
#
# Inputs come through the environment, never through the script's text, so no input is ever
# evaluated by a shell:
#   INPUT_VERDICT_PATH  a verdict already on the machine (a path, or a name looked up on PATH);
#                       nothing is installed then
#   INPUT_VERSION       the version of the PyPI package `verdict-cli` to install: empty for the
#                       action's own version (the root Cargo.toml's [workspace.package] version),
#                       `latest` for the newest release
#   GITHUB_ACTION_PATH, RUNNER_TEMP, GITHUB_OUTPUT  as GitHub sets them
set -euo pipefail

fail() {
    echo "::error title=verdict::$*"
    exit 2
}

# The version in the root Cargo.toml's [workspace.package] table: the one place it is written.
action_version() {
    local manifest="$GITHUB_ACTION_PATH/Cargo.toml"
    [[ -f "$manifest" ]] || fail "no Cargo.toml in the action's directory ($GITHUB_ACTION_PATH)"
    awk '
        /^\[/ { table = $0 }
        table == "[workspace.package]" && /^version[ \t]*=/ {
            sub(/^version[ \t]*=[ \t]*"/, ""); sub(/".*$/, ""); print; exit
        }
    ' "$manifest"
}

# A verdict the workflow installed itself.
use_given() {
    local given="$INPUT_VERDICT_PATH" found
    if [[ "$given" == */* || "$given" == *\\* ]]; then
        [[ -f "$given" && -x "$given" ]] || fail "verdict-path: $given is not an executable file"
        found="$given"
    else
        found="$(command -v -- "$given")" || fail "verdict-path: no $given on PATH"
    fi
    echo "verdict=$found" >>"$GITHUB_OUTPUT"
    "$found" --version
}

# pip-installs verdict-cli into a venv of its own under $RUNNER_TEMP.
install_from_pypi() {
    local version="${INPUT_VERSION:-}" requirement python venv bin exe=""
    [[ -n "$version" ]] || version="$(action_version)"
    [[ -n "$version" ]] || fail "no version in [workspace.package] of $GITHUB_ACTION_PATH/Cargo.toml"
    if [[ "$version" == latest ]]; then
        requirement="verdict-cli"
    elif [[ "$version" =~ ^v?[0-9][0-9A-Za-z.+-]*$ ]]; then
        requirement="verdict-cli==${version#v}"
    else
        fail "version: '$version' is not a version (such as 0.1.0) nor 'latest'"
    fi
    # On Windows `python3` may be the Microsoft Store's stub; the runner's Python is `python`.
    if [[ "${RUNNER_OS:-}" == Windows ]]; then
        python="$(command -v python || command -v python3)"
    else
        python="$(command -v python3 || command -v python)"
    fi || fail "no Python on this runner to install verdict with"
    venv="$RUNNER_TEMP/verdict-venv"
    "$python" -m venv "$venv"
    # Windows venvs keep their programs in Scripts/ and name them .exe.
    if [[ -d "$venv/Scripts" ]]; then
        bin="$venv/Scripts"
        exe=".exe"
    else
        bin="$venv/bin"
    fi
    "$bin/python$exe" -m pip install --disable-pip-version-check --quiet "$requirement"
    echo "verdict=$bin/verdict$exe" >>"$GITHUB_OUTPUT"
    "$bin/verdict$exe" --version
}

if [[ -n "${INPUT_VERDICT_PATH:-}" ]]; then
    use_given
else
    install_from_pypi
fi
