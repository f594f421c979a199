//! Who may read a file's secrets comes from the inventory (issue 37): the
//! keys of every domain whose hosts read the file, and a host's own SSH
//! host key for its own file (a jail's file: its host's), gathered from
//! its facts by `beryl secrets host-keys`. `beryl check` holds every file
//! to that list: a missing recipient or an unknown host key fails it, a
//! recipient the inventory does not name is a warning; `beryl secrets
//! rekey` without `--recipient` puts it right.
//!
//! Needs ssh-keygen and age-keygen; skips with a notice without them,
//! unless BERYL_REQUIRE_TOOLS is set.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::support::{
    Run, age_key, args, beryl, beryl_with_env, copy_tree, key_pair, operator_key, repo, tools,
};

/// The example inventory and keys in `root`, with an operator key in each
/// domain (`org`, `net`) and host01's host key on record.
fn inventory(root: &Path) -> (std::path::PathBuf, String) {
    copy_tree(&repo().join("inventory"), &root.join("inventory"));
    copy_tree(&repo().join("ssh"), &root.join("ssh"));
    let org = operator_key(root, "org", "inventory/example.org/_domain.yml");
    operator_key(root, "net", "inventory/example.net/_domain.yml");
    let host = key_pair(root, "host01_key");
    fs::create_dir_all(root.join("ssh/hosts")).unwrap();
    fs::write(
        root.join("ssh/hosts/host01.example.org.pub"),
        format!("{host}\n"),
    )
    .unwrap();
    (org, host)
}

/// `TYPE BASE64` of each key line of a public key file.
fn keys_of(file: &Path) -> Vec<String> {
    fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(bare)
        .collect()
}

fn bare(line: &str) -> String {
    let f: Vec<&str> = line.split_whitespace().collect();
    let at = f.iter().position(|w| w.starts_with("ssh-")).unwrap();
    format!("{} {}", f[at], f[at + 1])
}

/// The recipients a file is wrapped to.
fn recipients(file: &Path) -> BTreeSet<String> {
    fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- recipient: "))
        .map(|r| match r.starts_with("age1") {
            true => r.to_string(),
            false => bare(r),
        })
        .collect()
}

fn set(root: &Path, file: &str, place: &str, extra: &[&str]) -> Run {
    let mut a = vec!["secrets", "set", file, place];
    a.extend(extra);
    beryl_with_env(root, &args(&a), &[], Some("s3cret-value"))
}

#[test]
fn each_file_is_wrapped_to_the_keys_of_those_who_read_it() {
    if !tools(
        &["ssh-keygen", "age-keygen"],
        "each_file_is_wrapped_to_the_keys_of_those_who_read_it",
    ) {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    let (org, host) = inventory(root);
    let ssh = root.join("ssh");
    let org_keys: Vec<String> = ["org.pub", "ops.pub", "oncall.pub"]
        .iter()
        .flat_map(|f| keys_of(&ssh.join(f)))
        .collect();
    let net_keys: Vec<String> = {
        let mut k = keys_of(&ssh.join("net.pub"));
        k.extend(keys_of(&ssh.join("ops.pub")));
        k.push(bare(
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIC+E782IMuf/RrC6QmJgsNb79QKft21GOEy+EtCbtpVV",
        ));
        k
    };
    let set_of = |keys: &[&[String]]| -> BTreeSet<String> {
        keys.iter().flat_map(|k| k.iter().cloned()).collect()
    };
    let host_key = vec![bare(&host)];
    // (file, its recipients): _default is read by both domains; a group, a
    // class only the web group names, and a host file by example.org's
    // hosts, the host's file and its jail's file also by host01's key.
    let cases: [(&str, BTreeSet<String>); 5] = [
        ("inventory/_default.yml", set_of(&[&org_keys, &net_keys])),
        ("inventory/example.org/db/_group.yml", set_of(&[&org_keys])),
        ("inventory/_classes/roles/web.yml", set_of(&[&org_keys])),
        (
            "inventory/example.org/web/host01.yml",
            set_of(&[&org_keys, &host_key]),
        ),
        (
            "inventory/example.org/web/host01.jails/www.yml",
            set_of(&[&org_keys, &host_key]),
        ),
    ];
    for (file, want) in &cases {
        let r = set(root, file, "site.secret_value", &[]);
        assert_eq!(r.status, 0, "{file}: {}", r.stderr);
        assert!(r.stderr.is_empty(), "{file}: {}", r.stderr);
        assert_eq!(&recipients(&root.join(file)), want, "{file}");
    }
    let r = beryl(root, &args(&["check"]));
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    let id = org.to_str().unwrap();
    let r = beryl(root, &args(&["secrets", "check", "--identity", id]));
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout
            .matches("recipients as the inventory expects: values and MAC verified")
            .count(),
        5,
        "{}",
        r.stdout
    );

    // A file wrapped to a key the inventory does not name, and not to its
    // own: `check` fails, names who is missing, and warns of the stranger.
    let (age, public) = age_key(root, "stranger.txt");
    let group = "inventory/example.org/web/_group.yml";
    let r = set(root, group, "site.other", &["--recipient", &public]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let r = beryl(root, &args(&["check"]));
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    for want in [
        "beryl::secrets::recipients",
        "org (ssh/org.pub:1)",
        "beryl::secrets::extra_recipient",
        &public,
        "beryl secrets rekey",
    ] {
        assert!(r.stderr.contains(want), "{want}: {}", r.stderr);
    }
    // rekey without --recipient: to the inventory's; then nothing to do.
    let a = age.to_str().unwrap();
    let r = beryl(root, &args(&["secrets", "rekey", group, "--identity", a]));
    assert_eq!(
        (r.status, r.stdout.as_str()),
        (0, format!("{group}\n").as_str()),
        "{}",
        r.stderr
    );
    assert_eq!(recipients(&root.join(group)), set_of(&[&org_keys]));
    let r = beryl(root, &args(&["secrets", "rekey", "--identity", id]));
    assert_eq!((r.status, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    let r = beryl(root, &args(&["check"]));
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);

    // An operator taken out of example.net: still a recipient of
    // _default.yml, a warning until rekey drops the key.
    let domain = root.join("inventory/example.net/_domain.yml");
    let text = fs::read_to_string(&domain).unwrap();
    fs::write(&domain, text.replacen("  - net\n", "", 1)).unwrap();
    let r = beryl(root, &args(&["check", "--deny-warnings"]));
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("beryl::secrets::extra_recipient"),
        "{}",
        r.stderr
    );
    let r = beryl(root, &args(&["secrets", "rekey", "--identity", id]));
    assert_eq!(r.stdout, "inventory/_default.yml\n", "{}", r.stderr);
    let r = beryl(root, &args(&["check", "--deny-warnings"]));
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);

    // A host without a known key: its file is set with a warning, and
    // `check` fails closed, with the command that gathers the key.
    let r = set(root, "inventory/example.org/web/host02.yml", "site.x", &[]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("beryl::secrets::incomplete"),
        "{}",
        r.stderr
    );
    let r = beryl(root, &args(&["check"]));
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("beryl::secrets::host_key")
            && r.stderr
                .contains("beryl facts --gather host02.example.org --out facts/"),
        "{}",
        r.stderr
    );
}

