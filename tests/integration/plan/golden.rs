//! Golden files: `beryl plan HOST` and `beryl plan HOST --format json` for
//! every example host, byte for byte against tests/golden/plan/<fqdn>.sh and
//! <fqdn>.json. They are the reviewed spec of the output; with
//! `BERYL_UPDATE_GOLDEN=1` the test rewrites them instead (review the diff).

use std::path::PathBuf;

use super::{example_plan, split};
use crate::support::{example_hosts, repo};

fn golden_dir() -> PathBuf {
    repo().join("tests/golden/plan")
}

#[test]
fn example_plans_match_the_golden_files() {
    let update = std::env::var_os("BERYL_UPDATE_GOLDEN").is_some_and(|v| v == "1");
    let dir = golden_dir();
    if update {
        std::fs::create_dir_all(&dir).unwrap();
    }
    let mut expected_files = Vec::new();
    let mut failures = Vec::new();
    for fqdn in example_hosts() {
        for (json, ext) in [(false, "sh"), (true, "json")] {
            let text = example_plan(&fqdn, json);
            let name = format!("{fqdn}.{ext}");
            let path = dir.join(&name);
            expected_files.push(name.clone());
            if update {
                std::fs::write(&path, &text).unwrap();
                continue;
            }
            match std::fs::read_to_string(&path) {
                Ok(golden) if golden == text => {}
                Ok(golden) => failures.push(format!(
                    "{name} differs from `beryl plan {fqdn}{}`:\n{}",
                    if json { " --format json" } else { "" },
                    first_difference(&golden, &text)
                )),
                Err(e) => failures.push(format!("{}: {e}", path.display())),
            }
        }
    }
    // No golden file for a host that is gone.
    let mut present: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    present.sort();
    for name in present {
        if !expected_files.contains(&name) {
            if update {
                std::fs::remove_file(dir.join(&name)).unwrap();
            } else {
                failures.push(format!("{name}: no example host makes this file"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n\nIf the change is intended, run BERYL_UPDATE_GOLDEN=1 cargo test --test integration plan::golden and review the diff.",
        failures.join("\n\n")
    );
}

/// The first differing line, with its number.
fn first_difference(golden: &str, actual: &str) -> String {
    let (g, a): (Vec<&str>, Vec<&str>) = (golden.lines().collect(), actual.lines().collect());
    for i in 0..g.len().max(a.len()) {
        let (x, y) = (g.get(i), a.get(i));
        if x != y {
            return format!(
                "line {}:\n  golden: {}\n  actual: {}",
                i + 1,
                x.map_or("(end)".into(), |s| format!("{s:?}")),
                y.map_or("(end)".into(), |s| format!("{s:?}"))
            );
        }
    }
    "(the line endings differ)".into()
}

/// The two views agree: the JSON steps' `commands`, in order, are exactly
/// the setup script's body, and its preamble values are the exports.
#[test]
fn json_and_script_are_the_same_plan() {
    for fqdn in example_hosts() {
        let text = example_plan(&fqdn, false);
        let plan: serde_json::Value = serde_json::from_str(&example_plan(&fqdn, true)).unwrap();
        let (preamble, setup) = split(&text);
        for var in plan["preamble"].as_array().unwrap() {
            let (name, value) = (
                var["name"].as_str().unwrap(),
                var["value"].as_str().unwrap(),
            );
            let line = format!("export {name}={}\n", beryl::shell::quote(value).unwrap());
            assert!(
                preamble.contains(&line),
                "{fqdn}: no `{line}` in\n{preamble}"
            );
        }
        for link in plan["links"].as_array().unwrap() {
            let line = match link["type"].as_str().unwrap() {
                "dhcp" => format!("dhclient {}\n", link["interface"].as_str().unwrap()),
                _ => format!(
                    "ifconfig {} inet {}\n",
                    link["interface"].as_str().unwrap(),
                    link["cidr"].as_str().unwrap()
                ),
            };
            assert!(
                preamble.contains(&line),
                "{fqdn}: no `{line}` in\n{preamble}"
            );
        }
        for disk in plan["disks"].as_array().unwrap() {
            let line = format!(
                "gpart destroy -F {} 2>/dev/null || :\n",
                disk.as_str().unwrap()
            );
            assert!(
                preamble.contains(&line),
                "{fqdn}: no `{line}` in\n{preamble}"
            );
        }
        let mut body = String::new();
        for step in plan["steps"].as_array().unwrap() {
            body.push('\n');
            body.push_str(step["commands"].as_str().unwrap());
        }
        // The record of what the install created (src/apply/prune.rs).
        let records: Vec<String> = plan["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                beryl::shell::quote(r.as_str().unwrap())
                    .unwrap()
                    .into_owned()
            })
            .collect();
        if !records.is_empty() {
            body.push_str(&format!(
                "\n# What the install created, for apply to prune once it leaves the config.\nmkdir -p /var/db/beryl\nprintf '%s\\n' {} >> /var/db/beryl/managed\n",
                records.join(" ")
            ));
        }
        let summary = plan["summary"].as_str().unwrap();
        let tail = format!(
            "{body}\nprintf '%s\\n' {}\n",
            beryl::shell::quote(summary).unwrap()
        );
        assert!(
            setup.ends_with(&tail),
            "{fqdn}: the setup script is not its steps' commands in order:\n{setup}\n---\n{tail}"
        );
        let head = &setup[..setup.len() - tail.len()];
        assert_eq!(
            head,
            "#!/bin/sh\n\
             # The setup script: runs in the new system (chroot) once base is installed.\n\
             # A failing command stops the install. It inherits the installer's boot-time\n\
             # PATH, which lacks /usr/local: it sets its own.\n\
             set -eu\n\
             PATH=/sbin:/bin:/usr/sbin:/usr/bin:/usr/local/sbin:/usr/local/bin\n\
             export PATH\n",
            "{fqdn}"
        );
        assert_eq!(plan["host"], fqdn.as_str());
        assert_eq!(plan["format_version"], 2);
    }
}
