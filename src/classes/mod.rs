//! Classes: reclass's mixins. Any level (and any class) may list classes at
//! its root; each names a file under `_classes/` that is merged into the
//! host's chain before the level that names it.
//!
//! Entry points: [`Library`] (the class files of an inventory, each read and
//! parsed once per run), [`ClassedDoc::split`] (a document's class list apart from
//! its data) and [`walk::expand`] (a host's chain with its classes, in merge
//! order). The walk is reclass's: depth-first, a class's own classes first,
//! each class at most once per host, at its first occurrence.
//!
//! ```text
//! classes: [roles.backup]    _classes/roles/backup.yml, or _classes/roles/backup/init.yml
//! ```

mod doc;
pub(crate) mod files;
mod layout;
pub(crate) mod reclass;
pub(crate) mod walk;

pub(crate) use doc::ClassedDoc;
use layout::{Find, Layout};

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::diag::{Diag, Diags};
use crate::inventory::{Inventory, LevelFile, LevelKind, Settings};
use crate::value::Node;
use crate::yaml::Limits;

crate::diag::codes! {
    /// The codes of classes.
    pub(crate) enum Code in "classes" {
        /// An item of a `classes` list that is not a string.
        NotAName = "not_a_name";
        /// A `classes` key that is not a list.
        NotAList = "not_a_list";
        /// One class defined by two files.
        Duplicate = "duplicate";
        /// A class file's link cannot be followed.
        Io = "io";
        /// A class file's link leads outside `_classes/`.
        Outside = "outside";
        /// A class file that is not a regular file.
        NotAFile = "not_a_file";
        /// A class name that is not dotted segments.
        Name = "name";
        /// Classes that include one another.
        Cycle = "cycle";
        /// A class that has no file (and is not allowed to be missing by `beryl.yml`).
        NotFound = "not_found";
        /// A top-level key of a reclass file that reclass does not read (a warning).
        UnknownKey = "unknown_key", warning;
        /// A missing class skipped by `ignore_class_notfound`, under reclass's
        /// `ignore_class_notfound_warning` (a warning).
        Skipped = "skipped", warning;
    }
}

/// The root key that lists a document's classes.
pub(crate) const KEY: &str = crate::syntax::root::CLASSES;

/// A class file, loaded.
#[derive(Debug)]
pub(crate) struct Class {
    pub name: String,
    pub file: LevelFile,
    pub unit: Arc<ClassedDoc>,
}

type Cell<T> = Arc<OnceLock<T>>;
type Cells<T> = Mutex<HashMap<String, Cell<Result<T, Diags>>>>;

/// The class files of an inventory and its settings, each read once per run
/// however many hosts use them (the cells are shared between threads).
pub(crate) struct Library<'a> {
    inventory: &'a Inventory,
    limits: Limits,
    /// The flavor's rules for classes, chosen once.
    layout: Layout,
    classes: Cells<Option<Arc<Class>>>,
    units: Cells<Arc<ClassedDoc>>,
    settings: OnceLock<Result<Settings, Diags>>,
    root: OnceLock<Option<PathBuf>>,
    /// Under reclass, every class file by name (walked once).
    index: OnceLock<Result<HashMap<String, LevelFile>, Diags>>,
    /// The warnings of reading each file ([`Library::read`]), by its `rel`,
    /// until its unit takes them.
    read_warnings: Mutex<HashMap<String, Diags>>,
    /// The SOPS files read, by `rel`: their secrets, for apply to open.
    sealed: Mutex<HashMap<String, Arc<crate::secrets::Sealed>>>,
    /// Unsaved texts read instead of their files (the language server's).
    overlay: Option<Arc<crate::inventory::Overlay>>,
}

