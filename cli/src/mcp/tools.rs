//! The three tools of `verdict mcp`: what each does with its arguments and how its result is
//! built. `verify` goes through the same [`run::prepare`], pipeline and [`run::Prepared::finish`]
//! as `verdict run`; `summarize_log` through `verdict summarize`'s readers; `list_verifiers`
//! through `verdict list`'s [`list::listing`].
//!
//! A failing project is a successful call whose result says `failed`: `isError` is for verdict
//! itself not being able to run (a bad verdict.toml, an unknown verifier, a log that cannot be
//! read), with the reason as its text. `summarize_log` reads only regular files inside the
//! workspace or its runs directory ([`Workspace`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::RoleServer;
use rmcp::model::{
    CallToolResult, ContentBlock, ErrorCode, JsonObject, ProgressNotificationParam, Resource,
};
use rmcp::service::RequestContext;
use serde::Deserialize;
use serde_json::{Value, json};
use verdict_core::digest;
use verdict_core::model::Status;
use verdict_core::pipeline::Event;
use verdict_core::{Outcome, Report, Verification};

use super::workspace::Workspace;
use crate::exit::ExitCode;
use crate::scoped::Scoped;
use crate::verify::Cut;
use crate::{budget, list, run, summarize};

/// How long a cancelled `verify` waits for its tools to stop: the runner's grace period (5 s)
/// after SIGINT, then SIGTERM and SIGKILL, with room to reap.
pub(crate) const STOP_WAIT: Duration = Duration::from_secs(12);

/// The arguments of `verify`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct VerifyArgs {
    #[serde(default)]
    only: Vec<String>,
    #[serde(default)]
    skip: Vec<String>,
    #[serde(default)]
    budget: Option<usize>,
    #[serde(default)]
    failed_first: bool,
    #[serde(default)]
    changed_only: bool,
    #[serde(default)]
    files: Option<Vec<String>>,
}

/// The arguments of `summarize_log`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SummarizeArgs {
    #[serde(default)]
    path: Option<PathBuf>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    budget: Option<usize>,
}

/// The arguments of `list_verifiers`: none.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListArgs {}

