//! `file`: a whole file, with its mode and owner. Two places of the order
//! make them ([`super::KINDS`]): the files beryl writes from other fields
//! (the sudoers drop-in, the resolver's files), before sshd and rc; and the
//! files of `freebsd.files`, after every kind they may need.
//!
//! - **Apply:** the check compares the sha256 and `stat -f '%Mp%03Lp %Su
//!   %Sg'` (four digits: [`super::STAT_MODE`]); the change writes a
//!   temporary dot-file beside it (`.beryl-NAME`, which directory scanners
//!   that skip dot-files never read), runs the validator on it
//!   if any, then `install -m -o -g` puts it in place. Services it notifies
//!   are reloaded or restarted once, after every step.
//! - **Records:** `file PATH` for the files of `freebsd.files` only, pruned
//!   with `rm -f`.

use serde::Serialize;

use super::state::State;
use super::verdict::{Content, Verdict, create_file, judge_file};
use super::{Input, Kind, Prune, Record, RemovalNotify, Resource, Shell, lines};
use crate::fsutil::sha256_hex;
use crate::schema::{Ipv4, Ipv6, Located, ManagedFile};
use crate::shell::{QuoteError, word as w};

/// The sudoers drop-in beryl owns. A name with a dot is ignored by sudo's
/// `@includedir`, so it has none.
pub(crate) const SUDOERS: &str = "/usr/local/etc/sudoers.d/beryl";
/// Where name servers survive resolvconf(8), which rewrites
/// `/etc/resolv.conf` whenever dhclient or rtsold run.
pub(crate) const RESOLVCONF_CONF: &str = "/etc/resolvconf.conf";
/// The resolver file, written only where nothing rewrites it.
pub(crate) const RESOLV_CONF: &str = "/etc/resolv.conf";
/// visudo, by its full path: a package installs it under /usr/local/sbin,
/// which is on no boot-time PATH.
pub(crate) const VISUDO: &str = "/usr/local/sbin/visudo";

/// The note of a listed file that was there before beryl wrote it.
pub const KEPT: &str = "not created by beryl (it was there first): kept when it leaves the config";

/// A whole file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct File {
    pub path: String,
    pub content: String,
    /// Octal, four digits (`0440`, `1777`), as `stat -f '%Mp%03Lp'` prints
    /// it.
    pub mode: String,
    pub owner: String,
    pub group: String,
    /// A command that must accept the new content before it is installed:
    /// its words, the staged file in place of the `%s` word.
    pub validate: Option<Vec<String>>,
    /// Services to reload or restart once per run after the file changed.
    pub notify: Vec<Notify>,
    /// Listed in `freebsd.files`, or beryl's loader drop-in: recorded when
    /// apply creates it, and removed once it leaves the config. The other
    /// files beryl writes from other fields (sudoers, resolver) are not.
    pub listed: bool,
    /// What a change leaves to be done (the loader drop-in: a reboot).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'static str>,
}

/// A service to act on after a change (`freebsd.files.*.notify`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Notify {
    /// The rc.d script name.
    pub service: String,
    /// `reload` or `restart`.
    pub action: String,
}

impl File {
    /// A root:wheel file that beryl writes from other fields.
    fn written(path: &str, content: String, mode: &str, validate: Option<Vec<String>>) -> File {
        File {
            path: path.into(),
            content,
            mode: mode.into(),
            owner: "root".into(),
            group: "wheel".into(),
            validate,
            notify: Vec::new(),
            listed: false,
            note: None,
        }
    }

    /// The directory the file is in (`/usr/local/etc/sudoers.d` for the
    /// sudoers drop-in; `/` for a file at the root).
    pub(crate) fn dir(&self) -> &str {
        super::dirname(&self.path)
    }

    /// The staged copy the validator checks, beside the file where only
    /// root can write its directory: a dot-file (`.beryl-NAME`), as the cron
    /// resource stages, since directory scanners skip only dot-files (cron
    /// reads every other file of `/etc/cron.d`, usr.sbin/cron/cron/database.c
    /// @e4452d45; newsyslog.conf includes `newsyslog.conf.d/[!.]*`).
    pub(crate) fn staged(&self) -> String {
        staged(&self.path)
    }

