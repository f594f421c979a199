//! Which hosts a changed file of the inventory can change: one rule per
//! kind of path of the layout (docs/diff.md §9), written with the names
//! discovery reads. `beryl diff` compiles only what an edit reaches
//! (src/cli/diff/incremental.rs).

use super::discover::yaml_stem;
use super::{
    CLASSES_DIR, DATA_DIRS, DEFAULT_STEM, DOMAIN_STEM, GROUP_STEM, Host, Inventory, SETTINGS_STEM,
};
use Part::{Any, Deep, Hidden, Jails, Named, NotYaml, Stem, Yaml};

/// What a changed file reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reach {
    /// No host: discovery skips it and no compile reads it.
    Nothing,
    /// Every host (the whole diff is computed).
    Every,
    /// The hosts whose class closure holds the class file, on either side
    /// (found by expanding every host's classes).
    Class,
    /// The hosts of the domain named by the path's first component.
    Domain,
    /// The hosts of the group named by the path's first two components.
    Group,
    /// The host whose file it is, on either side.
    Host,
}

/// One component of a rule's pattern, a path relative to the inventory.
#[derive(Clone, Copy, Debug)]
enum Part {
    /// Any number of components, none included.
    Deep,
    /// Any one component.
    Any,
    /// A hidden component (`.…`).
    Hidden,
    /// A component that is not a YAML file name.
    NotYaml,
    /// Any YAML file name.
    Yaml,
    /// The YAML file of that stem, as `.yml` or `.yaml`.
    Stem(&'static str),
    /// One of these names.
    Named(&'static [&'static str]),
    /// A host's jail folder (`host01.jails`, mod.rs `JAILS_SUFFIX`).
    Jails,
}

/// The rules: a pattern of path components and what a changed file that
/// matches it reaches. The first rule that matches decides.
const RULES: &[(&[Part], Reach)] = &[
    // The settings and the first level of every chain.
    (&[Stem(SETTINGS_STEM)], Reach::Every),
    (&[Stem(DEFAULT_STEM)], Reach::Every),
    // A class can be named by any chain: the hosts whose closure holds it.
    (&[Named(&[CLASSES_DIR]), Deep], Reach::Class),
    // `freebsd.files`' templates and sources (src/compile/files.rs), read
    // by whichever host names them: every host.
    (&[Named(DATA_DIRS), Deep], Reach::Every),
    // Discovery skips hidden entries, and reads only YAML files.
    (&[Deep, Hidden, Deep], Reach::Nothing),
    (&[Deep, NotYaml], Reach::Nothing),
    (&[Any, Stem(DOMAIN_STEM)], Reach::Domain),
    (&[Any, Any, Stem(GROUP_STEM)], Reach::Group),
    (&[Any, Yaml], Reach::Host),
    (&[Any, Any, Yaml], Reach::Host),
    // A jail's file (issue 36): the jail whose file it is.
    (&[Any, Any, Jails, Yaml], Reach::Host),
];

impl Inventory {
    /// What a change of the file `path` (relative to the inventory, with
    /// `/` separators) reaches, by the first rule that matches; `None` when
    /// no rule places it.
    pub(crate) fn reach(path: &str) -> Option<Reach> {
        let parts: Vec<&str> = path.split('/').collect();
        RULES.iter().find(|r| glob(r.0, &parts)).map(|r| r.1)
    }

    /// The hosts of this inventory that a change of the file `path`, which
    /// reaches `reach`, changes: those of its domain, its group, or the host
    /// whose file it is; none for the other reaches.
    pub(crate) fn reached<'a>(
        &'a self,
        path: &'a str,
        reach: Reach,
    ) -> impl Iterator<Item = &'a Host> {
        let parts: Vec<&str> = path.split('/').collect();
        self.hosts.iter().filter(move |h| match reach {
            Reach::Nothing | Reach::Every | Reach::Class => false,
            Reach::Domain => h.domain == parts[0],
            Reach::Group => h.domain == parts[0] && h.group.as_deref() == Some(parts[1]),
            Reach::Host => h.file.rel == path,
        })
    }
}

/// Whether the path components `parts` match the pattern `pattern`.
fn glob(pattern: &[Part], parts: &[&str]) -> bool {
    match (pattern.first(), parts.first()) {
        (None, None) => true,
        (Some(Deep), _) => {
            glob(&pattern[1..], parts) || (!parts.is_empty() && glob(pattern, &parts[1..]))
        }
        (Some(p), Some(part)) => component(*p, part) && glob(&pattern[1..], &parts[1..]),
        _ => false,
    }
}

fn component(pattern: Part, part: &str) -> bool {
    match pattern {
        Deep | Any => true,
        Hidden => part.starts_with('.'),
        NotYaml => yaml_stem(part).is_none(),
        Yaml => yaml_stem(part).is_some(),
        Stem(stem) => yaml_stem(part) == Some(stem),
        Named(names) => names.contains(&part),
        Jails => part.len() > super::JAILS_SUFFIX.len() && part.ends_with(super::JAILS_SUFFIX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_path_has_its_rule() {
        let reach = Inventory::reach;
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
        assert_eq!(reach("a.org/h1.jails/www.yml"), Some(Reach::Host));
        assert_eq!(reach("a.org/web/h1.jails/www.yml"), Some(Reach::Host));
        assert_eq!(reach("a.org/web/h1.jails/notes.txt"), Some(Reach::Nothing));
        assert_eq!(reach("README.md"), Some(Reach::Nothing));
        assert_eq!(reach("a.org/web/notes.txt"), Some(Reach::Nothing));
        assert_eq!(reach(".gitattributes"), Some(Reach::Nothing));
        assert_eq!(reach("a.org/.old/h1.yml"), Some(Reach::Nothing));
        // Discovery refuses these; no rule places them.
        assert_eq!(reach("stray.yml"), None);
        assert_eq!(reach("a.org/web/deep/h1.yml"), None);
        assert_eq!(reach("a.org/web/h1.jails/in/j.yml"), None);
    }
}