/// A result with `isError`: verdict could not do what was asked, and says why.
pub(crate) fn failure(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

/// Reads a tool's arguments; an absent object is an empty one.
fn arguments<T: for<'de> Deserialize<'de> + Default>(
    tool: &str,
    arguments: Option<JsonObject>,
) -> Result<T, CallToolResult> {
    let Some(object) = arguments else {
        return Ok(T::default());
    };
    serde_json::from_value(Value::Object(object))
        .map_err(|error| failure(format!("invalid arguments of `{tool}`: {error}")))
}

/// A budget of at least one token ([`budget::check`]).
fn check_budget(tokens: Option<usize>) -> Result<(), CallToolResult> {
    match tokens.map(budget::check) {
        Some(Err(_)) => Err(failure("`budget` is a number of tokens, at least 1")),
        _ => Ok(()),
    }
}

/// A result with the digest as its text, then `links`, and `structured` as its
/// `structuredContent`.
fn success(text: String, links: Vec<ContentBlock>, structured: Value) -> CallToolResult {
    let mut content = vec![ContentBlock::text(text)];
    content.extend(links);
    let mut result = CallToolResult::success(content);
    result.structured_content = Some(structured);
    result
}

/// `verify`: the project's verification, as `verdict run`. Progress goes to the client as each
/// verifier finishes when the request carries a progress token; a cancel from the client stops
/// the tools' process groups before the call ends.
pub(crate) async fn verify(
    dir: Option<PathBuf>,
    arguments_object: Option<JsonObject>,
    context: RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let args: VerifyArgs = match arguments("verify", arguments_object) {
        Ok(args) => args,
        Err(result) => return Ok(result),
    };
    if let Err(result) = check_budget(args.budget) {
        return Ok(result);
    }
    if args.files.as_ref().is_some_and(Vec::is_empty) {
        return Ok(failure(
            "`files` names no file; leave it out to verify the whole project",
        ));
    }
    let request = run::Request {
        dir,
        only: args.only,
        skip: args.skip,
        budget: args.budget,
        failed_first: args.failed_first,
        files: args.files,
        ..run::Request::default()
    };
    let prepared = match tokio::task::spawn_blocking(move || run::prepare(&request)).await {
        Ok(Ok(prepared)) => prepared,
        Ok(Err(error)) => return Ok(failure(format!("verdict could not run: {error:#}"))),
        Err(error) => return Ok(failure(format!("verdict could not run: {error}"))),
    };
    let total = prepared.names().len();

    // Progress: the pipeline's callback is synchronous, so finished verifiers go through a
    // channel to a task that sends the notifications, in order.
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<String>();
    let progress = context.meta.get_progress_token().map(|token| {
        let peer = context.peer.clone();
        tokio::spawn(async move {
            let mut done = 0u32;
            while let Some(message) = receiver.recv().await {
                done += 1;
                let param = ProgressNotificationParam::new(token.clone(), f64::from(done))
                    .with_total(total as f64)
                    .with_message(message);
                if peer.notify_progress(param).await.is_err() {
                    break;
                }
            }
        })
    });

    let verifications = {
        let runner = crate::verify::runner_for(&prepared.root);
        let mut on_event = move |event: Event<'_>| {
            if let Event::Finished { verification } = event {
                let _ = sender.send(progress_message(verification));
            }
        };
        // As Ctrl-C does for `verdict run`: nothing new starts, each running group gets SIGINT,
        // then SIGTERM and SIGKILL after the grace period. The call ends only once they are
        // gone, so that no tool outlives it.
        let cut = Cut {
            when: context.ct.cancelled(),
            at_once: false,
            wait: STOP_WAIT,
        };
        match prepared.pipeline(&runner, &mut on_event, cut).await {
            Ok(Ok(verifications)) => Ok(verifications),
            Ok(Err(())) => {
                return Err(ErrorData::new(
                    ErrorCode::INTERNAL_ERROR,
                    "verify was cancelled; its tools were stopped",
                    None,
                ));
            }
            Err(error) => Err(error),
        }
    };
    // Every notification is out before the result: a client drops progress after the result.
    if let Some(progress) = progress {
        let _ = progress.await;
    }
    let verifications = match verifications {
        Ok(verifications) => verifications,
        Err(error) => return Ok(failure(format!("verdict could not run: {error:#}"))),
    };
    let changed_only = args.changed_only;
    let built =
        tokio::task::spawn_blocking(move || verify_result(&prepared, verifications, changed_only))
            .await;
    Ok(built
        .unwrap_or_else(|error| failure(format!("verdict could not build its result: {error}"))))
}

/// The progress message of a finished verifier: `pytest: failed`, `tsc: passed (cached)`.
fn progress_message(verification: &Verification) -> String {
    let mut message = format!(
        "{}: {}",
        verification.verifier,
        verification.outcome().as_str()
    );
    if verification.status != Status::Ran {
        message.push_str(&format!(" ({})", verification.status.as_str()));
    }
    message
}

