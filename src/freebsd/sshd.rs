//! The keywords of sshd_config(5), as sshd reads them: the `keywords[]`
//! table of OpenSSH's `servconf.c`, read at openssh/openssh-portable tag
//! `V_10_0_P2` (the file at commit cb99e8eb, `$OpenBSD: servconf.c,v 1.425`),
//! the OpenSSH that FreeBSD 15 imports into `crypto/openssh`. Each row is one
//! `{ "name", opcode, flags }` entry: its name (sshd compares names with
//! strcasecmp, `parse_token`), whether `SSHCFG_MATCH` is in its flags (a
//! keyword without it is refused inside a `Match` block: "Directive '%s' is
//! not allowed within a Match block", `process_server_config_line_depth`),
//! and what its opcode makes of it ([`Status`]). 126 rows: every entry, the
//! `#else` branches of `#ifdef USE_PAM`, `KRB5`, `GSSAPI` and
//! `DISABLE_LASTLOG` counted once (as [`Status::Build`]).
//!
//! FreeBSD adds keywords of its own to its copy of servconf.c
//! (`crypto/openssh/servconf.c`): [`FREEBSD`]. The keywords of older
//! OpenSSH releases that 10.0 no longer knows are not here (refused, as
//! sshd 10.0 refuses them). A keyword newer than the sshd of an older
//! release is caught on the host: apply and the install run `sshd -t -f` on
//! the new file before it replaces the old one.
//!
//! The `Match` criteria are [`CRITERIA`], from `match_cfg_line` of the same
//! file.

