//! `sshd`: the settings beryl manages in sshd_config (`freebsd.sshd`):
//! beryl's settings first in the global section, because sshd
//! takes the first value it reads for a keyword (sshd_config(5)). Other
//! uncommented lines for the same keywords are dropped from the global
//! section only: from the first `Match` line on, settings are conditional,
//! and a `Match` block's own value is the operator's to keep.
//!
//! The same edit exists twice, and the two must agree byte for byte: [`edit`]
//! computes the file beryl wants from the file a host has (for the dry run),
//! and [`AWK`] does it on the host (for the install and apply). The apply
//! tests run both on the same files.

use serde::Serialize;

use super::state::State;
use super::verdict::{Action, Verdict, unified};
use super::{Input, Kind, Resource, Shell};
use crate::shell::{QuoteError, word as w, words};

/// sshd's configuration.
pub(crate) const SSHD_CONFIG: &str = "/etc/ssh/sshd_config";

/// sshd settings, first in sshd_config's global section.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sshd {
    pub settings: Vec<(String, String)>,
}

/// Always one: the three settings of `freebsd.sshd`, with their defaults.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    let s = &input.freebsd().sshd;
    let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
    vec![
        Sshd {
            settings: vec![
                ("PermitRootLogin".into(), s.permit_root_login.value.clone()),
                (
                    "PasswordAuthentication".into(),
                    yes_no(s.password_authentication.value),
                ),
                (
                    "KbdInteractiveAuthentication".into(),
                    yes_no(s.kbd_interactive_authentication.value),
                ),
            ],
        }
        .into(),
    ]
}

impl Kind for Sshd {
    type Want = Sshd;
    const NAME: &'static str = "sshd";
    const TEMPLATE: Option<&'static str> = Some(include_str!("../../templates/steps/sshd.sh.j2"));

    fn id(&self) -> String {
        "sshd".into()
    }

    /// sshd reads its config when it starts or reloads, which apply does
    /// not do over its own connection.
    fn note(_: &Sshd) -> Option<&'static str> {
        Some(
            "sshd reads sshd_config when it starts or reloads: it takes effect after service sshd reload (apply does not reload sshd over its own connection)",
        )
    }

    fn wants(&self) -> Vec<Sshd> {
        vec![self.clone()]
    }

    fn step_id(want: &Sshd) -> String {
        want.id()
    }

    fn shell(want: &Sshd) -> Result<Shell, QuoteError> {
        let new = printed(&want.settings)?;
        Ok(Shell {
            check: format!("{new} | cmp -s - {SSHD_CONFIG}"),
            change: format!(
                "{new} > {SSHD_CONFIG}.beryl-tmp && mv -f {SSHD_CONFIG}.beryl-tmp {SSHD_CONFIG}"
            ),
        })
    }

    fn judge(want: &Sshd, s: &State) -> Verdict {
        let have = s
            .files
            .get(SSHD_CONFIG)
            .and_then(|f| f.as_ref())
            .map_or("", |f| f.content.as_str());
        let wanted = edit(have, &want.settings);
        if wanted == have {
            return Verdict::noop();
        }
        Verdict::new(Action::Update, Vec::new(), Some(unified(have, &wanted)))
    }
}

/// The sshd_config beryl wants, printed from the one the host has.
fn printed(settings: &[(String, String)]) -> Result<String, QuoteError> {
    let lines: Vec<String> = std::iter::once(HEADER.to_string())
        .chain(settings.iter().map(|(k, v)| format!("{k} {v}")))
        .collect();
    Ok(format!(
        "{{ printf '%s\\n' {}; awk -v keys={} {} {SSHD_CONFIG}; }}",
        words(&lines)?,
        w(&awk_keys(settings))?,
        w(AWK)?
    ))
}

/// The first line of beryl's block; an older block is dropped wherever it is.
pub(crate) const HEADER: &str = "# Set by beryl.";

/// The file beryl wants, given the one the host has.
pub(crate) fn edit(current: &str, settings: &[(String, String)]) -> String {
    let drop: Vec<String> = settings
        .iter()
        .map(|(k, _)| k.to_ascii_lowercase())
        .collect();
    let mut out = format!("{HEADER}\n");
    for (k, v) in settings {
        out.push_str(&format!("{k} {v}\n"));
    }
    let mut global = true;
    for line in current.lines() {
        if line == HEADER {
            continue;
        }
        let word = keyword(line);
        if word == "match" {
            global = false;
        }
        if global && drop.contains(&word) {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A line's keyword, lower-cased: its first word, ended by a blank or `=`
/// (sshd reads `Keyword value` and `Keyword=value`).
fn keyword(line: &str) -> String {
    line.trim_start_matches([' ', '\t'])
        .split([' ', '\t', '='])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// The awk program of [`edit`], without the header block (printed before it
/// with printf): `-v keys="k1 k2 …"` names the keywords, lower-case. POSIX
/// awk; tested with the one true awk, which FreeBSD ships.
pub(crate) const AWK: &str = r##"BEGIN { n = split(keys, k, " "); for (i = 1; i <= n; i++) drop[k[i]] = 1; global = 1 }
$0 == "# Set by beryl." { next }
{ w = $0; sub(/^[ \t]+/, "", w); sub(/[ \t=].*$/, "", w); w = tolower(w) }
w == "match" { global = 0 }
global && (w in drop) { next }
{ print }"##;

/// The `keys` value for [`AWK`].
pub(crate) fn awk_keys(settings: &[(String, String)]) -> String {
    settings
        .iter()
        .map(|(k, _)| k.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Vec<(String, String)> {
        vec![
            ("PermitRootLogin".into(), "no".into()),
            ("PasswordAuthentication".into(), "no".into()),
        ]
    }

    const FILE: &str = "#PermitRootLogin no\nPermitRootLogin yes\n  passwordauthentication=yes\nPort 22\nMatch Address 192.0.2.0/24\n\tPasswordAuthentication yes\n";

    #[test]
    fn drops_global_copies_and_keeps_match_blocks() {
        let want = "# Set by beryl.\nPermitRootLogin no\nPasswordAuthentication no\n#PermitRootLogin no\nPort 22\nMatch Address 192.0.2.0/24\n\tPasswordAuthentication yes\n";
        assert_eq!(edit(FILE, &settings()), want);
        // Idempotent: the edit of the edited file is itself.
        assert_eq!(edit(want, &settings()), want);
    }

    /// The awk program does what [`edit`] does, under the one true awk
    /// where it is installed (FreeBSD's awk), else the system's awk.
    #[test]
    fn the_awk_program_agrees() {
        let awk = ["original-awk", "awk"]
            .into_iter()
            .find(|a| {
                std::process::Command::new("sh")
                    .args(["-c", &format!("command -v {a}")])
                    .output()
                    .is_ok_and(|o| o.status.success())
            })
            .expect("an awk");
        for input in [
            FILE,
            "",
            "Match all\nPermitRootLogin yes\n",
            "# Set by beryl.\nPermitRootLogin no\nPasswordAuthentication no\nX 1\n",
        ] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("sshd_config");
            std::fs::write(&path, input).unwrap();
            let out = std::process::Command::new(awk)
                .args(["-v", &format!("keys={}", awk_keys(&settings())), AWK])
                .arg(&path)
                .output()
                .unwrap();
            assert!(out.status.success());
            let mut got =
                "# Set by beryl.\nPermitRootLogin no\nPasswordAuthentication no\n".to_string();
            got.push_str(&String::from_utf8(out.stdout).unwrap());
            assert_eq!(got, edit(input, &settings()), "{input:?}");
        }
    }
}
