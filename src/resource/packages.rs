//! `packages`: the packages of `freebsd.packages`, by name or origin, in
//! order.
//!
//! - **Install:** `templates/steps/packages.sh.j2` bootstraps pkg and
//!   installs them all.
//! - **Apply:** a step that bootstraps pkg (pkg(7), the bootstrapper in
//!   /usr/sbin, installs the real pkg in /usr/local/sbin; without
//!   `ASSUME_ALWAYS_YES` it asks first), then one step per package:
//!   `pkg info -e PATTERN`, else `pkg install -y`.
//! - **Records:** `pkg PATTERN`, pruned with `pkg delete`, unless another
//!   package requires it.

use serde::Serialize;

use super::state::State;
use super::verdict::Verdict;
use super::{Input, Kind, Prune, Record, Resource, Shell};
use crate::shell::{QuoteError, word as w};

/// The host's packages.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Packages {
    pub packages: Vec<String>,
}

/// What one step wants: pkg itself, or one package.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Want {
    /// pkg itself, bootstrapped.
    Bootstrap,
    /// A package, by name or origin (a `pkg info -e` pattern).
    Package { name: String },
}

/// The packages, when there are any.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    let packages: Vec<String> = input
        .freebsd()
        .packages
        .iter()
        .map(|p| p.value.clone())
        .collect();
    if packages.is_empty() {
        return Vec::new();
    }
    vec![Packages { packages }.into()]
}

/// How a recorded package is found and pruned.
pub(crate) const PRUNE: Prune = Prune {
    kind: "pkg",
    step_kind: "package",
    exists: "pkg info -e \"$1\"",
    // `pkg delete` removes the packages that require the one deleted as
    // well, unless forced: keep a package that another one requires.
    keep: "pkg query '%rn' \"$1\" 2>/dev/null | awk '{ r = r \" \" $0 } END { if (r == \"\") exit 1; print \"required by\" r }'",
    remove: "env ASSUME_ALWAYS_YES=yes pkg delete -y \"$1\"",
    source: "freebsd/pkg src/delete.c @068171d5 (recursive unless -f; -y answers the question); docs/pkg-query.8 @0206549d (%rn: the reverse dependencies)",
    kept: None,
    removal_note: None,
    removal_notify: None,
    present: |s, id| installed(s, id),
};

impl Kind for Packages {
    type Want = Want;
    const NAME: &'static str = "packages";
    const TEMPLATE: Option<&'static str> =
        Some(include_str!("../../templates/steps/packages.sh.j2"));
    const PRUNE: Option<&'static Prune> = Some(&PRUNE);

    fn id(&self) -> String {
        "packages".into()
    }

    fn records(&self) -> Vec<Record> {
        self.packages
            .iter()
            .map(|p| Record::new("pkg", p))
            .collect()
    }

    fn wants(&self) -> Vec<Want> {
        std::iter::once(Want::Bootstrap)
            .chain(
                self.packages
                    .iter()
                    .map(|name| Want::Package { name: name.clone() }),
            )
            .collect()
    }

    fn step_kind(want: &Want) -> &'static str {
        match want {
            Want::Bootstrap => "bootstrap",
            Want::Package { .. } => "package",
        }
    }

    fn step_id(want: &Want) -> String {
        match want {
            Want::Bootstrap => "pkg".into(),
            Want::Package { name } => format!("pkg:{name}"),
        }
    }

    fn shell(want: &Want) -> Result<Shell, QuoteError> {
        Ok(match want {
            Want::Bootstrap => Shell {
                check: "[ -x /usr/local/sbin/pkg ]".into(),
                change: "env ASSUME_ALWAYS_YES=yes pkg bootstrap".into(),
            },
            // A pattern with `/` matches the origin (`-O` would always
            // exit 0: pkg src/info.c keeps it for ports compatibility).
            Want::Package { name } => Shell {
                check: format!("pkg info -e {}", w(name)?),
                change: format!("env ASSUME_ALWAYS_YES=yes pkg install -y {}", w(name)?),
            },
        })
    }

    fn judge(want: &Want, s: &State) -> Verdict {
        match want {
            Want::Bootstrap => Verdict::create_unless(bootstrapped(s)),
            Want::Package { name } => Verdict::create_unless(installed(s, name)),
        }
    }
}

/// Whether pkg is bootstrapped; a snapshot that does not say counts as
/// bootstrapped when it lists packages.
pub(crate) fn bootstrapped(s: &State) -> bool {
    s.pkg.unwrap_or(!s.packages.is_empty())
}

/// Whether a package is installed, as `pkg info -e PATTERN` finds it: a
/// pattern with `/` is an origin (its `@flavor` is not compared: `pkg query
/// %o` prints origins without one), any other a name.
pub(crate) fn installed(s: &State, pattern: &str) -> bool {
    match pattern.split_once('/') {
        Some(_) => {
            let origin = pattern.split('@').next().unwrap_or(pattern);
            s.origins.iter().any(|o| o == origin)
        }
        None => s.packages.iter().any(|p| p == pattern),
    }
}
