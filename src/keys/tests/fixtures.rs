//! Test keys. All public; no private key is ever stored in the repository.
//!
//! The `*_KEYGEN` strings are the output of `ssh-keygen -lf` (OpenSSH 9.2p1)
//! on the key above them, captured once when the tests were written. The keys
//! came from `ssh-keygen -q -t TYPE -N '' -C beryl-test-… -f FILE`; the two
//! security-key lines were built by hand (see `parse::sk_keys_*`) and
//! fed to `ssh-keygen -lf` the same way.

use std::sync::Arc;

use crate::value::{Node, Source, Span, Value};

pub(super) const ED25519: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAcaVAtvb55dH7da9RT2X7puVmgCS0MgwSPXXBiFq+ex beryl-test-ed25519";
pub(super) const ED25519_KEYGEN: &str =
    "256 SHA256:g8kRRj8rWdT3oM/kVW4hC8TmqlVRLT2yk9zNDFZN1Po beryl-test-ed25519 (ED25519)";
pub(super) const RSA_3072: &str = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQCr7FkCz2EgkRr04GiH3TXqoSDMqGFnzIYoMb6s0l1FXPvtoRUPqBaKo1a1GUc7deffxs06GBX+pD1iZgos1XVAWVkVx1Ky8oXM9JmFNbCaYhiPtZQqXMEen8UngyiPxyB9Qgp5FMpPj4nki6zmQMjtf82B5lkOLBJB11371jTKxG2zN04lsg46Y8/noz6yPu5ITBryc7E6Qs5hteTo2Cv00OGPhjvgZfjGkoSLN0df45jpY+6rog/hx5FqbPd95nlB2ZSHMCiGfuqlb/jnJv0TClZ8heQVdDeUUYi932WvoSgmqHdTrnYCsgRrn4ZpzCkxHdKwATGvK4GkwwYOadT7CxKNyxujUQ1M7wn+E2pJvnVKtvlL5sB8zuj7YL2co4fpl6ZfYpXjIwml4DOWV+z5jpmp64VSES4NaSMXUwzWvtAtRiALaRr68E3rGl+i1V/BwhiPH8eDtmWwlRJACpq3yc8VD7O+O8poQkpEj82AncX4GvCJ6W6mXIfPnKUl+VE= beryl-test-rsab3072";
pub(super) const RSA_3072_KEYGEN: &str =
    "3072 SHA256:0ysc0gaaw0kpSkcN4tU3UEV9gTDd2cYwsYnMOdZf7Lo beryl-test-rsab3072 (RSA)";
pub(super) const RSA_1024: &str = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC6yPUnrgTInEp/ImXbQvoAiQQItBPrd5wG2Cd+Xax8OIjVGumdQtiu77o/pge0rlGLpb1nXRA9rc1/1hwEBS9d9Arka3a275DYjGiNz1RtXdFjepe/H7ZhRUh4TkeEW+2R5kJuFxLB6r91I8gmg3BlAAdooGbTXalV08GJ6gxU5Q== beryl-test-rsab1024";
pub(super) const RSA_1024_KEYGEN: &str =
    "1024 SHA256:wrmYuvsA2LKITZbqrp5iWnyxoaygRqPfLfWAaFs8Pxw beryl-test-rsab1024 (RSA)";
pub(super) const ECDSA_256: &str = "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBNg7q975JLn+z6Y/w0DgyD/e8CQNtutG0F3jJilS1tpYFrr6vhoIWg66K9WKg6vQ0jvb2pQAeLNAZdbWk7qNCK4= beryl-test-ecdsab256";
pub(super) const ECDSA_256_KEYGEN: &str =
    "256 SHA256:GeR1bTq3t+Og/+LCeit7nT5AZEuo1SUMofLw+Ee+osI beryl-test-ecdsab256 (ECDSA)";
pub(super) const ECDSA_384: &str = "ecdsa-sha2-nistp384 AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzODQAAABhBCFtHUm52AnSDPiQbKohtDuKWrLu421V+87HLsrWpvFFPGzPoLeZ77MN87PWNgLO7JcZWxz3pVPF+HQVIOxaiajnU3/TPR+AcNdKNJd1C8K0eWccNpCFslCXZxoNgVDP2Q== beryl-test-ecdsab384";
pub(super) const ECDSA_384_KEYGEN: &str =
    "384 SHA256:M/B2bDGF/EkverBzhdAsL4Uod83ok6WERkFjBqnjoa4 beryl-test-ecdsab384 (ECDSA)";
