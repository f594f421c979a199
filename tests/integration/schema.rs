//! `beryl schema`: the schema is valid 2020-12, every file of the example
//! inventory satisfies it (checked by a real validator, the jsonschema crate,
//! on the YAML as beryl's own loader reads it), and it refuses what
//! validation refuses about a file's shape.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{beryl, repo};

/// The schema printed by `beryl schema [--level LEVEL]`.
fn schema(level: Option<&str>) -> Value {
    let mut args = vec!["schema".to_string()];
    if let Some(l) = level {
        args.extend(["--level".to_string(), l.to_string()]);
    }
    let run = beryl(&repo(), &args);
    assert_eq!(run.status, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("the schema is JSON")
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::meta::validate(schema).expect("the schema is a valid JSON Schema");
    assert_eq!(
        schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "2020-12"
    );
    jsonschema::draft202012::new(schema).expect("the schema compiles")
}

/// A YAML text as beryl's loader reads it, as JSON.
fn load(name: &str, text: &str) -> Value {
    let source = beryl::value::Source::new(name, text);
    let node = beryl::yaml::parse(&source, &Default::default())
        .unwrap_or_else(|d| panic!("{name}: {}", d.message));
    serde_json::to_value(&node).expect("a node serializes")
}

/// Every YAML file under `dir`, sorted.
fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yml" || e == "yaml") {
            out.push(path);
        }
    }
    out.sort();
}

/// The level of an inventory file, from its name.
fn level_of(path: &Path) -> &'static str {
    match path.file_stem().and_then(|s| s.to_str()) {
        Some("_default") => "default",
        Some("_domain") => "domain",
        Some("_group") => "group",
        _ => "host",
    }
}

fn errors(v: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    v.iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// `doc` with the merge prefix (`~` or `=`) taken off every mapping key.
fn unprefixed(doc: &Value) -> Value {
    match doc {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let k = k.strip_prefix(['~', '=']).unwrap_or(k);
                    (k.to_string(), unprefixed(v))
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(unprefixed).collect()),
        v => v.clone(),
    }
}

#[test]
fn every_example_file_satisfies_the_schema() {
    let (_, any) = &validators()[0];
    let mut files = Vec::new();
    yaml_files(&repo().join("inventory"), &mut files);
    assert!(files.len() >= 14, "{} files", files.len());
    let mut seen = Vec::new();
    for path in &files {
        let rel = path.strip_prefix(repo()).unwrap().display().to_string();
        let doc = load(&rel, &std::fs::read_to_string(path).unwrap());
        let level = level_of(path);
        let (_, v) = validators()
            .iter()
            .find(|(l, _)| *l == Some(level))
            .unwrap();
        assert_eq!(errors(v, &doc), Vec::<String>::new(), "{rel} ({level})");
        assert_eq!(errors(any, &doc), Vec::<String>::new(), "{rel} (any level)");
        // serde reads it into the input types the schema came from, too.
        // Those name each key once; the schema mirrors it as `~KEY` and
        // `=KEY` (patternProperties), so the merge prefixes go first.
        let parsed: Result<beryl::jsonschema::LevelFile<beryl::jsonschema::AnyKeys>, _> =
            serde_json::from_value(unprefixed(&doc));
        assert!(parsed.is_ok(), "{rel}: {:?}", parsed.err());
        seen.push(level);
    }
    for level in ["default", "domain", "group", "host"] {
        assert!(seen.contains(&level), "no {level} file was checked");
    }
}

/// What `beryl init` writes satisfies the schema too.
#[test]
fn the_scaffold_of_init_satisfies_the_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let run = beryl(tmp.path(), &["init".to_string()]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let mut files = Vec::new();
    yaml_files(&tmp.path().join("inventory"), &mut files);
    assert_eq!(files.len(), 4);
    for path in &files {
        let doc = load("scaffold", &std::fs::read_to_string(path).unwrap());
        let level = level_of(path);
        let (_, v) = validators()
            .iter()
            .find(|(l, _)| *l == Some(level))
            .unwrap();
        assert_eq!(errors(v, &doc), Vec::<String>::new(), "{}", path.display());
    }
}

/// The validators of each level's schema and of the any-level one, built once.
fn validators() -> &'static [(Option<&'static str>, jsonschema::Validator)] {
    static ALL: std::sync::OnceLock<Vec<(Option<&'static str>, jsonschema::Validator)>> =
        std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        [
            None,
            Some("default"),
            Some("domain"),
            Some("group"),
            Some("host"),
        ]
        .into_iter()
        .map(|l| (l, validator(&schema(l))))
        .collect()
    })
}

