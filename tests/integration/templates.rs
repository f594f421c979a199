//! `--templates` files against hostile values (issue 32): a template built
//! from each quoting context of the sh grammar (a bare word, double and
//! single quotes, backquotes, `$( )` bare and quoted, `${…}`, here-documents
//! plain and quoted, a comment, and the filters that mark a value safe)
//! around a user's comment, × comments that would run a command in one
//! context or another. Every template is either refused before it renders,
//! or renders a script that dash runs without touching the canary; the
//! contexts where sh reads a word are never refused.

use crate::support::{args, beryl, copy_tree, repo};

/// The template around `{{ V }}` (the user's comment), and whether beryl
/// must accept it (sh reads a word there).
const CONTEXTS: &[(&str, &str, bool)] = &[
    ("bare", "echo {{ V }}\n", true),
    ("glued", "echo x{{ V }}y\n", true),
    ("command", "echo $(printf '%s' {{ V }})\n", true),
    ("double", "echo \"{{ V }}\"\n", false),
    ("single", "echo '{{ V }}'\n", false),
    ("backquotes", "echo `echo {{ V }}`\n", false),
    ("double command", "echo \"$(echo {{ V }})\"\n", false),
    ("parameter", "echo ${x:-{{ V }}}\n", false),
    ("heredoc", "cat <<EOF\n{{ V }}\nEOF\n", false),
    ("quoted heredoc", "cat <<'EOF'\n{{ V }}\nEOF\n", false),
    ("comment", "# {{ V }}\necho done\n", false),
    ("safe", "echo {{ V | safe }}\n", false),
    ("tojson", "echo {{ V | tojson }}\n", false),
];

/// Comments that run `touch CANARY` in some context if a value's quoting
/// does not hold there.
const PAYLOADS: &[&str] = &[
    "$(touch CANARY)",
    "`touch CANARY`",
    "x'; touch CANARY; '",
    "x\"; touch CANARY; \"",
    "x}; touch CANARY; #",
    "EOF",
    "$HOME`touch CANARY`",
];

#[test]
fn no_template_lets_a_value_run() {
    let Some(dash) = which("dash") else {
        assert!(
            std::env::var_os("BERYL_REQUIRE_TOOLS").is_none(),
            "dash is required"
        );
        eprintln!("no_template_lets_a_value_run: skipped (no dash)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy_tree(&repo().join("tests/fixtures/base"), d);
    let tpl = d.join("tpl");
    std::fs::create_dir_all(&tpl).unwrap();
    let (mut refused, mut run) = (0, 0);
    for (name, body, accepted) in CONTEXTS {
        let template = format!(
            "{{% for s in plan.steps %}}{{% if s.kind == 'user' %}}{{% set V = s.comment %}}{body}{{% endif %}}{{% endfor %}}"
        );
        std::fs::write(tpl.join("installerconfig.sh.j2"), &template).unwrap();
        for payload in PAYLOADS {
            std::fs::write(
                d.join("inventory/example.org/web/host01.yml"),
                format!(
                    "freebsd:\n  hostname: host01.example.org\n  users:\n    - name: admin\n      comment: {}\n",
                    serde_json::to_string(payload).unwrap()
                ),
            )
            .unwrap();
            let r = beryl(d, &args(&["plan", "host01", "--templates", "tpl"]));
            if r.status != 0 {
                assert!(
                    !accepted,
                    "{name} × {payload:?}: refused where sh reads a word:\n{}",
                    r.stderr
                );
                assert!(
                    r.stderr.contains("stands inside") || r.stderr.contains(" asks "),
                    "{name} × {payload:?}: refused for another reason:\n{}",
                    r.stderr
                );
                refused += 1;
                continue;
            }
            assert!(*accepted, "{name} × {payload:?}: accepted:\n{}", r.stdout);
            let scratch = tempfile::tempdir().unwrap();
            let script = scratch.path().join("installerconfig");
            std::fs::write(&script, &r.stdout).unwrap();
            let out = std::process::Command::new(&dash)
                .arg(&script)
                .current_dir(scratch.path())
                .output()
                .unwrap();
            assert!(
                !scratch.path().join("CANARY").exists(),
                "{name} × {payload:?}: the value ran:\n{}\n{}",
                r.stdout,
                String::from_utf8_lossy(&out.stdout)
            );
            run += 1;
        }
    }
    assert_eq!(refused, 10 * PAYLOADS.len(), "refused");
    assert_eq!(run, 3 * PAYLOADS.len(), "run under dash");
}

fn which(name: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(name))
            .find(|p| p.is_file())
    })
}