/// The result of a finished run: the digest, a link to each log, the structured outcome.
fn verify_result(
    prepared: &run::Prepared,
    verifications: Vec<Verification>,
    changed_only: bool,
) -> CallToolResult {
    // With `changed_only`, what the cache replayed is named, not reported; a run in which
    // nothing changed reports every pass, so that its outcome still stands on something.
    let (unchanged, verifications): (Vec<Verification>, Vec<Verification>) =
        if changed_only && verifications.iter().any(|v| v.status != Status::Cached) {
            verifications
                .into_iter()
                .partition(|v| v.status == Status::Cached)
        } else {
            (Vec::new(), verifications)
        };
    let finished = prepared.finish(verifications);
    let root = &prepared.root;
    let mut links = Vec::new();
    let verifiers: Vec<Value> = finished
        .verifications
        .iter()
        .map(|v| {
            let log = v.log.as_deref().map(|log| root.join(log));
            let log = log.filter(|path| path.is_file());
            let uri = log.as_deref().map(file_uri);
            if let (Some(path), Some(uri)) = (&log, &uri) {
                let size = std::fs::metadata(path).map_or(0, |m| m.len());
                let name = path.file_name().map_or_else(
                    || format!("{}.log", v.verifier),
                    |n| n.to_string_lossy().into_owned(),
                );
                links.push(ContentBlock::resource_link(
                    Resource::new(uri.clone(), name)
                        .with_title(format!("Full output of {}", v.verifier))
                        .with_mime_type(super::resources::mime_type(path))
                        .with_size(size),
                ));
            }
            let mut entry = json!({
                "name": v.verifier,
                "kind": v.kind.as_str(),
                "status": v.status.as_str(),
                "outcome": v.outcome().as_str(),
                "counts": v.report.counts,
                "diagnostics": diagnostics(&v.report),
                "duration_ms": u64::try_from(v.duration.as_millis()).unwrap_or(u64::MAX),
            });
            if let Some(summary) = &v.report.summary {
                entry["summary"] = json!(summary);
            }
            if let Some(error) = &v.report.error {
                entry["error"] = json!(error);
            }
            if let Some(uri) = uri {
                entry["log"] = json!(uri);
            }
            if !v.notes.is_empty() {
                entry["notes"] = json!(v.notes);
            }
            if let Some(to) = finished
                .scoped
                .as_ref()
                .and_then(|s| s.narrowed.get(&v.verifier))
            {
                entry["scope"] = json!(to.as_str());
            }
            entry
        })
        .collect();
    let mut structured = json!({
        "outcome": finished.outcome.as_str(),
        "exit_code": ExitCode::of(finished.outcome).code(),
        "project": root.display().to_string(),
        "verifiers": verifiers,
        "unchanged": unchanged.iter().map(|v| v.verifier.as_str()).collect::<Vec<_>>(),
        "digest": { "tokens": finished.digest.tokens, "budget": finished.digest.budget },
    });
    if let Some(note) = &prepared.note {
        structured["note"] = json!(note);
    }
    if let Some(scoped) = &finished.scoped {
        structured["scope"] = scope(scoped);
    }
    success(finished.digest.text, links, structured)
}

/// What a check of some files was scoped to, and what it did not run or check.
fn scope(scoped: &Scoped) -> Value {
    json!({
        "files": scoped.targets.targets,
        "not_run": scoped.not_run.iter().map(|n| json!({
            "verifier": n.verifier,
            "reason": n.reason,
        })).collect::<Vec<_>>(),
        "left_out": scoped.left_out.iter().map(|(verifier, files)| json!({
            "verifier": verifier,
            "files": files,
        })).collect::<Vec<_>>(),
        "missing": scoped.targets.missing.iter().map(|(file, reason)| json!({
            "file": file,
            "reason": reason,
        })).collect::<Vec<_>>(),
    })
}

/// The diagnostics a report found, kept and dropped.
fn diagnostics(report: &Report) -> u64 {
    (report.diagnostics.len() as u64).saturating_add(report.diagnostics_dropped)
}

