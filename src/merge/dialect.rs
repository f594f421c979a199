//! The merge rules that are not a `merge:` table: beryl's, or reclass's
//! (kapicorp-reclass 2.0, `values/valuelist.py`). The compile stage picks one
//! [`Dialect`] for the run and puts it on the base [`super::Policy`]; beryl's
//! is the default.
//!
//! | | beryl | reclass |
//! |---|---|---|
//! | a value of another kind | replaces what was merged below | an error, "Cannot merge X over Y", unless an `allow_*` option ([`Allow`], the table in [`over`]) |
//! | lists under `default` | the higher list replaces | lists concatenate (as `concat`) |
//! | `=key` | fixes the value as written; a level may repeat it | the lower values merge into it; any later setting is an error (strict), or is ignored |
//! | a root `merge:` key | the level's merge table | data |
//! | a reference meeting another value | deferred when it is the whole value | deferred whenever a value holds one, so every value is resolved and merged as reclass renders it |

use super::{Code, Engine};
use crate::diag::Diag;
use crate::value::{Node, Value};

/// The merge rules of a dialect.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dialect {
    pub kinds: Kinds,
    /// Lists merged by `default` concatenate (reclass) instead of the
    /// higher one replacing them (beryl).
    pub concat_lists: bool,
    pub constants: Constants,
    /// A root `merge:` key is data (reclass has no merge tables) instead of
    /// the level's table (beryl).
    pub merge_key_is_data: bool,
}

/// What a change of kind does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kinds {
    /// beryl: the higher value replaces what was merged below it.
    #[default]
    Replace,
    /// reclass: an error unless allowed.
    Reclass(Allow),
}

/// reclass's `allow_*` settings (all false by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Allow {
    pub scalar_over_dict: bool,
    pub scalar_over_list: bool,
    pub list_over_scalar: bool,
    pub dict_over_scalar: bool,
    /// `allow_none_override`: a null may replace a mapping or a list.
    pub none_override: bool,
}

/// What `=key` means.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Constants {
    /// beryl: the value as written, which a level may repeat but not change.
    #[default]
    Beryl,
    /// reclass: the lower values merge into the constant; a later setting
    /// is an error when `strict` (`strict_constant_parameters`), else ignored.
    Reclass { strict: bool },
}

impl Dialect {
    /// beryl's rules.
    pub const fn beryl() -> Self {
        Dialect {
            kinds: Kinds::Replace,
            concat_lists: false,
            constants: Constants::Beryl,
            merge_key_is_data: false,
        }
    }

    /// kapicorp-reclass 2.0's rules with these settings.
    pub const fn reclass(allow: Allow, strict_constants: bool) -> Self {
        Dialect {
            kinds: Kinds::Reclass(allow),
            concat_lists: true,
            constants: Constants::Reclass {
                strict: strict_constants,
            },
            merge_key_is_data: true,
        }
    }

    /// Whether every reference that meets another value defers the merge.
    pub(crate) fn defers_every_reference(&self) -> bool {
        matches!(self.kinds, Kinds::Reclass(_))
    }
}

/// A value's kind, as reclass tells them apart when merging.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Dict,
    List,
    Null,
    Scalar,
}

impl Kind {
    pub(crate) fn of(v: &Value) -> Self {
        match v {
            Value::Map(_) => Kind::Dict,
            Value::Seq(_) => Kind::List,
            Value::Null => Kind::Null,
            _ => Kind::Scalar,
        }
    }

    /// reclass's name for it in "Cannot merge X over Y" (a null is a scalar).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Dict => "dictionary",
            Kind::List => "list",
            Kind::Null | Kind::Scalar => "scalar",
        }
    }
}

/// What a higher value does to what was merged below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Same kind: merged (mappings key by key, lists by the strategy).
    Merge,
    /// Replaces it.
    Replace,
    /// A list over a scalar (`allow_list_over_scalar`): the scalar becomes
    /// the list's first item.
    Prepend,
    /// "Cannot merge X over Y".
    Error,
}

