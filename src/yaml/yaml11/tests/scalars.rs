//! Plain scalars: the table pyyaml_scalars.tsv, PyYAML's answer for each of
//! the cases /work/scratch/i19/yaml11/gen.py makes (see the file's header).

use super::load;
use crate::value::Value;

const TABLE: &str = include_str!("pyyaml_scalars.tsv");

/// Whether beryl's value for `v: CASE` is what PyYAML gave.
fn agrees(case: &str, kind: &str, expected: &str) -> Result<(), String> {
    let loaded = load(&format!("v: {case}\n"));
    let got = match (&loaded, kind) {
        (Err(_), "error") => return Ok(()),
        (Err(d), "bigint") if d.code == "beryl::yaml::integer_range" => return Ok(()),
        (Err(d), _) => return Err(format!("refused ({}: {})", d.code, d.message)),
        (Ok(l), _) => &l.node.get("v").expect("v").value,
    };
    let same = match (kind, got) {
        ("null", Value::Null) => true,
        ("bool", Value::Bool(b)) => b.to_string() == expected,
        ("int", Value::Int(i)) => i.to_string() == expected,
        ("float", Value::Float(f)) => {
            let want: f64 = expected.parse().expect("a float");
            (want.is_nan() && f.is_nan())
                || (want == *f && want.is_sign_negative() == f.is_sign_negative())
        }
        // beryl keeps a timestamp's text (docs/reclass-yaml.md).
        ("str" | "timestamp", Value::Str(s)) => s == expected,
        _ => false,
    };
    if same {
        Ok(())
    } else {
        Err(format!("{got:?}"))
    }
}

#[test]
fn plain_scalars_resolve_as_pyyaml_resolves_them() {
    let mut cases = 0;
    let mut wrong = Vec::new();
    for line in TABLE.lines().filter(|l| !l.starts_with('#')) {
        let mut cols = line.splitn(3, '\t');
        let (case, kind, expected) = (
            cols.next().unwrap(),
            cols.next().unwrap(),
            cols.next().unwrap_or(""),
        );
        cases += 1;
        if let Err(got) = agrees(case, kind, expected) {
            wrong.push(format!("{case}: PyYAML {kind} {expected}, beryl {got}"));
        }
    }
    assert!(cases >= 807, "{cases} cases");
    assert!(
        wrong.is_empty(),
        "{} of {cases} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn the_table_can_fail() {
    assert!(agrees("yes", "str", "yes").is_err());
    assert!(agrees("0777", "int", "777").is_err());
    assert!(agrees("1.5", "float", "1.25").is_err());
    assert!(agrees("=", "str", "=").is_err());
}