impl<'a> Library<'a> {
    pub(crate) fn new(inventory: &'a Inventory, limits: Limits) -> Self {
        Self {
            inventory,
            limits,
            layout: Layout::of(inventory),
            classes: Mutex::new(HashMap::new()),
            units: Mutex::new(HashMap::new()),
            settings: OnceLock::new(),
            root: OnceLock::new(),
            index: OnceLock::new(),
            read_warnings: Mutex::new(HashMap::new()),
            sealed: Mutex::new(HashMap::new()),
            overlay: None,
        }
    }

    /// The same library, reading each file of `overlay` from its text
    /// there rather than from the disk.
    pub(crate) fn with_overlay(mut self, overlay: Arc<crate::inventory::Overlay>) -> Self {
        self.overlay = Some(overlay);
        self
    }

    /// A file's secrets taken out (src/secrets/): each encrypted value
    /// becomes its token, and the file's metadata is kept for apply.
    fn unseal(&self, rel: &str, mut node: Node) -> Result<Node, Diag> {
        if let Some(mut sealed) = crate::secrets::unseal(&mut node)? {
            sealed.rel = rel.to_string();
            let mut m = self.sealed.lock().unwrap_or_else(|e| e.into_inner());
            m.insert(rel.to_string(), Arc::new(sealed));
        }
        Ok(node)
    }

    /// The secrets of the file `rel` read in this run, if it holds any.
    pub(crate) fn sealed(&self, rel: &str) -> Option<Arc<crate::secrets::Sealed>> {
        let m = self.sealed.lock().unwrap_or_else(|e| e.into_inner());
        m.get(rel).cloned()
    }

    /// Reads a file of the inventory (a level, a node or a class) in its
    /// YAML; the warnings of reading it go to its unit.
    pub(crate) fn read(&self, file: &LevelFile) -> Result<Node, Diag> {
        // A document of a single-file inventory was read at discovery.
        let document = (self.inventory.documents.as_ref())
            .and_then(|d| d.loaded.get(&file.rel))
            .map(|l| crate::yaml::Loaded {
                node: l.node.clone(),
                warnings: l.warnings.clone(),
            });
        let unsaved = (self.overlay.as_ref()).and_then(|o| o.get(&file.rel));
        let loaded = match (document, unsaved) {
            (Some(loaded), _) => loaded,
            (None, Some(text)) => crate::yaml::parse_as(
                &crate::value::Source::new(file.display.clone(), text.clone()),
                &self.limits,
                self.layout.schema,
            )?,
            (None, None) => crate::yaml::load_file_as(
                &file.path,
                &file.display,
                &self.limits,
                self.layout.schema,
            )?,
        };
        if !loaded.warnings.is_empty() {
            let mut w = self.read_warnings.lock().unwrap_or_else(|e| e.into_inner());
            w.insert(file.rel.clone(), loaded.warnings);
        }
        self.unseal(&file.rel, loaded.node)
    }

    /// The warnings of reading `rel`, taken once.
    fn take_read_warnings(&self, rel: &str) -> Diags {
        let mut w = self.read_warnings.lock().unwrap_or_else(|e| e.into_inner());
        w.remove(rel).unwrap_or_default()
    }

    /// Whether a skipped missing class is reported (reclass's
    /// `ignore_class_notfound_warning`; beryl's own layout skips silently).
    pub(crate) fn warns_skipped(&self) -> bool {
        self.layout.warns_skipped
    }

    /// The help of a missing class `name`, in the flavor's words.
    pub(crate) fn missing_help(&self, name: &str) -> String {
        (self.layout.missing_help)(self.inventory, name)
    }

    /// Why `name` is not a class name of this inventory's flavor.
    pub(crate) fn check_name(&self, name: &str) -> Result<(), String> {
        (self.layout.check_name)(name)
    }

