//! Fleet output: every host rendered into a directory, with a hash manifest.
//!
//! Entry points: [`write_dir`] and [`Manifest::read`]. A directory holds
//! `<fqdn>.yml` (or `.json`) per host and `beryl-manifest.json`:
//! `{"version": 1, "format": "yaml", "hosts": {fqdn: "sha256:<hex>"}}`, hosts
//! sorted. Each file is written to a temporary name and renamed into place,
//! the manifest last; files of hosts that the previous manifest listed and
//! that are gone are removed; nothing else in the directory is touched.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Format;
use crate::diag::Diag;

pub const MANIFEST: &str = "beryl-manifest.json";

/// One host's rendered text.
pub struct Rendered {
    pub fqdn: String,
    pub text: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u32,
    #[serde(default)]
    pub format: Option<String>,
    pub hosts: BTreeMap<String, String>,
}

/// `sha256:<hex>` of a rendered text.
pub fn hash(text: &str) -> String {
    format!("sha256:{}", crate::fsutil::sha256_hex(text))
}

pub fn extension(format: Format) -> &'static str {
    match format {
        Format::Yaml => "yml",
        Format::Json => "json",
    }
}

fn format_name(format: Format) -> &'static str {
    match format {
        Format::Yaml => "yaml",
        Format::Json => "json",
    }
}

impl Manifest {
    /// The manifest of a render directory; `None` when it has none.
    pub fn read(dir: &Path) -> Result<Option<Manifest>, Diag> {
        let path = dir.join(MANIFEST);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&path, &e)),
        };
        serde_json::from_str(&text).map(Some).map_err(|e| {
            Diag::new(
                "beryl::fleet::manifest",
                format!(
                    "{}:{}:{}: not a beryl manifest: {e}",
                    path.display(),
                    e.line(),
                    e.column()
                ),
            )
        })
    }

    /// The file of a host in a directory with this manifest.
    pub fn file(&self, dir: &Path, fqdn: &str) -> PathBuf {
        let ext = match self.format.as_deref() {
            Some("json") => "json",
            _ => "yml",
        };
        dir.join(format!("{fqdn}.{ext}"))
    }
}

/// Writes every host (sorted by FQDN) and the manifest into `dir`.
pub fn write_dir(dir: &Path, hosts: &[Rendered], format: Format) -> Result<(), Diag> {
    std::fs::create_dir_all(dir).map_err(|e| io(dir, &e))?;
    let old = Manifest::read(dir)?;
    let mut manifest = Manifest {
        version: 1,
        format: Some(format_name(format).to_string()),
        hosts: BTreeMap::new(),
    };
    for h in hosts {
        write_atomic(
            &dir.join(format!("{}.{}", h.fqdn, extension(format))),
            &h.text,
        )?;
        manifest.hosts.insert(h.fqdn.clone(), hash(&h.text));
    }
    // Remove what beryl wrote before and no longer writes.
    if let Some(old) = old {
        for fqdn in old.hosts.keys() {
            let file = old.file(dir, fqdn);
            let current = dir.join(format!("{fqdn}.{}", extension(format)));
            if (!manifest.hosts.contains_key(fqdn) || file != current) && file.exists() {
                std::fs::remove_file(&file).map_err(|e| io(&file, &e))?;
            }
        }
    }
    let mut text = serde_json::to_string_pretty(&manifest).unwrap_or_default();
    text.push('\n');
    write_atomic(&dir.join(MANIFEST), &text)
}

fn write_atomic(path: &Path, text: &str) -> Result<(), Diag> {
    crate::fsutil::write_atomic(path, text).map_err(|(p, e)| io(&p, &e))
}

fn io(path: &Path, e: &std::io::Error) -> Diag {
    Diag::new("beryl::io", format!("{}: {e}", path.display()))
}
