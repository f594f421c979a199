# FAKEBSD: the jail.conf(5) reader of the jail(8) model (usr/sbin/jail).
# Written from, never copied from:
# - usr.sbin/jail/jaillex.l @086e0149 (index id 343182317): the tokens;
# - usr.sbin/jail/jailparse.y, FreeBSD main as mirrored in
#   Dr-Deep/HardenedBSD-src @401050a4 (index id 59746941540): the grammar,
#   the global pseudo-jail "*", nested blocks named PARENT.CHILD, the error
#   messages of YYERROR_DECL;
# - usr.sbin/jail/config.c, same mirror (index id 60107639879): load_config
#   (name first, then the jail's own parameters and the wildcard sections in
#   file order, variables resolved), add_param (`=` replaces, `+=` appends,
#   name/jid immutable, a variable may not take a parameter's name),
#   equalopts ("no" prefixes), wild_jail_name, wild_jail_match;
# - usr.sbin/jail/jail.c, same mirror (index id 60008187926): print_jail,
#   print_param and quoted_print for `-e`.
#
# Run with the environment JAILCONF_NAME (the file's name for messages) and
# JAILCONF_SEP, or JAILCONF_WANT, as `awk -f jailconf.awk FILE` (ENVIRON,
# not -v, which would read escapes). With JAILCONF_SEP: one line per
# configured non-wildcard jail, as `jail -e SEP` prints. With JAILCONF_WANT:
# every jail is loaded (its warnings printed) and the parameters of that
# one are written one per line, NAME, a tab, the number of values, then
# each value after a tab (a value with a tab or a newline: not modelled);
# status 3 when it is not configured, 2 when it failed to load. With
# JAILCONF_LIST: one line per configured jail, NAME, a tab, its `depend`
# values joined by blanks.
# Warnings go to stderr as jail(8) writes them ("jail: …"). Exit status 1
# after a lexical or syntax error, 70 for what is not modelled, else 0.
#
# NOT modelled: yacc's error recovery (only the first syntax error is
# reported; lexical errors are all reported), `.include` (exit 70), a NUL
# from an escape, wildcard names other than `*` as a whole name (exit 70).

function warn(m) { printf "jail: %s\n", m > "/dev/stderr" }
function notmod(m) { printf "FAKEBSD: jail: %s is not modelled\n", m > "/dev/stderr"; exit 70 }

function isin(c, set) { return c != "" && index(set, c) > 0 }

# Count the newlines of s (the lexer's yylineno).
function nl(s,   n, k) {
	n = 0
	while ((k = index(s, "\n")) > 0) { n++; s = substr(s, k + 1) }
	return n
}

# The end (index after) of a quoted string starting at i (src[i] is q),
# honouring backslash escapes; 0 when there is no closing quote.
function qend(i, q,   k, c) {
	for (k = i + 1; k <= srclen; k++) {
		c = substr(src, k, 1)
		if (c == "\\") { k++; continue }
		if (c == q) return k + 1
	}
	return 0
}

# text2lval: backslash escapes of s; with tovar, stop at an unescaped `$`
# (LVAL_AT is then its index in s, else 0).
function unescape(s, tovar,   out, k, n, c, d, v, m) {
	out = ""; n = length(s); LVAL_AT = 0
	for (k = 1; k <= n; k++) {
		c = substr(s, k, 1)
		if (c != "\\") {
			if (tovar && c == "$") { LVAL_AT = k; return out }
			out = out c
			continue
		}
		k++
		c = substr(s, k, 1)
		if (c >= "0" && c <= "7") {
			v = c + 0
			for (m = 0; m < 2 && k < n && (d = substr(s, k + 1, 1)) >= "0" && d <= "7"; m++) { v = v * 8 + d; k++ }
			out = out sprintf("%c", v)
			continue
		}
		if (c == "a") out = out "\007"
		else if (c == "b") out = out "\b"
		else if (c == "f") out = out "\f"
		else if (c == "n") out = out "\n"
		else if (c == "r") out = out "\r"
		else if (c == "t") out = out "\t"
		else if (c == "v") out = out "\v"
		else if (c == "\n") { }
		else if (c == "x") {
			v = 0
			for (m = 0; m < 2 && k < n && isin(d = substr(s, k + 1, 1), "0123456789abcdefABCDEF"); m++) {
				v = v * 16 + index("0123456789abcdef", tolower(d)) - 1; k++
			}
			out = out sprintf("%c", v)
		} else out = out c
	}
	return out
}

