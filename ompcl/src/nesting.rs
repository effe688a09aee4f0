//! OpenMP's nesting rules (OpenMP 2.5 section 2.9, as gcc enforces them), checked on the lexical
//! nesting of the directives of one file. A program that breaks them is invalid and, run, would
//! deadlock (a worksharing loop or barrier that only some threads of the team reach), so each
//! violation is an error at the inner directive's file:line:col.

use crate::pragma::Pragma;

/// What a directive is, for the nesting rules.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    /// `parallel`: directives inside bind to this new team.
    Parallel,
    /// `for`, `sections`, `single`, and the worksharing part of `parallel for|sections`.
    Worksharing,
    Master,
    Critical,
    Ordered,
    Barrier,
    Other,
}

fn role(p: &Pragma) -> Role {
    match p.directive.first().map(String::as_str) {
        Some("parallel") if p.directive.len() == 1 => Role::Parallel,
        Some("parallel") | Some("for") | Some("sections") | Some("single") => Role::Worksharing,
        Some("master") => Role::Master,
        Some("critical") => Role::Critical,
        Some("ordered") => Role::Ordered,
        Some("barrier") => Role::Barrier,
        _ => Role::Other,
    }
}

/// `region[i]`: the byte range of pragma i's statement, if it has one. Returns the errors,
/// formatted `file:line:col: error: ...`.
pub fn check(
    file: &str,
    pragmas: &[Pragma],
    region: &dyn Fn(usize) -> Option<(usize, usize)>,
) -> Vec<String> {
    let mut errors = Vec::new();
    for (i, p) in pragmas.iter().enumerate() {
        // a combined `parallel for|sections` starts a new team: never closely nested in anything
        let inner = if p.directive[0] == "parallel" { Role::Parallel } else { role(p) };
        // the constructs a team member executing p is inside, innermost first
        let mut outer: Vec<(usize, usize)> = (0..pragmas.len())
            .filter(|&j| j != i && pragmas[j].line_start < p.line_start)
            // (a directive stacked between q's line and q's statement, `#pragma omp parallel`
            // then `#pragma omp for` then the loop, is inside q too)
            .filter_map(|j| {
                region(j)
                    .filter(|&(s, e)| s.min(pragmas[j].end) <= p.line_start && p.line_start < e)
                    .map(|_| (pragmas[j].line_start, j))
            })
            .collect();
        outer.sort();
        outer.reverse();
        // `parallel for`: its loop body binds to the combined construct's own team, and sits in its loop
        for (_, j) in outer {
            let q = &pragmas[j];
            let r = role(q);
            let bad = match (inner, r) {
                (
                    Role::Worksharing | Role::Barrier,
                    Role::Worksharing | Role::Master | Role::Critical | Role::Ordered,
                ) => true,
                (Role::Master, Role::Worksharing) => true,
                (Role::Ordered, Role::Critical) => true,
                (Role::Critical, Role::Critical) => p.dir_arg == q.dir_arg,
                _ => false,
            };
            // a `parallel` nested in the region (but before p) would have ended the search:
            // the nearest enclosing one stops it
            if bad {
                let what = match inner {
                    Role::Worksharing => format!("worksharing '{}'", p.name()),
                    Role::Barrier => "'barrier'".to_string(),
                    _ => format!("'{}'", p.name()),
                };
                let rule = if inner == Role::Critical {
                    "inside a 'critical' region with the same name (it would deadlock)".to_string()
                } else {
                    format!("closely nested inside '{}' (line {})", q.name(), q.line)
                };
                errors.push(format!(
                    "{file}:{}:{}: error: {what} may not be {rule}: OpenMP's nesting rules forbid it (only some threads of the team would reach it)",
                    p.line, p.col
                ));
                break;
            }
            if r == Role::Parallel || q.directive.first().map(String::as_str) == Some("parallel") {
                break;
            }
        }
    }
    errors
}
