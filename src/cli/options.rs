//! The option groups that several commands share, each flattened into
//! exactly the commands that read it, so that a command's --help lists only
//! what it uses: [`InventoryArgs`], [`KeyArgs`], [`LimitArgs`].
//!
//! The groups were global options once, and `beryl -i DIR render host01`
//! still works: [`Before`] accepts them before the command (hidden from the
//! help), where they apply to the commands that read them and are ignored by
//! the others, as a shell alias holding them expects.

use std::path::PathBuf;

use clap::{ArgMatches, Args, FromArgMatches, parser::ValueSource};

use crate::limits;
use crate::output;

const INVENTORY_DIR: &str = "inventory";
const SSH_DIR: &str = "ssh";

/// Where the inventory is.
#[derive(Clone, Debug, Args)]
pub(crate) struct InventoryArgs {
    /// The inventory root directory.
    #[arg(
        short,
        long,
        value_name = "DIR",
        env = "BERYL_INVENTORY",
        default_value = INVENTORY_DIR
    )]
    pub inventory: PathBuf,
}

impl InventoryArgs {
    /// The default, for the commands that read no inventory.
    pub(crate) fn default_dir() -> PathBuf {
        PathBuf::from(INVENTORY_DIR)
    }
}

/// Where the SSH public keys are.
#[derive(Clone, Debug, Args)]
pub(crate) struct KeyArgs {
    /// The directory of SSH public key files named by key references.
    #[arg(long, value_name = "DIR", env = "BERYL_SSH_DIR", default_value = SSH_DIR)]
    pub ssh_dir: PathBuf,
}

impl KeyArgs {
    /// The default, for the commands that read no key.
    pub(crate) fn default_dir() -> PathBuf {
        PathBuf::from(SSH_DIR)
    }
}

/// The help heading of the limit options.
pub(crate) const LIMITS: &str = "Limits (docs/limits.md)";

/// The caps on what beryl reads (src/limits.rs).
#[derive(Clone, Debug, Args)]
#[command(next_help_heading = LIMITS)]
pub(crate) struct LimitArgs {
    /// The largest file beryl reads (YAML, SSH key, template), in bytes.
    #[arg(long, value_name = "BYTES", env = "BERYL_MAX_FILE_SIZE",
          default_value_t = limits::DEFAULT_MAX_FILE_SIZE)]
    pub max_file_size: u64,

    /// The deepest nesting of mappings and lists, in a file or a host's config.
    #[arg(long, value_name = "LEVELS", env = "BERYL_MAX_DEPTH",
          default_value_t = limits::DEFAULT_MAX_DEPTH,
          value_parser = at_least_one_up_to(limits::MAX_DEPTH_CEILING))]
    pub max_depth: usize,

    /// The most values in one file (aliases expanded), and that references may copy into one host.
    #[arg(long, value_name = "N", env = "BERYL_MAX_NODES",
          default_value_t = limits::DEFAULT_MAX_NODES,
          value_parser = at_least_one_up_to(usize::MAX / 8))]
    pub max_nodes: usize,

    /// The most items in one list of a file.
    #[arg(long, value_name = "N", env = "BERYL_MAX_LIST_ITEMS",
          default_value_t = limits::DEFAULT_MAX_LIST_ITEMS,
          value_parser = at_least_one_up_to(usize::MAX / 8))]
    pub max_list_items: usize,

    /// The longest chain of references resolved inside one another.
    #[arg(long, value_name = "N", env = "BERYL_MAX_REF_DEPTH",
          default_value_t = limits::DEFAULT_MAX_REF_DEPTH,
          value_parser = at_least_one_up_to(limits::MAX_DEPTH_CEILING))]
    pub max_ref_depth: usize,

    /// The longest chain of classes including one another.
    #[arg(long, value_name = "N", env = "BERYL_MAX_CLASS_DEPTH",
          default_value_t = limits::DEFAULT_MAX_CLASS_DEPTH,
          value_parser = at_least_one_up_to(limits::MAX_DEPTH_CEILING))]
    pub max_class_depth: usize,
}

