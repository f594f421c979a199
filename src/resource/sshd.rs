//! `sshd`: the settings beryl manages in sshd_config (`freebsd.sshd`).
//!
//! The file beryl writes, from the one the host has:
//!
//! ```text
//! # Set by beryl.                      beryl's global settings, first:
//! PermitRootLogin no                   sshd takes the first value it reads
//! AllowGroups wheel                    for most keywords (sshd_config(5))
//! # End of the settings set by beryl.
//! …the host's own lines…               kept, less the global lines of the
//!                                      keywords beryl sets (from the first
//!                                      `Match` line on they are kept: a
//!                                      Match block's value is the operator's)
//! # Match blocks set by beryl.         beryl's Match blocks, last; every
//! Match Group sftp                     line from this one to the end of the
//!     ForceCommand internal-sftp       file is beryl's, rewritten each time
//! ```
//!
//! Everything between the two first markers is beryl's, and so is
//! everything from the third to the end: the edit of its own output is
//! that output (a second apply changes nothing), and a setting dropped
//! from the inventory leaves the file with it. A file with a first marker
//! and no second (written before the second existed) keeps its lines, less
//! beryl's keywords. An operator's `Match` block stays where it is, before
//! beryl's: for a keyword both set, sshd takes the operator's value when
//! both blocks match.
//!
//! The same edit exists twice, and the two must agree byte for byte: [`edit`]
//! computes the file beryl wants from the file a host has (for the dry run),
//! and [`AWK`] does it on the host (for the install and apply). The apply
//! tests run both on the same files. The new file is written beside the old
//! one and replaces it only once `sshd -t` accepts it ([`VALIDATE`]).

use serde::Serialize;

use super::file::Notify;
use super::state::State;
use super::verdict::{Action, Verdict, unified};
use super::{Input, Kind, Resource, Shell};
use crate::schema::{SshdMatch, SshdSetting};
use crate::shell::{QuoteError, word as w, words};

/// sshd's configuration.
pub(crate) const SSHD_CONFIG: &str = "/etc/ssh/sshd_config";

/// Where the new file is written, and checked, before it replaces the old.
pub(crate) const STAGED: &str = "/etc/ssh/sshd_config.beryl-tmp";

/// sshd settings, first in sshd_config's global section, and Match blocks
/// at its end.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sshd {
    /// One line each, in order: a keyword and its value.
    pub settings: Vec<(String, String)>,
    /// beryl's Match blocks.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub matches: Vec<Block>,
    /// Whether apply reloads sshd after a change.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reload: bool,
}

/// One Match block: its criteria and its lines.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Block {
    pub criteria: String,
    pub settings: Vec<(String, String)>,
}

/// The lines of settings: a keyword once per value.
fn lines(settings: &[SshdSetting]) -> Vec<(String, String)> {
    settings
        .iter()
        .flat_map(|s| {
            s.values
                .iter()
                .map(|v| (s.keyword.value.clone(), v.clone()))
        })
        .collect()
}

/// Always one: the three settings of old (with their defaults, unless
/// `settings` sets the keyword), then `settings`, then the Match blocks.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    // A jail is reached through its host, never by SSH (rc.rs: no
    // sshd_enable in a jail either).
    if input.is_jail() {
        return Vec::new();
    }
    let s = &input.freebsd().sshd;
    let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
    let set = |k: &str| {
        s.settings
            .iter()
            .any(|x| x.keyword.value.eq_ignore_ascii_case(k))
    };
    let mut settings: Vec<(String, String)> = [
        ("PermitRootLogin", s.permit_root_login.value.clone()),
        (
            "PasswordAuthentication",
            yes_no(s.password_authentication.value),
        ),
        (
            "KbdInteractiveAuthentication",
            yes_no(s.kbd_interactive_authentication.value),
        ),
    ]
    .into_iter()
    .filter(|(k, _)| !set(k))
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    settings.extend(lines(&s.settings));
    vec![
        Sshd {
            settings,
            matches: s.matches.iter().map(block).collect(),
            reload: s.reload.value,
        }
        .into(),
    ]
}

fn block(m: &SshdMatch) -> Block {
    Block {
        criteria: m.criteria.value.clone(),
        settings: lines(&m.settings),
    }
}

