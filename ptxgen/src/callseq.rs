//! NVPTX brackets every call in `// callseq N` comments, numbered by one counter for the whole
//! process. The same module therefore comes out with other numbers depending on what the process
//! compiled before it, or beside it on another thread (parallel split builds). The numbers are
//! comments, but PTX must be byte-identical for the same input: the build cache, the tests that
//! compare PTX, and CI's comparison of the x86-64 and aarch64 ptxgen rely on it. So each module's
//! numbers are rewritten from 0, in order of first appearance.
use std::collections::HashMap;

const MARK: &str = "// callseq ";

/// `ptx` with its call-sequence numbers renumbered from 0 in order of first appearance.
pub(crate) fn renumber(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut rest = ptx;
    while let Some(at) = rest.find(MARK) {
        let after = &rest[at + MARK.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        out.push_str(&rest[..at + MARK.len()]);
        if digits > 0 {
            let next = seen.len();
            let n = *seen.entry(&after[..digits]).or_insert(next);
            out.push_str(&n.to_string());
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::renumber;

    #[test]
    fn numbers_start_at_zero_in_order_of_appearance() {
        let ptx =
            "\t{ // callseq 7, 0\n\tcall f;\n\t} // callseq 7\n\t{ // callseq 12, 0\n\t} // callseq 12\n";
        let want =
            "\t{ // callseq 0, 0\n\tcall f;\n\t} // callseq 0\n\t{ // callseq 1, 0\n\t} // callseq 1\n";
        assert_eq!(renumber(ptx), want);
    }

    #[test]
    fn the_same_module_numbered_from_elsewhere_is_the_same_text() {
        let a = "{ // callseq 3, 0\n} // callseq 3\n{ // callseq 4, 0\n} // callseq 4\n";
        let b = "{ // callseq 40, 0\n} // callseq 40\n{ // callseq 41, 0\n} // callseq 41\n";
        assert_eq!(renumber(a), renumber(b));
        assert_eq!(renumber("no calls here"), "no calls here");
    }
}