# One token: TT (type: STR STR1 VAR VAR1 PLEQ EOF or the character itself),
# TV (value), TX (the text matched, for messages), line (yylineno after it).
function lex(   c, c2, k, e, t) {
	for (;;) {
		if (pos > srclen) { TT = "EOF"; TV = ""; TX = ""; return }
		c = substr(src, pos, 1); c2 = substr(src, pos, 2)
		if (mode_dq) {
			if (c == "\"") { pos++; mode_dq = 0; continue }
			if (c == "$") { if (lexvar(1)) return; continue }
			if (c == "\\") { lexesc(); return }
			e = qend(pos - 1, "\"")
			if (!e) { mode_dq = 0; continue }
			t = substr(src, pos, e - pos - 1)
			TX = substr(src, pos, e - pos)
			TV = unescape(t, 1)
			if (LVAL_AT) {
				TX = substr(src, pos, LVAL_AT - 1)
				pos += LVAL_AT - 1
			} else {
				pos = e
				mode_dq = 0
			}
			line += nl(TX)
			TT = "STR1"; instr = 1
			return
		}
		if (isin(c, " \t\r\n")) {
			for (k = pos; k <= srclen && isin(substr(src, k, 1), " \t\r\n"); k++) ;
			line += nl(substr(src, pos, k - pos)); pos = k; instr = 0; continue
		}
		if (c == "#" || c2 == "//") {
			k = index(substr(src, pos), "\n")
			pos = k ? pos + k - 1 : srclen + 1; instr = 0; continue
		}
		if (c2 == "/*") {
			k = index(substr(src, pos + 2), "*/")
			if (k) {
				t = substr(src, pos, k + 3); line += nl(t); pos += length(t); instr = 0; continue
			}
			line += nl(substr(src, pos)); pos = srclen + 1
			warn(cfname " line " line ": unterminated comment"); lexerr = 1; continue
		}
		if (c2 == "+=") { pos += 2; TT = "PLEQ"; TX = "+="; instr = 0; return }
		if (isin(c, ",;={}")) { pos++; TT = c; TX = c; instr = 0; return }
		if (isin(c, ATOM)) {
			for (k = pos; k <= srclen && isin(substr(src, k, 1), ATOM); k++) ;
			TX = substr(src, pos, k - pos); TV = TX; pos = k
			strtok(); return
		}
		if (c == "\\") { lexesc(); return }
		if (c == "$") { if (lexvar(0)) return; continue }
		if (isin(c, "*+/")) { pos++; TX = c; TV = c; strtok(); return }
		if (c == "'" || c == "\"") {
			e = qend(pos, c)
			if (!e) {
				k = index(substr(src, pos), "\n")
				pos = k ? pos + k - 1 : srclen + 1
				warn(cfname " line " line ": unterminated string"); lexerr = 1; continue
			}
			TX = substr(src, pos, e - pos)
			t = substr(TX, 2, length(TX) - 2)
			if (c == "'") {
				TV = unescape(t, 0); pos = e
			} else {
				TV = unescape(t, 1)
				if (LVAL_AT) {
					TX = substr(src, pos, LVAL_AT)
					pos += LVAL_AT; mode_dq = 1
				} else pos = e
			}
			line += nl(TX)
			strtok(); return
		}
		# Any other character is a token of its own (a syntax error).
		pos++; TT = c; TX = c; line += nl(c); return
	}
}

function strtok() { TT = instr ? "STR1" : "STR"; instr = 1 }

# A backslash escape as an atom.
function lexesc(   k, c, n) {
	c = substr(src, pos + 1, 1); n = 2
	if (c >= "0" && c <= "7") {
		for (k = pos + 2; k < pos + 4 && (substr(src, k, 1) >= "0" && substr(src, k, 1) <= "7"); k++) n++
	} else if (c == "x") {
		for (k = pos + 2; k < pos + 4 && isin(substr(src, k, 1), "0123456789abcdefABCDEF"); k++) n++
	}
	TX = substr(src, pos, n); TV = unescape(TX, 0); pos += n; line += nl(TX)
	strtok()
}

