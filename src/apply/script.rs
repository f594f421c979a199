//! The POSIX sh apply script: for each step, check, change if needed,
//! re-check, and report `= id`, `~ id` or `! id FAILED: reason`.

use std::fmt::Write as _;
use std::sync::OnceLock;

use super::Step;
use crate::shell::{QuoteError, word};

/// The exit status of an apply script that found the host's facts changed
/// since its saved plan was made: it changed nothing.
pub(crate) const STALE_STATUS: i32 = 3;

/// The exit status of a host's script whose own steps all ended well and
/// one of whose jails did not (each jail's `jail: ID …` line says which).
pub(crate) const JAILS_STATUS: i32 = 4;

/// How the script is generated.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Remove recorded items that left the config (`--no-prune`: false).
    pub prune: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { prune: true }
    }
}

/// A jail run by its host's script (issue 36): its jail(8) name, its
/// identity (`NAME.PARENT_FQDN`, the prefix of its lines) and its whole
/// inside script, itself made by [`script_guarded`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct JailScript<'a> {
    pub name: &'a str,
    pub id: &'a str,
    pub text: &'a str,
    /// The dataset of its root: its host's `zfs:` row for it is its row.
    pub dataset: Option<&'a str>,
}

/// What a host's script runs: its own steps (`own`: false when only some
/// of its jails were selected, and then nothing of the host's record is
/// pruned), then each jail's script.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Unit<'a> {
    pub own: bool,
    pub jails: &'a [JailScript<'a>],
    /// How many jails run at once (at least 1).
    pub at_once: usize,
}

impl Default for Unit<'_> {
    fn default() -> Self {
        Unit {
            own: true,
            jails: &[],
            at_once: JAILS_AT_ONCE,
        }
    }
}

/// A saved plan's guard: the facts script, run first on the host, and the
/// sha256 of the snapshot the plan was computed from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Guard<'a> {
    pub facts_script: &'a str,
    pub facts_sha256: &'a str,
}

/// The script for a host's steps.
pub fn script(host: &str, steps: &[Step], opts: Options) -> Result<String, QuoteError> {
    script_guarded(host, steps, opts, None)
}

/// [`script_guarded`] of a host alone.
pub(crate) fn script_guarded(
    host: &str,
    steps: &[Step],
    opts: Options,
    guard: Option<Guard<'_>>,
) -> Result<String, QuoteError> {
    script_unit(host, steps, opts, guard, Unit::default())
}

