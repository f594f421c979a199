//! The content of `freebsd.files`: a `content` as written, a `template`
//! under the inventory's `templates/` rendered with the host's effective
//! config, or a `source` under its `files/` copied as is.
//!
//! Both directories sit at the inventory root (beside `_default.yml`);
//! they are not domains. A path stays inside its directory: relative, no
//! `..` (schema), and no symbolic link out of it (checked here on the
//! real path). Templates are minijinja with strict undefined: an unknown
//! variable is an error at the template's line and at the YAML that names
//! the template.
//!
//! A template is user input, run in CI on anyone's pull request: it runs
//! with minijinja's fuel ([`crate::limits::Limits::template_fuel`]
//! instructions) on a thread whose heap, output included, is bounded
//! ([`crate::limits::heap`], [`crate::limits::Limits::template_bytes`]).
//! Each bound is its own `beryl::limit::` error at the template (and its
//! line, for fuel) and at the YAML that names it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use minijinja::{AutoEscape, Environment, UndefinedBehavior};

use crate::diag::{Diag, Diags};
use crate::limits::{Limit, Limits};
use crate::schema::{FileSource, FreeBsd, Located};
use crate::value::{Node, Source, Span};

crate::diag::codes! {
    /// The codes of reading managed files from the inventory.
    pub(crate) enum Code in "compile" {
        /// A `template` that is missing, unreadable, outside `templates/`, or fails to render (syntax error, undefined variable).
        Template = "template";
        /// A `source` that is missing, unreadable, not UTF-8, or outside `files/`.
        Source = "source";
    }
}

/// The directory of templates at the inventory root.
pub(crate) const TEMPLATES_DIR: &str = crate::inventory::DATA_DIRS[0];
/// The directory of files copied as is, at the inventory root.
pub(crate) const FILES_DIR: &str = crate::inventory::DATA_DIRS[1];

/// Sets the content of each file whose `content` is written inline (all a
/// compile without an inventory can do).
pub(crate) fn inline(freebsd: &mut FreeBsd) {
    for f in &mut freebsd.files {
        if let Some(FileSource::Content(text)) = &f.source {
            f.content = Some(text.value.clone());
        }
    }
}

/// Where the inventory is, for reading templates and sources.
pub(crate) struct Dirs<'a> {
    /// The inventory root as opened.
    pub root: &'a Path,
    /// The root as the user gave it, for messages.
    pub display: &'a str,
    /// The run's limits: the file size cap, and the templates' bounds.
    pub limits: Limits,
}

