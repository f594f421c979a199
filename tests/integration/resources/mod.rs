//! The resources of `freebsd` beyond accounts (docs/resources.md), one file
//! each: through the real installer (tests/integration/install.rs's fake
//! FreeBSD) and the live-host idempotence checks of tests/integration/live.rs
//! (install, nothing pending; drift; apply; a second apply changes nothing).

mod files;
mod services;
mod system;
mod zfs;
