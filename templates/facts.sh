#!/bin/sh
# beryl facts: writes a JSON snapshot of this FreeBSD host's state on stdout,
# for `beryl apply HOST --dry-run --state FILE`. Read-only; FreeBSD base tools
# only (pkg, pw, stat, sha256, sysrc, awk). Run it as root (it reads
# /etc/master.passwd): `ssh HOST sudo -n sh -s`. The format is documented in
# docs/apply.md.
set -u
PATH=/sbin:/bin:/usr/sbin:/usr/bin:/usr/local/sbin:/usr/local/bin
export PATH
LC_ALL=C
export LC_ALL
record=/var/db/beryl/managed
@LIB@
@QUERIES@

# ids KIND: the ids of KIND that this host's config names (q_KIND) and that
# beryl's record holds, sorted, once each.
ids() {
	{
		eval "printf '%s' \"\${q_$1:-}\""
		if [ -f "$record" ]; then
			sed -n "s/^$1 //p" "$record"
		fi
	} | sed '/^$/d' | sort -u
}

# A JSON string of the bytes of $1, every one kept: printable ASCII as
# itself (quote and backslash escaped), tab, newline and carriage return as
# \t \n \r, and every other byte, a control or any byte from 0x80 (a
# Latin-1 GECOS: pw_checkname in usr.sbin/pw/pw_user.c @bec1c10a allows
# 8-bit bytes there), as \u00XX: the snapshot is ASCII whatever the host
# holds, and beryl reads each \u00XX back as the byte XX (docs/apply.md
# §3). od(1) gives the bytes as numbers (`-A n -v -t u1`: no offsets, no
# `*` for repeated lines, one unsigned decimal per byte; usr.bin/hexdump/
# odsyntax.c @039ea811), so no awk's idea of characters (the one true
# awk's UTF-8, mawk's bytes) and no final newline are in the way.
json() {
	printf '%s' "$1" | od -A n -v -t u1 | awk '
		BEGIN {
			ORS = ""
			for (i = 32; i < 127; i++) c[i] = sprintf("%c", i)
			c[9] = "\\t"; c[10] = "\\n"; c[13] = "\\r"; c[34] = "\\\""; c[92] = "\\\\"
			printf "\""
		}
		{ for (i = 1; i <= NF; i++) printf "%s", (($i + 0) in c) ? c[$i + 0] : sprintf("\\u%04x", $i) }
		END { printf "\"" }'
}

# as_json [private]: what `peek` printed (standard input) as JSON: null
# when nothing is there, a link as itself (`"type":"link"` with its own mode
# and owner, never what it points to), a directory's mode and owner, a
# file's digest, mode, owner, group and content. With `private`, the content
# of a file others may not read is left out (`"private":true`): a secret
# stays on the host. With `secret`, its digest too (`"secret":true`).
as_json() {
	_private=${1:-}
	# Keep trailing newlines: the command substitution would drop them.
	_all=$(cat; printf x)
	_all=${_all%x}
	_head=${_all%%
*}
	case $_all in
	*'
'*) _body=${_all#*
} ;;
	*) _body='' ;;
	esac
	# The head's words: a mode, names and a digest, split but never globbed.
	set -f
	# shellcheck disable=SC2086
	set -- $_head
	set +f
	case ${1:-none} in
	link) printf '{"type":"link","mode":%s,"owner":%s,"group":%s}' "$(json "$2")" "$(json "$3")" "$(json "$4")" ;;
	dir) printf '{"mode":%s,"owner":%s}' "$(json "$2")" "$(json "$3")" ;;
	file)
		if [ "$_private" = secret ]; then
			printf '{"mode":%s,"owner":%s,"group":%s,"secret":true}' \
				"$(json "$2")" "$(json "$3")" "$(json "$4")"
			return 0
		fi
		case $_private:$2 in
		private:*[0123])
			printf '{"sha256":%s,"mode":%s,"owner":%s,"group":%s,"private":true}' \
				"$(json "$5")" "$(json "$2")" "$(json "$3")" "$(json "$4")"
			return 0
			;;
		esac
		printf '{"sha256":%s,"mode":%s,"owner":%s,"group":%s,"content":%s}' \
			"$(json "$5")" "$(json "$2")" "$(json "$3")" "$(json "$4")" "$(json "$_body")"
		;;
	*) printf 'null' ;;
	esac
}

