//! No output shows a secret (issue 37): canary secrets, short and long,
//! are encrypted into the example inventory with `beryl secrets set`, and
//! read by a reference, by a template and by a managed file's content, and
//! one is root's password hash. Every command that reads the inventory runs
//! in every output format, on its error paths too (a wrong identity, a
//! tampered file, `--reveal` into a pipe, a secret where no secret may be),
//! and `beryl diff` compares the inventory with itself after the secrets
//! were set again. No output holds a plaintext, its base64, its hex, or the
//! sha256 of a plaintext or of a content built from one. (The live apply of
//! secrets_apply.rs covers facts, the apply's own output and its events.)
//!
//! Needs age-keygen; skips with a notice without it, unless
//! BERYL_REQUIRE_TOOLS is set.

use std::fs;
use std::path::Path;

use crate::support::{
    age_key, args, beryl, beryl_with_env, copy_tree, facts_digest, key_pair, leak_forms, repo,
    tools,
};

/// The canaries: a short one, a long one, and root's hash.
const PIN: &str = "k7Q9";
const TOKEN: &str = "tok_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9";
const ROOT_HASH: &str = "$6$canarySALT2$Yp7nVq0rW8b1oX6c3sZ5dG7fH9jK2lM4nP6qR8sT0uV2wX4yZ6aB8cD0eF2gH4iJ6kL8mN0oP2qR4sT6uV8wX";
const FILE: &str = "/usr/local/etc/app/api.conf";
const TEMPLATED: &str = "/usr/local/etc/app/pin.conf";

/// Every string no output may hold.
fn forbidden(pin: &str, token: &str) -> Vec<String> {
    let mut all = Vec::new();
    for s in [pin, token, ROOT_HASH] {
        all.extend(leak_forms(s));
    }
    for content in [format!("token={token}\n"), format!("pin={pin}\n")] {
        all.push(beryl::apply::sha256_hex(&content));
    }
    all
}

/// The example inventory in `root`, host01 holding the canaries (`suffix`
/// on the values set), encrypted to the recipients the inventory expects:
/// example.org's keys, the operator key `keys/op` among them (the
/// identity `key`), and host01's host key `keys/host01.pub`.
fn inventory(root: &Path, keys: &Path, key: &Path, suffix: &str) {
    copy_tree(&repo().join("inventory"), &root.join("inventory"));
    copy_tree(&repo().join("ssh"), &root.join("ssh"));
    fs::copy(keys.join("op.pub"), root.join("ssh/op.pub")).unwrap();
    let domain = root.join("inventory/example.org/_domain.yml");
    let text = fs::read_to_string(&domain).unwrap();
    fs::write(
        &domain,
        text.replacen("ssh_keys:\n", "ssh_keys:\n  - op\n", 1),
    )
    .unwrap();
    fs::create_dir_all(root.join("ssh/hosts")).unwrap();
    fs::copy(
        keys.join("host01.pub"),
        root.join("ssh/hosts/host01.example.org.pub"),
    )
    .unwrap();
    fs::write(
        root.join("inventory/templates/canary.conf.j2"),
        "pin={{ site.pin }}\n",
    )
    .unwrap();
    let host = root.join("inventory/example.org/web/host01.yml");
    let text = fs::read_to_string(&host).unwrap();
    assert!(text.contains("\n  files:\n"), "{text}");
    let text = text.replacen(
        "\n  files:\n",
        &format!(
            "\n  files:\n    {FILE}:\n      content: \"token=${{site.api_token}}\\n\"\n    {TEMPLATED}:\n      template: canary.conf.j2\n"
        ),
        1,
    );
    fs::write(&host, format!("{text}site:\n  owner: web team\n")).unwrap();
    let file = "inventory/example.org/web/host01.yml";
    let id = key.to_str().unwrap();
    let pin = format!("{PIN}{suffix}");
    let token = format!("{TOKEN}{suffix}");
    for (place, value, extra) in [
        // The first needs no key: the recipients are the inventory's.
        ("site.pin", pin.as_str(), vec![]),
        ("site.api_token", token.as_str(), vec!["--identity", id]),
        ("freebsd.root_password", ROOT_HASH, vec!["--identity", id]),
    ] {
        let mut a = vec!["secrets", "set", file, place];
        a.extend(extra);
        let r = beryl_with_env(root, &args(&a), &[], Some(value));
        assert_eq!(r.status, 0, "{}", r.stderr);
        assert!(r.stdout.is_empty() || !r.stdout.contains(value));
        assert!(!r.stderr.contains("incomplete"), "{}", r.stderr);
    }
}

