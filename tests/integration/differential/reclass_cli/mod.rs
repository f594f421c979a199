//! `beryl reclass` against kapicorp-reclass 2.0.0's own command line, as an
//! operator runs both: from the same current directory, holding the config
//! file (`kapicorp-reclass-config.yml`), with `-b BASE` given and HOME an
//! empty scratch folder (issue 35, item 8: kapicorp reads that file whatever
//! `-b` says, `reclass/defaults.py` `CONFIG_FILE_SEARCH_PATH`).
//!
//! The roots are those of ../shared/realworld (reclass_real/roots.rs): each
//! one's settings (the config file it carries, or the one its table row
//! writes, and the options its users give) go into the config file of the
//! current directory (tests/peers/reclass_cli_setup.py), so that the command
//! line is `-b BASE --nodeinfo NODE -o json` alone for both. A generated
//! inventory whose classes hold `ssh_keys` and `freebsd` parameters joins
//! them: reclass data that beryl's FreeBSD stage would refuse.
//!
//! Each root runs twice: with its own settings, and with
//! `ignore_class_notfound: true` added to the config file.
//!
//! Every node must agree (equal documents less the timestamp) or both must
//! refuse it. Skipped with a notice without the venv (BERYL_RECLASS_PYTHON)
//! or ../shared/realworld, unless BERYL_REQUIRE_PEERS is set.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value as J, json};

use super::reclass_real::roots::{ROOTS, Root};
use super::reclass_real::{Outcome, compare, first_line};
use crate::support::{args, beryl_with_env, repo, skip_peer};

/// The generated inventory's size.
const GENERATED_NODES: usize = 12;

