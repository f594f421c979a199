use std::fs;
use std::path::Path;

use super::journal::Journal;
use super::*;

fn hosts(names: &[(&str, &str)]) -> Vec<Rendered> {
    names
        .iter()
        .map(|(f, t)| Rendered {
            fqdn: f.to_string(),
            text: t.to_string(),
        })
        .collect()
}

/// Every file of `dir` (not below it) with its content.
fn listing(dir: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| {
            let text = fs::read_to_string(e.path()).unwrap_or_else(|_| "<dir>".into());
            (e.file_name().to_string_lossy().into_owned(), text)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn writes_hosts_and_manifest_and_removes_stale_files_only() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    write_dir(
        &out,
        &hosts(&[("a.x.org", "A\n"), ("b.x.org", "B\n")]),
        Format::Yaml,
    )
    .unwrap();
    fs::write(out.join("notes.txt"), "mine").unwrap();
    fs::write(out.join("c.x.org.yml"), "not beryl's").unwrap();
    write_dir(&out, &hosts(&[("a.x.org", "A2\n")]), Format::Yaml).unwrap();
    let names: Vec<String> = listing(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "a.x.org.yml",
            "beryl-manifest.json",
            "c.x.org.yml",
            "notes.txt"
        ]
    );
    assert_eq!(fs::read_to_string(out.join("a.x.org.yml")).unwrap(), "A2\n");
    let (m, _lock) = Manifest::read(&out).unwrap();
    let m = m.unwrap();
    assert_eq!(m.hosts.len(), 1);
    assert_eq!(m.hosts["a.x.org"], hash("A2\n"));
}

/// A write interrupted after its commit (the journal is there, some files
/// moved): a reader refuses the directory and changes nothing; the next
/// write's recovery finishes it.
#[test]
fn an_interrupted_commit_is_rolled_forward() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path();
    write_dir(
        out,
        &hosts(&[("a.x.org", "A\n"), ("b.x.org", "B\n")]),
        Format::Yaml,
    )
    .unwrap();
    // What a write of a (changed) and c (new), dropping b, leaves when it
    // stops after moving a.
    let stage = out.join(STAGE);
    fs::create_dir(&stage).unwrap();
    fs::write(out.join("a.x.org.yml"), "A2\n").unwrap();
    fs::write(stage.join("c.x.org.yml"), "C\n").unwrap();
    let manifest = Manifest {
        version: 1,
        format: Some("yaml".into()),
        hosts: [("a.x.org", "A2\n"), ("c.x.org", "C\n")]
            .into_iter()
            .map(|(h, t)| (h.to_string(), hash(t)))
            .collect(),
        ..Manifest::default()
    };
    fs::write(
        stage.join(MANIFEST),
        serde_json::to_string(&manifest).unwrap(),
    )
    .unwrap();
    let journal = Journal {
        version: 1,
        moves: vec!["a.x.org.yml".into(), "c.x.org.yml".into(), MANIFEST.into()],
        remove: vec!["b.x.org.yml".into()],
    };
    fs::write(out.join(JOURNAL), serde_json::to_string(&journal).unwrap()).unwrap();
    let before = listing(out);
    let refused = Manifest::read(out).err().unwrap();
    assert_eq!(refused.code, "beryl::fleet::interrupted");
    assert_eq!(listing(out), before, "a reader moved or deleted files");
    super::journal::recover(out).unwrap();
    let (m, lock) = Manifest::read(out).unwrap();
    drop(lock);
    assert_eq!(m.unwrap().hosts, manifest.hosts);
    let names: Vec<String> = listing(out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["a.x.org.yml", "beryl-manifest.json", "c.x.org.yml"]);
}

/// A stage without a journal was never committed: a reader ignores it,
/// the next write's recovery throws it away.
#[test]
fn an_uncommitted_stage_is_discarded() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path();
    write_dir(out, &hosts(&[("a.x.org", "A\n")]), Format::Yaml).unwrap();
    let before = listing(out);
    fs::create_dir(out.join(STAGE)).unwrap();
    fs::write(out.join(STAGE).join("a.x.org.yml"), "half").unwrap();
    let staged = listing(out);
    let (m, lock) = Manifest::read(out).unwrap();
    drop(lock);
    assert_eq!(m.unwrap().hosts["a.x.org"], hash("A\n"));
    assert_eq!(listing(out), staged, "a reader deleted the stage");
    super::journal::recover(out).unwrap();
    assert_eq!(listing(out), before);
}