# $name, ${name} or a lone `$`; 0 when nothing was returned (an error).
function lexvar(indq,   k, c, t) {
	c = substr(src, pos + 1, 1)
	if (c ~ /[A-Za-z_]/) {
		for (k = pos + 1; k <= srclen && substr(src, k, 1) ~ /[A-Za-z_0-9]/; k++) ;
		TX = substr(src, pos, k - pos); TV = substr(TX, 2); pos = k
	} else if (c == "{") {
		for (k = pos + 2; k <= srclen; k++) {
			c = substr(src, k, 1)
			if (c == "\\") { k++; continue }
			if (c == "}" || c == "{" || c == "\n" || (indq && c == "\"")) break
		}
		if (c != "}") {
			TX = substr(src, pos, k - pos); pos = k; line += nl(TX)
			warn(cfname " line " line ": unterminated variable"); lexerr = 1
			return 0
		}
		TX = substr(src, pos, k - pos + 1); TV = unescape(substr(TX, 3, length(TX) - 3), 0)
		pos = k + 1; line += nl(TX)
	} else {
		pos++; TX = "$"; TV = "$"; strtok(); return 1
	}
	TT = instr ? "VAR1" : "VAR"; instr = 1
	return 1
}

function syntax() {
	if (TT == "EOF") warn(cfname ": unexpected EOF")
	else warn(cfname " line " line ": " TX ": syntax error")
	exit 1
}

function add_jail(name) { nj++; JN[nj] = name; NP[nj] = 0; return nj }

# A string: STR or VAR, then STR1/VAR1 pieces. Encoded: literal text with
# each variable as \001NAME\002.
function parse_string(   s) {
	s = (TT == "VAR") ? "\001" TV "\002" : TV
	for (lex(); TT == "STR1" || TT == "VAR1"; lex())
		s = s ((TT == "VAR1") ? "\001" TV "\002" : TV)
	return s
}

# param ';' with the name already read (nametype STR or VAR).
function parse_param(name, nametype, j,   flags, n, vals, m, k) {
	flags = (nametype == "VAR") ? "V" : ""
	n = 0
	if (TT == "=" || TT == "PLEQ" || TT == "STR" || TT == "VAR") {
		if (TT == "PLEQ") flags = flags "A"
		else if (TT == "STR" || TT == "VAR") flags = flags "N"
		if (TT == "=" || TT == "PLEQ") lex()
		if (TT != "STR" && TT != "VAR") syntax()
		vals[++n] = parse_string()
		while (TT == ",") {
			lex()
			if (TT != "STR" && TT != "VAR") syntax()
			vals[++n] = parse_string()
		}
	}
	if (TT != ";") syntax()
	if (flags ~ /N/ && flags !~ /[VA]/ && name == ".include") notmod(".include")
	if (j == 0) {
		if (!global) global = add_jail("*")
		j = global
	}
	m = ++NP[j]
	PN[j, m] = name; PF[j, m] = flags; PV[j, m] = n
	for (k = 1; k <= n; k++) PS[j, m, k] = vals[k]
	lex()
}

function parse_conf(cur,   name, type, nj2) {
	for (;;) {
		if (TT == "EOF") { if (cur) syntax(); return }
		if (TT == "}") { if (cur) return; syntax() }
		if (TT == ";") { lex(); continue }
		if (TT == "STR") {
			name = TV; lex()
			if (TT == "{") {
				nj2 = add_jail(cur ? JN[cur] "." name : name)
				lex()
				parse_conf(nj2)
				lex()
				continue
			}
			parse_param(name, "STR", cur)
			continue
		}
		if (TT == "VAR") { name = TV; lex(); parse_param(name, "VAR", cur); continue }
		syntax()
	}
}

# A `*` that is a whole dot-separated component.
function wild_name(w,   k, n) {
	n = length(w)
	for (k = 1; k <= n; k++)
		if (substr(w, k, 1) == "*" && (k == 1 || substr(w, k - 1, 1) == ".") &&
		    (k == n || substr(w, k + 1, 1) == "."))
			return 1
	return 0
}

function equalopts(a, b,   p, q) {
	if (a == b) return 1
	if (substr(a, 1, 2) == "no" && substr(a, 3) == b) return 1
	if (substr(b, 1, 2) == "no" && a == substr(b, 3)) return 1
	while ((p = index(a, ".")) > 0 && substr(a, 1, p) == substr(b, 1, p)) {
		a = substr(a, p + 1); b = substr(b, p + 1)
		if (substr(a, 1, 2) == "no" && substr(a, 3) == b) return 1
		if (substr(b, 1, 2) == "no" && a == substr(b, 3)) return 1
	}
	return 0
}

function intparam(name,   k) {
	for (k = 1; k <= NINT; k++) if (equalopts(name, INT[k])) return 1
	return 0
}

