//! `beryl lsp`: a language server over stdio (docs/editors.md), on
//! rust-analyzer's synchronous scaffold (`lsp-server`, `lsp-types`).
//!
//! Entry point: [`serve`]. Built so far (issue 38, in progress): hover
//! (hover.rs: `explain` on the host whose file it is, or what a shared
//! file's line does on each host that reads it) and go to definition
//! (definition.rs: a table of the names that lead to files), references
//! (references.rs: where else a path is written, or a class named),
//! diagnostics on open, on each change of a buffer and on save
//! (diagnostics.rs), all from one [`world::World`] (world.rs) per state of
//! the editor's buffers: an unsaved buffer's text stands in for its file
//! (`inventory::Overlay`), and a hover says when one does. The loop is
//! session.rs.

mod definition;
mod diagnostics;
mod hover;
mod inlay;
mod places;
mod position;
mod references;
mod session;
mod world;

use lsp_server::{Connection, ErrorCode, Request, Response};
use lsp_types::{HoverProviderCapability, OneOf, ServerCapabilities};

use crate::inventory::Inventory;
use crate::keys::KeyStore;
use crate::limits::Limits;

/// What the server reads: the inventory root, the key directory, the
/// limits, as the command line gave them.
pub(crate) struct Setup {
    pub inventory: std::path::PathBuf,
    pub ssh_dir: std::path::PathBuf,
    pub inventory_display: String,
    pub keys: KeyStore,
    pub limits: Limits,
}

impl Setup {
    /// The inventory as it is on disk now.
    fn inventory(&self) -> Result<Inventory, String> {
        Inventory::discover_with(&self.inventory, &self.inventory_display, &self.limits).map_err(
            |d| {
                d.iter()
                    .map(|d| d.message.clone())
                    .collect::<Vec<_>>()
                    .join("; ")
            },
        )
    }
}

/// The local path of a `file://` URI (RFC 8089, no host or `localhost`),
/// its `%XX` escapes decoded; `None` for another scheme or a bad escape.
pub(crate) fn file_path(uri: &str) -> Option<std::path::PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    Some(std::ffi::OsString::from_vec(out).into())
}

/// The `file://` URI of an absolute path, every byte but the unreserved
/// ones and `/` escaped (RFC 3986).
pub(crate) fn file_uri(path: &std::path::Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// What the editor chose: in `initializationOptions`
/// (`{"inlayHints": true, "preview": "host01"}`), and the preview host
/// with the command `beryl.preview`.
#[derive(Debug, Default, Clone, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Prefs {
    /// Inlay hints of the effective value: off unless asked for.
    #[serde(default)]
    pub inlay_hints: bool,
    /// The host whose exact values hovers and hints in a shared file show
    /// (a selector naming one host, as `beryl render` takes).
    #[serde(default)]
    pub preview: Option<String>,
}

/// The command that sets or clears the preview host.
pub(crate) const PREVIEW: &str = "beryl.preview";

/// The server's capabilities.
fn capabilities(prefs: &Prefs) -> ServerCapabilities {
    ServerCapabilities {
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        inlay_hint_provider: prefs.inlay_hints.then_some(OneOf::Left(true)),
        execute_command_provider: Some(lsp_types::ExecuteCommandOptions {
            commands: vec![PREVIEW.to_string()],
            ..Default::default()
        }),
        // Each change sends the whole text (YAML files are small): the
        // world is rebuilt over it, and the diagnostics with it.
        text_document_sync: Some(lsp_types::TextDocumentSyncCapability::Options(
            lsp_types::TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(lsp_types::TextDocumentSyncKind::FULL),
                save: Some(lsp_types::TextDocumentSyncSaveOptions::Supported(true)),
                ..Default::default()
            },
        )),
        ..Default::default()
    }
}

/// Serves `conn` until the client shuts it down: `Ok` after a clean
/// shutdown, the protocol error otherwise. A request the server cannot
/// answer gets an error response; nothing a client sends makes it panic.
pub(crate) fn serve(conn: &Connection, setup: &Setup) -> Result<(), String> {
    let (id, params) = conn.initialize_start().map_err(|e| e.to_string())?;
    // The server works in the client's root, where `-i inventory` and
    // `--ssh-dir ssh` are, whatever directory the editor started it in.
    let root = (params.get("rootUri").and_then(|u| u.as_str()))
        .or_else(|| params["workspaceFolders"][0]["uri"].as_str())
        .and_then(file_path)
        .filter(|p| p.is_dir());
    if let Some(root) = root {
        std::env::set_current_dir(&root).map_err(|e| format!("{}: {e}", root.display()))?;
    }
    // Options that are not ours, or not of these types, are left aside.
    let prefs: Prefs = (params.get("initializationOptions").cloned())
        .and_then(|o| serde_json::from_value(o).ok())
        .unwrap_or_default();
    let result = serde_json::json!({
        "capabilities": capabilities(&prefs),
        "serverInfo": {"name": "beryl", "version": env!("CARGO_PKG_VERSION")},
    });
    conn.initialize_finish(id, result)
        .map_err(|e| e.to_string())?;
    session::run(conn, setup, prefs)
}

/// The response to one request.
pub(super) fn answer(world: &world::World<'_>, prefs: &Prefs, req: Request) -> Response {
    use lsp_types::request::{
        GotoDefinition, HoverRequest, InlayHintRequest, References, Request as _,
    };
    match req.method.as_str() {
        GotoDefinition::METHOD => reply(req, |p| definition::definition(world, prefs, p)),
        HoverRequest::METHOD => reply(req, |p| hover::hover(world, prefs, p)),
        InlayHintRequest::METHOD if prefs.inlay_hints => {
            reply(req, |p| inlay::hints(world, prefs, p))
        }
        References::METHOD => reply(req, |p| references::references(world, p)),
        other => Response::new_err(
            req.id,
            ErrorCode::MethodNotFound as i32,
            format!("beryl lsp does not answer `{other}`"),
        ),
    }
}

/// A request's parameters read, `f`'s answer sent: bad parameters are
/// InvalidParams, `f`'s error RequestFailed.
fn reply<P: serde::de::DeserializeOwned, R: serde::Serialize>(
    req: Request,
    f: impl FnOnce(&P) -> Result<R, String>,
) -> Response {
    match serde_json::from_value(req.params) {
        Ok(params) => match f(&params) {
            Ok(r) => Response::new_ok(req.id, r),
            Err(why) => Response::new_err(req.id, ErrorCode::RequestFailed as i32, why),
        },
        Err(e) => Response::new_err(req.id, ErrorCode::InvalidParams as i32, e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_file_uri_is_a_path() {
        let p = |u: &str| super::file_path(u).map(|p| p.display().to_string());
        assert_eq!(p("file:///a/b%20c.yml").as_deref(), Some("/a/b c.yml"));
        assert_eq!(p("file://localhost/x").as_deref(), Some("/x"));
        assert_eq!(p("file:///%C3%A9").as_deref(), Some("/é"));
        assert_eq!(p("https://x/y"), None);
        assert_eq!(p("file:///%zz"), None);
        assert_eq!(p("file://host/x"), None);
        let path = std::path::Path::new("/a b/é%.yml");
        assert_eq!(super::file_uri(path), "file:///a%20b/%C3%A9%25.yml");
        assert_eq!(
            super::file_path(&super::file_uri(path)).as_deref(),
            Some(path)
        );
    }
}
