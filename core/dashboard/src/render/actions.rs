//! A person's actions as plain HTML forms: each an authenticated `POST` carrying the page's
//! `csrf` value, so they work without scripts. Offered only with `--allow-actions`, never for
//! a loop's runs (which take none), and only where they make sense for the task's state.

use maud::{Markup, html};

use super::Chrome;
use super::url::encode;
use crate::view::{Kind, State, TaskView};

/// What an action names: one task, or every task of a campaign or an agent.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Subject<'a> {
    Task(&'a str),
    Campaign(&'a str),
    Agent(&'a str),
}

impl Subject<'_> {
    fn path(self) -> String {
        match self {
            Subject::Task(id) => format!("/tasks/{}", encode(id)),
            Subject::Campaign(name) => format!("/campaigns/{}", encode(name)),
            Subject::Agent(name) => format!("/agents/{}", encode(name)),
        }
    }

    /// Words that tell one button from another on the same page.
    fn words(self) -> String {
        match self {
            Subject::Task(_) => "task".to_owned(),
            Subject::Campaign(name) => format!("campaign “{name}”"),
            Subject::Agent(name) => format!("agent “{name}”"),
        }
    }
}

/// What a button does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verb {
    Cancel,
    Pause,
    Resume,
}

impl Verb {
    fn as_str(self) -> &'static str {
        match self {
            Verb::Cancel => "cancel",
            Verb::Pause => "pause",
            Verb::Resume => "resume",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Verb::Cancel => "Cancel",
            Verb::Pause => "Pause",
            Verb::Resume => "Resume",
        }
    }
}

/// Whether the page may offer actions at all; when not, one line says why.
fn refusal(chrome: &Chrome) -> Option<Markup> {
    match (chrome.kind, chrome.actions) {
        (Kind::Loop, _) => Some(html! {
            p class="note" {
                "A loop's runs take no actions from this page: run "
                code { "verdict loop" }
                " in the workspace to resume one."
            }
        }),
        (Kind::Fleet, false) => Some(html! {
            p class="note" {
                "Actions are off: start the dashboard with "
                code { "--allow-actions" }
                " to retry, cancel, pause or resume from here."
            }
        }),
        (Kind::Fleet, true) => None,
    }
}

fn csrf(chrome: &Chrome) -> Markup {
    html! { input type="hidden" name="csrf" value=(chrome.csrf); }
}

/// One button in a form of its own.
fn button(chrome: &Chrome, subject: Subject<'_>, verb: Verb) -> Markup {
    html! {
        form class="action" method="post" action={ (subject.path()) "/" (verb.as_str()) } {
            (csrf(chrome))
            button type="submit" class={ "button verb-" (verb.as_str()) } {
                (verb.label()) " " (subject.words())
            }
        }
    }
}

/// The buttons that make sense for a task in `state`: nothing once it ended, resume only when
/// paused, pause only while it waits.
fn task_verbs(state: State) -> &'static [Verb] {
    match state {
        State::Paused => &[Verb::Resume, Verb::Cancel],
        State::Pending | State::RetryScheduled | State::Interrupted => &[Verb::Pause, Verb::Cancel],
        State::Running => &[Verb::Cancel],
        State::Passed | State::Escalated | State::Failed | State::Expired | State::Cancelled => &[],
    }
}

/// A task's actions: its buttons, and the form that sends it back with guidance.
pub(crate) fn task_actions(chrome: &Chrome, view: &TaskView) -> Markup {
    let id = view.row.id.as_str();
    let verbs = task_verbs(view.row.state);
    html! {
        section class="actions" aria-labelledby="actions-title" {
            h2 id="actions-title" { "Actions" }
            @if let Some(refusal) = refusal(chrome) {
                (refusal)
            } @else {
                @if !verbs.is_empty() {
                    div class="buttons" {
                        @for verb in verbs { (button(chrome, Subject::Task(id), *verb)) }
                    }
                }
                @if view.can_retry {
                    (retry_form(chrome, id))
                } @else if verbs.is_empty() {
                    p class="note" { "It has ended; there is nothing to do." }
                }
            }
        }
    }
}

fn retry_form(chrome: &Chrome, id: &str) -> Markup {
    html! {
        form class="retry" method="post" action={ "/tasks/" (encode(id)) "/retry" } {
            (csrf(chrome))
            label for="guidance" { "Guidance for the next attempt" }
            p id="guidance-hint" class="hint" {
                "It goes into every later prompt, as "
                code { "--guide" }
                " does."
            }
            textarea id="guidance" name="guidance" rows="4" aria-describedby="guidance-hint" {}
            button type="submit" class="button verb-retry" { "Retry with this guidance" }
        }
    }
}

/// Cancel, pause and resume for every task of a campaign or an agent.
pub(crate) fn group_actions(chrome: &Chrome, subject: Subject<'_>) -> Markup {
    if refusal(chrome).is_some() {
        return html! {};
    }
    html! {
        div class="buttons group-actions" {
            @for verb in [Verb::Pause, Verb::Resume, Verb::Cancel] {
                (button(chrome, subject, verb))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ended_tasks_offer_no_buttons_and_only_paused_ones_resume() {
        for state in State::ALL {
            let verbs = task_verbs(state);
            assert_eq!(verbs.is_empty(), state.is_final(), "{state:?}");
            assert_eq!(
                verbs.contains(&Verb::Resume),
                state == State::Paused,
                "{state:?}"
            );
        }
    }

    #[test]
    fn group_paths_are_encoded() {
        assert_eq!(Subject::Campaign("q4/eu").path(), "/campaigns/q4%2Feu");
        assert_eq!(
            Subject::Agent("claude code").path(),
            "/agents/claude%20code"
        );
    }
}
