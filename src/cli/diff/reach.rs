//! Which hosts the changed input files can change (docs/diff.md §9): an
//! inventory file by the inventory's rules (`Inventory::reach`), a key
//! file every host. A path that no rule places, or a rule that reaches
//! every host, leaves the diff to compile both fleets whole.

use std::collections::BTreeSet;

use crate::inventory::{CLASSES_DIR, Inventory, Reach};

/// What the changed files reach: hosts, and class files whose hosts are
/// found by expanding every host's classes.
#[derive(Debug, Default)]
pub(super) struct Reached<'a> {
    pub hosts: BTreeSet<String>,
    pub classes: Vec<&'a str>,
}

/// The hosts, on either side, that the changed inventory files `changed`
/// (relative to the inventory) and key files `keys` (relative to the SSH
/// key directory) can change; `None` when that is every host or cannot be
/// told.
pub(super) fn affected<'a>(
    changed: &[&'a str],
    keys: &[&str],
    old: &Inventory,
    new: &Inventory,
) -> Option<Reached<'a>> {
    // A key file is read by every host whose chain names the key: every host.
    if !keys.is_empty() {
        return None;
    }
    let mut hosts = BTreeSet::new();
    let mut classes = Vec::new();
    for &path in changed {
        let reach = Inventory::reach(path)?;
        match reach {
            Reach::Every => return None,
            Reach::Class => classes.push(path),
            _ => {}
        }
        let before = hosts.len();
        for inv in [old, new] {
            hosts.extend(inv.reached(path, reach).map(|h| h.fqdn.clone()));
        }
        // A level or host file that places no host on either side is one
        // the rules do not know: compile everything.
        if reach == Reach::Host && hosts.len() == before {
            return None;
        }
    }
    Some(Reached { hosts, classes })
}

/// The class names a class file can be named by: `_classes/roles/web.yml`
/// is `roles.web`; an `init` file is also its directory's name.
pub(super) fn class_names(path: &str) -> Vec<String> {
    let rel = path
        .strip_prefix(CLASSES_DIR)
        .and_then(|r| r.strip_prefix('/'))
        .unwrap_or(path);
    let stem = match rel.rsplit_once('.') {
        Some((stem, _)) => stem,
        None => rel,
    };
    let mut names = vec![stem.replace('/', ".")];
    if let Some(dir) = stem.strip_suffix("/init") {
        names.push(dir.replace('/', "."));
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_file_is_named_by_its_path() {
        assert_eq!(class_names("_classes/roles/web.yml"), ["roles.web"]);
        assert_eq!(class_names("_classes/base.yaml"), ["base"]);
        assert_eq!(class_names("_classes/app/init.yml"), ["app.init", "app"]);
    }
}