/// The note of a change that apply does not make live.
const NOT_LIVE: &str = "sshd reads sshd_config when it starts or reloads: it takes effect after service sshd reload (apply does not reload sshd over its own connection unless freebsd.sshd.reload is true)";
/// The note of a change followed by a reload.
const RELOADED: &str = "sshd -t accepted the new file; service sshd reload makes it live (new connections; open sessions keep theirs)";

impl Kind for Sshd {
    type Want = Sshd;
    const NAME: &'static str = "sshd";
    const TEMPLATE: Option<&'static str> = Some(include_str!("../../templates/steps/sshd.sh.j2"));

    fn id(&self) -> String {
        "sshd".into()
    }

    /// sshd reads its config when it starts or reloads.
    fn note(want: &Sshd) -> Option<&'static str> {
        Some(if want.reload { RELOADED } else { NOT_LIVE })
    }

    fn notify(want: &Sshd) -> Vec<Notify> {
        match want.reload {
            true => vec![Notify {
                service: "sshd".into(),
                action: "reload".into(),
            }],
            false => Vec::new(),
        }
    }

    fn wants(&self) -> Vec<Sshd> {
        vec![self.clone()]
    }

    fn step_id(want: &Sshd) -> String {
        want.id()
    }

    fn shell(want: &Sshd) -> Result<Shell, QuoteError> {
        let new = printed(want)?;
        Ok(Shell {
            check: format!("{new} | cmp -s - {SSHD_CONFIG}"),
            change: format!(
                "rm -f {STAGED} && {new} > {STAGED} || return 1\n{VALIDATE} || return 1\nmv -f {STAGED} {SSHD_CONFIG}"
            ),
        })
    }

    fn judge(want: &Sshd, s: &State) -> Verdict {
        let have = s
            .files
            .get(SSHD_CONFIG)
            .and_then(|f| f.as_ref())
            .map_or("", |f| f.content.as_str());
        let wanted = edit(have, want);
        if wanted == have {
            return Verdict::noop();
        }
        Verdict::new(Action::Update, Vec::new(), Some(unified(have, &wanted)))
    }
}

/// The check of the staged file, in the apply script and the setup script
/// alike: `sshd -t` with a throwaway host key (`-h`: at install the host has
/// none yet, and `sshd -t` refuses a config without one, "no hostkeys
/// available"); on failure the staged file is removed, the old file stays,
/// and the step fails saying so.
pub(crate) const VALIDATE: &str = r#"if ! beryl_key=$(mktemp -d /tmp/beryl-sshd.XXXXXXXX); then
	rm -f /etc/ssh/sshd_config.beryl-tmp
	false
elif ! ssh-keygen -q -t ed25519 -N '' -f "$beryl_key/key" >/dev/null ||
	! sshd -t -f /etc/ssh/sshd_config.beryl-tmp -h "$beryl_key/key"; then
	rm -rf "$beryl_key" /etc/ssh/sshd_config.beryl-tmp
	printf '%s\n' 'beryl: sshd -t refused the new sshd_config (above); /etc/ssh/sshd_config is unchanged' >&2
	false
else
	rm -rf "$beryl_key"
fi"#;

/// The shell that prints the sshd_config beryl wants from the one the host
/// has.
fn printed(want: &Sshd) -> Result<String, QuoteError> {
    let tail = match match_section(&want.matches) {
        Some(lines) => format!("; printf '%s\\n' {}", words(&lines)?),
        None => String::new(),
    };
    Ok(format!(
        "{{ printf '%s\\n' {}; awk -v keys={} {} {SSHD_CONFIG}{tail}; }}",
        words(&head(&want.settings))?,
        w(&awk_keys(&want.settings))?,
        w(AWK)?
    ))
}

/// The first line of beryl's block; an older block is dropped wherever it is.
pub(crate) const HEADER: &str = "# Set by beryl.";
/// The last line of beryl's global block.
pub(crate) const END: &str = "# End of the settings set by beryl.";
/// The first line of beryl's Match blocks, which run to the end of the file.
pub(crate) const MATCH_HEADER: &str = "# Match blocks set by beryl.";

/// beryl's global block: the header, the settings, the end marker.
pub(crate) fn head(settings: &[(String, String)]) -> Vec<String> {
    std::iter::once(HEADER.to_string())
        .chain(settings.iter().map(|(k, v)| format!("{k} {v}")))
        .chain(std::iter::once(END.to_string()))
        .collect()
}

