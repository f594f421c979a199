//! `beryl diff git:REV` where CI needs it (issue 16, item 7), each on a
//! scratch git repository made by the test: the first pull request (no
//! inventory at the old revision), a side that does not compile, a shallow
//! clone, an unknown revision, and links or paths that would leave the
//! scratch tree. Nothing git or tar prints may reach the terminal.
//!
//! Without `git` these tests skip with a notice, unless BERYL_REQUIRE_TOOLS
//! is set (as in .ci/run): then they fail.

use std::fs;

use crate::support::git::{GitRepo, git_command, git_in};
use crate::support::{
    args, beryl, beryl_with_env, example, example_hosts, example_jails, repo, with_stdin,
};

/// What no diagnostic may show: tar's and git's own words, and the scratch
/// tree's temporary paths.
fn assert_nothing_leaks(stderr: &str) {
    for leak in [
        "tar:",
        "fatal:",
        "error: pathspec",
        "beryl-diff-",
        "beryl-rev-",
        "/tmp/",
    ] {
        assert!(!stderr.contains(leak), "{leak:?} leaked:\n{stderr}");
    }
}

#[test]
fn an_old_side_without_the_inventory_is_an_empty_fleet() {
    let Some(r) = GitRepo::new() else { return };
    fs::write(r.file("README"), "the fleet, soon\n").unwrap();
    r.commit("start");
    r.add_example();
    r.commit("the inventory");
    let run = beryl(r.path(), &args(&["diff", "git:HEAD~1"]));
    assert_eq!(run.status, 1, "{}", run.stderr);
    // The old side has no inventory: every host is compiled, nothing else said.
    assert_eq!(
        run.stderr,
        format!(
            "recompiled {n} of {n} hosts\n",
            n = example_hosts().len() + example_jails("host01.example.org").len()
        )
    );
    let hosts = example_hosts();
    assert!(hosts.len() >= 5, "{hosts:?}");
    for host in &hosts {
        assert!(
            run.stdout.contains(host.as_str()),
            "{host}:\n{}",
            run.stdout
        );
    }
    // Both ways: without the inventory at the new revision, every host goes.
    let run = beryl(
        r.path(),
        &args(&["diff", "git:HEAD", "git:HEAD~1", "--stat"]),
    );
    assert_eq!(run.status, 1, "{}", run.stderr);
    for host in &hosts {
        assert!(
            run.stdout.contains(host.as_str()),
            "{host}:\n{}",
            run.stdout
        );
    }
}