/// A snapshot of `fqdn` whose host key is `key`.
fn snapshot(dir: &Path, fqdn: &str, key: &str) {
    fs::create_dir_all(dir).unwrap();
    let json = serde_json::json!({"format_version": 5, "host": fqdn, "host_key": key});
    fs::write(dir.join(format!("{fqdn}.json")), json.to_string()).unwrap();
}

#[test]
fn host_keys_come_from_snapshots_and_a_changed_one_is_refused() {
    if !tools(
        &["ssh-keygen"],
        "host_keys_come_from_snapshots_and_a_changed_one_is_refused",
    ) {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    copy_tree(&repo().join("inventory"), &root.join("inventory"));
    copy_tree(&repo().join("ssh"), &root.join("ssh"));
    let facts = root.join("facts");
    let first = key_pair(root, "first");
    snapshot(&facts, "host02.example.org", &first);
    let on_record = root.join("ssh/hosts/host02.example.org.pub");
    let run = |extra: &[&str]| {
        let mut a = vec!["secrets", "host-keys", "--state-dir", "facts", "host02"];
        a.extend(extra);
        beryl(root, &args(&a))
    };
    let r = run(&[]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout.starts_with(
            "host02.example.org: added ssh/hosts/host02.example.org.pub (ssh-ed25519 SHA256:"
        ),
        "{}",
        r.stdout
    );
    assert_eq!(
        fs::read_to_string(&on_record).unwrap(),
        format!("{first}\n")
    );
    let r = run(&[]);
    assert!(r.stdout.contains("unchanged"), "{}", r.stdout);
    // Another key: refused, the one on record kept; --replace takes it.
    let second = key_pair(root, "second");
    snapshot(&facts, "host02.example.org", &second);
    let r = run(&[]);
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("host key changed"), "{}", r.stderr);
    assert_eq!(
        fs::read_to_string(&on_record).unwrap(),
        format!("{first}\n")
    );
    let r = run(&["--replace"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(r.stdout.contains("replaced"), "{}", r.stdout);
    assert_eq!(
        fs::read_to_string(&on_record).unwrap(),
        format!("{second}\n")
    );
    // A snapshot of another host, or with a key age cannot wrap to.
    snapshot(&facts, "host02.example.org", &second);
    let text = fs::read_to_string(facts.join("host02.example.org.json")).unwrap();
    fs::write(
        facts.join("host02.example.org.json"),
        text.replace("\"host02.example.org\"", "\"db01.example.org\""),
    )
    .unwrap();
    let r = run(&[]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains("not a snapshot of host02.example.org"),
        "{}",
        r.stderr
    );
    let ecdsa = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ecdsa", "-N", "", "-f"])
        .arg(root.join("ecdsa"))
        .status()
        .unwrap();
    assert!(ecdsa.success());
    let ecdsa = fs::read_to_string(root.join("ecdsa.pub")).unwrap();
    snapshot(&facts, "host02.example.org", ecdsa.trim());
    let r = run(&["--replace"]);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("not ssh-ed25519"), "{}", r.stderr);
    assert_eq!(
        fs::read_to_string(&on_record).unwrap(),
        format!("{second}\n")
    );
}
