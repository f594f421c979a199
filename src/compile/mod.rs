//! Compiling hosts: a host's chain and its classes → merge → references →
//! exports → SSH keys → validate, which gives its [`Compiled`] config.
//!
//! Entry points:
//!
//! - [`compile`]: one host.
//! - [`compile_many`]: several hosts, in parallel on rayon's global pool, the
//!   results in the order of the hosts given. Every command that compiles
//!   more than one host goes through it.
//!
//! Both take a [`Compiler`], built once per run and shared by the threads: it
//! caches every parsed level, so the shared levels (`_default`, each
//! `_domain`, each `_group`) are parsed once however many hosts use them.
//! [`complete`] is the last stage alone (the plan fuzz target calls it).
//!
//! Where the rest is:
//!
//! - this file: the entry points, the `Compiler` and its cache of level
//!   files, and the last stage (SSH keys resolved and injected, the
//!   `freebsd` section validated);
//! - `pipeline.rs`: one host's stages in order, from its chain to the call
//!   of [`complete`];
//! - `queries.rs`: inventory queries (`$[ … ]`): every host's exports,
//!   computed once per run when a host asks (which [`compile_many`] does
//!   outside its parallel loops), and each document's answers;
//! - `warn.rs`: the YAML 1.1 spellings a chain shows;
//! - `dialect.rs`: the engine's semantics, beryl's or reclass's, one value
//!   per stage ([`Dialect`]), set once on the [`Compiler`].

mod dialect;
pub(crate) mod files;
mod inputs;
pub(crate) mod jail;
mod lookup;
mod pipeline;
mod queries;
pub mod reclass;
mod subtree;
pub(crate) mod warn;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

pub use dialect::{Dialect, ReclassSettings};
pub use inputs::Inputs;
pub(crate) use lookup::Looked;

use crate::classes::Library;
use crate::diag::Diags;
use crate::exports::AllExports;
use crate::inventory::{Host, Inventory, LevelKind};
use crate::keys::{self, Key, KeyStore};
use crate::merge::Policy;
use crate::refs;
use crate::schema::{self, FreeBsd};
use crate::value::{Entry, Map, Node, Span, Value};
use crate::yaml::Limits;

/// Compiles one host, computing every host's exports first if its queries
/// need them. Returns every error found.
pub fn compile(compiler: &Compiler<'_>, host: &Host) -> Result<Compiled, Diags> {
    let expanded = compiler.expand(host)?;
    let all = expanded.asks().then(|| compiler.all_exports());
    compiler.finish(host, &expanded, all)
}

/// Compiles `hosts` in parallel on rayon's global pool, and returns what
/// `then` makes of each host's result, in the order of `hosts` whatever the
/// number of threads. `then` runs on the worker thread that compiled the
/// host, as soon as it is compiled, so that a caller can keep only what it
/// needs: the compiled configs of all hosts are never in memory at once.
///
/// Hosts whose queries need every host's exports wait until the others are
/// compiled; the exports are then computed once, in parallel, outside the
/// loops (queries.rs), and the hosts that waited compiled. Call it outside
/// any rayon task: inside one, it still works, but computes the exports on
/// one thread. A single host that asks nothing is compiled on the calling
/// thread.
pub(crate) fn compile_many<T: Send>(
    compiler: &Compiler<'_>,
    hosts: &[&Host],
    then: impl Fn(&Host, Result<Compiled, Diags>) -> T + Sync,
) -> Vec<T> {
    use rayon::prelude::*;
    let first = |h: &&Host| {
        let r = compile_unless_waiting(compiler, h)?;
        compiler.release(h);
        Some(then(h, r))
    };
    // One host stays on this thread: handing it to a worker only adds a
    // wake-up, which a loaded machine can make milliseconds long.
    let mut out: Vec<Option<T>> = if hosts.len() < 2 {
        hosts.iter().map(first).collect()
    } else {
        hosts.par_iter().map(first).collect()
    };
    if out.iter().any(Option::is_none) {
        compiler.all_exports();
        out.par_iter_mut()
            .zip(hosts.par_iter())
            .filter(|(r, _)| r.is_none())
            .for_each(|(r, h)| {
                let compiled = compile(compiler, h);
                compiler.release(h);
                *r = Some(then(h, compiled));
            });
    }
    out.into_iter().flatten().collect()
}