/// beryl's Match section, or `None` without a block.
pub(crate) fn match_section(blocks: &[Block]) -> Option<Vec<String>> {
    if blocks.is_empty() {
        return None;
    }
    let mut out = vec![MATCH_HEADER.to_string()];
    for b in blocks {
        out.push(format!("Match {}", b.criteria));
        out.extend(b.settings.iter().map(|(k, v)| format!("\t{k} {v}")));
    }
    Some(out)
}

/// The file beryl wants, given the one the host has.
pub(crate) fn edit(current: &str, want: &Sshd) -> String {
    let mut out = super::lines(head(&want.settings).iter());
    let mut keep = Keep {
        drop: awk_keys(&want.settings)
            .split(' ')
            .map(str::to_string)
            .collect(),
        global: true,
        gone: false,
    };
    let mut pending: Option<Vec<&str>> = None;
    for line in current.lines() {
        if let Some(buffer) = pending.as_mut() {
            if line == END {
                pending = None;
            } else {
                buffer.push(line);
            }
            continue;
        }
        if line == HEADER {
            pending = Some(Vec::new());
            continue;
        }
        keep.line(line, &mut out);
    }
    for line in pending.unwrap_or_default() {
        keep.line(line, &mut out);
    }
    if let Some(lines) = match_section(&want.matches) {
        out.push_str(&super::lines(lines.iter()));
    }
    out
}

/// Which of the host's lines stay (the awk program's `out`).
struct Keep {
    drop: Vec<String>,
    global: bool,
    gone: bool,
}

impl Keep {
    fn line(&mut self, line: &str, out: &mut String) {
        if self.gone || line == MATCH_HEADER {
            self.gone = true;
            return;
        }
        if line == HEADER || line == END {
            return;
        }
        let word = keyword(line);
        if word == "match" {
            self.global = false;
        }
        if self.global && self.drop.contains(&word) {
            return;
        }
        out.push_str(line);
        out.push('\n');
    }
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

/// The awk program of [`edit`], without beryl's blocks (printed before and
/// after it with printf): `-v keys="k1 k2 …"` names the keywords,
/// lower-case. POSIX awk; tested with the one true awk, which FreeBSD ships.
pub(crate) const AWK: &str = r##"function out(line,    w) {
	if (gone || line == "# Match blocks set by beryl.") { gone = 1; return }
	if (line == "# Set by beryl." || line == "# End of the settings set by beryl.") return
	w = line; sub(/^[ \t]+/, "", w); sub(/[ \t=].*$/, "", w); w = tolower(w)
	if (w == "match") global = 0
	if (global && (w in drop)) return
	print line
}
BEGIN { n = split(keys, k, " "); for (i = 1; i <= n; i++) drop[k[i]] = 1; global = 1 }
pending && $0 == "# End of the settings set by beryl." { pending = 0; nb = 0; next }
pending { buf[++nb] = $0; next }
$0 == "# Set by beryl." { pending = 1; nb = 0; next }
{ out($0) }
END { if (pending) for (i = 1; i <= nb; i++) out(buf[i]) }"##;