    /// The validate command, the staged file (`"$staged"`) in place of the
    /// `%s` word; every other word quoted.
    fn validate_line(&self) -> Result<Option<String>, QuoteError> {
        let Some(words) = &self.validate else {
            return Ok(None);
        };
        let line: Result<Vec<String>, QuoteError> = words
            .iter()
            .map(|x| match x.as_str() {
                "%s" => Ok("\"$staged\"".to_string()),
                _ => w(x),
            })
            .collect();
        Ok(Some(line?.join(" ")))
    }
}

/// Where a file is staged before install(1) puts it at `path`: a dot-file
/// beside it, `DIR/.beryl-NAME` ([`File::staged`]; the install template's
/// `staged` filter).
pub(crate) fn staged(path: &str) -> String {
    let dir = super::dirname(path);
    let sep = if dir.ends_with('/') { "" } else { "/" };
    format!("{dir}{sep}.beryl-{}", super::basename(path))
}

/// The files beryl writes from other fields: the sudoers drop-in
/// (`freebsd.sudoers`, checked by visudo), and the name servers for
/// resolvconf(8), plus /etc/resolv.conf itself where no DHCP or SLAAC
/// interface has it rewritten.
pub(crate) fn layout_written(input: &Input<'_>) -> Vec<Resource> {
    let f = input.freebsd();
    let mut out = Vec::new();
    if !f.sudoers.is_empty() {
        out.push(File::written(
            SUDOERS,
            lines(f.sudoers.iter().map(|l| l.value.as_str())),
            "0440",
            Some(vec![VISUDO.into(), "-cf".into(), "%s".into()]),
        ));
    }
    let network = f.network.clone().unwrap_or_default();
    let nameservers: Vec<&str> = network
        .nameservers
        .iter()
        .map(|n| n.value.as_str())
        .collect();
    if !nameservers.is_empty() {
        out.push(File::written(
            RESOLVCONF_CONF,
            format!(
                "# Written by beryl: resolvconf(8) puts these first in {RESOLV_CONF}.\nname_servers=\"{}\"\n",
                nameservers.join(" ")
            ),
            "0644",
            None,
        ));
        let rewritten = network.interfaces.iter().any(|i| {
            matches!(i.ipv4.as_ref().map(|l| &l.value), Some(Ipv4::Dhcp))
                || matches!(i.ipv6.as_ref().map(|l| &l.value), Some(Ipv6::Slaac))
        });
        if !rewritten {
            out.push(File::written(
                RESOLV_CONF,
                lines(nameservers.iter().map(|n| format!("nameserver {n}"))),
                "0644",
                None,
            ));
        }
    }
    super::items(out)
}

/// Whether a file's content holds a secret (its token: src/secrets/).
fn sealed(content: &str) -> bool {
    crate::secrets::holds_token(content)
}

/// The files of `freebsd.files`, in the order written.
pub(crate) fn layout_listed(input: &Input<'_>) -> Vec<Resource> {
    super::items(input.freebsd().files.iter().map(listed))
}

/// A file of `freebsd.files`, with its defaults: mode 0644, root:wheel.
fn listed(m: &ManagedFile) -> File {
    let text = |l: &Option<Located<String>>, default: &str| {
        l.as_ref().map_or(default.to_string(), |v| v.value.clone())
    };
    let content = m.content.clone().unwrap_or_default();
    // A file that holds a secret is root's alone unless its mode says
    // otherwise (docs/secrets.md).
    let mode = match sealed(&content) {
        true => "0600",
        false => "0644",
    };
    File {
        path: m.path.value.clone(),
        content,
        mode: text(&m.mode, mode),
        owner: text(&m.owner, "root"),
        group: text(&m.group, "wheel"),
        validate: m.validate.as_ref().map(|v| v.value.clone()),
        notify: m
            .notify
            .iter()
            .map(|n| Notify {
                service: n.service.value.clone(),
                action: n.action.value.clone(),
            })
            .collect(),
        listed: true,
        note: None,
    }
}