/// The script for a host's steps and its jails', which a saved plan's
/// `guard` (when given) stops before any step on a host that is no longer
/// as planned.
pub(crate) fn script_unit(
    host: &str,
    steps: &[Step],
    opts: Options,
    guard: Option<Guard<'_>>,
    unit: Unit<'_>,
) -> Result<String, QuoteError> {
    let head = header()?;
    // The script's own size, known up front: one allocation instead of a
    // string doubled through the steps' file contents.
    let body: usize = steps
        .iter()
        .map(|s| s.check.len() + s.change.len() + 2 * s.id.len() + 96)
        .sum::<usize>()
        + unit.jails.iter().map(|j| j.text.len() + 128).sum::<usize>();
    let mut out = String::with_capacity(head.len() + body + 256);
    out.push_str(head);
    if !unit.jails.is_empty() {
        out.push_str(&jail_lib(unit.at_once));
    }
    let records: Vec<_> = steps.iter().filter_map(|s| s.record.as_ref()).collect();
    out.push_str(&super::prune::desired(&records, opts.prune)?);
    let _ = writeln!(out, "printf '%s\\n' {}", word(&format!("apply {host}"))?);
    if let Some(g) = guard {
        out.push_str(&guard_text(g)?);
    }
    for (i, step) in steps.iter().enumerate() {
        let record = match &step.record {
            Some(r) => format!(" {} {}", word(r.kind)?, word(&r.id)?),
            None => String::new(),
        };
        // A file's content is literal text: a `$` in its single quotes is
        // meant (shellcheck's SC2016 says otherwise).
        let literal = if matches!(step.desired, crate::resource::Want::File(_)) {
            "# shellcheck disable=SC2016\n"
        } else {
            ""
        };
        // A host row of jails runs with beryl_jail naming them: its
        // failure stops those jails, not the host (`fail`).
        let jails: Vec<&str> = unit
            .jails
            .iter()
            .filter(|j| crate::desired::unit::is_jail_row(&step.id, &[(j.name, j.dataset)]))
            .map(|j| j.name)
            .collect();
        let (set, unset) = match jails.is_empty() {
            true => (String::new(), ""),
            false => (
                format!("beryl_jail={}\n", word(&jails.join(" "))?),
                "beryl_jail=''\n",
            ),
        };
        let _ = write!(
            out,
            "\ncheck_{i}() {{\n\t{}\n}}\n{literal}change_{i}() {{\n\t{}\n}}\n{set}step {} check_{i} change_{i}{record}{}\n{unset}",
            step.check,
            step.change,
            word(&step.id)?,
            match (step.desired.note(), &step.record) {
                (Some(note), Some(_)) => format!(" {}", word(note)?),
                (Some(note), None) => format!(" '' '' {}", word(note)?),
                (None, _) => String::new(),
            }
        );
        for n in &step.notify {
            let _ = writeln!(
                out,
                "[ \"$stepped\" = 0 ] || notify {} {}",
                word(&n.service)?,
                word(&n.action)?
            );
        }
    }
    // Each jail after the host's steps (the host's rows make and start it),
    // before the host's pruning and handlers.
    for (i, j) in unit.jails.iter().enumerate() {
        let _ = write!(
            out,
            "\n# The inside script of jail {id}: one quoted word, data here.\n\
             # shellcheck disable=SC1078,SC1079,SC2016\n\
             beryl_jail_{i}={text}\n\
             jail_apply {name} {id} \"$beryl_jail_{i}\"\n",
            id = word(j.id)?,
            name = word(j.name)?,
            text = word(j.text)?,
        );
    }
    if !unit.jails.is_empty() {
        out.push_str("jails_end\n");
    }
    // Removals first, then the handlers: a service reloads once, after
    // everything it reads is in place. Without the host's own steps, nothing
    // of its record is pruned (none of its steps would say what to keep).
    if unit.own {
        out.push_str("\nprune_all\nforeign_jails\n");
    }
    if steps.iter().any(|s| !s.notify.is_empty())
        || (unit.own && opts.prune && super::prune::notifies())
    {
        out.push_str("handlers\n");
    }
    out.push_str(match unit.jails.is_empty() {
        true => FOOTER,
        false => JAILS_FOOTER,
    });
    Ok(out)
}

/// The facts of a connection (issue 36): the host's facts script (when
/// `host` is given) printing its snapshot as it is, then each jail's, run in
/// the jail by `jail_apply` (every line prefixed `|ID `, then `jail: ID exit
/// N` or `jail: ID absent`). Its status is the host's facts script's.
pub(crate) fn facts_unit(
    host: Option<&str>,
    jails: &[JailScript<'_>],
) -> Result<String, QuoteError> {
    let mut out = format!(
        "#!/bin/sh\n# beryl facts of a host and its jails: read-only.\nset -u\nPATH={}\nexport PATH\nLC_ALL=C\nexport LC_ALL\n",
        crate::freebsd::SCRIPT_PATH
    );
    out.push_str(&jail_lib(JAILS_AT_ONCE));
    out.push_str("beryl_host=0\n");
    if let Some(text) = host {
        let _ = write!(
            out,
            "# The host's facts script is one quoted word: its own quotes are data here.\n\
             # shellcheck disable=SC1078,SC1079,SC2016\n\
             /bin/sh -c {} </dev/null\nberyl_host=$?\n",
            word(text)?
        );
    }
    for j in jails {
        let _ = write!(
            out,
            "# shellcheck disable=SC1078,SC1079,SC2016\njail_apply {} {} {} </dev/null\n",
            word(j.name)?,
            word(j.id)?,
            word(j.text)?,
        );
    }
    out.push_str("jails_end\nexit \"$beryl_host\"\n");
    Ok(out)
}

/// The script's start, the same for every host: built once per process
/// (validation builds the script of every host of the fleet).
fn header() -> Result<&'static str, QuoteError> {
    static HEAD: OnceLock<Result<String, QuoteError>> = OnceLock::new();
    let head = HEAD.get_or_init(|| {
        Ok(HEADER
            .replace("@PATH@", crate::freebsd::SCRIPT_PATH)
            .replace("@RECORD@", &word(crate::resource::RECORD)?)
            .replace(
                "@RECORD_DIR@",
                &word(crate::resource::dirname(crate::resource::RECORD))?,
            )
            .replace("@KINDS@", &super::prune::functions())
            .replace("@REFUSALS@", &super::prune::refusals()?)
            .replace("@LIB@\n", crate::resource::HOST_LIB)
            .replace("@SCRIPTS@\n", &scripts()?))
    });
    head.as_deref().map_err(|e| *e)
}

