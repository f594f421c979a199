#!/bin/sh
# beryl facts: writes a JSON snapshot of this FreeBSD host's state on stdout,
# for `beryl apply HOST --dry-run --state FILE`. Read-only; FreeBSD base tools
# only (pkg, pw, stat, sha256, sysrc). BERYL_ROOT (empty) prefixes file paths.
# The format is documented in docs/apply.md.
set -u
BERYL_ROOT="${BERYL_ROOT:-}"

# A JSON string: backslash, quote and control characters escaped, character
# by character (awks differ on backslashes in gsub replacements). awk does
# not see a final newline, so the shell tells it whether there is one.
json() {
	case $1 in
	*'
') nl=1 ;;
	*) nl=0 ;;
	esac
	printf '%s' "$1" | awk -v nl="$nl" '
		BEGIN {
			ORS = ""
			for (i = 1; i < 32; i++) ctl[sprintf("%c", i)] = sprintf("\\u%04x", i)
			ctl["\t"] = "\\t"; ctl["\r"] = "\\r"; ctl["\\"] = "\\\\"; ctl["\""] = "\\\""
			printf "\""
		}
		NR > 1 { printf "\\n" }
		{
			n = length($0)
			for (i = 1; i <= n; i++) {
				c = substr($0, i, 1)
				printf "%s", ((c in ctl) ? ctl[c] : c)
			}
		}
		END { if (nl) printf "\\n"; printf "\"" }'
}

# A directory: mode and owner, or null.
dir() {
	d="$BERYL_ROOT$1"
	if [ -d "$d" ]; then
		printf '{"mode":%s,"owner":%s}' "$(json "$(stat -f '%Lp' "$d")")" "$(json "$(stat -f '%Su' "$d")")"
	else
		printf 'null'
	fi
}

# A managed file: sha256, mode, owner, group and content, or null.
file() {
	f="$BERYL_ROOT$1"
	if [ -f "$f" ]; then
		# Keep trailing newlines: the command substitution would drop them.
		c=$(cat "$f"; printf x)
		c=${c%x}
		printf '{"sha256":%s,"mode":%s,"owner":%s,"group":%s,"content":%s}' \
			"$(json "$(sha256 -q "$f")")" \
			"$(json "$(stat -f '%Lp' "$f")")" \
			"$(json "$(stat -f '%Su' "$f")")" \
			"$(json "$(stat -f '%Sg' "$f")")" \
			"$(json "$c")"
	else
		printf 'null'
	fi
}

printf '{"format_version":1'
printf ',"hostname":%s' "$(json "$(sysrc -f "$BERYL_ROOT"/etc/rc.conf -n hostname 2>/dev/null || true)")"
printf ',"timezone":%s' "$(json "$(cat "$BERYL_ROOT"/var/db/zoneinfo 2>/dev/null || true)")"

printf ',"packages":['
sep=''
for p in $(pkg query '%n' 2>/dev/null | sort); do
	printf '%s%s' "$sep" "$(json "$p")"
	sep=','
done
printf ']'

# Origins too: a package named by origin (databases/postgresql16-server) is
# checked by origin.
printf ',"origins":['
sep=''
for o in $(pkg query '%o' 2>/dev/null | sort); do
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
		"$(file "$home/.ssh/authorized_keys")" "$(dir "$home/.ssh")"
	sep=','
done
printf '}'

printf ',"files":{"/usr/local/etc/sudoers.d/beryl":%s}' "$(file /usr/local/etc/sudoers.d/beryl)"

printf ',"rc_conf":{'
sep=''
sysrc -f "$BERYL_ROOT"/etc/rc.conf -a 2>/dev/null | while IFS= read -r line; do
	name=${line%%: *}
	value=${line#*: }
	printf '%s%s:%s' "$sep" "$(json "$name")" "$(json "$value")"
	sep=','
done
printf '}}\n'
