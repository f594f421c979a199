//! The desired state of the example inventory's hosts, and the refusals.

use crate::freebsd::base;

#[test]
fn base_tables_hold_the_names_the_issue_lists() {
    for name in ["root", "toor", "daemon", "operator", "www", "nobody"] {
        assert!(base::is_account(name), "{name}");
    }
    for name in ["wheel", "staff", "u2f", "operator"] {
        assert!(base::is_group(name), "{name}");
    }
    assert!(!base::is_account("alice"));
}
