//! Who may read a file's secrets (issue 37, docs/secrets.md §2): the SSH
//! keys of every domain one of whose hosts reads the file (in its chain or
//! among its classes), and, for a host's own file, that host's SSH host key
//! (for a jail's file, its host's: the jail is applied through it), which
//! `beryl secrets host-keys` takes from the host's facts into
//! `<ssh dir>/hosts/FQDN.pub`.
//!
//! Entry point: [`Readers`]. [`Readers::expected`] is what `beryl secrets
//! set` and `rekey` wrap a data key to by default; [`Readers::coverage`] is
//! what `beryl check` and `beryl secrets check` hold a file's `sops.age`
//! list to: a missing recipient or an unknown host key is an error (fail
//! closed), a recipient the inventory does not name a warning.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::OnceLock;

use crate::compile::Compiler;
use crate::diag::{Diag, Diags};
use crate::inventory::{Flavor, Host};
use crate::keys::{Key, KeyStore, Origin};
use crate::limits::Limits;
use crate::secrets::wrap::bare;
use crate::secrets::{Code, Sealed};
use crate::syntax::prefix;
use crate::value::Span;

/// The key types age wraps to (age's `ssh` recipients), so SOPS too.
const AGE_SSH_TYPES: [&str; 2] = ["ssh-ed25519", "ssh-rsa"];

/// How to gather a host's key, for the help of an error.
fn gather_help(fqdn: &str) -> String {
    format!(
        "gather it from the host: `beryl facts --gather {fqdn} --out facts/`, then \
         `beryl secrets host-keys --state-dir facts/` writes it to <ssh dir>/hosts/{fqdn}.pub \
         (review it like any key); then `beryl secrets rekey FILE --identity KEY` wraps the \
         file to it"
    )
}

/// The readers of the inventory's files, worked out once per run.
pub(crate) struct Readers<'a> {
    compiler: &'a Compiler<'a>,
    store: &'a KeyStore,
    limits: Limits,
    files: OnceLock<Reach>,
}

/// Which hosts read which files, by the layout and the class lists.
#[derive(Default)]
struct Reach {
    /// By file (relative to the root).
    by_file: HashMap<String, FileReaders>,
    /// Hosts whose classes do not expand: which class files they read is
    /// not known.
    unexpanded: Vec<String>,
}

#[derive(Default)]
struct FileReaders {
    domains: BTreeSet<String>,
    /// The host whose host key it is wrapped to: the host whose own file it
    /// is, or the jail's host.
    owner: Option<String>,
}

/// One recipient a file is expected to have.
#[derive(Debug, Clone)]
pub(crate) struct Wanted {
    /// As age reads it: `TYPE BASE64`.
    pub recipient: String,
    /// Whose it is, for messages (`alice (ssh/alice.pub:1)`).
    pub who: String,
}

/// The recipients the inventory expects for a file.
#[derive(Debug, Default)]
pub(crate) struct Expected {
    pub wanted: Vec<Wanted>,
    /// Domain keys age cannot wrap to (ECDSA, security keys), named.
    pub unusable: Vec<String>,
    /// The host whose host key is wanted and unknown.
    pub unknown_host: Option<String>,
}

impl<'a> Readers<'a> {
    pub(crate) fn new(compiler: &'a Compiler<'a>, store: &'a KeyStore, limits: Limits) -> Self {
        Self {
            compiler,
            store,
            limits,
            files: OnceLock::new(),
        }
    }

    /// The files each host reads, when the caller compiled every host of
    /// the inventory (`beryl check`): the classes need not be expanded
    /// again. `read` gives, for each host, the files of its compiled chain.
    pub(crate) fn knowing<'h>(
        self,
        read: impl IntoIterator<Item = (&'h Host, Vec<String>)>,
    ) -> Self {
        let per_host = read
            .into_iter()
            .map(|(h, files)| (h, Some(files)))
            .collect();
        let reach = self.build(per_host);
        let _ = self.files.set(reach);
        self
    }

    fn reach(&self) -> &Reach {
        self.files.get_or_init(|| {
            use rayon::prelude::*;
            let inv = self.compiler.inventory();
            let per_host: Vec<_> = inv
                .hosts
                .par_iter()
                .map(|h| {
                    let classes = self.compiler.class_files(h).ok();
                    (
                        h,
                        classes.map(|c| c.into_iter().map(|(rel, _)| rel).collect()),
                    )
                })
                .collect();
            self.build(per_host)
        })
    }

