//! The miette adapter: a [`Diag`] as a [`miette::Diagnostic`], its source
//! read around its labels only.

use std::fmt;

use miette::{Diagnostic, LabeledSpan, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use super::{Diag, Severity};
use crate::value::Span;

/// The source of a diagnostic: the file that its labels point into.
///
/// miette's own `read_span` on a `str` counts lines from the start of the
/// file on every call, which made quoting N errors of one file O(N × size);
/// this one cuts the context lines out first and takes the line number from
/// the source's line index.
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
        let text = source.text.as_ref();
        let (start, end) = (span.offset(), span.offset() + span.len());
        if end > text.len() {
            return Err(miette::MietteError::OutOfBounds);
        }
        // A line more on each side than miette keeps: its own context rule
        // then picks the same lines from the slice as from the whole text.
        let (lo, hi) = window(
            text,
            start,
            end,
            context_lines_before + 1,
            context_lines_after + 2,
        );
        let inner = text[lo..hi].read_span(
            &SourceSpan::new((start - lo).into(), span.len()),
            context_lines_before,
            context_lines_after,
        )?;
        let found = SourceSpan::new((inner.span().offset() + lo).into(), inner.span().len());
        // miette's line count runs from the start of the file, like its line.
        let above = source.line_index(lo);
        Ok(Box::new(MietteSpanContents::new_named(
            source.name.clone(),
            inner.data(),
            found,
            above + inner.line(),
            inner.column(),
            above + inner.line_count(),
        )))
    }
}

/// The bytes `lo..hi` of the lines from `before` lines above the one holding
/// `start` to `after` lines below the one holding `end`.
fn window(text: &str, start: usize, end: usize, before: usize, after: usize) -> (usize, usize) {
    let bytes = text.as_bytes();
    let (mut lo, mut up) = (start.min(bytes.len()), before);
    while lo > 0 {
        if crate::value::ends_line(bytes, lo - 1) {
            if up == 0 {
                break;
            }
            up -= 1;
        }
        lo -= 1;
    }
    let last = if end > start { end - 1 } else { start };
    let (mut hi, mut down) = (last.min(bytes.len()), after + 1);
    while hi < bytes.len() {
        hi += 1;
        if crate::value::ends_line(bytes, hi - 1) {
            down -= 1;
            if down == 0 {
                break;
            }
        }
    }
    (lo, hi)
}

/// Lines longer than this are not quoted: the terminal could not show them,
/// and miette cannot pad to a column past 65535.
const MAX_QUOTED_LINE: usize = 4096;

/// Whether the lines around a label are short enough to quote.
fn quotable(span: &Span) -> bool {
    let Some(source) = span.source.as_deref() else {
        return false;
    };
    let text = source.text.as_ref();
    let end = (span.offset + span.len).min(text.len());
    let (lo, hi) = window(text, span.offset.min(end), end, 1, 1);
    text[lo..hi]
        .split(['\n', '\r'])
        .all(|line| line.len() <= MAX_QUOTED_LINE)
}

/// A diagnostic ready for miette: it owns the adapter for its source.
pub(crate) struct Report<'a> {
    diag: &'a Diag,
    source: Option<FileSource<'a>>,
    related: Vec<Report<'a>>,
    /// Set when a label sits on a line too long to quote: the location is
    /// then written in the message instead of a snippet.
    unquoted: Option<&'a Span>,
}

