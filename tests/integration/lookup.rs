//! `beryl lookup` on tests/fixtures/lookup/: each step of Hiera's choice of
//! merge, knockouts, defaults, `lookup_options` layered across levels and
//! affecting `render`, empty levels, several hosts, the output formats, and
//! the exit codes. Whole outputs are compared.
//!
//! The fixture: `_default.yml` (lookup_options `site: deep`, `^ports:
//! unique` sorted, `motd: first`, `limits: hash`; merge `users.*.groups:
//! append`), `example.org/_domain.yml` (lookup_options `motd: unique`), a
//! comment-only `web/_group.yml`, the class `roles.web`, and hosts host01
//! (the class, most data), host02 and an empty host03.

use crate::support::{args, beryl, fixture, write};

/// Runs `beryl lookup …` in the fixture: (status, stdout, stderr).
fn lookup(a: &[&str]) -> (i32, String, String) {
    let dir = fixture("lookup");
    let mut all = vec!["lookup"];
    all.extend_from_slice(a);
    let r = beryl(dir.path(), &args(&all));
    (r.status, r.stdout, r.stderr)
}

/// Found: exit 0, this stdout, nothing on stderr.
fn found(a: &[&str], want: &str) {
    let (status, out, err) = lookup(a);
    assert_eq!((status, out.as_str(), err.as_str()), (0, want, ""), "{a:?}");
}

#[test]
fn step_1_an_explicit_merge_beats_every_rule_at_the_key_and_below() {
    // No rule for ntp: `first` gives the domain's ntp whole; --merge deep
    // folds every level.
    found(
        &["ntp", "--node", "host01", "--merge", "deep"],
        "---\nservers:\n- a.pool\n- b.pool\n- c.pool\niburst: true\n",
    );
    // `^ports` says unique (sorted); --merge first takes the class's list.
    found(
        &["ports_web", "--node", "host01", "--merge", "first"],
        "---\n- 443\n- 80\n",
    );
    // `users.*.groups: append` is below the key: --merge default ignores
    // it, so alice's groups are replaced, where the rule appends.
    found(
        &["users", "--node", "host01", "--merge", "default"],
        "---\nalice:\n  groups:\n  - operator\n",
    );
    found(
        &["users.alice.groups", "--node", "host01"],
        "---\n- wheel\n- operator\n",
    );
}

#[test]
fn step_2_an_exact_rule_and_its_root_key_for_a_dotted_key() {
    // lookup_options `site: {merge: deep}`: lists are unioned.
    found(
        &["site.dns", "--node", "host01"],
        "---\nsearch:\n- example.org\n- web.example.org\nservers:\n- \"10.0.0.1\"\n- \"10.0.0.2\"\n",
    );
    // `limits: {merge: hash}`: host02's nofile wins, nproc stays; a dotted
    // key reads what the hash merge gave.
    found(
        &["limits", "--node", "host02"],
        "---\nnofile: 4096\nnproc: 64\n",
    );
    found(&["limits.nproc", "--node", "host02"], "--- 64\n");
    let (status, out, _) = lookup(&["limits.nproc", "--node", "host02", "--explain"]);
    assert_eq!(status, 0);
    assert!(
        out.ends_with("lookup limits.nproc: read in `limits` as merged by `hash`, the rule `limits` (inventory/_default.yml:8)\n--- 64\n"),
        "{out}"
    );
}

#[test]
fn step_3_a_regex_rule() {
    // `^ports: {merge: {strategy: unique, sort_merged_arrays: true}}`.
    found(&["ports_web", "--node", "host01"], "---\n- 80\n- 443\n");
}

#[test]
fn step_4_otherwise_first() {
    // The domain is the highest level that writes ntp: its value, whole.
    found(&["ntp", "--node", "host01"], "---\nservers:\n- c.pool\n");
    // A dotted key: the highest level that writes ntp.iburst.
    found(&["ntp.iburst", "--node", "host01"], "--- true\n");
    found(&["pkgs", "--node", "host01"], "---\n- --nano\n- curl\n");
    // host02's `note` reads ntp.servers.0, which this fold lacks: only what
    // the value reads is resolved, so the lookup is not an error.
    found(&["ntp", "--node", "host02"], "---\niburst: false\n");
    found(&["note", "--node", "host02"], "--- first server c.pool\n");
}

#[test]
fn knockouts() {
    found(
        &[
            "pkgs",
            "--node",
            "host01",
            "--merge",
            "deep",
            "--knock-out-prefix=--",
        ],
        "---\n- vim\n- nginx\n- curl\n",
    );
    // Checked like a written spec: hash takes no prefix (Puppet's flag name).
    let (status, out, err) = lookup(&[
        "pkgs",
        "--node",
        "host01",
        "--merge",
        "hash",
        "--knock-out-prefix=--",
    ]);
    assert_eq!((status, out.as_str()), (2, ""));
    assert!(
        err.contains("--knock-out-prefix: the `hash` strategy takes no `knockout_prefix` option"),
        "{err}"
    );
}

#[test]
fn lookup_options_are_layered_with_hash() {
    // _default says `motd: first`, the domain `motd: unique`: the higher
    // level's entry wins, and references resolve as in render.
    found(
        &["motd", "--node", "host01"],
        "---\n- Hello from host01\n- Welcome\n",
    );
    // lookup_options is a table, never data.
    let (status, out, err) = lookup(&["lookup_options", "--node", "host01"]);
    assert_eq!(
        (status, out.as_str(), err.as_str()),
        (1, "", "not found: lookup_options\n")
    );
}

