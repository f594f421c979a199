//! ```console examples: their commands and the output shown, the edits of
//! the example inventory they run on, how the output is compared, and how
//! an out-of-date output is rewritten.

use regex::Regex;
use std::sync::LazyLock;

use super::markdown::{Block, Doc};

/// One example: where it is, the command's words, the output shown.
pub struct Example {
    pub place: String,
    pub args: Vec<String>,
    /// The output lines shown, trailing blank lines left out.
    pub output: Vec<String>,
    /// The 0-based file line of the first output line, and how many lines
    /// the output has (trailing blank lines left out).
    pub first: usize,
    /// The files an earlier ```… edit block of the same section writes:
    /// (path relative to the repository, content).
    pub edits: Vec<(String, String)>,
}

/// A block that is not run, and why.
pub struct Ignored {
    pub place: String,
    pub reason: String,
}

/// The examples of one file, the blocks marked not to run, and the
/// convention errors found on the way.
pub fn examples(doc: &Doc) -> (Vec<Example>, Vec<Ignored>, Vec<String>) {
    let mut out = Vec::new();
    let mut ignored = Vec::new();
    let mut errors = Vec::new();
    let mut edits: Vec<(String, String)> = Vec::new();
    let mut section = usize::MAX;
    for block in &doc.blocks {
        if block.section != section {
            section = block.section;
            edits.clear();
        }
        if block.has("edit") {
            match edit(block) {
                Ok(e) => {
                    edits.retain(|(p, _)| *p != e.0);
                    edits.push(e);
                }
                Err(why) => errors.push(format!("{}: {why}", doc.at(block.line))),
            }
            continue;
        }
        if block.lang() != "console" {
            continue;
        }
        if let Some(reason) = ignore_reason(&block.info) {
            if reason.is_empty() {
                errors.push(format!(
                    "{}: `console ignore` needs a reason: ```console ignore: needs a FreeBSD host",
                    doc.at(block.line)
                ));
            }
            ignored.push(Ignored {
                place: doc.at(block.line),
                reason,
            });
            continue;
        }
        match commands(doc, block, &edits) {
            Ok(mut e) => out.append(&mut e),
            Err(why) => errors.push(why),
        }
    }
    (out, ignored, errors)
}

/// `ignore` after `console`: the reason that follows (maybe empty).
fn ignore_reason(info: &str) -> Option<String> {
    let rest = info.strip_prefix("console")?.trim_start();
    let reason = rest.strip_prefix("ignore")?;
    Some(
        reason
            .trim_start_matches([':', ' ', '—', '-'])
            .trim()
            .to_string(),
    )
}

/// An edit block: its first line `# PATH` names the file it writes, under
/// inventory/ or ssh/.
fn edit(block: &Block) -> Result<(String, String), String> {
    let first = block.body.first().map(String::as_str).unwrap_or_default();
    let path = first
        .strip_prefix("# ")
        .map(|p| p.split_whitespace().next().unwrap_or_default())
        .filter(|p| {
            (p.starts_with("inventory/") || p.starts_with("ssh/"))
                && !p.split('/').any(|s| s == "..")
        })
        .ok_or(
            "an edit block starts with `# inventory/PATH` or `# ssh/PATH`, the file it writes",
        )?;
    let mut content = block.body.join("\n");
    content.push('\n');
    Ok((path.to_string(), content))
}

fn commands(doc: &Doc, block: &Block, edits: &[(String, String)]) -> Result<Vec<Example>, String> {
    let mut out: Vec<Example> = Vec::new();
    for (i, line) in block.body.iter().enumerate() {
        let at = doc.at(block.body_line(i));
        if let Some(cmd) = line.strip_prefix("$ ") {
            let words = shlex::split(cmd).ok_or(format!("{at}: cannot split `{cmd}`"))?;
            if words.first().map(String::as_str) != Some("beryl") {
                return Err(format!(
                    "{at}: a console example runs beryl, not `{cmd}` (mark a shell session ```console ignore: REASON)"
                ));
            }
            out.push(Example {
                place: at,
                args: words[1..].to_vec(),
                output: Vec::new(),
                first: block.body_line(i),
                edits: edits.to_vec(),
            });
        } else {
            let last = out
                .last_mut()
                .ok_or(format!("{at}: output before any `$ ` line"))?;
            last.output.push(line.clone());
        }
    }
    for ex in &mut out {
        while ex.output.last().is_some_and(|l| l.trim().is_empty()) {
            ex.output.pop();
        }
    }
    Ok(out)
}

/// The marker of elided output: a line of its own for any number of
/// lines, inside a line for any run of characters.
pub const ELISION: &str = "…";

