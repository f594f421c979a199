//! Texts that stand in for files of the inventory: an editor's buffers,
//! changed and not yet saved (the language server's, src/lsp/). The
//! compile reads a file's text here first, by the file's `rel`, and from
//! the disk otherwise; discovery still lists the disk (a buffer cannot add
//! or remove a file until it is saved).

use std::collections::BTreeMap;
use std::sync::Arc;

/// Unsaved texts, by the `rel` of the file each stands for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Overlay {
    texts: BTreeMap<String, Arc<str>>,
}

impl Overlay {
    /// The text that stands for `rel`, if any.
    pub(crate) fn get(&self, rel: &str) -> Option<&Arc<str>> {
        self.texts.get(rel)
    }

    /// `text` stands for `rel` from now on.
    pub(crate) fn insert(&mut self, rel: String, text: Arc<str>) {
        self.texts.insert(rel, text);
    }

    /// The files that have a stand-in, in order.
    pub(crate) fn files(&self) -> impl Iterator<Item = &str> {
        self.texts.keys().map(String::as_str)
    }
}
