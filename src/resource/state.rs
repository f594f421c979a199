//! A host's observed state: the snapshot the `facts` script writes
//! (docs/apply.md), which each kind's `judge` reads. After [`State`], one
//! type per thing a kind observes, named as the kind, in the kinds' order.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The facts script, shipped with beryl; the functions it shares with the
/// apply script ([`super::HOST_LIB`]) go in place of its `@LIB@` line.
pub(crate) const FACTS_SCRIPT: &str = include_str!("../../templates/facts.sh");

/// The snapshot format this beryl writes and reads (4: each snapshot names
/// the host it was taken for and the digest of the script that took it; 5:
/// modes have four digits, `1777`, and every byte that is not printable
/// ASCII is written `\u00XX`, so the snapshot is ASCII whatever the host
/// holds). A snapshot of format 4 is refused: its three-digit modes cannot
/// say whether a set-id or sticky bit is set, and its script is not this
/// beryl's anyway.
pub(crate) const FORMAT_VERSION: u32 = 5;

/// A host's facts script and its digest, which the snapshots it takes
/// carry (`"script"`): what binds a snapshot to the host and config it was
/// taken for (docs/apply.md §3).
#[derive(Debug, Clone)]
pub(crate) struct FactsScript {
    pub text: String,
    /// sha256 of the script without its own digest line.
    pub sha256: String,
}

