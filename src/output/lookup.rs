//! What `beryl lookup` prints (`--render-as`), in the shapes `puppet lookup`
//! prints (Puppet 7.23, checked by running it):
//!
//! | value | `yaml` (the default) | `json` | `s` |
//! |---|---|---|---|
//! | a string | `--- text` | `"text"` | `text` |
//! | a number, a boolean | `--- 42` | `42` | `42` |
//! | null | `---` | `null` | an empty line |
//! | a list, a mapping | `---` then the block | compact, one line | Ruby's `inspect`: `{"a"=>[1, "x"]}` |
//!
//! The YAML is beryl's (strings that YAML 1.1 would read as another type are
//! quoted), so it may quote otherwise than Ruby's Psych does.

use crate::diag::Diag;
use crate::merge::{Choice, Rule};
use crate::value::{Node, Value};

/// The output formats of `beryl lookup`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RenderAs {
    Yaml,
    Json,
    /// Plain text: a string as it is, a collection as Ruby inspects it.
    Text,
}

/// One value, ending with a newline.
pub(crate) fn render(node: &Node, how: RenderAs) -> Result<String, Diag> {
    let mut out = match how {
        RenderAs::Yaml => yaml(node)?,
        RenderAs::Json => serde_json::to_string(node).map_err(|e| {
            Diag::new(
                super::Code::Serialise,
                format!("cannot serialise the output: {e}"),
            )
        })?,
        RenderAs::Text => match &node.value {
            Value::Str(s) => s.clone(),
            Value::Null => String::new(),
            _ => {
                let mut s = String::new();
                inspect(node, &mut s);
                s
            }
        },
    };
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

/// A YAML document with its `---` marker, as Psych writes it: on the line of
/// a scalar, alone above a block.
fn yaml(node: &Node) -> Result<String, Diag> {
    if matches!(node.value, Value::Null) {
        return Ok("---\n".into());
    }
    let body = super::to_string(node, super::Format::Yaml)?;
    let block = match &node.value {
        Value::Map(m) => !m.is_empty(),
        Value::Seq(s) => !s.is_empty(),
        _ => false,
    };
    Ok(if block {
        format!("---\n{body}")
    } else {
        format!("--- {body}")
    })
}

/// How a lookup chose its merge, in one line (`--explain`).
pub(crate) fn describe(path: &str, choice: &Choice) -> String {
    let at = |rule: &Rule| {
        let place = match rule.key_span.file_name() {
            Some(_) => super::annotate::span_note(&rule.key_span),
            None => "a built-in Beryl rule".into(),
        };
        format!("the rule `{}` ({place})", rule.pattern.canonical())
    };
    match choice {
        Choice::Explicit(spec) => format!("lookup {path}: merged by `{spec}`, given by --merge"),
        Choice::Rule {
            rule,
            spec,
            from: None,
            ..
        } => format!("lookup {path}: merged by `{spec}`, {}", at(rule)),
        Choice::Rule {
            rule,
            spec,
            from: Some(from),
            whole: false,
        } => format!(
            "lookup {path}: merged by `{spec}`, inherited from {} at `{}`",
            at(rule),
            crate::syntax::path::display(from)
        ),
        Choice::Rule {
            rule,
            spec,
            from: Some(from),
            whole: true,
        } => format!(
            "lookup {path}: read in `{}` as merged by `{spec}`, {}",
            crate::syntax::path::display(from),
            at(rule)
        ),
        Choice::First => format!(
            "lookup {path}: merged by `first` (no rule for the path): the highest level that writes it wins"
        ),
    }
}

/// Ruby's `inspect` of the value Puppet would hold: strings in double quotes
/// with Ruby's escapes, `nil`, `[a, b]`, `{"k"=>v}`.
fn inspect(node: &Node, out: &mut String) {
    crate::value::repr::write(node, &RUBY, out);
}

/// Ruby's spellings; a number as YAML writes it (`1.5`).
const RUBY: crate::value::repr::Style = crate::value::repr::Style {
    null: "nil",
    bools: ["false", "true"],
    pair: "=>",
    string: inspect_str,
    number: |node, out| {
        let text = super::to_string(node, super::Format::Yaml).unwrap_or_default();
        out.push_str(text.trim_end());
    },
};

fn inspect_str(s: &str, out: &mut String) {
    out.push('"');
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{1b}' => out.push_str("\\e"),
            '#' if matches!(chars.peek(), Some('{' | '$' | '@')) => out.push_str("\\#"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Source;

    fn node(text: &str) -> Node {
        crate::yaml::parse_any(&Source::new("t.yml", text), &Default::default()).unwrap()
    }

    fn all(text: &str) -> [String; 3] {
        let n = node(text);
        [RenderAs::Yaml, RenderAs::Json, RenderAs::Text].map(|h| render(&n, h).unwrap())
    }

    /// Expected values are what `puppet lookup --render-as yaml|json|s`
    /// (Puppet 7.23) printed for the same data.
    #[test]
    fn the_shapes_of_puppet_lookup() {
        assert_eq!(all("node"), ["--- node\n", "\"node\"\n", "node\n"]);
        assert_eq!(all("42"), ["--- 42\n", "42\n", "42\n"]);
        assert_eq!(all("true"), ["--- true\n", "true\n", "true\n"]);
        assert_eq!(all("~"), ["---\n", "null\n", "\n"]);
        assert_eq!(all("[]"), ["--- []\n", "[]\n", "[]\n"]);
        assert_eq!(
            all("{y: {z: [3]}, w: 2}"),
            [
                "---\n\"y\":\n  z:\n  - 3\nw: 2\n",
                "{\"y\":{\"z\":[3]},\"w\":2}\n",
                "{\"y\"=>{\"z\"=>[3]}, \"w\"=>2}\n"
            ]
        );
        assert_eq!(all("['--1', 3]")[2], "[\"--1\", 3]\n");
        assert_eq!(all("'he said \"hi\"'")[2], "he said \"hi\"\n");
    }

    #[test]
    fn ruby_escapes_in_inspect() {
        let n = node("[\"a\\\"b\\\\c\\nd#{e}\\u0001\", null]");
        assert_eq!(
            render(&n, RenderAs::Text).unwrap(),
            "[\"a\\\"b\\\\c\\nd\\#{e}\\u0001\", nil]\n"
        );
    }
}
