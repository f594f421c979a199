//! The POSIX sh apply script: for each step, check, change if needed,
//! re-check, and report `= id`, `~ id` or `! id FAILED: reason`.

use super::{Step, q};

/// The script for a host's steps.
pub fn script(host: &str, steps: &[Step]) -> String {
    let mut out = String::from(HEADER);
    out.push_str(&format!("echo {}\n", q(&format!("apply {host}"))));
    for (i, step) in steps.iter().enumerate() {
        out.push_str(&format!(
            "\ncheck_{i}() {{\n\t{}\n}}\nchange_{i}() {{\n\t{}\n}}\nstep {} check_{i} change_{i}\n",
            step.check,
            step.change,
            q(&step.id)
        ));
    }
    out.push_str(FOOTER);
    out
}

const HEADER: &str = r#"#!/bin/sh
# beryl apply script: each step checks, changes only if needed, and checks
# again. BERYL_DRY_RUN=1 only checks. BERYL_ROOT (empty) prefixes file paths.
# Checks and changes read nothing: this script may itself be standard input
# (`ssh HOST sh -s`). A change's output is shown only when it fails.
set -u
BERYL_ROOT="${BERYL_ROOT:-}"
changed=0
unchanged=0
failed=0

finish() {
	echo "apply: $changed changed, $unchanged unchanged, $failed failed"
}

# fail ID REASON [OUTPUT]: report, sum up and stop.
fail() {
	if [ -n "${3:-}" ]; then
		printf '%s\n' "$3" | sed 's/^/    /'
	fi
	echo "! $1 FAILED: $2"
	failed=$((failed + 1))
	finish
	exit 1
}

# step ID CHECK CHANGE
step() {
	if "$2" </dev/null >/dev/null 2>&1; then
		echo "= $1"
		unchanged=$((unchanged + 1))
		return 0
	fi
	if [ "${BERYL_DRY_RUN:-}" = 1 ]; then
		echo "~ $1 would change"
		changed=$((changed + 1))
		return 0
	fi
	out=$("$3" </dev/null 2>&1)
	status=$?
	if [ "$status" -ne 0 ]; then
		fail "$1" "the change exited $status" "$out"
	fi
	if ! "$2" </dev/null >/dev/null 2>&1; then
		fail "$1" "still differs after the change" "$out"
	fi
	echo "~ $1"
	changed=$((changed + 1))
}

"#;

const FOOTER: &str = "\nfinish\n";