/// reclass's table (valuelist.py, `render`): what `higher` does over
/// `lower`. A row per pair of kinds.
pub(crate) fn over(allow: &Allow, lower: Kind, higher: Kind) -> Outcome {
    use Kind::*;
    use Outcome::*;
    let when = |ok: bool, yes: Outcome| if ok { yes } else { Error };
    match (lower, higher) {
        (Null, _) => Replace,
        (Dict, Dict) | (List, List) => Merge,
        (Dict, List) | (List, Dict) => Error,
        (Dict, Null) => when(allow.scalar_over_dict || allow.none_override, Replace),
        (Dict, Scalar) => when(allow.scalar_over_dict, Replace),
        (List, Null) => when(allow.scalar_over_list || allow.none_override, Replace),
        (List, Scalar) => when(allow.scalar_over_list, Replace),
        (Scalar, Dict) => when(allow.dict_over_scalar, Replace),
        (Scalar, List) => when(allow.list_over_scalar, Prepend),
        (Scalar, Null) | (Scalar, Scalar) => Replace,
    }
}

impl Engine<'_> {
    /// reclass's fold of the values at a path (its table,
    /// `dialect::over`): where the run that merges into the top starts, and
    /// whether its first value is a scalar that a list takes as its first
    /// item. `None` after reporting "Cannot merge X over Y".
    pub(super) fn reclass_run(&mut self, allow: &Allow, values: &[&Node]) -> Option<(usize, bool)> {
        let (mut start, mut prepend) = (0, false);
        let mut kind = Kind::of(&values.first()?.value);
        for (i, v) in values.iter().enumerate().skip(1) {
            let higher = Kind::of(&v.value);
            match over(allow, kind, higher) {
                Outcome::Merge => {}
                Outcome::Replace => (start, prepend) = (i, false),
                Outcome::Prepend => (start, prepend) = (i - 1, true),
                Outcome::Error => {
                    let d = Diag::new(
                        Code::KindChange,
                        format!(
                            "Cannot merge {} over {}, at {}",
                            higher.name(),
                            kind.name(),
                            self.here()
                        ),
                    )
                    .label(&v.span, format!("{} here", v.value.type_name()))
                    .label(&values[i - 1].span, format!("over {} here", values[i - 1].value.type_name()))
                    .help("reclass merges a value only over one of its kind; write `~key` to replace it, or set an allow_* option");
                    self.diags.push(d);
                    return None;
                }
            }
            kind = higher;
        }
        Some((start, prepend))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Kind::*;
    use Outcome::*;

    // Checked against kapicorp-reclass 2.0.0 with every allow_* off, then on
    // (tests in merge/tests/reclass.rs run the whole merge).
    #[test]
    fn the_table_with_nothing_allowed() {
        let none = Allow::default();
        let cases = [
            (Dict, Scalar, Error),
            (Dict, List, Error),
            (List, Dict, Error),
            (List, Scalar, Error),
            (Scalar, List, Error),
            (Scalar, Dict, Error),
            (Dict, Null, Error),
            (List, Null, Error),
            (Scalar, Null, Replace),
            (Null, Dict, Replace),
            (Null, List, Replace),
            (Dict, Dict, Merge),
            (List, List, Merge),
            (Scalar, Scalar, Replace),
        ];
        for (lower, higher, want) in cases {
            assert_eq!(
                over(&none, lower, higher),
                want,
                "{higher:?} over {lower:?}"
            );
        }
    }

    #[test]
    fn the_table_with_everything_allowed() {
        let all = Allow {
            scalar_over_dict: true,
            scalar_over_list: true,
            list_over_scalar: true,
            dict_over_scalar: true,
            none_override: true,
        };
        assert_eq!(over(&all, Dict, Scalar), Replace);
        assert_eq!(over(&all, List, Scalar), Replace);
        assert_eq!(over(&all, Scalar, Dict), Replace);
        assert_eq!(over(&all, Scalar, List), Prepend);
        assert_eq!(over(&all, Dict, Null), Replace);
        assert_eq!(over(&all, List, Null), Replace);
        // Never allowed.
        assert_eq!(over(&all, Dict, List), Error);
        assert_eq!(over(&all, List, Dict), Error);
        let only_none = Allow {
            none_override: true,
            ..Allow::default()
        };
        assert_eq!(over(&only_none, Dict, Null), Replace);
        assert_eq!(over(&only_none, Dict, Scalar), Error);
    }
}
