//! Faults during `render --all --out DIR` (src/outdir/mod.rs): a write
//! interrupted at every one of its steps, a simulated full disk at every
//! step, and, where the sandbox lets us mount file systems, a real full disk
//! and a real read-only DIR.
//!
//! The interruptions use the debug-build hooks `BERYL_FAULT_ABORT_AFTER=K`
//! (abort before the step after K file operations) and
//! `BERYL_FAULT_ENOSPC_AFTER=K` (that step fails with ENOSPC). Each test
//! checks that a reader (`beryl diff`) changes nothing in DIR, that DIR,
//! once `render --out` has recovered it, holds exactly the complete previous
//! output or the complete new one, that its manifest matches its files, and
//! that a foreign file is untouched.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use crate::support::{Run, args, beryl_with_env, copy_tree, entries, example};

/// The manifest lists exactly the host files, each with its hash.
fn manifest_matches(dir: &Path) -> Result<(), String> {
    let m: serde_json::Value = serde_json::from_slice(
        &fs::read(dir.join("beryl-manifest.json")).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let hosts = m["hosts"].as_object().ok_or("no hosts")?;
    let mut files: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yml") || n.ends_with(".json"))
        .filter(|n| n != "beryl-manifest.json")
        .collect();
    files.sort();
    let mut listed: Vec<String> = hosts.keys().map(|h| format!("{h}.yml")).collect();
    listed.sort();
    if files != listed {
        return Err(format!("files {files:?} but manifest {listed:?}"));
    }
    for (host, hash) in hosts {
        let text = fs::read_to_string(dir.join(format!("{host}.yml"))).unwrap();
        use sha2::Digest;
        let hex: String = sha2::Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if hash.as_str() != Some(&format!("sha256:{hex}")) {
            return Err(format!("{host}: the hash does not match"));
        }
    }
    Ok(())
}

/// The example inventory rendered into `old/` (with a foreign file), the
/// inventory then changed (a host changed, one added, one removed), and the
/// new output rendered into `new/` for reference.
struct Fleet {
    dir: tempfile::TempDir,
    old: BTreeMap<String, Vec<u8>>,
    new: BTreeMap<String, Vec<u8>>,
}

fn fleet() -> Fleet {
    let dir = example();
    let d = dir.path();
    let ok = |run: Run| assert_eq!(run.status, 0, "{}", run.stderr);
    ok(beryl_with_env(
        d,
        &args(&["render", "--all", "--out", "old"]),
        &[],
        None,
    ));
    fs::write(d.join("old/notes.txt"), "not beryl's\n").unwrap();
    let host = d.join("inventory/example.org/web/host01.yml");
    let text = fs::read_to_string(&host)
        .unwrap()
        .replace("swap: 8g", "swap: 16g");
    fs::write(&host, text).unwrap();
    fs::copy(
        d.join("inventory/example.org/mail.yml"),
        d.join("inventory/example.org/mail2.yml"),
    )
    .unwrap();
    fs::remove_file(d.join("inventory/example.net/ns1.yml")).unwrap();
    fs::create_dir(d.join("new")).unwrap();
    fs::write(d.join("new/notes.txt"), "not beryl's\n").unwrap();
    ok(beryl_with_env(
        d,
        &args(&["render", "--all", "--out", "new"]),
        &[],
        None,
    ));
    let (old, new) = (entries(&d.join("old")), entries(&d.join("new")));
    assert_ne!(old, new);
    Fleet { dir, old, new }
}

impl Fleet {
    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `out/` reset to the old output.
    fn reset(&self) {
        let out = self.path().join("out");
        let _ = fs::remove_dir_all(&out);
        copy_tree(&self.path().join("old"), &out);
    }

    /// A full write: every host staged, so that the journal has many steps.
    fn render(&self, env: &[(&str, String)]) -> Run {
        self.render_with(env, &["--full"])
    }

    /// `render --all --out out` with `more` arguments (none: an incremental
    /// write, which stages only the changed hosts).
    fn render_with(&self, env: &[(&str, String)], more: &[&str]) -> Run {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let mut a = vec!["render", "--all", "--out", "out"];
        a.extend(more);
        beryl_with_env(self.path(), &args(&a), &env, None)
    }

    /// Reads `out/` (`beryl diff out new`), which moves and deletes nothing
    /// in it, and returns the run.
    fn read_out(&self) -> Run {
        beryl_with_env(
            self.path(),
            &args(&["diff", "out", "new", "--stat"]),
            &[],
            None,
        )
    }

    /// Recovers `out/` the only way there is, `render --out` (incremental,
    /// so that hosts the recovery left wrong are not all rendered again),
    /// with an optional fault, and returns the run.
    fn recover(&self, env: &[(&str, String)]) -> Run {
        self.render_with(env, &[])
    }

    /// `out/` is the old output or the new one, whole, with a true manifest.
    fn whole(&self, what: &str) -> &'static str {
        let now = entries(&self.path().join("out"));
        if let Err(e) = manifest_matches(&self.path().join("out")) {
            panic!("{what}: the manifest does not match: {e}");
        }
        if now == self.old {
            "old"
        } else if now == self.new {
            "new"
        } else {
            let keys = |t: &BTreeMap<String, Vec<u8>>| t.keys().cloned().collect::<Vec<_>>();
            panic!(
                "{what}: out/ is neither output:\n now {:?}\n old {:?}\n new {:?}",
                keys(&now),
                keys(&self.old),
                keys(&self.new)
            );
        }
    }

    fn journal(&self) -> bool {
        self.path().join("out/.beryl-journal.json").exists()
    }
}

