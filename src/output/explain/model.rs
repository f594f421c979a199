//! The explanation, as `explain` prints it with `--format json`: a stable
//! form, documented in docs/references.md (fields may be added, never
//! renamed or removed).

use serde::Serialize;

/// The explanation of a path and its subtree. Its JSON form is documented in
/// docs/references.md and stable.
#[derive(Debug, Serialize)]
pub(crate) struct Explanation {
    pub host: String,
    /// The path explained, as `explain` reads it back (list items by name).
    pub path: String,
    /// How the path asked for was read, when it was not as written: a list
    /// item named by position, a root key the config does not hold.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub entries: Vec<Entry>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Entry {
    pub path: String,
    /// The final value; absent when the key was deleted.
    pub value: Option<serde_json::Value>,
    /// Where the final value was written (`file:line:col`); absent for
    /// computed and merged values.
    pub at: Option<String>,
    /// For a deleted value: what removed it (from the highest level that
    /// wrote it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed_by: Option<Cause>,
    /// For a value that an inventory query gathered: the query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<Query>,
    pub strategy: StrategyInForce,
    pub levels: Vec<LevelEntry>,
    /// For lists: each item and its origin.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<Reference>,
    /// The secrets the value holds (docs/secrets.md): never their values.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<Secret>,
}

/// A secret a value holds: its token, where it is encrypted, its recorded
/// type and who can decrypt it.
#[derive(Debug, Serialize)]
pub(crate) struct Secret {
    pub token: String,
    /// `file:line:col` of the encrypted value.
    pub at: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Each recipient: an age key, or an SSH key's type and fingerprint.
    pub recipients: Vec<String>,
}

#[derive(Debug, Serialize)]
pub(crate) struct StrategyInForce {
    /// The spec, with its options (`append`, `deep (knockout_prefix: "--")`).
    pub name: String,
    /// `rule`, `built-in`, `inherited`, `whole` (taken whole by an ancestor),
    /// `reclass` (a list that reclass's dialect concatenates) or `default`.
    pub source: &'static str,
    /// The rule's pattern, for `rule` and `built-in`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Where the rule was written (`file:line:col`), for `rule`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// The ancestor path, for `inherited` and `whole`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

#[derive(Debug, Serialize)]
pub(crate) struct LevelEntry {
    pub file: String,
    /// `line:col` in that file of the key, the knockout, or the query that
    /// gathered the value; absent when not set.
    pub at: Option<String>,
    pub value: Option<serde_json::Value>,
    /// What happened: `not set`, `wins`, `replaced`, `merged`, `appended …`,
    /// `knocks out …`, `deleted by …`, `constant …`, `deferred …`.
    pub outcome: String,
}

/// What removed a value: a knockout, a `~`/`=` key, or a value that replaced
/// an ancestor.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Cause {
    pub kind: CauseKind,
    /// What was written there: `name: --bob`, `--vim`, `~freebsd`,
    /// `monitoring: false`.
    pub text: String,
    /// Where (`file:line:col`).
    pub at: String,
}

/// The ways a value is removed (in JSON, the lowercase name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum CauseKind {
    /// A knockout: `--vim`, `name: --bob`, a `deep` `key: --`.
    Knockout,
    /// A `patch` null.
    Null,
    /// A `~` or `=` key above the path.
    Override,
    /// An ancestor replaced by a value of another kind.
    Replaced,
    /// A list replaced whole, without the item.
    List,
    /// An ancestor taken whole from the highest level that writes it.
    Whole,
    /// A key a jail inherited and does not take (src/compile/jail.rs).
    Jail,
}

/// The inventory query a value came from.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Query {
    /// The query as written (`$[ … ]`).
    pub text: String,
    /// Where the query is written (`file:line:col`).
    pub at: String,
    /// The host whose exports gave the value, for a path below the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Item {
    pub value: serde_json::Value,
    pub at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Reference {
    /// The string as written, and where.
    pub text: String,
    pub at: String,
    pub targets: Vec<Target>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Target {
    pub path: String,
    /// Where the target's value was written.
    pub at: Option<String>,
}
