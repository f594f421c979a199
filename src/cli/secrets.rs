//! `beryl secrets`: set, check and re-wrap the encrypted values of a level
//! file, in SOPS's format (docs/secrets.md).

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use zeroize::Zeroizing;

use super::options::{CompileArgs, Uses};
use super::{Context, Failure, Outcome, write_out};
use crate::diag::{Common, Diag};
use crate::lint::recipients::Readers;
use crate::secrets::Code;
use crate::secrets::edit::{self, Set};
use crate::secrets::enc::Kind;
use crate::secrets::wrap::{Identity, Recipient};
use crate::value::Source;

mod editor;
mod host_keys;
mod inventory;

use inventory::Inventory;

/// Set, check and re-wrap encrypted values (SOPS files, age and SSH keys).
///
/// A secret is one value of a level file, encrypted where it is, in
/// SOPS's format: the key stays readable, the value is
/// `ENC[AES256_GCM,…]` under the file's data key, which is wrapped with
/// age to each recipient. `sops` reads and writes the same files.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    printf '%s' \"$PASSWORD\" | beryl secrets set inventory/example.org/db/db01.yml app.db.password\n  \
    beryl secrets edit inventory/example.org/db/db01.yml --identity ~/.ssh/id_ed25519\n  \
    beryl secrets check --identity ~/.ssh/id_ed25519\n  \
    beryl facts --gather db01.example.org --out facts/ && beryl secrets host-keys --state-dir facts/ db01.example.org\n  \
    beryl secrets rekey --identity ~/.ssh/id_ed25519\n  \
    beryl secrets show inventory/example.org/db/db01.yml")]
pub(crate) struct Args {
    #[command(subcommand)]
    pub command: Sub,
}

#[derive(Debug, clap::Subcommand)]
pub(crate) enum Sub {
    Set(SetArgs),
    Edit(EditArgs),
    Check(CheckArgs),
    Rekey(RekeyArgs),
    Show(ShowArgs),
    HostKeys(HostKeysArgs),
}

impl Args {
    /// The option groups the subcommand reads: the inventory and its keys
    /// tell a file's recipients.
    pub(crate) fn uses(&self) -> Uses<'_> {
        match &self.command {
            Sub::Set(a) => a.opts.uses(),
            Sub::Check(a) => a.opts.uses(),
            Sub::Rekey(a) => a.opts.uses(),
            Sub::HostKeys(a) => a.opts.uses(),
            Sub::Edit(_) | Sub::Show(_) => Uses::default(),
        }
    }
}

/// The identities that open a file's data key.
#[derive(Debug, clap::Args)]
pub(crate) struct Identities {
    /// An age identity file or an unencrypted OpenSSH private key that is a
    /// recipient of the file (repeatable). beryl reads only the files named
    /// here or in BERYL_IDENTITY (paths separated by `:`), and prints none
    /// of them.
    #[arg(long = "identity", value_name = "FILE")]
    pub identity: Vec<PathBuf>,
}

impl Identities {
    pub(crate) fn load(&self) -> Result<Vec<Identity>, Failure> {
        let mut files = self.identity.clone();
        if let Some(env) = std::env::var_os("BERYL_IDENTITY") {
            files.extend(std::env::split_paths(&env).filter(|p| !p.as_os_str().is_empty()));
        }
        files
            .iter()
            .map(|f| Identity::read(f).map_err(|why| vec![Diag::new(Code::NoIdentity, why)]))
            .collect()
    }
}

/// Encrypt one value of a file, read from standard input.
///
/// The value is read from standard input (never from the command line,
/// which other users of the machine can see), less one final newline
/// unless --raw. A file's first secret needs only public keys: it gets a
/// new data key, wrapped to the recipients the inventory expects (the SSH
/// keys of every domain whose hosts read the file, and for a host's own
/// file that host's SSH host key), or to each --recipient instead. A file
/// that holds secrets already needs an --identity that opens its data
/// key. Only the value's line changes (and a `# sops:enc` line is added
/// above it the first time), then the MAC and the date.
#[derive(Debug, clap::Args)]
pub(crate) struct SetArgs {
    /// The level file.
    pub file: PathBuf,
    /// The value's place in the file: a dotted path, a list item by its name
    /// in brackets or by its position (`freebsd.users[alice].password_hash`).
    pub place: String,
    /// The value's type, recorded with it so that the schema checks it
    /// without decrypting it.
    #[arg(long = "type", value_enum, default_value = "str")]
    pub kind: TypeArg,
    /// Keep standard input byte for byte, final newline included.
    #[arg(long)]
    pub raw: bool,
    /// A recipient of a file's first secret, instead of those the inventory
    /// expects: an age public key (age1…) or an SSH public key
    /// (ssh-ed25519, ssh-rsa); repeatable.
    #[arg(long = "recipient", value_name = "KEY")]
    pub recipients: Vec<String>,
    #[command(flatten)]
    pub ids: Identities,
    #[command(flatten)]
    pub opts: CompileArgs,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(crate) enum TypeArg {
    Str,
    Int,
    Bool,
}

/// Check files' encrypted values: their format, their rules and their
/// recipients always, their MACs and values with an --identity.
///
/// Without files, every level and class file of the inventory that holds
/// secrets. A file of the inventory must be wrapped to every recipient the
/// inventory expects (a missing one, or an unknown host key, is an error;
/// one the inventory does not name, a warning).
#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    /// The files (default: every file of the inventory with secrets).
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub ids: Identities,
    #[command(flatten)]
    pub opts: CompileArgs,
}