/// An abort after the process was killed: a signal, not an exit code.
fn aborted(run: &Run) -> bool {
    run.status == -1 && run.stderr.contains("BERYL_FAULT_ABORT_AFTER")
}

/// The write aborted before each of its steps in turn (K = 0, 1, …, until it
/// runs to the end): before the commit DIR is still the old output; after it,
/// a reader refuses DIR and changes nothing, and the next `render --out`
/// rolls the new one forward.
#[test]
fn an_interrupted_write_leaves_the_old_or_the_new_output() {
    let seen = interrupted_writes(&["--full"]);
    assert!(seen.0 > 20, "only {} steps", seen.0);
    assert!(
        seen.1 > 5 && seen.2 > 5,
        "aborts before/after the commit: {seen:?}"
    );
}

/// The same for an incremental write, which stages only the hosts that
/// changed (host01, mail2) and removes ns1's file.
#[test]
fn an_interrupted_incremental_write_leaves_the_old_or_the_new_output() {
    let seen = interrupted_writes(&[]);
    assert!(
        seen.1 > 2 && seen.2 > 2,
        "aborts before/after the commit: {seen:?}"
    );
}

/// Aborts `render --all --out out MORE` before each of its steps in turn,
/// and checks what each abort leaves. Returns the number of steps and of
/// aborts before and after the commit.
fn interrupted_writes(more: &[&str]) -> (usize, usize, usize) {
    let f = fleet();
    let mut seen = (0, 0, 0);
    for k in 0.. {
        f.reset();
        let run = f.render_with(&[("BERYL_FAULT_ABORT_AFTER", k.to_string())], more);
        if run.status == 0 {
            assert_eq!(f.whole(&format!("K={k}, not aborted")), "new");
            seen.0 = k;
            break;
        }
        assert!(aborted(&run), "K={k}: {} {}", run.status, run.stderr);
        assert_ne!(run.status, 101, "K={k}: panicked");
        let committed = f.journal();
        if !committed {
            // Before the commit, DIR's own files are untouched.
            let now = entries(&f.path().join("out"));
            let own: BTreeMap<_, _> = now
                .into_iter()
                .filter(|(p, _)| !p.starts_with(".beryl-stage"))
                .collect();
            assert_eq!(own, f.old, "K={k}: changed before the commit");
        }
        // A reader changes nothing: before the commit it reads the old
        // output (which differs from the new); after it, it refuses.
        let before = entries(&f.path().join("out"));
        let read = f.read_out();
        assert_eq!(entries(&f.path().join("out")), before, "K={k}: read");
        if committed {
            assert_eq!(read.status, 2, "K={k}: {}", read.stderr);
            assert!(
                read.stderr.contains("interrupted"),
                "K={k}: {}",
                read.stderr
            );
        } else {
            assert_eq!(read.status, 1, "K={k}: {}", read.stderr);
        }
        let run = f.recover(&[]);
        assert_eq!(run.status, 0, "K={k}: {}", run.stderr);
        assert_eq!(f.whole(&format!("K={k}")), "new", "K={k}");
        if committed { seen.2 += 1 } else { seen.1 += 1 }
    }
    seen
}

