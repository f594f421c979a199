//! What beryl reads from YAML files where YAML readers disagree, through the
//! built binary.

use std::fs;

use crate::support::{args, beryl};

/// Issue 19: a block scalar ending a file with no final line break is read
/// as YAML 1.2.2 §8.1.1.2 says (and libyaml and PyYAML do): the line break
/// that is not there is not content.
#[test]
fn a_block_scalar_ending_the_file_gains_no_line_break() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("f.yml"), "a: |\n  x\n  y").unwrap();
    let run = beryl(tmp.path(), &args(&["merge", "f.yml", "--format", "json"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    let merged: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(merged, serde_json::json!({"a": "x\ny"}));
}
