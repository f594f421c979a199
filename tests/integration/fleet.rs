//! Fleet output and diffs: `render --all --out` and `beryl diff`.

use std::fs;

use crate::support::git::commit_all;
use crate::support::{args, beryl, beryl_with_env, example, files};

#[test]
fn out_writes_one_file_per_host_and_a_sorted_manifest() {
    let d = example();
    let run = beryl(d.path(), &args(&["render", "--all", "--out", "out"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    let names: Vec<String> = files(&d.path().join("out")).into_keys().collect();
    // 8 hosts, host01's 2 jails, the manifest.
    assert_eq!(names.len(), 11, "{names:?}");
    assert!(names.contains(&"beryl-manifest.json".to_string()));
    assert!(names.contains(&"host01.example.org.yml".to_string()));
    let manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(d.path().join("out/beryl-manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["version"], 2);
    let hosts: Vec<&String> = manifest["hosts"].as_object().unwrap().keys().collect();
    let mut sorted = hosts.clone();
    sorted.sort();
    assert_eq!(hosts, sorted);
    let text = fs::read_to_string(d.path().join("out/host01.example.org.yml")).unwrap();
    let plain = beryl(d.path(), &args(&["render", "host01"])).stdout;
    assert_eq!(text, plain, "a host's file is its plain render");
}

#[test]
fn the_bytes_do_not_depend_on_the_thread_count() {
    let d = example();
    for threads in ["1", "4"] {
        let env = [("RAYON_NUM_THREADS".to_string(), threads.to_string())];
        let run = beryl_with_env(
            d.path(),
            &args(&["render", "--all", "--out", &format!("out{threads}")]),
            &env,
            None,
        );
        assert_eq!(run.status, 0, "{}", run.stderr);
    }
    assert_eq!(files(&d.path().join("out1")), files(&d.path().join("out4")));
}

#[test]
fn a_failing_host_leaves_the_directory_untouched() {
    let d = example();
    assert_eq!(
        beryl(d.path(), &args(&["render", "--all", "--out", "out"])).status,
        0
    );
    fs::write(d.path().join("out/notes.txt"), "mine\n").unwrap();
    let before = files(&d.path().join("out"));
    fs::write(
        d.path().join("inventory/example.org/mail.yml"),
        "freebsd: {disks: [sda0]}\n",
    )
    .unwrap();
    let run = beryl(d.path(), &args(&["render", "--all", "--out", "out"]));
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains("inventory/example.org/mail.yml:1:"),
        "{}",
        run.stderr
    );
    assert_eq!(files(&d.path().join("out")), before);
}

#[test]
fn stale_host_files_are_removed_and_others_kept() {
    let d = example();
    assert_eq!(
        beryl(d.path(), &args(&["render", "--all", "--out", "out"])).status,
        0
    );
    fs::write(d.path().join("out/notes.txt"), "mine\n").unwrap();
    fs::remove_file(d.path().join("inventory/example.org/mail.yml")).unwrap();
    let run = beryl(d.path(), &args(&["render", "--all", "--out", "out"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(!d.path().join("out/mail.example.org.yml").exists());
    assert!(
        d.path().join("out/notes.txt").exists(),
        "files beryl did not write are kept"
    );
    // Switching formats replaces beryl's own files.
    assert_eq!(
        beryl(
            d.path(),
            &args(&["render", "--all", "--out", "out", "--format", "json"])
        )
        .status,
        0
    );
    assert!(!d.path().join("out/host01.example.org.yml").exists());
    assert!(d.path().join("out/host01.example.org.json").exists());
}

/// Every diff form, with each exit code.
#[test]
fn diff_forms_and_exit_codes() {
    let d = example();
    assert_eq!(
        beryl(d.path(), &args(&["render", "--all", "--out", "old"])).status,
        0
    );
    // Same state: exit 0 in every form.
    for form in [
        &["diff", "old", "inventory"][..],
        &["diff", "old", "old", "--stat"],
        &["diff", "inventory", "old", "--format", "json"],
        &["diff", "old", "--format", "markdown"],
    ] {
        let run = beryl(d.path(), &args(form));
        assert_eq!(run.status, 0, "{form:?}: {}{}", run.stdout, run.stderr);
        assert!(
            run.stdout.contains("0 hosts changed") || run.stdout.contains("\"changed\": 0"),
            "{form:?}: {}",
            run.stdout
        );
    }
    // One change, one added host, one removed host.
    let host = d.path().join("inventory/example.org/web/host01.yml");
    let text = fs::read_to_string(&host)
        .unwrap()
        .replace("swap: 8g", "swap: 16g");
    fs::write(&host, text).unwrap();
    fs::copy(
        d.path().join("inventory/example.org/mail.yml"),
        d.path().join("inventory/example.org/mail2.yml"),
    )
    .unwrap();
    fs::remove_file(d.path().join("inventory/example.net/ns1.yml")).unwrap();
    let snap = |a: &[&str]| {
        let run = beryl(d.path(), &args(a));
        assert_eq!(run.status, 1, "{a:?}: {}", run.stderr);
        run.transcript(&args(a))
    };
    insta::assert_snapshot!("diff_text", snap(&["diff", "old"]));
    insta::assert_snapshot!("diff_stat", snap(&["diff", "old", "--stat"]));
    insta::assert_snapshot!(
        "diff_markdown",
        snap(&["diff", "old", "--format", "markdown"])
    );
    insta::assert_snapshot!(
        "diff_json",
        snap(&["diff", "old", "inventory", "--format", "json"])
    );
    // Rendered against rendered.
    assert_eq!(
        beryl(d.path(), &args(&["render", "--all", "--out", "new"])).status,
        0
    );
    let run = beryl(d.path(), &args(&["diff", "old", "new", "--stat"]));
    assert_eq!(run.status, 1);
    assert!(
        run.stdout
            .ends_with("1 host changed, 1 added, 1 removed, 8 unchanged\n"),
        "{}",
        run.stdout
    );
    // Errors exit 2.
    assert_eq!(beryl(d.path(), &args(&["diff", "nowhere"])).status, 2);
    assert_eq!(beryl(d.path(), &args(&["diff", "old", "--plan"])).status, 2);
}

#[test]
fn diff_against_git_revisions_and_plans() {
    let d = example();
    commit_all(d.path());
    let run = beryl(d.path(), &args(&["diff", "git:HEAD"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    let host = d.path().join("inventory/example.org/web/host01.yml");
    let text = fs::read_to_string(&host)
        .unwrap()
        .replace("swap: 8g", "swap: 16g");
    fs::write(&host, text).unwrap();
    let run = beryl(d.path(), &args(&["diff", "git:HEAD", "--plan"]));
    assert_eq!(run.status, 1, "{}", run.stderr);
    insta::assert_snapshot!(
        "diff_plan",
        run.transcript(&args(&["diff", "git:HEAD", "--plan"]))
    );
    assert_eq!(
        beryl(d.path(), &args(&["diff", "git:no-such-rev"])).status,
        2
    );
}

/// The modification time of each file of `dir`, by name.
fn mtimes(dir: &std::path::Path) -> std::collections::BTreeMap<String, std::time::SystemTime> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().into_string().unwrap();
            (name, e.metadata().unwrap().modified().unwrap())
        })
        .collect()
}

/// A re-render compiles and writes only the hosts whose inputs changed, says
/// how many on stderr, and gives the bytes of a full render.
#[test]
fn out_recompiles_only_the_hosts_whose_inputs_changed() {
    let d = example();
    let render = |out: &str, more: &[&str]| {
        let mut a = vec!["render", "--all", "--out", out];
        a.extend(more);
        let run = beryl(d.path(), &args(&a));
        assert_eq!(run.status, 0, "{}", run.stderr);
        run.stderr
    };
    assert!(render("out", &[]).contains("recompiled 10 of 10 hosts, wrote 10"));
    let before = mtimes(&d.path().join("out"));
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert!(render("out", &[]).contains("recompiled 0 of 10 hosts, wrote 0"));
    assert_eq!(mtimes(&d.path().join("out")), before, "nothing rewritten");
    crate::support::edit(
        &d.path().join("inventory/example.org/web/host01.yml"),
        "swap: 8g",
        "swap: 16g",
    );
    // host01 alone: its exports did not change, so the hosts whose queries
    // read every host's exports are reused too.
    assert!(render("out", &[]).contains("recompiled 1 of 10 hosts, wrote 1"));
    let after = mtimes(&d.path().join("out"));
    let changed: Vec<&String> = after.keys().filter(|k| after[*k] != before[*k]).collect();
    assert_eq!(changed, ["beryl-manifest.json", "host01.example.org.yml"]);
    render("fresh", &[]);
    assert_eq!(files(&d.path().join("out")), files(&d.path().join("fresh")));
    assert!(render("out", &["--full"]).contains("recompiled 10 of 10 hosts, wrote 10"));
}

/// A manifest of version 1 records no inputs: every host is compiled, and
/// the directory gets a version-2 manifest.
#[test]
fn an_old_manifest_recompiles_every_host() {
    let d = example();
    let run = beryl(d.path(), &args(&["render", "--all", "--out", "out"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    let path = d.path().join("out/beryl-manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    manifest["version"] = 1.into();
    fs::write(&path, manifest.to_string()).unwrap();
    let run = beryl(d.path(), &args(&["render", "--all", "--out", "out"]));
    assert!(
        run.stderr.contains("recompiled 10 of 10 hosts"),
        "{}",
        run.stderr
    );
    let manifest: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(manifest["version"], 2);
}
