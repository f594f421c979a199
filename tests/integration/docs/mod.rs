//! The docs cannot drift: every example of README.md and docs/*.md (every
//! page, present or future) that shows beryl or a file of the repository is
//! run or compared with the real thing. docs/docs.md is the guide for
//! writers; in short:
//!
//! - A ```console block holds examples: a line `$ beryl ARGS` runs the built
//!   beryl in the repository (the example inventory), ARGS split as sh
//!   would; the lines after it, up to the next `$ ` line, are what it prints
//!   (stdout, then stderr, without colour; trailing spaces and blank lines
//!   aside). A line `…` alone stands for any number of lines, and `…` in a
//!   line for any run of characters. A `$ ` line that does not run beryl is
//!   refused.
//! - ```console ignore: REASON marks a block that cannot run here (it needs
//!   a FreeBSD host, a network, a pipe to ssh): it is counted, not run.
//! - ```yaml edit (first line `# inventory/PATH` or `# ssh/PATH`) writes that
//!   file, whole, into a scratch copy of inventory/ and ssh/ for the console
//!   examples after it in the same section (up to the next heading).
//! - A block that shows a `$ ` command, or beryl's diagnostics, and is not a
//!   ```console block is refused.
//! - Excerpts and trees of the repository's files are compared with them
//!   (excerpts.rs); ```… illustration opts an invented example out.
//! - A `FILE:LINE[:COL]` citation of a repository file in prose is a link
//!   whose title is the text at that place, on no other line of the file
//!   (citations.rs); in code blocks, citations appear only in console
//!   examples.
//!
//! `BERYL_UPDATE_DOCS=1 cargo test --test integration docs` rewrites what
//! it can instead of failing: the output of a console example (with
//! elisions, only its line and column numbers), and the line and column of
//! a prose citation whose text is now on another line. It reports the rest.

mod citations;
mod console;
mod excerpts;
mod markdown;

use std::fs;
use std::path::Path;
use std::sync::Mutex;

use crate::support::{beryl, example, repo, write};
use markdown::Doc;

/// The update mode rewrites docs: one test at a time.
static WRITING: Mutex<()> = Mutex::new(());

fn update() -> bool {
    std::env::var_os("BERYL_UPDATE_DOCS").is_some_and(|v| v == "1")
}

/// README.md, then every docs/*.md, sorted.
fn docs() -> Vec<Doc> {
    let mut files: Vec<_> = fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files.insert(0, repo().join("README.md"));
    files.iter().map(|f| Doc::read(&repo(), f)).collect()
}

