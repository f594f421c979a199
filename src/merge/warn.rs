//! The merge's warnings: a value that does nothing, or undoes more than its
//! author likely meant. Each is located at the value, with a help.
//!
//! | code | when |
//! |---|---|
//! | `beryl::merge::knockout_unused` | a knockout (`--x`, `name: --x`) finds nothing to remove below it |
//! | `beryl::merge::empty_patch` | an empty value (`key:` and nothing after it) deletes what lower levels merged, under `patch` |

use super::Code;
use super::Engine;
use crate::diag::Diag;
use crate::value::{Node, Span, Value};

/// A knockout that removed nothing.
pub(super) struct Knockout<'a> {
    /// The marker as written: `--vimm`, or `name: --bbo`.
    pub written: String,
    /// What it was to remove: `vimm`.
    pub target: &'a str,
    /// Where the marker is.
    pub span: &'a Span,
    /// `lists` for a list of strings, `defines the item` for a keyed list.
    pub what: &'static str,
}

impl Engine<'_> {
    /// Reports a knockout that removed nothing. `below` is what the lower
    /// levels hold (text and place); one of them a single edit away from
    /// the target is offered as the one meant.
    pub(super) fn knockout_unused<'b>(
        &mut self,
        k: &Knockout<'_>,
        below: impl IntoIterator<Item = (&'b str, &'b Span)>,
    ) {
        let meant = below
            .into_iter()
            .find(|(text, _)| strsim::damerau_levenshtein(k.target, text) == 1);
        let guess = meant
            .map(|(text, _)| format!("; did you mean `{text}`?"))
            .unwrap_or_default();
        let mut d = Diag::warning(
            Code::KnockoutUnused,
            format!(
                "`{}` removes nothing: no lower level {} `{}` in {}{guess}",
                k.written,
                k.what,
                k.target,
                self.here()
            ),
        )
        .label(k.span, "removes nothing");
        if let Some((text, span)) = meant {
            d = d.label(span, format!("`{text}` is merged from here"));
        }
        self.diags.push(d.help(
            "a knockout removes an item that a lower level of the chain gives; \
             fix the name, or delete the knockout if nothing needs removing",
        ));
    }

    /// Reports an empty value that deletes, under `patch`, the value merged
    /// from the lower levels (`wiped`). An explicit `~` or `null` deletes on
    /// purpose and is not reported.
    pub(super) fn empty_patch(&mut self, empty: &Node, wiped: &Node, member: bool) {
        if !written_empty(empty) || matches!(wiped.value, Value::Null) {
            return;
        }
        let (message, label) = if member {
            (
                format!(
                    "the empty value of `{}` deletes it under `patch`, with everything the lower levels merged there",
                    self.here()
                ),
                "empty: null, which deletes under `patch`",
            )
        } else {
            (
                "the empty document replaces everything merged below it under `patch`".to_string(),
                "an empty document is null",
            )
        };
        let help = if member {
            "`key:` with nothing after it (or only comments) is null, and a null deletes under `patch` (RFC 7396); \
             write `{}` to keep the merged value, or `~` to delete it on purpose"
        } else {
            "an empty document is null, and a patch that is not a mapping replaces the target (RFC 7396); \
             remove the file, or give it `{}`"
        };
        self.diags.push(
            Diag::warning(Code::EmptyPatch, message)
                .label(&empty.span, label)
                .label(&wiped.span, "this value is deleted")
                .help(help),
        );
    }
}

/// A null written as nothing: `key:` with no value, or an empty document.
fn written_empty(node: &Node) -> bool {
    matches!(node.value, Value::Null)
        && crate::yaml::written(node)
            .is_some_and(|t| t.trim().is_empty() || t.trim_start().starts_with('#'))
}