    /// The settings of `beryl.yml` (defaults without one).
    /// Under reclass, its options say the same.
    pub(crate) fn settings(&self) -> Result<&Settings, Diags> {
        self.settings
            .get_or_init(|| match self.inventory.flavor.reclass() {
                Some(o) => {
                    Settings::reclass(o.ignore_class_notfound, &o.ignore_class_notfound_regexp)
                }
                None => Settings::load(self.inventory.settings.as_ref(), &self.limits),
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// A level document split into classes and data, once per file.
    /// `entity` is the host's name: under reclass, relative class names in a
    /// node file are resolved against it.
    pub(crate) fn unit(
        &self,
        rel: &str,
        node: &Arc<Node>,
        entity: &str,
    ) -> Result<Arc<ClassedDoc>, Diags> {
        let cell = cell(&self.units, rel);
        cell.get_or_init(|| {
            let mut unit = self.split(node, entity)?;
            unit.warnings.extend(self.take_read_warnings(rel));
            Ok(Arc::new(unit))
        })
        .clone()
    }

    /// Forgets the unit of `rel`, whose document no compile will read again
    /// (a compiled host's own file); reading it again splits it again.
    pub(crate) fn release(&self, rel: &str) {
        let mut map = self.units.lock().unwrap_or_else(|e| e.into_inner());
        map.remove(rel);
    }

    /// Splits a document by the flavor's rules.
    fn split(&self, node: &Arc<Node>, entity: &str) -> Result<ClassedDoc, Diags> {
        (self.layout.split)(node, entity)
    }

    /// Under reclass, the class file of `name`, from the index of classes_uri.
    fn indexed(&self, name: &str) -> Result<Option<LevelFile>, Diags> {
        let index = self.index.get_or_init(|| {
            match (&self.inventory.documents, &self.inventory.classes_dir) {
                (Some(documents), _) => Ok(documents.classes.clone()),
                (None, Some(dir)) => reclass::index(dir),
                (None, None) => Ok(HashMap::new()),
            }
        });
        match index {
            Ok(map) => Ok(map.get(name).cloned()),
            Err(e) => Err(e.clone()),
        }
    }

    /// The class `name` (already validated by [`check_name`]): `None` when no
    /// file defines it.
    pub(crate) fn class(&self, name: &str) -> Result<Option<Arc<Class>>, Diags> {
        let cell = cell(&self.classes, name);
        cell.get_or_init(|| self.load(name)).clone()
    }

    fn load(&self, name: &str) -> Result<Option<Arc<Class>>, Diags> {
        match self.layout.find {
            Find::Index => self.load_indexed(name),
            Find::Paths => self.load_by_path(name),
        }
    }

    /// Under reclass: the class of the index (a file of classes_uri, or a
    /// document of a single-file inventory).
    fn load_indexed(&self, name: &str) -> Result<Option<Arc<Class>>, Diags> {
        let Some(file) = self.indexed(name)? else {
            return Ok(None);
        };
        // A single-file inventory's class is a document of that file.
        if self.inventory.documents.is_none() {
            self.confine(&file.path, &file.display)?;
        }
        let node = self.read(&file)?;
        let mut unit = self.split(&Arc::new(node), name)?;
        unit.warnings.extend(self.take_read_warnings(&file.rel));
        let unit = Arc::new(unit);
        Ok(Some(Arc::new(Class {
            name: name.to_string(),
            file,
            unit,
        })))
    }

    /// beryl's: `_classes/a/b.yml`, `.yaml`, or `a/b/init.yml` for `a.b`.
    fn load_by_path(&self, name: &str) -> Result<Option<Arc<Class>>, Diags> {
        let Some(dir) = &self.inventory.classes_dir else {
            return Ok(None);
        };
        let mut found: Vec<(String, PathBuf)> = Vec::new();
        for rel in spellings(name) {
            let path = dir.path.join(&rel);
            if std::fs::symlink_metadata(&path).is_ok() {
                found.push((rel, path));
            }
        }
        let show = |rel: &str| format!("{}/{rel}", dir.display);
        let (rel, path) = match found.as_slice() {
            [] => return Ok(None),
            [one] => one.clone(),
            [a, b, ..] => {
                return Err(vec![
                    Diag::new(
                        Code::Duplicate,
                        format!(
                            "the class `{name}` is defined twice: by {} and by {}",
                            show(&a.0),
                            show(&b.0)
                        ),
                    )
                    .help("keep one file per class"),
                ]);
            }
        };
        let display = show(&rel);
        self.confine(&path, &display)?;
        let file = LevelFile {
            path,
            rel: format!("{}/{rel}", dir.rel),
            display,
        };
        let node = self.read(&file)?;
        crate::inventory::levels::check(LevelKind::Class, &node)?;
        let unit = Arc::new(self.split(&Arc::new(node), name)?);
        Ok(Some(Arc::new(Class {
            name: name.to_string(),
            file,
            unit,
        })))
    }

    /// The files, relative to the inventory root, that may define the class
    /// `name`: a file appearing at any of them changes the hosts that name
    /// it (compile/inputs.rs). Empty under reclass, whose hosts are never
    /// reused.
    pub(crate) fn paths(&self, name: &str) -> Vec<String> {
        if self.layout.find != Find::Paths {
            return Vec::new();
        }
        let dir = (self.inventory.classes_dir.as_ref())
            .map_or(crate::inventory::CLASSES_DIR, |d| d.rel.as_str());
        spellings(name)
            .into_iter()
            .map(|rel| format!("{dir}/{rel}"))
            .collect()
    }

    /// A class file must be a regular file inside `_classes/` once links are
    /// followed.
    fn confine(&self, path: &Path, display: &str) -> Result<(), Diags> {
        let root = self.root.get_or_init(|| {
            let dir = self.inventory.classes_dir.as_ref()?;
            std::fs::canonicalize(&dir.path).ok()
        });
        let real = std::fs::canonicalize(path)
            .map_err(|e| vec![Diag::new(Code::Io, format!("cannot follow {display}: {e}"))])?;
        if !root.as_ref().is_some_and(|r| real.starts_with(r)) {
            return Err(vec![
                Diag::new(
                    Code::Outside,
                    format!(
                        "{display} is a link to {}, outside {}/",
                        real.display(),
                        crate::inventory::CLASSES_DIR
                    ),
                )
                .help("class files must lie inside the inventory's _classes directory"),
            ]);
        }
        if !real.is_file() {
            return Err(vec![Diag::new(
                Code::NotAFile,
                format!("{display} is not a regular file"),
            )]);
        }
        Ok(())
    }
}

/// beryl's spellings of the class `a.b`, under `_classes/`: `a/b.yml`,
/// `a/b.yaml`, `a/b/init.yml`, `a/b/init.yaml`.
fn spellings(name: &str) -> [String; 4] {
    let base = name.replace('.', "/");
    [
        format!("{base}.yml"),
        format!("{base}.yaml"),
        format!("{base}/init.yml"),
        format!("{base}/init.yaml"),
    ]
}

fn cell<T>(map: &Mutex<HashMap<String, Cell<T>>>, key: &str) -> Cell<T> {
    // A poisoned map only means another compile panicked; its cells are whole.
    let mut map = map.lock().unwrap_or_else(|e| e.into_inner());
    map.entry(key.to_string()).or_default().clone()
}

/// Why `name` is not a class name: dot-separated segments of letters,
/// digits, `_` and `-`.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the name is empty".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(format!(
            "{c:?} is not allowed: a name is segments of letters, digits, `_` and `-`, joined by dots"
        ));
    }
    if name.starts_with('.') {
        return Err(
            "relative class names (`.x`, `..x`) are not supported: give the full name".into(),
        );
    }
    if name.split('.').any(str::is_empty) {
        return Err("a segment between dots is empty".into());
    }
    if name.rsplit('.').next() == Some("init") {
        return Err(
            "a last segment `init` names the folder's init.yml: drop `.init` from the name".into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests;
