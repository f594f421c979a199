//! Which hosts a changed input file can change: one rule per kind of path
//! (docs/diff.md §9). A path that no rule places, or a rule that reaches
//! every host, leaves the diff to compile both fleets whole.

use std::collections::BTreeSet;

use crate::inventory::Inventory;

/// What a changed file reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reach {
    /// No host: discovery skips it and no compile reads it.
    Nothing,
    /// Every host (the whole diff is computed).
    Every,
    /// The hosts whose class closure holds the class file, on either side
    /// (found by expanding every host's classes: incremental.rs).
    Class,
    /// The hosts of the domain named by the path's first component.
    Domain,
    /// The hosts of the group named by the path's first two components.
    Group,
    /// The host whose file it is, on either side.
    Host,
}

/// The rules, a pattern of path components relative to the inventory and
/// what a changed file that matches it reaches. `**` is any number of
/// components (none included), `*` one component, `.*` a hidden one,
/// `!yaml` one that is not a YAML file name, `*.yaml` any YAML file name,
/// `NAME.yaml` that stem as `.yml` or `.yaml`; anything else is itself. The
/// first rule that matches decides.
const RULES: &[(&str, Reach)] = &[
    // The settings and the first level of every chain.
    ("beryl.yaml", Reach::Every),
    ("_default.yaml", Reach::Every),
    // A class can be named by any chain: the hosts whose closure holds it.
    ("_classes/**", Reach::Class),
    // `freebsd.files`' sources and templates (src/compile/files.rs), read
    // by whichever host names them: every host.
    ("templates/**", Reach::Every),
    ("files/**", Reach::Every),
    // Discovery skips hidden entries, and reads only YAML files.
    ("**/.*/**", Reach::Nothing),
    ("**/!yaml", Reach::Nothing),
    ("*/_domain.yaml", Reach::Domain),
    ("*/*/_group.yaml", Reach::Group),
    ("*/*.yaml", Reach::Host),
    ("*/*/*.yaml", Reach::Host),
];

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
        let parts: Vec<&str> = path.split('/').collect();
        let reach = RULES.iter().find(|r| matches(r.0, &parts))?.1;
        match reach {
            Reach::Every => return None,
            Reach::Class => classes.push(path),
            _ => {}
        }
        let before = hosts.len();
        for inv in [old, new] {
            for h in &inv.hosts {
                let hit = match reach {
                    Reach::Nothing | Reach::Every | Reach::Class => false,
                    Reach::Domain => h.domain == parts[0],
                    Reach::Group => h.domain == parts[0] && h.group.as_deref() == Some(parts[1]),
                    Reach::Host => h.file.rel == path,
                };
                if hit {
                    hosts.insert(h.fqdn.clone());
                }
            }
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
    let rel = path.strip_prefix("_classes/").unwrap_or(path);
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

/// Whether the path components `parts` match `pattern` (see [`RULES`]).
fn matches(pattern: &str, parts: &[&str]) -> bool {
    let pattern: Vec<&str> = pattern.split('/').collect();
    glob(&pattern, parts)
}

fn glob(pattern: &[&str], parts: &[&str]) -> bool {
    match (pattern.first(), parts.first()) {
        (None, None) => true,
        (Some(&"**"), _) => {
            glob(&pattern[1..], parts) || (!parts.is_empty() && glob(pattern, &parts[1..]))
        }
        (Some(p), Some(part)) => component(p, part) && glob(&pattern[1..], &parts[1..]),
        _ => false,
    }
}

fn component(pattern: &str, part: &str) -> bool {
    match pattern {
        "*" => true,
        ".*" => part.starts_with('.'),
        "!yaml" => yaml_stem(part).is_none(),
        "*.yaml" => yaml_stem(part).is_some(),
        _ => match pattern.strip_suffix(".yaml") {
            Some(stem) => yaml_stem(part) == Some(stem),
            None => pattern == part,
        },
    }
}

/// The stem of a YAML file name, as discovery reads it (`.yml` or
/// `.yaml`, in any case).
fn yaml_stem(name: &str) -> Option<&str> {
    let lower = name.to_ascii_lowercase();
    let ext = [".yml", ".yaml"].into_iter().find(|e| lower.ends_with(e))?;
    Some(&name[..name.len() - ext.len()]).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reach(path: &str) -> Option<Reach> {
        let parts: Vec<&str> = path.split('/').collect();
        RULES.iter().find(|r| matches(r.0, &parts)).map(|r| r.1)
    }

    #[test]
    fn a_class_file_is_named_by_its_path() {
        assert_eq!(class_names("_classes/roles/web.yml"), ["roles.web"]);
        assert_eq!(class_names("_classes/base.yaml"), ["base"]);
        assert_eq!(class_names("_classes/app/init.yml"), ["app.init", "app"]);
    }

    #[test]
    fn each_kind_of_path_has_its_rule() {
        assert_eq!(reach("_default.yml"), Some(Reach::Every));
        assert_eq!(reach("_default.YAML"), Some(Reach::Every));
        assert_eq!(reach("beryl.yml"), Some(Reach::Every));
        assert_eq!(reach("_classes/web/nginx.yml"), Some(Reach::Class));
        assert_eq!(reach("templates/motd.j2"), Some(Reach::Every));
        assert_eq!(reach("files/.hidden"), Some(Reach::Every));
        assert_eq!(reach("a.org/_domain.yml"), Some(Reach::Domain));
        assert_eq!(reach("a.org/web/_group.yaml"), Some(Reach::Group));
        assert_eq!(reach("a.org/mail.yml"), Some(Reach::Host));
        assert_eq!(reach("a.org/web/h1.yml"), Some(Reach::Host));
        assert_eq!(reach("README.md"), Some(Reach::Nothing));
        assert_eq!(reach("a.org/web/notes.txt"), Some(Reach::Nothing));
        assert_eq!(reach(".gitattributes"), Some(Reach::Nothing));
        assert_eq!(reach("a.org/.old/h1.yml"), Some(Reach::Nothing));
        // Discovery refuses these; no rule places them.
        assert_eq!(reach("stray.yml"), None);
        assert_eq!(reach("a.org/web/deep/h1.yml"), None);
    }
}