/// What sshd does with a keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Read and used.
    Known,
    /// Read and used when sshd was built with the feature named (the `#ifdef`
    /// around the row); otherwise logged as "Unsupported option" and
    /// ignored.
    Build(&'static str),
    /// Another name of the keyword named (same opcode, listed after it).
    Alias(&'static str),
    /// `sDeprecated` or `sIgnore`: logged as "Deprecated option" and ignored.
    Deprecated,
    /// `sUnsupported` in every build: logged as "Unsupported option" and
    /// ignored.
    Unsupported,
    /// Read and used by FreeBSD's sshd only: a row FreeBSD adds to its copy
    /// of servconf.c ([`FREEBSD`]); another sshd calls it a bad option.
    FreeBsd,
}

/// One keyword of sshd_config.
#[derive(Debug)]
pub(crate) struct Keyword {
    /// The name, lower-case, as servconf.c spells it.
    pub name: &'static str,
    /// Whether it is allowed inside a `Match` block (`SSHCFG_MATCH`).
    pub in_match: bool,
    /// What sshd does with it.
    pub status: Status,
}

const fn kw(name: &'static str, in_match: bool, status: Status) -> Keyword {
    Keyword {
        name,
        in_match,
        status,
    }
}

/// The keywords, in servconf.c's order.
pub(crate) const KEYWORDS: &[Keyword] = &[
    kw("usepam", false, Status::Build("USE_PAM")),
    kw("pamservicename", true, Status::Build("USE_PAM")),
    kw("pamauthenticationviakbdint", false, Status::Deprecated),
    kw("port", false, Status::Known),
    kw("hostkey", false, Status::Known),
    kw("hostdsakey", false, Status::Alias("hostkey")),
    kw("hostkeyagent", false, Status::Known),
    kw("pidfile", false, Status::Known),
    kw("modulifile", false, Status::Known),
    kw("serverkeybits", false, Status::Deprecated),
    kw("logingracetime", false, Status::Known),
    kw("keyregenerationinterval", false, Status::Deprecated),
    kw("permitrootlogin", true, Status::Known),
    kw("syslogfacility", false, Status::Known),
    kw("loglevel", true, Status::Known),
    kw("logverbose", true, Status::Known),
    kw("rhostsauthentication", false, Status::Deprecated),
    kw("rhostsrsaauthentication", true, Status::Deprecated),
    kw("hostbasedauthentication", true, Status::Known),
    kw("hostbasedusesnamefrompacketonly", true, Status::Known),
    kw("hostbasedacceptedalgorithms", true, Status::Known),
    kw(
        "hostbasedacceptedkeytypes",
        true,
        Status::Alias("hostbasedacceptedalgorithms"),
    ),
    kw("hostkeyalgorithms", false, Status::Known),
    kw("rsaauthentication", true, Status::Deprecated),
    kw("pubkeyauthentication", true, Status::Known),
    kw("pubkeyacceptedalgorithms", true, Status::Known),
    kw(
        "pubkeyacceptedkeytypes",
        true,
        Status::Alias("pubkeyacceptedalgorithms"),
    ),
    kw("pubkeyauthoptions", true, Status::Known),
    kw(
        "dsaauthentication",
        false,
        Status::Alias("pubkeyauthentication"),
    ),
    kw("kerberosauthentication", true, Status::Build("KRB5")),
    kw("kerberosorlocalpasswd", false, Status::Build("KRB5")),
    kw("kerberosticketcleanup", false, Status::Build("KRB5")),
    kw(
        "kerberosgetafstoken",
        false,
        Status::Build("KRB5 && USE_AFS"),
    ),
    kw("kerberostgtpassing", false, Status::Unsupported),
    kw("afstokenpassing", false, Status::Unsupported),
    kw("gssapiauthentication", true, Status::Build("GSSAPI")),
    kw("gssapicleanupcredentials", false, Status::Build("GSSAPI")),
    kw("gssapistrictacceptorcheck", false, Status::Build("GSSAPI")),
    kw("passwordauthentication", true, Status::Known),
    kw("kbdinteractiveauthentication", true, Status::Known),
    kw(
        "challengeresponseauthentication",
        true,
        Status::Alias("kbdinteractiveauthentication"),
    ),
    kw(
        "skeyauthentication",
        true,
        Status::Alias("kbdinteractiveauthentication"),
    ),
    kw("checkmail", false, Status::Deprecated),
    kw("listenaddress", false, Status::Known),
    kw("addressfamily", false, Status::Known),
    kw("printmotd", false, Status::Known),
    kw("printlastlog", false, Status::Build("!DISABLE_LASTLOG")),
    kw("ignorerhosts", true, Status::Known),
    kw("ignoreuserknownhosts", false, Status::Known),
    kw("x11forwarding", true, Status::Known),
    kw("x11displayoffset", true, Status::Known),
    kw("x11uselocalhost", true, Status::Known),
    kw("xauthlocation", false, Status::Known),
    kw("strictmodes", false, Status::Known),
    kw("permitemptypasswords", true, Status::Known),
    kw("permituserenvironment", false, Status::Known),
    kw("uselogin", false, Status::Deprecated),
    kw("compression", false, Status::Known),
    kw("rekeylimit", true, Status::Known),
    kw("tcpkeepalive", false, Status::Known),
    kw("keepalive", false, Status::Alias("tcpkeepalive")),
    kw("allowtcpforwarding", true, Status::Known),
    kw("allowagentforwarding", true, Status::Known),
    kw("allowusers", true, Status::Known),
    kw("denyusers", true, Status::Known),
    kw("allowgroups", true, Status::Known),
    kw("denygroups", true, Status::Known),
    kw("ciphers", false, Status::Known),
    kw("macs", false, Status::Known),
    kw("protocol", false, Status::Deprecated),
    kw("gatewayports", true, Status::Known),
    kw("subsystem", true, Status::Known),
    kw("maxstartups", false, Status::Known),
    kw("persourcemaxstartups", false, Status::Known),
    kw("persourcenetblocksize", false, Status::Known),
    kw("persourcepenalties", false, Status::Known),
    kw("persourcepenaltyexemptlist", false, Status::Known),
    kw("maxauthtries", true, Status::Known),
    kw("maxsessions", true, Status::Known),
    kw("banner", true, Status::Known),
    kw("usedns", false, Status::Known),
    kw("verifyreversemapping", false, Status::Deprecated),
    kw("reversemappingcheck", false, Status::Deprecated),
    kw("clientaliveinterval", true, Status::Known),
    kw("clientalivecountmax", true, Status::Known),
    kw("authorizedkeysfile", true, Status::Known),
    kw("authorizedkeysfile2", true, Status::Deprecated),
    kw("useprivilegeseparation", false, Status::Deprecated),
    kw("acceptenv", true, Status::Known),
    kw("setenv", true, Status::Known),
    kw("permittunnel", true, Status::Known),
    kw("permittty", true, Status::Known),
    kw("permituserrc", true, Status::Known),
    kw("match", true, Status::Known),
    kw("permitopen", true, Status::Known),
    kw("permitlisten", true, Status::Known),
    kw("forcecommand", true, Status::Known),
    kw("chrootdirectory", true, Status::Known),
    kw("hostcertificate", false, Status::Known),
    kw("revokedkeys", true, Status::Known),
    kw("trustedusercakeys", true, Status::Known),
    kw("authorizedprincipalsfile", true, Status::Known),
    kw("kexalgorithms", false, Status::Known),
    kw("include", true, Status::Known),
    kw("ipqos", true, Status::Known),
    kw("authorizedkeyscommand", true, Status::Known),
    kw("authorizedkeyscommanduser", true, Status::Known),
    kw("authorizedprincipalscommand", true, Status::Known),
    kw("authorizedprincipalscommanduser", true, Status::Known),
    kw("versionaddendum", false, Status::Known),
    kw("authenticationmethods", true, Status::Known),
    kw("streamlocalbindmask", true, Status::Known),
    kw("streamlocalbindunlink", true, Status::Known),
    kw("allowstreamlocalforwarding", true, Status::Known),
    kw("fingerprinthash", false, Status::Known),
    kw("disableforwarding", true, Status::Known),
    kw("exposeauthinfo", true, Status::Known),
    kw("rdomain", true, Status::Known),
    kw("casignaturealgorithms", true, Status::Known),
    kw("securitykeyprovider", false, Status::Known),
    kw("requiredrsasize", true, Status::Known),
    kw("channeltimeout", true, Status::Known),
    kw("unusedconnectiontimeout", true, Status::Known),
    kw("sshdsessionpath", false, Status::Known),
    kw("sshdauthpath", false, Status::Known),
    kw("refuseconnection", true, Status::Known),
];

/// The rows FreeBSD adds to `keywords[]` in its own copy of servconf.c,
/// read in freebsd/freebsd-src `crypto/openssh/servconf.c` (the search
/// index's copy id 35540053, `$OpenBSD: servconf.c,v 1.392`, no commit
/// reported): `{ "useblacklist", sUseBlacklist, SSHCFG_GLOBAL }` and `{
/// "useblocklist", sUseBlacklist, SSHCFG_GLOBAL }, /* alias */`, a flag
/// (`parse_flag`) that makes sshd report failed logins to blocklistd.
/// FreeBSD has since renamed the feature: `crypto/openssh/blocklist.c` at
/// 0dcfecbf reads `options.use_blocklist`, so which name is the other's
/// alias may have turned; both are read in both, and beryl takes either
/// (neither is refused as an old name). Neither is allowed in a Match
/// block.
pub(crate) const FREEBSD: &[Keyword] = &[
    kw("useblacklist", false, Status::FreeBsd),
    kw("useblocklist", false, Status::FreeBsd),
];

/// Every keyword FreeBSD's sshd knows: OpenSSH's, then FreeBSD's own.
pub(crate) fn all() -> impl Iterator<Item = &'static Keyword> {
    KEYWORDS.iter().chain(FREEBSD)
}

