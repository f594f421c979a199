//! The cases built at run time: bytes a `.case` file cannot hold (invalid
//! UTF-8, NUL, BOM, bare CR), sizes not worth committing (100 MB, a million
//! items, 10,000 levels), permissions, names that are not UTF-8, FIFOs, and
//! keys made by ssh-keygen.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use super::run::Prepared;
use crate::support::{fixture, mkfifo, skip, write};

const HOST: &str = "inventory/example.org/web/host01.yml";
const DOMAIN: &str = "inventory/example.org/_domain.yml";
const HEAD: &str = "freebsd:\n  hostname: host01.example.org\n";
const OUT: &[&str] = &["render", "--all", "--out", "out"];

/// The base fixture with `files` written over it.
fn tree(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = fixture("base");
    for (path, bytes) in files {
        write(&dir.path().join(path), bytes);
    }
    dir
}

fn case(name: &str, files: &[(&str, &[u8])], args: &[&str]) -> Prepared {
    Prepared::new(name, tree(files), args)
}

/// Like [`case`], with files built at run time, and the usual command.
fn case_owned(name: &str, files: Vec<(String, String)>) -> Prepared {
    let files: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_bytes()))
        .collect();
    case(name, &files, OUT)
}

fn host(name: &str, text: impl AsRef<[u8]>) -> Prepared {
    case(name, &[(HOST, text.as_ref())], OUT)
}

pub fn all() -> Vec<Prepared> {
    let mut cases = yaml_bytes();
    cases.extend(sizes());
    cases.extend(layout());
    cases.extend(keys());
    cases.push(reclass_mapping_backtracking());
    cases.extend(diffs());
    cases
}

/// Issue 35: 20 class mappings whose regex exceeds fancy-regex's
/// backtracking limit on each of 301 nodes (`aaaa…aN`) took 106 s from a
/// 546-byte config; the first rule past the limit is now stopped, with its
/// error at the rule.
fn reclass_mapping_backtracking() -> Prepared {
    let dir = tempfile::tempdir().unwrap();
    let rules: String = (0..20)
        .map(|i| format!("  - '/^(a|aa)+(?=q{i})$/ m'\n"))
        .collect();
    let inv = dir.path().join("inventory");
    write(
        &inv.join("reclass-config.yml"),
        format!("ignore_class_notfound: true\nclass_mappings:\n{rules}").as_bytes(),
    );
    fs::create_dir_all(inv.join("classes")).unwrap();
    for n in 0..301 {
        let name = format!("{}{n}.yml", "a".repeat(30));
        write(&inv.join("nodes").join(name), b"parameters: {}\n");
    }
    Prepared::new("gen/reclass/mapping-backtracking-301-nodes", dir, OUT)
        .has("beryl::limit::regex_steps")
        .has("inventory/reclass-config.yml:3:5")
        .has("more than 1000000 backtracking steps")
}

fn yaml_bytes() -> Vec<Prepared> {
    let bom = "\u{feff}";
    vec![
        host("gen/yaml/invalid-utf8", b"freebsd:\n  hostname: \xff\xfe\n")
            .has("inventory/example.org/web/host01.yml:2: the file is not valid UTF-8"),
        host("gen/yaml/nul-byte", b"freebsd:\n  hostname: a\0b\n")
            .has("inventory/example.org/web/host01.yml:2:14"),
        // A BOM at the start is legal YAML (1.2 §5.2): accepted, and the
        // host renders as without it.
        host("gen/yaml/bom-at-start-accepted", format!("{bom}{HEAD}")).status(0),
        // …and does not shift the lines of an error after it.
        host(
            "gen/yaml/bom-then-error",
            format!("{bom}{HEAD}  bogus: 1\n"),
        )
        .has("inventory/example.org/web/host01.yml:3:3"),
        host("gen/yaml/bom-inside", format!("{HEAD}{bom}site: x\n"))
            .has("inventory/example.org/web/host01.yml:3:1")
            .has("a BOM must not appear inside a document"),
        // Old Mac line ends: lines are still counted.
        host(
            "gen/yaml/bare-cr-lines",
            "freebsd:\r  hostname: host01.example.org\r  bogus: 1\r",
        )
        .has("inventory/example.org/web/host01.yml:3:3"),
        host(
            "gen/yaml/deep-block-10000",
            format!("{HEAD}site:\n  {}a\n", "- ".repeat(10_000)),
        )
        .has("inventory/example.org/web/host01.yml:4:")
        .has("nests deeper than 64 levels"),
        host(
            "gen/yaml/deep-flow-sequences-10000",
            format!("{HEAD}site: {}{}\n", "[".repeat(10_000), "]".repeat(10_000)),
        )
        .has("inventory/example.org/web/host01.yml:3:")
        .has("nests deeper than 64 levels"),
        host(
            "gen/yaml/deep-flow-mappings-10000",
            format!(
                "{HEAD}site: {}b{}\n",
                "{a: ".repeat(10_000),
                "}".repeat(10_000)
            ),
        )
        .has("inventory/example.org/web/host01.yml:3:")
        .has("nests deeper than 64 levels"),
    ]
}