#[test]
fn no_output_of_any_command_holds_a_secret() {
    let test = "no_output_of_any_command_holds_a_secret";
    if !tools(&["age-keygen", "ssh-keygen"], test) {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let keys = d.path().join("keys");
    fs::create_dir(&keys).unwrap();
    let key = keys.join("op");
    key_pair(&keys, "op");
    key_pair(&keys, "host01");
    let (old, new) = (d.path().join("old"), d.path().join("new"));
    inventory(&old, &keys, &key, "");
    inventory(&new, &keys, &key, "-2");
    copy_tree(&repo().join("ssh"), &d.path().join("ssh"));
    fs::copy(keys.join("op.pub"), d.path().join("ssh/op.pub")).unwrap();
    let id = key.to_str().unwrap();
    let mut forbidden = forbidden(PIN, TOKEN);
    forbidden.extend(self::forbidden(&format!("{PIN}-2"), &format!("{TOKEN}-2")));
    forbidden.extend(leak_forms(&format!("{PIN}-2x")));
    let render_dir = new.join("out");
    let r = render_dir.to_str().unwrap();
    let plan = new.join("plan.json");
    let p = plan.to_str().unwrap();
    // host01's snapshot, as this inventory's facts script would take it.
    let mut state: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(repo().join("tests/fixtures/apply/host01.json")).unwrap(),
    )
    .unwrap();
    state["script"] = facts_digest(&new, "host01").into();
    let snapshot = new.join("host01.json");
    fs::write(&snapshot, state.to_string()).unwrap();
    let st = snapshot.to_str().unwrap();
    let host_file = "inventory/example.org/web/host01.yml";
    let mut outputs: Vec<(String, String)> = Vec::new();
    let runs = |dir: &Path, a: &[&str], outputs: &mut Vec<(String, String)>| {
        let run = beryl(dir, &args(a));
        outputs.push((format!("{a:?}"), format!("{}{}", run.stdout, run.stderr)));
        run
    };
    // Every command on the inventory, in every format.
    for a in [
        vec!["render", "host01"],
        vec!["render", "host01", "--format", "json"],
        vec!["render", "--all", "--out", r],
        vec!["check"],
        vec!["check", "--format", "json"],
        vec!["check", "--format", "github"],
        vec!["explain", "host01", "site.api_token"],
        vec!["explain", "host01", "site.pin", "--format", "json"],
        vec!["explain", "host01", "freebsd.root_password"],
        vec!["lookup", "site.api_token", "--node", "host01"],
        vec!["lookup", "site.pin", "--all"],
        vec!["hosts"],
        vec!["keys", "host01"],
        vec!["ansible", "--list"],
        vec!["ansible", "--host", "host01.example.org"],
        vec!["graph", "host01"],
        vec!["plan", "host01"],
        vec!["apply", "host01", "--dry-run"],
        vec!["apply", "host01", "--dry-run", "--format", "json"],
        vec!["apply", "host01", "--dry-run", "--state", st],
        vec![
            "apply",
            "host01",
            "--dry-run",
            "--state",
            st,
            "--format",
            "json",
        ],
        vec!["apply", "host01", "--dry-run", "--state", st, "--out", p],
        vec!["apply", "host01", "--script"],
        vec!["facts", "host01"],
        vec!["secrets", "show", host_file],
        vec!["secrets", "check", host_file],
        vec!["secrets", "check", host_file, "--identity", id],
        vec!["secrets", "check", "--identity", id],
        vec!["secrets", "rekey", "--identity", id],
    ] {
        let run = runs(&new, &a, &mut outputs);
        assert!(run.status <= 1, "{a:?}: {}{}", run.stdout, run.stderr);
    }
    // The render shows each secret by its token.
    let rendered = beryl(&new, &args(&["render", "host01"]));
    assert!(
        rendered.stdout.contains("api_token: ‹secret:"),
        "{}",
        rendered.stdout
    );
    for entry in fs::read_dir(&render_dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            outputs.push((
                path.display().to_string(),
                fs::read_to_string(&path).unwrap_or_default(),
            ));
        }
    }
    outputs.push(("the saved plan".into(), fs::read_to_string(&plan).unwrap()));
    // beryl diff, the secrets set again: their tokens change, nothing more.
    for format in ["text", "json", "markdown"] {
        for with_plan in [false, true] {
            let mut a = vec!["diff", "old/inventory", "new/inventory", "--format", format];
            if with_plan {
                a.push("--plan");
            }
            let run = runs(d.path(), &a, &mut outputs);
            // The install plans leave the secrets to apply: they are equal.
            assert_eq!(run.status, i32::from(!with_plan), "{a:?}: {}", run.stderr);
            assert_eq!(
                run.stdout.contains("‹secret:"),
                !with_plan,
                "{a:?}: {}",
                run.stdout
            );
        }
    }
    // An edit in an editor: the pin changed, its line only.
    let editor = d.path().join("editor.sh");
    fs::write(
        &editor,
        format!("#!/bin/sh\nsed -i 's/\"{PIN}-2\"/\"{PIN}-2x\"/' \"$1\"\n"),
    )
    .unwrap();
    fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let before = fs::read_to_string(new.join(host_file)).unwrap();
    let run = beryl_with_env(
        &new,
        &args(&["secrets", "edit", host_file, "--identity", id]),
        &[
            ("EDITOR".into(), editor.display().to_string()),
            ("VISUAL".into(), String::new()),
        ],
        None,
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    outputs.push((
        "secrets edit".into(),
        format!("{}{}", run.stdout, run.stderr),
    ));
    let after = fs::read_to_string(new.join(host_file)).unwrap();
    let changed: Vec<&str> = after.lines().filter(|l| !before.contains(l)).collect();
    assert_eq!(changed.len(), 3, "{changed:?}");
    // A host key not known: `check` fails closed, and says how to gather it.
    let host_key_file = new.join("ssh/hosts/host01.example.org.pub");
    fs::rename(&host_key_file, d.path().join("away.pub")).unwrap();
    let run = runs(&new, &["check"], &mut outputs);
    assert_eq!(run.status, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("beryl::secrets::host_key")
            && run
                .stderr
                .contains("beryl facts --gather host01.example.org"),
        "{}",
        run.stderr
    );
    fs::rename(d.path().join("away.pub"), &host_key_file).unwrap();
    // Error paths.
    let (other, _) = age_key(d.path(), "other.txt");
    let o = other.to_str().unwrap();
    for a in [
        vec!["secrets", "check", host_file, "--identity", o],
        vec!["secrets", "show", host_file, "--reveal", "--identity", id],
    ] {
        let run = runs(&new, &a, &mut outputs);
        assert_eq!(run.status, 2, "{a:?}: {}{}", run.stdout, run.stderr);
    }
    // A value swapped by hand: the MAC refuses it, and shows no plaintext.
    let text = fs::read_to_string(new.join(host_file)).unwrap();
    let enc: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(": ENC[") && !l.contains("mac:"))
        .collect();
    let (a, b) = (
        enc[0].split_once(": ").unwrap().1,
        enc[1].split_once(": ").unwrap().1,
    );
    let swapped = text.replace(a, "@A@").replace(b, a).replace("@A@", b);
    fs::write(new.join(host_file), swapped).unwrap();
    let run = runs(
        &new,
        &["secrets", "check", host_file, "--identity", id],
        &mut outputs,
    );
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains("beryl::secrets::tampered"),
        "{}",
        run.stderr
    );
    // A secret where none may be.
    fs::write(
        new.join(host_file),
        text.replacen("freebsd:\n", "freebsd:\n  timezone: ${site.pin}\n", 1),
    )
    .unwrap();
    let run = runs(&new, &["check"], &mut outputs);
    assert_eq!(run.status, 2);
    assert!(
        run.stdout.contains("beryl::schema::secret")
            || run.stderr.contains("beryl::schema::secret"),
        "{}{}",
        run.stdout,
        run.stderr
    );

    assert!(outputs.len() >= 50, "{}", outputs.len());
    for (what, text) in &outputs {
        for s in &forbidden {
            assert!(!text.contains(s.as_str()), "{what} holds {s}:\n{text}");
        }
    }
}