/// The recovery itself interrupted at each of its steps, after a write that
/// stopped right after its commit, and after one that stopped midway through
/// putting files in place: each later `render --out` carries on, and the end
/// is the new output.
#[test]
fn an_interrupted_recovery_is_finished_by_the_next_one() {
    let f = fleet();
    // The first K whose abort leaves a journal: right after the commit.
    let commit = (0..)
        .find(|&k| {
            f.reset();
            let run = f.render(&[("BERYL_FAULT_ABORT_AFTER", k.to_string())]);
            assert!(aborted(&run), "K={k}: {}", run.stderr);
            f.journal()
        })
        .unwrap();
    for k in [commit, commit + 4] {
        for j in 0.. {
            f.reset();
            let run = f.render(&[("BERYL_FAULT_ABORT_AFTER", k.to_string())]);
            assert!(aborted(&run) && f.journal(), "K={k}");
            let read = f.recover(&[("BERYL_FAULT_ABORT_AFTER", j.to_string())]);
            if !aborted(&read) {
                assert_eq!(read.status, 0, "K={k} J={j}: {}", read.stderr);
                assert_eq!(f.whole(&format!("K={k} J={j}")), "new");
                break;
            }
            // Still committed until the journal goes, which is the last step.
            assert!(f.journal(), "K={k} J={j}: the journal went before the end");
            assert_eq!(f.recover(&[]).status, 0, "K={k} J={j}");
            assert_eq!(f.whole(&format!("K={k} J={j}, then read")), "new");
        }
    }
}

/// A full disk simulated at each step: exit 2, a message naming the path;
/// before the commit DIR is the old output with no temporary file left;
/// after it, the message says so and the next `render --out` finishes the
/// write.
#[test]
fn a_simulated_full_disk_at_each_step() {
    let f = fleet();
    for k in 0.. {
        f.reset();
        let run = f.render(&[("BERYL_FAULT_ENOSPC_AFTER", k.to_string())]);
        if run.status == 0 {
            assert_eq!(f.whole(&format!("K={k}")), "new");
            break;
        }
        assert_eq!(run.status, 2, "K={k}: {}", run.stderr);
        assert!(
            run.stderr.contains("No space left on device"),
            "K={k}: {}",
            run.stderr
        );
        assert!(run.stderr.contains("out/"), "K={k}: {}", run.stderr);
        if f.journal() {
            assert!(run.stderr.contains("committed;"), "K={k}: {}", run.stderr);
            assert_eq!(f.recover(&[]).status, 0, "K={k}");
            assert_eq!(f.whole(&format!("K={k}, then read")), "new");
        } else {
            assert_eq!(entries(&f.path().join("out")), f.old, "K={k}: leftovers");
        }
    }
}