/// Lines of actual output, trailing whitespace and trailing blank lines
/// left out.
pub fn lines(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

fn line_matches(want: &str, got: &str) -> bool {
    let want = want.trim_end();
    let parts: Vec<&str> = want.split(ELISION).collect();
    if parts.len() == 1 {
        return want == got;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !got.starts_with(first) || !got[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &got[first.len()..got.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

fn is_elision(line: &str) -> bool {
    line.trim() == ELISION
}

/// Matches shown lines against actual ones; on success, the actual line
/// each shown line stands for (`None` for an elision line).
pub fn align(want: &[String], got: &[String]) -> Option<Vec<Option<usize>>> {
    let (n, m) = (want.len(), got.len());
    // ok[i][j]: want[i..] matches got[j..].
    let mut ok = vec![vec![false; m + 1]; n + 1];
    ok[n][m] = true;
    for i in (0..n).rev() {
        for j in (0..=m).rev() {
            ok[i][j] = if is_elision(&want[i]) {
                ok[i + 1][j] || (j < m && ok[i][j + 1])
            } else {
                j < m && line_matches(&want[i], &got[j]) && ok[i + 1][j + 1]
            };
        }
    }
    if !ok[0][0] {
        return None;
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(n);
    while i < n {
        if is_elision(&want[i]) {
            if ok[i + 1][j] {
                out.push(None);
                i += 1;
            } else {
                j += 1;
            }
        } else {
            out.push(Some(j));
            i += 1;
            j += 1;
        }
    }
    Some(out)
}

/// `FILE:LINE` and `FILE:LINE:COL` citations.
pub static CITATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"([A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*\.[A-Za-z0-9]+):(\d+)(?::(\d+))?").unwrap()
});

fn without_numbers(line: &str) -> String {
    CITATION.replace_all(line, "$1:#").into_owned()
}

/// The output to write instead of `want` for `got`, or `None` when the
/// docs must be fixed by hand: the actual output when nothing is elided;
/// with elisions, the shown lines with the citations of the lines they
/// stand for, when the output differs only in line and column numbers.
pub fn updated(want: &[String], got: &[String]) -> Option<Vec<String>> {
    if !want.iter().any(|l| l.contains(ELISION)) {
        return Some(got.to_vec());
    }
    let plain_want: Vec<String> = want.iter().map(|l| without_numbers(l)).collect();
    let plain_got: Vec<String> = got.iter().map(|l| without_numbers(l)).collect();
    let alignment = align(&plain_want, &plain_got)?;
    Some(
        want.iter()
            .zip(alignment)
            .map(|(w, a)| match a {
                None => w.clone(),
                Some(j) if !w.contains(ELISION) => got[j].clone(),
                Some(j) => {
                    let mut cites = CITATION.find_iter(&got[j]).map(|m| m.as_str().to_string());
                    CITATION
                        .replace_all(w, |c: &regex::Captures| {
                            cites.next().unwrap_or_else(|| c[0].to_string())
                        })
                        .into_owned()
                }
            })
            .collect(),
    )
}

#[test]
fn the_example_parser_reads_commands_and_their_output() {
    let text = "# T\n```console\n$ beryl check 'a b'\nchecked\n\n$ beryl hosts\n```\n```sh\n$ rm -rf /\n```\n```console ignore: needs ssh\n$ beryl apply x | ssh y\n```\n```yaml edit\n# inventory/a.yml\nk: v\n```\n```console\n$ beryl render a\n```\n";
    let doc = Doc::new("x.md", std::path::Path::new("x.md"), text);
    let (ex, ignored, errors) = examples(&doc);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(ex.len(), 3);
    assert_eq!(ex[0].args, ["check", "a b"]);
    assert_eq!(ex[0].output, ["checked"]);
    assert_eq!(ex[0].first, 3);
    assert_eq!(ex[1].args, ["hosts"]);
    assert!(ex[1].output.is_empty());
    assert!(ex[1].edits.is_empty());
    assert_eq!(
        ex[2].edits,
        [(
            "inventory/a.yml".to_string(),
            "# inventory/a.yml\nk: v\n".to_string()
        )]
    );
    assert_eq!(ignored.len(), 1);
    assert_eq!(ignored[0].reason, "needs ssh");
}

#[test]
fn elisions_match_lines_and_runs_of_characters() {
    let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let got = v(&["a", "b key AAAA1234 c", "d", "e"]);
    assert!(align(&v(&["a", "b key AAAA… c", "…"]), &got).is_some());
    assert!(align(&v(&["…", "e"]), &got).is_some());
    assert!(align(&v(&["a", "…", "d", "e"]), &got).is_some());
    assert!(align(&v(&["a", "…", "x"]), &got).is_none());
    assert!(align(&v(&["a", "d"]), &got).is_none());
    assert_eq!(
        align(&v(&["a", "…", "e"]), &got),
        Some(vec![Some(0), None, Some(3)])
    );
    // Out-of-date line numbers under an elision are rewritten, the rest kept.
    let want = v(&["x  # inventory/a.yml:3", "…", "k: AAAA…  # b.yml:1:2"]);
    let got = v(&["x  # inventory/a.yml:5", "y", "k: AAAA123  # b.yml:7:2"]);
    assert_eq!(
        updated(&want, &got).unwrap(),
        v(&["x  # inventory/a.yml:5", "…", "k: AAAA…  # b.yml:7:2"])
    );
    assert!(updated(&want, &v(&["other"])).is_none());
}
