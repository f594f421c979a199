//! Line citations of the repository's files in the docs.
//!
//! A citation is `PATH:LINE` or `PATH:LINE:COL`, PATH a file of the
//! repository as written or under `inventory/`. In prose, a citation is a
//! link whose title is the text at that place:
//!
//! ```text
//! [`inventory/_default.yml:65:3`](../inventory/_default.yml#L65 "packages:")
//! ```
//!
//! The cited line holds the title (with a column, the title starts at that
//! column), no other line of the file holds it, and the link points at the
//! same file and line. In code blocks,
//! citations appear only in ```console examples, which are run.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::console::CITATION;
use super::markdown::Doc;

/// A citation written as a link with the expected text as its title.
static MARKER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r#"\[`?(?P<cite>{})`?\]\((?P<href>[^)\s]+)\s+"(?P<title>[^"]*)"\)"#,
        CITATION.as_str()
    ))
    .unwrap()
});

/// The repository file a citation's path names, if any.
pub fn cited_file(repo: &Path, path: &str) -> Option<PathBuf> {
    if path.split('/').any(|s| s == "..") {
        return None;
    }
    [repo.join(path), repo.join("inventory").join(path)]
        .into_iter()
        .find(|p| p.is_file())
}

/// The citations of real files in a text: (byte range, path, line, col).
pub fn citations(
    repo: &Path,
    text: &str,
) -> Vec<(std::ops::Range<usize>, PathBuf, usize, Option<usize>)> {
    CITATION
        .captures_iter(text)
        .filter_map(|c| {
            let file = cited_file(repo, &c[1])?;
            let line = c[2].parse().ok()?;
            let col = c.get(3).and_then(|m| m.as_str().parse().ok());
            Some((c.get(0)?.range(), file, line, col))
        })
        .collect()
}

/// Whether `title` is at the cited place of `lines`.
fn holds(lines: &[&str], line: usize, col: Option<usize>, title: &str) -> bool {
    let Some(text) = line.checked_sub(1).and_then(|i| lines.get(i)) else {
        return false;
    };
    match col {
        Some(col) => text
            .chars()
            .skip(col.saturating_sub(1))
            .collect::<String>()
            .starts_with(title),
        None => text.contains(title),
    }
}

/// The lines holding the title, and the column where it starts on each: a
/// stale citation moves to the only one.
fn holders(lines: &[&str], title: &str) -> Vec<(usize, usize)> {
    lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| l.find(title).map(|b| (i + 1, l[..b].chars().count() + 1)))
        .collect()
}

/// The errors of the citations in a doc's prose; with `update`, the
/// rewritten prose lines (1-based line, new text) for the stale ones that
/// can be moved to the one line holding their text.
pub fn check(repo: &Path, doc: &Doc, update: bool) -> (Vec<String>, Vec<(usize, String)>) {
    let mut errors = Vec::new();
    let mut rewrites = Vec::new();
    let dir = doc.path.parent().unwrap_or(repo).to_path_buf();
    for prose in &doc.prose {
        let mut covered: Vec<std::ops::Range<usize>> = Vec::new();
        let mut new_text = prose.text.clone();
        let mut changed = false;
        for m in MARKER.captures_iter(&prose.text) {
            let whole = m.get(0).unwrap().range();
            covered.push(whole.clone());
            let cite = &m["cite"];
            let at = doc.at(prose.line);
            let Some((_, file, line, col)) = citations(repo, cite).into_iter().next() else {
                errors.push(format!("{at}: `{cite}` names no file of the repository"));
                continue;
            };
            let title = &m["title"];
            let href = &m["href"];
            let (target, anchor) = href.split_once("#L").unwrap_or((href, ""));
            let points = dir.join(target).canonicalize().ok() == file.canonicalize().ok()
                && anchor == line.to_string();
            let text = std::fs::read_to_string(&file).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            if title.trim().is_empty() {
                errors.push(format!(
                    "{at}: the link of `{cite}` needs the text of the line as its title"
                ));
                continue;
            }
            let found = holders(&lines, title);
            if found.len() > 1 {
                errors.push(format!(
                    "{at}: {} lines of the file hold {title:?}: give a text that only the cited line holds",
                    found.len()
                ));
                continue;
            }
            if holds(&lines, line, col, title) && points {
                continue;
            }
            match found.as_slice() {
                [(new_line, new_col)] if update => {
                    let path = &m["cite"][..m["cite"].find(':').unwrap()];
                    let cite = match col {
                        Some(_) => format!("{path}:{new_line}:{new_col}"),
                        None => format!("{path}:{new_line}"),
                    };
                    let old = &prose.text[whole.clone()];
                    let new = old
                        .replacen(&m["cite"], &cite, 1)
                        .replacen(href, &format!("{target}#L{new_line}"), 1);
                    new_text = new_text.replacen(old, &new, 1);
                    changed = true;
                }
                _ => errors.push(format!(
                    "{at}: `{cite}` does not hold {title:?}, or its link does not point at {}#L{line} ({})",
                    target,
                    match (found.len(), update) {
                        (0, _) => "no line of the file holds the text: fix it by hand".to_string(),
                        (1, false) => "BERYL_UPDATE_DOCS=1 moves it to the line that holds the text".to_string(),
                        _ => "the text is not where the citation says".to_string(),
                    }
                )),
            }
        }
        for (range, file, line, _) in citations(repo, &prose.text) {
            if covered
                .iter()
                .any(|c| c.start <= range.start && range.end <= c.end)
            {
                continue;
            }
            let shown = file.strip_prefix(repo).unwrap_or(&file).display();
            errors.push(format!(
                "{}: `{}` cites a line of {shown}: write it as a link with the text of the line, [`{}`](…/{shown}#L{line} \"TEXT\")",
                doc.at(prose.line),
                &prose.text[range.clone()],
                &prose.text[range]
            ));
        }
        if changed {
            rewrites.push((prose.line, new_text));
        }
    }
    (errors, rewrites)
}

#[test]
fn citations_are_links_with_the_text_of_the_line() {
    let repo = crate::support::repo();
    let text = "See [`inventory/_default.yml:19:3`](../inventory/_default.yml#L19 \"owner: platform team\").\nStale [`inventory/_default.yml:3:3`](../inventory/_default.yml#L3 \"contact: ops@example.org\").\nBare inventory/_default.yml:18 here.\nTwice [`inventory/_default.yml:18`](../inventory/_default.yml#L18 \"site:\").\n";
    let doc = Doc::new("docs/x.md", &repo.join("docs/x.md"), text);
    let (errors, rewrites) = check(&repo, &doc, false);
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(errors[0].starts_with("docs/x.md:2:"), "{errors:?}");
    assert!(errors[1].starts_with("docs/x.md:3:"), "{errors:?}");
    // `site:` is also in `dist_site:`: the text must name one line.
    assert!(errors[2].starts_with("docs/x.md:4: 2 lines"), "{errors:?}");
    assert!(rewrites.is_empty());
    let (_, rewrites) = check(&repo, &doc, true);
    assert_eq!(
        rewrites,
        [(
            2,
            "Stale [`inventory/_default.yml:20:3`](../inventory/_default.yml#L20 \"contact: ops@example.org\").".to_string()
        )]
    );
}