pub(super) const ECDSA_521: &str = "ecdsa-sha2-nistp521 AAAAE2VjZHNhLXNoYTItbmlzdHA1MjEAAAAIbmlzdHA1MjEAAACFBADnBhV4QP7e5U7vZPJM/rChPU9VCwGXKYSy+MK8knqJ1+xBpLXwUYeciHYDSGmhZz2SlqY5lIeDjP2kLLwjWippUwCCnZKUZfjT+5iCt2CZaAvUyt7lvBDBYK/Jb+dJBmXohvLtEW7AlMQCj1JRUKTJVhm5C+h9DSE6PvDW7wPnNwMpng== beryl-test-ecdsab521";
pub(super) const ECDSA_521_KEYGEN: &str =
    "521 SHA256:NxSfv6H50WiSnOcrwLKjLjtda60zYUg8xHiRAuIs3jw beryl-test-ecdsab521 (ECDSA)";
pub(super) const DSA: &str = "ssh-dss AAAAB3NzaC1kc3MAAACBAOyKv7kYLgTIC8CwHVl4wH8YCIbt+Av+4GOjP12wMg+FZXfebEllFS/yWA5oM1QCIArrkAT865qhaFcVuwwa5TciDXeVdzefBqW+oJC+rHq7VCRVsTuWLzC9UY4BoXYink8veKwROr5IAdQEzGbZi8kdSvEFJm8AmJg02fVUXXfTAAAAFQDk23HiFlexRl96xfyWmxQNLQgtJQAAAIBAi423jFAfMCrx/S3eB1I2OQag2bXwN+zm0xhzW0+l40V2mLcV7ZOvmO3SkD4yEJFZvlH8Mtowrvp9woR/aKZ4mBZCUljGZsDO7PAWv50ZSV9EfAMKCR7LyEedZ+2KmChnb3XDGrXZ/eCyH0h+GWZ3RopXNuA26PB+7QRj1O8VKwAAAIEAlLcbXeSvPEG9/wwcYrrrsQn9NVMeDuKqdBSe+inwUnuUV0Pj/21vVsYln4oC2jBWl3k4V1nSGO/q7/69f8zgKgkbBJCZLXIxVAZ99iReqoDtLYOn92pHxr+uxynPG0CTcGczIHkhks7ERA4k5JdKMiy8cc5Abfg4leQIoSaCv6U= beryl-test-dsa";
pub(super) const SK_ED25519: &str = "sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIAcaVAtvb55dH7da9RT2X7puVmgCS0MgwSPXXBiFq+exAAAABHNzaDo= beryl-test-sked25519";
pub(super) const SK_ED25519_KEYGEN: &str =
    "256 SHA256:lai0q1It07cVnPzqyOVEeZ/FDRLLSPsengXqd5WHNKo beryl-test-sked25519 (ED25519-SK)";
pub(super) const SK_ECDSA: &str = "sk-ecdsa-sha2-nistp256@openssh.com AAAAInNrLWVjZHNhLXNoYTItbmlzdHAyNTZAb3BlbnNzaC5jb20AAAAIbmlzdHAyNTYAAABBBNg7q975JLn+z6Y/w0DgyD/e8CQNtutG0F3jJilS1tpYFrr6vhoIWg66K9WKg6vQ0jvb2pQAeLNAZdbWk7qNCK4AAAAEc3NoOg== beryl-test-skecdsa";
pub(super) const SK_ECDSA_KEYGEN: &str =
    "256 SHA256:19EgXt8iNuPVHA3lvziONz0ehTFdnWJBMmHgEWfg/cY beryl-test-skecdsa (ECDSA-SK)";

/// The test vector of notes/freebsd.md §3 (no comment).
pub(super) const VECTOR: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIF9wbmUHAMLxitYhqo2HKSyhLh9996vQvH8yu5GGZEU5";
pub(super) const VECTOR_KEYGEN: &str =
    "256 SHA256:H1sKJna/KPTQW45MXragbp04WVrnjjKBKvb3S0Jarlo no comment (ED25519)";

/// A YAML string node with a real span, as if written in `hosts/web1.yml`.
pub(super) fn entry(text: &str) -> Node {
    let prefix = "ssh_keys: [";
    let source: Arc<Source> = Source::new("hosts/web1.yml", format!("{prefix}{text}]\n"));
    let span = Span {
        source: Some(source),
        offset: prefix.len(),
        len: text.len(),
        line: 1,
        col: 12,
    };
    Node::new(Value::Str(text.to_string()), span)
}

/// The second field of a key line.
pub(super) fn blob_of(line: &str) -> &str {
    line.split(' ').nth(1).unwrap_or("")
}

/// Test-only standard base64 encoder (padded).
pub(super) fn b64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// An SSH `string`: uint32 length, then the bytes.
pub(super) fn ssh_string(bytes: &[u8]) -> Vec<u8> {
    let mut v = (bytes.len() as u32).to_be_bytes().to_vec();
    v.extend_from_slice(bytes);
    v
}