/// Whether this process may mount file systems in a private mount namespace.
fn can_mount() -> bool {
    let ok = Command::new("unshare")
        .args(["-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt 2>/dev/null || mount -t tmpfs -o size=64k tmpfs /tmp"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!(
            "notice: cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN and `unshare`); \
             the real full-disk and read-only tests are skipped, the simulated ones ran"
        );
    }
    ok
}

/// Runs `script` in a private mount namespace with a tmpfs of `size` on
/// `out/`, in `dir`; returns its stdout.
fn in_tmpfs(dir: &Path, size: &str, script: &str) -> String {
    // `timeout`: a run that blocks fails the test instead of hanging it.
    let out = Command::new("timeout")
        .args(["120", "unshare", "-m", "sh", "-c"])
        .arg(format!(
            "set -u; cd '{}'; mkdir -p out; mount -t tmpfs -o size={size} tmpfs out || exit 99\n{script}",
            dir.display()
        ))
        .env("BERYL", env!("CARGO_BIN_EXE_beryl"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(99), "mount failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A real full disk: a tmpfs with room for one output but not for the
/// staged second copy (after the first write it shrinks to what it holds
/// and 8 KiB, so the example's growth does not move the bound). The write
/// fails with exit 2 naming the path, and DIR is byte for byte what it was,
/// with no temporary file left; with room, the next write succeeds.
#[test]
fn a_real_full_disk() {
    if !can_mount() {
        return;
    }
    let d = example();
    let report = in_tmpfs(
        d.path(),
        "1m",
        r#"
        "$BERYL" --color never render --all --out out >/dev/null 2>&1; echo "first=$?"
        echo "not beryl's" > out/notes.txt
        mount -o remount,size=$(( $(du -sk out | cut -f1) + 8 ))k out
        before=$(cd out && find . | sort | xargs -I{} sh -c 'test -d "{}" && echo "{}" || sha256sum "{}"')
        sed -i 's/swap: 8g/swap: 16g/' inventory/example.org/web/host01.yml
        "$BERYL" --color never render --all --out out >/dev/null 2>err; echo "second=$?"
        after=$(cd out && find . | sort | xargs -I{} sh -c 'test -d "{}" && echo "{}" || sha256sum "{}"')
        [ "$before" = "$after" ] && echo "unchanged=yes" || echo "unchanged=no"
        grep -q "No space left on device" err && echo "enospc=yes"
        grep -q "out/" err && echo "named=yes"
        mount -o remount,size=1m out
        "$BERYL" --color never render --all --out out >/dev/null 2>&1; echo "third=$?"
        grep -q "swap: 16g" out/host01.example.org.yml && echo "new=yes"
        "#,
    );
    for line in [
        "first=0",
        "second=2",
        "unchanged=yes",
        "enospc=yes",
        "named=yes",
        "third=0",
        "new=yes",
    ] {
        assert!(report.contains(line), "{line} not in:\n{report}");
    }
}

/// A real read-only DIR (a tmpfs remounted read-only; as root, file modes
/// would not stop the write), holding the stage of an earlier interrupted
/// write: the write exits 2 naming the path and leaves DIR unchanged; a
/// reader (`diff`) still reads the previous output, ignoring the stage it
/// cannot delete.
#[test]
fn a_real_read_only_dir() {
    if !can_mount() {
        return;
    }
    let d = example();
    let report = in_tmpfs(
        d.path(),
        "1m",
        r#"
        "$BERYL" --color never render --all --out out >/dev/null 2>&1; echo "first=$?"
        mkdir out/.beryl-stage && echo half > out/.beryl-stage/host01.example.org.yml
        before=$(cd out && find . | sort | xargs -I{} sh -c 'test -d "{}" && echo "{}" || sha256sum "{}"')
        mount -o remount,ro out
        sed -i 's/swap: 8g/swap: 16g/' inventory/example.org/web/host01.yml
        "$BERYL" --color never render --all --out out >/dev/null 2>err; echo "second=$?"
        after=$(cd out && find . | sort | xargs -I{} sh -c 'test -d "{}" && echo "{}" || sha256sum "{}"')
        [ "$before" = "$after" ] && echo "unchanged=yes" || echo "unchanged=no"
        grep -q "Read-only file system" err && echo "erofs=yes"
        grep -q "out/.beryl-stage" err && echo "named=yes"
        "$BERYL" --color never diff out out --stat >/dev/null 2>&1; echo "read=$?"
        [ -e out/.beryl-stage/host01.example.org.yml ] && echo "stage-kept=yes"
        "#,
    );
    for line in [
        "first=0",
        "second=2",
        "unchanged=yes",
        "erofs=yes",
        "named=yes",
        "read=0",
    ] {
        assert!(report.contains(line), "{line} not in:\n{report}");
    }
}

/// Every file, directory and link under `dir`, links as their targets (not
/// followed), files as their bytes: a tree compared before and after a run.
fn tree(dir: &Path) -> BTreeMap<String, String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(base).unwrap().display().to_string();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                let to = fs::read_link(&path).unwrap();
                out.insert(rel, format!("link -> {}", to.display()));
            } else if meta.is_dir() {
                out.insert(rel, "<dir>".into());
                walk(base, &path, out);
            } else {
                out.insert(
                    rel,
                    String::from_utf8_lossy(&fs::read(&path).unwrap()).into(),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The paths that differ between two trees.
fn changed(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> Vec<String> {
    let mut paths: Vec<String> = before.keys().chain(after.keys()).cloned().collect();
    paths.sort();
    paths.dedup();
    paths.retain(|p| before.get(p) != after.get(p));
    paths
}

/// A render directory someone else prepared (a CI artifact, a shared path)
/// with a planted journal (issue 35, Why 3): the stage a link to another
/// directory, a link inside a real stage, a journal that is a link, and a
/// journal that removes a file beryl did not write. `beryl diff` on it moves
/// and deletes nothing, inside DIR or out (both whole trees compared), and
/// says which command recovers DIR; `render --out`, which recovers, refuses
/// each plant with an error naming it, and also changes nothing.
#[test]
fn a_planted_journal_moves_nothing() {
    let d = example();
    let root = d.path();
    let ok = beryl_with_env(root, &args(&["render", "--all", "--out", "out"]), &[], None);
    assert_eq!(ok.status, 0, "{}", ok.stderr);
    let manifest = fs::read_to_string(root.join("out/beryl-manifest.json")).unwrap();
    let host = "host01.example.org.yml";
    let journal = format!(
        r#"{{"version": 1, "moves": ["{host}", "beryl-manifest.json"], "remove": ["notes.txt"]}}"#
    );
    // Each plant: a name, and what it writes into `root` (out/ rendered,
    // out/notes.txt and elsewhere/ beside it).
    type Plant = fn(&Path, &str, &str);
    let plants: [(&str, Plant); 4] = [
        ("a stage that links to another directory", |r, j, m| {
            fs::write(r.join("elsewhere/beryl-manifest.json"), m).unwrap();
            fs::write(r.join("out/.beryl-journal.json"), j).unwrap();
            std::os::unix::fs::symlink("../elsewhere", r.join("out/.beryl-stage")).unwrap();
        }),
        ("a host file of the stage that is a link", |r, j, m| {
            fs::create_dir(r.join("out/.beryl-stage")).unwrap();
            fs::write(r.join("out/.beryl-stage/beryl-manifest.json"), m).unwrap();
            std::os::unix::fs::symlink(
                "../../elsewhere/host01.example.org.yml",
                r.join("out/.beryl-stage/host01.example.org.yml"),
            )
            .unwrap();
            fs::write(r.join("out/.beryl-journal.json"), j).unwrap();
        }),
        ("a journal that is a link", |r, j, m| {
            fs::create_dir(r.join("out/.beryl-stage")).unwrap();
            fs::write(r.join("out/.beryl-stage/beryl-manifest.json"), m).unwrap();
            fs::write(r.join("elsewhere/journal.json"), j).unwrap();
            std::os::unix::fs::symlink(
                "../elsewhere/journal.json",
                r.join("out/.beryl-journal.json"),
            )
            .unwrap();
        }),
        (
            "a journal that removes a file beryl did not write",
            |r, j, m| {
                fs::create_dir(r.join("out/.beryl-stage")).unwrap();
                fs::write(r.join("out/.beryl-stage/beryl-manifest.json"), m).unwrap();
                fs::write(r.join("out/.beryl-stage/host01.example.org.yml"), "x: 1\n").unwrap();
                fs::write(r.join("out/.beryl-journal.json"), j).unwrap();
            },
        ),
    ];
    let rendered = tree(&root.join("out"));
    for (what, plant) in plants {
        // A fresh copy of the rendered output each time.
        let _ = fs::remove_dir_all(root.join("out"));
        let _ = fs::remove_dir_all(root.join("elsewhere"));
        fs::create_dir(root.join("out")).unwrap();
        for (rel, content) in &rendered {
            if content != "<dir>" {
                fs::write(root.join("out").join(rel), content).unwrap();
            }
        }
        fs::write(root.join("out/notes.txt"), "not beryl's\n").unwrap();
        fs::create_dir(root.join("elsewhere")).unwrap();
        fs::write(root.join("elsewhere/host01.example.org.yml"), "secret: 1\n").unwrap();
        fs::write(root.join("elsewhere/keep.txt"), "keep\n").unwrap();
        plant(root, &journal, &manifest);
        let before = tree(root);

        let read = beryl_with_env(root, &args(&["diff", "out", "out", "--stat"]), &[], None);
        assert_eq!(
            changed(&before, &tree(root)),
            [""; 0],
            "{what}: `diff` changed files"
        );
        assert_eq!(read.status, 2, "{what}: {}", read.stderr);
        assert!(
            read.stderr.contains("out/.beryl-journal.json")
                && read.stderr.contains("render")
                && read.stderr.contains("--out out"),
            "{what}: {}",
            read.stderr
        );

        let write = beryl_with_env(root, &args(&["render", "--all", "--out", "out"]), &[], None);
        assert_eq!(
            changed(&before, &tree(root)),
            [""; 0],
            "{what}: `render --out` changed files"
        );
        assert_eq!(write.status, 2, "{what}: {}", write.stderr);
        assert!(
            write.stderr.contains("out/.beryl-"),
            "{what}: {}",
            write.stderr
        );
    }
}

/// A stage that is a mount (issue 35): a tmpfs (another file system) or a
/// bind mount of another directory of the same file system on
/// `out/.beryl-stage`, with a journal that moves its file in. `render --out`
/// refuses either before moving anything, and every file, in DIR and in the
/// mounted directory, is as it was.
#[test]
fn a_stage_that_is_a_mount_is_refused() {
    if !can_mount() {
        return;
    }
    let d = example();
    let out = Command::new("timeout")
        .args(["120", "unshare", "-m", "sh", "-c"])
        .arg(format!(
            r#"set -u; cd '{}'
            "$BERYL" --color never render --all --out out >/dev/null 2>&1 || exit 99
            echo "not beryl's" > out/notes.txt
            mkdir out/.beryl-stage elsewhere
            for how in "-t tmpfs tmpfs" "--bind elsewhere"; do
              mount $how out/.beryl-stage || exit 99
              cp out/beryl-manifest.json out/.beryl-stage/
              echo 'x: 1' > out/.beryl-stage/host01.example.org.yml
              echo '{{"version": 1, "moves": ["host01.example.org.yml", "beryl-manifest.json"], "remove": []}}' > out/.beryl-journal.json
              before=$(find out elsewhere | sort | xargs -I{{}} sh -c 'test -d "{{}}" && echo "{{}}" || sha256sum "{{}}"')
              "$BERYL" --color never render --all --out out >/dev/null 2>err; echo "$how: status=$?"
              after=$(find out elsewhere | sort | xargs -I{{}} sh -c 'test -d "{{}}" && echo "{{}}" || sha256sum "{{}}"')
              [ "$before" = "$after" ] && echo "$how: unchanged"
              grep -q "out/.beryl-stage: is not a directory of the render directory" err && echo "$how: named"
              umount out/.beryl-stage; rm -f out/.beryl-journal.json elsewhere/*
            done"#,
            d.path().display()
        ))
        .env("BERYL", env!("CARGO_BIN_EXE_beryl"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(99), "setup failed");
    let report = String::from_utf8_lossy(&out.stdout);
    for how in ["-t tmpfs tmpfs", "--bind elsewhere"] {
        for what in ["status=2", "unchanged", "named"] {
            let line = format!("{how}: {what}");
            assert!(report.contains(&line), "{line} not in:\n{report}");
        }
    }
}
