//! `beryl reclass` as a drop-in for kapicorp-reclass 2.0 (issue 35, items 4
//! and 8): a config file's uris stay inside the inventory; the config file
//! is searched where kapicorp searches it, whatever `-b` says; reclass's
//! data gets no FreeBSD meaning; a missing class gets reclass's help; the
//! command's limits reach a single-file inventory; `explain` names
//! reclass's list concatenation. The differential proof against kapicorp's
//! own CLI is tests/integration/differential/reclass_cli/.

use std::path::Path;

use crate::support::{Run, args, beryl, beryl_with_env, write};

const SECRET: &str = "hunter2-outside";

/// An inventory `inv/` with one node of class `secret`, and beside it an
/// `outside/` folder holding `secret.yml`, whose line a diagnostic would
/// quote (a reference to nothing).
fn planted() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("inv/nodes/n1.yml"),
        "classes: [secret]\nparameters: {x: 1}\n",
    );
    write(&dir.path().join("inv/classes/base.yml"), "parameters: {}\n");
    write(
        &dir.path().join("outside/secret.yml"),
        format!("parameters:\n  password: {SECRET} ${{nope}}\n"),
    );
    dir
}

fn reclass(dir: &Path, a: &[&str]) -> Run {
    let mut all = vec!["reclass"];
    all.extend(a);
    all.extend(["--timestamp", "T"]);
    beryl(dir, &args(&all))
}

/// A refusal located at the config file's line, quoting nothing outside.
fn refused_at(run: &Run, at: &str) {
    assert_eq!(run.status, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("beryl::reclass::outside"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains(at), "{at}: {}", run.stderr);
    assert!(!run.stderr.contains(SECRET), "{}", run.stderr);
    assert!(!run.stdout.contains(SECRET), "{}", run.stdout);
}

#[test]
fn a_config_files_uris_stay_inside_the_inventory() {
    let dir = planted();
    let outside = dir.path().join("outside");
    std::os::unix::fs::symlink(&outside, dir.path().join("inv/link")).unwrap();
    let config = dir.path().join("inv/reclass-config.yml");
    for uri in [outside.to_str().unwrap(), "../outside", "link", "./link/."] {
        write(&config, format!("classes_uri: {uri}\n"));
        refused_at(
            &reclass(dir.path(), &["-b", "inv", "-n", "n1"]),
            "inv/reclass-config.yml:1:14",
        );
        // beryl's own commands on the root too.
        let run = beryl(dir.path(), &args(&["render", "n1", "-i", "inv"]));
        refused_at(&run, "inv/reclass-config.yml:1:14");
    }
    write(&config, "nodes_uri: ../outside\n");
    refused_at(
        &reclass(dir.path(), &["-b", "inv", "-n", "n1"]),
        "inv/reclass-config.yml:1:12",
    );
    // A config's base leaves its folder: refused at its line.
    write(
        &dir.path().join("cfg/kapicorp-reclass-config.yml"),
        "inventory_base_uri: ../inv\n",
    );
    refused_at(
        &reclass(
            dir.path(),
            &["--config", "cfg/kapicorp-reclass-config.yml", "-n", "n1"],
        ),
        "cfg/kapicorp-reclass-config.yml:1:21",
    );
    // Inside is fine, and the command line is the operator's: -c may point
    // anywhere (then the planted file is read, its reference reported).
    write(&config, "classes_uri: classes\n");
    let run = reclass(dir.path(), &["-b", "inv", "-n", "n1", "-z"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    write(&config, format!("classes_uri: {}\n", outside.display()));
    let run = reclass(
        dir.path(),
        &["-b", "inv", "-c", outside.to_str().unwrap(), "-n", "n1"],
    );
    assert!(
        run.stderr.contains("beryl::refs::missing"),
        "{}",
        run.stderr
    );
}

/// A config in the current directory is the checkout's (fenced); one in
/// `~` is the operator's own (it may name any folder).
#[test]
fn a_config_found_in_home_is_the_operators_own() {
    let dir = planted();
    let outside = dir.path().join("outside");
    let home = tempfile::tempdir().unwrap();
    let config = format!("classes_uri: {}\n", outside.display());
    let env = [("HOME".to_string(), home.path().display().to_string())];
    let run = |cwd: &Path| {
        let a = args(&["reclass", "-b", "../inv", "-n", "n1", "--timestamp", "T"]);
        beryl_with_env(cwd, &a, &env, None)
    };
    let cwd = dir.path().join("cwd");
    write(&cwd.join("kapicorp-reclass-config.yml"), &config);
    refused_at(&run(&cwd), "kapicorp-reclass-config.yml:1:14");
    std::fs::remove_file(cwd.join("kapicorp-reclass-config.yml")).unwrap();
    write(&home.path().join("kapicorp-reclass-config.yml"), &config);
    let r = run(&cwd);
    assert!(r.stderr.contains("beryl::refs::missing"), "{}", r.stderr);
}

/// kapicorp-reclass's search (reclass/defaults.py CONFIG_FILE_SEARCH_PATH):
/// `kapicorp-reclass-config.yml` in the current directory, then `~`,
/// whatever `-b` says; the first found wins over the base's own
/// `reclass-config.yml` (Kapitan's, read when the search finds none).
#[test]
fn the_config_file_is_searched_as_kapicorp_searches_it() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("inv/nodes/n1.yml"),
        "classes: [nope]\nparameters: {x: 1}\n",
    );
    std::fs::create_dir_all(dir.path().join("inv/classes")).unwrap();
    let home = tempfile::tempdir().unwrap();
    let env = [("HOME".to_string(), home.path().display().to_string())];
    let cwd = dir.path().join("cwd");
    std::fs::create_dir_all(&cwd).unwrap();
    let run = || {
        let a = args(&["reclass", "-b", "../inv", "-n", "n1", "-o", "json"]);
        beryl_with_env(&cwd, &a, &env, None)
    };
    let r = run();
    assert_eq!(r.status, 2, "{}", r.stdout);
    // The base's own file (Kapitan's) applies when the search finds none.
    write(
        &dir.path().join("inv/reclass-config.yml"),
        "ignore_class_notfound: true\n",
    );
    assert_eq!(run().status, 0, "{}", run().stderr);
    // ~'s wins over the base's.
    write(
        &home.path().join("kapicorp-reclass-config.yml"),
        "ignore_class_notfound: false\n",
    );
    assert_eq!(run().status, 2);
    // The current directory's wins over ~'s.
    write(
        &cwd.join("kapicorp-reclass-config.yml"),
        "ignore_class_notfound: true\n",
    );
    let r = run();
    assert_eq!(r.status, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["classes"], serde_json::json!(["nope"]));
    // A file of another name in the current directory is not reclass's.
    std::fs::rename(
        cwd.join("kapicorp-reclass-config.yml"),
        cwd.join("reclass-config.yml"),
    )
    .unwrap();
    assert_eq!(run().status, 2);
}

/// reclass's data as reclass outputs it: `ssh_keys` and `freebsd` are
/// parameters like any; `render` on the root still gives them meaning.
#[test]
fn beryl_reclass_gives_reclass_data_no_freebsd_meaning() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("classes/ops.yml"),
        "parameters:\n  ssh_keys: [ops]\n",
    );
    write(
        &dir.path().join("nodes/n1.yml"),
        "classes: [ops]\nparameters:\n  freebsd: {hostname: 3, users: [{name: x, ssh_keys: [bob]}]}\n",
    );
    let run = reclass(dir.path(), &["-b", ".", "-n", "n1", "-o", "json"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["parameters"]["ssh_keys"], serde_json::json!(["ops"]));
    assert_eq!(
        v["parameters"]["freebsd"],
        serde_json::json!({"hostname": 3, "users": [{"name": "x", "ssh_keys": ["bob"]}]})
    );
    let run = beryl(dir.path(), &args(&["render", "n1", "-i", "."]));
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains("beryl::keys::not_found"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("beryl::schema::type"), "{}", run.stderr);
}

