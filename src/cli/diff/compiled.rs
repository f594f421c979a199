//! The hosts of an inventory side, compiled and hashed: all of them, or only
//! those an edit reaches (incremental.rs).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::{Context, Failure};
use crate::compile::{self, Compiler};
use crate::inventory::{Inventory, revision};
use crate::keys::KeyStore;
use crate::outdir;
use crate::output::fleetdiff::{Files, HostConfig, HostState, Names, Side};
use crate::output::{self, Format as OutFormat};

/// A side whose hosts were compiled: the side, and each compiled host's
/// exports as JSON text (none when empty).
pub(super) struct Compiled {
    pub side: Side,
    pub exports: BTreeMap<String, String>,
}

/// The hosts of `inventory` (those in `only`, when given), compiled (in
/// parallel) and hashed as `render --out` hashes them, with their plan
/// (`--plan`) and their inputs; the hosts not in `only` are given the same
/// hash on both sides, so that the comparison skips them. `None` when `only`
/// is given and one of its hosts needs every host's exports (its queries).
///
/// A host's config (with the spans of its values and its merge policy,
/// src/output/fleetdiff/input.rs) is compiled again when the diff reads it,
/// which it does only for a host whose hashes differ: a side keeps no
/// config, so that 10k hosts fit in memory. The inventory, the key store and
/// the compiler (whose caches make the second compile cheap: each file was
/// parsed once) therefore live as long as the process, which runs one diff.
pub(super) fn compile_side(
    ctx: &Context,
    inventory: &'static Inventory,
    display: &str,
    ssh: &revision::Place,
    plans: bool,
    only: Option<&BTreeSet<String>>,
) -> Result<Option<Compiled>, Failure> {
    let keys: &'static KeyStore = Box::leak(Box::new(KeyStore::new(
        &ssh.dir,
        &ssh.display,
        ctx.limits.max_file_size,
    )));
    // Files are shown relative to the inventory, key files under the SSH
    // directory given on the command line, whatever tree they were read from.
    let names = Arc::new(Names::new(
        display,
        &ssh.display,
        &ctx.ssh_dir.display().to_string(),
    ));
    let compiler = Arc::new(Compiler::new(inventory, keys, ctx.limits));
    let wanted = |h: &&crate::inventory::Host| only.is_none_or(|o| o.contains(&h.fqdn));
    let hosts: Vec<_> = inventory.hosts.iter().filter(wanted).collect();
    if only.is_some() && hosts.iter().any(|h| compiler.asks(h)) {
        return Ok(None);
    }
    let templates = crate::install::render::Templates::new(None, 0)?;
    // diff prints no warning of either side's hosts.
    let progress = crate::cli::context::Progress::new(hosts.len());
    let results = compile::compile_many(&compiler, &hosts, |host, r| {
        let side = r.and_then(|c| {
            let text = output::to_string(&c.config, OutFormat::Yaml)?;
            // A host beryl never installs, or a jail (laid down by its
            // host's apply), has no plan to compare.
            let plan = if plans && !c.freebsd.adopted() && c.parent.is_none() {
                let p = crate::install::build(&host.fqdn, &c)?;
                // Compared and shown with root's hash as its digest.
                let text = templates.installerconfig(&p)?;
                Some(crate::resource::redact(&text, &p.secrets()))
            } else {
                None
            };
            let inputs = HostConfig::inputs(&c, &names, keys);
            let exports = exports_text(&c.config)?;
            Ok((outdir::hash(&text), plan, inputs, exports))
        });
        progress.tick();
        side
    });
    drop(progress);
    let mut files = Files::default();
    let mut side = Side {
        hosts: Default::default(),
        files: None,
    };
    let mut exports = BTreeMap::new();
    let mut errors = Vec::new();
    let mut results = hosts
        .iter()
        .map(|h| h.fqdn.as_str())
        .zip(results)
        .peekable();
    for host in &inventory.hosts {
        let (compiler, names) = (compiler.clone(), names.clone());
        let load = move || {
            let c = compile::compile(&compiler, host)?;
            Ok(Arc::new(HostConfig::from_compiled(c, &names)))
        };
        let domain = Some(host.domain.clone());
        let state = |hash, plan, inputs| HostState {
            hash,
            load: Box::new(load),
            plan,
            inputs,
            domain,
        };
        let r = match results.peek() {
            Some((fqdn, _)) if *fqdn == host.fqdn => results.next().map(|(_, r)| r),
            _ => None,
        };
        match r {
            // Unchanged inputs: the same on both sides, never compared.
            None => {
                side.hosts
                    .insert(host.fqdn.clone(), state(UNCHANGED.into(), None, Vec::new()));
            }
            Some(Ok((hash, plan, inputs, e))) => {
                exports.extend(e.map(|e| (host.fqdn.clone(), e)));
                let inputs = files.add(inputs);
                side.hosts
                    .insert(host.fqdn.clone(), state(hash, plan, inputs));
            }
            Some(Err(e)) => errors.extend(e),
        }
    }
    side.files = Some(files);
    if errors.is_empty() {
        Ok(Some(Compiled { side, exports }))
    } else {
        Err(errors)
    }
}

/// The hash of a host whose inputs are the same on both sides.
const UNCHANGED: &str = "unchanged inputs";

/// A compiled host's exports (the `_beryl_.exports` of its config) as JSON,
/// `None` when it exports nothing.
fn exports_text(config: &crate::value::Node) -> Result<Option<String>, Failure> {
    config
        .get("_beryl_")
        .and_then(|h| h.get("exports"))
        .map(|e| output::to_string(e, OutFormat::Json).map_err(Failure::from))
        .transpose()
}