/// What the schemas say of a document: (valid under the level's schema,
/// valid under the any-level schema).
fn judge(level: &str, text: &str) -> (bool, bool) {
    let doc = load("t.yml", text);
    let valid = |l: Option<&str>| {
        let (_, v) = validators().iter().find(|(x, _)| *x == l).unwrap();
        v.is_valid(&doc)
    };
    (valid(Some(level)), valid(None))
}

#[test]
fn the_schema_refuses_an_unknown_freebsd_key_and_a_wrong_type() {
    // The baseline is valid, so each refusal below is the change's doing.
    assert_eq!(
        judge("host", "freebsd:\n  hostname: web01.example.org\n"),
        (true, true)
    );
    // An unknown key of freebsd (validation: beryl::schema::unknown_key).
    assert_eq!(
        judge("host", "freebsd:\n  hostnme: web01.example.org\n"),
        (false, false)
    );
    // Wrong types (validation: beryl::schema::type).
    assert_eq!(judge("host", "freebsd:\n  packages: vim\n"), (false, false));
    assert_eq!(
        judge(
            "host",
            "freebsd:\n  users:\n    - name: alice\n      uid: \"1001\"\n"
        ),
        (false, false)
    );
    assert_eq!(judge("host", "freebsd:\n  hostname: 42\n"), (false, false));
}

