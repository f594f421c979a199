//! What every command needs: the inventory, the key store and the limits.

use std::path::Path;

use super::{Cli, Failure};
use crate::compile::Compiler;
use crate::inventory::{Host, Inventory};
use crate::keys::KeyStore;
use crate::yaml::Limits;

pub struct Context {
    pub inventory_dir: std::path::PathBuf,
    pub ssh_dir: std::path::PathBuf,
    pub limits: Limits,
    pub keys: KeyStore,
}

impl Context {
    pub fn new(cli: &Cli) -> Self {
        let limits = cli.limits();
        let keys = KeyStore::new(&cli.ssh_dir, &display(&cli.ssh_dir), limits.max_file_size);
        Self {
            inventory_dir: cli.inventory.clone(),
            ssh_dir: cli.ssh_dir.clone(),
            limits,
            keys,
        }
    }

    pub fn inventory(&self) -> Result<Inventory, Failure> {
        Inventory::discover(&self.inventory_dir, &display(&self.inventory_dir))
    }

    pub fn compiler<'a>(&'a self, inventory: &'a Inventory) -> Compiler<'a> {
        Compiler::new(inventory, &self.keys, self.limits)
    }

    /// Compiles hosts in parallel (rayon), results in the order given. Shows a
    /// progress bar on stderr for long runs when stderr is a terminal.
    /// `then` turns each compiled host into what the caller keeps, on the
    /// worker thread, so a fleet's compiled configs are never all in memory.
    pub fn compile_all<T: Send>(
        &self,
        compiler: &Compiler<'_>,
        hosts: &[&Host],
        then: impl Fn(&Host, crate::compile::Compiled) -> Result<T, crate::diag::Diags> + Sync,
    ) -> Vec<Result<T, crate::diag::Diags>> {
        use rayon::prelude::*;
        use std::io::IsTerminal;
        let bar = (hosts.len() >= 200 && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(hosts.len() as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} hosts {elapsed}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar
        });
        let step = |r: Result<crate::compile::Compiled, crate::diag::Diags>, h: &Host| {
            let r = r.and_then(|c| then(h, c));
            if let Some(b) = &bar {
                b.inc(1);
            }
            r
        };
        // Hosts whose queries need every host's exports wait (None) until the
        // fleet's exports are computed, once, in parallel, outside the loop.
        let first = |h: &&Host| compiler.try_compile(h).map(|r| step(r, h));
        // One host stays on this thread: handing it to a worker only adds a
        // wake-up, which a loaded machine can make milliseconds long.
        let mut out: Vec<Option<Result<T, crate::diag::Diags>>> = if hosts.len() < 2 {
            hosts.iter().map(first).collect()
        } else {
            hosts.par_iter().map(first).collect()
        };
        if out.iter().any(Option::is_none) {
            compiler.prepare_fleet();
            out.par_iter_mut()
                .zip(hosts.par_iter())
                .filter(|(r, _)| r.is_none())
                .for_each(|(r, h)| *r = Some(step(compiler.compile(h), h)));
        }
        let out = out.into_iter().flatten().collect();
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        out
    }

    /// The hosts named on the command line (every host with `all`), in the
    /// order given, each once. Every unknown or ambiguous name is reported.
    pub fn select<'a>(
        &self,
        inventory: &'a Inventory,
        names: &[String],
        all: bool,
    ) -> Result<Vec<&'a Host>, Failure> {
        if all {
            return Ok(inventory.hosts.iter().collect());
        }
        let mut hosts: Vec<&Host> = Vec::new();
        let mut errors = Vec::new();
        for name in names {
            match inventory.select(name) {
                Ok(h) if !hosts.iter().any(|x| x.fqdn == h.fqdn) => hosts.push(h),
                Ok(_) => {}
                Err(e) => errors.push(e),
            }
        }
        if errors.is_empty() {
            Ok(hosts)
        } else {
            Err(errors)
        }
    }
}

fn display(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}
