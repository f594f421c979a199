//! Incremental `render --all --out` equals a full render: on a generated
//! inventory (classes, keys, queries), one random edit of each kind per
//! case and seed, a re-render into the previous output directory gives the
//! same bytes as a render into a fresh one, the manifest included, and
//! recompiles no more hosts than the ones that read the edited file (and,
//! when any host changed, the hosts whose queries read the fleet's exports);
//! a host edit that changes no export recompiles one host.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::support::inventory_gen::{Params, generate};
use crate::support::rng::SplitMix64;
use crate::support::{args, beryl, files};

#[derive(Clone, Copy, Debug)]
enum Edit {
    Host,
    Group,
    Domain,
    Default,
    Class,
    Key,
    /// The address a host exports, which the queries of others read.
    Export,
    AddHost,
    RemoveHost,
    /// A class file where a class name was looked up and nothing was found.
    ShadowProbe,
}

const EDITS: [Edit; 10] = [
    Edit::Host,
    Edit::Group,
    Edit::Domain,
    Edit::Default,
    Edit::Class,
    Edit::Key,
    Edit::Export,
    Edit::AddHost,
    Edit::RemoveHost,
    Edit::ShadowProbe,
];

/// Every file under `dir` whose name `keep` accepts, sorted.
fn find(dir: &Path, keep: &dyn Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.is_dir() {
            out.extend(find(&path, keep));
        } else if keep(&path.file_name().unwrap().to_string_lossy()) {
            out.push(path);
        }
    }
    out.sort();
    out
}

fn append(path: &Path, text: &str) {
    let mut old = fs::read_to_string(path).unwrap();
    old.push_str(text);
    fs::write(path, old).unwrap();
}

fn is_host(name: &str) -> bool {
    name.starts_with("host") && name.ends_with(".yml")
}

/// Applies one edit; returns the inventory paths it touched (relative).
fn apply(edit: Edit, inv: &Path, ssh: &Path, rng: &mut SplitMix64) -> Vec<String> {
    let rel = |p: &Path| p.strip_prefix(inv).unwrap().display().to_string();
    let pick =
        |rng: &mut SplitMix64, keep: &dyn Fn(&str) -> bool| rng.pick(&find(inv, keep)).clone();
    let line = format!("\nedited_{}: 1\n", rng.below(1000));
    let path = match edit {
        Edit::Host => pick(rng, &is_host),
        Edit::Group => pick(rng, &|n| n == "_group.yml"),
        Edit::Domain => pick(rng, &|n| n == "_domain.yml"),
        Edit::Default => inv.join("_default.yml"),
        Edit::Class => rng.pick(&find(&inv.join("_classes"), &|_| true)).clone(),
        Edit::Key => {
            let key = rng.pick(&find(ssh, &|n| n.ends_with(".pub"))).clone();
            let text = fs::read_to_string(&key)
                .unwrap()
                .replacen('@', "@edited.", 1);
            fs::write(&key, text).unwrap();
            return vec![format!(
                "ssh:{}",
                key.file_name().unwrap().to_string_lossy()
            )];
        }
        Edit::Export => {
            let host = web_host(inv, rng);
            let text = fs::read_to_string(&host).unwrap();
            let at = text.find("\nnet:\n  ip: ").expect("a host's address");
            fs::write(&host, format!("{}\nnet:\n  ip: 10.99.99.99\n", &text[..at])).unwrap();
            return vec![rel(&host)];
        }
        Edit::AddHost => {
            let host = web_host(inv, rng);
            let short = host.file_stem().unwrap().to_string_lossy().to_string();
            let text = fs::read_to_string(&host).unwrap();
            let new = host.with_file_name("hostnew.yml");
            fs::write(&new, text.replace(&format!("{short}."), "hostnew.")).unwrap();
            return vec![rel(&new)];
        }
        Edit::RemoveHost => {
            let host = pick(rng, &is_host);
            fs::remove_file(&host).unwrap();
            return vec![rel(&host)];
        }
        Edit::ShadowProbe => {
            let path = inv.join("_classes/optional/extra.yml");
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, "shadowed: true\n").unwrap();
            return vec![rel(&path)];
        }
    };
    append(&path, &line);
    vec![rel(&path)]
}

/// A host of a `web` group, whose address the cache groups' queries read
/// (examples/support/inventory_gen.rs), else any host.
fn web_host(inv: &Path, rng: &mut SplitMix64) -> PathBuf {
    let all = find(inv, &is_host);
    let web: Vec<PathBuf> = (all.iter())
        .filter(|p| p.parent().unwrap().ends_with("web"))
        .cloned()
        .collect();
    rng.pick(if web.is_empty() { &all } else { &web }).clone()
}

