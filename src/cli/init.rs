//! `beryl init`: scaffold a minimal inventory to start from.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{Context, Failure, Outcome, write_out};
use crate::diag::{Common, Diag};
use crate::keys::PLACEHOLDER;

crate::diag::codes! {
    /// The codes of the `init` command.
    pub(crate) enum Code in "init" {
        /// `init` would overwrite files; nothing is written.
        Exists = "exists";
        /// A `--domain`, group or host name that is not valid.
        Name = "name";
    }
}

/// Scaffold a minimal inventory: one domain, one group, one host.
///
/// Writes DIR/inventory/_default.yml, DIR/inventory/DOMAIN/_domain.yml,
/// DIR/inventory/DOMAIN/GROUP/_group.yml, DIR/inventory/DOMAIN/GROUP/HOST.yml
/// and DIR/ssh/README.md, each explaining itself in comments. It asks for
/// nothing and never creates or copies a key: the domain's `ssh_keys` holds a
/// placeholder that `beryl check` refuses until you replace it with your
/// public key. If any of the files exists, nothing is written.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl init\n  \
    beryl init fleet --domain corp.example --group db --host db01\n\n\
    Then replace the placeholder key in inventory/DOMAIN/_domain.yml and run `beryl check`.")]
pub(crate) struct Args {
    /// The directory to scaffold in (created if needed).
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,

    /// The domain: a DNS name, the directory under inventory/.
    #[arg(long, value_name = "NAME", default_value = "example.com")]
    pub domain: String,

    /// The group: one label, the directory under the domain.
    #[arg(long, value_name = "NAME", default_value = "web")]
    pub group: String,

    /// The host's short name: one label, the file in the group.
    #[arg(long, value_name = "NAME", default_value = "web01")]
    pub host: String,
}

pub(crate) fn run(_ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    names(args)?;
    let files = scaffold(args);
    let existing: Vec<String> = files
        .iter()
        .map(|(rel, _)| args.dir.join(rel))
        .filter(|p| p.symlink_metadata().is_ok())
        .map(|p| p.display().to_string())
        .collect();
    if !existing.is_empty() {
        return Err(vec![
            Diag::new(
                Code::Exists,
                format!(
                    "refusing to overwrite: {} already exist{}; nothing was written",
                    existing.join(", "),
                    if existing.len() == 1 { "s" } else { "" }
                ),
            )
            .help("scaffold into an empty directory: beryl init DIR"),
        ]);
    }
    let mut written: Vec<PathBuf> = Vec::new();
    for (rel, text) in &files {
        let path = args.dir.join(rel);
        if let Err(e) = create(&path, text) {
            // Leave nothing half-made: remove what this run wrote.
            for p in written.iter().rev() {
                let _ = std::fs::remove_file(p);
            }
            return Err(vec![Diag::new(
                Common::Io,
                format!(
                    "cannot write {}: {e}; nothing was left written",
                    path.display()
                ),
            )]);
        }
        written.push(path);
    }
    write_out(out, &report(args, &files))?;
    Ok(Outcome::Ok)
}