impl<'a> Report<'a> {
    pub(crate) fn new(diag: &'a Diag) -> Self {
        let quoted = diag.labels.iter().all(|(s, _)| quotable(s));
        Self {
            diag,
            source: diag.span().filter(|_| quoted).map(FileSource),
            related: diag.related().iter().map(Report::new).collect(),
            unquoted: diag.span().filter(|_| !quoted),
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
        f.write_str(&self.diag.message)?;
        if let Some(span) = self.unquoted {
            match self.diag.labels.first() {
                Some((_, label)) if *label != self.diag.message => {
                    write!(f, "\n  at {span}: {label} (the line is too long to quote)")?;
                }
                _ => write!(f, "\n  at {span} (the line is too long to quote)")?,
            }
        }
        Ok(())
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
        Some(match (self.diag.advice, self.diag.severity) {
            (true, _) => miette::Severity::Advice,
            (false, Severity::Error) => miette::Severity::Error,
            (false, Severity::Warning) => miette::Severity::Warning,
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
        if self.diag.labels.is_empty() || self.source.is_none() {
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
    use miette::{GraphicalReportHandler, GraphicalTheme, SourceCode, SourceSpan};

    use super::*;
    use crate::value::Source;

    fn span_in(source: &std::sync::Arc<Source>, offset: usize, len: usize) -> Span {
        let line = source.line_index(offset) + 1;
        let start = source.text[..offset].rfind('\n').map_or(0, |i| i + 1);
        Span {
            source: Some(source.clone()),
            offset,
            len,
            line: line as u32,
            col: (source.text[start..offset].chars().count() + 1) as u32,
        }
    }

    /// The windowed read gives what miette's whole-file read gives, for every
    /// span start, several lengths and context sizes.
    #[test]
    fn reads_the_same_contents_as_miette() {
        let text = "a: 1\n\nbb: [x, y]\n  c: 'q'\r\nd: 1\re: 2\r\rlast line without newline";
        let source = Source::new("f.yml", text);
        let anchor = span_in(&source, 0, 0);
        let ours = FileSource(&anchor);
        for offset in 0..=text.len() {
            for len in [0, 1, 3, 9] {
                if offset + len > text.len() {
                    continue;
                }
                for ctx in [0, 1, 2] {
                    let s = SourceSpan::new(offset.into(), len);
                    let a = ours.read_span(&s, ctx, ctx).unwrap();
                    let b = text.read_span(&s, ctx, ctx).unwrap();
                    let at = format!("offset {offset} len {len} ctx {ctx}");
                    assert_eq!(a.data(), b.data(), "{at}");
                    assert_eq!(a.span(), b.span(), "{at}");
                    assert_eq!(a.line(), b.line(), "{at}");
                    assert_eq!(a.column(), b.column(), "{at}");
                    assert_eq!(a.line_count(), b.line_count(), "{at}");
                }
            }
        }
    }

    fn render(d: &Diag) -> String {
        let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor());
        let mut out = String::new();
        handler.render_report(&mut out, &Report::new(d)).unwrap();
        out
    }

    /// A label 100,000 columns into a line made miette panic ("Formatting
    /// argument out of range"); now the location is written out instead.
    #[test]
    fn a_label_far_into_a_long_line_is_located_not_quoted() {
        let text = format!("k: [{}x]\n", "a,".repeat(50_000));
        let source = Source::new("long.yml", text.clone());
        let span = span_in(&source, text.len() - 3, 1);
        let d = Diag::new(crate::diag::TestCode("beryl::test"), "boom").label(&span, "here");
        let out = render(&d);
        assert!(out.contains("at long.yml:1:100005: here"), "{out}");
        assert!(out.contains("too long to quote"), "{out}");
        assert!(
            out.len() < 1000,
            "the line is not printed: {} bytes",
            out.len()
        );
    }

    #[test]
    fn short_lines_are_quoted_as_before() {
        let source = Source::new("f.yml", "a: 1\nb: 2\nc: 3\n");
        let span = span_in(&source, 8, 1);
        let out =
            render(&Diag::new(crate::diag::TestCode("beryl::test"), "boom").label(&span, "here"));
        assert!(out.contains("[f.yml:2:4]"), "{out}");
        assert!(out.contains(" 2 │ b: 2"), "{out}");
        assert!(!out.contains("too long"), "{out}");
    }

    #[test]
    fn line_index_finds_the_line_of_an_offset() {
        let source = Source::new("f", "ab\ncd\n\nef\r\ng\rh");
        let lines: Vec<usize> = (0..=14).map(|o| source.line_index(o)).collect();
        assert_eq!(lines, [0, 0, 0, 1, 1, 1, 2, 3, 3, 3, 3, 4, 4, 5, 5]);
    }
}
