//! The server's loop: the documents the editor has open, the world they
//! and the disk make, and the diagnostics published from it.
//!
//! A save discovers the inventory again (a file may have appeared); a
//! change to an open document starts a new world over the same discovery
//! with the buffer's text in place of its file, and refreshes the
//! diagnostics of the hosts that read it. Changes that arrive while one is
//! being handled are taken together: only the last text counts.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use lsp_server::{Connection, ErrorCode, Message, Notification, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{ExecuteCommand, Request as _};

use super::world::{Files, Inherited, World};
use super::{Prefs, Setup, file_path, file_uri};
use crate::inventory::{Inventory, Overlay};

/// An open document: its text as the editor has it, and whether that
/// differs from the file (changed since opened or saved).
struct Buffer {
    text: Arc<str>,
    unsaved: bool,
}

/// What the loop keeps across worlds.
#[derive(Default)]
struct State {
    prefs: Prefs,
    buffers: HashMap<String, Buffer>,
    published: Published,
    /// A message read while taking changes together, handled next.
    held: Option<Message>,
}

/// Why a world ends.
enum End {
    /// A document was saved (its URI): the inventory is discovered again.
    Saved(String),
    /// The text of a document of the inventory changed (its URI).
    Changed(String),
    /// The client shut the server down.
    Shutdown,
}

/// Serves an initialized connection until the client shuts it down.
pub(super) fn run(conn: &Connection, setup: &Setup, prefs: Prefs) -> Result<(), String> {
    let mut state = State {
        prefs,
        ..State::default()
    };
    let mut pending: Option<String> = None;
    loop {
        let inventory = setup.inventory();
        let files = Files::default();
        let mut inherited = Inherited::default();
        loop {
            let built = (inventory.as_ref()).map(|inv| {
                let overlay = state.overlay(inv, &files);
                World::new(setup, inv, &files, Arc::new(overlay), inherited)
            });
            let world = match &built {
                Ok(w) => Ok(w),
                Err(why) => Err(why.as_str()),
            };
            if let Some(uri) = pending.take() {
                state.published.refresh(conn, world, &uri)?;
            }
            match session(conn, world, &mut state)? {
                End::Shutdown => return Ok(()),
                End::Saved(uri) => {
                    pending = Some(uri);
                    break;
                }
                End::Changed(uri) => {
                    inherited = match world {
                        Ok(w) => inherit(w, &uri),
                        Err(_) => Inherited::default(),
                    };
                    pending = Some(uri);
                }
            }
        }
    }
}

/// What the world after a change to `uri` inherits from `world`.
fn inherit(world: &World<'_>, uri: &str) -> Inherited {
    match file_path(uri).and_then(|p| world.level_of(&p)) {
        Some(level) => world.inherit(&level.rel),
        None => Inherited::default(),
    }
}

/// Whether `uri` is a file of the inventory (or the inventory cannot be
/// read, when any change may be what mends it).
fn of_inventory(world: Result<&World<'_>, &str>, uri: &str) -> bool {
    match world {
        Ok(w) => file_path(uri).and_then(|p| w.level_of(&p)).is_some(),
        Err(_) => true,
    }
}

impl State {
    /// The unsaved buffers of files of the inventory, by their `rel`. A
    /// single-file inventory is read as saved: its documents were parsed at
    /// discovery.
    fn overlay(&self, inventory: &Inventory, files: &Files) -> Overlay {
        let mut overlay = Overlay::default();
        if inventory.documents.is_some() {
            return overlay;
        }
        for (uri, b) in self.buffers.iter().filter(|(_, b)| b.unsaved) {
            if let Some(level) = file_path(uri).and_then(|p| files.level_of(inventory, &p)) {
                overlay.insert(level.rel, b.text.clone());
            }
        }
        overlay
    }

