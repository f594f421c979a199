# What root may touch on a host where other users have shells (docs/apply.md,
# "What apply trusts on the host"). The same functions serve the apply script
# and the facts script.

# gids USER: the numeric groups USER has, the primary one first and then
# every group that lists USER as a member, comma-separated (`pw usershow`:
# master.passwd's fields; `pw groupshow -a`: group(5) lines).
gids() {
	_pg=$(pw usershow -n "$1" 2>/dev/null | cut -d: -f4) && [ -n "$_pg" ] || return 1
	pw groupshow -a 2>/dev/null | awk -F: -v u="$1" -v p="$_pg" '
		BEGIN { printf "%s", p }
		$3 != p { n = split($4, m, ","); for (i = 1; i <= n; i++) if (m[i] == u) { printf ",%s", $3; break } }'
}

# as_user USER SCRIPT [ARG0 ARG...]: SCRIPT run by /bin/sh as USER, with
# exactly the groups USER has, and nothing more: chroot(8) `-u -g -G` with
# `/` as the new root calls setgroups(2), setgid(2) and setuid(2), then
# execs (usr.sbin/chroot/chroot.c, freebsd/freebsd-src @039ea811). What a
# user can change (a home, a directory the user owns) is read and written
# this way, so that a link the user plants there reaches only what the
# user could reach anyway.
as_user() {
	_u=$1
	shift
	_g=$(gids "$_u") || { printf '%s\n' "no such user: $_u" >&2; return 1; }
	chroot -u "$_u" -g "${_g%%,*}" -G "$_g" / /bin/sh -c "$@"
}

# trusted_dir DIR OWNER: whether root may write in DIR without following
# anything a user planted. Each existing component of DIR, from /, must be a
# directory that is not a symbolic link (test -L; stat(1) without -L reports
# on a link itself: usr.bin/stat/stat.c @3524148a) and that only root can
# write: owned by root, no group or other write bit (stat -f '%Su %Lp').
# DIR itself may instead belong to OWNER (`*`: to anyone) when no one else
# can write it. Prints `root` (DIR may be missing: root creates it) or
# `owner`; else says why on standard error and fails.
trusted_dir() {
	_rest=${1#/}
	_d=/
	_who=root
	while :; do
		if [ -L "$_d" ]; then
			printf '%s\n' "$_d is a symbolic link: not followed" >&2
			return 1
		fi
		[ -e "$_d" ] || break
		if [ ! -d "$_d" ]; then
			printf '%s\n' "$_d is not a directory" >&2
			return 1
		fi
		_s=$(stat -f '%Su %Lp' "$_d") || return 1
		_o=${_s% *}
		# The permission bits' three digits (%Lp is st_mode & 0777 and
		# prints 750, 55, 0; the set-id digit does not matter here):
		# group, other.
		_m=$(printf '%03d' "${_s#* }")
		_w=''
		case $_m in
		?[2367]? | ??[2367]) _w='others than ' ;;
		esac
		if [ "$_o" != root ] || [ -n "$_w" ]; then
			if [ -n "$_rest" ] || { [ "$2" != '*' ] && { [ "$_o" != "$2" ] || [ -n "$_w" ]; }; }; then
				printf '%s\n' "$_d can be written by $_w$_o: not trusted" >&2
				return 1
			fi
			_who=owner
		fi
		[ -n "$_rest" ] || break
		_c=${_rest%%/*}
		case $_rest in
		*/*) _rest=${_rest#*/} ;;
		*) _rest='' ;;
		esac
		case $_c in
		'') ;;
		*) _d=${_d%/}/$_c ;;
		esac
	done
	printf '%s\n' "$_who"
}

# peek PATH: a script that says what PATH is, without following it if it
# is a link: a line `none`, `link MODE OWNER GROUP`, `dir MODE OWNER GROUP`,
# or `file MODE OWNER GROUP SHA256` followed by the file's bytes. MODE has
# four digits, `%Mp%03Lp` (1777, 4755, 0644): `%Lp` alone is `st_mode &
# 0777` and drops the set-id and sticky digit (usr.bin/stat/stat.c
# @3524148a, format1). Run it as the user who may change PATH (as_user), or
# as root where only root can (trusted_dir).
# shellcheck disable=SC2016,SC2034
peek='f=$1
if [ -L "$f" ]; then
	printf "link %s\n" "$(stat -f "%Mp%03Lp %Su %Sg" "$f")"
elif [ -f "$f" ]; then
	printf "file %s %s\n" "$(stat -f "%Mp%03Lp %Su %Sg" "$f")" "$(sha256 -q "$f")" && cat "$f"
elif [ -d "$f" ]; then
	printf "dir %s\n" "$(stat -f "%Mp%03Lp %Su %Sg" "$f")"
else
	printf "%s\n" none
fi'

# rm_file PATH: remove PATH when it is a regular file, not a link, in a
# directory whose path has no link and whose parents only root can write;
# the directory itself may be anyone's, since rm(1) removes the name and
# follows nothing. Else says why and fails.
rm_file() {
	_d=${1%/*}
	_d=${_d:-/}
	trusted_dir "$_d" '*' >/dev/null || return 1
	if [ -L "$1" ]; then
		printf '%s\n' "$1 is a symbolic link: not removed" >&2
		return 1
	fi
	if [ ! -f "$1" ]; then
		printf '%s\n' "$1 is not a regular file: not removed" >&2
		return 1
	fi
	(cd -P -- "$_d" && [ "$(pwd -P)" = "$_d" ] && rm -f -- "${1##*/}")
}