/// The kinds' named scripts as assignments, one per line.
fn scripts() -> Result<String, QuoteError> {
    let mut out = String::new();
    for (name, text) in crate::resource::kind_scripts() {
        let _ = writeln!(
            out,
            "# shellcheck disable=SC2016,SC2034\n{name}={}",
            word(text)?
        );
    }
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
# What beryl created on this host (docs/apply.md, pruning): `KIND ID` lines.
record=@RECORD@
# The record lines this run created, and those it removed.
created=''
pruned=''

finish() {
	printf '%s\n' "apply: $changed changed, $unchanged unchanged, $failed failed"
}

# save_record: the record less what was pruned, plus what was created,
# written atomically when it changed. Never on a dry run.
save_record() {
	[ "${BERYL_DRY_RUN:-}" = 1 ] && return 0
	_old=$(cat "$record" 2>/dev/null) || _old=''
	_new=$(printf '%s\n%s' "$_old" "$created" | pruned="$pruned" awk '
		BEGIN { n = split(ENVIRON["pruned"], d, "\n"); for (i = 1; i <= n; i++) gone[d[i]] = 1 }
		$0 != "" && !($0 in gone) && !seen[$0]++' | sort)
	[ "$_new" = "$_old" ] && return 0
	# 0600: the record says what beryl manages; only root reads it.
	(umask 077 && mkdir -p @RECORD_DIR@ && rm -f "$record.beryl-tmp" &&
		printf '%s' "$_new" > "$record.beryl-tmp" &&
		{ [ -z "$_new" ] || printf '\n' >> "$record.beryl-tmp"; } &&
		chmod 0600 "$record.beryl-tmp" &&
		mv -f "$record.beryl-tmp" "$record") ||
		printf '%s\n' "! record FAILED: cannot write $record"
}

# fail ID REASON [OUTPUT]: report, sum up and stop. A host row of jails
# (beryl_jail set, issue 36) stops only those jails: the rest of the host,
# and its other jails, go on; the jails' inside scripts are not run.
fail() {
	if [ -n "${3:-}" ]; then
		printf '%s\n' "$3" | sed 's/^/    /'
	fi
	printf '%s\n' "! $1 FAILED: $2"
	failed=$((failed + 1))
	if [ -n "${beryl_jail:-}" ]; then
		jails_blocked="$jails_blocked $beryl_jail "
		return 0
	fi
	save_record
	finish
	exit 1
}
jails_blocked=' '
# jail_blocked: whether a jail of beryl_jail (names, one word each) had a
# row that failed.
jail_blocked() {
	for _j in $beryl_jail; do
		case $jails_blocked in *" $_j "*) return 0 ;; esac
	done
	return 1
}

# The recorded kinds (src/apply/prune.rs): exists_KIND ID exits 0 when the
# item is there; keep_KIND ID says why it must stay; remove_KIND ID;
# removed_KIND notifies the handler a removal needs, when there is one.
@KINDS@
@REFUSALS@
# removed KIND ID: the handler the removal of ID notifies, if any.
removed() {
	if command -v "removed_$1" >/dev/null 2>&1; then
		"removed_$1" "$2"
	fi
}

# prune_all: remove each recorded item the config no longer holds
# ($desired), unless pruning is off; an item already gone is forgotten.
prune_all() {
	[ -f "$record" ] || return 0
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		if printf '%s' "$desired" | grep -Fqx -e "$line"; then
			continue
		fi
		kind=${line%% *}
		id=${line#* }
		if why=$(record_refused "$kind" "$id"); then
			printf '%s\n' "! $kind:$id refused: the record names $why; nothing is done with it"
			failed=$((failed + 1))
			continue
		fi
		if ! command -v "exists_$kind" >/dev/null 2>&1; then
			printf '%s\n' "= $kind:$id kept: a kind this beryl does not know"
			continue
		fi
		if ! "exists_$kind" "$id" </dev/null >/dev/null 2>&1; then
			pruned="$pruned$line
"
			continue
		fi
		if [ "$prune" != 1 ]; then
			printf '%s\n' "= $kind:$id kept: --no-prune"
			unchanged=$((unchanged + 1))
			continue
		fi
		if why=$("keep_$kind" "$id" </dev/null 2>/dev/null); then
			printf '%s\n' "= $kind:$id kept: $why"
			unchanged=$((unchanged + 1))
			continue
		fi
		if [ "${BERYL_DRY_RUN:-}" = 1 ]; then
			printf '%s\n' "- $kind:$id would remove"
			changed=$((changed + 1))
			removed "$kind" "$id"
			continue
		fi
		out=$("remove_$kind" "$id" </dev/null 2>&1)
		status=$?
		if [ "$status" -ne 0 ]; then
			fail "$kind:$id" "the removal exited $status" "$out"
		fi
		if "exists_$kind" "$id" </dev/null >/dev/null 2>&1; then
			fail "$kind:$id" "still there after the removal" "$out"
		fi
		pruned="$pruned$line
"
		printf '%s\n' "- $kind:$id"
		changed=$((changed + 1))
		removed "$kind" "$id"
	done < "$record"
}

# foreign_jails (issue 36): each jail of this host that runs (`jls name`;
# a child jail, `PARENT.CHILD` in kern_jail.c kern_jail_set, is its
# parent's business) or has a conf in /etc/jail.conf.d, and that neither
# the config lays out ($desired) nor beryl's record holds: said, counted
# unchanged, never touched. A name that is not plain is shown with `?` for
# each other byte. The dry run says the same from the facts' `jails`.
foreign_jails() {
	_ours=$({ printf '%s\n' "$desired"; cat "$record" 2>/dev/null; } | sed -n 's/^jail \([^ ]*\).*/\1/p')
	_all=$({
		jls name 2>/dev/null | grep -v '\.'
		for _f in /etc/jail.conf.d/*.conf; do
			{ [ -e "$_f" ] || [ -L "$_f" ]; } || continue
			_n=${_f##*/}
			printf '%s\n' "${_n%.conf}"
		done
	} | sed '/^$/d' | sort -u)
	_ifs=$IFS
	IFS='
'
	set -f
	for _n in $_all; do
		case "
$_ours
" in
		*"
$_n
"*) continue ;;
		esac
		case $_n in
		*[!A-Za-z0-9_.-]*) _n=$(printf '%s' "$_n" | tr -c 'A-Za-z0-9_.-' '?') ;;
		esac
		printf '%s\n' "= jail:$_n kept: not made by beryl (not in its record); left alone"
		unchanged=$((unchanged + 1))
	done
	set +f
	IFS=$_ifs
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

# notify SERVICE ACTION: after every step, `service SERVICE ACTION` runs
# once (handlers); a restart covers a reload. `notified` holds one
# `SERVICE:ACTION` word per service, in the order first notified: rc.d
# script names hold no blank, `:` or glob character, and may hold `-`
# (`mysql-server`), so they name no variable and nothing is eval'ed.
notified=''
notify() {
	_new=''
	_found=
	for _e in $notified; do
		if [ "${_e%:*}" = "$1" ]; then
			_found=1
			if [ "${_e##*:}" != restart ]; then
				_e="$1:$2"
			fi
		fi
		_new="$_new $_e"
	done
	if [ -z "$_found" ]; then
		_new="$_new $1:$2"
	fi
	notified=$_new
}

# handlers: the notified services, in the order first notified.
handlers() {
	for _e in $notified; do
		_s=${_e%:*}
		_a=${_e##*:}
		if [ "${BERYL_DRY_RUN:-}" = 1 ]; then
			printf '%s\n' "~ notify:$_s would $_a"
			changed=$((changed + 1))
			continue
		fi
		out=$(service "$_s" "$_a" </dev/null 2>&1)
		status=$?
		if [ "$status" -ne 0 ]; then
			fail "notify:$_s" "service $_s $_a exited $status" "$out"
		fi
		printf '%s\n' "~ notify:$_s $_a"
		changed=$((changed + 1))
	done
}

# step ID CHECK CHANGE [KIND RID [NOTE]]: with KIND and RID, an item that
# did not exist before the change is recorded as `KIND RID`; NOTE is printed
# under a step that changed.
# It sets stepped=1 when the change ran (or would), for the notify lines
# that follow a step whose file has `notify`.
stepped=0
# shellcheck disable=SC2034
step() {
	stepped=0
	# A host row of a jail (beryl_jail: the jails it makes or runs) after
	# another row of that jail failed: not run (issue 36).
	if [ -n "${beryl_jail:-}" ] && jail_blocked; then
		printf '%s\n' "! $1 FAILED: not run: an earlier step for jail $beryl_jail failed"
		failed=$((failed + 1))
		return 0
	fi
	if "$2" </dev/null >/dev/null 2>&1; then
		printf '%s\n' "= $1"
		unchanged=$((unchanged + 1))
		return 0
	fi
	stepped=1
	if [ "${BERYL_DRY_RUN:-}" = 1 ]; then
		printf '%s\n' "~ $1 would change"
		changed=$((changed + 1))
		return 0
	fi
	new=''
	if [ -n "${5:-}" ] && ! "exists_$4" "$5" </dev/null >/dev/null 2>&1; then
		new="$4 $5"
	fi
	out=$("$3" </dev/null 2>&1)
	status=$?
	if [ "$status" -ne 0 ]; then
		fail "$1" "the change exited $status" "$out"
		stepped=0
		return 0
	fi
	if ! "$2" </dev/null >/dev/null 2>&1; then
		fail "$1" "still differs after the change" "$out"
		stepped=0
		return 0
	fi
	if [ -n "$new" ]; then
		created="$created$new
"
	fi
	printf '%s\n' "~ $1"
	if [ -n "${6:-}" ]; then
		printf '%s\n' "    note: $6"
	fi
	changed=$((changed + 1))
}

@LIB@
# The scripts that steps run as a user (as_user), one variable each.
@SCRIPTS@
"#;

/// The end: the record, the summary, and a status that is not 0 when a
/// step or a record line failed without stopping the run, or
/// [`JAILS_STATUS`] when only a jail did not end well.
const FOOTER: &str = "save_record\nfinish\n[ \"$failed\" -eq 0 ]\n";

/// The end of a script that runs jails: as [`FOOTER`], then
/// [`JAILS_STATUS`] when only a jail did not end well.
const JAILS_FOOTER: &str =
    "save_record\nfinish\n[ \"$failed\" -eq 0 ] || exit 1\n[ \"$jails_failed\" -eq 0 ] || exit 4\n";

/// How many jails of a host run at once when nothing says otherwise
/// (`beryl apply --jail-parallel`).
pub(crate) const JAILS_AT_ONCE: usize = 4;

/// [`JAIL_LIB`] running `at_once` jails at once (at least 1).
fn jail_lib(at_once: usize) -> String {
    JAIL_LIB.replace("@AT_ONCE@", &at_once.max(1).to_string())
}

/// What a script that runs jails adds to the header (after it: a host
/// without jails keeps its script as it was). `@AT_ONCE@`: how many jails
/// run at once.
const JAIL_LIB: &str = r#"
# jail_apply NAME ID SCRIPT (issue 36): SCRIPT, a jail's own apply script,
# run in the jail NAME by jexec(8) -l, which empties the environment
# (usr.sbin/jexec/jexec.c @2d614aa2, main: environ cleared, PATH=/bin:/usr/bin
# and TERM, then the login class's PATH and variables, USER, HOME, SHELL, and
# cwd HOME; the command found by execvp(3)), so BERYL_DRY_RUN is passed by
# env(1), found on that PATH (/usr/bin/env); the script sets its own PATH.
#
# Jails run side by side, jails_max at once, each in the background; what
# each prints is shown whole, in the order the jails were queued
# (jail_show), so the connection reads as if they ran one after another.
# Every line a jail prints, stdout and stderr, is prefixed `|ID ` here on
# the host by awk (which ends every line it prints), so nothing a jail
# prints reads as a line of the host's; then the host writes `jail: ID exit
# N` (N: the jail's script's status), `jail: ID absent` when no jail NAME
# runs (jls -j NAME fails: its inside is unknown), or `jail: ID not run`
# when a host row for it failed. A jail that did not end well does not
# stop the others: the script's status says it.
#
# The end of a jail's output is not the end of its pipe: a process the
# jail's script leaves behind may hold that open for ever. When jexec
# (that is, the jail's sh: jexec execs it) exits, the host writes
# `MARK STATUS` on the pipe, MARK being 32 random hex digits no jail sees,
# and awk stops reading there: a process left behind that writes later
# gets EPIPE. awk keeps what it shows to jails_cap bytes a jail (then one
# line `jail: ID output cut after N bytes`), and runs with jails_vmem KiB of
# memory, so that a line that never ends cannot exhaust the host's
# (bin/sh/miscbltin.c @fd892956: ulimit -v is RLIMIT_VMEM, in KiB; a
# jail's root may raise its own limits: kern_jail.c prison_priv_check
# grants PRIV_PROC_SETRLIMIT). An awk that counts UTF-8 characters
# (one-true-awk's second edition) lets up to 4 times as many bytes
# through. The spool is a directory only root reads (mktemp -d: mode
# 0700); of it a jail holds only its script, read-only (a pipe there
# could be held by a process the jail leaves behind, and stop the host
# writing the script). Once jails_max run, the oldest is shown before
# another starts: one slow jail holds back the start of the later ones.
jails_failed=0
jails_max=@AT_ONCE@
jails_cap=16777216
jails_vmem=262144
jails_n=0
jails_shown=0
jails_running=0
jails_dir=''
jails_mark=''
# jails_spool: the spool directory and the mark, made once.
jails_spool() {
	[ -n "$jails_dir" ] && return 0
	# od(1), usr.bin/hexdump/odsyntax.c @039ea811: -A n, -N 16, -t x1.
	jails_mark=$(od -A n -N 16 -t x1 /dev/urandom | tr -d ' \n') || return 1
	[ "${#jails_mark}" -eq 32 ] || return 1
	jails_dir=$(mktemp -d "${TMPDIR:-/tmp}/beryl-jails.XXXXXXXX")
}
# The reader: the jail's lines, prefixed, up to the mark; the status into
# the file ENVIRON["st"]. The host writes the mark after a newline of its
# own, so the mark starts a record whatever the jail's last bytes were (a
# NUL ends the one true awk's record early: the mark must not share it);
# an empty record just before the mark is that newline, not a line of the
# jail's. What is shown counts the prefix (the bytes the host writes).
# shellcheck disable=SC2016
jails_awk='
BEGIN { m = ENVIRON["m"] " "; cap = ENVIRON["cap"] + 0; pl = length(ENVIRON["p"]) + 1 }
function show(s) {
	if (n > cap) return
	n += pl + length(s)
	if (n <= cap) print ENVIRON["p"] s
	else print "jail: " ENVIRON["id"] " output cut after " cap " bytes"
}
{
	if (index($0, m) == 1) {
		print substr($0, length(m) + 1) > ENVIRON["st"]
		exit
	}
	if (held) show("")
	held = $0 == ""
	if (!held) show($0)
}'
jail_apply() {
	jails_n=$((jails_n + 1))
	_n=$jails_n
	eval "jail_id_$_n=\$2 jail_end_$_n='' jail_pid_$_n=''"
	case ${jails_blocked:-} in *" $1 "*)
		eval "jail_end_$_n='not run'"
		jails_flush
		return 0
		;;
	esac
	if ! jls -j "$1" >/dev/null 2>&1; then
		eval "jail_end_$_n=absent"
	elif ! jails_spool; then
		printf '%s\n' "jails: no spool (mktemp -d in ${TMPDIR:-/tmp}, or od of /dev/urandom, failed): jail $2 not run"
		eval "jail_end_$_n='not run'"
	else
		_f=$jails_dir/$_n
		# The script is read from a file: a process the jail leaves
		# holding a pipe there could stop the host writing it.
		if ! printf '%s' "$3" >"$_f.in"; then
			printf '%s\n' "jails: cannot write $_f.in: jail $2 not run"
			eval "jail_end_$_n='not run'"
			jails_flush
			return 0
		fi
		{
			jexec -l "$1" env "BERYL_DRY_RUN=${BERYL_DRY_RUN:-}" \
				/bin/sh -s <"$_f.in" 2>&1
			printf '\n%s %s\n' "$jails_mark" "$?"
		} | (
			# FreeBSD's sh has ulimit -v (and dash, the tests' sh).
			# shellcheck disable=SC3045
			ulimit -v "$jails_vmem"
			p="|$2 " id=$2 m=$jails_mark cap=$jails_cap st=$_f.st exec awk "$jails_awk"
		) >"$_f" &
		eval "jail_pid_$_n=\$!"
		jails_running=$((jails_running + 1))
	fi
	jails_flush
}
# jails_flush [all]: show the oldest jails whose turn has come: one that
# did not start (at once), the oldest running one while jails_max run,
# and with `all` every one.
jails_flush() {
	while [ "$jails_shown" -lt "$jails_n" ]; do
		eval "_pid=\$jail_pid_$((jails_shown + 1))"
		[ -z "$_pid" ] || [ "${1:-}" = all ] || [ "$jails_running" -ge "$jails_max" ] || break
		jail_show
	done
}
# jail_show: the oldest jail not shown: its lines and its end.
jail_show() {
	_n=$((jails_shown + 1))
	jails_shown=$_n
	_id='' _end='' _pid=''
	eval "_id=\$jail_id_$_n _end=\$jail_end_$_n _pid=\$jail_pid_$_n"
	if [ -z "$_pid" ]; then
		printf '%s\n' "jail: $_id $_end"
		jails_failed=$((jails_failed + 1))
		return 0
	fi
	wait "$_pid"
	jails_running=$((jails_running - 1))
	_f=$jails_dir/$_n
	cat "$_f"
	_st=''
	[ ! -f "$_f.st" ] || read -r _st <"$_f.st" || :
	# Emptied now (no process: the shell's own redirections), removed
	# with the spool (jails_end).
	: >"$_f"
	: >"$_f.in"
	case $_st in '' | *[!0-9]*) _st=255 ;; esac
	printf '%s\n' "jail: $_id exit $_st"
	[ "$_st" = 0 ] || jails_failed=$((jails_failed + 1))
}
# jails_end: every jail shown, the spool removed.
jails_end() {
	jails_flush all
	[ -z "$jails_dir" ] || rm -rf "$jails_dir"
}

