//! sm_XX and PTX ISA selection.
use crate::Target;

/// The sm_XX LLVM 19's NVPTX back end knows (sm_90a left out on purpose), with the lowest PTX
/// ISA each needs.
pub const SMS: &[(u32, (u32, u32))] = &[
    (20, (3, 2)),
    (21, (3, 2)),
    (30, (3, 2)),
    (32, (4, 0)),
    (35, (3, 2)),
    (37, (4, 1)),
    (50, (4, 0)),
    (52, (4, 1)),
    (53, (4, 2)),
    (60, (5, 0)),
    (61, (5, 0)),
    (62, (5, 0)),
    (70, (6, 0)),
    (72, (6, 1)),
    (75, (6, 3)),
    (80, (7, 0)),
    (86, (7, 1)),
    (87, (7, 4)),
    (89, (7, 8)),
    (90, (7, 8)),
];

/// The PTX ISA versions LLVM 19 can emit (+ptxNN features).
pub const PTX_ISAS: &[(u32, u32)] = &[
    (3, 2),
    (4, 0),
    (4, 1),
    (4, 2),
    (4, 3),
    (5, 0),
    (6, 0),
    (6, 1),
    (6, 2),
    (6, 3),
    (6, 4),
    (6, 5),
    (7, 0),
    (7, 1),
    (7, 2),
    (7, 3),
    (7, 4),
    (7, 5),
    (7, 6),
    (7, 7),
    (7, 8),
    (8, 0),
    (8, 1),
    (8, 2),
    (8, 3),
    (8, 4),
    (8, 5),
];

/// The highest PTX ISA a driver of this cuDriverGetVersion() value takes (capped at LLVM 19's 8.5).
pub fn ptx_for_driver(v: i32) -> (u32, u32) {
    let (maj, min) = (v / 1000, (v % 1000) / 10);
    match (maj, min) {
        (m, _) if m >= 13 => (8, 5),
        (12, n) if n >= 5 => (8, 5),
        (12, n) => (8, n as u32),
        (11, n) => (7, n.min(8) as u32),
        (10, 0) => (6, 3),
        (10, 1) => (6, 4),
        (10, _) => (6, 5),
        (9, 0) => (6, 0),
        (9, 1) => (6, 1),
        (9, _) => (6, 2),
        (8, _) => (5, 0),
        (7, 0) => (4, 2),
        (7, _) => (4, 3),
        (6, 0) => (4, 0),
        (6, _) => (4, 1),
        _ => (3, 2),
    }
}

/// The sm to generate for: the highest LLVM 19 knows that is not above the device's.
pub fn sm_for_cc(major: i32, minor: i32) -> u32 {
    let cc = (major.max(0) as u32).saturating_mul(10).saturating_add(minor.clamp(0, 9) as u32);
    SMS.iter().rev().map(|s| s.0).find(|&s| s <= cc).unwrap_or(20)
}

pub fn min_ptx_for_sm(sm: u32) -> (u32, u32) {
    SMS.iter().find(|s| s.0 == sm).map(|s| s.1).unwrap_or((7, 8))
}

pub fn for_device(major: i32, minor: i32, driver: i32) -> Target {
    let sm = sm_for_cc(major, minor);
    let ptx = ptx_for_driver(driver).max(min_ptx_for_sm(sm));
    Target { sm, ptx_isa: ptx }
}

/// Checks a Target built by hand (e.g. the CLI's --sm/--ptx) before it reaches LLVM.
pub fn validate(t: &Target) -> Result<(), String> {
    if !SMS.iter().any(|s| s.0 == t.sm) {
        return Err(format!("sm_{} is not a target LLVM 19 knows", t.sm));
    }
    if !PTX_ISAS.contains(&t.ptx_isa) {
        return Err(format!("PTX ISA {}.{} is not one LLVM 19 emits", t.ptx_isa.0, t.ptx_isa.1));
    }
    if t.ptx_isa < min_ptx_for_sm(t.sm) {
        let m = min_ptx_for_sm(t.sm);
        return Err(format!("sm_{} needs PTX ISA {}.{} or newer", t.sm, m.0, m.1));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn devices() {
        assert_eq!(for_device(9, 0, 13000), Target { sm: 90, ptx_isa: (8, 5) });
        assert_eq!(for_device(9, 0, 12020), Target { sm: 90, ptx_isa: (8, 2) });
        assert_eq!(for_device(8, 7, 11040), Target { sm: 87, ptx_isa: (7, 4) });
        assert_eq!(for_device(8, 6, 11040), Target { sm: 86, ptx_isa: (7, 4) });
        assert_eq!(for_device(7, 2, 10020), Target { sm: 72, ptx_isa: (6, 5) });
        assert_eq!(for_device(6, 2, 10020), Target { sm: 62, ptx_isa: (6, 5) });
        assert_eq!(for_device(5, 3, 10020), Target { sm: 53, ptx_isa: (6, 5) });
        assert_eq!(for_device(3, 2, 6050), Target { sm: 32, ptx_isa: (4, 1) });
        assert_eq!(for_device(12, 0, 12080), Target { sm: 90, ptx_isa: (8, 5) });
        assert_eq!(for_device(10, 0, 12080), Target { sm: 90, ptx_isa: (8, 5) });
        assert_eq!(for_device(8, 9, 11080), Target { sm: 89, ptx_isa: (7, 8) });
        assert_eq!(for_device(9, 0, 11040), Target { sm: 90, ptx_isa: (7, 8) });
        assert_eq!(for_device(7, 5, 12000), Target { sm: 75, ptx_isa: (8, 0) });
        assert_eq!(for_device(8, 0, 11000), Target { sm: 80, ptx_isa: (7, 0) });
        assert_eq!(for_device(1, 0, 0).sm, 20);
        for v in [3000, 11040, 12000, 12020, 12030, 12040, 12050, 13000] {
            assert!(PTX_ISAS.contains(&ptx_for_driver(v)), "{v}");
        }
        assert_eq!(ptx_for_driver(12030), (8, 3));
        assert_eq!(ptx_for_driver(12040), (8, 4));
    }
}