fn sizes() -> Vec<Prepared> {
    // 10,000 nested block mappings, one space of indentation each: 50 MB,
    // so with the size cap raised it is the depth limit that refuses it.
    let mut deep = String::from(HEAD);
    deep.push_str("site:\n");
    for i in 1..=10_000 {
        deep.push_str(&" ".repeat(i));
        deep.push_str("k:\n");
    }
    let mut deep_at_ceiling = host(
        "gen/yaml/deep-flow-at-the-depth-ceiling",
        format!("{HEAD}site: {}{}\n", "[".repeat(10_000), "]".repeat(10_000)),
    )
    .has("nests deeper than 1000 levels");
    deep_at_ceiling
        .args
        .splice(0..0, ["--max-depth".into(), "1000".into()]);
    let mut deep_block = host("gen/yaml/deep-block-mappings-10000-size-cap-raised", deep)
        .has("inventory/example.org/web/host01.yml:67:")
        .has("nests deeper than 64 levels");
    deep_block
        .args
        .splice(0..0, ["--max-file-size".into(), "100000000".into()]);

    // 100 MB of ordinary YAML.
    let big = fixture("base");
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(fs::File::create(big.path().join(HOST)).unwrap());
        f.write_all(HEAD.as_bytes()).unwrap();
        let line = "k0000000000: a value of an ordinary length, repeated\n";
        for i in 0..(100 * 1024 * 1024 / line.len() + 1) {
            writeln!(f, "k{i:010}: a value of an ordinary length, repeated").unwrap();
        }
    }
    let big = Prepared::new("gen/yaml/file-100mb", big, OUT)
        .has("inventory/example.org/web/host01.yml is larger than the 4194304-byte file size cap");

    let packages: String = (0..10_000).map(|i| format!("  - {i}\n")).collect();
    vec![
        deep_at_ceiling,
        deep_block,
        big,
        host(
            "gen/yaml/list-1m-items-block",
            format!("{HEAD}site:\n{}", "- a\n".repeat(1_000_000)),
        )
        .has("inventory/example.org/web/host01.yml:3:")
        .has("a list holds more than 100000 items"),
        // 300,000 keys in 3.3 MB, under the size cap: the value cap stops it.
        host(
            "gen/yaml/mapping-300k-keys",
            format!(
                "{HEAD}site:\n{}",
                (0..300_000)
                    .map(|i| format!("  k{i:06}: v\n"))
                    .collect::<String>()
            ),
        )
        .has("inventory/example.org/web/host01.yml:")
        .has("the document has more than 250000 values"),
        // On one line of 2 MB: the location is written out, not quoted.
        host(
            "gen/yaml/list-1m-items-flow-one-line",
            format!("{HEAD}site: [{}a]\n", "a,".repeat(999_999)),
        )
        .has("at inventory/example.org/web/host01.yml:3:")
        .has("too long to quote"),
        // A 3 MB string repeated by aliases: 90 MB of strings from a 3 MB file.
        host(
            "gen/yaml/string-alias-bomb",
            format!(
                "{HEAD}a: &a '{}'\nb: [{}]\n",
                "x".repeat(3 << 20),
                vec!["*a"; 30].join(", ")
            ),
        )
        .has("inventory/example.org/web/host01.yml:4:")
        .has("strings add up to more than 67108864"),
        // 10,000 errors in one file are all reported, quickly.
        host(
            "gen/schema/ten-thousand-errors",
            format!("freebsd:\n  hostname: host01.example.org\n  packages:\n{packages}"),
        )
        .has("inventory/example.org/web/host01.yml:4:5")
        .has("inventory/example.org/web/host01.yml:10003:5")
        .has("error: 10000 errors"),
        // A chain of 1,000 classes, each including the next (50,000
        // overflowed the stack).
        case_owned("gen/classes/chain-1000", {
            let mut files: Vec<(String, String)> = (0..1000)
                .map(|i| {
                    let text = format!("classes: [c{}]\n", i + 1);
                    (format!("inventory/_classes/c{i}.yml"), text)
                })
                .collect();
            files.push(("inventory/_classes/c1000.yml".into(), "x: 1\n".into()));
            files.push((HOST.into(), format!("classes: [c0]\n{HEAD}")));
            files
        })
        .has("classes include one another more than 64 deep")
        .has("inventory/_classes/c63.yml:1:11"),
        // A chain of 1,000 references, each the next one's value.
        host("gen/refs/chain-1000", {
            let mut t = String::from(HEAD);
            for i in 0..1000 {
                t.push_str(&format!("k{i}: ${{k{}}}\n", i + 1));
            }
            t + "k1000: end\n"
        })
        .has("references nest more than 64 deep")
        .has("inventory/example.org/web/host01.yml:"),
    ]
}

