//! `root_password`: root's password field in /etc/master.passwd, locked
//! (`*`) unless `freebsd.root_password` gives a crypt(3) hash. The dry run
//! and the facts never show the hash: facts report `sha256:` and the digest
//! of the field.

use serde::Serialize;

use super::state::State;
use super::verdict::{Action, Verdict, change};
use super::{Input, Kind, Record, Resource, Shell, text};
use crate::fsutil::sha256_hex;
use crate::shell::{QuoteError, word as w};

/// Whether the hash is a secret (its token: src/secrets/).
fn sealed(want: &RootPassword) -> bool {
    want.hash
        .as_ref()
        .is_some_and(|h| crate::secrets::holds_token(h))
}

/// The note of a secret hash.
const SEALED_NOTE: &str =
    "it is a secret: apply compares it on the host, and no report shows it or its digest";

/// root's password: `None` locked (`*`), else this crypt(3) hash.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RootPassword {
    pub hash: Option<String>,
}

/// One on a host beryl installs, whose root is locked unless a hash is
/// given; on a host beryl adopted (`freebsd.install: none`), only when
/// `freebsd.root_password` is given: its root's password is the operator's
/// until then.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    let f = input.freebsd();
    if f.adopted() && f.root_password.is_none() {
        return Vec::new();
    }
    vec![
        RootPassword {
            hash: text(&f.root_password),
        }
        .into(),
    ]
}

impl Kind for RootPassword {
    type Want = RootPassword;
    const NAME: &'static str = "root_password";
    const TEMPLATE: Option<&'static str> =
        Some(include_str!("../../templates/steps/root_password.sh.j2"));

    fn id(&self) -> String {
        "root".into()
    }

    fn wants(&self) -> Vec<RootPassword> {
        vec![self.clone()]
    }

    fn step_kind(_: &RootPassword) -> &'static str {
        "root"
    }

    fn desired_type(_: &RootPassword) -> &'static str {
        "root_password"
    }

    fn step_id(want: &RootPassword) -> String {
        want.id()
    }

    fn shell(want: &RootPassword) -> Result<Shell, QuoteError> {
        let field = want.hash.as_deref().unwrap_or("*");
        Ok(Shell {
            check: format!(
                "[ \"$(awk -F: '$1 == \"root\" {{ print $2 }}' /etc/master.passwd)\" = {} ]",
                w(field)?
            ),
            change: match &want.hash {
                None => "pw usermod -n root -h -".to_string(),
                Some(h) => format!("printf '%s\\n' {} | pw usermod -n root -H 0", w(h)?),
            },
        })
    }

    /// The hash: the script sets it; reports, saved plans and diffs show
    /// its digest.
    fn secrets(want: &RootPassword) -> Vec<String> {
        want.hash.iter().cloned().collect()
    }

    /// A secret hash is looked at as `secret`: the facts then hold no
    /// digest of root's field.
    fn query(want: &RootPassword) -> Option<Record> {
        sealed(want).then(|| Record::new("secret", "root_password"))
    }

    fn judge(want: &RootPassword, s: &State) -> Verdict {
        // A secret hash: the facts say only whether root is locked
        // (`secret` otherwise), and the host compares the rest.
        if sealed(want) {
            return match s.root_password.as_str() {
                "*" => Verdict::new(
                    Action::Update,
                    vec![change("password", "locked", "a hash")],
                    None,
                ),
                _ => Verdict::new(Action::Unknown, Vec::new(), None).with_note(SEALED_NOTE),
            };
        }
        let wanted = want
            .hash
            .as_ref()
            .map_or("*".to_string(), |h| format!("sha256:{}", sha256_hex(h)));
        let empty = format!("sha256:{}", sha256_hex(""));
        let shown = |v: &str| {
            match v {
                "*" => "locked",
                v if v == empty => "empty",
                _ => "a hash",
            }
            .to_string()
        };
        if s.root_password == wanted {
            return Verdict::noop();
        }
        Verdict::new(
            Action::Update,
            vec![change(
                "password",
                &shown(&s.root_password),
                &shown(&wanted),
            )],
            None,
        )
    }
}