/// Re-wrap files' data keys to the recipients the inventory expects, or to
/// exactly the --recipient keys given: the values and the MAC stay as they
/// are. Lists the files it changed.
#[derive(Debug, clap::Args)]
pub(crate) struct RekeyArgs {
    /// The files (default: every file of the inventory with secrets).
    pub files: Vec<PathBuf>,
    /// A recipient (repeatable), instead of those the inventory expects: an
    /// age public key or an SSH public key.
    #[arg(long = "recipient", value_name = "KEY")]
    pub recipients: Vec<String>,
    #[command(flatten)]
    pub ids: Identities,
    #[command(flatten)]
    pub opts: CompileArgs,
}

/// Edit a file's secrets in an editor, decrypted; only the values changed
/// are encrypted again.
///
/// The file is opened with an --identity and written, decrypted and
/// without its `sops:` block, to a file only you can read in a new
/// private directory under $TMPDIR; $VISUAL, else $EDITOR, else vi opens
/// it. When the editor exits 0, every value the file's rules encrypt is
/// encrypted again, except that a value whose place and plaintext did not
/// change keeps its ciphertext byte for byte: one edited value changes one
/// `ENC[…]` line, then the MAC and the date. Plain values are kept as you
/// wrote them; add `# sops:enc` above a value to make it a secret. The
/// decrypted copy is removed whatever happens.
#[derive(Debug, clap::Args)]
pub(crate) struct EditArgs {
    /// The level file.
    pub file: PathBuf,
    #[command(flatten)]
    pub ids: Identities,
}

/// Write hosts' SSH host keys, from their facts, into <ssh dir>/hosts/.
///
/// Reads each snapshot that `beryl facts --gather --out DIR` wrote
/// (DIR/FQDN.json, taken over the SSH connection beryl's apply uses) for
/// the selected hosts, and writes its `host_key` (the host's
/// /etc/ssh/ssh_host_ed25519_key.pub) to <ssh dir>/hosts/FQDN.pub. A key
/// on record that differs is refused unless --replace (a reinstalled host
/// has a new key; anything else is a reason to stop). Nothing is written
/// unless every snapshot is good. A host's own file of secrets is wrapped
/// to its host key: `beryl secrets rekey` after this.
#[derive(Debug, clap::Args)]
pub(crate) struct HostKeysArgs {
    /// The hosts (default: all): names, DOMAIN/, globs, class:NAME.
    #[arg(value_name = "SELECTOR")]
    pub hosts: Vec<String>,
    /// The directory of the snapshots (`beryl facts --gather --out DIR`).
    #[arg(long, value_name = "DIR")]
    pub state_dir: PathBuf,
    /// Replace a host key on record that differs from the snapshot's.
    #[arg(long)]
    pub replace: bool,
    #[command(flatten)]
    pub opts: CompileArgs,
}

/// List a file's encrypted values: place, type, line and token; with
/// --reveal, on a terminal only, their plaintext.
#[derive(Debug, clap::Args)]
pub(crate) struct ShowArgs {
    pub file: PathBuf,
    /// Print each value's plaintext. Refused unless standard output is a
    /// terminal: a plaintext never goes to a pipe, a file or a CI log.
    #[arg(long)]
    pub reveal: bool,
    #[command(flatten)]
    pub ids: Identities,
}

pub(super) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    match &args.command {
        Sub::Set(a) => set(ctx, a, out),
        Sub::Check(a) => check(ctx, a, out),
        Sub::Rekey(a) => rekey(ctx, a, out),
        Sub::Show(a) => show(ctx, a, out),
        Sub::Edit(a) => edit(ctx, a, out),
        Sub::HostKeys(a) => host_keys::run(ctx, a, out),
    }
}

