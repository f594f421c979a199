//! The POSIX sh apply script: for each step, check, change if needed,
//! re-check, and report `= id`, `~ id` or `! id FAILED: reason`.

use super::Step;
use crate::shell::{QuoteError, word};

/// The script for a host's steps.
pub fn script(host: &str, steps: &[Step]) -> Result<String, QuoteError> {
    let mut out = HEADER.replace("@PATH@", crate::freebsd::SCRIPT_PATH);
    out.push_str(&format!("echo {}\n", word(&format!("apply {host}"))?));
    for (i, step) in steps.iter().enumerate() {
        out.push_str(&format!(
            "\ncheck_{i}() {{\n\t{}\n}}\nchange_{i}() {{\n\t{}\n}}\nstep {} check_{i} change_{i}{}\n",
            step.check,
            step.change,
            word(&step.id)?,
            match super::system::note(step.kind) {
                Some(note) => format!(" {}", word(note)?),
                None => String::new(),
            }
        ));
    }
    out.push_str(FOOTER);
    Ok(out)
}

const HEADER: &str = r#"#!/bin/sh
# beryl apply script: each step checks, changes only if needed, and checks
# again. BERYL_DRY_RUN=1 only checks. Checks and changes read nothing: this
# script may itself be standard input (`ssh HOST sudo -n sh -s`). A change's
# output is shown only when it fails. It sets its own PATH: ssh's and the
# boot-time one lack /usr/local.
set -u
PATH=@PATH@
export PATH
LC_ALL=C
export LC_ALL
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

# rcdefines FILE VAR: FILE exists and sets VAR.
rcdefines() {
	# shellcheck source=/dev/null
	[ -f "$1" ] && (unset "$2"; . "$1" >/dev/null 2>&1; eval "[ \"\${$2+set}\" ]")
}

# rcvalue VAR [NAME...]: VAR as rc(8) sees it when it runs the scripts NAME:
# the defaults and rc.conf's files (sysrc -n), then each script's rc.conf.d
# file (libexec/rc/rc.subr, load_rc_config).
rcvalue() {
	_v=$1
	shift
	_val=$(sysrc -n "$_v" 2>/dev/null) || _val=
	for _n in "$@"; do
		for _f in /etc/rc.conf.d/"$_n" /usr/local/etc/rc.conf.d/"$_n"; do
			if rcdefines "$_f" "$_v"; then
				# shellcheck source=/dev/null
				_val=$(. "$_f" >/dev/null 2>&1; eval "printf '%s' \"\${$_v}\"")
			fi
		done
	done
	printf '%s' "$_val"
}

# step ID CHECK CHANGE [NOTE]: NOTE is printed under a step that changed.
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
	if [ -n "${4:-}" ]; then
		echo "    note: $4"
	fi
	changed=$((changed + 1))
}

"#;

const FOOTER: &str = "\nfinish\n";
