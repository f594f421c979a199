#!/bin/sh
# beryl facts: writes a JSON snapshot of this FreeBSD host's state on stdout,
# for `beryl apply HOST --dry-run --state FILE`. Read-only; FreeBSD base tools
# only (pkg, pw, stat, sha256, sysrc). BERYL_ROOT (empty) prefixes file paths.
# The format is documented in docs/apply.md.
set -u
BERYL_ROOT="${BERYL_ROOT:-}"

# A JSON string: backslash, quote and control characters escaped.
json() {
	printf '%s' "$1" | awk 'BEGIN { ORS = ""; printf "\"" }
		NR > 1 { printf "\\n" }
		{ gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); gsub(/\t/, "\\t"); gsub(/\r/, "\\r"); printf "%s", $0 }
		END { printf "\"" }'
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
	printf '%s%s:{"uid":%s,"gid":%s,"comment":%s,"home":%s,"shell":%s,"authorized_keys":%s}' "$sep" \
		"$(json "$name")" "$(json "$uid")" "$(json "$gid")" "$(json "$gecos")" "$(json "$home")" "$(json "$shell")" \
		"$(file "$home/.ssh/authorized_keys")"
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
