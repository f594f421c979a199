//! The written syntax of an inventory, with no meaning attached: the leaf
//! that every stage may read. It imports nothing but [`crate::value`].
//!
//! - [`path`]: dotted paths (`sysctl."net.inet.ip.forwarding"`), in `merge:`
//!   patterns, references and queries.
//! - [`template`]: the `${…}` references inside a string.
//! - [`prefix`]: the `~key` and `=key` prefixes of mapping keys.
//! - [`query`]: the `$[ … ]` inventory query language.
//! - [`root`]: the root keys beryl gives a meaning to.
//!
//! What these mean is the business of later stages: merge (src/merge/)
//! honours the prefixes, refs (src/refs/) resolves references, exports
//! (src/exports/) answers queries.

pub(crate) mod path;
pub(crate) mod prefix;
pub(crate) mod query;
pub(crate) mod root;
pub(crate) mod template;
