//! A generated reclass inventory in Kapitan's shape: a common class, OS,
//! environment and component classes with `${a:b}` references, list
//! concatenation and applications; nodes in site folders, each with 4–6
//! classes; optionally exports and `$[ ]` queries. The reclass benchmark
//! (benches/reclass.rs) and the real-inventory differential
//! (tests/integration/differential/reclass_real/) use it.
#![allow(dead_code)]

use std::fs;
use std::path::Path;

use super::rng::SplitMix64;

/// Components, each a class of its own.
const COMPONENTS: usize = 30;
const SITES: usize = 20;
const ENVS: &[&str] = &["dev", "staging", "prod"];
const OSES: &[&str] = &["debian", "freebsd"];

/// A Kapitan-shaped reclass inventory of `n` nodes under `dir`, from
/// `seed`. With `queries`, every node also exports its address and site,
/// most nodes have an `environment:`, a `monitoring` class gathers the
/// exports of its node's environment with `$[ ]` queries and a `fleetwide`
/// class those of every environment (`+AllEnvs`) (kept out of the
/// benchmark, where they would make the output quadratic).
pub fn generate(dir: &Path, n: usize, seed: u64, queries: bool) {
    let _ = fs::remove_dir_all(dir);
    let classes = dir.join("classes");
    let write = |rel: &str, text: String| {
        let path = classes.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    };
    write(
        "common.yml",
        "parameters:\n  org:\n    name: example\n    domain: example.org\n    registry: registry.example.org\n  \
         dns:\n    servers: [192.0.2.1, 192.0.2.2]\n  packages: [curl, ca-certificates]\n"
            .into(),
    );
    for os in OSES {
        write(
            &format!("os/{os}.yml"),
            format!(
                "classes: [common]\nparameters:\n  os:\n    family: {os}\n    resolver: ${{dns:servers}}\n  \
                 packages: [{os}-base, ntp]\n"
            ),
        );
    }
    for (i, env) in ENVS.iter().enumerate() {
        write(
            &format!("envs/{env}/init.yml"),
            format!(
                "classes: [common]\nparameters:\n  env:\n    name: {env}\n    replicas: {}\n    \
                 url: https://{env}.${{org:domain}}\n",
                i + 1
            ),
        );
    }
    for k in 0..COMPONENTS {
        write(
            &format!("components/c{k}.yml"),
            format!(
                "classes: [common]\napplications: [c{k}]\nparameters:\n  components:\n    c{k}:\n      \
                 image: ${{org:registry}}/c{k}:1.{k}\n      replicas: ${{env:replicas}}\n      \
                 ports: [{}, {}]\n      labels:\n        app: c{k}\n        env: ${{env:name}}\n  \
                 packages: [c{k}-agent]\n",
                8000 + k,
                9000 + k
            ),
        );
    }
    if queries {
        write(
            "monitoring.yml",
            "classes: [common]\nparameters:\n  monitoring:\n    targets: $[exports:address]\n    \
             sites: $[exports:site if exports:site == site3]\n"
                .into(),
        );
        write(
            "fleetwide.yml",
            "parameters:\n  fleet:\n    everyone: $[+AllEnvs exports:address]\n".into(),
        );
    }
    let mut rng = SplitMix64::new(seed);
    let components: Vec<usize> = (0..COMPONENTS).collect();
    for i in 0..n {
        let site = i % SITES;
        let os = rng.pick(OSES);
        let env = rng.pick(ENVS);
        let count = 2 + rng.below(3);
        let picked: Vec<String> = rng
            .some(&components, count)
            .into_iter()
            .map(|k| format!("components.c{k}"))
            .collect();
        let mut text = format!(
            "classes: [os.{os}, envs.{env}, {}]\nparameters:\n  node:\n    name: ${{_reclass_:name:full}}\n    \
             fqdn: node-{i:05}.site{site}.${{org:domain}}\n    site: site{site}\n  packages: [node-{i:05}-tools]\n",
            picked.join(", ")
        );
        if queries {
            if rng.chance(30) {
                text = text.replacen("classes: [", "classes: [monitoring, ", 1);
            }
            // Most nodes are in their class's environment, the others in
            // reclass's default one; a few see every environment.
            if rng.chance(75) {
                text.insert_str(0, &format!("environment: {env}\n"));
            }
            if rng.chance(10) {
                text = text.replacen("classes: [", "classes: [fleetwide, ", 1);
            }
            text.push_str(&format!(
                "exports:\n  address: 10.{}.{}.{}\n  site: site{site}\n",
                site,
                i / 250,
                i % 250
            ));
        }
        let path = dir.join(format!("nodes/site{site}/node-{i:05}.yml"));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}