/// Renders each template and reads each source of the host's files.
/// Returns every error. `reads` gains every file read or looked for, relative
/// to the inventory root (the templates an `{% include %}` asked for too).
pub(crate) fn resolve(
    freebsd: &mut FreeBsd,
    config: &Node,
    dirs: &Dirs<'_>,
    reads: &mut BTreeSet<String>,
) -> Result<(), Diags> {
    let mut errors = Vec::new();
    let mut env: Option<Arc<Environment<'static>>> = None;
    let loaded = Arc::new(Mutex::new(BTreeSet::new()));
    for i in 0..freebsd.files.len() {
        let source = freebsd.files[i].source.clone();
        let content = match &source {
            Some(FileSource::Content(text)) => Ok(text.value.clone()),
            Some(FileSource::Template(name)) => {
                reads.insert(format!("{TEMPLATES_DIR}/{}", name.value));
                let shared = env.get_or_insert_with(|| Arc::new(environment(dirs, loaded.clone())));
                let rendered = render(shared, name, config, dirs);
                if rendered
                    .as_ref()
                    .is_err_and(|d| d.code.ends_with("::template_memory"))
                {
                    // The stopped thread may hold the environment's locks.
                    env = None;
                }
                rendered
            }
            Some(FileSource::Source(name)) => read(dirs, FILES_DIR, name).and_then(|(_, bytes)| {
                String::from_utf8(bytes).map_err(|_| {
                    source_error(name, dirs, "it is not UTF-8 text")
                        .help("beryl writes files as text; keep binary files out of freebsd.files")
                })
            }),
            None => continue,
        };
        if let Some(FileSource::Source(name)) = &source {
            reads.insert(format!("{FILES_DIR}/{}", name.value));
        }
        match content {
            Ok(c) => freebsd.files[i].content = Some(c),
            Err(d) => errors.push(d),
        }
    }
    let loaded = loaded.lock().unwrap_or_else(|e| e.into_inner());
    reads.extend(loaded.iter().map(|n| format!("{TEMPLATES_DIR}/{n}")));
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn shown(dirs: &Dirs<'_>, dir: &str, name: &str) -> String {
    format!("{}/{dir}/{name}", dirs.display.trim_end_matches('/'))
}

fn source_error(name: &Located<String>, dirs: &Dirs<'_>, why: &str) -> Diag {
    Diag::new(
        Code::Source,
        format!("cannot read {}: {why}", shown(dirs, FILES_DIR, &name.value)),
    )
    .label(&name.span, "named here")
}

/// Reads `DIR/NAME` under the inventory root, refusing a real path outside
/// `DIR` (a symbolic link out of it).
fn read(dirs: &Dirs<'_>, dir: &str, name: &Located<String>) -> Result<(PathBuf, Vec<u8>), Diag> {
    let max_file_size = dirs.limits.max_file_size;
    let code = if dir == FILES_DIR {
        Code::Source
    } else {
        Code::Template
    };
    let shown = shown(dirs, dir, &name.value);
    let fail = |why: String, help: String| {
        Diag::new(code, format!("cannot read {shown}: {why}"))
            .label(&name.span, "named here")
            .help(help)
    };
    let base = dirs.root.join(dir);
    let path = base.join(&name.value);
    let real = std::fs::canonicalize(&path);
    let base_real = std::fs::canonicalize(&base);
    match (real, base_real) {
        (Ok(real), Ok(base_real)) if !real.starts_with(&base_real) => {
            return Err(fail(
                "it leads outside the directory".into(),
                format!("keep the file inside {dir}/ (a symbolic link out of it is refused)"),
            ));
        }
        (Err(e), _) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(fail(
                "no such file".into(),
                format!(
                    "put it under {dir}/ at the inventory root (beside _default.yml), or fix the name"
                ),
            ));
        }
        _ => {}
    }
    use crate::fsutil::{ReadError, read_capped};
    match read_capped(&path, max_file_size) {
        Ok(bytes) => Ok((path, bytes)),
        Err(ReadError::Io(e)) => Err(fail(e.to_string(), format!("check the file under {dir}/"))),
        Err(ReadError::NotAFile) => Err(fail(
            "it is not a regular file".into(),
            format!("name a file under {dir}/"),
        )),
        Err(ReadError::TooLarge) => Err(fail(
            format!("it is larger than the {max_file_size}-byte file size cap"),
            crate::limits::Limit::FileSize.help().to_string(),
        )),
    }
}

/// One environment per host: templates load from `templates/` (an
/// `{% include %}` too), strict undefined, no escaping, the trailing
/// newline kept, a block tag's own newline dropped (`trim_blocks`), the
/// run's fuel. Every name the loader is asked for, found or not, joins
/// `loaded`.
fn environment(dirs: &Dirs<'_>, loaded: Arc<Mutex<BTreeSet<String>>>) -> Environment<'static> {
    let mut env = Environment::new();
    env.set_fuel(Some(dirs.limits.template_fuel()));
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_auto_escape_callback(|_| AutoEscape::None);
    env.set_keep_trailing_newline(true);
    env.set_trim_blocks(true);
    let base = dirs.root.join(TEMPLATES_DIR);
    let max = dirs.limits.max_file_size;
    env.set_loader(move |name| {
        if crate::freebsd::names::inventory_path(name).is_err() {
            return Ok(None);
        }
        // Allocated before the lock: a template past its heap budget stops
        // at an allocation, and must not stop holding the lock.
        let owned = name.to_string();
        (loaded.lock().unwrap_or_else(|e| e.into_inner())).insert(owned);
        let path = base.join(name);
        match (std::fs::canonicalize(&path), std::fs::canonicalize(&base)) {
            (Ok(real), Ok(b)) if real.starts_with(&b) => {}
            (Ok(_), Ok(_)) => {
                return Err(minijinja::Error::new(
                    minijinja::ErrorKind::InvalidOperation,
                    format!("{name} leads outside templates/"),
                ));
            }
            _ => return Ok(None),
        }
        match crate::fsutil::read_capped(&path, max) {
            Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
                minijinja::Error::new(
                    minijinja::ErrorKind::InvalidOperation,
                    format!("{name} is not UTF-8"),
                )
            }),
            Err(_) => Ok(None),
        }
    });
    env
}

