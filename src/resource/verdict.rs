//! The dry run's vocabulary: what applying one step would do to the host a
//! facts snapshot describes ([`Verdict`]), as each kind's `judge` says it.

use serde::Serialize;

use super::state;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Action {
    Create,
    Update,
    Delete,
    Noop,
    /// No snapshot: decided on the host.
    Unknown,
    /// The host has what apply will not touch (a symbolic link where a
    /// file or a directory should be): the step fails there, saying why.
    Refuse,
}

/// One field that differs. `before` and `after` are strings, except for a
/// user's `groups`: lists of names.
#[derive(Debug, Serialize)]
pub(crate) struct Change {
    pub field: String,
    pub before: serde_json::Value,
    pub after: serde_json::Value,
}

/// What applying one step would do: the action, the fields that differ, and
/// a unified diff of a file's content when it changes.
#[derive(Debug)]
pub(crate) struct Verdict {
    pub action: Action,
    pub changes: Vec<Change>,
    pub diff: Option<String>,
    /// What this host's state adds to say, whatever the action (a file
    /// beryl did not create is kept when it leaves the config).
    pub note: Option<&'static str>,
}

impl Verdict {
    pub(crate) fn new(action: Action, changes: Vec<Change>, diff: Option<String>) -> Verdict {
        Verdict {
            action,
            changes,
            diff,
            note: None,
        }
    }

    /// The verdict with a note of its own ([`Verdict::note`]).
    pub(crate) fn with_note(self, note: &'static str) -> Verdict {
        Verdict {
            note: Some(note),
            ..self
        }
    }

    /// Nothing to do.
    pub(crate) fn noop() -> Verdict {
        Verdict::new(Action::Noop, Vec::new(), None)
    }

    /// Created, with nothing more to say.
    pub(crate) fn create() -> Verdict {
        Verdict::new(Action::Create, Vec::new(), None)
    }

    /// Created when absent, else nothing to do.
    pub(crate) fn create_unless(present: bool) -> Verdict {
        if present {
            Verdict::noop()
        } else {
            Verdict::create()
        }
    }

    /// What apply will refuse on this host, and why (`type: link -> file`).
    pub(crate) fn refuse(changes: Vec<Change>) -> Verdict {
        Verdict::new(Action::Refuse, changes, None)
    }

    /// Nothing to do without changes, else an update with them.
    pub(crate) fn update(changes: Vec<Change>, diff: Option<String>) -> Verdict {
        if changes.is_empty() {
            Verdict::noop()
        } else {
            Verdict::new(Action::Update, changes, diff)
        }
    }
}

/// A field that differs, as strings.
pub(crate) fn change(field: &str, before: &str, after: &str) -> Change {
    Change {
        field: field.into(),
        before: before.into(),
        after: after.into(),
    }
}

/// Mode, owner and content of a file; the unified diff when the content
/// differs.
/// Whether a file's content may be shown: `Secret` for a managed file
/// others may not read (its digest only), `Shown` for one whose content is
/// no secret whatever its mode (authorized_keys: public keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Content {
    Shown,
    Secret,
    /// A file that holds a secret (src/secrets/): the facts hold neither
    /// its content nor its digest, so its content is left to the host.
    Sealed,
}

/// What applying a whole file would do, after the `changes` a kind found
/// itself: refused where the host has a symbolic link (apply follows none),
/// else an update with the fields and content that differ.
pub(crate) fn judge_file(
    have: &state::File,
    want: (&str, Content),
    mode: &str,
    owner: &str,
    group: &str,
    mut changes: Vec<Change>,
) -> Verdict {
    let (content, shown) = want;
    let refused = match have.kind {
        state::Type::Link => Some("link"),
        state::Type::Untrusted => Some("untrusted"),
        state::Type::File | state::Type::Dir => None,
    };
    if let Some(kind) = refused {
        changes.push(change("type", kind, "file"));
        return Verdict::refuse(changes);
    }
    if shown == Content::Sealed || have.secret {
        compare_owner_mode(have, mode, owner, group, &mut changes);
        return Verdict::new(Action::Unknown, changes, None).with_note(SEALED_NOTE);
    }
    let diff = compare_file(have, content, mode, owner, group, &mut changes);
    // A private file's content is shown by its digest on both sides: no
    // diff of its lines (facts do not even read them).
    if shown == Content::Secret || have.private {
        if diff.is_some() {
            // The host's side is a digest already (facts read no content).
            let have = format!("sha256:{}", have.sha256);
            changes.push(change("content", &have, &super::digest_of(content)));
        }
        return Verdict::update(changes, None);
    }
    Verdict::update(changes, diff)
}

/// The note of a file that holds a secret.
pub(crate) const SEALED_NOTE: &str = "it holds a secret: apply compares its content on the host, and no report shows it or its digest";

fn compare_owner_mode(
    have: &state::File,
    mode: &str,
    owner: &str,
    group: &str,
    changes: &mut Vec<Change>,
) {
    if have.mode != mode {
        changes.push(change("mode", &have.mode, mode));
    }
    let (ho, wo) = (
        format!("{}:{}", have.owner, have.group),
        format!("{owner}:{group}"),
    );
    if ho != wo {
        changes.push(change("owner", &ho, &wo));
    }
}

fn compare_file(
    have: &state::File,
    content: &str,
    mode: &str,
    owner: &str,
    group: &str,
    changes: &mut Vec<Change>,
) -> Option<String> {
    compare_owner_mode(have, mode, owner, group, changes);
    let want = crate::fsutil::sha256_hex(content);
    if have.sha256 == want {
        return None;
    }
    changes.push(change("sha256", &have.sha256, &want));
    let digests = Some((have.sha256.as_str(), want.as_str()));
    let header = Some(("current", "desired"));
    Some(crate::textdiff::unified_with(
        &have.content,
        content,
        header,
        3,
        digests,
    ))
}

/// A file to be created, as a reviewer needs it: its lines as a diff from
/// nothing (`--- /dev/null`), or, for a file others may not read, only its
/// digest.
pub(crate) fn create_file(content: &str, shown: Content) -> Verdict {
    match shown {
        Content::Shown => {
            // From nothing: linear, whatever its size (no bound needed).
            let diff = similar::TextDiff::from_lines("", content)
                .unified_diff()
                .header("/dev/null", "desired")
                .to_string();
            Verdict::new(Action::Create, Vec::new(), Some(diff))
        }
        Content::Secret | Content::Sealed => {
            let digest = super::digest_of(content);
            Verdict::new(Action::Create, vec![change("content", "", &digest)], None)
        }
    }
}

/// A unified diff from what the host has to what beryl wants; past the
/// bound of docs/limits.md (a 3,000,000-line authorized_keys on
/// the host), one line that says how many lines differ, with both digests
/// ([`crate::textdiff`]).
pub(crate) fn unified(have: &str, want: &str) -> String {
    crate::textdiff::unified(have, want, Some(("current", "desired")), 3)
}