#[test]
fn defaults() {
    let (status, out, err) = lookup(&["nope", "--node", "host01"]);
    assert_eq!(
        (status, out.as_str(), err.as_str()),
        (1, "", "not found: nope\n")
    );
    // Interpolated against the host.
    found(
        &[
            "nope",
            "--node",
            "host01",
            "--default",
            "on ${_beryl_.fqdn}",
        ],
        "--- on host01.example.org\n",
    );
    // YAML: a null default is a value; a found value beats the default.
    found(&["nope", "--node", "host01", "--default", "~"], "---\n");
    found(
        &["nope", "--node", "host01", "--default", "[1, 2]"],
        "---\n- 1\n- 2\n",
    );
    found(
        &["ntp.iburst", "--node", "host02", "--default", "x"],
        "--- false\n",
    );
    // The values hash: by the root key, dug into, returned as written.
    found(
        &[
            "nope",
            "--node",
            "host01",
            "--default-values-hash",
            "values.yml",
        ],
        "---\nfrom: values\nref: ${_beryl_.fqdn}\n",
    );
    found(
        &[
            "nope.from",
            "--node",
            "host01",
            "--default-values-hash",
            "values.yml",
        ],
        "--- values\n",
    );
    // Only without --default.
    found(
        &[
            "nope",
            "--node",
            "host01",
            "--default-values-hash",
            "values.yml",
            "--default",
            "d",
        ],
        "--- d\n",
    );
}

#[test]
fn empty_levels_are_no_data() {
    // host03.yml is empty and web/_group.yml only comments: the domain is
    // the highest level that writes ntp.
    found(&["ntp", "--node", "host03"], "---\nservers:\n- c.pool\n");
    found(&["motd", "--node", "host03"], "---\n- Welcome\n");
}

#[test]
fn several_hosts_print_a_mapping_by_fqdn() {
    found(
        &["ntp", "--node", "example.org/web/", "--render-as", "json"],
        "{\"host01.example.org\":{\"servers\":[\"c.pool\"]},\"host02.example.org\":{\"iburst\":false},\"host03.example.org\":{\"servers\":[\"c.pool\"]}}\n",
    );
    found(
        &["limits", "--node", "host02", "--node", "host01"],
        "---\nhost01.example.org:\n  nofile: 1024\n  nproc: 64\nhost02.example.org:\n  nofile: 4096\n  nproc: 64\n",
    );
    // Hosts without the key are left out, each named on stderr: exit 1.
    let (status, out, err) = lookup(&["ntp.iburst", "--node", "example.org/web/"]);
    assert_eq!(
        (status, out.as_str(), err.as_str()),
        (
            0,
            "---\nhost01.example.org: true\nhost02.example.org: false\nhost03.example.org: true\n",
            ""
        )
    );
    let (status, out, err) = lookup(&["nope", "--node", "example.org/web/"]);
    assert_eq!(
        (status, out.as_str(), err.as_str()),
        (
            1,
            "--- {}\n",
            "not found: nope on host01.example.org\nnot found: nope on host02.example.org\nnot found: nope on host03.example.org\n"
        )
    );
}

#[test]
fn render_as() {
    found(
        &["site.dns.search", "--node", "host01", "--render-as", "s"],
        "[\"example.org\", \"web.example.org\"]\n",
    );
    found(
        &["motd", "--node", "host02", "--render-as", "json"],
        "[\"Welcome\"]\n",
    );
    found(
        &["site.name", "--node", "host02", "--render-as", "s"],
        "fleet\n",
    );
}

#[test]
fn explain_adds_the_choice_to_explains_report() {
    let (status, out, _) = lookup(&["limits", "--node", "host02", "--explain"]);
    assert_eq!(status, 0);
    let dir = fixture("lookup");
    let report = beryl(dir.path(), &args(&["explain", "host02", "limits"])).stdout;
    assert_eq!(
        out,
        format!(
            "{report}\nlookup limits: merged by `hash`, the rule `limits` (inventory/_default.yml:8)\n---\nnofile: 4096\nnproc: 64\n"
        )
    );
}

/// A lookup reads data: a host whose `freebsd` does not validate is looked
/// up, and --explain gives the lookup's line without explain's report.
#[test]
fn a_host_that_does_not_validate_is_looked_up() {
    let dir = fixture("lookup");
    write(
        &dir.path().join("inventory/example.org/web/host02.yml"),
        "freebsd: {bogus: 1}\n",
    );
    assert_ne!(beryl(dir.path(), &args(&["render", "host02"])).status, 0);
    let r = beryl(
        dir.path(),
        &args(&["lookup", "freebsd", "--node", "host02", "--explain"]),
    );
    assert_eq!(
        (r.status, r.stdout.as_str()),
        (
            0,
            "lookup freebsd: merged by `first` (no rule for the path): the highest level that writes it wins\n---\nbogus: 1\n"
        )
    );
}

/// lookup_options is a merge table for `render` too, and never rendered.
#[test]
fn render_merges_by_lookup_options_and_hides_them() {
    let dir = fixture("lookup");
    let r = beryl(dir.path(), &args(&["render", "host01", "--format", "json"]));
    assert_eq!(r.status, 0, "{}", r.stderr);
    let config: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(config.get("lookup_options").is_none());
    assert!(config.get("merge").is_none());
    // `site: deep` unions the lists that `default` would replace.
    assert_eq!(
        config["site"]["dns"]["servers"],
        serde_json::json!(["10.0.0.1", "10.0.0.2"])
    );
    assert_eq!(
        config["motd"],
        serde_json::json!(["Hello from host01", "Welcome"])
    );
}
