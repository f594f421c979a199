//! Line diffs within a bound: a unified diff when the two texts differ by
//! at most [`MAX_CHANGED`] lines and finding that out takes at most
//! [`MAX_WORK`] steps; else one line that says how much differs and the
//! digest of each side (`N lines differ (-R +A), sha256 X → Y: …`).
//!
//! Why: Myers's algorithm (similar's `TextDiff`, similar-2.7.0
//! src/algorithms/myers.rs `diff_deadline`) costs O((N+M)·D) for texts of N
//! and M lines and D differing lines, so two 250,000-line texts that differ
//! everywhere took 495 s. similar bounds it only by a wall-clock deadline,
//! which would make the output depend on the machine's speed; beryl's output
//! is deterministic. So the bound is a count: a forward Myers search
//! (Myers 1986, "An O(ND) Difference Algorithm", section 2) that stops at
//! [`MAX_CHANGED`] edits or [`MAX_WORK`] steps, whichever comes first, and
//! only when it reaches the end is similar asked for the diff itself (its
//! cost is then bounded by the same D).
//!
//! Used by apply's dry run (a file's content against a snapshot's) and by
//! `beryl diff` (a multi-line value, `--plan`'s installerconfigs, and lists
//! aligned as sequences, through [`within_bound`]).

/// The most differing lines (or list items) a diff shows: past it, the
/// diff is summarised.
pub(crate) const MAX_CHANGED: usize = 10_000;

/// The most steps the bounded search takes (one per diagonal visited and
/// per line compared along one): about a second (release build). The diff
/// similar then finds costs about as much (measured: 900,000 lines of two
/// symbols with 9,000 edits, 3.4 s in all, the search and similar's
/// `find_middle_snake` each about a quarter of it).
pub(crate) const MAX_WORK: u64 = 100_000_000;

/// The unified diff from `old` to `new` with `context` lines around each
/// change and the `header` file names (none when `None`); or, past the
/// bound, the summary line ([`summary`]). Ends with a newline unless empty.
pub(crate) fn unified(
    old: &str,
    new: &str,
    header: Option<(&str, &str)>,
    context: usize,
) -> String {
    unified_with(old, new, header, context, None)
}

/// [`unified`], with the sha256 of each side when the caller knows them
/// already (a snapshot's file carries its own), for the summary.
pub(crate) fn unified_with(
    old: &str,
    new: &str,
    header: Option<(&str, &str)>,
    context: usize,
    digests: Option<(&str, &str)>,
) -> String {
    let (a, b) = (split(old), split(new));
    let (a, b) = trim(&a, &b);
    if !edits_within(a, b, MAX_CHANGED, MAX_WORK) {
        let digests = match digests {
            Some((x, y)) => (x.to_string(), y.to_string()),
            None => (
                crate::fsutil::sha256_hex(old),
                crate::fsutil::sha256_hex(new),
            ),
        };
        return summary(a.len(), b.len(), digests);
    }
    let diff = similar::TextDiff::from_lines(old, new);
    let mut unified = diff.unified_diff();
    unified.context_radius(context);
    if let Some((a, b)) = header {
        unified.header(a, b);
    }
    unified.to_string()
}

/// Whether the shortest edit script from `a` to `b` has at most
/// [`MAX_CHANGED`] insertions and deletions, found within [`MAX_WORK`]
/// steps. Common ends are skipped first (they cost one step a line).
pub(crate) fn within_bound<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    let (a, b) = trim(a, b);
    edits_within(a, b, MAX_CHANGED, MAX_WORK)
}

/// The two sequences without their common head and tail: what differs
/// lies between.
fn trim<'s, T: PartialEq>(a: &'s [T], b: &'s [T]) -> (&'s [T], &'s [T]) {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[head..], &b[head..]);
    let tail = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (&a[..a.len() - tail], &b[..b.len() - tail])
}

/// Myers's greedy forward search for the furthest reaching D-paths
/// (Myers 1986, figure 2), stopped at `max_d` edits or `fuel` steps.
/// `v[k]` is the furthest `x` (index in `a`) reached on diagonal
/// `k = x - y`.
fn edits_within<T: PartialEq>(a: &[T], b: &[T], max_d: usize, mut fuel: u64) -> bool {
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 {
        return n + m <= max_d;
    }
    let max = max_d.min(n + m);
    let offset = max + 1;
    let mut v = vec![0usize; 2 * max + 3];
    for d in 0..=max {
        // k from -d to d in steps of 2, as an index k + offset.
        let mut i = offset - d;
        while i <= offset + d {
            fuel = fuel.saturating_sub(1);
            let mut x = if i == offset - d || (i != offset + d && v[i - 1] < v[i + 1]) {
                v[i + 1]
            } else {
                v[i - 1] + 1
            };
            // y = x - k = x - (i - offset), never negative (x >= k).
            let mut y = (x + offset).saturating_sub(i);
            while x < n && y < m && a[x] == b[y] && fuel > 0 {
                x += 1;
                y += 1;
                fuel -= 1;
            }
            v[i] = x;
            if x >= n && y >= m {
                return true;
            }
            if fuel == 0 {
                return false;
            }
            i += 2;
        }
    }
    false
}