/// `recompiled N of M hosts` on stderr: N.
fn recompiled(stderr: &str) -> usize {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("recompiled "))
        .unwrap_or_else(|| panic!("no count: {stderr}"));
    line.split(' ').next().unwrap().parse().unwrap()
}

/// The hosts of a manifest that read one of `paths`, and its fleet hosts.
fn readers(manifest: &Path, paths: &[String]) -> (BTreeSet<String>, BTreeSet<String>) {
    let m: serde_json::Value = serde_json::from_slice(&fs::read(manifest).unwrap()).unwrap();
    let table: Vec<&String> = m["inputs"].as_object().unwrap().keys().collect();
    let (mut read, mut fleet) = (BTreeSet::new(), BTreeSet::new());
    for (fqdn, r) in m["records"].as_object().unwrap() {
        let indices = r["chain"]
            .as_array()
            .unwrap()
            .iter()
            .chain(r["reads"].as_array().unwrap());
        if indices
            .filter_map(|i| i.as_u64())
            .any(|i| paths.contains(table[i as usize]))
        {
            read.insert(fqdn.clone());
        }
        if r.get("fleet").is_some() {
            fleet.insert(fqdn.clone());
        }
    }
    (read, fleet)
}

/// One case: a generated inventory, rendered, edited, rendered again into
/// the same directory and into a fresh one. Returns N and the bound on it.
fn case(edit: Edit, seed: u64, classes: bool) -> (usize, usize) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let params = Params {
        hosts: 30,
        domains: 3,
        groups: 9,
        seed,
        classes,
    };
    generate(&params, d).unwrap();
    let inv = d.join("inventory");
    // A class looked up and not found, allowed to be missing.
    fs::write(inv.join("beryl.yml"), "ignore_class_notfound: true\n").unwrap();
    let domain = find(&inv, &|n| n == "_domain.yml").remove(0);
    append(&domain, "\nclasses: [optional.extra]\n");
    let render = |out: &str| {
        let run = beryl(d, &args(&["render", "--all", "--out", out]));
        assert_eq!(run.status, 0, "{edit:?} seed {seed}: {}", run.stderr);
        recompiled(&run.stderr)
    };
    render("out");
    let mut rng = SplitMix64::new(seed);
    let touched = apply(edit, &inv, &d.join("ssh"), &mut rng);
    let (mut read, fleet) = readers(&d.join("out/beryl-manifest.json"), &touched);
    // A removed host, the one reader of its file, is not compiled; the
    // hosts that read every host's exports are.
    let removed = matches!(edit, Edit::RemoveHost);
    if removed {
        read.clear();
    }
    let n = render("out");
    assert_eq!(render("fresh"), files(&d.join("fresh")).len() - 1);
    assert_eq!(
        files(&d.join("out")),
        files(&d.join("fresh")),
        "{edit:?} seed {seed}: the incremental render differs from the full one"
    );
    let added = usize::from(matches!(edit, Edit::AddHost));
    let changed = !read.is_empty() || added == 1 || removed;
    let bound = read.len() + added + if changed { fleet.len() } else { 0 };
    assert!(
        n <= bound,
        "{edit:?} seed {seed}: recompiled {n}, but only {bound} hosts read {touched:?}"
    );
    // A host edit that leaves its exports alone recompiles that host alone.
    if matches!(edit, Edit::Host) && read.is_disjoint(&fleet) {
        assert_eq!(n, 1, "{edit:?} seed {seed}: {touched:?}");
    }
    assert!(
        read.is_empty() || n > 0,
        "{edit:?} seed {seed}: {read:?} read {touched:?}, but nothing was recompiled"
    );
    (n, bound)
}

// One test per seed, so that they run side by side.
#[test]
fn an_incremental_render_equals_a_full_one_seed_1() {
    for edit in EDITS {
        case(edit, 1, true);
    }
}

#[test]
fn an_incremental_render_equals_a_full_one_seed_2() {
    for edit in EDITS {
        case(edit, 2, true);
    }
}

/// Without queries, a host edit recompiles that host alone.
#[test]
fn a_host_edit_recompiles_one_host() {
    for seed in [1, 2] {
        assert_eq!(case(Edit::Host, seed, false).0, 1);
        assert_eq!(case(Edit::RemoveHost, seed, false).0, 0);
        assert_eq!(case(Edit::AddHost, seed, false).0, 1);
    }
}