/// Compiles a host, unless its queries need every host's exports and those
/// are not computed yet (`None`).
fn compile_unless_waiting(compiler: &Compiler<'_>, host: &Host) -> Option<Result<Compiled, Diags>> {
    let expanded = match compiler.expand(host) {
        Ok(e) => e,
        Err(e) => return Some(Err(e)),
    };
    let all = if expanded.asks() {
        Some(compiler.all_exports_ready()?)
    } else {
        None
    };
    Some(compiler.finish(host, &expanded, all))
}

/// A host's effective config and what was derived on the way.
#[derive(Debug)]
pub struct Compiled {
    /// The effective config as rendered: `_beryl_` first, then the merged data.
    pub config: Node,
    /// The validated `freebsd` section.
    pub freebsd: FreeBsd,
    /// The resolved domain keys, in order.
    pub domain_keys: Vec<Key>,
    /// Each user's final key list, in user order.
    pub users: Vec<UserKeys>,
    /// Every string whose references were resolved, and what it read.
    pub references: Vec<refs::Resolution>,
    /// The chain's documents as merged (class files included), most general
    /// first, and the table they merged with (for `explain`).
    pub levels: Vec<MergedDoc>,
    pub policy: Policy,
    /// The warnings about this host (its errors fail the compile instead).
    pub diags: Diags,
    /// Where the rules of the levels' `merge:` tables that were in force at
    /// some path of this host are written (built-in rules left out).
    pub rules_used: Vec<Span>,
    /// Under reclass, the node's classes, applications, environment and exports.
    pub reclass: Option<reclass::ReclassInfo>,
    /// What the compile read and probed (inputs.rs).
    pub inputs: Inputs,
    /// For a jail, the keys it inherited and does not take, dropped
    /// (jail.rs); `explain` names them.
    pub dropped: Vec<jail::Dropped>,
    /// For a jail, its host's FQDN: a jail is never installed.
    pub parent: Option<String>,
    /// The SOPS files of the chain, in its order: what apply opens to turn
    /// the config's tokens back into plaintext (src/secrets/).
    pub(crate) secrets: Vec<Arc<crate::secrets::Sealed>>,
}

/// One document of a host's chain.
#[derive(Debug, Clone)]
pub struct MergedDoc {
    /// The file, relative to the inventory root.
    pub file: String,
    /// The document as merged: its inventory queries answered.
    pub node: Arc<Node>,
    /// The document as written, its queries (`$[ … ]`) unanswered, so that
    /// `explain` can name the query a value came from.
    pub written: Arc<Node>,
}

#[derive(Debug)]
pub struct UserKeys {
    pub name: String,
    /// The final list: the domain keys first, then the user's own.
    pub keys: Vec<Key>,
    /// How many of `keys` (at the head) are the domain's.
    pub from_domain: usize,
}

type Loaded = Result<Arc<Node>, Diags>;

/// What the compiles of one run share: the inventory, the key store, the
/// limits and the caches. Build one per run and compile with [`compile`] or
/// [`compile_many`]; threads share it.
pub struct Compiler<'a> {
    inventory: &'a Inventory,
    keys: &'a KeyStore,
    limits: Limits,
    policy: Policy,
    /// One cell per level file, so that concurrent compiles parse each once.
    cache: Mutex<HashMap<String, Arc<OnceLock<Loaded>>>>,
    /// The class files and settings (src/classes/).
    library: Library<'a>,
    /// Every host's exports, once a host's queries need them (queries.rs).
    all_exports: OnceLock<AllExports>,
    /// What computing them can reuse, found on the way (queries.rs).
    found: queries::Found,
    /// Each level file's YAML 1.1 spellings in free-form data (warn.rs).
    spelled: warn::Spelled,
    /// The engine's semantics (its merge part is on `policy`).
    dialect: Dialect,
    /// Whether every query sees every environment (reclass's
    /// `--inventory`), rather than the asking host's own.
    every_environment: bool,
    /// Each jail's host's effective config, once read (`${parent.…}`).
    parents: Mutex<HashMap<String, Arc<OnceLock<Loaded>>>>,
    /// Whether the last stage runs (SSH keys resolved and injected, the
    /// `freebsd` section validated, its files read): off for `beryl
    /// reclass`, which outputs reclass's data as reclass does.
    freebsd: bool,
}