    /// Which hosts read which files: each host's chain, and the files given
    /// with it (its classes; `None` when they do not expand).
    fn build(&self, per_host: Vec<(&Host, Option<Vec<String>>)>) -> Reach {
        let inv = self.compiler.inventory();
        let mut reach = Reach::default();
        for (host, more) in per_host {
            let mut add = |rel: &str| {
                let r = reach.by_file.entry(rel.to_string()).or_default();
                r.domains.insert(host.domain.clone());
                if rel == host.file.rel {
                    r.owner = Some(host.parent.clone().unwrap_or_else(|| host.fqdn.clone()));
                }
            };
            for level in inv.chain(host) {
                add(&level.file.rel);
            }
            match more {
                Some(files) => files.iter().for_each(|rel| add(rel)),
                None => reach.unexpanded.push(host.fqdn.clone()),
            }
        }
        reach
    }

    /// The recipients the inventory expects for the file `rel` (relative to
    /// the root), shown as `display`: every key of every domain whose hosts
    /// read it that age can wrap to, and the owner's host key. An error when
    /// that cannot be told.
    pub(crate) fn expected(&self, rel: &str, display: &str) -> Result<Expected, Diags> {
        let inv = self.compiler.inventory();
        let readers_error = |why: String| {
            vec![
                Diag::new(Code::Readers, format!("who may read {display}: {why}"))
                    .help("name the recipients with --recipient"),
            ]
        };
        if let Flavor::Reclass(_) = inv.flavor {
            return Err(readers_error(
                "a reclass inventory has no domains and no `ssh_keys`".into(),
            ));
        }
        let reach = self.reach();
        let Some(readers) = reach.by_file.get(rel) else {
            return Err(readers_error(
                "no host of the inventory reads it (in its chain or among its classes)".into(),
            ));
        };
        if rel.starts_with(&format!("{}/", crate::inventory::CLASSES_DIR))
            && !reach.unexpanded.is_empty()
        {
            return Err(readers_error(format!(
                "the classes of {} do not expand (`beryl check` says why)",
                crate::diag::set::hosts_list(&reach.unexpanded, 3)
            )));
        }
        let mut out = Expected::default();
        let mut seen = BTreeSet::new();
        for domain in &readers.domains {
            for key in self.domain_keys(domain)? {
                let who = who(&key);
                if !AGE_SSH_TYPES.contains(&key.algorithm.as_str()) {
                    out.unusable.push(format!("{who}, {}", key.algorithm));
                } else if seen.insert(recipient(&key)) {
                    out.wanted.push(Wanted {
                        recipient: recipient(&key),
                        who,
                    });
                }
            }
        }
        if let Some(host) = &readers.owner {
            match self.store.host_key(host).map_err(|d| vec![d])? {
                Some(key) if AGE_SSH_TYPES.contains(&key.algorithm.as_str()) => {
                    if seen.insert(recipient(&key)) {
                        out.wanted.push(Wanted {
                            recipient: recipient(&key),
                            who: format!("the host key of {host} ({})", path_of(&key)),
                        });
                    }
                }
                Some(key) => {
                    return Err(vec![
                        Diag::new(
                            Code::HostKey,
                            format!(
                                "the host key of {host} ({}) is {}: age wraps only to ssh-ed25519 and ssh-rsa",
                                path_of(&key),
                                key.algorithm
                            ),
                        )
                        .help(gather_help(host)),
                    ]);
                }
                None => out.unknown_host = Some(host.clone()),
            }
        }
        Ok(out)
    }

    /// The root `ssh_keys` of a domain's `_domain.yml`, resolved.
    fn domain_keys(&self, domain: &str) -> Result<Vec<Key>, Diags> {
        let Some(d) = self.compiler.inventory().domain(domain) else {
            return Ok(Vec::new());
        };
        let node = crate::yaml::load_file(&d.file.path, &d.file.display, &self.limits)
            .map_err(|e| vec![e])?;
        let Some(list) = node
            .as_map()
            .and_then(|m| prefix::get(m, crate::syntax::root::SSH_KEYS))
            .and_then(|e| e.node.as_seq())
        else {
            return Ok(Vec::new());
        };
        let mut keys = Vec::new();
        let mut errors = Vec::new();
        for entry in list {
            match self.store.resolve(entry) {
                Ok(k) => keys.extend(k),
                Err(d) => errors.push(d),
            }
        }
        match errors.is_empty() {
            true => Ok(keys),
            false => Err(errors),
        }
    }

