//! Reading files as a snapshot holds them: the starting tree's version of what an attempt changed,
//! for the guard that puts test infrastructure back.

use super::error::SnapshotError;
use super::store::Snapshots;
use super::tree::TreeId;

/// The most of all files [`Snapshots::read`] returns at once.
const READ_LIMIT: usize = 64 * 1024 * 1024;

impl Snapshots {
    /// The bytes of each of `paths` (relative, `/`-separated) in `tree`, in order; `None` for a
    /// path the tree does not hold as a file (absent, a directory, a path with a line break).
    pub fn read(
        &self,
        tree: &TreeId,
        paths: &[String],
    ) -> Result<Vec<Option<Vec<u8>>>, SnapshotError> {
        let _lock = self.lock()?;
        self.check_tree(tree)?;
        let asked: Vec<&String> = paths.iter().filter(|p| !p.contains('\n')).collect();
        let mut input = Vec::new();
        for path in &asked {
            input.extend_from_slice(format!("{}:{path}\n", tree.as_str()).as_bytes());
        }
        let output = self.git_with(
            &["cat-file", "--batch"],
            None,
            Some(input),
            Some(READ_LIMIT),
        )?;
        let unexpected = |what: &[u8]| SnapshotError::Output {
            command: "git cat-file --batch".to_owned(),
            output: String::from_utf8_lossy(&what[..what.len().min(200)]).into_owned(),
        };
        let mut rest: &[u8] = &output.stdout;
        let mut answers = Vec::with_capacity(asked.len());
        for _ in &asked {
            let end = rest
                .iter()
                .position(|&b| b == b'\n')
                .ok_or_else(|| unexpected(rest))?;
            let header = std::str::from_utf8(&rest[..end]).map_err(|_| unexpected(rest))?;
            rest = &rest[end + 1..];
            // `<name> missing`, `<name> ambiguous`: not a file of the tree (the name may hold
            // spaces, the object line never does).
            if header.ends_with(" missing") || header.ends_with(" ambiguous") {
                answers.push(None);
                continue;
            }
            let fields: Vec<&str> = header.split(' ').collect();
            match fields.as_slice() {
                [_, kind, size] => {
                    let size: usize = size.parse().map_err(|_| unexpected(header.as_bytes()))?;
                    if rest.len() < size + 1 {
                        return Err(unexpected(header.as_bytes()));
                    }
                    let bytes = rest[..size].to_vec();
                    rest = &rest[size + 1..];
                    answers.push((*kind == "blob").then_some(bytes));
                }
                _ => return Err(unexpected(header.as_bytes())),
            }
        }
        let mut answers = answers.into_iter();
        Ok(paths
            .iter()
            .map(|p| {
                if p.contains('\n') {
                    None
                } else {
                    answers.next().flatten()
                }
            })
            .collect())
    }
}