impl<'a> Compiler<'a> {
    pub fn new(inventory: &'a Inventory, keys: &'a KeyStore, limits: Limits) -> Self {
        // The engine's semantics (the dialect) follow the inventory's flavor,
        // chosen here once; docs/architecture.md §5 lists the other places
        // that read the flavor.
        let dialect = match inventory.flavor.reclass() {
            Some(o) => Dialect::reclass(&dialect::settings(o)),
            None => Dialect::beryl(),
        };
        Self {
            inventory,
            keys,
            limits,
            policy: Policy::beryl().with_dialect(dialect.merge),
            cache: Mutex::new(HashMap::new()),
            library: Library::new(inventory, limits),
            all_exports: OnceLock::new(),
            found: queries::Found::default(),
            spelled: warn::Spelled::default(),
            dialect,
            every_environment: false,
            parents: Mutex::new(HashMap::new()),
            freebsd: true,
        }
    }

    /// The same compiler without the FreeBSD stage: a host's config is its
    /// merged data with its references resolved, `ssh_keys` and `freebsd`
    /// as written (reclass's output, `beryl reclass`; `render`, `check`
    /// and `plan` keep the stage).
    pub fn data_only(mut self) -> Self {
        self.freebsd = false;
        self
    }

    /// The same compiler, its queries answered over every environment, as
    /// reclass's `--inventory` answers them (`--nodeinfo` and beryl's own
    /// commands answer a host's queries from its environment only, unless
    /// the host asks `+AllEnvs`).
    pub fn every_environment(mut self) -> Self {
        self.every_environment = true;
        self
    }

    /// The same compiler with the engine's semantics of `dialect` (the
    /// front end picks it from the inventory's flavor).
    pub fn with_dialect(mut self, dialect: Dialect) -> Self {
        self.policy = self.policy.with_dialect(dialect.merge);
        self.dialect = dialect;
        self
    }

    /// The same compiler, reading each file of `overlay` from its text
    /// there (an editor's unsaved buffer) rather than from the disk.
    pub(crate) fn with_overlay(mut self, overlay: Arc<crate::inventory::Overlay>) -> Self {
        self.library = self.library.with_overlay(overlay);
        self
    }

    /// The engine's semantics in force.
    pub fn dialect(&self) -> &Dialect {
        &self.dialect
    }