# add_param into the effective list of jail j (E*), from source (jail s,
# parameter m) or, with s == 0, the parameter `name` with one value.
function add_param(j, s, m, name, value,   flags, n, k, d, vals) {
	if (s) {
		name = PN[s, m]; flags = PF[s, m]; n = PV[s, m]
		for (k = 1; k <= n; k++) vals[k] = PS[s, m, k]
	} else { flags = "A"; n = 1; vals[1] = value }
	for (d = 1; d <= NE; d++) if (equalopts(EN[d], name)) break
	if (d <= NE) {
		if ((flags ~ /V/) != (EF[d] ~ /V/)) {
			warn(JN[j] ": variable \"$" name "\" cannot have the same name as a parameter."); FAILED = 1; return
		}
		if (EN[d] == "name" || EN[d] == "jid") {
			warn(JN[j] ": cannot redefine parameter \"" EN[d] "\"."); FAILED = 1; return
		}
		EN[d] = name
		if (flags !~ /A/ || n == 0) EV[d] = 0
		for (k = 1; k <= n; k++) ES[d, ++EV[d]] = vals[k]
		EF[d] = EF[d] flags
		return
	}
	if (flags ~ /V/ && intparam(name)) {
		warn(JN[j] ": variable \"$" name "\" cannot have the same name as a parameter."); FAILED = 1; return
	}
	d = ++NE
	EN[d] = name; EF[d] = flags; EV[d] = n; EB[d] = 0; ER[d] = 0
	for (k = 1; k <= n; k++) ES[d, k] = vals[k]
}

# Resolve the variables of effective parameter d (0: resolved or bad).
function resolve(j, d,   v, s, a, b, vn, r, k, rest, lit, more, nv, ns) {
	if (ER[d] == 2) return 1
	ER[d] = 1
	for (v = 1; v <= EV[d]; v++) {
		while ((a = index(ES[d, v], "\001")) > 0) {
			s = ES[d, v]
			b = index(s, "\002")
			vn = substr(s, a + 1, b - a - 1)
			rest = substr(s, b + 1)
			for (r = 1; r <= NE; r++) if (EN[r] == vn) break
			if (r > NE || EV[r] == 0) {
				warn(JN[j] ": " EN[d] ": variable \"" vn "\" not found")
				FAILED = 1; EB[d] = 1
				ES[d, v] = substr(s, 1, a - 1) rest
				continue
			}
			if (EB[r]) { FAILED = 1; EB[d] = 1; ES[d, v] = substr(s, 1, a - 1) rest; continue }
			if (ER[r] == 1) {
				warn(JN[j] ": " vn ": variable loop")
				FAILED = 1; EB[d] = 1; ES[d, v] = substr(s, 1, a - 1) rest; continue
			}
			resolve(j, r)
			if (EB[r]) { FAILED = 1; EB[d] = 1; ES[d, v] = substr(s, 1, a - 1) rest; continue }
			lit = s; gsub(/\001[^\002]*\002/, "", lit)
			more = index(rest, "\001") > 0
			if (EV[r] > 1 && (lit != "" || more)) {
				warn(JN[j] ": " EN[d] ": array cannot be substituted inline")
				FAILED = 1; EB[d] = 1; ES[d, v] = substr(s, 1, a - 1) rest; continue
			}
			ES[d, v] = substr(s, 1, a - 1) ES[r, 1] rest
			if (EV[r] > 1) {
				# The other values become strings of their own after this one.
				nv = EV[r] - 1
				for (k = EV[d]; k > v; k--) ES[d, k + nv] = ES[d, k]
				for (k = 2; k <= EV[r]; k++) ES[d, v + k - 1] = ES[r, k]
				EV[d] += nv
			}
		}
	}
	ER[d] = 2
	return 1
}

function load(j,   w, s, did, m, d) {
	NE = 0; FAILED = 0
	if (JN[j] ~ /^[0-9]+$/ && JN[j] + 0 != 0) add_param(j, 0, 0, "jid", JN[j])
	else add_param(j, 0, 0, "name", JN[j])
	did = 0
	for (w = 1; w <= nj; w++) {
		if (!WILD[w]) continue
		if (j < w && !did) { for (m = 1; m <= NP[j]; m++) add_param(j, j, m); did = 1 }
		if (wild_match(JN[j], JN[w])) for (m = 1; m <= NP[w]; m++) add_param(j, w, m)
	}
	if (!did) for (m = 1; m <= NP[j]; m++) add_param(j, j, m)
	for (d = 1; d <= NE; d++) if (EN[d] == "name") break
	if (d > NE) add_param(j, 0, 0, "name", JN[j])
	for (d = 1; d <= NE; d++) resolve(j, d)
}

