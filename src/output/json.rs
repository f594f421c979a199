//! Pretty JSON that YAML readers accept: serde_json's pretty printer, with the
//! characters YAML does not allow unescaped (DEL, the C1 controls but NEL,
//! U+FFFE, U+FFFF) written as `\uXXXX`. serde_json writes them raw, which is
//! valid JSON, but then `beryl diff` (which reads render outputs with the YAML
//! loader) and any YAML tool refuse the file.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

/// Serialises `value` as pretty JSON, YAML-safe.
pub(super) fn to_string<T: Serialize>(value: &T) -> Result<String, serde_json::Error> {
    let mut out = Vec::new();
    let mut ser =
        serde_json::Serializer::with_formatter(&mut out, YamlSafe(PrettyFormatter::new()));
    value.serialize(&mut ser)?;
    // The formatter writes only whole UTF-8 characters and ASCII escapes.
    Ok(String::from_utf8(out).unwrap_or_default())
}

/// Not in YAML's printable set (YAML 1.2, production 1, `c-printable`).
fn unprintable_in_yaml(c: char) -> bool {
    matches!(c, '\u{7f}'..='\u{84}' | '\u{86}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}')
}

struct YamlSafe(PrettyFormatter<'static>);

impl Formatter for YamlSafe {
    fn write_string_fragment<W: ?Sized + Write>(&mut self, w: &mut W, s: &str) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in s.char_indices().filter(|(_, c)| unprintable_in_yaml(*c)) {
            w.write_all(&s.as_bytes()[start..i])?;
            write!(w, "\\u{:04x}", u32::from(c))?;
            start = i + c.len_utf8();
        }
        w.write_all(&s.as_bytes()[start..])
    }

    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_serde_jsons_pretty_form_but_for_the_escapes() {
        let v = serde_json::json!({"a": [1, {"b": "x\u{7f}y\u{85}\u{9f}é\u{ffff}"}], "c": {}});
        let ours = to_string(&v).unwrap();
        let theirs = serde_json::to_string_pretty(&v).unwrap();
        assert_eq!(
            ours,
            theirs
                .replace('\u{7f}', "\\u007f")
                .replace('\u{9f}', "\\u009f")
                .replace('\u{ffff}', "\\uffff")
        );
        assert!(ours.contains('\u{85}') && ours.contains('é'), "{ours}");
        let back: serde_json::Value = serde_json::from_str(&ours).unwrap();
        assert_eq!(back, v);
    }

    /// The regression the render → parse property found: a DEL in a value
    /// made `render --format json` write a file the loader refused.
    #[test]
    fn a_del_reads_back_through_the_loader() {
        let v = serde_json::json!({"motd": "a\u{7f}b"});
        let text = to_string(&v).unwrap();
        let node =
            crate::yaml::parse_any(&crate::value::Source::new("t", text), &Default::default())
                .unwrap();
        assert_eq!(node.get("motd").and_then(|n| n.as_str()), Some("a\u{7f}b"));
    }
}
