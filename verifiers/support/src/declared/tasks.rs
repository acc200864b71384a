//! The check tasks of pyproject.toml's task runners: hatch's environment scripts
//! (`[tool.hatch.envs.types.scripts] check = "mypy …"`), poe's tasks, pdm's scripts and
//! taskipy's tasks named as checks (`lint`, `typecheck`, `typing`, `check` …).

use std::path::Path;

use verdict_model::verifier::{InfraFile, Part as InfraPart};

use super::checks::{CHECK_NAMES, Found};

/// Adds the check tasks of the project's pyproject.toml to `found`.
pub(super) fn checks(root: &Path, found: &mut Vec<Found>) {
    let Some(tool) = std::fs::read_to_string(root.join("pyproject.toml"))
        .ok()
        .and_then(|text| toml::from_str::<toml::Table>(&text).ok())
        .and_then(|pyproject| pyproject.get("tool")?.as_table().cloned())
    else {
        return;
    };
    hatch(&tool, found);
    for (runner, table, argv) in [
        ("poe", "tasks", &["poe"][..]),
        ("pdm", "scripts", &["pdm", "run"][..]),
        ("taskipy", "tasks", &["task"][..]),
    ] {
        let Some(tasks) = tool
            .get(runner)
            .and_then(|t| t.get(table))
            .and_then(toml::Value::as_table)
        else {
            continue;
        };
        for (name, task) in tasks {
            if !is_check(name) {
                continue;
            }
            let Some(line) = task_line(task) else {
                continue;
            };
            let origin = format!("pyproject.toml's [tool.{runner}.{table}] {name}");
            let source = toml_part(&[runner, table, name]);
            found.push(Found::new(
                name,
                runner,
                origin,
                argv,
                runner,
                vec![line],
                source,
            ));
        }
    }
}

/// hatch's scripts: every script of an environment named as a check (hatch's own template
/// has `[tool.hatch.envs.types.scripts] check = "mypy …"`), and the scripts named as checks of
/// any environment.
fn hatch(tool: &toml::Table, found: &mut Vec<Found>) {
    let Some(envs) = tool
        .get("hatch")
        .and_then(|h| h.get("envs"))
        .and_then(toml::Value::as_table)
    else {
        return;
    };
    for (env, table) in envs {
        let Some(scripts) = table.get("scripts").and_then(toml::Value::as_table) else {
            continue;
        };
        for (name, script) in scripts {
            if !is_check(env) && !is_check(name) {
                continue;
            }
            let lines: Vec<String> = match script {
                toml::Value::Array(lines) => lines
                    .iter()
                    .filter_map(toml::Value::as_str)
                    .map(hatch_args)
                    .collect(),
                other => other.as_str().map(hatch_args).into_iter().collect(),
            };
            let origin = format!("pyproject.toml's [tool.hatch.envs.{env}.scripts] {name}");
            let source = toml_part(&["hatch", "envs", env, "scripts", name]);
            let script = format!("{env}:{name}");
            // `hatch run types:check`; the check's name is the environment's when it is one.
            let label = if is_check(env) { env } else { name };
            let mut check = Found::new(
                label,
                "hatch",
                origin,
                &["hatch", "run"],
                "hatch",
                lines,
                source,
            );
            check.argv = vec!["hatch".to_owned(), "run".to_owned(), script.clone()];
            check.what = format!("hatch run {script}");
            found.push(check);
        }
    }
}

/// hatch's `{args}` and `{args:default}` placeholders replaced as a run without arguments
/// would: by nothing, or by the default.
fn hatch_args(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("{args") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "{args".len()..];
        let Some(end) = after.find('}') else {
            rest = after;
            continue;
        };
        if let Some(default) = after[..end].strip_prefix(':') {
            out.push_str(default);
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out.trim().to_owned()
}

/// A task's command line: a string, or a table's `cmd` or `shell` (poe, pdm).
fn task_line(task: &toml::Value) -> Option<String> {
    let line = match task {
        toml::Value::String(line) => line.as_str(),
        toml::Value::Table(table) => table
            .get("cmd")
            .or_else(|| table.get("shell"))
            .and_then(toml::Value::as_str)?,
        _ => return None,
    };
    Some(line.replace("{args}", "").trim().to_owned())
}

/// Whether a task's name says it is a check.
fn is_check(name: &str) -> bool {
    CHECK_NAMES.contains(&name.to_ascii_lowercase().as_str())
}

/// The part of pyproject.toml at `[tool.<keys…>]`.
fn toml_part(keys: &[&str]) -> InfraFile {
    InfraFile {
        glob: "pyproject.toml".to_owned(),
        part: InfraPart::Toml(
            std::iter::once("tool")
                .chain(keys.iter().copied())
                .map(str::to_owned)
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::hatch_args;

    #[test]
    fn hatch_args_take_their_default() {
        assert_eq!(
            hatch_args("mypy --install-types {args:src/pkg tests}"),
            "mypy --install-types src/pkg tests"
        );
        assert_eq!(hatch_args("ruff check {args}"), "ruff check");
        assert_eq!(hatch_args("ruff check {args"), "ruff check");
    }
}