#[test]
fn a_side_that_does_not_compile_is_named_with_repository_paths() {
    let Some(r) = GitRepo::new() else { return };
    r.add_example();
    let host = "inventory/example.org/web/host01.yml";
    r.edit(host, "swap: 8g", "swap: [8g");
    r.commit("broken");
    r.edit(host, "swap: [8g", "swap: 8g");
    let run = beryl(r.path(), &args(&["diff", "git:HEAD"]));
    assert_eq!(run.status, 2, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("the old side (git:HEAD) does not compile"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains(&format!("[{host}:")), "{}", run.stderr);
    assert_nothing_leaks(&run.stderr);

    // The new side, named as given.
    r.commit("fixed");
    r.edit(host, "swap: 8g", "swap: [8g");
    let run = beryl(r.path(), &args(&["diff", "git:HEAD"]));
    assert_eq!(run.status, 2, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("the new side (inventory) does not compile"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains(&format!("[{host}:")), "{}", run.stderr);

    // Run from a subdirectory: still relative to the repository. (The host
    // differs between the sides, so even the incremental diff compiles it.)
    let sub = r.file("inventory/example.org");
    let run = beryl(
        &sub,
        &args(&[
            "-i",
            "..",
            "--ssh-dir",
            "../../ssh",
            "diff",
            "git:HEAD~1",
            "git:HEAD",
        ]),
    );
    assert_eq!(run.status, 2, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("the old side (git:HEAD~1) does not compile"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains(&format!("[{host}:")), "{}", run.stderr);
    assert_nothing_leaks(&run.stderr);
}

/// The output shown under `$ beryl diff git:HEAD~1` in docs/ci.md.
fn shallow_example_in_the_docs() -> String {
    let text = fs::read_to_string(repo().join("docs/ci.md")).unwrap();
    let (_, rest) = text
        .split_once("$ beryl diff git:HEAD~1\n")
        .expect("docs/ci.md shows `beryl diff git:HEAD~1` in a shallow clone");
    let (block, _) = rest.split_once("```").unwrap();
    block.to_string()
}

fn trimmed(text: &str) -> String {
    text.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

#[test]
fn a_revision_beyond_a_shallow_clone_gets_a_fetch_depth_help() {
    let Some(r) = GitRepo::new() else { return };
    r.add_example();
    r.commit("one");
    r.edit(
        "inventory/example.org/web/host01.yml",
        "swap: 8g",
        "swap: 16g",
    );
    r.commit("two");
    let clone = tempfile::tempdir().unwrap();
    let url = format!("file://{}", r.path().display());
    git_in(clone.path(), &["clone", "-q", "--depth", "1", &url, "c"]);
    let c = clone.path().join("c");
    assert_eq!(
        git_in(&c, &["rev-parse", "--is-shallow-repository"]).trim(),
        "true"
    );
    let run = beryl(&c, &args(&["diff", "git:HEAD~1"]));
    assert_eq!(run.status, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("no such revision: HEAD~1"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("shallow"), "{}", run.stderr);
    assert!(run.stderr.contains("fetch-depth: 0"), "{}", run.stderr);
    assert!(run.stderr.contains("--unshallow"), "{}", run.stderr);
    assert_nothing_leaks(&run.stderr);
    // docs/ci.md shows this very output in a block that cannot run there.
    assert_eq!(
        trimmed(&run.stderr),
        trimmed(&shallow_example_in_the_docs())
    );
    // Deepened, the same command works.
    git_in(&c, &["fetch", "-q", "--deepen=1"]);
    let run = beryl(&c, &args(&["diff", "git:HEAD~1"]));
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(run.stdout.contains("host01.example.org"), "{}", run.stdout);
}

#[test]
fn an_unknown_revision_in_a_full_clone_is_named_plainly() {
    let Some(r) = GitRepo::new() else { return };
    r.add_example();
    r.commit("one");
    let run = beryl(r.path(), &args(&["diff", "git:no-such-rev"]));
    assert_eq!(run.status, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("no such revision: no-such-rev"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("help: REV names a commit"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("shallow"), "{}", run.stderr);
    assert_nothing_leaks(&run.stderr);

    // A CI checkout has origin/main but no main: the help names it.
    let clone = tempfile::tempdir().unwrap();
    let url = format!("file://{}", r.path().display());
    git_in(clone.path(), &["clone", "-q", &url, "c"]);
    let c = clone.path().join("c");
    git_in(&c, &["checkout", "-q", "--detach"]);
    git_in(&c, &["branch", "-q", "-D", "main"]);
    let run = beryl(&c, &args(&["diff", "git:main"]));
    assert_eq!(run.status, 2, "{}", run.stdout);
    assert!(run.stderr.contains("git:origin/main"), "{}", run.stderr);
    assert_nothing_leaks(&run.stderr);

    // Outside a repository, and an option for a revision.
    let bare = example();
    let run = beryl(bare.path(), &args(&["diff", "git:HEAD"]));
    assert_eq!(run.status, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("is not in a git repository"),
        "{}",
        run.stderr
    );
    assert_nothing_leaks(&run.stderr);
    let run = beryl(r.path(), &args(&["diff", "git:--output=x"]));
    assert_eq!(run.status, 2, "{}", run.stdout);
    assert!(run.stderr.contains("is not a revision"), "{}", run.stderr);
    assert!(!r.file("x").exists());
}

#[test]
fn a_link_out_of_the_repository_is_refused_and_never_read() {
    let Some(r) = GitRepo::new() else { return };
    r.add_example();
    let secret = tempfile::tempdir().unwrap();
    fs::write(secret.path().join("secret.yml"), "stolen: SECRET-VALUE\n").unwrap();
    let link = r.file("inventory/example.org/web/host09.yml");
    std::os::unix::fs::symlink(secret.path().join("secret.yml"), &link).unwrap();
    r.commit("an absolute link");
    let run = beryl(r.path(), &args(&["diff", "git:HEAD"]));
    assert_eq!(run.status, 2, "{}", run.stdout);
    assert!(!run.stdout.contains("SECRET-VALUE") && !run.stderr.contains("SECRET-VALUE"));
    assert!(
        run.stderr.contains(
            "HEAD:inventory/example.org/web/host09.yml is a link that leaves the repository"
        ),
        "{}",
        run.stderr
    );

    // A relative link that stays inside when read as text, but leaves the
    // scratch tree through another link (`up` is `inventory/example.org`):
    // with the scratch tree in OUTER/t/, it lands on OUTER/secret.yml.
    fs::remove_file(&link).unwrap();
    let outer = tempfile::tempdir().unwrap();
    fs::create_dir(outer.path().join("t")).unwrap();
    fs::write(outer.path().join("secret.yml"), "stolen: SECRET-VALUE\n").unwrap();
    std::os::unix::fs::symlink("..", r.file("inventory/example.org/web/up")).unwrap();
    std::os::unix::fs::symlink("up/../../../../secret.yml", &link).unwrap();
    r.commit("a relative link");
    let tmp = outer.path().join("t").display().to_string();
    let run = beryl_with_env(
        r.path(),
        &args(&["diff", "git:HEAD"]),
        &[("TMPDIR".into(), tmp)],
        None,
    );
    assert_eq!(run.status, 2, "{}", run.stdout);
    assert!(!run.stdout.contains("SECRET-VALUE") && !run.stderr.contains("SECRET-VALUE"));
    assert!(
        run.stderr.contains(
            "HEAD:inventory/example.org/web/host09.yml is a link that leaves the repository"
        ),
        "{}",
        run.stderr
    );
    // The scratch tree is gone.
    assert_eq!(fs::read_dir(outer.path().join("t")).unwrap().count(), 0);
}

#[test]
fn a_tree_entry_with_a_dot_dot_component_is_refused() {
    let Some(r) = GitRepo::new() else { return };
    r.add_example();
    r.commit("one");
    // A tree that git's checkout would refuse, made by hand: inventory/
    // holding an entry named `..` with a file in it.
    let blob = {
        let out = with_stdin(
            git_command(r.path()).args(["hash-object", "-w", "--stdin"]),
            b"escaped: true\n",
        );
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let mktree = |listing: String| -> Option<String> {
        let out = with_stdin(git_command(r.path()).args(["mktree"]), listing.as_bytes());
        out.status
            .success()
            .then(|| String::from_utf8(out.stdout).unwrap().trim().to_string())
    };
    let Some(evil) = mktree(format!("100644 blob {blob}\tpwned.yml\n")) else {
        return;
    };
    let inventory = r.git(&["rev-parse", "HEAD:inventory"]);
    let mut listing = r.git(&["ls-tree", inventory.trim()]);
    listing.push_str(&format!("040000 tree {evil}\t..\n"));
    let Some(tree) = mktree(listing) else {
        eprintln!("notice: git mktree refuses `..`; the confinement is covered by unit tests");
        return;
    };
    let mut root = r.git(&["ls-tree", "HEAD"]);
    root = root.replace(inventory.trim(), &tree);
    let root = mktree(root).unwrap();
    let commit = r.git(&["commit-tree", &root, "-m", "evil"]);
    let run = beryl(
        r.path(),
        &args(&["diff", &format!("git:{}", commit.trim())]),
    );
    assert_eq!(run.status, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("the path has an empty"),
        "{}",
        run.stderr
    );
    assert!(!std::env::temp_dir().join("pwned.yml").exists());
}