fn read_file(ctx: &Context, path: &Path) -> Result<(String, String), Failure> {
    let name = path.display().to_string();
    let text =
        crate::yaml::read_text(path, &name, ctx.limits.max_file_size).map_err(|d| vec![d])?;
    Ok((name, text))
}

fn write_file(path: &Path, text: &str) -> Result<(), Failure> {
    let mode = std::fs::metadata(path).map(|m| m.permissions());
    crate::fsutil::write_atomic(path, text)
        .and_then(|()| match mode {
            Ok(m) => std::fs::set_permissions(path, m).map_err(|e| (path.to_path_buf(), e)),
            Err(_) => Ok(()),
        })
        .map_err(|(p, e)| {
            vec![Diag::new(
                Common::Io,
                format!("cannot write {}: {e}", p.display()),
            )]
        })
}

fn recipients(keys: &[String]) -> Result<Vec<Recipient>, Failure> {
    keys.iter()
        .map(|k| {
            Recipient::parse(k)
                .map_err(|why| vec![Diag::new(Code::Recipients, format!("--recipient: {why}"))])
        })
        .collect()
}

/// Now, as SOPS writes `lastmodified` (RFC 3339, UTC, to the second).
fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    crate::output::time::rfc3339(i64::try_from(secs).unwrap_or(i64::MAX))
}

fn set(ctx: &Context, a: &SetArgs, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let place = crate::syntax::path::parse_place(&a.place).map_err(|e| {
        vec![Diag::new(
            Code::Edit,
            format!("the place `{}`: {e}", a.place),
        )]
    })?;
    let place: Vec<String> = place.into_iter().map(|s| s.text).collect();
    let (name, text) = read_file(ctx, &a.file)?;
    let mut value = Zeroizing::new(Vec::new());
    std::io::stdin()
        .take(ctx.limits.max_file_size)
        .read_to_end(&mut value)
        .map_err(|e| {
            vec![Diag::new(
                Common::Io,
                format!("cannot read standard input: {e}"),
            )]
        })?;
    if !a.raw && value.last() == Some(&b'\n') {
        value.pop();
    }
    let kind = match a.kind {
        TypeArg::Str => Kind::Str,
        TypeArg::Int => Kind::Int,
        TypeArg::Bool => Kind::Bool,
    };
    let ids = a.ids.load()?;
    let first = crate::yaml::parse(&Source::new(name.clone(), text.clone()), &ctx.limits)
        .map(|n| n.get("sops").is_none())
        .unwrap_or(true);
    let recipients = match (a.recipients.is_empty(), first) {
        (false, _) => recipients(&a.recipients)?,
        (true, true) => {
            let inv = Inventory::open(ctx);
            let compiler = ctx.compiler(inv.get()?);
            let readers = Readers::new(&compiler, &ctx.keys, ctx.limits);
            inv.expected(ctx, &readers, &a.file, &name)?
        }
        // A file with secrets keeps its recipients.
        (true, false) => Vec::new(),
    };
    let key_field = |_: &[String]| Some("name");
    let new = edit::set(
        &name,
        &text,
        &Set {
            place: &place,
            plain: &value,
            kind,
            recipients: &recipients,
            ids: &ids,
            now: &now(),
            key_field: &key_field,
        },
    )
    .map_err(|d| vec![d])?;
    write_file(&a.file, &new)?;
    write_out(
        out,
        &format!("{name}: {} set\n", crate::syntax::path::display(&place)),
    )?;
    Ok(Outcome::Ok)
}

fn check(ctx: &Context, a: &CheckArgs, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let ids = a.ids.load()?;
    let inv = Inventory::open(ctx);
    let compiler = inv.get().ok().map(|i| ctx.compiler(i));
    let readers = (compiler.as_ref()).map(|c| Readers::new(c, &ctx.keys, ctx.limits));
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for path in inv.files_or_all(ctx, &a.files)? {
        let (name, text) = read_file(ctx, &path)?;
        let mut root = match crate::yaml::parse(&Source::new(name.clone(), text), &ctx.limits) {
            Ok(r) => r,
            Err(d) => {
                errors.push(d);
                continue;
            }
        };
        match crate::secrets::unseal(&mut root) {
            Err(d) => errors.push(d),
            Ok(None) => write_out(out, &format!("{name}: no secrets\n"))?,
            Ok(Some(mut sealed)) => {
                // Who may read it: a file of the inventory only.
                let coverage = match (inv.rel(&path), &readers) {
                    (Some(rel), Some(readers)) => {
                        sealed.rel = rel;
                        let found = readers.coverage(&sealed);
                        let failed = found.iter().any(Diag::is_error);
                        let (e, w): (Vec<Diag>, Vec<Diag>) =
                            found.into_iter().partition(Diag::is_error);
                        errors.extend(e);
                        warnings.extend(w);
                        match failed {
                            true => continue,
                            false => "recipients as the inventory expects",
                        }
                    }
                    _ => "recipients not checked (not a file of the inventory)",
                };
                let opened = match ids.is_empty() {
                    true => None,
                    false => match crate::secrets::open(&sealed, &ids) {
                        Ok(o) => Some(o),
                        Err(d) => {
                            errors.push(d);
                            continue;
                        }
                    },
                };
                let verdict = match opened {
                    Some(_) => "values and MAC verified",
                    None => "format checked; MAC not checked (no --identity)",
                };
                write_out(
                    out,
                    &format!(
                        "{name}: {} secret(s), {} recipient(s), {coverage}: {verdict}\n",
                        sealed.secrets.len(),
                        sealed.meta.age.len()
                    ),
                )?;
            }
        }
    }
    ctx.warn(&warnings);
    match errors.is_empty() {
        true => Ok(Outcome::Ok),
        false => Err(errors),
    }
}