    /// The inventory this compiler compiles.
    pub(crate) fn inventory(&self) -> &'a Inventory {
        self.inventory
    }

    fn load(&self, kind: LevelKind, file: &crate::inventory::LevelFile) -> Loaded {
        let cell = self.lock().entry(file.rel.clone()).or_default().clone();
        cell.get_or_init(|| {
            self.library
                .read(file)
                .map_err(Diags::from)
                .and_then(|node| {
                    // A reclass file's top-level keys are reclass's (classes/reclass.rs).
                    if self.inventory.flavor.reclass().is_some() {
                        return Ok(Arc::new(node));
                    }
                    crate::inventory::levels::check(kind, &node).map(|()| Arc::new(node))
                })
        })
        .clone()
    }

    /// Drops a compiled host's own file from the cache: no other host's
    /// chain holds it, and the fleet's exports, if asked for later, reuse
    /// what its compile found (queries.rs), so a fleet's host files are
    /// not all kept parsed to the end of the run.
    pub(super) fn release(&self, host: &Host) {
        self.lock().remove(&host.file.rel);
        self.library.release(&host.file.rel);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<OnceLock<Loaded>>>> {
        // A poisoned cache only means another host's compile panicked; the
        // entries themselves are whole values, so keep using them.
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The end of a compile, on a host's merged config with its references
/// resolved: the SSH keys resolved and the domain's injected, then the
/// `freebsd` section validated. [`compile`] ends with it; the plan
/// fuzz target (fuzz/) calls it on configs built in memory.
pub fn complete(
    config: Node,
    references: Vec<refs::Resolution>,
    levels: Vec<MergedDoc>,
    policy: Policy,
    store: &KeyStore,
) -> Result<Compiled, Diags> {
    complete_in(config, references, levels, policy, store, None)
}

/// [`complete`] for a host or, with `jailed`, a jail: its `freebsd.jail`
/// defaults come from its name and its host's config (schema/jail.rs).
pub(crate) fn complete_in(
    mut config: Node,
    references: Vec<refs::Resolution>,
    levels: Vec<MergedDoc>,
    policy: Policy,
    store: &KeyStore,
    jailed: Option<&schema::Jailed>,
) -> Result<Compiled, Diags> {
    let mut errors = Vec::new();
    let mut inputs = Inputs::default();
    // Only _domain.yml may set the root `ssh_keys` (levels.rs).
    let domain_keys = match config.get("ssh_keys") {
        // A key given twice (by name and inline, say) counts once.
        Some(list) => keys::inject(&resolve_list(store, list, &mut errors, &mut inputs), &[]),
        None => Vec::new(),
    };
    let users = inject_keys(store, &mut config, &domain_keys, &mut errors, &mut inputs);
    let mut warnings = Vec::new();
    let freebsd = match schema::validate(config.get("freebsd"), jailed) {
        Ok(mut f) => {
            files::inline(&mut f);
            warnings = std::mem::take(&mut f.warnings);
            Some(f)
        }
        Err(mut e) => {
            // Reading order: by file, then by position in the file.
            e.sort_by_key(location);
            errors.extend(e);
            None
        }
    };
    match freebsd {
        Some(freebsd) if errors.is_empty() => Ok(Compiled {
            config,
            references,
            levels,
            policy,
            freebsd,
            domain_keys,
            users,
            diags: warnings,
            rules_used: Vec::new(),
            reclass: None,
            inputs,
            dropped: Vec::new(),
            parent: None,
            secrets: Vec::new(),
        }),
        _ => Err(errors),
    }
}

/// Resolves a list of `ssh_keys` entries; the key files read (by their
/// names, the probed one included) join `inputs`, before `inject` drops
/// the keys given twice.
fn resolve_list(
    store: &KeyStore,
    list: &Node,
    errors: &mut Diags,
    inputs: &mut Inputs,
) -> Vec<Key> {
    let mut keys = Vec::new();
    for entry in list.as_seq().unwrap_or_default() {
        match store.resolve(entry) {
            Ok(k) => {
                if let Some(keys::Origin::File { name, .. }) = k.first().map(|k| &k.origin) {
                    inputs.keys.extend(keys::key_files(name));
                }
                keys.extend(k);
            }
            Err(d) => errors.push(d),
        }
    }
    keys
}

/// The items of `freebsd.users` in a config's root mapping, to edit in place.
pub(crate) fn users_mut(root: &mut Map) -> Option<&mut Vec<Node>> {
    root.get_mut("freebsd")
        .and_then(|e| match &mut e.node.value {
            Value::Map(m) => m.get_mut("users"),
            _ => None,
        })
        .and_then(|e| match &mut e.node.value {
            Value::Seq(items) => Some(items),
            _ => None,
        })
}

/// Resolves each user's `ssh_keys` and writes the final lists into the
/// merged config: the domain keys first, then the user's own new keys.
/// The root `ssh_keys` becomes the resolved domain key list.
fn inject_keys(
    store: &KeyStore,
    merged: &mut Node,
    domain: &[Key],
    errors: &mut Diags,
    inputs: &mut Inputs,
) -> Vec<UserKeys> {
    let mut out = Vec::new();
    let Value::Map(root) = &mut merged.value else {
        return out;
    };
    if let Some(entry) = root.get_mut("ssh_keys") {
        entry.node = key_list(domain, entry.node.span.clone());
    }
    let Some(users) = users_mut(root) else {
        return out;
    };
    for user in users.iter_mut() {
        let Value::Map(fields) = &mut user.value else {
            continue;
        };
        let name = fields
            .get("name")
            .and_then(|e| e.node.as_str())
            .unwrap_or_default()
            .to_string();
        let own = match fields.get("ssh_keys").map(|e| &e.node) {
            Some(
                list @ Node {
                    value: Value::Seq(_),
                    ..
                },
            ) => resolve_list(store, list, errors, inputs),
            // Not a list: validation reports it; leave the value as written.
            Some(_) => continue,
            None => Vec::new(),
        };
        let keys = keys::inject(domain, &own);
        let span = fields
            .get("ssh_keys")
            .map(|e| e.node.span.clone())
            .unwrap_or_default();
        let node = key_list(&keys, span);
        match fields.get_mut("ssh_keys") {
            Some(entry) => entry.node = node,
            None => {
                fields.insert(
                    "ssh_keys".into(),
                    Entry {
                        key_span: Span::synthetic(),
                        node,
                    },
                );
            }
        }
        out.push(UserKeys {
            name,
            keys,
            from_domain: domain.len(),
        });
    }
    out
}

fn location(d: &crate::diag::Diag) -> (String, usize) {
    d.span()
        .map(|s| (s.file_name().unwrap_or_default().to_string(), s.offset))
        .unwrap_or_default()
}

fn key_list(keys: &[Key], span: Span) -> Node {
    let items = keys
        .iter()
        .map(|k| Node::new(Value::Str(k.line()), k.origin.at().clone()))
        .collect();
    Node::new(Value::Seq(items), span)
}

/// The effective config: `_beryl_` first, then the merged levels. The
/// classes applied are listed when there are any. A reclass node's config is
/// its parameters alone, as reclass gives them (`_reclass_` is in them).
fn with_header(
    inventory: &Inventory,
    host: &Host,
    files: Vec<Node>,
    classes: &[String],
    merged: Node,
) -> Node {
    if inventory.flavor.reclass().is_some() {
        return merged;
    }
    let entry = |node: Node| Entry {
        key_span: Span::synthetic(),
        node,
    };
    let mut header = Map::new();
    header.insert("fqdn".into(), entry(Node::str(host.fqdn.clone())));
    header.insert("short".into(), entry(Node::str(host.short.clone())));
    header.insert("domain".into(), entry(Node::str(host.domain.clone())));
    let group = host.group.clone().map_or(Value::Null, Value::Str);
    header.insert("group".into(), entry(Node::synthetic(group)));
    // A jail's host (issue 36), readable as `${_beryl_.parent}`.
    if let Some(parent) = &host.parent {
        header.insert("parent".into(), entry(Node::str(parent.clone())));
    }
    header.insert("files".into(), entry(Node::synthetic(Value::Seq(files))));
    if !classes.is_empty() {
        let names = classes.iter().map(|c| Node::str(c.clone())).collect();
        header.insert("classes".into(), entry(Node::synthetic(Value::Seq(names))));
    }
    let mut root = Map::new();
    root.insert("_beryl_".into(), entry(Node::synthetic(Value::Map(header))));
    if let Value::Map(m) = merged.value {
        root.extend(m);
    }
    Node::new(Value::Map(root), merged.span)
}

/// Sets `_beryl_.KEY` to a mapping, unless it is empty.
fn set_header(config: &mut Node, key: &str, value: Node) {
    if value.as_map().is_some_and(|m| m.is_empty()) {
        return;
    }
    let Value::Map(root) = &mut config.value else {
        return;
    };
    if let Some(Value::Map(header)) = root.get_mut("_beryl_").map(|e| &mut e.node.value) {
        header.insert(
            key.into(),
            Entry {
                key_span: Span::synthetic(),
                node: value,
            },
        );
    }
}