#[test]
fn beryl_reclass_agrees_with_kapicorps_cli_run_from_the_config_files_folder() {
    let test = "beryl_reclass_agrees_with_kapicorps_cli_run_from_the_config_files_folder";
    let Some(python) = super::reclass::python() else {
        return skip_peer(
            test,
            "kapicorp-reclass is not installed (BERYL_RECLASS_PYTHON)",
        );
    };
    let Some(cli) = python
        .parent()
        .map(|b| b.join("reclass"))
        .filter(|c| c.is_file())
    else {
        return skip_peer(test, "kapicorp-reclass's bin/reclass is not beside python");
    };
    let realworld = repo().join("../shared/realworld").canonicalize().ok();
    if realworld.is_none() {
        skip_peer(test, "../shared/realworld (the real inventories) is absent");
    }
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut targets: Vec<(String, PathBuf, J, Option<&str>)> = Vec::new();
    for root in realworld
        .iter()
        .flat_map(|r| ROOTS.iter().map(move |x| (r, x)))
    {
        let (realworld, root): (&PathBuf, &Root) = root;
        targets.push((
            root.name.to_string(),
            realworld.join(root.base),
            (root.oracle)(),
            root.config,
        ));
    }
    let generated = scratch.path().join("generated");
    generate(&generated);
    targets.push(("generated-freebsd".into(), generated, json!({}), None));
    // Each root again with `ignore_class_notfound: true` in the config file
    // (unless it sets it): the setting that only the config file's search
    // hands to reclass here, as the issue found it (salt models).
    let again: Vec<_> = targets
        .iter()
        .map(|(name, base, oracle, text)| {
            let mut oracle = oracle.clone();
            if oracle["settings"].is_null() {
                oracle["settings"] = json!({});
            }
            if oracle["settings"].get("ignore_class_notfound").is_none() {
                oracle["settings"]["ignore_class_notfound"] = json!(true);
            }
            (format!("{name} -z"), base.clone(), oracle, *text)
        })
        .collect();
    targets.extend(again);

    let mut table =
        String::from("root                            nodes  same  both refuse  differ\n");
    let mut problems = Vec::new();
    let mut totals = [0usize; 4];
    for (name, base, oracle, text) in &targets {
        let cwd = scratch.path().join("cwd").join(name.replace(' ', "_"));
        std::fs::create_dir_all(&cwd).unwrap();
        let config = cwd.join("kapicorp-reclass-config.yml");
        if let Some(text) = text {
            std::fs::write(&config, text).unwrap();
        }
        let mut settings = oracle["settings"].clone();
        if settings.is_null() {
            settings = json!({});
        }
        for uri in ["nodes_uri", "classes_uri"] {
            if let Some(v) = oracle.get(uri) {
                settings[uri] = v.clone();
            }
        }
        let rel = oracle["config"].as_str().unwrap_or("");
        let setup = Command::new(&python)
            .arg(repo().join("tests/peers/reclass_cli_setup.py"))
            .args(["config", path(&config), path(base), rel])
            .arg(settings.to_string())
            .status()
            .unwrap();
        assert!(setup.success(), "{name}: the config file is not written");
        let nodes = Command::new(&python)
            .arg(repo().join("tests/peers/reclass_cli_setup.py"))
            .args(["nodes", path(base)])
            .current_dir(&cwd)
            .env("HOME", &home)
            .output()
            .unwrap();
        let nodes: Vec<String> = match serde_json::from_slice(&nodes.stdout) {
            Ok(n) => n,
            Err(_) => {
                eprintln!(
                    "reclass-cli: kapicorp lists no node of {name}: {}",
                    String::from_utf8_lossy(&nodes.stderr)
                );
                Vec::new()
            }
        };
        let mut row = [0usize; 4];
        for node in &nodes {
            let theirs = kapicorp(&python, &cli, &cwd, &home, base, node);
            let ours = ours(&cwd, &home, base, node);
            let outcome = compare(&ours, &theirs);
            row[0] += 1;
            match &outcome {
                Outcome::Same => row[1] += 1,
                Outcome::BothRefuse => row[2] += 1,
                other => {
                    row[3] += 1;
                    problems.push(format!("{name}/{node}: {other:?}"));
                }
            }
        }
        for (t, r) in totals.iter_mut().zip(row) {
            *t += r;
        }
        table.push_str(&format!(
            "{:<30} {:>6} {:>5} {:>12} {:>7}\n",
            name, row[0], row[1], row[2], row[3]
        ));
    }
    table.push_str(&format!(
        "{:<30} {:>6} {:>5} {:>12} {:>7}\n",
        "all", totals[0], totals[1], totals[2], totals[3]
    ));
    let body = format!(
        "`beryl reclass -b BASE --nodeinfo NODE -o json` against kapicorp-reclass 2.0.0's CLI, \
         both run from a folder holding kapicorp-reclass-config.yml \
         (tests/integration/differential/reclass_cli/).\n\n```text\n{table}```\n"
    );
    let report = super::report_section("reclass CLI from the config's folder", &body);
    eprintln!("reclass-cli: {}\n{table}", report.display());
    assert!(
        problems.is_empty(),
        "{} node(s) differ:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A generated inventory (examples/support/reclass_gen.rs) whose common
/// class holds reclass data that beryl's FreeBSD stage reads: `ssh_keys`
/// naming keys no folder holds, and a `freebsd` mapping that is no valid
/// FreeBSD section (a number for a host name, a reference in a user's keys).
fn generate(dir: &Path) {
    crate::support::reclass_gen::generate(dir, GENERATED_NODES, 7, true);
    let common = dir.join("classes/common.yml");
    let mut text = std::fs::read_to_string(&common).unwrap();
    text.push_str(
        "  ssh_keys: [ops, deploy]\n  freebsd:\n    hostname: 42\n    \
         users:\n      - name: ops\n        ssh_keys: ['${ssh_keys}']\n    \
         packages: [vim, '${org:name}']\n",
    );
    std::fs::write(&common, text).unwrap();
}

/// kapicorp's CLI document for a node, less its timestamp, or `{error}`.
fn kapicorp(python: &Path, cli: &Path, cwd: &Path, home: &Path, base: &Path, node: &str) -> J {
    let out = Command::new(python)
        .arg(cli)
        .args(["-b", path(base), "--nodeinfo", node, "-o", "json"])
        .current_dir(cwd)
        .env("HOME", home)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    match serde_json::from_str::<J>(&text) {
        Ok(mut doc) if out.status.success() => {
            if let Some(meta) = doc.get_mut("__reclass__").and_then(J::as_object_mut) {
                meta.remove("timestamp");
            }
            doc
        }
        _ => json!({"error": first_line(&String::from_utf8_lossy(&out.stderr))}),
    }
}

/// beryl's document for a node, or its error.
fn ours(cwd: &Path, home: &Path, base: &Path, node: &str) -> Result<J, String> {
    let a = args(&[
        "reclass",
        "-b",
        path(base),
        "--nodeinfo",
        node,
        "-o",
        "json",
    ]);
    let env = [("HOME".to_string(), path(home).to_string())];
    let r = beryl_with_env(cwd, &a, &env, None);
    if r.status != 0 {
        assert!(
            r.stderr.contains("beryl::"),
            "beryl reclass {a:?} failed without a diagnostic:\n{}",
            r.stderr
        );
        return Err(first_line(&r.stderr));
    }
    let mut doc: J = serde_json::from_str(&r.stdout)
        .map_err(|e| format!("not JSON ({e}): {}", first_line(&r.stdout)))?;
    if let Some(meta) = doc.get_mut("__reclass__").and_then(J::as_object_mut) {
        meta.remove("timestamp");
    }
    Ok(doc)
}