/// How a recorded file is found and pruned.
pub(crate) const PRUNE: Prune = Prune {
    kind: "file",
    step_kind: "file",
    exists: "[ -e \"$1\" ] || [ -L \"$1\" ]",
    keep: "false",
    remove: "rm_file \"$1\"",
    source: "POSIX rm(1), through rm_file (templates/lib.sh): a regular file whose directory trusted_dir accepts",
    kept: None,
    removal_note: None,
    // A file of a cron.d directory: cron files every one under one name, so
    // one coming or going restarts cron (as beryl's own cron entries do).
    removal_notify: Some(RemovalNotify {
        under: crate::freebsd::cron::DROP_IN_DIRS,
        service: super::cron::RESTART.0,
        action: super::cron::RESTART.1,
    }),
    present: |s, id| s.files.get(id).is_some_and(Option::is_some),
};

/// How the owner puts a staged file (standard input) in place in a
/// directory of its own (`$1`): as `$2`, with the group `$3` and the mode
/// `$4`, through a new file (mktemp(1): mkstemp(3) in the working
/// directory, usr.bin/mktemp/mktemp.c @039ea811) renamed over the old one;
/// a link at `$2` is refused. Root's own staging directory is `mktemp -d`
/// (mkdtemp(3), 0700).
const PLACE: &str = r#"cd -P -- "$1" && [ "$(pwd -P)" = "$1" ] || {
	printf "%s\n" "$1 is not where it was: not followed" >&2
	exit 1
}
if [ -L "$2" ]; then
	printf "%s\n" "$1/$2 is a symbolic link: not followed" >&2
	exit 1
fi
t=$(mktemp ".$2.beryl.XXXXXX") || exit 1
cat > "$t" && chgrp "$3" "$t" && chmod "$4" "$t" && mv -f "$t" "$2" || {
	rm -f "$t"
	exit 1
}"#;

impl Kind for File {
    type Want = File;
    const NAME: &'static str = "file";
    const TEMPLATE: Option<&'static str> = Some(include_str!("../../templates/steps/file.sh.j2"));
    const PRUNE: Option<&'static Prune> = Some(&PRUNE);
    const SCRIPTS: &'static [(&'static str, &'static str)] = &[("file_place", PLACE)];

    fn id(&self) -> String {
        format!("file:{}", self.path)
    }

    /// The install records a listed file in its own step, only when the
    /// file was not there before (templates/steps/file.sh.j2): a package's
    /// own config file is never pruned.
    fn install_records(&self) -> Vec<Record> {
        Vec::new()
    }

    /// A file that holds a secret is written by the first apply, never by
    /// the install: the installer cannot decrypt it (docs/secrets.md).
    fn installed(&self) -> bool {
        !sealed(&self.content)
    }

    fn records(&self) -> Vec<Record> {
        // The files of `freebsd.files`, not those beryl writes from other
        // fields.
        match self.listed {
            true => vec![Record::new("file", self.path.clone())],
            false => Vec::new(),
        }
    }

    fn wants(&self) -> Vec<File> {
        vec![self.clone()]
    }

    fn step_id(want: &File) -> String {
        want.id()
    }

