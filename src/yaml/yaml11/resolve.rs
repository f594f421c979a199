//! What a plain scalar means in YAML 1.1, as PyYAML reads it: a table of
//! (pattern, kind) rows tried in order, then one constructor per kind.
//!
//! The rows say what PyYAML 6's `Resolver` (resolver.py, the implicit
//! resolvers) says, in its order; the constructors follow its
//! `SafeConstructor` (constructor.py: `construct_yaml_int`, `_float`,
//! `_bool`). Both are written here from their documented behaviour and
//! checked against PyYAML's own answers (the table in tests/).

use std::sync::LazyLock;

use regex::Regex;

use crate::value::Value;

/// The kind a plain scalar resolves to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Bool,
    Float,
    Int,
    /// `<<`: a merge key (only as a mapping key).
    Merge,
    Null,
    /// A date or a date and time: kept as its text (docs/reclass-yaml.md).
    Timestamp,
    /// `=`: PyYAML's "value" key (only as a mapping key, where it is the
    /// string `=`).
    ValueKey,
    Str,
}

/// The implicit resolvers, in PyYAML's order: the kind, the characters a
/// scalar of that kind starts with (so that a scalar is matched only against
/// the rows it may match, as PyYAML does), the pattern. The first row that
/// matches wins, and a scalar no row matches is a string.
const ROWS: &[(Kind, &str, &str)] = &[
    (
        Kind::Bool,
        "yYnNtTfFoO",
        r"^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$",
    ),
    (
        // A float needs a dot (`1e3` is not one), an exponent needs a
        // sign; sexagesimal with a fraction; infinities and NaN.
        Kind::Float,
        "-+0123456789.",
        concat!(
            r"^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?",
            r"|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?",
            r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*",
            r"|[-+]?\.(?:inf|Inf|INF)",
            r"|\.(?:nan|NaN|NAN))$",
        ),
    ),
    (
        // Binary, octal (a leading 0), decimal, hexadecimal, sexagesimal.
        Kind::Int,
        "-+0123456789",
        concat!(
            r"^(?:[-+]?0b[0-1_]+",
            r"|[-+]?0[0-7_]+",
            r"|[-+]?(?:0|[1-9][0-9_]*)",
            r"|[-+]?0x[0-9a-fA-F_]+",
            r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$",
        ),
    ),
    (Kind::Merge, "<", r"^<<$"),
    (Kind::Null, "~nN", r"^(?:~|null|Null|NULL|)$"),
    (
        Kind::Timestamp,
        "0123456789",
        concat!(
            r"^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}",
            r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}",
            r"(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$",
        ),
    ),
    (Kind::ValueKey, "=", r"^=$"),
];

static RESOLVERS: LazyLock<Vec<(Kind, &str, Regex)>> = LazyLock::new(|| {
    ROWS.iter()
        .map(|(kind, starts, pattern)| {
            (
                *kind,
                *starts,
                Regex::new(pattern).expect("a resolver pattern"),
            )
        })
        .collect()
});

/// The kind of a plain scalar.
pub(crate) fn resolve(text: &str) -> Kind {
    let Some(first) = text.chars().next() else {
        return Kind::Null;
    };
    RESOLVERS
        .iter()
        .find(|(_, starts, re)| starts.contains(first) && re.is_match(text))
        .map_or(Kind::Str, |(kind, _, _)| *kind)
}

/// Why a scalar has no value of its kind.
#[derive(Debug, PartialEq)]
pub(crate) enum Refused {
    /// An integer outside the 64 bits of [`Value::Int`].
    TooBig,
    /// Text that is not of the kind (`0x_`, or an explicit tag's text).
    Invalid,
}

/// The value of `text` read as `kind` (its constructor).
pub(crate) fn construct(kind: Kind, text: &str) -> Result<Value, Refused> {
    match kind {
        Kind::Null => Ok(Value::Null),
        Kind::Bool => bool_value(text).map(Value::Bool).ok_or(Refused::Invalid),
        Kind::Int => int(text).map(Value::Int),
        Kind::Float => float(text).map(Value::Float).ok_or(Refused::Invalid),
        Kind::Timestamp | Kind::Str | Kind::ValueKey | Kind::Merge => {
            Ok(Value::Str(text.to_string()))
        }
    }
}

