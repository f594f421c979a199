//! Strict standard base64 (RFC 4648 §4, padded), as `ssh-keygen` writes it.
//!
//! Hand-written (30 lines) rather than a new dependency: ssh-key does not
//! export its decoder, and the parser needs the raw blob to name the type it
//! holds. Errors never quote the input.

/// Decodes `text`, refusing anything but the canonical padded encoding: a
/// length that is a multiple of 4, at most two `=` at the very end, and zero
/// bits after the last byte.
pub(super) fn decode(text: &str) -> Result<Vec<u8>, String> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return Err("its length is not a multiple of 4 (truncated?)".into());
    }
    let pad = bytes.iter().rev().take_while(|&&c| c == b'=').count();
    if pad > 2 {
        return Err("it has too much `=` padding".into());
    }
    let body = &bytes[..bytes.len() - pad];
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    let (mut acc, mut nbits) = (0u32, 0u32);
    for (i, &c) in body.iter().enumerate() {
        let Some(v) = value(c) else {
            return Err(format!("it has an invalid character at position {}", i + 1));
        };
        acc = (acc << 6) | u32::from(v);
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            out.push((acc >> nbits) as u8);
            acc &= (1 << nbits) - 1;
        }
    }
    if acc != 0 {
        return Err("its last character has stray bits (not canonical)".into());
    }
    Ok(out)
}

fn value(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn decodes_padded_forms() {
        assert_eq!(decode("").unwrap(), b"");
        assert_eq!(decode("Zg==").unwrap(), b"f");
        assert_eq!(decode("Zm8=").unwrap(), b"fo");
        assert_eq!(decode("Zm9v").unwrap(), b"foo");
        assert_eq!(decode("c3NoOg==").unwrap(), b"ssh:");
        assert_eq!(decode("+/+/").unwrap(), [0xfb, 0xff, 0xbf]);
    }

    #[test]
    fn refuses_non_canonical_input() {
        for bad in [
            "Zg", "Zg=", "Zm9", "Z===", "Zg=a", "Zh==", "Zm9=", "Zm9v\n", "Zm 9", "Zm9-", "Zm9é",
        ] {
            assert!(decode(bad).is_err(), "{bad:?} should be refused");
        }
        let e = decode("Zm!v").unwrap_err();
        assert!(e.contains("position 3"), "{e}");
        assert!(!e.contains('!'));
    }
}