#[test]
fn the_schema_knows_the_other_rules_of_a_file() {
    let cases: &[(&str, &str, (bool, bool), &str)] = &[
        (
            "host",
            "freebsd:\n  users:\n    - uid: 1001\n",
            (false, false),
            "a user needs a name",
        ),
        (
            "host",
            "freebsd:\n  users:\n    - name: alice\n      sh: /bin/sh\n",
            (false, false),
            "unknown user key",
        ),
        (
            "host",
            "freebsd:\n  raid: raid5\n",
            (false, false),
            "not a layout",
        ),
        (
            "host",
            "freebsd:\n  hostname:\n",
            (false, false),
            "null is not a host name",
        ),
        (
            "host",
            "freebsd:\n  sshd: {permit_root_login: without-password}\n",
            (false, false),
            "not a PermitRootLogin word",
        ),
        (
            "host",
            "freebsd:\n  sshd: {permit_root_login: false, password_authentication: \"no\"}\n",
            (true, true),
            "booleans and yes/no",
        ),
        (
            "host",
            "freebsd:\n  network:\n    interfaces:\n      vtnet0: {}\n",
            (false, false),
            "an interface needs ipv4 or ipv6",
        ),
        (
            "host",
            "freebsd:\n  rc_conf: {ntpd_enable: true, ntpd_flags: -g, kern_securelevel: 1}\n",
            (true, true),
            "rc.conf scalars",
        ),
        (
            "host",
            "freebsd:\n  rc_conf: {ntpd_flags: [-g]}\n",
            (false, false),
            "an rc.conf value is a scalar",
        ),
        (
            "host",
            "freebsd:\n  version: \"15.0\"\n  swap: 0\n",
            (true, true),
            "version and swap",
        ),
        // References stand for any value, with its type.
        (
            "host",
            "freebsd:\n  users:\n    - name: alice\n      uid: ${site.uid}\n",
            (true, true),
            "a whole reference",
        ),
        (
            "host",
            "freebsd:\n  packages: ${site.packages}\n",
            (true, true),
            "a whole reference to a list",
        ),
        // Key prefixes (docs/merge.md §5) name the same keys.
        (
            "host",
            "freebsd:\n  ~disks: [ada0]\n  =timezone: UTC\n",
            (true, true),
            "prefixed keys",
        ),
        (
            "host",
            "freebsd:\n  ~diks: [ada0]\n",
            (false, false),
            "a prefixed unknown key",
        ),
        (
            "host",
            "freebsd:\n  ~packages: vim\n",
            (false, false),
            "a prefixed key keeps its type",
        ),
        (
            "host",
            "~merge: {a: deep}\n",
            (false, false),
            "the merge table takes no prefix",
        ),
        // Free-form keys stay open.
        (
            "host",
            "site: {anything: [1, {x: y}]}\npostgres: 16\n",
            (true, true),
            "free-form keys",
        ),
        // The root keys of levels.
        (
            "host",
            "ssh_keys: [ops]\n",
            (false, true),
            "ssh_keys outside _domain.yml",
        ),
        (
            "default",
            "ssh_keys: [ops]\n",
            (false, true),
            "ssh_keys outside _domain.yml",
        ),
        (
            "domain",
            "ssh_keys: [ops]\n",
            (true, true),
            "the domain keys",
        ),
        (
            "domain",
            "=ssh_keys: [ops]\n",
            (true, true),
            "prefixed domain keys",
        ),
        (
            "domain",
            "site: {a: 1}\n",
            (false, true),
            "_domain.yml needs ssh_keys",
        ),
        (
            "domain",
            "ssh_keys: []\n",
            (false, false),
            "the domain keys are not empty",
        ),
        (
            "host",
            "_beryl_: {fqdn: x}\n",
            (false, false),
            "_beryl_ is computed",
        ),
        (
            "host",
            "classes: [web, roles.backup]\nexports: {ip: 192.0.2.1}\n",
            (true, true),
            "classes and exports",
        ),
        (
            "host",
            "classes: web\n",
            (false, false),
            "classes is a list",
        ),
        (
            "host",
            "~classes: [web]\n",
            (false, false),
            "the class list takes no prefix",
        ),
        // Merge tables.
        (
            "default",
            "merge:\n  freebsd.packages: unique\n  a: {merge: deep}\n  b: {merge: {strategy: deep, knockout_prefix: \"--\"}}\n  c: {strategy: by_key, key: id}\n  d: {strategy: append, knockout_prefix: null}\n",
            (true, true),
            "the three spec forms",
        ),
        (
            "default",
            "merge:\n  a: deeep\n",
            (false, false),
            "an unknown strategy",
        ),
        (
            "default",
            "merge:\n  a: {strategy: hash, knockout_prefix: --}\n",
            (false, false),
            "an option the strategy does not take",
        ),
        (
            "default",
            "merge:\n  a: {knockout_prefix: --}\n",
            (false, false),
            "a spec mapping without strategy",
        ),
        (
            "default",
            "merge:\n  a: {strategy: deep, merge_hash_arrays: \"yes\"}\n",
            (false, false),
            "a bool option",
        ),
        (
            "default",
            "merge: [deep]\n",
            (false, false),
            "a table is a mapping",
        ),
    ];
    let mut wrong = Vec::new();
    for (level, text, expected, what) in cases {
        let got = judge(level, text);
        if got != *expected {
            wrong.push(format!(
                "{what} ({level}): expected {expected:?}, got {got:?}\n{text}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every uid of FreeBSD's own master.passwd (../shared/freebsd/etc, from
/// freebsd-src @e4452d45) is refused to a user of the inventory, naming an
/// account that has it: beryl's table (src/freebsd/base.rs) is held to the
/// file, not to itself.
#[test]
fn every_base_account_uid_is_refused() {
    let Some(shared) = crate::support::shared("every_base_account_uid_is_refused") else {
        return;
    };
    let text = std::fs::read_to_string(shared.join("freebsd/etc/master.passwd")).unwrap();
    let mut accounts: Vec<(String, u32)> = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split(':').collect();
        accounts.push((f[0].to_string(), f[2].parse().unwrap()));
    }
    let mut uids: Vec<u32> = accounts.iter().map(|(_, u)| *u).collect();
    uids.sort();
    uids.dedup();
    let dir = tempfile::tempdir().unwrap();
    crate::support::copy_tree(&repo().join("tests/fixtures/base"), dir.path());
    let users: String = uids
        .iter()
        .map(|u| format!("    - name: u{u}\n      uid: {u}\n      shell: /bin/sh\n"))
        .collect();
    std::fs::write(
        dir.path().join("inventory/example.org/web/host01.yml"),
        format!("freebsd:\n  hostname: host01.example.org\n  users:\n{users}"),
    )
    .unwrap();
    let run = beryl(dir.path(), &crate::support::args(&["check"]));
    assert_eq!(run.status, 2, "{}", run.stderr);
    for uid in &uids {
        let named = accounts.iter().filter(|(_, u)| u == uid).any(|(n, _)| {
            run.stderr
                .contains(&format!("has uid {uid}, the uid of the base account `{n}`"))
        });
        assert!(named, "uid {uid} was not refused:\n{}", run.stderr);
    }
    assert!(uids.len() >= 20, "only {} uids read", uids.len());
}