/// The templates that went past their heap budget in this run, by name
/// under `templates/`: each stopped thread keeps what it held, so a
/// template is not run again for the next host.
static STOPPED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// Stopped templates a run may hold before it runs no other template: what
/// a run can hold this way is at most this many budgets, plus one for each
/// template rendering when the last one stopped (one per worker thread), so
/// an inventory of many distinct doubling templates cannot hold 64 MiB
/// each.
const MAX_STOPPED: usize = 2;

/// Renders a template with the host's effective config as its context, on a
/// thread of bounded heap ([`crate::limits::heap::bounded`]).
fn render(
    env: &Arc<Environment<'static>>,
    name: &Located<String>,
    config: &Node,
    dirs: &Dirs<'_>,
) -> Result<String, Diag> {
    // Read first, for its own errors (missing, outside, too large).
    read(dirs, TEMPLATES_DIR, name)?;
    let budget = dirs.limits.template_bytes();
    let memory = |why: &str| {
        let shown = shown(dirs, TEMPLATES_DIR, &name.value);
        Limit::TemplateMemory
            .diag(format!(
                "template {shown} needs more than {budget} bytes of memory: {why}"
            ))
            .label(&name.span, "the template of this file")
    };
    {
        let stopped = lock(&STOPPED);
        if stopped.contains(&name.value) {
            return Err(memory(
                "it went past that for another host and is not run again",
            ));
        }
        if stopped.len() >= MAX_STOPPED {
            return Err(Limit::TemplateMemory
                .diag(format!(
                    "template {} is not run: {} templates of this run went past their \
                     {budget}-byte memory budget, and each holds what it built until beryl exits",
                    shown(dirs, TEMPLATES_DIR, &name.value),
                    stopped.len()
                ))
                .label(&name.span, "the template of this file"));
        }
    }
    let ctx = minijinja::Value::from_serialize(config);
    let (env, template) = (env.clone(), name.value.clone());
    let work = move || env.get_template(&template).and_then(|t| t.render(ctx));
    match crate::limits::heap::bounded(budget, work) {
        Ok(result) => result.map_err(|e| template_error(&e, name, dirs)),
        Err(crate::limits::heap::Stopped::Memory) => {
            lock(&STOPPED).insert(name.value.clone());
            Err(memory("rendering stopped there"))
        }
        Err(crate::limits::heap::Stopped::Spawn(e)) => Err(Diag::new(
            Code::Template,
            format!(
                "cannot render {}: no thread to render it on: {e}",
                shown(dirs, TEMPLATES_DIR, &name.value)
            ),
        )
        .label(&name.span, "the template of this file")),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A render error at the template's line (when minijinja knows it) and
/// at the YAML that names the template.
fn template_error(e: &minijinja::Error, name: &Located<String>, dirs: &Dirs<'_>) -> Diag {
    let file = e.name().unwrap_or(&name.value).to_string();
    let detail = e.detail().map(|d| format!(": {d}")).unwrap_or_default();
    let what = format!("{}{detail}", e.kind());
    let fuel = e.kind() == minijinja::ErrorKind::OutOfFuel;
    let mut d = if fuel {
        Limit::TemplateFuel.diag(format!(
            "template {} runs more than {} instructions",
            shown(dirs, TEMPLATES_DIR, &file),
            dirs.limits.template_fuel()
        ))
    } else {
        Diag::new(
            Code::Template,
            format!(
                "template {} failed: {what}",
                shown(dirs, TEMPLATES_DIR, &file)
            ),
        )
    };
    let text = std::fs::read_to_string(dirs.root.join(TEMPLATES_DIR).join(&file)).ok();
    if let (Some(line), Some(text)) = (e.line(), text) {
        let src = Source::new(shown(dirs, TEMPLATES_DIR, &file), text);
        d = d.label(&line_span(&src, line), what.clone());
    }
    let d = d.label(&name.span, "the template of this file");
    if fuel {
        return d;
    }
    d.help("the template's context is the host's effective config (`beryl render HOST`): write `{{ freebsd.hostname }}`, `{{ _beryl_.fqdn }}`; a variable that may be absent needs `{% if x is defined %}` or `x | default(…)`")
}

/// A span covering line `line` (1-based) of a source.
fn line_span(src: &Arc<Source>, line: usize) -> Span {
    let text = &src.text;
    let start = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>()
        .min(text.len());
    let len = text[start..].find('\n').unwrap_or(text.len() - start);
    Span {
        source: Some(src.clone()),
        offset: start,
        len,
        line: u32::try_from(line).unwrap_or(u32::MAX),
        col: 1,
    }
}