/// A missing class on a reclass root: reclass's help (its classes folder,
/// `-z` or the config file), never beryl's `_classes/` and beryl.yml.
#[test]
fn a_missing_class_gets_reclass_help() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("classes/a.yml"), "parameters: {x: 1}\n");
    write(
        &dir.path().join("nodes/n1.yml"),
        "classes:\n  - a\n  - roles.missing\n",
    );
    for a in [
        args(&["reclass", "-b", ".", "-n", "n1"]),
        args(&["render", "n1", "-i", "."]),
    ] {
        let run = beryl(dir.path(), &a);
        assert_eq!(run.status, 2);
        let text = run.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            text.contains("create classes/roles/missing.yml (or roles/missing/init.yml)")
                && text.contains("-z (--ignore-class-notfound)")
                && text.contains("`ignore_class_notfound: true` in the reclass config file"),
            "{text}"
        );
        assert!(
            !text.contains("beryl.yml") && !text.contains("_classes"),
            "{text}"
        );
    }
    // A single-file inventory names its file.
    write(
        &dir.path().join("one.yml"),
        "name: n1\ntype: node\nclasses: [roles.missing]\n",
    );
    let run = reclass(dir.path(), &["-b", "one.yml", "-n", "n1"]);
    let text = run.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains("add a document `name: roles.missing` of `type: class` to one.yml"),
        "{text}"
    );
}

/// The command's `--max-*` apply to a single-file inventory, read at
/// discovery.
#[test]
fn the_commands_limits_reach_a_single_file_inventory() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("one.yml"),
        "name: n1\ntype: node\nparameters:\n  l: [1, 2, 3, 4, 5]\n",
    );
    let run = reclass(dir.path(), &["-b", "one.yml", "-n", "n1"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    for a in [
        args(&[
            "reclass",
            "-b",
            "one.yml",
            "-n",
            "n1",
            "--max-list-items",
            "3",
        ]),
        args(&["render", "n1", "-i", "one.yml", "--max-list-items", "3"]),
    ] {
        let run = beryl(dir.path(), &a);
        assert_eq!(run.status, 2, "{a:?}: {}", run.stdout);
        assert!(run.stderr.contains("beryl::limit::"), "{}", run.stderr);
        assert!(run.stderr.contains("one.yml:4:"), "{}", run.stderr);
    }
}

/// `explain` on a reclass root names reclass's list concatenation, and no
/// level "replaced" a list that was concatenated.
#[test]
fn explain_names_reclass_list_concatenation() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("classes/base.yml"),
        "parameters:\n  pkgs: [a]\n",
    );
    write(
        &dir.path().join("nodes/n1.yml"),
        "classes: [base]\nparameters: {pkgs: [b]}\n",
    );
    let run = beryl(dir.path(), &args(&["explain", "n1", "pkgs", "-i", "."]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("strategy: concat (reclass concatenates lists)"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("replaced"), "{}", run.stdout);
    assert!(run.stdout.contains("appended 1 item"), "{}", run.stdout);
}
