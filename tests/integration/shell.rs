//! `beryl completions` and `beryl man`: what packagers ship.

use std::process::Command;

use crate::support::{args, beryl, repo, tool, with_stdin};

/// Runs bash's completion of `words` (the last one being completed) with the
/// script of `beryl completions bash` loaded, and returns the candidates.
fn bash_complete(words: &[&str]) -> Vec<String> {
    let script = beryl(&repo(), &args(&["completions", "bash"]));
    assert_eq!(script.status, 0, "{}", script.stderr);
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let line = words.join(" ");
    let program = format!(
        "source /dev/stdin\n\
         COMP_WORDS=({words})\n\
         COMP_CWORD={cword}\n\
         COMP_LINE='{line}'\n\
         COMP_POINT={point}\n\
         _beryl beryl '{cur}' '{prev}'\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        words = quoted.join(" "),
        cword = words.len() - 1,
        point = line.len(),
        cur = words[words.len() - 1],
        prev = words[words.len() - 2],
    );
    let out = with_stdin(
        Command::new("bash").args(["--norc", "--noprofile", "-c", &program]),
        script.stdout.as_bytes(),
    );
    assert!(
        out.status.success(),
        "bash: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn bash_completes_subcommands_and_values() {
    if !tool("bash", "--version") {
        return;
    }
    assert_eq!(bash_complete(&["beryl", "ren"]), ["render"]);
    let all = bash_complete(&["beryl", ""]);
    for sub in [
        "render",
        "check",
        "graph",
        "init",
        "schema",
        "completions",
        "man",
    ] {
        assert!(all.iter().any(|c| c == sub), "{sub} not offered: {all:?}");
    }
    assert_eq!(
        bash_complete(&["beryl", "schema", "--level", ""]),
        ["default", "domain", "group", "host"]
    );
    assert_eq!(bash_complete(&["beryl", "completions", "f"]), ["fish"]);
}

#[test]
fn every_shell_gets_a_script() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let run = beryl(&repo(), &args(&["completions", shell]));
        assert_eq!(run.status, 0, "{shell}: {}", run.stderr);
        assert!(run.stdout.contains("render"), "{shell}: no `render`");
        assert!(
            run.stdout.contains("inventory"),
            "{shell}: no `--inventory`"
        );
    }
    let run = beryl(&repo(), &args(&["completions", "tcsh"]));
    assert_eq!(run.status, 2, "an unknown shell is a usage error");
}

#[test]
fn man_pages_are_roff() {
    let page = beryl(&repo(), &args(&["man"]));
    assert_eq!(page.status, 0, "{}", page.stderr);
    assert!(page.stdout.contains(".TH beryl 1"), "{}", page.stdout);
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH SUBCOMMANDS"] {
        assert!(page.stdout.contains(section), "no {section}");
    }
    let render = beryl(&repo(), &args(&["man", "render"]));
    assert_eq!(render.status, 0, "{}", render.stderr);
    assert!(
        render.stdout.contains(&format!(
            ".TH beryl-render 1  \"beryl {}\"",
            env!("CARGO_PKG_VERSION")
        )),
        "{}",
        render.stdout
    );
    assert!(
        render.stdout.contains("\\-\\-annotate"),
        "the page has the options"
    );
    assert!(
        render.stdout.contains("Examples:"),
        "the page has the examples"
    );
    let unknown = beryl(&repo(), &args(&["man", "rendr"]));
    assert_eq!(unknown.status, 2);
    assert!(
        unknown.stderr.contains("no command `rendr`"),
        "{}",
        unknown.stderr
    );
}

/// `--version` is the package version, plus the commit in a git checkout
/// (what build.rs read when this binary was built).
#[test]
fn version_names_the_commit_in_a_checkout() {
    let run = beryl(&repo(), &args(&["--version"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    let version = env!("CARGO_PKG_VERSION");
    let commit = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(repo())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match commit {
        Some(c) => assert_eq!(run.stdout, format!("beryl {version} ({c})\n")),
        None => assert!(
            run.stdout.starts_with(&format!("beryl {version}")),
            "{}",
            run.stdout
        ),
    }
}