/// The `keys` value for [`AWK`]: each keyword once, lower-case.
pub(crate) fn awk_keys(settings: &[(String, String)]) -> String {
    let mut keys: Vec<String> = Vec::new();
    for (k, _) in settings {
        let k = k.to_ascii_lowercase();
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn want(matches: Vec<Block>) -> Sshd {
        Sshd {
            settings: vec![
                ("PermitRootLogin".into(), "no".into()),
                ("PasswordAuthentication".into(), "no".into()),
                ("AllowGroups".into(), "wheel".into()),
                ("AllowGroups".into(), "staff".into()),
            ],
            matches,
            reload: false,
        }
    }

    fn sftp() -> Vec<Block> {
        vec![Block {
            criteria: "Group sftp".into(),
            settings: vec![
                ("ForceCommand".into(), "internal-sftp".into()),
                ("AllowTcpForwarding".into(), "no".into()),
            ],
        }]
    }

    const HEAD: &str = "# Set by beryl.\nPermitRootLogin no\nPasswordAuthentication no\nAllowGroups wheel\nAllowGroups staff\n# End of the settings set by beryl.\n";

    const FILE: &str = "#PermitRootLogin no\nPermitRootLogin yes\n  passwordauthentication=yes\nPort 22\nallowgroups old\nMatch Address 192.0.2.0/24\n\tPasswordAuthentication yes\n";

    #[test]
    fn drops_global_copies_and_keeps_match_blocks() {
        let wanted = format!(
            "{HEAD}#PermitRootLogin no\nPort 22\nMatch Address 192.0.2.0/24\n\tPasswordAuthentication yes\n"
        );
        assert_eq!(edit(FILE, &want(Vec::new())), wanted);
        // Idempotent: the edit of the edited file is itself.
        assert_eq!(edit(&wanted, &want(Vec::new())), wanted);
        // A longer word that starts with a keyword beryl sets is not it.
        let longer = "PermitRootLoginExtra yes\nPermitRootLogin\tyes\n";
        assert_eq!(
            edit(longer, &want(Vec::new())),
            format!("{HEAD}PermitRootLoginExtra yes\n")
        );
    }

    #[test]
    fn match_blocks_go_last_and_are_rewritten() {
        let first = edit(FILE, &want(sftp()));
        assert!(first.ends_with(
            "\tPasswordAuthentication yes\n# Match blocks set by beryl.\nMatch Group sftp\n\tForceCommand internal-sftp\n\tAllowTcpForwarding no\n"
        ), "{first}");
        assert_eq!(edit(&first, &want(sftp())), first);
        // Dropped from the inventory: the block leaves the file, the
        // operator's stays.
        let dropped = edit(&first, &want(Vec::new()));
        assert_eq!(dropped, edit(FILE, &want(Vec::new())));
    }

    #[test]
    fn a_setting_dropped_from_the_inventory_leaves_the_file() {
        let first = edit(FILE, &want(Vec::new()));
        let mut fewer = want(Vec::new());
        fewer.settings.truncate(2);
        let second = edit(&first, &fewer);
        assert!(!second.contains("AllowGroups"), "{second}");
    }

    #[test]
    fn an_older_block_without_its_end_marker_keeps_the_other_lines() {
        let old = "# Set by beryl.\nPermitRootLogin no\nPasswordAuthentication no\nX 1\n";
        let got = edit(old, &want(Vec::new()));
        assert_eq!(got, format!("{HEAD}X 1\n"));
    }

    /// The install runs the same check as apply.
    #[test]
    fn the_install_template_validates_as_apply_does() {
        let template = include_str!("../../templates/steps/sshd.sh.j2");
        assert!(template.contains(VALIDATE));
        let change = Sshd::shell(&want(sftp())).unwrap().change;
        assert!(change.contains(VALIDATE));
        assert!(change.ends_with("mv -f /etc/ssh/sshd_config.beryl-tmp /etc/ssh/sshd_config"));
    }

    const INPUTS: &[&str] = &[
        FILE,
        "",
        "Match all\nPermitRootLogin yes\n",
        "# Set by beryl.\nPermitRootLogin no\nPasswordAuthentication no\nX 1\n",
        "# Set by beryl.\nAllowGroups x\n# End of the settings set by beryl.\nPort 22\n# Match blocks set by beryl.\nMatch User a\n\tX11Forwarding no\n",
        "no newline at the end",
        "PermitRootLoginExtra yes\nPermitRootLogin yes\nPermitRootLogin\tyes\n",
        "# Match blocks set by beryl.\n# Set by beryl.\nY 2\n",
    ];

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
        for matches in [Vec::new(), sftp()] {
            let want = want(matches);
            for input in INPUTS {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join("sshd_config");
                std::fs::write(&path, input).unwrap();
                let out = std::process::Command::new(awk)
                    .args(["-v", &format!("keys={}", awk_keys(&want.settings)), AWK])
                    .arg(&path)
                    .output()
                    .unwrap();
                assert!(out.status.success());
                let mut got = super::super::lines(head(&want.settings).iter());
                got.push_str(&String::from_utf8(out.stdout).unwrap());
                if let Some(tail) = match_section(&want.matches) {
                    got.push_str(&super::super::lines(tail.iter()));
                }
                assert_eq!(got, edit(input, &want), "{input:?}");
            }
        }
    }
}