/// The keyword spelled `word`, in any case (sshd's strcasecmp).
pub(crate) fn find(word: &str) -> Option<&'static Keyword> {
    all().find(|k| k.name.eq_ignore_ascii_case(word))
}

/// One `Match` criterion of `match_cfg_line`: its name (compared with
/// strcasecmp) and whether it takes an argument (`all` and `invalid-user`
/// take none; the others take one, after a blank or, in 10.0, after `=`).
#[derive(Debug)]
pub(crate) struct Criterion {
    pub name: &'static str,
    pub argument: bool,
}

/// The criteria of `match_cfg_line` (servconf.c, V_10_0_P2).
pub(crate) const CRITERIA: &[Criterion] = &[
    Criterion {
        name: "all",
        argument: false,
    },
    Criterion {
        name: "invalid-user",
        argument: false,
    },
    Criterion {
        name: "user",
        argument: true,
    },
    Criterion {
        name: "group",
        argument: true,
    },
    Criterion {
        name: "host",
        argument: true,
    },
    Criterion {
        name: "address",
        argument: true,
    },
    Criterion {
        name: "localaddress",
        argument: true,
    },
    Criterion {
        name: "localport",
        argument: true,
    },
    Criterion {
        name: "rdomain",
        argument: true,
    },
    Criterion {
        name: "version",
        argument: true,
    },
];

/// A value beryl writes after a keyword, on one line and unquoted: sshd
/// splits the rest of the line into words (`argv_split`, which reads `"`,
/// `'` and `\` as quoting and a word starting with `#` as the start of a
/// comment), so a value holding one of those, a control character, or
/// blanks at either end would not be read as written.
pub(crate) fn value(s: &str) -> Result<(), String> {
    if s.trim().is_empty() {
        return Err("the value is empty".into());
    }
    if s.trim() != s {
        return Err("the value starts or ends with a blank".into());
    }
    if let Some(c) = s.chars().find(|c| c.is_control()) {
        return Err(format!(
            "{} is not allowed in a value",
            super::names::quote(&c.to_string())
        ));
    }
    if let Some(c) = s.chars().find(|c| matches!(c, '"' | '\'' | '\\' | '#')) {
        return Err(format!("`{c}` is not allowed in a value"));
    }
    Ok(())
}

