//! What the server knows while no buffer changes: the inventory as
//! discovered (its files listed once, [`Files`]), the editor's unsaved
//! buffers ([`Overlay`]), one compiler reading them over the disk (its
//! parsed files and class library), and each host compiled once. A change
//! or a save starts a new world (session.rs): every answer reads the files
//! as the editor has them, and nothing older.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::Setup;
use crate::compile::{Compiled, Compiler};
use crate::diag::Diags;
use crate::inventory::{Host, Inventory, LevelFile, Overlay};
use crate::value::Node;

type Cell = Arc<OnceLock<Result<Arc<Compiled>, Diags>>>;

/// The hosts that read each file, by its `rel` (indices into the hosts).
pub(crate) type Readers = HashMap<String, Vec<usize>>;

/// The inventory's level and class files by resolved path, listed once per
/// discovery: a buffer's text cannot add or remove one.
#[derive(Default)]
pub(crate) struct Files(OnceLock<HashMap<PathBuf, LevelFile>>);

impl Files {
    /// The level or class file of `inventory` at `file`.
    pub(crate) fn level_of(&self, inventory: &Inventory, file: &Path) -> Option<LevelFile> {
        let file = file.canonicalize().ok()?;
        let levels = self.0.get_or_init(|| {
            let all = crate::classes::files::every(inventory);
            all.into_iter()
                .filter_map(|f| Some((f.path.canonicalize().ok()?, f)))
                .collect()
        });
        levels.get(&file).cloned()
    }
}

/// What one world inherits from the one before it: the changed file's
/// `rel` and its readers (a file's own text never changes which hosts
/// read it).
pub(crate) type Inherited = Option<(String, Vec<usize>)>;

pub(crate) struct World<'a> {
    pub setup: &'a Setup,
    pub inventory: &'a Inventory,
    files: &'a Files,
    /// The unsaved buffers the compiler reads instead of their files.
    pub overlay: Arc<Overlay>,
    pub compiler: Compiler<'a>,
    compiled: Mutex<HashMap<String, Cell>>,
    readers: OnceLock<Arc<Readers>>,
    /// The readers of the file whose change started this world.
    changed: Inherited,
}

impl<'a> World<'a> {
    pub(crate) fn new(
        setup: &'a Setup,
        inventory: &'a Inventory,
        files: &'a Files,
        overlay: Arc<Overlay>,
        inherited: Inherited,
    ) -> Self {
        Self {
            setup,
            inventory,
            files,
            compiler: Compiler::new(inventory, &setup.keys, setup.limits)
                .with_overlay(overlay.clone()),
            overlay,
            compiled: Mutex::new(HashMap::new()),
            readers: OnceLock::new(),
            changed: inherited,
        }
    }

    /// The level or class file of the inventory at `file`.
    pub(crate) fn level_of(&self, file: &Path) -> Option<LevelFile> {
        self.files.level_of(self.inventory, file)
    }

    /// The config path of a path as a file writes it: the same in beryl's
    /// layout; under reclass, a key under `parameters` (a node's config is
    /// its parameters, classes/reclass.rs), and nothing for reclass's
    /// other keys (`classes`, `applications`, `environment`).
    pub(crate) fn config_path(&self, written: &[String]) -> Option<Vec<String>> {
        if self.inventory.flavor.reclass().is_none() {
            return Some(written.to_vec());
        }
        match written {
            [top, rest @ ..] if top == crate::classes::reclass::PARAMETERS && !rest.is_empty() => {
                Some(rest.to_vec())
            }
            [top, _, ..] if top == crate::syntax::root::EXPORTS => Some(written.to_vec()),
            _ => None,
        }
    }

    /// The text of `level` as the editor has it: its unsaved buffer, else
    /// the file.
    pub(crate) fn text(&self, level: &LevelFile) -> Result<Arc<str>, String> {
        match self.overlay.get(&level.rel) {
            Some(text) => Ok(text.clone()),
            None => {
                crate::yaml::read_text(&level.path, &level.display, self.setup.limits.max_file_size)
                    .map(Arc::from)
                    .map_err(|d| d.message)
            }
        }
    }

    /// The text of `level` as the editor has it, and its YAML; the error
    /// says why it cannot be read or parsed.
    pub(crate) fn parsed(&self, level: &LevelFile) -> Result<(Arc<str>, Node), String> {
        let text = self.text(level)?;
        let source = crate::value::Source::new(level.display.clone(), text.clone());
        let root = crate::yaml::parse(&source, &self.setup.limits).map_err(|d| d.message)?;
        Ok((text, root))
    }

    /// What the answers read, in words: "the files as saved", or the
    /// unsaved buffers too.
    pub(crate) fn basis(&self) -> String {
        let unsaved: Vec<String> = self.overlay.files().map(str::to_string).collect();
        match unsaved.as_slice() {
            [] => "from the files as saved".into(),
            files => format!(
                "with the unsaved changes of {}",
                crate::diag::set::hosts_list(files, 3)
            ),
        }
    }

