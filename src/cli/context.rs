//! What every command needs: the inventory, the key store and the limits,
//! and the hosts the command line selects.

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::Failure;
use super::options::{Before, InventoryArgs, KeyArgs, Uses};
use crate::compile::{self, Compiled, Compiler};
use crate::diag::{Diag, Diags};
use crate::inventory::{Host, Inventory};
use crate::keys::KeyStore;
use crate::select::{self, Universe};
use crate::yaml::Limits;

/// Warnings kept to print on stderr when a command ends, each once (by its
/// [`Diag::dedup_key`]); shared between the command's context and the caller.
#[derive(Clone, Default)]
pub(crate) struct Warnings(Arc<Mutex<(Diags, HashSet<String>)>>);

impl Warnings {
    pub(crate) fn add(&self, diags: &[Diag]) {
        if diags.is_empty() {
            return;
        }
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let (list, keys) = &mut *kept;
        for d in diags {
            if keys.insert(d.dedup_key()) {
                list.push(d.clone());
            }
        }
    }

    /// The warnings kept so far, in the order found.
    pub(crate) fn take(&self) -> Diags {
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        kept.1.clear();
        std::mem::take(&mut kept.0)
    }
}

pub(crate) struct Context {
    pub inventory_dir: std::path::PathBuf,
    pub ssh_dir: std::path::PathBuf,
    pub limits: Limits,
    pub keys: KeyStore,
    /// The warnings of the hosts compiled (see [`Context::warn`]).
    warnings: Warnings,
}

impl Context {
    /// The context of a command from the option groups it reads (the others
    /// keep their defaults), with the options given before it put over them.
    pub(crate) fn new(uses: Uses<'_>, before: &Before) -> Result<Self, Failure> {
        let group = |e: clap::Error| vec![Diag::new(crate::cli::Code::Usage, e.to_string())];
        let inventory = match uses.inventory {
            Some(g) => before.apply(g).map_err(group)?.inventory,
            None => InventoryArgs::default_dir(),
        };
        let ssh_dir = match uses.keys {
            Some(g) => before.apply(g).map_err(group)?.ssh_dir,
            None => KeyArgs::default_dir(),
        };
        let limits = match uses.limits {
            Some(g) => before.apply(g).map_err(group)?.limits(),
            None => Limits::default(),
        };
        let keys = KeyStore::new(&ssh_dir, &display(&ssh_dir), limits.max_file_size);
        Ok(Self {
            inventory_dir: inventory,
            ssh_dir,
            limits,
            keys,
            warnings: Default::default(),
        })
    }

    /// Shares `warnings` with the caller, who prints them once the command
    /// ends (cli::run).
    pub(crate) fn sharing(mut self, warnings: &Warnings) -> Self {
        self.warnings = warnings.clone();
        self
    }

    /// Keeps warnings to print on stderr once the command ends, each once
    /// however many hosts found it. The output on stdout never changes.
    pub(crate) fn warn(&self, diags: &[Diag]) {
        self.warnings.add(diags);
    }

    pub(crate) fn inventory(&self) -> Result<Inventory, Failure> {
        Inventory::discover_with(
            &self.inventory_dir,
            &display(&self.inventory_dir),
            &self.limits,
        )
    }

    pub(crate) fn compiler<'a>(&'a self, inventory: &'a Inventory) -> Compiler<'a> {
        Compiler::new(inventory, &self.keys, self.limits)
    }

    /// Compiles hosts with [`compile::compile_many`]: in parallel, results in
    /// the order given, with a progress bar for long runs ([`Progress`]).
    /// `then` turns each compiled host into what the caller keeps, on the
    /// worker thread. Each host's warnings are kept to print (see
    /// [`Context::warn`]) in the order of `hosts`, whatever thread compiled it.
    pub(crate) fn compile_many<T: Send>(
        &self,
        compiler: &Compiler<'_>,
        hosts: &[&Host],
        then: impl Fn(&Host, Compiled) -> Result<T, Diags> + Sync,
    ) -> Vec<Result<T, Diags>> {
        let progress = Progress::new(hosts.len());
        let results = compile::compile_many(compiler, hosts, |host, r| {
            let (warnings, r) = match r {
                Ok(c) => (c.diags.clone(), then(host, c)),
                Err(e) => (Vec::new(), Err(e)),
            };
            progress.tick();
            (warnings, r)
        });
        drop(progress);
        results
            .into_iter()
            .map(|(warnings, r)| {
                self.warn(&warnings);
                r
            })
            .collect()
    }

    /// The hosts the selectors select (every host with `all`): the union, in
    /// the order given, each once. Every selector that selects nothing is
    /// reported (src/select/).
    /// `class:` selectors read the hosts' chains and class files through
    /// `compiler`, whose cache the command's compiles then reuse.
    pub(crate) fn select<'a>(
        &self,
        compiler: &Compiler<'a>,
        selectors: &[String],
        all: bool,
    ) -> Result<Vec<&'a Host>, Failure> {
        let inventory = compiler.inventory();
        if all {
            return Ok(inventory.hosts.iter().collect());
        }
        let classes = |i: usize| compiler.classes(&inventory.hosts[i]);
        let found = select::resolve(&Universe::from(inventory), selectors, &classes)?;
        Ok(found.into_iter().map(|i| &inventory.hosts[i]).collect())
    }

    /// The one host a command that takes one selects; a selector that selects
    /// several is an error listing them.
    pub(crate) fn select_one<'a>(
        &self,
        compiler: &Compiler<'a>,
        selector: &str,
        command: &'static str,
    ) -> Result<&'a Host, Failure> {
        let inventory = compiler.inventory();
        let classes = |i: usize| compiler.classes(&inventory.hosts[i]);
        let i = select::one(&Universe::from(inventory), selector, command, &classes)?;
        Ok(&inventory.hosts[i])
    }
}

/// A progress bar on stderr for a command that compiles many hosts (200 or
/// more), when stderr is a terminal; cleared when dropped.
pub(super) struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    pub(super) fn new(hosts: usize) -> Self {
        use std::io::IsTerminal;
        let bar = (hosts >= 200 && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(hosts as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} hosts {elapsed}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar
        });
        Self(bar)
    }

    /// One more host done.
    pub(super) fn tick(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

fn display(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}