    fn shell(f: &File) -> Result<Shell, QuoteError> {
        let path = w(&f.path)?;
        // A file that holds a secret is compared byte for byte on the
        // host: its digest would be known only once apply decrypts it, and
        // would be one to search a short password with.
        let same = match sealed(&f.content) {
            true => format!("printf '%s' {} | cmp -s - {path}", w(&f.content)?),
            false => format!(
                "[ \"$(sha256 -q {path} 2>/dev/null)\" = {} ]",
                sha256_hex(&f.content)
            ),
        };
        let check = format!(
            "[ ! -L {path} ] && [ \"$(stat -f '{} %Su %Sg' {path} 2>/dev/null)\" = {} ] && {same}",
            super::STAT_MODE,
            w(&format!("{} {} {}", f.mode, f.owner, f.group))?,
        );
        let (dir, name) = (w(f.dir())?, w(super::basename(&f.path))?);
        let validate = match f.validate_line()? {
            Some(v) => format!(" && {v}"),
            None => String::new(),
        };
        let content = w(&f.content)?;
        // Where only root can write the directory (trusted_dir, in
        // templates/lib.sh), root stages the file beside it and install(1)
        // renames it into place; where the directory is the owner's own,
        // root stages and validates it in a directory of its own and the
        // owner puts it in place (as_user): nothing the owner planted is
        // followed by root. Anything else is refused, saying why.
        let change = format!(
            r#"where=$(trusted_dir {dir} {owner}) || return 1
if [ -L {path} ]; then
	printf '%s\n' {link} >&2
	return 1
fi
if [ "$where" = root ]; then
	staged={staged}
	mkdir -p {dir} && rm -f "$staged" && (umask 077 && printf '%s' {content} > "$staged"){validate} &&
		install -S -m {mode} -o {owner} -g {group} "$staged" {path} && rm -f "$staged"
	return
fi
stage=$(mktemp -d "${{TMPDIR:-/tmp}}/beryl.XXXXXXXX") || return 1
staged="$stage"/{name}
(umask 077 && printf '%s' {content} > "$staged"){validate} &&
	as_user {owner} "$file_place" sh {dir} {name} {group} {mode} < "$staged"
status=$?
rm -rf "$stage"
return "$status""#,
            owner = w(&f.owner)?,
            group = w(&f.group)?,
            mode = w(&f.mode)?,
            link = w(&format!("{} is a symbolic link: not followed", f.path))?,
            staged = w(&f.staged())?,
        );
        Ok(Shell { check, change })
    }

    fn judge(f: &File, s: &State) -> Verdict {
        let shown = match super::private_mode(&f.mode) {
            true => Content::Secret,
            false => Content::Shown,
        };
        let Some(have) = s.files.get(&f.path).and_then(|f| f.as_ref()) else {
            return create_file(&f.content, shown);
        };
        let shown = match sealed(&f.content) {
            true => Content::Sealed,
            false => shown,
        };
        let verdict = judge_file(
            have,
            (&f.content, shown),
            &f.mode,
            &f.owner,
            &f.group,
            Vec::new(),
        );
        // There before beryl wrote it (a package's file): never recorded,
        // so never removed.
        let recorded = s.managed.iter().any(|(k, id)| k == "file" && *id == f.path);
        // (A file that holds a secret keeps the note that says so.)
        match f.listed && !recorded && verdict.note.is_none() {
            true => verdict.with_note(KEPT),
            false => verdict,
        }
    }

    /// The content of a file others may not read (`0600`, `0640`): the
    /// script writes it; reports and saved plans show its digest, as the
    /// quoted word the script holds and as the text.
    fn secrets(f: &File) -> Vec<String> {
        match super::private_mode(&f.mode) && !f.content.is_empty() {
            true => [w(&f.content).ok(), Some(f.content.clone())]
                .into_iter()
                .flatten()
                .collect(),
            false => Vec::new(),
        }
    }

    /// A file that holds a secret is looked at as `secret`: the facts
    /// give its mode and owner, never its content or digest.
    fn query(f: &File) -> Option<Record> {
        match sealed(&f.content) {
            true => Some(Record::new("secret", f.path.clone())),
            false => Some(Record::new("file", f.path.clone())),
        }
    }

    /// The file's own `notify`, and for a file of a cron.d directory a
    /// restart of cron (see [`PRUNE`]).
    fn notify(f: &File) -> Vec<Notify> {
        let mut out = f.notify.clone();
        if let Some(n) = &PRUNE.removal_notify
            && n.covers(&f.path)
            && !out
                .iter()
                .any(|o| o.service == n.service && o.action == n.action)
        {
            out.push(Notify {
                service: n.service.into(),
                action: n.action.into(),
            });
        }
        out
    }

    fn note(f: &File) -> Option<&'static str> {
        f.note
    }
}
