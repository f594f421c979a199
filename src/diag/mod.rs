//! Diagnostics: the one error type that every stage produces.
//!
//! A [`Diag`] has a stable code (`beryl::<stage>::<kind>`), a message, labelled
//! spans and an optional help. Each stage declares its codes once, as an enum
//! made by `codes!` (docs/codes.md lists them all), and owns its error kinds
//! as constructor functions in its own module; they all return `Diag`, so
//! errors from several stages can be collected, deduplicated and reported
//! together.
//!
//! A diagnostic is an error or a warning ([`Severity`]): both travel in the
//! same lists, and only errors fail a stage (see [`Diag::is_error`]). A run
//! over several hosts records on each diagnostic the hosts it was found on,
//! and a diagnostic that follows from another names its cause; [`set`]
//! groups them for reporting.
//!
//! `Diag` implements [`miette::Diagnostic`]: the first label's file is the
//! source snippet, and labels that sit in other files become related advice
//! with their own snippet.

mod code;
mod report;
pub(crate) mod set;

#[doc(hidden)]
pub(crate) use code::code_text;
pub(crate) use code::codes;
pub(crate) use code::{Code, Common};
#[cfg(test)]
pub(crate) use code::{TestCode, TestWarning};
pub(crate) use report::Report;

use std::fmt;

use crate::value::Span;