impl LimitArgs {
    pub(crate) fn limits(&self) -> limits::Limits {
        limits::Limits {
            max_file_size: self.max_file_size,
            max_depth: self.max_depth,
            max_nodes: self.max_nodes,
            max_list_items: self.max_list_items,
            max_ref_depth: self.max_ref_depth,
            max_class_depth: self.max_class_depth,
        }
    }
}

/// A parser for a limit: a whole number from 1 to `max`.
fn at_least_one_up_to(max: usize) -> impl Fn(&str) -> Result<usize, String> + Clone {
    move |s: &str| match s.parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        Ok(_) => Err(format!("must be between 1 and {max}")),
        Err(e) => Err(e.to_string()),
    }
}

/// The three groups of a command that compiles hosts.
#[derive(Clone, Debug, Args)]
pub(crate) struct CompileArgs {
    #[command(flatten)]
    pub inventory: InventoryArgs,
    #[command(flatten)]
    pub keys: KeyArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

impl CompileArgs {
    pub(crate) fn uses(&self) -> Uses<'_> {
        Uses {
            inventory: Some(&self.inventory),
            keys: Some(&self.keys),
            limits: Some(&self.limits),
        }
    }
}

/// The groups a command reads; the others keep their defaults.
#[derive(Clone, Copy, Default)]
pub(crate) struct Uses<'a> {
    pub inventory: Option<&'a InventoryArgs>,
    pub keys: Option<&'a KeyArgs>,
    pub limits: Option<&'a LimitArgs>,
}

/// The group options given before the command (`beryl -i DIR render`): the
/// same options as the groups', hidden, without environment variable or
/// default, so that only what the command line gives is there.
#[derive(Clone, Debug)]
pub(crate) struct Before {
    /// The command line's top-level matches.
    matches: ArgMatches,
}

impl Before {
    /// A group with the options given before the command put over its own
    /// (which come from after the command, the environment or the default).
    pub(crate) fn apply<T: FromArgMatches + Clone>(&self, group: &T) -> Result<T, clap::Error> {
        let mut group = group.clone();
        group.update_from_arg_matches(&self.matches)?;
        Ok(group)
    }
}

/// Every option of the groups, as the groups declare it.
fn group_args() -> Vec<clap::Arg> {
    [
        InventoryArgs::augment_args(clap::Command::new("g")),
        KeyArgs::augment_args(clap::Command::new("g")),
        LimitArgs::augment_args(clap::Command::new("g")),
    ]
    .iter()
    .flat_map(|c| c.get_arguments().cloned().collect::<Vec<_>>())
    .collect()
}

impl FromArgMatches for Before {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        // The same option both before and after the command is an error, as
        // an option given twice after it is.
        if let Some((name, sub)) = matches.subcommand() {
            for arg in group_args() {
                let id = arg.get_id().as_str();
                let given = |m: &ArgMatches| {
                    m.try_get_raw(id).is_ok_and(|v| v.is_some())
                        && m.value_source(id) == Some(ValueSource::CommandLine)
                };
                if given(matches) && given(sub) {
                    return Err(clap::Error::raw(
                        clap::error::ErrorKind::ArgumentConflict,
                        format!(
                            "--{} is given both before and after `{name}`: give it once",
                            arg.get_long().unwrap_or(id)
                        ),
                    ));
                }
            }
        }
        Ok(Before {
            matches: matches.clone(),
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for Before {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        group_args().into_iter().fold(cmd, |cmd, arg| {
            cmd.arg(
                arg.hide(true)
                    .env(None)
                    .default_value(None)
                    .help_heading(None),
            )
        })
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// `--format` of the commands that print configs (render, merge): the
/// command-line face of [`output::Format`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ConfigFormat {
    Yaml,
    Json,
}

impl From<ConfigFormat> for output::Format {
    fn from(f: ConfigFormat) -> Self {
        match f {
            ConfigFormat::Yaml => output::Format::Yaml,
            ConfigFormat::Json => output::Format::Json,
        }
    }
}
