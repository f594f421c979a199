//! Typed diagnostic codes: each stage declares its codes once, as an enum,
//! with `codes!`, and [`Diag::new`](super::Diag::new) takes only such a
//! code. A typo in a code is then a compile error, not a new code, and
//! docs/codes.md lists every code from these declarations (written and
//! checked by the tests of src/diag/tests/catalogue.rs).

use super::Severity;

/// A diagnostic code: a variant of a stage's enum declared with `codes!`.
pub trait Code: Copy {
    /// The full code, `beryl::STAGE::KIND`, as printed.
    fn as_str(self) -> &'static str;
    /// The severity the code is reported with.
    fn severity(self) -> Severity;
}

/// Declares a stage's diagnostic codes: an enum, one variant per code, with
/// `as_str` (the full `beryl::STAGE::KIND`), `severity`, and for the
/// catalogue test `ALL` and `about` (the variant's doc comment, which every
/// variant must have).
///
/// ```ignore
/// crate::diag::codes! {
///     /// The codes of this stage.
///     pub enum Code in "stage" {
///         /// What the code means, one line.
///         Kind = "kind";
///         /// A warning's code says so.
///         Unused = "unused", warning;
///         /// A code named after another stage is written whole.
///         Other = "beryl::other::kind";
///     }
/// }
/// ```
///
/// `Kind` is `beryl::stage::kind`; a string that starts with `beryl::` is
/// the whole code (codes named after another stage than the module that
/// emits them, and the few of no stage, such as `beryl::usage`). An enum
/// whose codes are all written whole leaves out `in "stage"`.
macro_rules! codes {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($body:tt)+
        }
    ) => {
        $crate::diag::codes! { $(#[$meta])* $vis enum $name in "" { $($body)+ } }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident in $stage:literal {
            $(
                $(#[doc = $doc:literal])+
                $variant:ident = $kind:literal $(, $severity:ident)? ;
            )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[doc = $doc])+ $variant, )+
        }

        impl $name {
            /// The full code, `beryl::STAGE::KIND`, as printed.
            pub(crate) const fn as_str(self) -> &'static str {
                match self {
                    $(
                        $name::$variant => $crate::diag::code_text(
                            concat!("beryl::", $stage, "::", $kind),
                            $kind,
                        ),
                    )+
                }
            }

            /// The severity the code is reported with.
            pub(crate) const fn severity(self) -> $crate::diag::Severity {
                match self {
                    $( $name::$variant => $crate::diag::codes!(@severity $($severity)?), )+
                }
            }

            /// Every code of the enum, in declaration order.
            #[cfg(test)]
            pub(crate) const ALL: &'static [$name] = &[$($name::$variant),+];

            /// What the code means: its doc comment, on one line.
            #[cfg(test)]
            pub(crate) fn about(self) -> String {
                let lines: &[&str] = match self {
                    $( $name::$variant => &[$($doc),+], )+
                };
                lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ")
            }
        }

        impl $crate::diag::Code for $name {
            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }
            fn severity(self) -> $crate::diag::Severity {
                $name::severity(self)
            }
        }
    };
    (@severity) => { $crate::diag::Severity::Error };
    (@severity warning) => { $crate::diag::Severity::Warning };
}

pub(crate) use codes;

/// The code a `codes!` variant stands for: `kind` when it is written
/// whole (`beryl::…`), else `composed` (`beryl::STAGE::KIND`).
#[doc(hidden)]
pub(crate) const fn code_text(composed: &'static str, kind: &'static str) -> &'static str {
    let (kind_bytes, prefix) = (kind.as_bytes(), b"beryl::");
    if kind_bytes.len() < prefix.len() {
        return composed;
    }
    let mut i = 0;
    while i < prefix.len() {
        if kind_bytes[i] != prefix[i] {
            return composed;
        }
        i += 1;
    }
    kind
}

codes! {
    /// The codes of no one stage.
    pub(crate) enum Common {
        /// A file or directory could not be read, listed or written.
        Io = "beryl::io";
    }
}

/// Any text as an error's code, for the tests of diagnostics themselves.
#[cfg(test)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct TestCode(pub &'static str);

#[cfg(test)]
impl Code for TestCode {
    fn as_str(self) -> &'static str {
        self.0
    }
    fn severity(self) -> Severity {
        Severity::Error
    }
}

/// Any text as a warning's code, for the tests of diagnostics themselves.
#[cfg(test)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct TestWarning(pub &'static str);

#[cfg(test)]
impl Code for TestWarning {
    fn as_str(self) -> &'static str {
        self.0
    }
    fn severity(self) -> Severity {
        Severity::Warning
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    codes! {
        /// Codes to test the macro with.
        enum Sample in "sample" {
            /// The first.
            /// It has two lines.
            First = "first";
            /// A warning.
            Second = "second_one", warning;
            /// Another stage's.
            Other = "beryl::other::kind";
        }
    }

    #[test]
    fn codes_are_composed_from_the_stage_unless_written_whole() {
        let texts: Vec<&str> = Sample::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            texts,
            [
                "beryl::sample::first",
                "beryl::sample::second_one",
                "beryl::other::kind"
            ]
        );
        assert_eq!(Sample::First.about(), "The first. It has two lines.");
        assert_eq!(Sample::First.severity(), Severity::Error);
        assert_eq!(Sample::Second.severity(), Severity::Warning);
        assert_eq!(Common::Io.as_str(), "beryl::io");
    }
}
