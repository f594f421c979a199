//! `beryl reclass` and the other commands on a reclass inventory as it is
//! (issue 19). tests/fixtures/reclass/basic is our own small inventory; the
//! snapshots of its `--nodeinfo` outputs were checked equal, key order
//! included, to what kapicorp-reclass 2.0.0 prints for it (run through its
//! Python API with the fixture's reclass-config.yml, timestamp fixed).

use crate::support::{Run, args, beryl, fixture, write};

fn nodeinfo(node: &str) -> (Vec<String>, Run) {
    let dir = fixture("reclass/basic");
    let a = args(&[
        "reclass",
        "-b",
        ".",
        "--nodeinfo",
        node,
        "-o",
        "json",
        "--timestamp",
        "T",
    ]);
    let run = beryl(dir.path(), &a);
    (a, run)
}

#[test]
fn nodeinfo_of_a_nested_dotted_node() {
    let (a, run) = nodeinfo("web01.example.org");
    assert_eq!(run.status, 0, "{}", run.stderr);
    insta::assert_snapshot!(run.transcript(&a));
}

#[test]
fn nodeinfo_with_a_regex_class_mapping() {
    let (a, run) = nodeinfo("db01");
    assert_eq!(run.status, 0, "{}", run.stderr);
    // A class's unknown top-level key is a warning, as reclass ignores it.
    assert!(
        run.stderr.contains("beryl::classes::unknown_key"),
        "{}",
        run.stderr
    );
    insta::assert_snapshot!(run.transcript(&a));
}

#[test]
fn inventory_indexes_classes_and_applications() {
    let dir = fixture("reclass/basic");
    let a = args(&[
        "reclass",
        "-b",
        ".",
        "--inventory",
        "-o",
        "json",
        "--timestamp",
        "T",
    ]);
    let run = beryl(dir.path(), &a);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["__reclass__", "nodes", "classes", "applications"]);
    assert_eq!(
        v["classes"]["common"],
        serde_json::json!(["db01", "web01.example.org"])
    );
    assert_eq!(
        v["applications"]["nginx"],
        serde_json::json!(["web01.example.org"])
    );
    assert_eq!(v["nodes"]["db01"]["classes"][0], "role.db");
    // The hidden folder's node is not walked.
    assert!(v["nodes"].get("ignored").is_none());
}

#[test]
fn yaml_output_sorts_keys() {
    let dir = fixture("reclass/basic");
    let a = args(&["reclass", "-b", ".", "-n", "db01", "--timestamp", "T"]);
    let run = beryl(dir.path(), &a);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let at = |k: &str| run.stdout.find(&format!("\n{k}:")).unwrap();
    assert!(at("applications") < at("classes") && at("classes") < at("parameters"));
}