function wild_match(jn, wn,   jd, wd) {
	for (;;) {
		jd = index(jn, "."); wd = index(wn, ".")
		if (!jd || !wd) break
		if (substr(jn, 1, jd) != substr(wn, 1, wd) && substr(wn, 1, 2) != "*.") return 0
		jn = substr(jn, jd + 1); wn = substr(wn, wd + 1)
	}
	return jn == wn || wn == "*"
}

function quoted(s,   qc, out, k, c) {
	qc = (s == "") ? "\"" : index(s, "'") ? "\"" : index(s, "\"") ? "'" : (index(s, " ") || index(s, "\t")) ? "\"" : ""
	out = qc
	for (k = 1; k <= length(s); k++) {
		c = substr(s, k, 1)
		if (c == "\\" || c == qc) out = out "\\"
		out = out c
	}
	return out qc
}

BEGIN {
	ATOM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_!%&()-.:<>?@[]^`|~"
	NINT = split("allow.dying command depend exec.clean exec.consolelog exec.fib exec.jail_user " \
		"exec.poststart exec.poststop exec.prepare exec.prestart exec.prestop exec.release " \
		"exec.created exec.start exec.stop exec.system_jail_user exec.system_user exec.timeout " \
		"interface ip_hostname mount mount.devfs mount.fdescfs mount.procfs mount.fstab " \
		"stop.timeout vnet.interface zfs.dataset allow.chflags allow.mount allow.raw_sockets " \
		"allow.set_hostname allow.socket_af allow.sysvipc devfs_ruleset host.hostname ip4.addr " \
		"ip6.addr jid name path persist securelevel vnet", INT, " ")
	src = ""
	cfname = ENVIRON["JAILCONF_NAME"]; sep = ENVIRON["JAILCONF_SEP"]
	want = ENVIRON["JAILCONF_WANT"]; list = ENVIRON["JAILCONF_LIST"]
}
{ src = src $0 "\n" }
END {
	srclen = length(src); pos = 1; line = 1; instr = 0; mode_dq = 0
	lex()
	parse_conf(0)
	if (lexerr) exit 1
	for (w = 1; w <= nj; w++) {
		WILD[w] = wild_name(JN[w])
		if (WILD[w] && JN[w] != "*") notmod("the wildcard jail name " JN[w])
	}
	if (list != "") {
		# One line per configured jail in file order: NAME, a tab, its
		# `depend` values joined by blanks (for jail(8)'s state.c model).
		for (j = 1; j <= nj; j++) {
			if (WILD[j]) continue
			load(j)
			out = ""
			for (d = 1; d <= NE; d++) if (EN[d] == "depend" && EF[d] !~ /V/)
				for (v = 1; v <= EV[d]; v++) out = out (out == "" ? "" : " ") ES[d, v]
			printf "%s\t%s\n", JN[j], out
		}
		exit 0
	}
	if (want != "") {
		found = 0; failed = 0; dump = ""
		for (j = 1; j <= nj; j++) {
			if (WILD[j]) continue
			load(j)
			if (JN[j] != want) continue
			found = 1; failed = FAILED
			for (d = 1; d <= NE; d++) if (EF[d] !~ /V/) {
				out = EN[d] "\t" EV[d]
				for (v = 1; v <= EV[d]; v++) {
					if (ES[d, v] ~ /[\t\n]/) notmod("a value with a tab or a newline")
					out = out "\t" ES[d, v]
				}
				dump = dump out "\n"
			}
		}
		if (!found) exit 3
		if (failed) exit 2
		printf "%s", dump
		exit 0
	}
	for (j = 1; j <= nj; j++) {
		if (WILD[j]) continue
		load(j)
		for (d = 1; d <= NE; d++) if (EF[d] !~ /V/ && EN[d] != "jid") {
			out = (out_started ? sep : "") EN[d]
			out_started = 1
			if (EV[d]) {
				out = out "="
				for (v = 1; v <= EV[d]; v++) out = out (v > 1 ? "," : "") quoted(ES[d, v])
			}
			printf "%s", out
		}
		printf "\n"; out_started = 0
	}
	exit 0
}
