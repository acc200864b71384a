//! Whether a Claude Code subagent can edit files. One that cannot (the built-in `Explore` and
//! `Plan`, or an agent defined with no editing tool, or in plan mode) is never told to fix code
//! when it stops: it reports to the parent, which can.
//!
//! A project's or user's own agent is a Markdown file under `.claude/agents/` (the project's, then
//! the user's) whose front matter names it (`name:`) and may restrict its tools (`tools:`,
//! `disallowedTools:`) or its permission mode (`permissionMode:`). An agent verdict cannot find
//! is taken to be able to edit: it gets the parent's treatment.

use std::path::{Path, PathBuf};

/// Claude Code's built-in subagents that have read-only tools.
const READ_ONLY_BUILT_INS: &[&str] = &["Explore", "Plan"];

/// The tools that edit files. Bash is not among them: a reviewer that runs the tests has it.
const EDIT_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// Whether the subagent of type `agent_type` cannot edit files, its definition looked for under
/// `project` and then the user's home.
pub(super) fn is_read_only(agent_type: &str, project: &Path) -> bool {
    if READ_ONLY_BUILT_INS.contains(&agent_type) {
        return true;
    }
    let mut dirs = vec![project.join(".claude").join("agents")];
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        dirs.push(PathBuf::from(home).join(".claude").join("agents"));
    }
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        files.sort();
        for file in files {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let front = front_matter(&text);
            if front.name.as_deref() == Some(agent_type) {
                return front.read_only();
            }
        }
    }
    false
}

/// What the front matter of an agent's file says.
#[derive(Debug, Default, PartialEq, Eq)]
struct Front {
    name: Option<String>,
    tools: Option<Vec<String>>,
    disallowed: Vec<String>,
    permission_mode: Option<String>,
}

impl Front {
    fn read_only(&self) -> bool {
        if self.permission_mode.as_deref() == Some("plan") {
            return true;
        }
        // Editing is possible when some editing tool is allowed and not taken away.
        let can_edit = EDIT_TOOLS.iter().any(|tool| {
            let listed = match &self.tools {
                Some(tools) => tools.iter().any(|t| t == tool),
                // No list: every tool of the parent.
                None => true,
            };
            listed && !self.disallowed.iter().any(|d| d == tool)
        });
        !can_edit
    }
}

/// The keys verdict reads from the YAML front matter (between the first two `---` lines): plain
/// `key: value` lines, tools as a comma-separated string, a `[a, b]` list or a `- a` block list.
fn front_matter(text: &str) -> Front {
    let mut lines = text.lines();
    let mut front = Front::default();
    if lines.next().map(str::trim) != Some("---") {
        return front;
    }
    let mut list: Option<&'static str> = None;
    for line in lines {
        if line.trim() == "---" {
            break;
        }
        if let Some(item) = line.trim_start().strip_prefix("- ")
            && line.starts_with([' ', '-'])
            && let Some(key) = list
        {
            let tool = tool_name(item);
            match key {
                "tools" => front.tools.get_or_insert_with(Vec::new).push(tool),
                _ => front.disallowed.push(tool),
            }
            continue;
        }
        list = None;
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim().trim_matches(['"', '\'']);
        match key.trim() {
            "name" => front.name = Some(value.to_owned()),
            "permissionMode" => front.permission_mode = Some(value.to_owned()),
            key @ ("tools" | "disallowedTools") => {
                let tools = if value.is_empty() {
                    list = Some(if key == "tools" {
                        "tools"
                    } else {
                        "disallowed"
                    });
                    Vec::new()
                } else {
                    value
                        .trim_start_matches('[')
                        .trim_end_matches(']')
                        .split(',')
                        .map(tool_name)
                        .filter(|t| !t.is_empty())
                        .collect()
                };
                if key == "tools" {
                    front.tools = Some(tools);
                } else {
                    front.disallowed = tools;
                }
            }
            _ => {}
        }
    }
    front
}

/// `Bash(npm test)` → `Bash`, quotes and spaces removed.
fn tool_name(item: &str) -> String {
    let item = item.trim().trim_matches(['"', '\'']);
    item.split('(').next().unwrap_or_default().trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_only(text: &str) -> bool {
        front_matter(text).read_only()
    }

    #[test]
    fn agents_without_an_editing_tool_are_read_only() {
        assert!(read_only(
            "---\nname: r\ntools: Read, Grep, Glob, Bash(npm test)\n---\nbody"
        ));
        assert!(read_only("---\nname: r\ntools: [Read, Grep]\n---\n"));
        assert!(read_only("---\nname: r\ntools:\n  - Read\n  - Grep\n---\n"));
        assert!(read_only("---\nname: r\npermissionMode: plan\n---\n"));
        assert!(read_only(
            "---\nname: r\ndisallowedTools: Edit, Write, MultiEdit, NotebookEdit\n---\n"
        ));
        assert!(!read_only("---\nname: w\ntools: Read, Edit\n---\n"));
        assert!(!read_only(
            "---\nname: w\ntools:\n  - Read\n  - Write\n---\n"
        ));
        assert!(!read_only("---\nname: w\n---\n"));
        assert!(!read_only("---\nname: w\ndisallowedTools: Edit\n---\n"));
        assert_eq!(front_matter("no front matter"), Front::default());
    }

    #[test]
    fn built_in_explore_and_plan_are_read_only_and_an_unknown_agent_is_not() {
        let dir = tempfile::tempdir().expect("a temp dir");
        assert!(is_read_only("Explore", dir.path()));
        assert!(is_read_only("Plan", dir.path()));
        assert!(!is_read_only("general-purpose", dir.path()));
        let agents = dir.path().join(".claude/agents");
        std::fs::create_dir_all(&agents).expect("mkdir");
        std::fs::write(
            agents.join("reviewer.md"),
            "---\nname: code-reviewer\ntools: Read, Grep\n---\nReview.",
        )
        .expect("write");
        assert!(is_read_only("code-reviewer", dir.path()));
        assert!(!is_read_only("reviewer", dir.path()));
    }
}