    /// The hosts that read `level`: in their chain, or among their classes.
    /// A file of the chains (`_default.yml`, a domain, a group, a host) is
    /// read by the hosts whose chain holds it, which discovery knows; only
    /// a class needs every host's classes, worked out once.
    pub(crate) fn reached(&self, level: &LevelFile) -> Vec<&'a Host> {
        let inv = self.inventory;
        let known: &[usize] = match &self.changed {
            Some((rel, hosts)) if *rel == level.rel => hosts,
            _ => match self.readers.get() {
                Some(all) => all.get(&level.rel).map_or(&[][..], Vec::as_slice),
                None => {
                    let chained: Vec<&Host> = (inv.hosts.iter())
                        .filter(|h| inv.chain(h).iter().any(|l| l.file.rel == level.rel))
                        .collect();
                    if !chained.is_empty() {
                        return chained;
                    }
                    (self.readers().get(&level.rel)).map_or(&[][..], Vec::as_slice)
                }
            },
        };
        known.iter().map(|&i| &inv.hosts[i]).collect()
    }

    /// The readers of every file, worked out once per world.
    pub(crate) fn readers(&self) -> &Arc<Readers> {
        let inv = self.inventory;
        self.readers.get_or_init(|| {
            use rayon::prelude::*;
            let every = every_class(inv);
            let per_host: Vec<Vec<String>> = (inv.hosts.par_iter())
                .map(|h| {
                    let mut files: Vec<String> =
                        inv.chain(h).iter().map(|l| l.file.rel.clone()).collect();
                    match self.compiler.class_files(h) {
                        Ok(c) => files.extend(c.into_iter().map(|(rel, _)| rel)),
                        // Classes that cannot be listed (a class that does
                        // not load): the host counts as a reader of every
                        // class, so that the broken one shows its error.
                        Err(_) => files.extend(every.iter().cloned()),
                    }
                    files
                })
                .collect();
            let mut by_file: Readers = HashMap::new();
            for (i, files) in per_host.into_iter().enumerate() {
                for f in files {
                    let hosts = by_file.entry(f).or_default();
                    if hosts.last() != Some(&i) {
                        hosts.push(i);
                    }
                }
            }
            Arc::new(by_file)
        })
    }

    /// What the world after a change to `rel` inherits: the changed file's
    /// own readers (its text never changes who reads it). The others' are
    /// worked out again when asked: a change can change them in ways its
    /// own `classes` list does not show (a class name holding `${…}`, a
    /// class that stops loading).
    pub(crate) fn inherit(&self, rel: &str) -> Inherited {
        match (self.readers.get(), &self.changed) {
            (_, Some((r, h))) if r == rel => Some((r.clone(), h.clone())),
            (Some(all), _) => all.get(rel).map(|h| (rel.to_string(), h.clone())),
            (None, _) => None,
        }
    }

    /// The host whose own file `level` is (a host's or a jail's).
    pub(crate) fn owner(&self, level: &LevelFile) -> Option<&'a Host> {
        self.inventory
            .hosts
            .iter()
            .find(|h| h.file.rel == level.rel)
    }

    /// The host a file is seen as: its owner; else the preview host, when
    /// it reads the file; else, when `any_reader`, the first host that does.
    pub(crate) fn seen_as(
        &self,
        preview: Option<&str>,
        level: &LevelFile,
        any_reader: bool,
    ) -> Option<&'a Host> {
        if let Some(own) = self.owner(level) {
            return Some(own);
        }
        let reached = self.reached(level);
        let preview = preview.and_then(|p| self.host_named(p).ok());
        match preview {
            Some(p) if reached.iter().any(|h| h.fqdn == p.fqdn) => Some(p),
            _ if any_reader => reached.first().copied(),
            _ => None,
        }
    }

    /// The one host `selector` names (as `beryl render` takes it), or why
    /// not.
    pub(crate) fn host_named(&self, selector: &str) -> Result<&'a Host, String> {
        let inv = self.inventory;
        let classes = |i: usize| self.compiler.classes(&inv.hosts[i]);
        let universe = crate::select::Universe::from(inv);
        match crate::select::one(&universe, selector, "lsp", &classes) {
            Ok(i) => Ok(&inv.hosts[i]),
            Err(d) => Err(d
                .iter()
                .map(|d| d.message.as_str())
                .collect::<Vec<_>>()
                .join("; ")),
        }
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

/// The `rel` of every class file of the inventory.
fn every_class(inventory: &Inventory) -> Vec<String> {
    (crate::classes::files::list(inventory).into_iter())
        .map(|(_, f)| f.rel)
        .collect()
}
