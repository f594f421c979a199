//! The engine's semantics for a run: one value per stage that behaves
//! differently under reclass (docs/references.md and docs/merge.md, "The
//! reclass dialect"). The front end maps the inventory's flavor to a
//! [`Dialect`] once and sets it with `Compiler::with_dialect`; the stages
//! only read their own part.

use crate::merge;
use crate::refs;

/// The semantics of the merge and reference stages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dialect {
    /// Kind changes, lists, constants, when references defer a merge (set
    /// on the compiler's merge policy).
    pub merge: merge::Dialect,
    /// Path syntax, values inside strings, overwritten missing references.
    pub refs: refs::Dialect,
}

/// reclass's settings that change what the engine computes, with
/// kapicorp-reclass 2.0's defaults ([`Default`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReclassSettings {
    /// `allow_scalar_over_dict` … `allow_none_override`.
    pub allow: merge::Allow,
    /// `strict_constant_parameters` (default true).
    pub strict_constant_parameters: bool,
    /// `ignore_overwritten_missing_references` (default true).
    pub ignore_overwritten_missing_references: bool,
    /// `delimiter` (default `:`).
    pub delimiter: char,
}

impl Default for ReclassSettings {
    fn default() -> Self {
        ReclassSettings {
            allow: merge::Allow::default(),
            strict_constant_parameters: true,
            ignore_overwritten_missing_references: true,
            delimiter: ':',
        }
    }
}

/// The engine's settings of a reclass inventory's options.
pub(super) fn settings(o: &crate::inventory::ReclassOptions) -> ReclassSettings {
    ReclassSettings {
        allow: merge::Allow {
            scalar_over_dict: o.allow_scalar_over_dict,
            scalar_over_list: o.allow_scalar_over_list,
            list_over_scalar: o.allow_list_over_scalar,
            dict_over_scalar: o.allow_dict_over_scalar,
            none_override: o.allow_none_override,
        },
        strict_constant_parameters: o.strict_constant_parameters,
        ignore_overwritten_missing_references: o.ignore_overwritten_missing_references,
        delimiter: ':',
    }
}

impl Dialect {
    /// beryl's semantics, the default.
    pub const fn beryl() -> Self {
        Dialect {
            merge: merge::Dialect::beryl(),
            refs: refs::Dialect::beryl(),
        }
    }

    /// kapicorp-reclass 2.0's semantics with these settings.
    pub fn reclass(settings: &ReclassSettings) -> Self {
        Dialect {
            merge: merge::Dialect::reclass(settings.allow, settings.strict_constant_parameters),
            refs: refs::Dialect {
                paths: refs::Paths::Delimited {
                    delimiter: settings.delimiter,
                },
                render: refs::Render::Python,
                missing_overwritten: settings.ignore_overwritten_missing_references,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_beryl_and_reclass_takes_its_settings() {
        assert_eq!(Dialect::default(), Dialect::beryl());
        let r = Dialect::reclass(&ReclassSettings::default());
        assert_eq!(r.refs, refs::Dialect::reclass());
        assert_ne!(r.merge, merge::Dialect::beryl());
        let lax = Dialect::reclass(&ReclassSettings {
            ignore_overwritten_missing_references: false,
            ..ReclassSettings::default()
        });
        assert!(!lax.refs.missing_overwritten);
    }
}