    /// Applies a notification about a document; what ends the world, if
    /// it does. An opened document gets its diagnostics here.
    fn notified(
        &mut self,
        conn: &Connection,
        world: Result<&World<'_>, &str>,
        n: &Notification,
    ) -> Result<Option<End>, String> {
        let doc = &n.params["textDocument"];
        let Some(uri) = doc["uri"].as_str().map(str::to_string) else {
            return Ok(None);
        };
        Ok(match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let text = doc["text"].as_str().unwrap_or_default();
                // A buffer restored unsaved differs from its file from the
                // start.
                let on_disk = file_path(&uri).and_then(|p| std::fs::read_to_string(p).ok());
                let buffer = Buffer {
                    text: Arc::from(text),
                    unsaved: on_disk.as_deref() != Some(text),
                };
                let unsaved = buffer.unsaved;
                self.buffers.insert(uri.clone(), buffer);
                if unsaved && of_inventory(world, &uri) {
                    return Ok(Some(End::Changed(uri)));
                }
                self.published.refresh(conn, world, &uri)?;
                None
            }
            DidChangeTextDocument::METHOD => {
                // Full sync: the last change holds the whole text.
                let changes = n.params["contentChanges"].as_array();
                let Some(text) = changes.and_then(|c| c.last()?["text"].as_str()) else {
                    return Ok(None);
                };
                let buffer = Buffer {
                    text: Arc::from(text),
                    unsaved: true,
                };
                self.buffers.insert(uri.clone(), buffer);
                // Another file of the workspace changes nothing here.
                of_inventory(world, &uri).then_some(End::Changed(uri))
            }
            DidSaveTextDocument::METHOD => {
                if let Some(b) = self.buffers.get_mut(&uri) {
                    b.unsaved = false;
                }
                Some(End::Saved(uri))
            }
            DidCloseTextDocument::METHOD => match self.buffers.remove(&uri) {
                // Closed unsaved: the file is what counts again.
                Some(b) if b.unsaved && of_inventory(world, &uri) => Some(End::Changed(uri)),
                _ => None,
            },
            _ => None,
        })
    }

    /// Runs a command: `beryl.preview` with a host (a selector naming one)
    /// makes it the preview host; with no argument, or `null`, clears it.
    fn command(&mut self, world: Result<&World<'_>, &str>, req: lsp_server::Request) -> Response {
        let fail = |id, code: ErrorCode, why: String| Response::new_err(id, code as i32, why);
        let params: lsp_types::ExecuteCommandParams = match serde_json::from_value(req.params) {
            Ok(p) => p,
            Err(e) => return fail(req.id, ErrorCode::InvalidParams, e.to_string()),
        };
        if params.command != super::PREVIEW {
            let why = format!("beryl lsp has no command `{}`", params.command);
            return fail(req.id, ErrorCode::InvalidParams, why);
        }
        let asked = match params.arguments.as_slice() {
            [] | [serde_json::Value::Null] => None,
            [serde_json::Value::String(s)] => Some(s.clone()),
            _ => {
                let why = format!(
                    "{} takes one host name, or none to clear it",
                    super::PREVIEW
                );
                return fail(req.id, ErrorCode::InvalidParams, why);
            }
        };
        let Some(asked) = asked else {
            self.prefs.preview = None;
            return Response::new_ok(req.id, "no preview host");
        };
        let found = match world {
            Ok(w) => w.host_named(&asked),
            Err(why) => Err(format!("the inventory: {why}")),
        };
        match found {
            Ok(host) => {
                self.prefs.preview = Some(host.fqdn.clone());
                Response::new_ok(req.id, format!("previewing as {}", host.fqdn))
            }
            Err(why) => fail(req.id, ErrorCode::InvalidParams, why),
        }
    }

    /// Takes the changes to the same document already waiting after one:
    /// the next other message is held for the next world.
    fn take_changes(&mut self, conn: &Connection, end: End) -> Result<End, String> {
        let End::Changed(uri) = &end else {
            return Ok(end);
        };
        while let Ok(msg) = conn.receiver.try_recv() {
            match msg {
                Message::Notification(n)
                    if n.method == DidChangeTextDocument::METHOD
                        && n.params["textDocument"]["uri"].as_str() == Some(uri) =>
                {
                    self.notified(conn, Err("not read while taking changes"), &n)?;
                }
                other => {
                    self.held = Some(other);
                    break;
                }
            }
        }
        Ok(End::Changed(uri.clone()))
    }
}

/// Answers requests with one world until it ends.
fn session(
    conn: &Connection,
    world: Result<&World<'_>, &str>,
    state: &mut State,
) -> Result<End, String> {
    loop {
        let msg = match state.held.take() {
            Some(msg) => msg,
            None => match conn.receiver.recv() {
                Ok(msg) => msg,
                Err(_) => return Err("the client closed the connection without `shutdown`".into()),
            },
        };
        match msg {
            Message::Request(req) => {
                if conn.handle_shutdown(&req).map_err(|e| e.to_string())? {
                    return Ok(End::Shutdown);
                }
                let resp = match world {
                    _ if req.method == ExecuteCommand::METHOD => state.command(world, req),
                    Ok(w) => super::answer(w, &state.prefs, req),
                    Err(why) => Response::new_err(
                        req.id,
                        ErrorCode::RequestFailed as i32,
                        format!("the inventory: {why}"),
                    ),
                };
                conn.sender.send(resp.into()).map_err(|e| e.to_string())?;
            }
            Message::Notification(n) => {
                if let Some(end) = state.notified(conn, world, &n)? {
                    return state.take_changes(conn, end);
                }
            }
            Message::Response(_) => {}
        }
    }
}

/// The files each document's diagnostics were published for, so that a
/// diagnostic that went away is cleared.
#[derive(Default)]
struct Published(HashMap<String, BTreeSet<String>>);

impl Published {
    /// Checks the hosts that read the document `uri` and publishes their
    /// diagnostics, file by file; a file that had some from this document
    /// and has none now gets an empty list. A document that is not a file
    /// of the inventory gets nothing; an inventory that cannot be read is
    /// said on standard error, where clients log a server's messages.
    fn refresh(
        &mut self,
        conn: &Connection,
        world: Result<&World<'_>, &str>,
        uri: &str,
    ) -> Result<(), String> {
        let Some(file) = file_path(uri) else {
            return Ok(());
        };
        let Ok(world) = world.map_err(|why| eprintln!("beryl lsp: the inventory: {why}")) else {
            return Ok(());
        };
        let found = match super::diagnostics::of(world, &file) {
            Ok(Some(found)) => found,
            Ok(None) => return Ok(()),
            Err(why) => {
                eprintln!("beryl lsp: {why}");
                return Ok(());
            }
        };
        let here = std::env::current_dir().map_err(|e| e.to_string())?;
        let mut now = BTreeMap::new();
        for (path, diags) in found {
            let full = here.join(&path);
            let full = full.canonicalize().unwrap_or(full);
            now.insert(file_uri(&full), diags);
        }
        for gone in self.0.get(uri).into_iter().flatten() {
            now.entry(gone.clone()).or_default();
        }
        let mut kept = BTreeSet::new();
        for (target, diags) in now {
            if !diags.is_empty() {
                kept.insert(target.clone());
            }
            let params = serde_json::json!({"uri": target, "diagnostics": diags});
            let n = Notification::new(PublishDiagnostics::METHOD.to_string(), params);
            conn.sender.send(n.into()).map_err(|e| e.to_string())?;
        }
        self.0.insert(uri.to_string(), kept);
        Ok(())
    }
}