/// A manifest naming `../x` would make beryl remove or read files outside
/// the directory.
#[test]
fn a_manifest_naming_paths_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    fs::create_dir(&out).unwrap();
    fs::write(d.path().join("victim.yml"), "keep").unwrap();
    fs::write(
        out.join(MANIFEST),
        r#"{"version": 1, "hosts": {"../victim": "sha256:00"}}"#,
    )
    .unwrap();
    let e = write_dir(&out, &hosts(&[("a.x.org", "A\n")]), Format::Yaml).unwrap_err();
    assert_eq!(e.code, "beryl::fleet::manifest");
    assert!(
        e.message.contains("`../victim` is not a host name"),
        "{}",
        e.message
    );
    assert!(d.path().join("victim.yml").exists());
    assert!(!out.join("a.x.org.yml").exists(), "nothing written");
}

#[test]
fn a_damaged_journal_is_an_error_that_names_it() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path();
    fs::write(out.join(JOURNAL), "{").unwrap();
    let e = write_dir(out, &hosts(&[("a.x.org", "A\n")]), Format::Yaml).unwrap_err();
    assert_eq!(e.code, "beryl::fleet::journal");
    assert!(e.message.contains(JOURNAL), "{}", e.message);
    fs::write(
        out.join(JOURNAL),
        r#"{"version": 1, "moves": ["../../etc/x", "beryl-manifest.json"], "remove": []}"#,
    )
    .unwrap();
    let e = write_dir(out, &hosts(&[("a.x.org", "A\n")]), Format::Yaml).unwrap_err();
    assert!(e.message.contains("outside the directory"), "{}", e.message);
}

#[test]
fn out_must_be_a_directory() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("out");
    fs::write(&file, "x").unwrap();
    let e = write_dir(&file, &hosts(&[("a.x.org", "A\n")]), Format::Yaml).unwrap_err();
    assert!(
        e.message.ends_with("exists and is not a directory"),
        "{}",
        e.message
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "x");
}

/// The manifest is a regular file: a FIFO there made `render --out` wait
/// forever.
#[test]
fn a_fifo_manifest_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(d.path().join(MANIFEST))
        .status()
        .unwrap();
    assert!(made.success());
    let e = write_dir(d.path(), &hosts(&[("a.x.org", "A\n")]), Format::Yaml).unwrap_err();
    assert!(e.message.contains("not a regular file"), "{}", e.message);
}

/// A writer dropped after staging (a host failed to compile) leaves an
/// existing DIR as it was, and removes a DIR it created.
#[test]
fn a_writer_dropped_without_commit_undoes_its_stage() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    write_dir(&out, &hosts(&[("a.x.org", "A\n")]), Format::Yaml).unwrap();
    let before = listing(&out);
    let w = DirWriter::begin(&out, Format::Yaml).unwrap();
    assert!(w.stage("b.x.org", "B\n").unwrap().is_some());
    assert!(out.join(STAGE).join("b.x.org.yml").exists());
    drop(w);
    assert_eq!(listing(&out), before);

    let fresh = d.path().join("fresh");
    let w = DirWriter::begin(&fresh, Format::Json).unwrap();
    w.stage("a.x.org", "{}\n").unwrap();
    drop(w);
    assert!(!fresh.exists());
}

/// `beryl diff out out` reads one directory twice, the first read holding
/// its lock: with an uncommitted stage there, the second read waited for
/// the first forever.
#[test]
fn two_readers_of_one_directory_do_not_wait_for_each_other() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().to_path_buf();
    write_dir(&out, &hosts(&[("a.x.org", "A\n")]), Format::Yaml).unwrap();
    let (_, first) = Manifest::read(&out).unwrap();
    // A stage the first reader did not see (one it could not delete, on a
    // read-only DIR, is the same for the second).
    fs::create_dir(out.join(STAGE)).unwrap();
    fs::write(out.join(STAGE).join("a.x.org.yml"), "half").unwrap();
    let (done, wait) = std::sync::mpsc::channel();
    let again = out.clone();
    std::thread::spawn(move || {
        let _ = done.send(Manifest::read(&again).map(|(m, _)| m.is_some()));
    });
    let second = wait.recv_timeout(std::time::Duration::from_secs(10));
    assert!(matches!(second, Ok(Ok(true))), "the second read blocked");
    assert!(out.join(STAGE).exists(), "left for the next write");
    drop(first);
    write_dir(&out, &hosts(&[("a.x.org", "A\n")]), Format::Yaml).unwrap();
    assert!(!out.join(STAGE).exists());
}