/// The facts script of a host: [`FACTS_SCRIPT`] with, in place of the
/// `@QUERIES@` line, the host it is for (`beryl_host`), its queries (the
/// ids of each kind to look at, `q_KIND`, newline-separated) and the digest
/// of all the rest (`beryl_script`), which the snapshot repeats.
pub(crate) fn facts_script(
    fqdn: &str,
    queries: &BTreeMap<&'static str, Vec<String>>,
) -> Result<FactsScript, crate::shell::QuoteError> {
    let mut lines = format!(
        "# The host this script is for, and what its config manages, by kind.\nberyl_host={}\n",
        crate::shell::word(fqdn)?
    );
    if !queries.is_empty() {
        lines.push_str("# shellcheck disable=SC2034 # ids() reads them through eval\n{\n");
        for (kind, ids) in queries {
            let ids: String = ids.iter().map(|id| format!("{id}\n")).collect();
            lines.push_str(&format!("q_{kind}={}\n", crate::shell::word(&ids)?));
        }
        lines.push_str("}\n");
    }
    // The constant part is split at its placeholder: none is looked for in
    // data.
    let template = FACTS_SCRIPT.replace("@LIB@\n", super::HOST_LIB);
    let (head, tail) = template
        .split_once("@QUERIES@\n")
        .unwrap_or((template.as_str(), ""));
    let sha256 = crate::fsutil::sha256_hex(&format!("{head}{lines}{tail}"));
    let text = format!("{head}{lines}beryl_script={sha256}\n{tail}");
    Ok(FactsScript { text, sha256 })
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct State {
    #[serde(default)]
    pub format_version: u32,
    /// The FQDN the facts script was generated for (`beryl facts HOST`).
    #[serde(default)]
    pub host: String,
    /// The sha256 of that script ([`FactsScript::sha256`]).
    #[serde(default)]
    pub script: String,
    #[serde(default)]
    pub timezone: String,
    /// Whether pkg is bootstrapped (`/usr/local/sbin/pkg` exists).
    #[serde(default)]
    pub pkg: Option<bool>,
    /// Installed package names (`pkg query %n`).
    #[serde(default)]
    pub packages: Vec<String>,
    /// Their origins (`pkg query %o`), such as `security/sudo`.
    #[serde(default)]
    pub origins: Vec<String>,
    #[serde(default)]
    pub groups: BTreeMap<String, Group>,
    #[serde(default)]
    pub users: BTreeMap<String, User>,
    /// Files beryl manages (other than authorized_keys), by path; `null`
    /// when absent.
    #[serde(default)]
    pub files: BTreeMap<String, Option<File>>,
    /// Every rc.conf variable with its value across the defaults and
    /// rc.conf's files (`sysrc -A`).
    #[serde(default)]
    pub rc_conf: BTreeMap<String, String>,
    /// The variables each `rc.conf.d` file sets, by the file's path
    /// (`/etc/rc.conf.d/sshd`).
    #[serde(default)]
    pub rc_conf_d: BTreeMap<String, BTreeMap<String, String>>,
    /// The host's record of what beryl created there, as `[KIND, ID]`.
    #[serde(default)]
    pub managed: Vec<(String, String)>,
    /// root's password field: `*` when locked, else `sha256:` and the
    /// digest of the field (never the hash itself).
    #[serde(default)]
    pub root_password: String,
    /// The services of `freebsd.services`, by rc.d script name: whether
    /// `service NAME status` exits 0.
    #[serde(default)]
    pub services: BTreeMap<String, Service>,
    /// The imported pools (`zpool list -H -o name`); `None` when the
    /// snapshot does not say.
    #[serde(default)]
    pub zpools: Option<Vec<String>>,
    /// Datasets by name, with the properties beryl manages; `null` when
    /// absent.
    #[serde(default)]
    pub zfs: BTreeMap<String, Option<Zfs>>,
    /// The live value of each sysctl asked about (`ids sysctl`); `null` for
    /// a name the kernel does not know.
    #[serde(default)]
    pub sysctl: BTreeMap<String, Option<String>>,
    /// /etc/sysctl.conf; `null` when absent.
    #[serde(default)]
    pub sysctl_conf: Option<File>,
    /// The variables /boot/loader.conf sets (`sysrc -f /boot/loader.conf -a`).
    #[serde(default)]
    pub loader_conf: BTreeMap<String, String>,
    /// beryl's cron files, by entry name (`ids cron`); `null` when absent.
    #[serde(default)]
    pub cron: BTreeMap<String, Option<File>>,
    /// The host's jails that the config names or the record holds, by name
    /// (issue 36).
    #[serde(default)]
    pub jails: BTreeMap<String, Jail>,
}

/// A jail on the host (issue 36), as the facts script's `jails()` prints
/// it: every jail beryl's config names or its record holds, in full; every
/// other running jail or `/etc/jail.conf.d/NAME.conf` only as far as the
/// report of jails beryl did not make needs it (running, and the conf's
/// presence: `type` and no digest, never read).
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct Jail {
    /// It is in `jls name`'s list.
    #[serde(default)]
    pub running: bool,
    // The snapshot also holds `jid` and `path` of a running jail (`jls -j
    // NAME jid|path`), for the reader; no verdict needs them.
    /// `/etc/jail.conf.d/NAME.conf` and `/etc/fstab.NAME`; `null` (or left
    /// out) when absent.
    #[serde(default)]
    pub conf: Option<File>,
    #[serde(default)]
    pub fstab: Option<File>,
    /// The dataset's `beryl:base` (empty or `-` when unset).
    #[serde(default)]
    pub base: Option<String>,
    /// The digests in /var/db/beryl/jails/NAME.start and NAME.pending.
    #[serde(default)]
    pub started: Option<String>,
    #[serde(default)]
    pub pending: Option<String>,
    /// What `stat -f '%Su %Lp'` prints for the directories above its tree
    /// (the running root's parent, /usr/local/jails), by directory
    /// (src/resource/jail.rs PRIVATE).
    #[serde(default)]
    pub dirs: BTreeMap<String, String>,
    /// What `jls -j NAME -n P` prints for each live parameter P the `jail`
    /// step compares (`P=V`, `P` or `noP`; empty when jls refuses P), by P.
    #[serde(default)]
    pub params: BTreeMap<String, String>,
}

/// Why a snapshot is not one of the host and script it is compared for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Unbound {
    /// It was taken for another host (named).
    Host(String),
    /// It was taken by another facts script: the config, or beryl, changed
    /// since, and the snapshot may not look at what the config manages now.
    Script,
}

impl Unbound {
    /// What the snapshot is, said the same in every message: `a snapshot
    /// of HOST`, `a snapshot that names no host`, or `taken by another
    /// facts script`.
    pub(crate) fn what(&self) -> String {
        match self {
            Unbound::Host(other) if other.is_empty() => "a snapshot that names no host".into(),
            // The snapshot's own words (a hostile jail's): shown, never obeyed.
            Unbound::Host(other) => {
                format!("a snapshot of {}", crate::value::repr::visible(other, &[]))
            }
            Unbound::Script => "taken by another facts script".into(),
        }
    }
}