/// The names must make a valid inventory (the layout rules of discovery).
fn names(args: &Args) -> Result<(), Failure> {
    let mut errors = Vec::new();
    if let Err(why) = crate::freebsd::names::hostname(&args.domain) {
        errors.push(
            Diag::new(
                Code::Name,
                format!("--domain `{}` is not a DNS domain name: {why}", args.domain),
            )
            .help("give a name such as example.com"),
        );
    }
    for (flag, name, what) in [
        ("--group", &args.group, "a group"),
        ("--host", &args.host, "a host's short name"),
    ] {
        if let Some(why) = crate::inventory::label_problem(name) {
            errors.push(
                Diag::new(
                    Code::Name,
                    format!("{flag} `{name}` is not valid for {what}: {why}"),
                )
                .help("give one label of letters, digits and `-`, such as web or web01"),
            );
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Creates a file that must not exist yet (its directories as needed).
fn create(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(text.as_bytes())
}

/// The files, relative to DIR, and their text.
fn scaffold(args: &Args) -> Vec<(String, String)> {
    let (domain, group, host) = (&args.domain, &args.group, &args.host);
    let fill = |t: &str| {
        t.replace("{domain}", domain)
            .replace("{group}", group)
            .replace("{host}", host)
            .replace("{placeholder}", PLACEHOLDER)
    };
    vec![
        ("inventory/_default.yml".into(), fill(DEFAULT)),
        (format!("inventory/{domain}/_domain.yml"), fill(DOMAIN)),
        (
            format!("inventory/{domain}/{group}/_group.yml"),
            fill(GROUP),
        ),
        (format!("inventory/{domain}/{group}/{host}.yml"), fill(HOST)),
        ("ssh/README.md".into(), fill(SSH_README)),
    ]
}

/// What was created, and what to do next.
fn report(args: &Args, files: &[(String, String)]) -> String {
    let mut text = String::new();
    for (rel, _) in files {
        text.push_str(&format!("created {}\n", args.dir.join(rel).display()));
    }
    let mut steps = Vec::new();
    if args.dir != Path::new(".") {
        steps.push(format!(
            "cd {} (beryl reads ./inventory and ./ssh)",
            args.dir.display()
        ));
    }
    steps.push(format!(
        "Replace the placeholder key in inventory/{}/_domain.yml with your public key\n     \
         (a line of ~/.ssh/id_ed25519.pub; `ssh-keygen -t ed25519` makes a pair), or put the\n     \
         key in ssh/NAME.pub and write NAME there. Until then `beryl check` refuses it.",
        args.domain
    ));
    steps.push("beryl check: compiles every host and reports every error.".into());
    steps.push(format!(
        "beryl render {host}: the host's effective config; beryl plan {host}: its FreeBSD\n     \
         installerconfig (adjust the disks and the network interface first).",
        host = args.host
    ));
    text.push_str("\nNext steps:\n");
    for (i, step) in steps.iter().enumerate() {
        text.push_str(&format!("  {}. {step}\n", i + 1));
    }
    text.push_str(&format!(
        "\nEach file explains itself in comments. To add a host, copy {host}.yml to another\n\
         name in inventory/{domain}/{group}/. For completion in an editor: beryl schema --help.\n",
        domain = args.domain,
        group = args.group,
        host = args.host,
    ));
    text
}

const DEFAULT: &str = r#"# Level 1 of 4: _default.yml is the base of every host of the inventory.
#
# A host's effective config is this file, then its domain's _domain.yml, then
# its group's _group.yml (when it is in a group), then the host file: each
# level folded onto the result so far. Try: beryl render {host}
#
# `freebsd` holds the settings beryl validates and `beryl plan` installs.
# Other root keys (except `ssh_keys`, which belongs in _domain.yml) are
# free-form data of your own: mappings merge key by key, anything else is
# replaced by the more specific level.

# How `beryl apply` reaches a host: it logs in as `admin` (below) and runs
# its script as root with `sudo -n`. `beryl check` refuses a host whose
# install would leave apply no way in.
ssh:
  user: admin
  become: sudo

freebsd:
  # A reference: the value at that path of the host's merged config. Every
  # host gets its own FQDN as its hostname.
  hostname: ${_beryl_.fqdn}
  # What `beryl plan` installs: FreeBSD 15.0 from the base tarballs.
  install: dists
  version: "15.0"
  timezone: UTC
  # The first network interface, by DHCP. Name it as `ifconfig -l` does on
  # your machines (vtnet0 on most virtual machines, em0, igb0, …).
  network:
    interfaces:
      vtnet0: {ipv4: dhcp}
  pool: zroot
  swap: 2g

  # Packages are appended level after level, without duplicates; an item
  # `--name` in a more specific level removes an inherited package.
  packages:
    - sudo

  # Lines of the sudoers drop-in, appended like packages. The users have SSH
  # keys, not passwords, hence NOPASSWD.
  sudoers:
    - "%wheel ALL=(ALL:ALL) NOPASSWD: ALL"

  # Users are merged by name: a more specific level that names `admin`
  # changes only the fields it writes. Every user receives the domain keys
  # (the `ssh_keys` of _domain.yml) first; `ssh_keys` here would add more.
  # Rename `admin` to your login if you like.
  users:
    - name: admin
      shell: /bin/sh
      groups:
        - wheel
"#;

const DOMAIN: &str = r#"# Level 2 of 4: _domain.yml applies to every host of the domain {domain}
# (the directory's name), whether the host is in a group or directly here.

# The domain keys: required in every _domain.yml, allowed nowhere else. They
# are given first to every user of every host of the domain, and no level can
# take them away. Each entry is either
#   - an inline public key: one line of a .pub file, such as
#     "ssh-ed25519 AAAAC3Nz… you@laptop" (never the private key), or
#   - the name of a key file in ssh/: `ops` reads ssh/ops.pub.
# `beryl check` refuses the placeholder below until you replace it.
ssh_keys:
  - "{placeholder}: paste an ssh public key"

# Settings for the domain's hosts go here, such as a time zone:
# freebsd:
#   timezone: Europe/Paris
"#;

const GROUP: &str = r#"# Level 3 of 4: _group.yml applies to every host in {domain}/{group}/. It is
# optional: a group directory without one simply adds no level.

freebsd:
  # Appended to the packages of _default.yml and _domain.yml.
  packages:
    - tmux
"#;

const HOST: &str = r#"# Level 4 of 4: the host file. This host is {host}.{domain}: the file's
# name, then the domain (the group is not part of the name). Try:
#   beryl render {host}
#   beryl explain {host} freebsd.packages

freebsd:
  # The boot pool's disks, wiped by the installer: list the whole disks of
  # this machine (`geom disk list`), ada0 or nda0, say. A more specific
  # level's list replaces the inherited one. With two disks, `raid: mirror`.
  raid: stripe
  disks:
    - ada0
"#;

const SSH_README: &str = r#"# ssh/

Public key files for the inventory's `ssh_keys` entries: an entry `NAME`
reads `ssh/NAME.pub` (then `ssh/NAME`). A file may hold several keys, one
per line; blank lines and `#` lines are skipped.

Put **public** keys only here (the `.pub` file that `ssh-keygen` writes next
to the private key); beryl refuses a file that holds a private key. Inline
keys (a whole `ssh-ed25519 AAAA… comment` line) can also be written straight
into `ssh_keys`, in which case nothing needs to be here.
"#;
