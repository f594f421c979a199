//! The console examples of the docs run, so the docs cannot drift: every
//! ```console block of README.md and docs/*.md. A line `$ beryl ARGS` runs
//! the built beryl in the repository (the example inventory), with ARGS split
//! as sh would split them; the lines after it, up to the next `$ ` line or
//! the end of the block, are exactly what it prints (stdout, then stderr,
//! without colour). A `$ ` line that does not run beryl is refused: the
//! examples show beryl, not a shell session.

use std::fs;

use crate::harness::{beryl, repo};

/// One example: where it is, the command's words, the output shown.
struct Example {
    place: String,
    args: Vec<String>,
    output: String,
}

/// The examples of one Markdown file's text (`name` for messages).
fn examples(text: &str, name: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_block = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_block = line.trim() == "```console";
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            let words = shlex::split(cmd)
                .unwrap_or_else(|| panic!("{name}:{}: cannot split `{cmd}`", n + 1));
            assert_eq!(
                words.first().map(String::as_str),
                Some("beryl"),
                "{name}:{}: a console example runs beryl",
                n + 1
            );
            out.push(Example {
                place: format!("{name}:{}", n + 1),
                args: words[1..].to_vec(),
                output: String::new(),
            });
        } else {
            let last = out
                .last_mut()
                .unwrap_or_else(|| panic!("{name}:{}: output before any `$ ` line", n + 1));
            last.output.push_str(line);
            last.output.push('\n');
        }
    }
    out
}

#[test]
fn console_examples_in_the_docs_are_what_beryl_prints() {
    let mut files = vec![repo().join("README.md")];
    let mut docs: Vec<_> = fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let all: Vec<Example> = files
        .iter()
        .flat_map(|f| {
            let name = f.strip_prefix(repo()).unwrap().display().to_string();
            examples(&fs::read_to_string(f).unwrap(), &name)
        })
        .collect();
    assert!(all.len() >= 3, "only {} console examples", all.len());
    let mut failures = Vec::new();
    for ex in &all {
        let run = beryl(&repo(), &ex.args);
        let got = format!("{}{}", run.stdout, run.stderr);
        if got != ex.output {
            failures.push(format!(
                "{}: `beryl {}` printed:\n{got}---\nthe docs show:\n{}",
                ex.place,
                ex.args.join(" "),
                ex.output
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The parser takes commands and their output, and nothing else.
#[test]
fn the_example_parser_reads_commands_and_their_output() {
    let text = "text\n```console\n$ beryl check 'a b'\nchecked\n\n$ beryl hosts\n```\n```sh\n$ rm -rf /\n```\n";
    let ex = examples(text, "x.md");
    assert_eq!(ex.len(), 2);
    assert_eq!(ex[0].args, ["check", "a b"]);
    assert_eq!(ex[0].output, "checked\n\n");
    assert_eq!(ex[1].args, ["hosts"]);
    assert_eq!(ex[1].output, "");
}
