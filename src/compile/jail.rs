//! The keys a jail does not take (issue 36): a table, one row a key.
//!
//! A jail shares its host's kernel, disks and (without VNET) network stack;
//! only its root is its own, a directory of the host. So the keys that
//! install a machine, tune its kernel or configure its interfaces mean
//! nothing in a jail's chain. Its chain shares `_default.yml`, the domain
//! and the group with its host (src/inventory/), and those levels usually
//! write them: a value **inherited** from a shared level is dropped (and
//! `explain` says so); a value that the jail's **own** documents write (the
//! jail file, or a class that only it names) is an error at that key.
//!
//! The FreeBSD behaviour each row rests on is sys/kern/kern_jail.c
//! `kern_jail_set` (freebsd-src 002c06d2): the jail's root is a directory of
//! its host (`path`, refused unless `v_type == VDIR`); a new jail takes its
//! parent's `osrelease`/`osreldate` (it runs on the host's kernel); and it
//! gets a network stack of its own only with `vnet` (`pr_vnet = (pr_flags &
//! PR_VNET) ? vnet_alloc() : ppr->pr_vnet`). The sysctl row rests on
//! sys/kern/kern_sysctl.c `sysctl_root` (index id 1564100143: a write needs
//! PRIV_SYSCTL_WRITEJAIL only for a CTLFLAG_PRISON oid, or a CTLFLAG_VNET one
//! in a jail that owns its vnet) and kern_jail.c `prison_priv_check` (index
//! id 1225153359: grants PRIV_SYSCTL_WRITEJAIL, not PRIV_SYSCTL_WRITE).

use crate::classes::walk::Doc;
use crate::diag::{Diag, Diags};
use crate::syntax::prefix;
use crate::value::{Node, Value};

crate::diag::codes! {
    /// The codes of a jail's chain.
    pub(crate) enum Code in "jail" {
        /// A key a jail does not take (install, kernel, interfaces, SSH), written by the jail's own file or a class only it names.
        Key = "key";
    }
}

/// A key a jail does not take, and why.
pub(crate) struct Refused {
    /// The key's path from the root of the config.
    pub path: &'static [&'static str],
    /// Why, completing "a jail does not take `KEY`: ".
    pub why: &'static str,
}

const NO_DISKS: &str =
    "its root is a directory of its host (kern_jail.c `path`), so it has no disks to install";
const NO_KERNEL: &str = "it runs on its host's kernel (kern_jail.c takes the parent's osrelease)";
const NO_SYSCTL: &str = "a jail's root may write only the sysctls marked CTLFLAG_PRISON (or, in a VNET jail, CTLFLAG_VNET): kern_sysctl.c `sysctl_root` asks PRIV_SYSCTL_WRITE of the others, which kern_jail.c `prison_priv_check` never grants";
const NO_POOLS: &str = "its host's pools and datasets are the host's; beryl makes the jail's dataset from its `jail.dataset`, and delegates none (`zfs jail`)";
const NO_STACK: &str =
    "without vnet it shares its host's network stack (kern_jail.c `pr_vnet = ppr->pr_vnet`)";

/// The keys a jail does not take.
pub(crate) const REFUSED: &[Refused] = &[
    Refused {
        path: &["ssh"],
        why: "beryl reaches a jail through its host's connection, never by SSH of its own",
    },
    Refused {
        path: &["freebsd", "disks"],
        why: NO_DISKS,
    },
    Refused {
        path: &["freebsd", "raid"],
        why: NO_DISKS,
    },
    Refused {
        path: &["freebsd", "pool"],
        why: NO_DISKS,
    },
    Refused {
        path: &["freebsd", "swap"],
        why: NO_DISKS,
    },
    Refused {
        path: &["freebsd", "install"],
        why: NO_DISKS,
    },
    Refused {
        path: &["freebsd", "dist_site"],
        why: NO_DISKS,
    },
    Refused {
        path: &["freebsd", "loader"],
        why: NO_KERNEL,
    },
    Refused {
        path: &["freebsd", "sysctl"],
        why: NO_SYSCTL,
    },
    Refused {
        path: &["freebsd", "zfs"],
        why: NO_POOLS,
    },
    Refused {
        path: &["freebsd", "network", "interfaces"],
        why: NO_STACK,
    },
    Refused {
        path: &["freebsd", "network", "defaultrouter"],
        why: NO_STACK,
    },
    Refused {
        path: &["freebsd", "network", "ipv6_defaultrouter"],
        why: NO_STACK,
    },
];

