//! `beryl secrets host-keys`: hosts' SSH host keys, from the snapshots
//! `beryl facts --gather` took, into `<ssh dir>/hosts/FQDN.pub`, where the
//! recipients of a host's own file of secrets are looked up
//! (src/lint/recipients.rs).

use std::io::Write;
use std::path::PathBuf;

use super::{Code, Context, Failure, HostKeysArgs, Outcome, write_out};
use crate::diag::{Common, Diag};
use crate::keys::Key;
use crate::value::Span;

/// One host's key, read from its snapshot, and what writing it does.
struct Found {
    fqdn: String,
    key: Key,
    file: PathBuf,
    shown: String,
    change: Change,
}

#[derive(PartialEq)]
enum Change {
    Added,
    Replaced,
    Unchanged,
}

pub(super) fn run(
    ctx: &Context,
    a: &HostKeysArgs,
    out: &mut dyn Write,
) -> Result<Outcome, Failure> {
    let inventory = ctx.inventory()?;
    let compiler = ctx.compiler(&inventory);
    let hosts = ctx.select(&compiler, &a.hosts, a.hosts.is_empty())?;
    let dir = ctx.ssh_dir.join(crate::keys::HOSTS_DIR);
    let mut found = Vec::new();
    let mut errors = Vec::new();
    let mut missing = Vec::new();
    // A jail is applied through its host: its files use the host's key.
    for host in hosts.iter().filter(|h| !h.is_jail()) {
        let snapshot = a.state_dir.join(format!("{}.json", host.fqdn));
        if !snapshot.is_file() {
            missing.push(host.fqdn.clone());
            continue;
        }
        match read(ctx, &snapshot, &host.fqdn) {
            Ok(Some(key)) => {
                let file = dir.join(format!("{}.pub", host.fqdn));
                let shown = format!(
                    "{}/{}/{}.pub",
                    ctx.ssh_dir.display(),
                    crate::keys::HOSTS_DIR,
                    host.fqdn
                );
                let change = match ctx.keys.host_key(&host.fqdn) {
                    Ok(None) => Change::Added,
                    Ok(Some(old)) if old.identity() == key.identity() => Change::Unchanged,
                    Ok(Some(_)) if a.replace => Change::Replaced,
                    Ok(Some(old)) => {
                        errors.push(
                            Diag::new(
                                Code::HostKey,
                                format!(
                                    "{}'s host key changed: {shown} holds {} {}, its snapshot {} {}",
                                    host.fqdn,
                                    old.algorithm,
                                    old.fingerprint(),
                                    key.algorithm,
                                    key.fingerprint()
                                ),
                            )
                            .help("a reinstalled host has a new key: check it on the host's console (`ssh-keygen -l -f /etc/ssh/ssh_host_ed25519_key.pub`), then --replace; anything else is a reason to stop"),
                        );
                        continue;
                    }
                    Err(d) => {
                        errors.push(d);
                        continue;
                    }
                };
                found.push(Found {
                    fqdn: host.fqdn.clone(),
                    key,
                    file,
                    shown,
                    change,
                });
            }
            Ok(None) => errors.push(
                Diag::new(
                    Code::HostKey,
                    format!(
                        "{}: its snapshot holds no host key (no /etc/ssh/ssh_host_ed25519_key.pub)",
                        snapshot.display()
                    ),
                )
                .help("sshd makes it at its first start (rc.d/sshd keygen, `sshd_ed25519_enable`); take the snapshot again after"),
            ),
            Err(d) => errors.push(d),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    if found.is_empty() {
        return Err(vec![
            Diag::new(
                Code::HostKey,
                format!(
                    "no snapshot of the hosts selected in {}",
                    a.state_dir.display()
                ),
            )
            .help("take them first: `beryl facts --gather --all --out DIR`"),
        ]);
    }
    for f in &found {
        if f.change == Change::Unchanged {
            continue;
        }
        std::fs::create_dir_all(&dir)
            .and_then(|()| {
                crate::fsutil::write_atomic(&f.file, format!("{}\n", f.key.line()))
                    .map_err(|(_, e)| e)
            })
            .map_err(|e| {
                vec![Diag::new(
                    Common::Io,
                    format!("cannot write {}: {e}", f.shown),
                )]
            })?;
    }
    for f in &found {
        let what = match f.change {
            Change::Added => "added",
            Change::Replaced => "replaced",
            Change::Unchanged => "unchanged",
        };
        write_out(
            out,
            &format!(
                "{}: {what} {} ({} {})\n",
                f.fqdn,
                f.shown,
                f.key.algorithm,
                f.key.fingerprint()
            ),
        )?;
    }
    if !missing.is_empty() {
        write_out(
            out,
            &format!(
                "no snapshot in {} of {}\n",
                a.state_dir.display(),
                crate::diag::set::hosts_list(&missing, 5)
            ),
        )?;
    }
    Ok(Outcome::Ok)
}

/// The host key of a snapshot of `fqdn`: `None` when it has none.
fn read(ctx: &Context, snapshot: &std::path::Path, fqdn: &str) -> Result<Option<Key>, Diag> {
    let name = snapshot.display().to_string();
    let text = crate::yaml::read_text(snapshot, &name, ctx.limits.max_file_size)?;
    let bad = |why: String| {
        Diag::new(Code::HostKey, format!("{name}: {why}"))
            .help("take the snapshot again: `beryl facts --gather HOST --out DIR`")
    };
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("not a snapshot: {e}")))?;
    if json.get("host").and_then(|h| h.as_str()) != Some(fqdn) {
        return Err(bad(format!("not a snapshot of {fqdn}")));
    }
    let Some(line) = json.get("host_key").and_then(|k| k.as_str()) else {
        return Ok(None);
    };
    let key = Key::inline(line.trim(), &Span::synthetic()).map_err(|d| {
        bad(format!(
            "its host key is not an SSH public key: {}",
            d.message
        ))
    })?;
    match key.algorithm.as_str() {
        "ssh-ed25519" => Ok(Some(key)),
        other => Err(bad(format!("its host key is {other}, not ssh-ed25519"))),
    }
}