/// How bad a diagnostic is: an error fails the command (exit 2); a warning
/// is reported and the command goes on (`check --deny-warnings` makes it an
/// error).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// What most diagnostics lack, boxed to keep a `Diag` small (it is
/// returned by value): notes, the hosts that found it, and its cause.
#[derive(Clone, Debug, Default)]
struct Extra {
    related: Vec<Diag>,
    hosts: Vec<String>,
    cause: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Diag {
    /// The code, `beryl::STAGE::KIND`, from a stage's `codes!` enum.
    pub code: &'static str,
    pub message: String,
    pub help: Option<String>,
    pub severity: Severity,
    labels: Vec<(Span, String)>,
    extra: Option<Box<Extra>>,
    advice: bool,
}

pub(crate) type Diags = Vec<Diag>;

/// A diagnostic as a list of one, so that `?` passes a single error on where
/// a list is returned.
impl From<Diag> for Diags {
    fn from(d: Diag) -> Diags {
        vec![d]
    }
}

/// Every value of `results`, in order; or, when any of them failed, every
/// error of them, in order.
pub(crate) fn collect<T>(
    results: impl IntoIterator<Item = Result<T, Diags>>,
) -> Result<Vec<T>, Diags> {
    let mut values = Vec::new();
    let mut errors = Vec::new();
    for result in results {
        match result {
            Ok(v) => values.push(v),
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(values)
    } else {
        Err(errors)
    }
}

impl Diag {
    /// An error with the code of a stage's `codes!` enum.
    pub fn new(code: impl Code, message: impl Into<String>) -> Self {
        debug_assert_eq!(code.severity(), Severity::Error, "{}", code.as_str());
        Self::with(code.as_str(), Severity::Error, message.into())
    }

    /// A warning: reported, but it fails nothing. Its code is declared a
    /// warning.
    pub fn warning(code: impl Code, message: impl Into<String>) -> Self {
        debug_assert_eq!(code.severity(), Severity::Warning, "{}", code.as_str());
        Self::with(code.as_str(), Severity::Warning, message.into())
    }

    fn with(code: &'static str, severity: Severity, message: String) -> Self {
        Self {
            code,
            message,
            help: None,
            severity,
            labels: Vec::new(),
            extra: None,
            advice: false,
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Marks the diagnostic as following from `cause`.
    pub fn because(mut self, cause: &Diag) -> Self {
        self.extra.get_or_insert_default().cause = Some(cause.dedup_key());
        self
    }

    /// The [`Diag::dedup_key`] of the diagnostic this one follows from (a
    /// query that fails because another host does), if any.
    pub fn cause(&self) -> Option<&str> {
        self.extra.as_ref()?.cause.as_deref()
    }

    /// The hosts whose compile found it, when a command compiles several.
    pub fn hosts(&self) -> &[String] {
        self.extra.as_ref().map_or(&[], |f| &f.hosts)
    }

    /// Records that `host` found it too (each host once).
    pub fn found_on(&mut self, host: &str) {
        let hosts = &mut self.extra.get_or_insert_default().hosts;
        if !hosts.iter().any(|h| h == host) {
            hosts.push(host.to_string());
        }
    }

    /// Adds a note, printed after the diagnostic, at `span` when it has one.
    pub fn note(mut self, span: Option<&Span>, text: impl Into<String>) -> Self {
        let text = text.into();
        let mut note = Diag::with(self.code, Severity::Error, text.clone());
        note.advice = true;
        if let Some(span) = span.filter(|s| s.source.is_some()) {
            note.labels.push((span.clone(), text));
        }
        self.extra.get_or_insert_default().related.push(note);
        self
    }

    /// Every label: the primary one first, then the others in the same file.
    pub fn labels(&self) -> &[(Span, String)] {
        &self.labels
    }

    /// Every label moved by [`Span::rebase`] (a diagnostic about one document
    /// of a multi-document file, read alone).
    pub(crate) fn rebase(
        &mut self,
        to: &std::sync::Arc<crate::value::Source>,
        at: usize,
        lines: u32,
    ) {
        for (span, _) in &mut self.labels {
            span.rebase(to, at, lines);
        }
        if let Some(extra) = &mut self.extra {
            for d in &mut extra.related {
                d.rebase(to, at, lines);
            }
        }
    }

    /// The notes: labels in other files, and [`Diag::note`]s.
    pub fn related(&self) -> &[Diag] {
        self.extra.as_ref().map_or(&[], |e| &e.related)
    }

    /// Adds a labelled span. The first label picks the source snippet; a label in
    /// another file becomes a related note with its own snippet.
    pub fn label(mut self, span: &Span, text: impl Into<String>) -> Self {
        let text = text.into();
        if span.source.is_none() {
            return self;
        }
        match self.labels.first() {
            Some((first, _)) if !first.same_source(span) => {
                let mut note = Diag::with(self.code, Severity::Error, text.clone());
                note.advice = true;
                note.labels.push((span.clone(), text));
                self.extra.get_or_insert_default().related.push(note);
            }
            _ => self.labels.push((span.clone(), text)),
        }
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The primary location, if the diagnostic has one.
    pub fn span(&self) -> Option<&Span> {
        self.labels.first().map(|(s, _)| s)
    }

    /// A key that identifies the same error reached from several hosts. List
    /// positions in the message are left out: an item's index in a merged
    /// list differs between hosts when a higher level removes an item above
    /// it, and the error is still the one at this place.
    pub fn dedup_key(&self) -> String {
        let at = self
            .span()
            .map(|s| format!("{s}@{}", s.offset))
            .unwrap_or_default();
        format!("{}|{}|{}", self.code, without_indexes(&self.message), at)
    }
}

/// `text` with the digits of every list position left out: a segment of
/// digits after a `.` that follows a key, as a path names a list item by its
/// position (`freebsd.packages.3` reads `freebsd.packages.`), and not a
/// number's fraction (`15.0`) or a name's tail (`example.3com`).
fn without_indexes(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for (dot, _) in text.match_indices('.') {
        let start = dot + 1;
        let digits = b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
        // After a key, or after a position just left out (`a.0.1`).
        let after_key = dot > 0 && (!b[dot - 1].is_ascii_digit() || dot == from);
        let whole = b
            .get(start + digits)
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-') || *c >= 0x80));
        if digits > 0 && after_key && whole {
            out.push_str(&text[from..start]);
            from = start + digits;
        }
    }
    out.push_str(&text[from..]);
    out
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diag {}

#[cfg(test)]
mod tests;
