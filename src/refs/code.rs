//! The codes of reference resolution.

crate::diag::codes! {
    /// The codes of reference resolution.
    pub(crate) enum Code in "refs" {
        /// A `${…}` that does not parse.
        Syntax = "syntax";
        /// A reference's path that does not parse.
        Path = "path";
        /// A reference to a path where nothing is set.
        Missing = "missing";
        /// A missing reference in a value that a higher level overwrites, skipped (reclass's `ignore_overwritten_missing_references`).
        MissingOverwritten = "missing_overwritten", warning;
        /// References that depend on one another.
        Cycle = "cycle";
        /// A mapping, list or null referenced inside a longer string.
        Embed = "embed";
        /// A deferred merge that lost its place (a bug in beryl).
        Internal = "internal";
        /// A jail's `${parent.…}` whose host does not compile, or asks inventory queries (not read through `parent` yet).
        Parent = "parent";
    }
}
