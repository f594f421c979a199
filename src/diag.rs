//! Diagnostics: the one error type that every stage produces.
//!
//! A [`Diag`] has a stable code (`beryl::<stage>::<kind>`), a message, labelled
//! spans and an optional help. Each stage owns its error kinds as constructor
//! functions in its own module; they all return `Diag`, so errors from several
//! stages can be collected, deduplicated and reported together.
//!
//! `Diag` implements [`miette::Diagnostic`]: the first label's file is the
//! source snippet, and labels that sit in other files become related advice
//! with their own snippet.

use std::fmt;

use miette::{Diagnostic, LabeledSpan, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use crate::value::Span;

#[derive(Clone, Debug)]
pub struct Diag {
    pub code: &'static str,
    pub message: String,
    pub help: Option<String>,
    labels: Vec<(Span, String)>,
    related: Vec<Diag>,
    advice: bool,
}

pub type Diags = Vec<Diag>;

impl Diag {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            help: None,
            labels: Vec::new(),
            related: Vec::new(),
            advice: false,
        }
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
                let mut note = Diag::new(self.code, text.clone());
                note.advice = true;
                note.labels.push((span.clone(), text));
                self.related.push(note);
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

    /// A key that identifies the same error reached from several hosts.
    pub fn dedup_key(&self) -> String {
        let at = self
            .span()
            .map(|s| format!("{s}@{}", s.offset))
            .unwrap_or_default();
        format!("{}|{}|{}", self.code, self.message, at)
    }
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diag {}

/// The source of a diagnostic: the file that its labels point into.
struct FileSource<'a>(&'a Span);

impl SourceCode for FileSource<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, miette::MietteError> {
        let Some(source) = self.0.source.as_deref() else {
            return Err(miette::MietteError::OutOfBounds);
        };
        let inner =
            source
                .text
                .as_ref()
                .read_span(span, context_lines_before, context_lines_after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            source.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line(),
            inner.column(),
            inner.line_count(),
        )))
    }
}

/// A diagnostic ready for miette: it owns the adapter for its source.
pub struct Report<'a> {
    diag: &'a Diag,
    source: Option<FileSource<'a>>,
    related: Vec<Report<'a>>,
}

impl<'a> Report<'a> {
    pub fn new(diag: &'a Diag) -> Self {
        Self {
            diag,
            source: diag.span().map(FileSource),
            related: diag.related.iter().map(Report::new).collect(),
        }
    }
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.diag, f)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Related notes carry the location in their text, since a label may be
        // all a terse handler shows.
        if self.diag.advice
            && let Some(span) = self.diag.span()
        {
            return write!(f, "{} ({span})", self.diag.message);
        }
        f.write_str(&self.diag.message)
    }
}

impl std::error::Error for Report<'_> {}

impl Diagnostic for Report<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        if self.diag.advice {
            return None;
        }
        Some(Box::new(self.diag.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(if self.diag.advice {
            miette::Severity::Advice
        } else {
            miette::Severity::Error
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.diag
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.diag.labels.is_empty() {
            return None;
        }
        Some(Box::new(self.diag.labels.iter().enumerate().map(
            |(i, (span, text))| {
                let text = if self.diag.advice {
                    String::new()
                } else {
                    text.clone()
                };
                let text = (!text.is_empty()).then_some(text);
                if i == 0 {
                    LabeledSpan::new_primary_with_span(text, (span.offset, span.len))
                } else {
                    LabeledSpan::new_with_span(text, (span.offset, span.len))
                }
            },
        )))
    }

    fn related<'b>(&'b self) -> Option<Box<dyn Iterator<Item = &'b dyn Diagnostic> + 'b>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(self.related.iter().map(|r| r as &dyn Diagnostic)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Source;

    #[test]
    fn labels_in_other_files_become_related_notes() {
        let a = Source::new("a.yml", "x: 1\n");
        let b = Source::new("b.yml", "x: 2\n");
        let sa = Span {
            source: Some(a),
            offset: 3,
            len: 1,
            line: 1,
            col: 4,
        };
        let sb = Span {
            source: Some(b),
            offset: 3,
            len: 1,
            line: 1,
            col: 4,
        };
        let d = Diag::new("beryl::test", "boom")
            .label(&sa, "here")
            .label(&sb, "and there");
        assert_eq!(d.labels.len(), 1);
        assert_eq!(d.related.len(), 1);
        assert_eq!(d.span().unwrap().to_string(), "a.yml:1:4");
        let report = Report::new(&d);
        assert_eq!(report.related[0].to_string(), "and there (b.yml:1:4)");
    }
}
