//! The proof of issue 36 item 4 at fleet size: a generated inventory of
//! 1,000 hosts with 5 jails each (3 with address aliases, 2 VNET) and 20
//! seeded conflicts (IPv4 and IPv6 addresses and MACs, within a host's
//! jails and across hosts): `beryl check` reports each exactly once, as
//! one diagnostic at both places (the primary label at the second writer,
//! the related note at the first). Generated into a temporary directory;
//! `BERYL_JAIL_FLEET_HOSTS` sets another size (the conflicts need 100).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use crate::support::{args, beryl, fixture, write};

/// Where the seeded conflicts are: (code, host index, jail) that writes the
/// value first, and the one that writes it again.
struct Seed {
    code: &'static str,
    first: (usize, usize),
    second: (usize, usize),
}

/// 20 conflicts: 8 IPv4 across hosts, 4 IPv4 inside one host, 4 IPv6
/// across hosts, 4 MACs across hosts (VNET jails 4 and 5).
fn seeds(hosts: usize) -> Vec<Seed> {
    let far = hosts / 2;
    let mut out = Vec::new();
    for i in 0..8 {
        out.push(Seed {
            code: "beryl::jail::ip4_duplicate",
            first: (3 + 7 * i, 1),
            second: (3 + 7 * i + far, 2),
        });
    }
    for i in 0..4 {
        out.push(Seed {
            code: "beryl::jail::ip4_duplicate",
            first: (70 + i, 2),
            second: (70 + i, 3),
        });
    }
    for i in 0..4 {
        out.push(Seed {
            code: "beryl::jail::ip6_duplicate",
            first: (80 + i, 1),
            second: (80 + i + far, 3),
        });
    }
    for i in 0..4 {
        out.push(Seed {
            code: "beryl::jail::mac_duplicate",
            first: (90 + i, 4),
            second: (90 + i + far, 5),
        });
    }
    out
}

fn fqdn(h: usize) -> String {
    format!("h{h:04}.g{}.example.org", h % 10)
}

fn ip4(h: usize, j: usize) -> String {
    format!("10.{}.{}.{}", h / 250, h % 250, 10 + j)
}

fn ip6(h: usize, j: usize) -> String {
    format!("2001:db8:{h:x}::{j}")
}

/// Writes the fleet over the `base` fixture (its `_default.yml` and keys):
/// domains `g0.example.org` … `g9.example.org`, each host `hNNNN` with
/// interface em0 and bridge0, and its jails `j1`…`j5`.
fn generate(root: &Path, hosts: usize) {
    let inv = root.join("inventory");
    std::fs::remove_dir_all(inv.join("example.org")).unwrap();
    for d in 0..10 {
        write(
            &inv.join(format!("g{d}.example.org/_domain.yml")),
            "ssh_keys:\n  - ops\n",
        );
    }
    let seeds = seeds(hosts);
    // The value a jail writes instead of its own, for the second writers.
    let taken = |h: usize, j: usize| seeds.iter().find(|s| s.second == (h, j));
    for h in 0..hosts {
        let dom = inv.join(format!("g{}.example.org", h % 10));
        write(
            &dom.join(format!("h{h:04}.yml")),
            format!(
                "freebsd:\n  hostname: {}\n  network:\n    interfaces: {{em0: {{ipv4: {}/16}}}}\n    bridges: {{bridge0: {{members: [em0]}}}}\n",
                fqdn(h),
                format_args!("10.{}.{}.1", h / 250, h % 250),
            ),
        );
        for j in 1..=5 {
            let (mut a4, mut a6) = (ip4(h, j), ip6(h, j));
            let mut mac = format!("02:00:00:{:02x}:{:02x}:{j:02x}", h / 256, h % 256);
            if let Some(s) = taken(h, j) {
                let (fh, fj) = s.first;
                match s.code {
                    "beryl::jail::ip4_duplicate" => a4 = ip4(fh, fj),
                    "beryl::jail::ip6_duplicate" => a6 = ip6(fh, fj),
                    _ => mac = format!("02:00:00:{:02x}:{:02x}:{fj:02x}", fh / 256, fh % 256),
                }
            }
            let mut text = String::from("freebsd:\n  jail:\n    network:\n");
            write!(text, "      ip4: [{a4}/32]\n      ip6: [{a6}/64]\n").unwrap();
            if j > 3 {
                writeln!(
                    text,
                    "      vnet: {{bridge: bridge0, epair: {j}, mac: \"{mac}\"}}"
                )
                .unwrap();
            }
            write(&dom.join(format!("h{h:04}.jails/j{j}.yml")), text);
        }
    }
}

#[test]
fn a_thousand_hosts_with_five_jails_report_each_seeded_conflict_once_at_both_places() {
    let hosts = std::env::var("BERYL_JAIL_FLEET_HOSTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000usize)
        .max(200);
    let dir = fixture("base");
    generate(dir.path(), hosts);
    let run = beryl(dir.path(), &args(&["check", "--format", "json"]));
    assert_eq!(run.status, 2, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", &run.stderr[..run.stderr.len().min(3000)]));
    assert_eq!(report["summary"]["hosts"], hosts * 6);
    let diags = report["diagnostics"].as_array().unwrap();
    // Nothing but the seeded conflicts.
    let codes: BTreeSet<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert!(codes.iter().all(|c| c.ends_with("_duplicate")), "{codes:?}");
    assert_eq!(
        diags.len(),
        20,
        "{:#?}",
        diags.iter().map(|d| &d["message"]).collect::<Vec<_>>()
    );
    let file = |(h, j): (usize, usize)| {
        format!("inventory/g{}.example.org/h{h:04}.jails/j{j}.yml", h % 10)
    };
    for s in seeds(hosts) {
        let (first, second) = (file(s.first), file(s.second));
        let found: Vec<_> = diags
            .iter()
            .filter(|d| d["code"] == s.code && d["file"] == second.as_str())
            .collect();
        assert_eq!(found.len(), 1, "{} at {second}: {found:#?}", s.code);
        let d = found[0];
        let related = d["related"].as_array().unwrap();
        assert!(
            related.iter().any(|r| r["file"] == first.as_str()),
            "{} at {second} does not point at {first}: {d:#}",
            s.code
        );
        let jail = |(h, j): (usize, usize)| format!("j{j}.{}", fqdn(h));
        let message = d["message"].as_str().unwrap();
        assert!(
            message.contains(&jail(s.first)) && message.contains(&jail(s.second)),
            "{message}"
        );
    }
}
