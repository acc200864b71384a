//! One test per captured log: the macro that makes them from the lists in `logs.rs`, and the
//! check that every log of a folder is listed. The summarizers' tests and the engine's digest
//! tests both include this file; each support module beside it provides `case_names`.

use super::case_names;

/// Makes, in the calling module, one `#[test]` per listed log of `folder` (a folder of
/// `testdata/`) that calls `check(folder, case)`, and a test that every log of the folder is
/// listed.
macro_rules! captured_logs {
    ($folder:literal, $check:path; $($name:ident $(= $file:literal)?),+ $(,)?) => {
        $(
            #[test]
            fn $name() {
                $check($folder, &$crate::support::log_name!($name $(= $file)?));
            }
        )+

        #[test]
        fn every_captured_log_has_a_test() {
            $crate::support::assert_listed(
                $folder,
                &[$($crate::support::log_name!($name $(= $file)?)),+],
            );
        }
    };
}
pub(crate) use captured_logs;

/// The file name (without `.log`) of a listed log.
macro_rules! log_name {
    ($name:ident) => {
        stringify!($name).replace('_', "-")
    };
    ($name:ident = $file:literal) => {
        String::from($file)
    };
}
pub(crate) use log_name;

/// Fails unless `listed` names exactly the captured logs of `folder`.
pub(crate) fn assert_listed(folder: &str, listed: &[String]) {
    let present = case_names(folder);
    let unlisted: Vec<&String> = present.iter().filter(|c| !listed.contains(c)).collect();
    let missing: Vec<&String> = listed.iter().filter(|c| !present.contains(c)).collect();
    assert!(
        unlisted.is_empty() && missing.is_empty() && listed.len() == present.len(),
        "testdata/{folder}/: logs with no test {unlisted:?}, tests with no log {missing:?} \
         (the lists are in summarizers/tests/support/logs.rs)"
    );
}