/// What follows `Match`: criteria as `match_cfg_line` reads them. `all`
/// alone, or pairs of a criterion and its pattern list (`User alice,bob`,
/// or `User=alice,bob`), each criterion of [`CRITERIA`].
pub(crate) fn criteria(s: &str) -> Result<(), String> {
    value(s)?;
    let mut words = s.split([' ', '\t']).filter(|w| !w.is_empty()).peekable();
    let mut count = 0;
    while let Some(word) = words.next() {
        count += 1;
        let (name, inline) = match word.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (word, None),
        };
        let Some(c) = CRITERIA.iter().find(|c| c.name.eq_ignore_ascii_case(name)) else {
            let names: Vec<&str> = CRITERIA.iter().map(|c| c.name).collect();
            return Err(format!(
                "`{name}` is not a Match criterion ({})",
                names.join(", ")
            ));
        };
        if c.name == "all" && (count > 1 || words.peek().is_some()) {
            return Err("`all` cannot be combined with other criteria".into());
        }
        if !c.argument {
            continue;
        }
        let has = match inline {
            Some(v) => !v.is_empty(),
            None => words.next().is_some(),
        };
        if !has {
            return Err(format!(
                "`{name}` needs a pattern, such as `{name} PATTERN`"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_what_servconf_c_says() {
        assert_eq!(KEYWORDS.len(), 126);
        let k = find("AllowGroups").unwrap();
        assert!(k.in_match);
        assert_eq!(k.status, Status::Known);
        assert!(!find("port").unwrap().in_match);
        assert_eq!(find("UsePAM").unwrap().status, Status::Build("USE_PAM"));
        assert_eq!(find("protocol").unwrap().status, Status::Deprecated);
        assert_eq!(find("afstokenpassing").unwrap().status, Status::Unsupported);
        assert_eq!(
            find("ChallengeResponseAuthentication").unwrap().status,
            Status::Alias("kbdinteractiveauthentication")
        );
        assert!(find("NoSuchKeyword").is_none());
        assert_eq!(find("UseBlocklist").unwrap().status, Status::FreeBsd);
        assert!(!find("UseBlacklist").unwrap().in_match);
        // Every alias names a row that is itself read.
        for k in all() {
            if let Status::Alias(of) = k.status {
                assert!(
                    matches!(find(of).unwrap().status, Status::Known),
                    "{}",
                    k.name
                );
            }
            assert_eq!(k.name, k.name.to_ascii_lowercase());
        }
    }

    /// The fake FreeBSD's model of `sshd -t` knows the same keywords, with
    /// the same flags and statuses (the model is held to the real sshd by
    /// tests/integration/sshd_config.rs).
    #[test]
    fn the_model_of_sshd_t_has_this_table() {
        let text = include_str!("../../tests/fakebsd/target/usr/sbin/sshd");
        let list = text.split("KEYWORDS='").nth(1).unwrap();
        let list = list.split('\'').next().unwrap();
        let model: Vec<String> = list.split_whitespace().map(str::to_string).collect();
        let table: Vec<String> = all()
            .map(|k| {
                let status = match k.status {
                    Status::Known | Status::Alias(_) => "K",
                    Status::Build(_) => "B",
                    Status::FreeBsd => "F",
                    Status::Deprecated if k.name == "protocol" => "I",
                    Status::Deprecated => "D",
                    Status::Unsupported => "U",
                };
                format!("{}:{}{status}", k.name, if k.in_match { "A" } else { "G" })
            })
            .collect();
        assert_eq!(model, table);
    }

    #[test]
    fn values_and_criteria() {
        assert!(value("wheel staff").is_ok());
        for bad in ["", " x", "a\"b", "a#b", "a\\b", "a'b", "a\nb"] {
            assert!(value(bad).is_err(), "{bad:?}");
        }
        for good in [
            "all",
            "Group sftponly",
            "User alice,bob Address 192.0.2.0/24",
            "user=alice",
            "invalid-user",
        ] {
            assert!(criteria(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "all User a",
            "User a all",
            "User",
            "Colour blue",
            "user=",
        ] {
            assert!(criteria(bad).is_err(), "{bad}");
        }
    }
}
