//! A reference to nothing: the error, with the closest existing paths.

use super::resolver::{Fail, Resolver};
use crate::diag::Diag;
use crate::value::{Loc, Node, Span, Value};

/// Missing references beyond this many get no "closest paths" suggestion:
/// each suggestion compares the path with every path of the config.
const SUGGESTED_MISSING: usize = 20;

impl Resolver<'_> {
    pub(super) fn missing(&mut self, path_text: &str, keys: &[String], span: &Span) -> Fail {
        self.missing += 1;
        let known = if self.missing <= SUGGESTED_MISSING {
            paths(&self.merged.node, &self.dialect)
        } else {
            Vec::new()
        };
        let wanted = match self.dialect.paths {
            super::Paths::Dotted => keys.join("."),
            super::Paths::Delimited { .. } => self.dialect.show(keys),
        };
        let mut close: Vec<(f64, &String)> = known
            .iter()
            .map(|p| (strsim::jaro_winkler(&wanted, p), p))
            .filter(|(score, _)| *score > 0.7)
            .collect();
        close.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut d = Diag::new(
            crate::refs::Code::Missing,
            format!("`${{{path_text}}}`: nothing is set at `{path_text}`"),
        )
        .label(span, "referenced here");
        if !close.is_empty() {
            let names: Vec<&str> = close.iter().take(3).map(|(_, p)| p.as_str()).collect();
            d = d.help(format!("the closest existing paths: {}", names.join(", ")));
        }
        self.report(d)
    }
}

/// Every dotted path of the tree through mappings (not into lists), for
/// suggestions.
fn paths(root: &Node, dialect: &super::Dialect) -> Vec<String> {
    let mut out = Vec::new();
    root.walk(&mut Loc::root(), &mut |at, node| {
        if !at.is_empty() {
            out.push(dialect.show(&at.plain()));
        }
        matches!(node.value, Value::Map(_))
    });
    out
}