fn bool_value(text: &str) -> Option<bool> {
    const WORDS: &[(&str, bool)] = &[
        ("yes", true),
        ("no", false),
        ("true", true),
        ("false", false),
        ("on", true),
        ("off", false),
    ];
    let lower = text.to_ascii_lowercase();
    WORDS.iter().find(|(w, _)| *w == lower).map(|(_, b)| *b)
}

/// The sign and the rest of a number's text, underscores removed.
fn signed(text: &str) -> (bool, String) {
    let clean = text.replace('_', "");
    match clean.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, clean.strip_prefix('+').unwrap_or(&clean).to_string()),
    }
}

/// An integer: `0b` binary, `0x` hexadecimal, a leading `0` octal,
/// `a:b:c` sexagesimal (base 60), else decimal.
fn int(text: &str) -> Result<i64, Refused> {
    use std::num::IntErrorKind;
    let (negative, body) = signed(text);
    let radix = |digits: &str, radix: u32| {
        u128::from_str_radix(digits, radix).map_err(|e| match e.kind() {
            IntErrorKind::PosOverflow => Refused::TooBig,
            _ => Refused::Invalid,
        })
    };
    let magnitude = if body == "0" {
        0
    } else if let Some(bin) = body.strip_prefix("0b") {
        radix(bin, 2)?
    } else if let Some(hex) = body.strip_prefix("0x") {
        radix(hex, 16)?
    } else if body.starts_with('0') {
        radix(&body, 8)?
    } else if body.contains(':') {
        let mut total: u128 = 0;
        for part in body.split(':') {
            let digit = radix(part, 10)?;
            total = total
                .checked_mul(60)
                .and_then(|t| t.checked_add(digit))
                .ok_or(Refused::TooBig)?;
        }
        total
    } else {
        radix(&body, 10)?
    };
    let magnitude = i128::try_from(magnitude).map_err(|_| Refused::TooBig)?;
    i64::try_from(if negative { -magnitude } else { magnitude }).map_err(|_| Refused::TooBig)
}

/// A float: `.inf`, `.nan`, `a:b:c.d` sexagesimal, else the number.
fn float(text: &str) -> Option<f64> {
    let (negative, body) = signed(&text.to_ascii_lowercase());
    let sign = if negative { -1.0 } else { 1.0 };
    if body == ".inf" {
        return Some(sign * f64::INFINITY);
    }
    if body == ".nan" {
        return Some(f64::NAN);
    }
    if body.contains(':') {
        // Least significant part first, as PyYAML adds them, so that the
        // float sums round the same way.
        let mut value = 0.0;
        let mut base = 1.0;
        for part in body.rsplit(':') {
            value += part.parse::<f64>().ok()? * base;
            base *= 60.0;
        }
        return Some(sign * value);
    }
    Some(sign * body.parse::<f64>().ok()?)
}

/// A float as Python's `repr` writes it (what kapicorp's JSON output shows
/// for a float key): the shortest digits that read back, in fixed notation
/// from 1e-4 to below 1e16 (always with a `.`), else with an exponent of at
/// least two digits. JSON's names for the infinities and NaN.
pub(crate) fn python_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    let shortest = format!("{f:e}");
    let (mantissa, exp) = shortest.split_once('e').unwrap_or((&shortest, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (-4..16).contains(&exp) {
        if exp < 0 {
            let zeros = "0".repeat((-exp - 1) as usize);
            return format!("{sign}0.{zeros}{digits}");
        }
        let point = exp as usize + 1;
        let padded = format!("{digits:0<point$}");
        let (whole, fraction) = padded.split_at(point);
        let fraction = if fraction.is_empty() { "0" } else { fraction };
        return format!("{sign}{whole}.{fraction}");
    }
    let esign = if exp < 0 { '-' } else { '+' };
    format!("{sign}{mantissa}e{esign}{:02}", exp.abs())
}