/// A key dropped from a jail's config because a shared level wrote it.
#[derive(Clone, Debug)]
pub struct Dropped {
    pub path: Vec<String>,
    pub why: &'static str,
}

/// Applies [`REFUSED`] to a jail's merged `config`: an error for each key
/// that one of `docs[own..]` (the jail's own documents) writes; otherwise
/// the key is removed, and listed.
pub(super) fn strip(config: &mut Node, docs: &[Doc], own: usize) -> Result<Vec<Dropped>, Diags> {
    let mut errors = Vec::new();
    let mut dropped = Vec::new();
    for row in REFUSED {
        let name = row.path.join(".");
        for doc in docs.get(own..).unwrap_or_default() {
            if let Some(entry) = written(&doc.node, row.path) {
                errors.push(
                    Diag::new(
                        Code::Key,
                        format!("a jail does not take `{name}`: {}", row.why),
                    )
                    .label(&entry.key_span, "written for a jail here")
                    .help("set it in the jail's host; a value the jail inherits from _default, its domain or its group is dropped"),
                );
            }
        }
        if remove(config, row.path) {
            dropped.push(Dropped {
                path: row.path.iter().map(|s| s.to_string()).collect(),
                why: row.why,
            });
        }
    }
    if errors.is_empty() {
        Ok(dropped)
    } else {
        Err(errors)
    }
}

/// The entry a document writes at `path` (a key however prefixed: `~key`,
/// `=key`).
fn written<'a>(node: &'a Node, path: &[&str]) -> Option<&'a crate::value::Entry> {
    let (first, rest) = path.split_first()?;
    let entry = prefix::get(node.as_map()?, first)?;
    if rest.is_empty() {
        Some(entry)
    } else {
        written(&entry.node, rest)
    }
}

/// Removes the merged key at `path`; whether it was there.
fn remove(node: &mut Node, path: &[&str]) -> bool {
    let (Some((first, rest)), Value::Map(map)) = (path.split_first(), &mut node.value) else {
        return false;
    };
    if rest.is_empty() {
        return map.shift_remove(*first).is_some();
    }
    map.get_mut(*first)
        .is_some_and(|entry| remove(&mut entry.node, rest))
}

#[cfg(test)]
mod tests {
    use super::{remove, written};
    use crate::value::{Node, Source};

    fn node(text: &str) -> Node {
        crate::yaml::parse(&Source::new("t.yml", text.to_string()), &Default::default()).unwrap()
    }

    #[test]
    fn a_key_is_written_however_prefixed_and_removed_from_the_merge() {
        let doc = node("freebsd:\n  ~disks: [ada1]\n  =network: {interfaces: {}}\n");
        assert!(written(&doc, &["freebsd", "disks"]).is_some());
        assert!(written(&doc, &["freebsd", "network", "interfaces"]).is_some());
        assert!(written(&doc, &["freebsd", "raid"]).is_none());
        assert!(written(&doc, &["ssh"]).is_none());
        let mut merged = node("freebsd:\n  disks: [ada0]\n  network: {interfaces: {em0: {}}}\n");
        assert!(remove(&mut merged, &["freebsd", "disks"]));
        assert!(remove(&mut merged, &["freebsd", "network", "interfaces"]));
        assert!(!remove(&mut merged, &["freebsd", "disks"]));
        assert!(!remove(&mut merged, &["ssh"]));
        let network = merged.get("freebsd").and_then(|f| f.get("network"));
        assert!(network.and_then(Node::as_map).is_some_and(|m| m.is_empty()));
        assert!(merged.get("freebsd").and_then(|f| f.get("disks")).is_none());
    }
}