impl State {
    /// A snapshot read from the facts script's JSON, every string (and
    /// every key) taken back to the host's bytes ([`host_text`]). A JSON
    /// error names its line and column.
    pub(crate) fn parse(text: &[u8]) -> serde_json::Result<State> {
        // Its shape first, where an error still knows its place.
        serde_json::from_slice::<State>(text)?;
        let mut value: serde_json::Value = serde_json::from_slice(text)?;
        host_strings(&mut value);
        serde_json::from_value(value)
    }

    /// Whether this snapshot was taken on `fqdn` by the facts script whose
    /// digest is `script` ([`FactsScript::sha256`]).
    pub(crate) fn bound_to(&self, fqdn: &str, script: &str) -> Result<(), Unbound> {
        if self.host != fqdn {
            return Err(Unbound::Host(self.host.clone()));
        }
        if self.script != script {
            return Err(Unbound::Script);
        }
        Ok(())
    }
}

/// Every string of a snapshot, keys too, as [`host_text`] reads it.
fn host_strings(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::String(s) if !s.is_ascii() => *s = host_text(s),
        Value::Array(items) => items.iter_mut().for_each(host_strings),
        Value::Object(map) => {
            *map = std::mem::take(map)
                .into_iter()
                .map(|(k, mut v)| {
                    host_strings(&mut v);
                    (if k.is_ascii() { k } else { host_text(&k) }, v)
                })
                .collect();
        }
        _ => {}
    }
}

/// The host's bytes of a snapshot string: the facts script writes each byte
/// that is not printable ASCII as `\u00XX`, so every character of the
/// string is one byte (U+0000 to U+00FF). `None` for a character above
/// U+00FF, which that script never writes.
pub(crate) fn host_bytes(s: &str) -> Option<Vec<u8>> {
    s.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect()
}

/// A snapshot string as beryl compares and shows it: the host's bytes
/// ([`host_bytes`]) as UTF-8 where they are UTF-8, so that a desired `é`
/// (C3 A9) equals the host's C3 A9; each byte that is not, as `\xXX`, so
/// that a Latin-1 `é` (E9, which pw allows in a GECOS field:
/// usr.sbin/pw/pw_user.c @bec1c10a, `pw_checkname`) reads `Ren\xE9`, a
/// difference shown readably. A string with a character above U+00FF is
/// kept as it is.
pub(crate) fn host_text(s: &str) -> String {
    let Some(bytes) = host_bytes(s) else {
        return s.to_string();
    };
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

/// A group (`group`), as `pw groupshow` shows it.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Group {
    #[serde(default)]
    pub gid: String,
    /// Comma-separated, as `pw groupshow` prints them.
    #[serde(default)]
    pub members: String,
}

/// A user (`user`, `keys`), as `pw usershow` shows it, and the home's
/// `.ssh`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct User {
    #[serde(default)]
    pub uid: String,
    #[serde(default)]
    pub gid: String,
    #[serde(default)]
    pub comment: String,
    #[serde(default)]
    pub shell: String,
    #[serde(default)]
    pub authorized_keys: Option<File>,
    /// The `.ssh` directory of the home.
    #[serde(default)]
    pub ssh_dir: Option<Dir>,
}

/// A directory's mode and owner.
#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct Dir {
    pub mode: String,
    pub owner: String,
    /// A symbolic link where the directory should be: the facts report
    /// the link's own mode and owner, never follow it.
    #[serde(default, rename = "type")]
    pub kind: Type,
}

/// What stands at a path the facts read: what it should be, or a symbolic
/// link, which the facts script never follows (docs/apply.md, "What apply
/// trusts on the host").
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Type {
    #[default]
    File,
    Dir,
    Link,
    /// A directory on the way that others than root can write (not the
    /// file's own): apply writes nothing there.
    Untrusted,
}

/// A file (`file`, `keys`, `sysctl`, `cron`, `sshd`): its digest, mode,
/// owner and content; `null` when absent.
#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct File {
    #[serde(default)]
    pub sha256: String,
    pub mode: String,
    pub owner: String,
    pub group: String,
    #[serde(default)]
    pub content: String,
    /// `link` for a symbolic link, reported as itself: no digest, no
    /// content.
    #[serde(default, rename = "type")]
    pub kind: Type,
    /// A managed file others may not read: the facts hold its digest, not
    /// its content.
    #[serde(default)]
    pub private: bool,
    /// A file whose desired content holds a secret: the facts hold neither
    /// its content nor its digest.
    #[serde(default)]
    pub secret: bool,
}