# A user's file or directory under the home: read as the user (as_user),
# who may have put anything there. Nothing named .ssh in the home: null,
# without starting a process as the user.
home_path() {
	if [ -e "$3" ] || [ -L "$3" ]; then
		as_user "$1" "$peek" sh "$2" </dev/null 2>/dev/null | as_json
	else
		printf 'null'
	fi
}

# how PATH: `secret` for a file whose desired content holds a secret
# (`ids secret`: neither its content nor its digest is reported, only its
# mode and owner), else `private` (a file others may not read: its digest).
how() {
	if ids secret | grep -Fqx -- "$1"; then
		echo secret
	else
		echo private
	fi
}

# A managed file: read as root where only root can change its directory
# (trusted_dir), else as the directory's owner. A path through a link is
# reported as a link, one through a directory others than root can write
# as untrusted: apply refuses both.
file() {
	_d=${1%/*}
	_d=${_d:-/}
	if ! _t=$(trusted_dir "$_d" '*' 2>&1); then
		case $_t in
		*'symbolic link'*) _t='link' ;;
		*) _t='untrusted' ;;
		esac
		printf '{"type":"%s","mode":"","owner":"","group":""}' "$_t"
		return 0
	fi
	case $_t in
	root) sh -c "$peek" sh "$1" </dev/null 2>/dev/null | as_json "$(how "$1")" ;;
	*) as_user "$(stat -f '%Su' "$_d")" "$peek" sh "$1" </dev/null 2>/dev/null | as_json "$(how "$1")" ;;
	esac
}

# name: value lines (sysrc -a/-A) as a JSON object.
vars() {
	printf '{'
	_sep=''
	while IFS= read -r line; do
		printf '%s%s:%s' "$_sep" "$(json "${line%%: *}")" "$(json "${line#*: }")"
		_sep=','
	done
	printf '}'
}

# Which host and which script took the snapshot: beryl refuses a snapshot of
# another host, or one taken by another script than the one its config
# generates now (a script that does not look at what the config manages).
printf '{"format_version":5,"host":%s,"script":%s' "$(json "$beryl_host")" "$(json "$beryl_script")"
printf ',"timezone":%s' "$(json "$(cat /var/db/zoneinfo 2>/dev/null || true)")"

# pkg(7) in /usr/sbin only bootstraps the real pkg, and would ask on this
# script's standard input: query packages only once it is there.
if [ -x /usr/local/sbin/pkg ]; then
	printf ',"pkg":true'
	names=$(pkg query '%n' </dev/null 2>/dev/null | sort)
	origins=$(pkg query '%o' </dev/null 2>/dev/null | sort)
else
	printf ',"pkg":false'
	names=''
	origins=''
fi
printf ',"packages":['
sep=''
for p in $names; do
	printf '%s%s' "$sep" "$(json "$p")"
	sep=','
done
printf ']'

# Origins too: a package named by origin (databases/postgresql16-server) is
# checked by origin.
printf ',"origins":['
sep=''
for o in $origins; do
	printf '%s%s' "$sep" "$(json "$o")"
	sep=','
done
printf ']'

printf ',"groups":{'
sep=''
pw groupshow -a 2>/dev/null | while IFS=: read -r name _ gid members; do
	printf '%s%s:{"gid":%s,"members":%s}' "$sep" "$(json "$name")" "$(json "$gid")" "$(json "$members")"
	sep=','
done
printf '}'

printf ',"users":{'
sep=''
pw usershow -a 2>/dev/null | while IFS=: read -r name _ uid gid _ _ _ gecos home shell; do
	printf '%s%s:{"uid":%s,"gid":%s,"comment":%s,"home":%s,"shell":%s,"authorized_keys":%s,"ssh_dir":%s}' "$sep" \
		"$(json "$name")" "$(json "$uid")" "$(json "$gid")" "$(json "$gecos")" "$(json "$home")" "$(json "$shell")" \
		"$(home_path "$name" "$home/.ssh/authorized_keys" "$home/.ssh")" "$(home_path "$name" "$home/.ssh" "$home/.ssh")"
	sep=','
done
printf '}'

printf ',"files":{'
sep=''
{
	printf '%s\n' /usr/local/etc/sudoers.d/beryl /etc/resolvconf.conf /etc/resolv.conf /etc/ssh/sshd_config
	ids file
	ids secret
} | sort -u | while IFS= read -r f; do
	printf '%s%s:%s' "$sep" "$(json "$f")" "$(file "$f")"
	sep=','
done
printf '}'

# The services of freebsd.services: whether `service NAME onestatus` exits 0
# (rc.subr's run_rc_command: "is running as pid", else "is not running." and
# 1). Names are rc.d script names (letters, digits, `_`).
printf ',"services":{'
sep=''
ids service | while IFS= read -r s; do
	if service "$s" onestatus </dev/null >/dev/null 2>&1; then r=true; else r=false; fi
	printf '%s%s:{"running":%s}' "$sep" "$(json "$s")" "$r"
	sep=','
done
printf '}'

# The defaults and rc.conf's files together, as sysrc reads them.
printf ',"rc_conf":%s' "$(sysrc -A 2>/dev/null | vars)"

# Each rc.conf.d file: what it sets for its script (rc.subr, load_rc_config).
printf ',"rc_conf_d":{'
sep=''
for f in /etc/rc.conf.d/* /usr/local/etc/rc.conf.d/*; do
	[ -f "$f" ] || continue
	printf '%s%s:%s' "$sep" "$(json "$f")" "$(sysrc -f "$f" -a 2>/dev/null | vars)"
	sep=','
done
printf '}'

# Pools and datasets: the imported pools, and each dataset the config names
# or the record holds (ids zfs) with the properties beryl manages (`zfs get
# -H -p`: values in bytes, the source `local` when set on the dataset
# itself), or null when absent.
zfs_props=compression,recordsize,atime,relatime,mountpoint,canmount,quota,refquota,reservation,refreservation,exec,setuid,readonly,sync,logbias,primarycache,secondarycache,copies,snapdir
printf ',"zpools":['
sep=''
for p in $(zpool list -H -o name 2>/dev/null); do
	printf '%s%s' "$sep" "$(json "$p")"
	sep=','
done
printf ']'
printf ',"zfs":{'
sep=''
for ds in $(ids zfs); do
	printf '%s%s:' "$sep" "$(json "$ds")"
	sep=','
	if ! zfs list -H -o name "$ds" >/dev/null 2>&1; then
		printf 'null'
		continue
	fi
	printf '{"props":{'
	psep=''
	zfs get -H -p -o property,value,source "$zfs_props" "$ds" 2>/dev/null | while IFS='	' read -r prop value source; do
		printf '%s%s:{"value":%s,"source":%s}' "$psep" "$(json "$prop")" "$(json "$value")" "$(json "$source")"
		psep=','
	done
	printf '}}'
done
printf '}'

# The live value of each sysctl beryl sets or set (`ids sysctl`), null for a
# name the kernel does not know; and /etc/sysctl.conf, where they are kept.
printf ',"sysctl":{'
sep=''
for n in $(ids sysctl); do
	if v=$(sysctl -n "$n" 2>/dev/null); then
		v=$(json "$v")
	else
		v=null
	fi
	printf '%s%s:%s' "$sep" "$(json "$n")" "$v"
	sep=','
done
printf '}'
printf ',"sysctl_conf":%s' "$(file /etc/sysctl.conf)"

# What /boot/loader.conf sets, as sysrc reads it (the file only).
if [ -f /boot/loader.conf ]; then
	printf ',"loader_conf":%s' "$(sysrc -f /boot/loader.conf -a 2>/dev/null | vars)"
else
	printf ',"loader_conf":{}'
fi

# beryl's cron files (`ids cron`), by entry name, in the drop-in directory
# of every release beryl knows (src/freebsd/cron.rs).
printf ',"cron":{'
sep=''
for n in $(ids cron); do
	printf '%s%s:%s' "$sep" "$(json "$n")" "$(file "/usr/local/etc/cron.d/beryl-$n")"
	sep=','
done
printf '}'

# The host's jails (issue 36, docs/jails.md "Facts"), by name: each jail
# beryl's config names or its record holds (`ids jail`: `NAME DATASET`),
# each running jail (jls.c @2d614aa2: `jls name` lists them, `jls -j NAME
# jid` exits 1 when absent) and each /etc/jail.conf.d/*.conf. Beryl's own:
# whether it runs, its jid and path, its conf and fstab as `file` reads
# them, the live parameters the `jail` step compares (`ids jail_live`:
# `NAME P…`), printed as `jls -j NAME -n P` prints them, beryl's start
# digests (/var/db/beryl/jails, root's) and the dataset's `beryl:base`.
# The others only as the report of jails beryl did not make needs them:
# running (jid, path) or not, and whether the conf is a plain file (a link
# is never followed, no conf read). A child jail (`PARENT.CHILD`:
# kern_jail.c kern_jail_set, index id 91939068, names a child after its
# parent) is its parent's business and left out. Nothing is read inside a
# jail's tree. A plain name (letters, digits, `_`, `-`) is printed without
# a process, so 10,000 confs cost no 10,000 processes.
jail_conf_d=/etc/jail.conf.d
jail_state_d=/var/db/beryl/jails
jname() {
	case $1 in
	'' | *[!A-Za-z0-9_-]*) json "$1" ;;
	*) printf '"%s"' "$1" ;;
	esac
}
jails() {
	_mine=$(ids jail)
	_names=$(printf '%s\n' "$_mine" | sed 's/ .*//')
	_running=$(jls name 2>/dev/null | grep -v '\.')
	_live=$(ids jail_live)
	printf ',"jails":{'
	_sep=''
	{
		printf '%s\n%s\n' "$_names" "$_running"
		for _f in "$jail_conf_d"/*.conf; do
			{ [ -e "$_f" ] || [ -L "$_f" ]; } || continue
			_n=${_f##*/}
			printf '%s\n' "${_n%.conf}"
		done
	} | sed '/^$/d' | sort -u | while IFS= read -r _n; do
		printf '%s%s:{' "$_sep" "$(jname "$_n")"
		_sep=','
		_c="$jail_conf_d/$_n.conf"
		case "
$_running
" in
		*"
$_n
"*)
			_up=1
			printf '"running":true,"jid":%s,"path":%s' "$(json "$(jls -j "$_n" jid 2>/dev/null)")" \
				"$(json "$(jls -j "$_n" path 2>/dev/null)")"
			;;
		*)
			_up=''
			printf '"running":false'
			;;
		esac
		case "