fn layout() -> Vec<Prepared> {
    let mut cases = Vec::new();

    use std::os::unix::ffi::OsStrExt;
    let t = tree(&[]);
    fs::write(
        t.path()
            .join("inventory/example.org")
            .join(std::ffi::OsStr::from_bytes(b"bad\xffname.yml")),
        "",
    )
    .unwrap();
    cases.push(
        Prepared::new("gen/layout/name-not-utf8", t, OUT)
            .has("inventory/example.org holds an entry whose name is not UTF-8"),
    );

    // Permissions: root reads anything, so these cases run as uid 65534
    // when the tests run as root (run.rs); the tree is made readable to that
    // user but for the one entry.
    let t = tree(&[]);
    open_to_all(t.path());
    fs::set_permissions(t.path().join(HOST), fs::Permissions::from_mode(0o000)).unwrap();
    let mut p = Prepared::new("gen/layout/unreadable-host-file", t, &["check"])
        .has("cannot read inventory/example.org/web/host01.yml: Permission denied");
    p.unprivileged = true;
    cases.push(p);

    let t = tree(&[]);
    open_to_all(t.path());
    let web = t.path().join("inventory/example.org/web");
    fs::set_permissions(&web, fs::Permissions::from_mode(0o000)).unwrap();
    let mut p = Prepared::new("gen/layout/unreadable-group-dir", t, &["check"])
        .has("inventory/example.org/web")
        .has("Permission denied");
    p.unprivileged = true;
    cases.push(p);

    // A FIFO where the manifest of an output directory goes: it would block
    // whoever opened it.
    let t = tree(&[]);
    fs::create_dir(t.path().join("out")).unwrap();
    mkfifo(&t.path().join("out/beryl-manifest.json"));
    cases.push(
        Prepared::new("gen/output/fifo-manifest", t, OUT)
            .has("out/beryl-manifest.json is not a regular file"),
    );
    let t = tree(&[]);
    mkfifo(&t.path().join("ssh/ops.pub"));
    cases.push(
        Prepared::new("gen/keys/fifo-key-file", t, OUT)
            .has("ssh/ops.pub is not a regular file")
            .has("inventory/example.org/_domain.yml:2:5"),
    );
    cases
}