/// A service (`service`).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Service {
    /// Whether `service NAME status` exits 0.
    pub running: bool,
}

/// A dataset (`zfs`): each property's value (as `zfs
/// get -H -p` prints it) and source (`local`, `default`, `inherited from
/// X`); `null` when absent.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Zfs {
    #[serde(default)]
    pub props: BTreeMap<String, ZfsProp>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct ZfsProp {
    pub value: String,
    pub source: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    /// The host a snapshot names is its own words (a hostile jail's): its
    /// escapes are shown in every message that says what it is.
    #[test]
    fn a_snapshots_host_shows_its_escapes() {
        assert_eq!(
            Unbound::Host("\u{1b}]0;x\u{7}".into()).what(),
            "a snapshot of \\u{1b}]0;x\\u{7}"
        );
    }

    /// The facts script's `json` of `bytes`, run by sh (dash on the test
    /// machines, as on the fake FreeBSD).
    fn facts_json(bytes: &[u8]) -> String {
        let start = FACTS_SCRIPT.find("json() {").unwrap();
        let end = start + FACTS_SCRIPT[start..].find("\n}\n").unwrap() + 3;
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{}json \"$1\"", &FACTS_SCRIPT[start..end]))
            .arg("sh")
            .arg(std::ffi::OsStr::from_bytes(bytes))
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).expect("the facts' JSON is ASCII")
    }

    /// Every byte a shell word can hold (all but NUL), alone and all
    /// together, comes back from the facts script's JSON as itself.
    #[test]
    fn every_byte_round_trips_through_the_facts_json() {
        let all: Vec<u8> = (1..=255).collect();
        let mut cases: Vec<Vec<u8>> = all.iter().map(|b| vec![*b]).collect();
        cases.push(all.clone());
        cases.push(b"Ren\xe9 \xc3\xa9\n\n".to_vec());
        for bytes in cases {
            let text = facts_json(&bytes);
            assert!(text.is_ascii(), "{text}");
            let s: String = serde_json::from_str(&text).unwrap();
            assert_eq!(host_bytes(&s).unwrap(), bytes, "{text}");
        }
    }

    /// Every byte, NUL too, written `\u00XX`, reads back as the byte.
    #[test]
    fn every_escaped_byte_reads_back() {
        for b in 0..=255u8 {
            let s: String = serde_json::from_str(&format!("\"\\u{:04x}\"", b)).unwrap();
            assert_eq!(host_bytes(&s), Some(vec![b]));
        }
        assert_eq!(host_bytes("✓"), None);
    }

    #[test]
    fn host_text_is_utf8_where_the_bytes_are() {
        // C3 A9 is UTF-8 é; E9 alone is Latin-1 é.
        assert_eq!(host_text("\u{c3}\u{a9}"), "é");
        assert_eq!(host_text("Ren\u{e9}"), "Ren\\xE9");
        assert_eq!(host_text("a\u{ff}\u{c3}\u{a9}\u{80}"), "a\\xFFé\\x80");
        assert_eq!(host_text("kept ✓"), "kept ✓");
    }

    /// A snapshot with a Latin-1 GECOS and an 8-bit rc.conf value and key
    /// reads; each string is the host's bytes as [`host_text`] shows them.
    #[test]
    fn a_snapshot_with_8_bit_bytes_reads() {
        let text = br#"{"format_version":5,"users":{"erin":{"uid":"1005","gid":"1005","comment":"Ren\u00e9 \u00c3\u00a9","shell":"/bin/sh"}},"rc_conf":{"motd_\u00e9":"caf\u00c3\u00a9"}}"#;
        let s = State::parse(text).unwrap();
        assert_eq!(s.users["erin"].comment, "Ren\\xE9 é");
        assert_eq!(s.rc_conf["motd_\\xE9"], "café");
        // A shape error still names its place.
        let e = State::parse(b"{\"users\": 3}").err().unwrap();
        assert_eq!(e.line(), 1);
        assert!(e.column() > 0);
    }
}