$_names
" in
		*"
$_n
"*) ;;
		*)
			# Not beryl's: whether a conf is there, and what stands there.
			if [ -L "$_c" ]; then
				printf ',"conf":{"type":"link","mode":"","owner":"","group":""}'
			elif [ -f "$_c" ]; then
				printf ',"conf":{"mode":"","owner":"","group":""}'
			fi
			printf '}'
			continue
			;;
		esac
		printf ',"conf":%s,"fstab":%s' "$(file "$_c")" "$(file "/etc/fstab.$_n")"
		jail_digest started "$jail_state_d/$_n.start"
		jail_digest pending "$jail_state_d/$_n.pending"
		_ds=$(printf '%s\n' "$_mine" | awk -v n="$_n" '$1 == n && NF > 1 { sub(/^[^ ]* /, ""); print; exit }')
		if [ -n "$_ds" ]; then
			printf ',"base":%s' "$(json "$(zfs get -H -o value beryl:base "$_ds" 2>/dev/null)")"
		fi
		# The directories above its tree (src/resource/jail.rs PRIVATE): the
		# running root's parent and the jails' directory, as `stat -f '%Su
		# %Lp'` prints them (lstat: a link is not a directory of root's).
		printf ',"dirs":{'
		_dsep=''
		_seen=''
		for _d in ${_up:+"$(jls -j "$_n" path 2>/dev/null)"} /usr/local/jails/_; do
			_d=${_d%/*}
			[ -n "$_d" ] || _d=/
			[ "$_d" != "$_seen" ] || continue
			_seen=$_d
			printf '%s%s:%s' "$_dsep" "$(json "$_d")" "$(json "$(stat -f '%Su %Lp' "$_d" 2>/dev/null)")"
			_dsep=','
		done
		printf '}'
		printf ',"params":{'
		if [ -n "$_up" ]; then
			_psep=''
			set -f
			# shellcheck disable=SC2046 # parameter names: split, never globbed
			set -- $(printf '%s\n' "$_live" | awk -v n="$_n" '$1 == n { $1 = ""; print; exit }')
			set +f
			for _p in "$@"; do
				printf '%s%s:%s' "$_psep" "$(json "$_p")" "$(json "$(jls -j "$_n" -n "$_p" 2>/dev/null)")"
				_psep=','
			done
		fi
		printf '}}'
	done
	printf '}'
}
# jail_digest KEY FILE: beryl's digest in FILE (a plain file: root's
# directory, no link followed), as `"KEY":…`; nothing when absent.
jail_digest() {
	if [ -f "$2" ] && [ ! -L "$2" ]; then
		printf ',"%s":%s' "$1" "$(json "$(cat "$2" 2>/dev/null)")"
	fi
}
jails

# What beryl created on this host: its record, `KIND ID` lines.
printf ',"managed":['
sep=''
if [ -f "$record" ]; then
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		printf '%s[%s,%s]' "$sep" "$(json "${line%% *}")" "$(json "${line#* }")"
		sep=','
	done < "$record"
fi
printf ']'

# The host's SSH host key, its public half: a file of secrets for this host
# is wrapped to it (docs/secrets.md §2, `beryl secrets host-keys`). rc.d/sshd
# makes it at sshd's first start (libexec/rc/rc.d/sshd @6d13bb0e,
# sshd_keygen_alg: /etc/ssh/ssh_host_ed25519_key, `sshd_ed25519_enable`
# defaults to yes). /etc/ssh is root's; a link, or anything but a regular
# file, is not read. Its first line, at most 1 KiB.
hk=/etc/ssh/ssh_host_ed25519_key.pub
if [ -f "$hk" ] && [ ! -L "$hk" ]; then
	printf ',"host_key":%s' "$(json "$(head -c 1024 "$hk" | head -n 1)")"
else
	printf ',"host_key":null'
fi

# root's password field: `*` when locked; otherwise only a digest of it,
# or `secret` when the desired hash is a secret (`ids secret`).
pw=$(awk -F: '$1 == "root" { print $2 }' /etc/master.passwd 2>/dev/null)
if [ "$pw" = '*' ]; then
	printf ',"root_password":"*"'
elif ids secret | grep -Fqx root_password; then
	# A secret hash: no digest of it either.
	printf ',"root_password":"secret"'
else
	printf ',"root_password":%s' "$(json "sha256:$(printf '%s' "$pw" | sha256)")"
fi
printf '}\n'
