//! `tidy`: repository-wide checks that run as plain tests (`cargo test -p xtask`).
//!
//! - every Rust source file starts with `//!` docs saying what it is for;
//! - no stray `dbg!` in committed code;
//! - no absolute path of a developer's machine in any tracked file;
//! - every captured log has its meta file (and so was written by `cargo xtask capture`).

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::{Path, PathBuf};

    use crate::capture::repo_root;

    /// The tracked files of the repository (what a clean clone holds).
    fn tracked_files() -> Vec<PathBuf> {
        let root = repo_root();
        let output = duct::cmd!("git", "ls-files", "-z")
            .dir(&root)
            .stdout_capture()
            .read()
            .unwrap_or_default();
        output
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(|p| root.join(p))
            .filter(|p| p.is_file())
            .collect()
    }

    fn rust_sources() -> Vec<PathBuf> {
        tracked_files()
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .filter(|p| !p.components().any(|c| c.as_os_str() == "projects"))
            .collect()
    }

    fn relative(path: &Path) -> String {
        path.strip_prefix(repo_root())
            .unwrap_or(path)
            .display()
            .to_string()
    }

    #[test]
    fn every_rust_file_starts_with_module_docs() {
        let missing: Vec<String> = rust_sources()
            .into_iter()
            .filter(|p| {
                let text = fs::read_to_string(p).unwrap_or_default();
                !text.trim_start().starts_with("//!")
            })
            .map(|p| relative(&p))
            .collect();
        assert!(missing.is_empty(), "files without `//!` docs: {missing:#?}");
    }

    #[test]
    fn no_stray_dbg_macros() {
        let needle = concat!("dbg", "!(");
        let offenders: Vec<String> = rust_sources()
            .into_iter()
            .filter(|p| fs::read_to_string(p).unwrap_or_default().contains(needle))
            .map(|p| relative(&p))
            .collect();
        assert!(offenders.is_empty(), "`dbg!` left in: {offenders:#?}");
    }

    #[test]
    fn no_machine_paths_in_tracked_files() {
        let needles = [concat!("/work/", "main"), concat!("/root", "/")];
        // Logs from the wild were written on other people's machines: their paths are theirs.
        let wild = Path::new("summarizers/testdata/wild");
        let offenders: Vec<String> = tracked_files()
            .into_iter()
            .filter(|p| !Path::new(&relative(p)).starts_with(wild))
            .filter(|p| {
                let bytes = fs::read(p).unwrap_or_default();
                let text = String::from_utf8_lossy(&bytes);
                needles.iter().any(|n| text.contains(n))
            })
            .map(|p| relative(&p))
            .collect();
        assert!(
            offenders.is_empty(),
            "absolute paths of a developer's machine in: {offenders:#?}"
        );
    }

    #[test]
    fn every_captured_log_has_its_meta() {
        let orphans: Vec<String> = tracked_files()
            .into_iter()
            .filter(|p| {
                p.extension().is_some_and(|e| e == "log")
                    && p.components().any(|c| c.as_os_str() == "testdata")
            })
            .filter(|p| !p.with_extension("meta.json").is_file())
            .map(|p| relative(&p))
            .collect();
        assert!(orphans.is_empty(), "logs without meta: {orphans:#?}");
    }
}