fn open_to_all(dir: &Path) {
    fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            open_to_all(&p);
        } else {
            fs::set_permissions(&p, fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
}

/// `ssh-keygen -q -N '' -f DIR/key` with `args`; the private and public
/// key texts. `None` (with a notice) when ssh-keygen is missing, unless
/// BERYL_REQUIRE_TOOLS is set.
fn keygen(args: &[&str]) -> Option<(String, String)> {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("key");
    let made = Command::new("ssh-keygen")
        .args(["-q", "-N", "", "-C", "adversarial@test", "-f"])
        .arg(&key)
        .args(args)
        .output();
    match made {
        Ok(o) if o.status.success() => Some((
            fs::read_to_string(&key).unwrap(),
            fs::read_to_string(key.with_extension("pub")).unwrap(),
        )),
        _ => {
            skip(
                "the key cases that need it",
                &format!("`ssh-keygen {args:?}` failed"),
            );
            None
        }
    }
}

/// The domain file naming the key `deploy`, and that key file.
fn with_key(name: &str, file: &str, text: impl AsRef<[u8]>) -> Prepared {
    case(
        name,
        &[
            (DOMAIN, b"ssh_keys:\n  - deploy\n"),
            (&format!("ssh/{file}"), text.as_ref()),
        ],
        OUT,
    )
    .has("inventory/example.org/_domain.yml:2:5")
}

fn keys() -> Vec<Prepared> {
    let mut cases = Vec::new();
    // A private key line that the diagnostics must never echo.
    let secret = |private: &str| private.lines().nth(1).unwrap_or_default().to_string();
    if let Some((private, _)) = keygen(&["-t", "rsa", "-b", "2048", "-m", "PEM"]) {
        assert!(private.starts_with("-----BEGIN RSA PRIVATE KEY-----"));
        cases.push(
            with_key("gen/keys/private-key-pem", "deploy", &private)
                .has("ssh/deploy holds a private key")
                .lacks(&secret(&private)),
        );
    }
    if let Some((private, public)) = keygen(&["-t", "ed25519"]) {
        assert!(private.starts_with("-----BEGIN OPENSSH PRIVATE KEY-----"));
        cases.push(
            with_key("gen/keys/private-key-openssh", "deploy", &private)
                .has("ssh/deploy holds a private key")
                .lacks(&secret(&private)),
        );
        // The private key saved under the public key's name.
        cases.push(
            with_key("gen/keys/private-key-named-pub", "deploy.pub", &private)
                .has("ssh/deploy.pub holds a private key")
                .lacks(&secret(&private)),
        );
        let (kind, blob) = public.split_once(' ').unwrap();
        let blob = blob.split(' ').next().unwrap();
        cases.push(
            with_key(
                "gen/keys/truncated",
                "deploy.pub",
                format!("{kind} {}\n", &blob[..blob.len() / 8 * 4]),
            )
            .has("ssh/deploy.pub:1: invalid SSH public key"),
        );
        cases.push(
            with_key(
                "gen/keys/wrong-type-in-blob",
                "deploy.pub",
                format!("ssh-rsa {blob} x@test\n"),
            )
            .has("the type field says ssh-rsa but the key data is a"),
        );
        cases.push(
            with_key(
                "gen/keys/newline-inside-key-data",
                "deploy.pub",
                format!("{kind} {}\n{} x@test\n", &blob[..30], &blob[30..]),
            )
            .has("ssh/deploy.pub:1: invalid SSH public key"),
        );
        cases.push(
            with_key(
                "gen/keys/key-file-not-utf8",
                "deploy.pub",
                [format!("{kind} {blob} x@test\n# caf").as_bytes(), b"\xe9\n"].concat(),
            )
            .has("ssh/deploy.pub:2: not valid UTF-8"),
        );
        let mut big = with_key(
            "gen/keys/key-file-too-large",
            "deploy.pub",
            format!("{kind} {blob} x@test\n{}", "# padding\n".repeat(500_000)),
        )
        .has("ssh/deploy.pub is larger than the 4194304-byte file size cap");
        big.stderr_lacks.push(blob.to_string());
        cases.push(big);
    }
    if let Some((_, public)) = keygen(&["-t", "rsa", "-b", "1024"]) {
        cases.push(
            with_key("gen/keys/rsa-1024", "deploy.pub", &public)
                .has("ssh/deploy.pub:1: the RSA key has 1024 bits; at least 2048 are required"),
        );
    }
    cases
}

/// Line diffs past their bound (issue 35): a managed user's authorized_keys
/// of 3,000,000 distinct lines in a snapshot (36 MB, under its 64 MiB cap;
/// the dry run was killed at 300 s), a multi-line value of 250,000 changed
/// lines (killed at 300 s) and a list of 50,000 items reversed, each
/// compared by `beryl diff`. Accepted input: the dry run exits 0, the
/// diffs 1; the budget is the point (tests/integration/apply.rs and diff.rs
/// check the summary they print).
fn diffs() -> Vec<Prepared> {
    let dir = crate::support::example();
    let state = crate::support::fixtures().join("apply/host01.json");
    let mut state: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(state).unwrap()).unwrap();
    let planted: String = (0..3_000_000).map(|i| format!("k{i:07} x\n")).collect();
    let keys = &mut state["users"]["alice"]["authorized_keys"];
    keys["sha256"] = beryl::apply::sha256_hex(&planted).into();
    keys["content"] = planted.into();
    write(
        &dir.path().join("planted.json"),
        serde_json::to_string(&state).unwrap(),
    );
    let dry_run = Prepared::new(
        "gen/diff/dry-run-authorized-keys-3000000-lines",
        dir,
        &["apply", "host01", "--dry-run", "--state", "planted.json"],
    )
    .status(0);
    let sides = |name: &str, body: &dyn Fn(&str) -> String| {
        let dir = tempfile::tempdir().unwrap();
        crate::support::copy_tree(&crate::support::fixtures().join("diff"), dir.path());
        for side in ["old", "new"] {
            write(
                &dir.path().join(side).join("example.org/mail.yml"),
                body(side),
            );
        }
        Prepared::new(name, dir, &["-i", "new", "--ssh-dir", "ssh", "diff", "old"]).status(1)
    };
    let lines = sides("gen/diff/a-value-of-250000-changed-lines", &|side| {
        let tag = if side == "old" { "a" } else { "b" };
        let body: String = (0..250_000).map(|i| format!("  {tag}{i:06}\n")).collect();
        format!("motd: |\n{body}")
    });
    // 50,000 items (the old alignment took 206 s on 100,000): compiling
    // the two sides takes most of the case's CPU in a debug build.
    let list = sides("gen/diff/a-list-of-50000-items-reversed", &|side| {
        let mut items: Vec<usize> = (0..50_000).collect();
        if side == "new" {
            items.reverse();
        }
        let body: String = items.iter().map(|i| format!("  - i{i}\n")).collect();
        format!("items:\n{body}")
    });
    vec![dry_run, lines, list]
}
