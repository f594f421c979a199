//! What the server knows between two saves: the inventory as discovered,
//! one compiler (its parsed files and class library), and each host
//! compiled once. A saved file starts a new world (mod.rs `serve`): the
//! files as saved are what every answer reads, and nothing older.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::Setup;
use crate::compile::{Compiled, Compiler};
use crate::diag::Diags;
use crate::inventory::{Host, Inventory, LevelFile};

type Cell = Arc<OnceLock<Result<Arc<Compiled>, Diags>>>;

pub(crate) struct World<'a> {
    pub setup: &'a Setup,
    pub inventory: &'a Inventory,
    pub compiler: Compiler<'a>,
    compiled: Mutex<HashMap<String, Cell>>,
    /// Every level and class file by its resolved path, listed once.
    levels: OnceLock<HashMap<std::path::PathBuf, LevelFile>>,
    /// The hosts that read each file, by its `rel`, worked out once.
    readers: OnceLock<HashMap<String, Vec<usize>>>,
}

impl<'a> World<'a> {
    pub(crate) fn new(setup: &'a Setup, inventory: &'a Inventory) -> Self {
        Self {
            setup,
            inventory,
            compiler: Compiler::new(inventory, &setup.keys, setup.limits),
            compiled: Mutex::new(HashMap::new()),
            levels: OnceLock::new(),
            readers: OnceLock::new(),
        }
    }

    /// The level or class file of the inventory at `file`.
    pub(crate) fn level_of(&self, file: &std::path::Path) -> Option<LevelFile> {
        let file = file.canonicalize().ok()?;
        let levels = self.levels.get_or_init(|| {
            let all = crate::classes::files::every(self.inventory);
            all.into_iter()
                .filter_map(|f| Some((f.path.canonicalize().ok()?, f)))
                .collect()
        });
        levels.get(&file).cloned()
    }

    /// The hosts that read `level`: in their chain, or among their classes.
    pub(crate) fn reached(&self, level: &LevelFile) -> Vec<&'a Host> {
        let inv = self.inventory;
        let readers = self.readers.get_or_init(|| {
            use rayon::prelude::*;
            let per_host: Vec<Vec<String>> = (inv.hosts.par_iter())
                .map(|h| {
                    let mut files: Vec<String> =
                        inv.chain(h).iter().map(|l| l.file.rel.clone()).collect();
                    if let Ok(c) = self.compiler.class_files(h) {
                        files.extend(c.into_iter().map(|(rel, _)| rel));
                    }
                    files
                })
                .collect();
            let mut by_file: HashMap<String, Vec<usize>> = HashMap::new();
            for (i, files) in per_host.into_iter().enumerate() {
                for f in files {
                    let hosts = by_file.entry(f).or_default();
                    if hosts.last() != Some(&i) {
                        hosts.push(i);
                    }
                }
            }
            by_file
        });
        (readers.get(&level.rel).into_iter().flatten())
            .map(|&i| &inv.hosts[i])
            .collect()
    }

    /// The host compiled, once per world.
    pub(crate) fn compiled(&self, host: &Host) -> Result<Arc<Compiled>, Diags> {
        let cell = {
            let mut m = self.compiled.lock().unwrap_or_else(|e| e.into_inner());
            m.entry(host.fqdn.clone()).or_default().clone()
        };
        cell.get_or_init(|| crate::compile::compile(&self.compiler, host).map(Arc::new))
            .clone()
    }

    /// Each host compiled, in parallel, in the order given.
    pub(crate) fn compiled_many<'h>(
        &self,
        hosts: &[&'h Host],
    ) -> Vec<(&'h Host, Result<Arc<Compiled>, Diags>)> {
        use rayon::prelude::*;
        hosts.par_iter().map(|h| (*h, self.compiled(h))).collect()
    }
}
