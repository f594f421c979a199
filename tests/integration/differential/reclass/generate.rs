//! Seeded random beryl inventories that use every feature the converter
//! carries over: classes (nested, shared, some as init.yml, some named by a
//! reference), references (whole, embedded, nested, deferred), `~` and `=`,
//! exports, and all three query forms with `==`, `!=`, `and` and `or`.
//!
//! Values keep one kind per path most of the time (reclass raises on a change
//! of kind), with a few deliberate clashes; every reference has a target in
//! `_default.yml`.

use serde_json::{Value as J, json};

use crate::support::rng::SplitMix64;

const CLASSES: &[&str] = &[
    "base",
    "c1",
    "c2",
    "c3",
    "c4",
    "roles.backup",
    "roles.web",
    "roles.db",
    "dc.a",
    "dc.b",
];
const ROLES: &[&str] = &["backup", "web", "db"];
const QUERIES: &[&str] = &[
    "$[ exports.ip ]",
    "$[ exports.ip if exports.role == backup ]",
    "$[ exports.n if exports.dc == a or exports.role == db ]",
    "$[ if exports.role == web ]",
    "$[ if exports.role == web and exports.dc != b ]",
    "$[ exports.dc if exports.n != 1 ]",
    "$[ if exports.n == 2 or exports.dc == b and exports.role != backup ]",
];

/// The files of one inventory (path under the case root, text).
pub fn inventory(seed: u64, hosts: usize) -> Vec<(String, String)> {
    let mut r = SplitMix64::new(seed);
    let mut files = Vec::new();
    let mut put =
        |path: String, v: J| files.push((path, serde_json::to_string_pretty(&v).unwrap()));
    put(
        "inventory/_default.yml".into(),
        json!({
            "merge": {"^": "concat"},
            "freebsd": {"timezone": "UTC"},
            "classes": ["base"],
            "p": {"a": ["d"], "b": 0, "c": {"x": 0}, "d": "base"},
            "s": "s0",
            "pk": "b",
            "listed": ["static.test"],
            "net": {"ip": "10.0.0.0"},
        }),
    );
    for (i, name) in CLASSES.iter().enumerate() {
        let mut doc = data(&mut r, name);
        // A class includes some of the classes before it: diamonds, no cycles.
        let inner: Vec<&str> = CLASSES[..i]
            .iter()
            .copied()
            .filter(|_| r.chance(25))
            .collect();
        if !inner.is_empty() {
            doc["classes"] = json!(inner);
        }
        if let Some(role) = name.strip_prefix("roles.") {
            doc["exports"] = json!({"role": role, "ip": "${net.ip}"});
        }
        if let Some(dc) = name.strip_prefix("dc.") {
            doc["exports"] = json!({"dc": dc});
        }
        if r.chance(15) {
            doc[format!("found_{i}")] = json!(r.pick(QUERIES));
        }
        let path = name.replace('.', "/");
        let path = if *name == "roles.backup" {
            format!("inventory/_classes/{path}/init.yml")
        } else {
            format!("inventory/_classes/{path}.yml")
        };
        put(path, doc);
    }
    let domains = ["alpha.test", "beta.test"];
    for (d, domain) in domains.iter().enumerate() {
        let mut doc = data(&mut r, domain);
        doc["ssh_keys"] = json!(["ops"]);
        let dc = ["a", "b"][d];
        doc["site"] = json!({"dc": dc});
        put(format!("inventory/{domain}/_domain.yml"), doc);
        for g in 0..2 {
            let mut doc = data(&mut r, "group");
            // Resolved against what is merged before the group: the domain.
            doc["classes"] = json!(["dc.${site.dc}"]);
            doc["kind"] = json!(r.pick(ROLES));
            put(format!("inventory/{domain}/g{g}/_group.yml"), doc);
        }
    }
    for h in 0..hosts {
        let domain = domains[h % 2];
        let group = match r.below(3) {
            0 => String::new(),
            g => format!("g{}/", g - 1),
        };
        let mut doc = data(&mut r, "host");
        let mut classes: Vec<String> = (0..r.below(3))
            .map(|_| r.pick(CLASSES).to_string())
            .collect();
        if !group.is_empty() && r.chance(40) {
            classes.push("roles.${kind}".into());
        }
        if !classes.is_empty() {
            doc["classes"] = json!(classes);
        }
        doc["net"] = json!({"ip": format!("10.{}.{}.{}", seed % 200, h / 200, h % 200)});
        if r.chance(50) {
            let n = r.below(3);
            doc["exports"] = json!({"n": n});
        }
        if r.chance(40) {
            doc["asks"] = json!(r.pick(QUERIES));
        }
        if r.chance(15) {
            // A query's list merged with the lower list of _default.yml.
            doc["listed"] = json!(r.pick(&QUERIES[3..5]));
        }
        put(format!("inventory/{domain}/{group}h{h:02}.yml"), doc);
    }
    files
}

/// Random data for a level or class: mappings, lists and scalars under a
/// few shared keys, prefixes, references and the occasional clash.
fn data(r: &mut SplitMix64, who: &str) -> J {
    let mut doc = json!({});
    let mut p = json!({});
    if r.chance(50) {
        p["a"] = json!([format!("{who}-{}", r.below(3))]);
    }
    if r.chance(40) {
        p["b"] = if r.chance(2) {
            json!(["clash"]) // a list where the others write a scalar
        } else {
            json!(r.below(4))
        };
    }
    if r.chance(40) {
        let mut c = json!({"x": r.below(3)});
        if r.chance(50) {
            c["y"] = json!([who]);
        }
        p["c"] = c;
    }
    if r.chance(20) {
        p["d"] = json!(format!("{who} ${{p.b}}"));
    }
    // `~p` and `=p` drop what the levels below wrote into p: they keep b and
    // c, which references read.
    // A constant mapping mostly at the host, the last level: below it, any
    // later `p` would be a (refused) change in both.
    let key = match r.below(100) {
        0..10 => "~p",
        10..20 if who == "host" => "=p",
        20 => "=p",
        _ => "p",
    };
    if key != "p" {
        p["b"] = json!(r.below(4));
        p["c"] = json!({"x": r.below(3)});
    }
    if p.as_object().is_some_and(|m| !m.is_empty()) {
        doc[key] = p;
    }
    if r.chance(30) {
        doc["l"] = json!([who, r.below(2)]);
    } else if r.chance(15) {
        doc["~l"] = json!([format!("only-{who}")]);
    }
    if r.chance(30) {
        doc["s"] = json!(format!("{who}-{}", r.below(3)));
    }
    match r.below(100) {
        0..5 => doc["=k"] = json!(1), // repeating a constant's value is allowed
        5..7 => doc["k"] = json!(2),  // changing it is an error in both
        _ => {}
    }
    if r.chance(25) {
        // Embedded references, one of them nested: ${p.${pk}} is p.b.
        doc["t"] = json!("${s}/${p.b}/${p.${pk}}");
    }
    if r.chance(20) {
        // A whole reference: typed, and merged with the values around it.
        doc["w"] = json!("${p.c}");
    }
    if r.chance(15) {
        doc["w"] = json!({"z": who});
    }
    if r.chance(1) {
        // A mapping inside a longer string: beryl refuses, reclass writes repr.
        doc["e"] = json!("c is ${p.c}");
    }
    doc
}
