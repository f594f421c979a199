//! The unit tests of `keys`, one file per concern, on the keys of
//! `fixtures`.

use super::*;

mod fixtures;
mod inject;
mod parse;
mod store;
