//! Command text with the run directory, the output files and the root written as placeholders,
//! so that a new run id does not change the key.

use std::path::Path;

use crate::verifier::{CommandSpec, Workspace};

/// Writes the output files, the run directory and the root in command text as placeholders.
///
/// `<` in the text itself is doubled first, so that the result is unambiguous: a placeholder is a
/// single `<` followed by a letter.
pub(super) struct Normalizer {
    /// (path as text, placeholder), most specific first.
    pub(super) replacements: Vec<(String, String)>,
}

impl Normalizer {
    pub(super) fn new(workspace: &Workspace, spec: &CommandSpec) -> Self {
        let mut replacements = Vec::new();
        let mut outputs: Vec<(usize, String)> = spec
            .output_files
            .iter()
            .enumerate()
            .filter_map(|(i, path)| Some((i, path.to_str()?.to_owned())))
            .collect();
        // Longest first, so that a path that contains another is replaced whole.
        outputs.sort_by_key(|(_, path)| std::cmp::Reverse(path.len()));
        for (i, path) in outputs {
            if !path.is_empty() {
                replacements.push((path.replace('<', "<<"), format!("<output{i}>")));
            }
        }
        for (path, placeholder) in [(&workspace.run_dir, "<run>"), (&workspace.root, "<root>")] {
            if let Some(path) = path.to_str().filter(|path| !path.is_empty()) {
                replacements.push((path.replace('<', "<<"), placeholder.to_owned()));
            }
        }
        Normalizer { replacements }
    }

    pub(super) fn text(&self, text: &str) -> String {
        let mut text = text.replace('<', "<<");
        for (from, to) in &self.replacements {
            if text.contains(from.as_str()) {
                text = text.replace(from.as_str(), to);
            }
        }
        text
    }

    pub(super) fn path(&self, path: &Path) -> Vec<u8> {
        match path.to_str() {
            Some(text) => {
                let mut bytes = b"u".to_vec();
                bytes.extend_from_slice(self.text(text).as_bytes());
                bytes
            }
            None => {
                let mut bytes = b"r".to_vec();
                bytes.extend_from_slice(path.as_os_str().as_encoded_bytes());
                bytes
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;

    #[test]
    fn placeholders_are_unambiguous() {
        let workspace = Workspace::new("/p").with_run_dir("/p/.verdict/runs/1");
        let spec = CommandSpec {
            program: PathBuf::from("x"),
            args: Vec::new(),
            env: Default::default(),
            cwd: PathBuf::from("/p"),
            timeout: Duration::from_secs(1),
            exit_codes: Default::default(),
            output_files: vec![PathBuf::from("/p/.verdict/runs/1/x.json")],
        };
        let normalizer = Normalizer::new(&workspace, &spec);
        assert_eq!(
            normalizer.text("-o=/p/.verdict/runs/1/x.json"),
            "-o=<output0>"
        );
        assert_eq!(normalizer.text("/p/.verdict/runs/1/y"), "<run>/y");
        assert_eq!(normalizer.text("/p/src"), "<root>/src");
        assert_ne!(normalizer.text("<root>/src"), normalizer.text("/p/src"));
    }
}