fn rekey(ctx: &Context, a: &RekeyArgs, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let ids = a.ids.load()?;
    let given = recipients(&a.recipients)?;
    let inv = Inventory::open(ctx);
    let compiler = match given.is_empty() {
        true => Some(ctx.compiler(inv.get()?)),
        false => None,
    };
    let readers = (compiler.as_ref()).map(|c| Readers::new(c, &ctx.keys, ctx.limits));
    // Every file is re-wrapped in memory first: one that cannot be leaves
    // every file as it was.
    let mut changed = Vec::new();
    for path in inv.files_or_all(ctx, &a.files)? {
        let (name, text) = read_file(ctx, &path)?;
        let expected = match &readers {
            Some(readers) => Some(inv.expected(ctx, readers, &path, &name)?),
            None => None,
        };
        let recipients = expected.as_deref().unwrap_or(&given);
        if let Some(new) = edit::rekey(&name, &text, recipients, &ids).map_err(|d| vec![d])? {
            changed.push((path, name, new));
        }
    }
    for (path, name, new) in &changed {
        write_file(path, new)?;
        write_out(out, &format!("{name}\n"))?;
    }
    Ok(Outcome::Ok)
}

fn edit(ctx: &Context, a: &EditArgs, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let (name, text) = read_file(ctx, &a.file)?;
    let ids = a.ids.load()?;
    let view = crate::secrets::reseal::view(&name, &text, &ids).map_err(|d| vec![d])?;
    let edited = editor::edit(&a.file, &view)?;
    if *edited == *view {
        write_out(out, &format!("{name}: no change\n"))?;
        return Ok(Outcome::Ok);
    }
    match crate::secrets::reseal::reseal(&name, &text, &edited, &ids, &now())
        .map_err(|d| vec![d])?
    {
        Some(new) => {
            write_file(&a.file, &new)?;
            write_out(out, &format!("{name}: written\n"))?;
        }
        None => write_out(out, &format!("{name}: no change\n"))?,
    }
    Ok(Outcome::Ok)
}

fn show(ctx: &Context, a: &ShowArgs, out: &mut dyn Write) -> Result<Outcome, Failure> {
    if a.reveal && !std::io::stdout().is_terminal() {
        return Err(vec![
            Diag::new(Code::Edit, "--reveal prints plaintext only to a terminal")
                .help("standard output is a pipe or a file: a plaintext would stay there"),
        ]);
    }
    let (name, text) = read_file(ctx, &a.file)?;
    let mut root =
        crate::yaml::parse(&Source::new(name.clone(), text), &ctx.limits).map_err(|d| vec![d])?;
    let Some(sealed) = crate::secrets::unseal(&mut root).map_err(|d| vec![d])? else {
        write_out(out, &format!("{name}: no secrets\n"))?;
        return Ok(Outcome::Ok);
    };
    let opened = match a.reveal {
        true => Some(crate::secrets::open(&sealed, &a.ids.load()?).map_err(|d| vec![d])?),
        false => None,
    };
    for (i, s) in sealed.secrets.iter().enumerate() {
        let shown = match &opened {
            Some(o) => String::from_utf8_lossy(&o.values[i]).into_owned(),
            None => s.token.clone(),
        };
        write_out(
            out,
            &format!(
                "{}:{} {} ({}) {shown}\n",
                name,
                s.span.line,
                s.place,
                s.enc.kind.name()
            ),
        )?;
    }
    for r in &sealed.meta.age {
        write_out(out, &format!("recipient {}\n", r.recipient))?;
    }
    Ok(Outcome::Ok)
}
