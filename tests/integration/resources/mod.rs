//! The resources of `freebsd` beyond the base system, each through the
//! real-installer harness and the live-host idempotence test.

mod zfs;