#[test]
fn render_and_check_work_on_a_reclass_root() {
    let dir = fixture("reclass/basic");
    let run = beryl(dir.path(), &args(&["render", "db01", "-i", "."]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("db: true\n"), "{}", run.stdout);
    let run = beryl(dir.path(), &args(&["check", "-i", "."]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("checked 2 hosts: ok, 2 warnings"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_missing_class_is_an_error_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("classes/a.yml"), "parameters: {x: 1}\n");
    write(
        &dir.path().join("nodes/n1.yml"),
        "classes:\n  - a\n  - nope\n",
    );
    let a = args(&["reclass", "-b", ".", "-n", "n1", "-o", "json"]);
    let run = beryl(dir.path(), &a);
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains("beryl::classes::not_found"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("nodes/n1.yml:3:5"), "{}", run.stderr);
    // -z (which takes a value in reclass) skips it, and the name stays listed.
    let a = args(&["reclass", "-b", ".", "-n", "n1", "-o", "json", "-z", "yes"]);
    let run = beryl(dir.path(), &a);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["classes"], serde_json::json!(["a", "nope"]));
}

#[test]
fn duplicate_nodes_name_both_files() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("classes/a.yml"), "");
    write(&dir.path().join("nodes/x/n1.yml"), "");
    write(&dir.path().join("nodes/y/n1.yml"), "");
    let run = beryl(dir.path(), &args(&["reclass", "-b", ".", "--inventory"]));
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains("beryl::reclass::duplicate_node"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("by nodes/x/n1.yml and by nodes/y/n1.yml"),
        "{}",
        run.stderr
    );
    // With compose_node_name the names differ.
    let run = beryl(
        dir.path(),
        &args(&["reclass", "-b", ".", "-a", "-n", "x.n1"]),
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
}

/// `--input-data` merges above the class mappings' classes and below
/// `_reclass_` (kapicorp `core.py:222-226`; kapicorp 2.0's own input data
/// path fails with a TypeError, so this order is read from its code).
#[test]
fn input_data_merges_between_class_mappings_and_reclass() {
    let dir = fixture("reclass/basic");
    write(
        &dir.path().join("input.yml"),
        "mapped: false\n_reclass_: {environment: input}\npkgs: [input]\n",
    );
    let a = args(&[
        "reclass",
        "-b",
        ".",
        "-n",
        "web01.example.org",
        "-o",
        "json",
        "--input-data",
        "input.yml",
    ]);
    let run = beryl(dir.path(), &a);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let p = &v["parameters"];
    let keys: Vec<&String> = p.as_object().unwrap().keys().take(3).collect();
    assert_eq!(keys, ["mapped", "_reclass_", "pkgs"]);
    assert_eq!(p["mapped"], false);
    assert_eq!(p["_reclass_"]["environment"], "dev");
    assert_eq!(
        p["pkgs"],
        serde_json::json!(["input", "base", "nginx", "local"])
    );
}

/// A query sees the nodes of its node's environment under `--nodeinfo` (and
/// in beryl's own commands), every node when one of the node's queries says
/// `+AllEnvs`, and every node under `--inventory`. The expected answers are
/// kapicorp-reclass 2.0.0's for this inventory (`reclass -n NODE` and
/// `reclass --inventory`), except the order of the `if` lists: kapicorp
/// lists the hosts in directory order, beryl by name.
#[test]
fn queries_see_the_nodes_environment() {
    let dir = tempfile::tempdir().unwrap();
    let file = |rel: &str, text: &str| write(&dir.path().join(rel), text);
    file(
        "classes/monitor.yml",
        "parameters:\n  targets: $[ exports:ip ]\n  webs: $[ if exports:role == web ]\n",
    );
    file(
        "classes/global.yml",
        "parameters:\n  everyone: $[ +AllEnvs exports:ip ]\n",
    );
    let node = |name: &str, env: &str, classes: &str, ip: u8, role: &str| {
        file(
            &format!("nodes/{name}.yml"),
            &format!("{env}classes: [{classes}]\nexports: {{ip: 10.0.0.{ip}, role: {role}}}\n"),
        );
    };
    node("a", "environment: dev\n", "monitor", 1, "web");
    node("b", "environment: prod\n", "monitor", 2, "web");
    node("c", "environment: dev\n", "monitor, global", 3, "db");
    node("d", "", "monitor", 4, "web");
    let answers = |params: &serde_json::Value| {
        let targets: Vec<&String> = params["targets"].as_object().unwrap().keys().collect();
        let webs = params["webs"].as_array().unwrap().clone();
        format!("{targets:?} {webs:?}")
    };
    let nodeinfo = |name: &str| {
        let run = beryl(
            dir.path(),
            &args(&["reclass", "-b", ".", "-n", name, "-o", "json"]),
        );
        assert_eq!(run.status, 0, "{}", run.stderr);
        let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        answers(&v["parameters"])
    };
    assert_eq!(nodeinfo("a"), r#"["a", "c"] [String("a")]"#);
    assert_eq!(nodeinfo("b"), r#"["b"] [String("b")]"#);
    // `+AllEnvs` in one query opens every query of the node.
    let all = r#"["a", "b", "c", "d"] [String("a"), String("b"), String("d")]"#;
    assert_eq!(nodeinfo("c"), all);
    // No `environment:`: reclass's default, `base`.
    assert_eq!(nodeinfo("d"), r#"["d"] [String("d")]"#);
    // beryl's own commands see what `--nodeinfo` sees.
    let run = beryl(
        dir.path(),
        &args(&["render", "a", "-i", ".", "--format", "json"]),
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(answers(&v), r#"["a", "c"] [String("a")]"#);
    // `--inventory`: every environment, for every node.
    let run = beryl(
        dir.path(),
        &args(&["reclass", "-b", ".", "--inventory", "-o", "json"]),
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    for name in ["a", "b", "c", "d"] {
        assert_eq!(answers(&v["nodes"][name]["parameters"]), all, "{name}");
    }
}

/// A single-file inventory (tests/fixtures/reclass/single) gives every node
/// what the same documents give as files of a folder inventory, but the
/// `uri` (Ferroclass's `yaml_file://FILE#node:NAME`); kapicorp has no such
/// backend to compare with.
#[test]
fn a_single_file_inventory_is_its_folder_form() {
    let dir = fixture("reclass/single");
    let text = std::fs::read_to_string(dir.path().join("inventory.yml")).unwrap();
    let folders = tempfile::tempdir().unwrap();
    for doc in text.split("\n---\n").skip(2) {
        let mut lines: Vec<&str> = doc.lines().collect();
        let name = lines.remove(0).strip_prefix("name: ").unwrap().to_string();
        let node = lines.first() == Some(&"type: node");
        let rel = if node {
            lines.remove(0);
            format!("nodes/{name}.yml")
        } else {
            format!("classes/{}.yml", name.replace('.', "/"))
        };
        write(&folders.path().join(rel), lines.join("\n") + "\n");
    }
    let info = |base: &std::path::Path, b: &str, node: &str| {
        let run = beryl(
            base,
            &args(&[
                "reclass",
                "-b",
                b,
                "-n",
                node,
                "-o",
                "json",
                "--timestamp",
                "T",
            ]),
        );
        assert_eq!(run.status, 0, "{}", run.stderr);
        serde_json::from_str::<serde_json::Value>(&run.stdout).unwrap()
    };
    for node in ["web01", "web02"] {
        let mut single = info(dir.path(), "inventory.yml", node);
        let mut folder = info(folders.path(), ".", node);
        let uri = single["__reclass__"]["uri"].as_str().unwrap().to_string();
        assert!(
            uri.starts_with("yaml_file://") && uri.ends_with(&format!("inventory.yml#node:{node}")),
            "{uri}"
        );
        single["__reclass__"]["uri"] = serde_json::Value::Null;
        folder["__reclass__"]["uri"] = serde_json::Value::Null;
        assert_eq!(single, folder, "{node}");
    }
    let web01 = info(dir.path(), "inventory.yml", "web01");
    assert_eq!(
        web01["parameters"]["nginx"]["server_name"],
        "web01.example.org"
    );
    assert_eq!(web01["parameters"]["tls"]["mode"], 416);
    assert_eq!(
        web01["parameters"]["targets"],
        serde_json::json!({"web01": "10.0.0.1", "web02": "10.0.0.2"})
    );
    assert_eq!(
        web01["classes"],
        serde_json::json!(["common", "roles.tls", "roles.web", "monitoring"])
    );
}

/// beryl's own commands take the file as the inventory, with file:line
/// provenance into it.
#[test]
fn render_and_explain_read_a_single_file_inventory() {
    let dir = fixture("reclass/single");
    let run = beryl(
        dir.path(),
        &args(&["render", "web02", "-i", "inventory.yml", "--format", "json"]),
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["packages"], serde_json::json!(["curl", "nginx"]));
    let a = args(&["explain", "web01", "tls.mode", "-i", "inventory.yml"]);
    let run = beryl(dir.path(), &a);
    assert_eq!(run.status, 0, "{}", run.stderr);
    insta::assert_snapshot!(run.transcript(&a));
    let broken = tempfile::tempdir().unwrap();
    write(
        &broken.path().join("inv.yml"),
        "name: n\ntype: node\nparameters:\n  a: ${nope}\n---\nparameters: {}\n",
    );
    let a = args(&["reclass", "-b", "inv.yml", "--inventory"]);
    let run = beryl(broken.path(), &a);
    assert_eq!(run.status, 2);
    insta::assert_snapshot!(run.transcript(&a));
}