/// The `file://` URI of an absolute path, each byte outside RFC 3986's unreserved set and `/`
/// percent-encoded.
pub(crate) fn file_uri(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut uri = String::from("file://");
    for &byte in path.as_os_str().as_bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// `summarize_log`: `verdict summarize` of a file or of the text given.
pub(crate) fn summarize_log(
    dir: Option<&Path>,
    arguments_object: Option<JsonObject>,
) -> CallToolResult {
    let args: SummarizeArgs = match arguments("summarize_log", arguments_object) {
        Ok(args) => args,
        Err(result) => return result,
    };
    if let Err(result) = check_budget(args.budget) {
        return result;
    }
    if let Some(tool) = &args.tool
        && verdict_summarizers::by_name(tool).is_none()
    {
        return failure(format!(
            "unknown tool `{tool}`; known: {}",
            verdict_summarizers::names().join(", ")
        ));
    }
    let tool = args.tool.as_deref();
    let (reports, log) = match (&args.path, &args.text) {
        (Some(path), None) => {
            // Only a regular file of the workspace or its runs directory (see [`Workspace`]).
            let opened = Workspace::of(dir).and_then(|workspace| workspace.open(path));
            let (path, file) = match opened {
                Ok(opened) => opened,
                Err(message) => return failure(message),
            };
            match summarize::summarize_open(file, tool) {
                Ok(reports) => (reports, Some(path.display().to_string())),
                Err(error) => {
                    return failure(format!("failed to read {}: {error:#}", path.display()));
                }
            }
        }
        (None, Some(text)) => match summarize::summarize_stream(text.as_bytes(), tool) {
            Ok(reports) => (reports, None),
            Err(error) => return failure(format!("failed to read the text: {error:#}")),
        },
        _ => return failure("give `path` or `text` (one of them)"),
    };
    let inputs: Vec<digest::Input<'_>> = reports
        .iter()
        .map(|report| digest::Input {
            report,
            log: log.as_deref(),
        })
        .collect();
    let budget = budget::resolve(args.budget, None);
    let mut options = digest::Options::new(budget);
    if let Some(dir) = dir {
        options = options.in_project(dir);
    }
    let digest = digest::render(&inputs, &options);
    let outcome: Outcome = summarize::worst(&reports);
    let structured = json!({
        "outcome": outcome.as_str(),
        "exit_code": ExitCode::of(outcome).code(),
        "reports": reports.iter().map(|report| {
            let mut entry = json!({
                "tool": report.tool,
                "outcome": report.outcome.as_str(),
                "counts": report.counts,
                "diagnostics": diagnostics(report),
            });
            if let Some(summary) = &report.summary {
                entry["summary"] = json!(summary);
            }
            if let Some(error) = &report.error {
                entry["error"] = json!(error);
            }
            entry
        }).collect::<Vec<_>>(),
    });
    success(digest.text, Vec::new(), structured)
}

/// `list_verifiers`: `verdict list`.
pub(crate) fn list_verifiers(
    dir: Option<&Path>,
    arguments_object: Option<JsonObject>,
) -> CallToolResult {
    if let Err(result) = arguments::<ListArgs>("list_verifiers", arguments_object) {
        return result;
    }
    let listing = match list::listing(dir) {
        Ok(listing) => listing,
        Err(error) => return failure(format!("verdict could not run: {error:#}")),
    };
    let structured = json!({
        "config": listing.config.as_ref().map(|p| p.display().to_string()),
        "ignored_configs": listing.ignored.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "verifiers": listing.verifiers.iter().map(|row| json!({
            "name": row.name,
            "kind": row.kind,
            "runs": row.runs,
            "reason": row.reason,
            "origin": row.origin,
        })).collect::<Vec<_>>(),
        "uncovered_packages": listing.uncovered.iter().map(|u| json!({
            "dir": u.dir,
            "verifiers": u.verifiers,
        })).collect::<Vec<_>>(),
    });
    success(listing.text(), Vec::new(), structured)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_encode_what_is_not_unreserved() {
        assert_eq!(
            file_uri(Path::new("/p/.verdict/runs/1/tsc.log")),
            "file:///p/.verdict/runs/1/tsc.log"
        );
        assert_eq!(
            file_uri(Path::new("/my project/#1/ü.log")),
            "file:///my%20project/%231/%C3%BC.log"
        );
    }
}
