//! A render directory's manifest: read under the lock (recovering the
//! directory first) and checked, and written one line per entry.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Code, DirLock, Format, JOURNAL, MANIFEST, format_name, reuse};
use crate::diag::Diag;

/// A render directory's manifest; version 1 has only `format` and `hosts`,
/// version 2 adds the records of reuse.rs.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Manifest {
    pub version: u32,
    #[serde(default)]
    pub format: Option<String>,
    /// What the output depends on besides each host's inputs (reuse.rs).
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    pub hosts: BTreeMap<String, String>,
    /// Every host's inputs: their digests, `None` for a path probed empty.
    #[serde(default)]
    pub inputs: BTreeMap<String, Option<String>>,
    /// Each host's inputs, as indices into `inputs`.
    #[serde(default)]
    pub records: BTreeMap<String, reuse::Entry>,
}

impl Manifest {
    /// The manifest of a render directory, read as it is: a reader moves
    /// and deletes nothing (issue 35). A stage without a journal is ignored
    /// (DIR's own files are the complete previous output); a journal (a
    /// write interrupted after its commit, DIR's files a mix of two outputs)
    /// is refused, naming the command that finishes it. `None` when DIR has
    /// no manifest. The returned lock keeps writers out while the caller
    /// reads the host files.
    pub(crate) fn read(dir: &Path) -> Result<(Option<Manifest>, DirLock), Diag> {
        let lock = DirLock::shared(dir)?;
        let journal = dir.join(JOURNAL);
        if std::fs::symlink_metadata(&journal).is_ok() {
            let out = dir.display().to_string();
            let out = crate::shell::quote(&out).map_or(out.clone(), |q| q.into_owned());
            return Err(Diag::new(
                Code::Interrupted,
                format!(
                    "{}: a write of this render directory was interrupted after its commit; \
                     its files are a mix of two outputs",
                    journal.display()
                ),
            )
            .help(format!(
                "`beryl render … --out {out}` finishes the write, then renders (a reader \
                 moves and deletes nothing in a render directory)"
            )));
        }
        Ok((read_manifest(dir)?, lock))
    }

    /// A version-2 manifest in `format` with these hosts and records.
    pub(crate) fn new(
        format: Format,
        options: BTreeMap<String, String>,
        hosts: BTreeMap<String, String>,
        (inputs, records): (
            BTreeMap<String, Option<String>>,
            BTreeMap<String, reuse::Entry>,
        ),
    ) -> Manifest {
        Manifest {
            version: reuse::VERSION,
            format: Some(format_name(format).to_string()),
            options,
            hosts,
            inputs,
            records,
        }
    }

    /// The manifest as written: JSON, one line per host, input and record,
    /// so that 10,000 hosts stay a few megabytes and `diff` shows a change
    /// as the lines it touches.
    pub(super) fn text(&self) -> String {
        fn json<T: Serialize + ?Sized>(v: &T) -> String {
            serde_json::to_string(v).unwrap_or_default()
        }
        fn map<V: Serialize>(out: &mut String, key: &str, map: &BTreeMap<String, V>) {
            out.push_str(&format!(",\n  \"{key}\": {{"));
            for (i, (k, v)) in map.iter().enumerate() {
                out.push_str(if i == 0 { "\n    " } else { ",\n    " });
                out.push_str(&format!("{}: {}", json(k), json(v)));
            }
            out.push_str(if map.is_empty() { "}" } else { "\n  }" });
        }
        let mut out = format!(
            "{{\n  \"version\": {},\n  \"format\": {}",
            self.version,
            json(&self.format)
        );
        map(&mut out, "options", &self.options);
        map(&mut out, "hosts", &self.hosts);
        map(&mut out, "inputs", &self.inputs);
        map(&mut out, "records", &self.records);
        out.push_str("\n}\n");
        out
    }

    /// The file of a host in a directory with this manifest.
    pub(crate) fn file(&self, dir: &Path, fqdn: &str) -> PathBuf {
        dir.join(self.file_name(fqdn))
    }

    pub(super) fn file_name(&self, fqdn: &str) -> String {
        let ext = match self.format.as_deref() {
            Some("json") => "json",
            _ => "yml",
        };
        format!("{fqdn}.{ext}")
    }
}

/// Reads and checks `DIR/beryl-manifest.json`: a regular file within the
/// output size cap, whose host names are host names (a manifest naming
/// `../../x` would make beryl remove or read files outside DIR).
pub(super) fn read_manifest(dir: &Path) -> Result<Option<Manifest>, Diag> {
    let path = dir.join(MANIFEST);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let text = super::read_own(&path)?;
    parse_manifest(&text, &path.display().to_string()).map(Some)
}

/// The manifest `text`, read from `name`, checked.
pub(super) fn parse_manifest(text: &str, name: &str) -> Result<Manifest, Diag> {
    let manifest: Manifest = serde_json::from_str(text).map_err(|e| {
        Diag::new(
            Code::Manifest,
            format!(
                "{name}:{}:{}: not a beryl manifest: {e}",
                e.line(),
                e.column()
            ),
        )
    })?;
    if let Some(bad) = manifest
        .hosts
        .keys()
        .find(|h| crate::freebsd::names::hostname(h).is_err())
    {
        // Where the name is written (serde_json keeps no positions).
        let quoted = serde_json::to_string(bad).unwrap_or_default();
        let line = text.find(&quoted).map_or(1, |at| {
            text[..at].bytes().filter(|&b| b == b'\n').count() + 1
        });
        return Err(Diag::new(
            Code::Manifest,
            format!("{name}:{line}: `{bad}` is not a host name; is this a beryl manifest?"),
        )
        .help("render the directory again after removing the manifest"));
    }
    Ok(manifest)
}