    /// A file's recipients against those expected: an error for each one
    /// missing and for an unknown host key, a warning for the recipients
    /// the inventory does not name. Located at the file's `sops:` key.
    pub(crate) fn coverage(&self, sealed: &Sealed) -> Diags {
        let expected = match self.expected(&sealed.rel, &sealed.file) {
            Ok(e) => e,
            Err(d) => return d,
        };
        let at = &sealed.meta.span;
        let have: BTreeMap<String, &str> = sealed
            .meta
            .age
            .iter()
            .map(|s| (bare(&s.recipient), s.recipient.as_str()))
            .collect();
        let mut out = Vec::new();
        if let Some(host) = &expected.unknown_host {
            out.push(
                Diag::new(
                    Code::HostKey,
                    format!(
                        "{} holds secrets for {host}, whose SSH host key is unknown",
                        sealed.file
                    ),
                )
                .label(at, "not wrapped to the host's key")
                .help(gather_help(host)),
            );
        }
        let missing: Vec<&Wanted> = (expected.wanted.iter())
            .filter(|w| !have.contains_key(&w.recipient))
            .collect();
        if !missing.is_empty() {
            let names: Vec<&str> = missing.iter().map(|w| w.who.as_str()).collect();
            out.push(
                Diag::new(
                    Code::Recipients,
                    format!(
                        "{}'s secrets are not wrapped to {} the inventory expects: {}",
                        sealed.file,
                        crate::diag::set::plural(missing.len(), "recipient", "recipients"),
                        names.join(", ")
                    ),
                )
                .label(at, "these recipients")
                .help(format!(
                    "`beryl secrets rekey {} --identity KEY` wraps the data key to every expected recipient",
                    sealed.file
                )),
            );
        }
        let wanted: BTreeSet<&str> = expected
            .wanted
            .iter()
            .map(|w| w.recipient.as_str())
            .collect();
        let extra: Vec<String> = (have.iter())
            .filter(|(n, _)| !wanted.contains(n.as_str()))
            .map(|(_, r)| shown(r))
            .collect();
        if !extra.is_empty() {
            out.push(
                Diag::warning(
                    Code::ExtraRecipient,
                    format!(
                        "{}'s secrets are also wrapped to {} the inventory does not name: {}",
                        sealed.file,
                        crate::diag::set::plural(extra.len(), "key", "keys"),
                        extra.join(", ")
                    ),
                )
                .label(at, "these recipients")
                .help(format!(
                    "a key taken out of the domain's `ssh_keys` still opens the file until \
                     `beryl secrets rekey {} --identity KEY` re-wraps it; what it could read \
                     stays in git history, so set those values again",
                    sealed.file
                )),
            );
        }
        out
    }
}

/// A key as an age recipient: its type and blob.
fn recipient(key: &Key) -> String {
    format!("{} {}", key.algorithm, key.base64)
}

/// A recipient for a message: an age key as it is, an SSH key as its type
/// and fingerprint (as `ssh-keygen -l` shows it).
fn shown(recipient: &str) -> String {
    match Key::inline(&bare(recipient), &Span::synthetic()) {
        Ok(k) => format!("{} {}", k.algorithm, k.fingerprint()),
        Err(_) => bare(recipient),
    }
}

/// Whose a key is: its name and file line, or the inline entry's place.
fn who(key: &Key) -> String {
    match &key.origin {
        Origin::File {
            name, path, line, ..
        } => format!("{name} ({path}:{line})"),
        Origin::Inline { at } => format!(
            "the inline key at {}:{}",
            at.file_name().unwrap_or_default(),
            at.line
        ),
    }
}

fn path_of(key: &Key) -> String {
    match &key.origin {
        Origin::File { path, .. } => path.clone(),
        Origin::Inline { .. } => String::new(),
    }
}
