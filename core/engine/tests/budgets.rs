//! The budget is a hard limit: no digest of any captured or collected log goes over it, at any
//! budget from a tight one to a roomy one. The per-log tests check the default budget only; a
//! line that fits 500 tokens may be clipped wrongly at 80, and a list sized for 500 may overflow
//! at 2,000.

use crate::support;

use std::fs;

use verdict_core::digest::{self, tokens};

/// Budgets from one where only the headlines fit to one where most logs fit whole.
const BUDGETS: [usize; 8] = [12, 25, 40, 80, 150, 300, 1000, 2000];

/// Every captured log and every log from the wild, as `(name, bytes)`.
fn logs() -> Vec<(String, Vec<u8>)> {
    let root = support::testdata("");
    let mut folders: Vec<String> = fs::read_dir(&root)
        .expect("summarizers/testdata")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.is_dir())
        .filter_map(|p| Some(p.file_name()?.to_str()?.to_owned()))
        .flat_map(|folder| {
            if folder == "wild" {
                let wild = root.join("wild");
                fs::read_dir(&wild)
                    .expect("summarizers/testdata/wild")
                    .filter_map(|e| Some(e.ok()?.path()))
                    .filter(|p| p.is_dir())
                    .filter_map(|p| Some(format!("wild/{}", p.file_name()?.to_str()?)))
                    .collect()
            } else {
                vec![folder]
            }
        })
        .collect();
    folders.sort();
    folders
        .iter()
        // A folder of structured reports only (JUnit files) holds no logs.
        .filter(|folder| {
            fs::read_dir(support::testdata(folder))
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .any(|e| e.path().extension().is_some_and(|x| x == "log"))
        })
        .flat_map(|folder| {
            support::case_names(folder)
                .into_iter()
                .map(move |case| (format!("{folder}/{case}"), support::log(folder, &case)))
        })
        .collect()
}

#[test]
fn no_digest_goes_over_its_budget_at_any_budget() {
    let logs = logs();
    assert!(logs.len() > 300, "only {} logs found", logs.len());
    let mut over = Vec::new();
    for (name, log) in &logs {
        let reports = verdict_summarizers::summarize_all(log);
        let path = format!("testdata/{name}.log");
        let inputs: Vec<digest::Input<'_>> = reports
            .iter()
            .map(|report| digest::Input {
                report,
                log: Some(&path),
            })
            .collect();
        for budget in BUDGETS {
            let digest = digest::render(&inputs, &digest::Options::new(budget));
            let counted = tokens::count(&digest.text);
            if digest.tokens > budget || counted > budget {
                over.push(format!(
                    "{name} at {budget}: {counted} tokens (the digest says {})",
                    digest.tokens
                ));
            }
        }
    }
    assert!(
        over.is_empty(),
        "digests over their budget:\n{}",
        over.join("\n")
    );
}
