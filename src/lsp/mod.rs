//! `beryl lsp`: a language server over stdio (docs/editors.md), on
//! rust-analyzer's synchronous scaffold (`lsp-server`, `lsp-types`).
//!
//! Entry point: [`serve`]. Built so far (issue 38, in progress): hover
//! (hover.rs: `explain` on the host whose file it is, or what a shared
//! file's line does on each host that reads it) and go to definition
//! (definition.rs: a table of the names that lead to files), references
//! (references.rs: where else a path is written, or a class named),
//! diagnostics on open and save (diagnostics.rs), all from one
//! [`world::World`] between two saves. It reads the
//! files as saved: an unsaved buffer is not compiled yet, and a hover says
//! so.

mod definition;
mod diagnostics;
mod hover;
mod position;
mod references;
mod world;

use lsp_server::{Connection, ErrorCode, Message, Request, Response};
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

/// The server's capabilities.
fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        // Opened and saved documents are checked, from the files as saved:
        // no change is sent.
        text_document_sync: Some(lsp_types::TextDocumentSyncCapability::Options(
            lsp_types::TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(lsp_types::TextDocumentSyncKind::NONE),
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
/// Each save starts a new [`world::World`]: the inventory discovered again,
/// every host compiled again when asked.
pub(crate) fn serve(conn: &Connection, setup: &Setup) -> Result<(), String> {
    let caps = serde_json::to_value(capabilities()).map_err(|e| e.to_string())?;
    conn.initialize(caps).map_err(|e| e.to_string())?;
    let mut published = Published::default();
    let mut saved: Option<String> = None;
    loop {
        let inventory = setup.inventory();
        let built = inventory.as_ref().map(|i| world::World::new(setup, i));
        let world = match &built {
            Ok(w) => Ok(w),
            Err(why) => Err(why.as_str()),
        };
        if let Some(uri) = saved.take() {
            published.refresh(conn, world, &uri)?;
        }
        match session(conn, world, &mut published)? {
            Some(uri) => saved = Some(uri),
            None => return Ok(()),
        }
    }
}

/// Answers requests with one world until a document is saved (its URI is
/// returned) or the client shuts down (`None`).
fn session(
    conn: &Connection,
    world: Result<&world::World<'_>, &str>,
    published: &mut Published,
) -> Result<Option<String>, String> {
    use lsp_types::notification::{DidSaveTextDocument, Notification as _};
    for msg in &conn.receiver {
        match msg {
            Message::Request(req) => {
                if conn.handle_shutdown(&req).map_err(|e| e.to_string())? {
                    return Ok(None);
                }
                let resp = match world {
                    Ok(w) => answer(w, req),
                    Err(why) => Response::new_err(
                        req.id,
                        ErrorCode::RequestFailed as i32,
                        format!("the inventory: {why}"),
                    ),
                };
                conn.sender.send(resp.into()).map_err(|e| e.to_string())?;
            }
            Message::Notification(n) => match opened_or_saved(&n) {
                Some(uri) if n.method == DidSaveTextDocument::METHOD => return Ok(Some(uri)),
                Some(uri) => published.refresh(conn, world, &uri)?,
                None => {}
            },
            Message::Response(_) => {}
        }
    }
    Err("the client closed the connection without `shutdown`".into())
}

/// The document a notification opened or saved.
fn opened_or_saved(n: &lsp_server::Notification) -> Option<String> {
    use lsp_types::notification::{DidOpenTextDocument, DidSaveTextDocument, Notification as _};
    let uri = match n.method.as_str() {
        DidOpenTextDocument::METHOD => &n.params["textDocument"]["uri"],
        DidSaveTextDocument::METHOD => &n.params["textDocument"]["uri"],
        _ => return None,
    };
    uri.as_str().map(str::to_string)
}

/// The files each opened or saved document's diagnostics were published
/// for, so that a diagnostic that went away is cleared.
#[derive(Default)]
struct Published(std::collections::HashMap<String, std::collections::BTreeSet<String>>);

impl Published {
    /// Checks the hosts that read the document `uri` and publishes their
    /// diagnostics, file by file; a file that had some from this document
    /// and has none now gets an empty list. A document that is not a file
    /// of the inventory gets nothing; an inventory that cannot be read is
    /// said on standard error, where clients log a server's messages.
    fn refresh(
        &mut self,
        conn: &Connection,
        world: Result<&world::World<'_>, &str>,
        uri: &str,
    ) -> Result<(), String> {
        use lsp_types::notification::{Notification as _, PublishDiagnostics};
        let Some(file) = file_path(uri) else {
            return Ok(());
        };
        let Ok(world) = world.map_err(|why| eprintln!("beryl lsp: the inventory: {why}")) else {
            return Ok(());
        };
        let found = match diagnostics::of(world, &file) {
            Ok(Some(found)) => found,
            Ok(None) => return Ok(()),
            Err(why) => {
                eprintln!("beryl lsp: {why}");
                return Ok(());
            }
        };
        let here = std::env::current_dir().map_err(|e| e.to_string())?;
        let mut now = std::collections::BTreeMap::new();
        for (path, diags) in found {
            let full = here.join(&path);
            let full = full.canonicalize().unwrap_or(full);
            now.insert(file_uri(&full), diags);
        }
        for gone in self.0.get(uri).into_iter().flatten() {
            now.entry(gone.clone()).or_default();
        }
        let mut kept = std::collections::BTreeSet::new();
        for (target, diags) in now {
            if !diags.is_empty() {
                kept.insert(target.clone());
            }
            let params = serde_json::json!({"uri": target, "diagnostics": diags});
            let n = lsp_server::Notification::new(PublishDiagnostics::METHOD.to_string(), params);
            conn.sender.send(n.into()).map_err(|e| e.to_string())?;
        }
        self.0.insert(uri.to_string(), kept);
        Ok(())
    }
}

/// The response to one request.
fn answer(world: &world::World<'_>, req: Request) -> Response {
    use lsp_types::request::{GotoDefinition, HoverRequest, References, Request as _};
    match req.method.as_str() {
        GotoDefinition::METHOD => reply(req, |p| definition::definition(world, p)),
        HoverRequest::METHOD => reply(req, |p| hover::hover(world, p)),
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