/// Replaces 0-based line ranges of a file (`(first, count, new lines)`).
fn rewrite(path: &Path, mut edits: Vec<(usize, usize, Vec<String>)>) {
    let count = edits.len();
    let text = fs::read_to_string(path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    for (first, count, new) in edits {
        lines.splice(first..first + count, new);
    }
    let mut out = lines.join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    fs::write(path, out).unwrap();
    eprintln!("docs: rewrote {count} places of {}", path.display());
}

/// A scratch copy of the example inventory and keys with the edits written.
fn scratch(edits: &[(String, String)]) -> tempfile::TempDir {
    let dir = example();
    for (path, content) in edits {
        write(&dir.path().join(path), content);
    }
    dir
}

#[test]
fn console_examples_print_what_the_docs_show() {
    let _writing = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    let mut run = 0;
    let mut ignored = Vec::new();
    let mut failures = Vec::new();
    for doc in docs() {
        let (examples, marked, errors) = console::examples(&doc);
        failures.extend(errors);
        ignored.extend(marked);
        let mut rewrites = Vec::new();
        for ex in &examples {
            let result = if ex.edits.is_empty() {
                beryl(&repo(), &ex.args)
            } else {
                let dir = scratch(&ex.edits);
                beryl(dir.path(), &ex.args)
            };
            run += 1;
            let got = console::lines(&format!("{}{}", result.stdout, result.stderr));
            if result.status == 101 {
                failures.push(format!("{}: beryl panicked:\n{}", ex.place, got.join("\n")));
                continue;
            }
            if console::align(&ex.output, &got).is_some() {
                continue;
            }
            if update()
                && let Some(new) = console::updated(&ex.output, &got)
            {
                rewrites.push((ex.first, ex.output.len(), new));
                continue;
            }
            failures.push(format!(
                "{}: `beryl {}` printed:\n{}\n---\nthe docs show:\n{}\n",
                ex.place,
                ex.args.join(" "),
                got.join("\n"),
                ex.output.join("\n")
            ));
        }
        if !rewrites.is_empty() {
            rewrite(&doc.path, rewrites);
        }
    }
    eprintln!(
        "docs: {run} console examples run, {} blocks marked not to run",
        ignored.len()
    );
    for i in &ignored {
        eprintln!("  {}: {}", i.place, i.reason);
    }
    assert!(
        run >= 20,
        "only {run} console examples: is the parser broken?"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Blocks that are not run may not look as if they were: a `$ ` command,
/// beryl's diagnostics, or a cited line of a repository file.
#[test]
fn blocks_that_are_not_run_show_no_command_output_or_line() {
    let repo = repo();
    let mut failures = Vec::new();
    for doc in docs() {
        for block in &doc.blocks {
            let runs = block.lang() == "console" && !block.has("ignore");
            if runs || block.lang() == "markdown" {
                continue;
            }
            let at = doc.at(block.line);
            let shown = block.body.iter().find(|l| !l.trim().is_empty());
            if block.lang() != "console" && shown.is_some_and(|l| l.starts_with("$ ")) {
                failures.push(format!(
                    "{at}: a command with its output is a ```console example (or ```console ignore: REASON)"
                ));
            }
            let diagnostic = block.body.iter().any(|l| {
                l.trim_start().starts_with("× ")
                    || (l.starts_with("beryl::")
                        && !l.contains(' ')
                        && l.matches("::").count() >= 2)
            });
            if block.lang() != "console" && diagnostic {
                failures.push(format!(
                    "{at}: beryl's diagnostics are shown by a ```console example, with the command that prints them"
                ));
            }
            for (i, line) in block.body.iter().enumerate() {
                for (range, _, _, _) in citations::citations(&repo, line) {
                    failures.push(format!(
                        "{}: `{}` cites a line in a block that is not run: show it in a ```console example, or cite it in prose",
                        doc.at(block.body_line(i)),
                        &line[range]
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn excerpts_and_trees_match_the_repository() {
    let repo = repo();
    let mut failures = Vec::new();
    let (mut excerpts, mut trees) = (0, 0);
    for doc in docs() {
        for block in &doc.blocks {
            if excerpts::is_excerpt(&repo, block) {
                excerpts += 1;
                failures.extend(excerpts::check_excerpt(&repo, &doc, block));
            } else if excerpts::is_tree(&repo, block) {
                trees += 1;
                failures.extend(excerpts::check_tree(&repo, &doc, block));
            }
        }
    }
    eprintln!("docs: {excerpts} excerpts and {trees} trees compared");
    assert!(
        excerpts >= 3 && trees >= 2,
        "{excerpts} excerpts, {trees} trees"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn cited_lines_hold_the_cited_text() {
    let _writing = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    let repo = repo();
    let mut failures = Vec::new();
    let mut cited = 0;
    for doc in docs() {
        cited += doc
            .prose
            .iter()
            .map(|l| citations::citations(&repo, &l.text).len())
            .sum::<usize>();
        let (errors, rewrites) = citations::check(&repo, &doc, update());
        failures.extend(errors);
        if !rewrites.is_empty() {
            let edits = rewrites
                .into_iter()
                .map(|(line, text)| (line - 1, 1, vec![text]))
                .collect();
            rewrite(&doc.path, edits);
        }
    }
    eprintln!("docs: {cited} citations in prose checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