"#;

/// A saved plan's guard: the facts script runs first, its output (byte for
/// byte, through a file: `$(…)` would drop trailing newlines) is hashed, and
/// a snapshot other than the plan's stops the script before any step.
///
/// Written in one pass with `format!`: the facts script holds the host's
/// managed paths, so no placeholder may be replaced in text that already
/// holds data (a path with `@SHA256@` in it once rewrote the guard).
fn guard_text(g: Guard<'_>) -> Result<String, QuoteError> {
    Ok(format!(
        r#"
# The saved plan's guard: the host must still be as the plan saw it.
beryl_planned={sha}
beryl_facts=$(mktemp "${{TMPDIR:-/tmp}}/beryl-facts.XXXXXXXX") || fail guard "mktemp failed"
# The facts script is one quoted word: its own quotes are data here.
# shellcheck disable=SC1078,SC1079
/bin/sh -c {facts} </dev/null >"$beryl_facts" 2>/dev/null
beryl_sum=$(sha256 -q "$beryl_facts")
rm -f "$beryl_facts"
if [ "$beryl_sum" != "$beryl_planned" ]; then
	printf '%s\n' "stale: the facts are not the plan's (sha256 $beryl_sum, planned $beryl_planned)"
	exit {STALE_STATUS}
fi
"#,
        sha = word(g.facts_sha256)?,
        facts = word(g.facts_script)?,
    ))
}
