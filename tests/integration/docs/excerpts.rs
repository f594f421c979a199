//! Excerpts of the repository's files shown in the docs, and trees of its
//! directories.
//!
//! - An **excerpt** is a code block whose first line is `# PATH`, PATH a
//!   file of the repository (as written, or under `inventory/`), optionally
//!   followed by a parenthesis. A later line `# PATH` at the start of a line
//!   starts the excerpt of another file. A line `# …` elides: each run of
//!   lines between elisions is a run of consecutive lines of the file (blank
//!   lines at its ends aside), in the file's order.
//! - A **tree** is a code block whose first word is a directory of the
//!   repository ending with `/`: every name on a line below it (after the
//!   tree-drawing characters) is an entry of the directory above it (the
//!   nearest line that starts further left).
//!
//! Blocks marked `edit` (files the examples below them write) and
//! `illustration` (an invented example) are neither.

use std::path::{Path, PathBuf};

use super::markdown::{Block, Doc};

/// What an excerpt's header line names: the file, if it exists.
fn header(repo: &Path, line: &str) -> Option<PathBuf> {
    let rest = line.strip_prefix("# ")?;
    let word = rest.split_whitespace().next()?;
    let after = rest[rest.find(word)? + word.len()..].trim();
    if !(after.is_empty() || after.starts_with('(')) {
        return None;
    }
    [repo.join(word), repo.join("inventory").join(word)]
        .into_iter()
        .find(|p| p.is_file())
}

/// Whether a block is an excerpt.
pub fn is_excerpt(repo: &Path, block: &Block) -> bool {
    !block.has("edit")
        && !block.has("illustration")
        && block.lang() != "console"
        && block
            .body
            .first()
            .is_some_and(|l| header(repo, l).is_some())
}

/// The errors of an excerpt block: each run of lines not found in its file.
pub fn check_excerpt(repo: &Path, doc: &Doc, block: &Block) -> Vec<String> {
    let mut errors = Vec::new();
    let mut sections: Vec<(PathBuf, Vec<(usize, &str)>)> = Vec::new();
    for (i, line) in block.body.iter().enumerate() {
        match header(repo, line) {
            Some(file) => sections.push((file, Vec::new())),
            None => {
                if let Some((_, lines)) = sections.last_mut() {
                    lines.push((block.body_line(i), line.as_str()));
                }
            }
        }
    }
    for (file, lines) in &sections {
        let text = std::fs::read_to_string(file).unwrap();
        let source: Vec<&str> = text.lines().map(str::trim_end).collect();
        let mut from = 0;
        for run in lines.split(|(_, l)| l.trim() == "# …") {
            let start = run.iter().position(|(_, l)| !l.trim().is_empty());
            let end = run.iter().rposition(|(_, l)| !l.trim().is_empty());
            let (Some(start), Some(end)) = (start, end) else {
                continue;
            };
            let run = &run[start..=end];
            let found = (from..source.len().saturating_sub(run.len() - 1)).find(|&p| {
                run.iter()
                    .enumerate()
                    .all(|(k, (_, l))| source[p + k] == l.trim_end())
            });
            match found {
                Some(p) => from = p + run.len(),
                None => {
                    let shown = file.strip_prefix(repo).unwrap_or(file).display();
                    errors.push(format!(
                        "{}: these {} lines are not consecutive lines of {shown} (after line {from}):\n{}",
                        doc.at(run[0].0),
                        run.len(),
                        run.iter().map(|(_, l)| *l).collect::<Vec<_>>().join("\n")
                    ));
                    break;
                }
            }
        }
    }
    errors
}

/// Whether a block is a tree of a directory of the repository.
pub fn is_tree(repo: &Path, block: &Block) -> bool {
    block.lang() != "console"
        && !block.has("illustration")
        && block
            .body
            .first()
            .and_then(|l| l.split_whitespace().next())
            .is_some_and(|w| w.ends_with('/') && repo.join(w).is_dir())
}

/// The errors of a tree block: each name that is not where the tree puts it.
pub fn check_tree(repo: &Path, doc: &Doc, block: &Block) -> Vec<String> {
    let mut errors = Vec::new();
    // The directories open above the current line: (column, path).
    let mut open: Vec<(usize, PathBuf)> = Vec::new();
    for (i, line) in block.body.iter().enumerate() {
        let start = line
            .char_indices()
            .find(|(_, c)| !matches!(c, ' ' | '│' | '├' | '└' | '─'))
            .map(|(b, _)| line[..b].chars().count());
        let Some(column) = start else { continue };
        let name = line.trim_start_matches([' ', '│', '├', '└', '─']);
        let name = name.split_whitespace().next().unwrap_or_default();
        if name == "…" {
            continue;
        }
        while open.last().is_some_and(|(c, _)| *c >= column) {
            open.pop();
        }
        let path = match open.last() {
            Some((_, dir)) => dir.join(name),
            None => repo.join(name),
        };
        let exists = if name.ends_with('/') {
            path.is_dir()
        } else {
            path.is_file()
        };
        if !exists {
            errors.push(format!(
                "{}: the tree shows `{}`, which does not exist",
                doc.at(block.body_line(i)),
                path.strip_prefix(repo).unwrap_or(&path).display()
            ));
        }
        if name.ends_with('/') {
            open.push((column, path));
        }
    }
    errors
}

#[test]
fn excerpts_and_trees_are_read_from_the_repository() {
    let repo = crate::support::repo();
    let text = "```yaml\n# inventory/_default.yml\nsite:\n  owner: platform team\n# …\nmonitoring:\n  enabled: true\n```\n```yaml\n# _default.yml (shortened)\nsite:\n  owner: nobody\n```\n```text\ninventory/   the root\n  _default.yml\n  example.org/\n    web/\n      host01.yml   a host\n      host09.yml\n```\n";
    let doc = Doc::new("x.md", std::path::Path::new("x.md"), text);
    assert!(is_excerpt(&repo, &doc.blocks[0]));
    assert!(check_excerpt(&repo, &doc, &doc.blocks[0]).is_empty());
    let errors = check_excerpt(&repo, &doc, &doc.blocks[1]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].starts_with("x.md:11:"), "{errors:?}");
    assert!(is_tree(&repo, &doc.blocks[2]));
    let errors = check_tree(&repo, &doc, &doc.blocks[2]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("inventory/example.org/web/host09.yml"));
}