/// The lines of a text, each with its newline, as similar's `from_lines`
/// splits them.
fn split(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// The line that stands for a diff past the bound: how many lines of each
/// side lie between the common head and tail of the two texts (what a
/// diff's `-` and `+` lines could be at most; a reordering counts in full,
/// as it should), and each side's sha256. Nothing is counted that costs
/// memory: a 3,000,000-line side is counted, not hashed line by line.
fn summary(removed: usize, added: usize, (old, new): (String, String)) -> String {
    format!(
        "{} lines differ (-{} +{}), sha256 {} → {}: too large a diff to show (docs/diff.md)\n",
        thousands((removed + added) as u64),
        thousands(removed as u64),
        thousands(added as u64),
        old,
        new
    )
}

/// `250000` as `250,000`.
pub(crate) fn thousands(n: impl Into<u64>) -> String {
    let digits = n.into().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(n: usize, tag: &str) -> String {
        (0..n).map(|i| format!("{tag}{i}\n")).collect()
    }

    #[test]
    fn a_small_change_is_a_unified_diff() {
        let d = unified("a\nb\nc\n", "a\nB\nc\n", Some(("current", "desired")), 3);
        assert_eq!(
            d,
            "--- current\n+++ desired\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
        );
    }

    #[test]
    fn the_edit_count_is_exact_at_the_bound() {
        let a: Vec<u32> = (0..10).collect();
        let b: Vec<u32> = (100..103).collect();
        // 10 deletions and 3 insertions: 13 edits.
        assert!(edits_within(&a, &b, 13, u64::MAX));
        assert!(!edits_within(&a, &b, 12, u64::MAX));
        let c = [1, 2, 3, 4, 5];
        let d = [1, 3, 4, 6, 5];
        assert!(edits_within(&c, &d, 2, u64::MAX));
        assert!(!edits_within(&c, &d, 1, u64::MAX));
        assert!(edits_within(&c, &c, 0, u64::MAX));
    }

    #[test]
    fn the_work_is_bounded() {
        // Alternating lines: long snakes on every diagonal.
        let a: Vec<u32> = (0..1000).map(|i| i % 2).collect();
        let b: Vec<u32> = (0..1000).map(|i| (i + 1) % 2).collect();
        assert!(edits_within(&a, &b, 100, u64::MAX));
        assert!(!edits_within(&a, &b, 100, 10));
    }

    #[test]
    fn a_large_change_is_summarised_with_both_digests() {
        let old = lines(MAX_CHANGED, "old");
        let new = lines(MAX_CHANGED, "new");
        let d = unified(&old, &new, Some(("current", "desired")), 3);
        assert_eq!(
            d,
            format!(
                "20,000 lines differ (-10,000 +10,000), sha256 {} → {}: too large a diff to show (docs/diff.md)\n",
                crate::fsutil::sha256_hex(&old),
                crate::fsutil::sha256_hex(&new)
            )
        );
    }

    #[test]
    fn a_reordering_counts_in_full() {
        let old = lines(MAX_CHANGED, "k");
        let new: String = old.lines().rev().map(|l| format!("{l}\n")).collect();
        let d = unified(&old, &new, None, 3);
        assert!(
            d.starts_with("20,000 lines differ (-10,000 +10,000), sha256 "),
            "{d}"
        );
    }

    #[test]
    fn a_long_file_with_a_small_change_is_still_diffed() {
        let old = lines(200_000, "k");
        let new = format!("x\n{}", old.replacen("k100000\n", "", 1));
        let d = unified(&old, &new, None, 0);
        assert_eq!(d, "@@ -0,0 +1 @@\n+x\n@@ -100001 +100001,0 @@\n-k100000\n");
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0u32), "0");
        assert_eq!(thousands(999u32), "999");
        assert_eq!(thousands(1000u32), "1,000");
        assert_eq!(thousands(3_000_002u32), "3,000,002");
    }
}
