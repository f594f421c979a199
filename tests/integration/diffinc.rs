//! The incremental `beryl diff` (issue 21, item 4; docs/diff.md §9) equals
//! the full one: on a scratch repository holding the example inventory
//! (classes, keys, an inventory query and the exports it reads, templates),
//! one random edit of one kind per case and seed is committed, and
//! `diff git:HEAD~1 git:HEAD --format json` must print exactly what
//! `--full` prints, with the same exit code. So must the diff of the old
//! revision and the work tree, and that of the two states as directories. An edit that reaches one host recompiles one.
//!
//! Without `git` these tests skip with a notice, unless BERYL_REQUIRE_TOOLS
//! is set (as in .ci/run): then they fail.

use std::fs;
use std::path::Path;

use crate::support::git::GitRepo;
use crate::support::{args, beryl, copy_tree};

/// The kinds of edit, each one case per seed.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Edit {
    Host,
    Group,
    Domain,
    Default,
    Class,
    /// A new class file, which a group starts naming.
    NewClass,
    KeyFile,
    Template,
    /// A host's exports, which the edge group's query reads.
    Export,
    HostAdded,
    HostRemoved,
}

const EDITS: &[Edit] = &[
    Edit::Host,
    Edit::Group,
    Edit::Domain,
    Edit::Default,
    Edit::Class,
    Edit::NewClass,
    Edit::KeyFile,
    Edit::Template,
    Edit::Export,
    Edit::HostAdded,
    Edit::HostRemoved,
];

const HOSTS: &[&str] = &[
    "example.org/mail.yml",
    "example.org/web/host01.yml",
    "example.org/web/host02.yml",
    "example.org/db/db01.yml",
    "example.org/db/db02.yml",
    "example.net/ns1.yml",
    "example.net/edge/edge01.yml",
    "example.net/edge/edge02.yml",
];
const GROUPS: &[&str] = &[
    "example.org/web/_group.yml",
    "example.org/db/_group.yml",
    "example.net/edge/_group.yml",
];
const DOMAINS: &[&str] = &["example.org/_domain.yml", "example.net/_domain.yml"];

/// A small deterministic generator (xorshift64*), so that a failing seed
/// can be run again.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

fn append(path: &Path, text: &str) {
    let mut old = fs::read_to_string(path).unwrap();
    old.push_str(text);
    fs::write(path, old).unwrap();
}

/// Makes the edit in the work tree; returns the number of hosts it must
/// recompile when it reaches only some.
fn edit(r: &GitRepo, kind: Edit, rng: &mut Rng, seed: u64) -> Option<usize> {
    let inv = |rel: &str| r.file(&format!("inventory/{rel}"));
    let value = rng.below(1000);
    let note = format!("\nnote_{seed}:\n  value: v{value}\n");
    match kind {
        Edit::Host => {
            let host = rng.pick(HOSTS);
            append(&inv(host), &note);
            return alone(host);
        }
        Edit::Group => append(&inv(rng.pick(GROUPS)), &note),
        Edit::Domain => append(&inv(rng.pick(DOMAINS)), &note),
        Edit::Default => append(&inv("_default.yml"), &note),
        Edit::Class => {
            // roles.web is the class of the web group: its two hosts and
            // host01's two jails.
            append(&inv("_classes/roles/web.yml"), &note);
            return Some(4);
        }
        Edit::NewClass => {
            fs::write(inv("_classes/roles/db.yml"), note.trim_start()).unwrap();
            let group = inv("example.org/db/_group.yml");
            let text = fs::read_to_string(&group).unwrap();
            fs::write(&group, format!("classes:\n  - roles.db\n{text}")).unwrap();
            return Some(2);
        }
        Edit::KeyFile => {
            let bob = fs::read_to_string(r.file("ssh/bob.pub")).unwrap();
            let to = rng.pick(&["alice.pub", "carol.pub", "ops.pub"]);
            append(&r.file(&format!("ssh/{to}")), &bob);
        }
        Edit::Template => append(&inv("templates/pf.conf.j2"), &format!("# {value}\n")),
        Edit::Export => {
            let host = rng.pick(&HOSTS[1..3]);
            append(
                &inv(host),
                &format!("\nexports:\n  http_port: {}\n", 8000 + value),
            );
        }
        Edit::HostAdded => {
            let from = rng.pick(HOSTS);
            let (dir, _) = from.rsplit_once('/').unwrap();
            fs::copy(inv(from), inv(&format!("{dir}/new{seed}.yml"))).unwrap();
            return alone(from);
        }
        Edit::HostRemoved => {
            let host = rng.pick(HOSTS);
            fs::remove_file(inv(host)).unwrap();
            return alone(host);
        }
    }
    None
}

/// One host recompiled for an edit of the host file `host`, unless the host
/// exports what the query reads (web) or runs the query (edge): then the
/// diff is computed whole (docs/diff.md §9).
fn alone(host: &str) -> Option<usize> {
    (!host.contains("/web/") && !host.contains("/edge/")).then_some(1)
}

/// `recompiled N of M hosts` from stderr: N.
fn recompiled(stderr: &str) -> usize {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("recompiled "))
        .unwrap_or_else(|| panic!("no count:\n{stderr}"));
    line.split(' ').nth(1).unwrap().parse().unwrap()
}

/// The incremental and the full diff of `sides` agree; returns the number
/// of hosts the incremental one compiled.
fn agree(dir: &Path, sides: &[&str], what: &str) -> usize {
    let mut a = args(&["-i", "inventory", "--ssh-dir", "ssh", "diff"]);
    a.extend(args(sides));
    a.extend(args(&["--format", "json"]));
    let quick = beryl(dir, &a);
    a.push("--full".into());
    let full = beryl(dir, &a);
    assert_eq!(
        quick.status, full.status,
        "{what}: {}{}",
        quick.stderr, full.stderr
    );
    assert!(quick.status <= 1, "{what}: {}", quick.stderr);
    assert_eq!(quick.stdout, full.stdout, "{what}");
    recompiled(&quick.stderr)
}

#[test]
fn an_incremental_diff_equals_the_full_diff() {
    for seed in 1..=2u64 {
        for (i, &kind) in EDITS.iter().enumerate() {
            let Some(r) = GitRepo::new() else { return };
            r.add_example();
            r.commit("base");
            let before = tempfile::tempdir().unwrap();
            copy_tree(&r.file("inventory"), before.path());
            let mut rng = Rng(seed * 1000 + i as u64 + 1);
            let one = edit(&r, kind, &mut rng, seed);
            r.commit("edit");
            let what = format!("{kind:?}, seed {seed}");
            let n = agree(r.path(), &["git:HEAD~1", "git:HEAD"], &what);
            if let Some(one) = one {
                assert_eq!(n, one, "{what}: hosts recompiled");
            }
            // The same states as directories (with the key directory of
            // the command line on both sides).
            let old = before.path().to_str().unwrap();
            agree(
                r.path(),
                &[old, "inventory"],
                &format!("{what}, directories"),
            );
        }
    }
}

#[test]
fn nothing_changed_compiles_nothing() {
    let Some(r) = GitRepo::new() else { return };
    r.add_example();
    fs::write(r.file("inventory/NOTES.txt"), "not read\n").unwrap();
    r.commit("base");
    append(&r.file("inventory/NOTES.txt"), "still not read\n");
    r.commit("notes");
    assert_eq!(agree(r.path(), &["git:HEAD~1", "git:HEAD"], "notes"), 0);
}
