//! Printing diagnostics to stderr through miette.

use std::io::{IsTerminal, Write};

use miette::{GraphicalReportHandler, GraphicalTheme};

use super::ColorChoice;
use crate::diag::{Diag, Report};

pub struct Reporter {
    handler: GraphicalReportHandler,
}

impl Reporter {
    pub fn new(choice: ColorChoice) -> Self {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stderr().is_terminal()
            }
        };
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let handler = GraphicalReportHandler::new_themed(theme)
            .with_links(false)
            .with_width(100);
        Self { handler }
    }

    /// Prints each diagnostic once, in order, then a count when there are
    /// several (errors and warnings apart).
    pub fn print(&self, diags: &[Diag]) {
        let text = self.render(diags);
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }

    /// What [`Reporter::print`] writes, as text (the fuzz targets render
    /// every diagnostic they meet through it).
    pub fn render(&self, diags: &[Diag]) -> String {
        let mut seen = std::collections::HashSet::new();
        let unique: Vec<&Diag> = diags
            .iter()
            .filter(|d| seen.insert(d.dedup_key()))
            .collect();
        let mut text = String::new();
        for d in &unique {
            let mut one = String::new();
            if self
                .handler
                .render_report(&mut one, &Report::new(d))
                .is_err()
            {
                one = format!("error: {}\n", d.message);
            }
            text.push_str(&one);
        }
        text.push_str(&count(&unique));
        text
    }
}

/// The closing line: `error: 3 errors`, `error: 1 error, 2 warnings` or
/// `warning: 2 warnings`; nothing for a single diagnostic.
fn count(diags: &[&Diag]) -> String {
    use crate::diag::set::plural;
    if diags.len() < 2 {
        return String::new();
    }
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    match (errors, warnings) {
        (e, 0) => format!("error: {}\n", plural(e, "error", "errors")),
        (0, w) => format!("warning: {}\n", plural(w, "warning", "warnings")),
        (e, w) => format!(
            "error: {}, {}\n",
            plural(e, "error", "errors"),
            plural(w, "warning", "warnings")
        ),
    }
}
