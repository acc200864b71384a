//! Globs expanded as `sh` expands an unquoted word, for the commands a project declares:
//! `npm run` hands a script to `sh`, so `node --test test/*.test.js` reaches node as the list of
//! matching files, and a verifier that runs the tool itself must pass the same list.

use std::path::Path;

/// How many paths one glob expands to at most.
const MAX_GLOB_MATCHES: usize = 10_000;

/// `pattern` expanded from `cwd` as `sh` expands an unquoted word: each `/`-separated part
/// matched against the entries of the directories so far (`*` and `?` never match a leading `.`;
/// `**` is `*`, as without bash's `globstar`), sorted; the pattern itself when nothing matches.
pub fn expand(cwd: &Path, pattern: &str) -> Vec<String> {
    let mut found: Vec<String> = vec![if pattern.starts_with('/') {
        "/".to_owned()
    } else {
        String::new()
    }];
    for part in pattern.split('/').filter(|part| !part.is_empty()) {
        let mut next = Vec::new();
        for prefix in &found {
            let base = match prefix.as_str() {
                "" | "/" => prefix.clone(),
                _ => format!("{prefix}/"),
            };
            if !part.contains(['*', '?', '[']) {
                let path = format!("{base}{part}");
                if cwd.join(&path).exists() {
                    next.push(path);
                }
                continue;
            }
            let dir = if base.is_empty() {
                cwd.to_path_buf()
            } else {
                cwd.join(&base)
            };
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut names: Vec<String> = entries
                .filter_map(Result::ok)
                .filter_map(|entry| entry.file_name().into_string().ok())
                .filter(|name| !name.starts_with('.') || part.starts_with('.'))
                .filter(|name| glob_match(part.as_bytes(), name.as_bytes()))
                .collect();
            names.sort();
            next.extend(names.into_iter().map(|name| format!("{base}{name}")));
            if next.len() > MAX_GLOB_MATCHES {
                return vec![pattern.to_owned()];
            }
        }
        found = next;
    }
    let mut paths: Vec<String> = found
        .into_iter()
        .filter(|path| !path.is_empty() && path != "/")
        .collect();
    if pattern.ends_with('/') {
        // `dir/*/` matches directories only, and keeps its slash.
        paths.retain(|path| cwd.join(path).is_dir());
        paths.iter_mut().for_each(|path| path.push('/'));
    }
    if paths.is_empty() {
        vec![pattern.to_owned()]
    } else {
        paths
    }
}

/// Whether `name` matches the `sh` pattern `pattern` (`*`, `?`, `[…]` with ranges and `!`/`^`).
fn glob_match(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        let step = match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, n));
                p += 1;
                continue;
            }
            Some(b'?') => Some(p + 1),
            Some(b'[') => class_match(pattern, p, name[n]),
            Some(&c) => (c == name[n]).then_some(p + 1),
            None => None,
        };
        match step {
            Some(next) => {
                p = next;
                n += 1;
            }
            None => match star {
                Some((star_p, star_n)) => {
                    p = star_p + 1;
                    n = star_n + 1;
                    star = Some((star_p, star_n + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// Matches `c` against the bracket expression at `pattern[start]`: the index after it when it
/// matches, `None` when it does not; an unclosed `[` is a literal `[`.
fn class_match(pattern: &[u8], start: usize, c: u8) -> Option<usize> {
    let mut i = start + 1;
    let negated = matches!(pattern.get(i), Some(b'!' | b'^'));
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while let Some(&p) = pattern.get(i) {
        if p == b']' && !first {
            return (matched != negated).then_some(i + 1);
        }
        first = false;
        if pattern.get(i + 1) == Some(&b'-') && pattern.get(i + 2).is_some_and(|&e| e != b']') {
            let end = pattern[i + 2];
            matched |= p <= c && c <= end;
            i += 3;
        } else {
            matched |= p == c;
            i += 1;
        }
    }
    (c == b'[').then_some(start + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_expand_as_sh_expands_them() {
        let dir = tempfile::tempdir().expect("temp dir");
        for file in [
            "test/a.test.js",
            "test/b.test.js",
            "test/b.spec.js",
            "test/.hidden.test.js",
            "test/unit/c.test.js",
        ] {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, "").expect("write");
        }
        let expand = |pattern: &str| expand(dir.path(), pattern);
        assert_eq!(
            expand("test/*.test.js"),
            ["test/a.test.js", "test/b.test.js"]
        );
        assert_eq!(expand("test/[ab].spec.js"), ["test/b.spec.js"]);
        assert_eq!(expand("test/[!a].test.js"), ["test/b.test.js"]);
        assert_eq!(expand("test/*/*.test.js"), ["test/unit/c.test.js"]);
        // `**` is `*` to sh without globstar.
        assert_eq!(expand("test/**/*.test.js"), ["test/unit/c.test.js"]);
        assert_eq!(expand("te?t/"), ["test/"]);
        assert_eq!(expand("nothing/*.js"), ["nothing/*.js"]);
    }
}
