//! The predicate normaliser of the quarantine analysis (quarantine filters and the null gap):
//! parse a row predicate with sqlparser's Databricks dialect, push NOT
//! inward (De Morgan, comparison inversion, `IS [NOT] NULL`), flatten
//! AND/OR, and sort and deduplicate their operands. Every step holds under
//! SQL's three-valued logic, so two predicates with one normal form are
//! equivalent; the converse is not claimed (different forms are reported
//! only as "not shown equivalent").

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use sqlparser::ast::{BinaryOperator, Expr, UnaryOperator};
use sqlparser::dialect::DatabricksDialect;
use sqlparser::parser::Parser;

/// A predicate in negation normal form with sorted, flattened operands.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Predicate {
    And(Vec<Predicate>),
    Or(Vec<Predicate>),
    /// `NOT` of something the normaliser does not see into.
    Not(Box<Predicate>),
    /// A comparison `lhs op rhs` with operands as SQL text.
    Compare {
        lhs: String,
        op: Cmp,
        rhs: String,
    },
    IsNull {
        operand: String,
        negated: bool,
    },
    /// Any other boolean expression, as SQL text.
    Atom(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cmp {
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
}

impl Cmp {
    /// The comparison true exactly where this one is false (on non-null
    /// operands): `<` and `>=`, `=` and `<>`.
    pub(crate) fn inverse(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::NotEq,
            Cmp::NotEq => Cmp::Eq,
            Cmp::Lt => Cmp::GtEq,
            Cmp::LtEq => Cmp::Gt,
            Cmp::Gt => Cmp::LtEq,
            Cmp::GtEq => Cmp::Lt,
        }
    }

    /// The same comparison with its operands swapped: `a < b` is `b > a`.
    pub(crate) fn flipped(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Gt,
            Cmp::LtEq => Cmp::GtEq,
            Cmp::Gt => Cmp::Lt,
            Cmp::GtEq => Cmp::LtEq,
            same => same,
        }
    }
}

/// The most boolean operators (`AND`, `OR`, `NOT`) a predicate may hold to
/// be analysed. sqlparser's tree of `a AND b AND ...` is as deep as the
/// chain is long, and building, printing, normalising and dropping it
/// recurses once per level: a 4,000-term quarantine (2,000 generated rules)
/// overflowed a 2 MB worker stack. Larger predicates are not analysed
/// (`None`, as for a text that does not parse).
pub const MAX_OPERATORS: usize = 256;

/// Whether a text is small enough for [`normalise`] (counted on words,
/// before parsing, so no deep tree is ever built).
pub fn within_limit(sql: &str) -> bool {
    sql.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| {
            w.eq_ignore_ascii_case("and")
                || w.eq_ignore_ascii_case("or")
                || w.eq_ignore_ascii_case("not")
        })
        .count()
        <= MAX_OPERATORS
        && sql.len() <= 64 * 1024
}

/// Parse and normalise; `None` when the text is not an expression, or is
/// above [`MAX_OPERATORS`].
pub fn normalise(sql: &str) -> Option<Predicate> {
    Some(from_expr(&parse_bounded(sql)?, false))
}

/// The expression tree of a predicate within [`MAX_OPERATORS`], as the
/// normaliser and the witness-row search read it.
pub(crate) fn parse_bounded(sql: &str) -> Option<Expr> {
    if !within_limit(sql) {
        return None;
    }
    Parser::new(&DatabricksDialect {})
        .try_with_sql(sql)
        .ok()?
        .parse_expr()
        .ok()
}

/// The normal forms of the predicate texts one run has seen, by text. The
/// quarantine analysis reads the same rule texts many times (a rule dict
/// shared by a clean table and its quarantine twin is normalised for the
/// drop rules, their negations, the NULL guards and the expected negation,
/// and a repository repeats rule texts across pipelines): each distinct
/// text is parsed once. Shared by the threads comparing pairs.
#[derive(Debug, Default)]
pub struct Normaliser {
    by_text: Mutex<HashMap<String, Option<Predicate>>>,
}

impl Normaliser {
    /// [`normalise`], parsed once per distinct text.
    pub fn normalise(&self, sql: &str) -> Option<Predicate> {
        let seen = |by_text: &HashMap<String, Option<Predicate>>| by_text.get(sql).cloned();
        if let Some(known) = seen(&self.by_text.lock().unwrap_or_else(PoisonError::into_inner)) {
            return known;
        }
        // Parsed outside the lock: another thread may parse the same text
        // meanwhile, to the same result.
        let normal = normalise(sql);
        self.by_text
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(sql.to_string(), normal.clone());
        normal
    }

    /// [`nullable_operands`] through [`Self::normalise`].
    pub fn nullable_operands(&self, rule: &str) -> Option<Vec<String>> {
        Some(nullable_operands_of(&self.normalise(rule)?))
    }

    /// [`equivalent`] through [`Self::normalise`].
    pub fn equivalent(&self, a: &str, b: &str) -> Option<bool> {
        Some(self.normalise(a)? == self.normalise(b)?)
    }
}

/// Whether `quarantine` is shown equivalent to `NOT (r1 AND ... AND rn)`.
pub fn is_negation_of_all(quarantine: &str, rules: &[&str]) -> Option<bool> {
    let q = normalise(quarantine)?;
    let conjunction = rules
        .iter()
        .map(|r| format!("({r})"))
        .collect::<Vec<_>>()
        .join(" AND ");
    let negation = normalise(&format!("NOT ({conjunction})"))?;
    Some(q == negation)
}

/// Whether two predicates are shown equivalent.
pub fn equivalent(a: &str, b: &str) -> Option<bool> {
    Some(normalise(a)? == normalise(b)?)
}

fn from_expr(expr: &Expr, negate: bool) -> Predicate {
    match expr {
        Expr::Nested(inner) => from_expr(inner, negate),
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } => from_expr(expr, !negate),
        Expr::BinaryOp { left, op, right } => match op {
            BinaryOperator::And | BinaryOperator::Or => {
                let is_and = matches!(op, BinaryOperator::And) != negate;
                let parts = vec![from_expr(left, negate), from_expr(right, negate)];
                junction(is_and, parts)
            }
            _ => match cmp_of(op) {
                Some(cmp) => {
                    let cmp = if negate { cmp.inverse() } else { cmp };
                    let (mut lhs, mut rhs, mut cmp) = (text(left), text(right), cmp);
                    if rhs < lhs {
                        std::mem::swap(&mut lhs, &mut rhs);
                        cmp = cmp.flipped();
                    }
                    Predicate::Compare { lhs, op: cmp, rhs }
                }
                None => atom(expr, negate),
            },
        },
        Expr::IsNull(operand) => Predicate::IsNull {
            operand: text(operand),
            negated: negate,
        },
        Expr::IsNotNull(operand) => Predicate::IsNull {
            operand: text(operand),
            negated: !negate,
        },
        // `isnull(a)` is `a IS NULL`, `isnotnull(a)` is `a IS NOT NULL`.
        Expr::Function(f) => match (null_test(f), negate) {
            (Some((operand, is_null)), _) => Predicate::IsNull {
                operand: text(operand),
                negated: is_null == negate,
            },
            (None, _) => atom(expr, negate),
        },
        // Forms with a written negation: `NOT (x IN l)` is `x NOT IN l`,
        // likewise BETWEEN, LIKE, ILIKE; `NOT (a IS TRUE)` is `a IS NOT
        // TRUE` (never NULL either). The negated form is kept as its text.
        _ if negate => match negated_form(expr) {
            Some(flipped) => Predicate::Atom(text(&flipped)),
            None => atom(expr, true),
        },
        _ => atom(expr, false),
    }
}

/// The operand of `isnull(x)` (true) or `isnotnull(x)` (false).
fn null_test(f: &sqlparser::ast::Function) -> Option<(&Expr, bool)> {
    use sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
    let name = f.name.to_string().to_ascii_lowercase();
    let is_null = match name.as_str() {
        "isnull" => true,
        "isnotnull" => false,
        _ => return None,
    };
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    match (
        list.args.as_slice(),
        &list.duplicate_treatment,
        list.clauses.is_empty(),
    ) {
        ([FunctionArg::Unnamed(FunctionArgExpr::Expr(operand))], None, true)
            if f.filter.is_none() && f.over.is_none() =>
        {
            Some((operand, is_null))
        }
        _ => None,
    }
}

fn negated_form(expr: &Expr) -> Option<Expr> {
    let mut e = expr.clone();
    match &mut e {
        Expr::In { negated, .. }
        | Expr::Between { negated, .. }
        | Expr::Like { negated, .. }
        | Expr::ILike { negated, .. } => *negated = !*negated,
        Expr::IsTrue(x) => e = Expr::IsNotTrue(x.clone()),
        Expr::IsNotTrue(x) => e = Expr::IsTrue(x.clone()),
        Expr::IsFalse(x) => e = Expr::IsNotFalse(x.clone()),
        Expr::IsNotFalse(x) => e = Expr::IsFalse(x.clone()),
        _ => return None,
    }
    Some(e)
}

/// Whether the normaliser sees into a predicate: no opaque atom inside, so
/// two such forms that differ are told apart syntactically only.
pub fn is_transparent(p: &Predicate) -> bool {
    match p {
        Predicate::And(parts) | Predicate::Or(parts) => parts.iter().all(is_transparent),
        Predicate::Not(_) | Predicate::Atom(_) => false,
        Predicate::Compare { .. } | Predicate::IsNull { .. } => true,
    }
}

fn atom(expr: &Expr, negate: bool) -> Predicate {
    let atom = Predicate::Atom(text(expr));
    if negate {
        Predicate::Not(Box::new(atom))
    } else {
        atom
    }
}

fn junction(is_and: bool, parts: Vec<Predicate>) -> Predicate {
    let mut flat = Vec::new();
    for part in parts {
        match part {
            Predicate::And(inner) if is_and => flat.extend(inner),
            Predicate::Or(inner) if !is_and => flat.extend(inner),
            other => flat.push(other),
        }
    }
    flat.sort();
    flat.dedup();
    if flat.len() == 1 {
        return flat.pop().expect("one operand");
    }
    if is_and {
        Predicate::And(flat)
    } else {
        Predicate::Or(flat)
    }
}

fn cmp_of(op: &BinaryOperator) -> Option<Cmp> {
    Some(match op {
        BinaryOperator::Eq => Cmp::Eq,
        BinaryOperator::NotEq => Cmp::NotEq,
        BinaryOperator::Lt => Cmp::Lt,
        BinaryOperator::LtEq => Cmp::LtEq,
        BinaryOperator::Gt => Cmp::Gt,
        BinaryOperator::GtEq => Cmp::GtEq,
        _ => return None,
    })
}

/// An expression as normalised SQL text (the operands of [`Predicate`]).
pub(crate) fn text_of(expr: &Expr) -> String {
    text(expr)
}

fn text(expr: &Expr) -> String {
    let mut e = expr;
    while let Expr::Nested(inner) = e {
        e = inner;
    }
    lowercase_outside_literals(&e.to_string())
}

/// Spark's identifiers and keywords are case-insensitive, its string
/// literals are not: `status = 'A'` and `STATUS = 'a'` differ.
fn lowercase_outside_literals(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut quote: Option<char> = None;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                out.push(c);
                if c == '\\' {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                } else if c == q {
                    quote = None;
                }
            }
            None => {
                if c == '\'' || c == '"' {
                    quote = Some(c);
                }
                if c == '`' {
                    // `price` is price when the name needs no quoting.
                    let name: String = chars.clone().take_while(|&n| n != '`').collect();
                    let plain = !name.is_empty()
                        && !name.starts_with(|n: char| n.is_ascii_digit())
                        && name.chars().all(|n| n.is_ascii_alphanumeric() || n == '_');
                    if plain && chars.clone().nth(name.chars().count()) == Some('`') {
                        out.push_str(&name.to_ascii_lowercase());
                        for _ in 0..=name.chars().count() {
                            chars.next();
                        }
                        continue;
                    }
                }
                out.push(c.to_ascii_lowercase());
            }
        }
    }
    out
}

/// Whether a drop rule can evaluate to NULL, so that a row is in neither the
/// clean table (dropped) nor a `NOT (...)` quarantine (NULL is not true):
/// some column it compares is not guarded by an `IS NOT NULL` conjunct and
/// the comparison is not null-safe (`<=>`, `coalesce`, `nvl`, `IS DISTINCT FROM`).
pub fn can_be_null(rule: &str) -> Option<bool> {
    Some(!nullable_operands(rule)?.is_empty())
}

/// The operands (normalised SQL text) through which a rule can be NULL: the
/// compared operands no `IS NOT NULL` conjunct guards and no null-safe form
/// covers; an opaque atom counts as its own text.
pub fn nullable_operands(rule: &str) -> Option<Vec<String>> {
    Some(nullable_operands_of(&normalise(rule)?))
}

/// [`nullable_operands`] of a normalised rule.
fn nullable_operands_of(p: &Predicate) -> Vec<String> {
    let conjuncts = match p {
        Predicate::And(parts) => parts.clone(),
        other => vec![other.clone()],
    };
    let guarded: Vec<&str> = conjuncts
        .iter()
        .filter_map(|c| match c {
            Predicate::IsNull {
                operand,
                negated: true,
            } => Some(operand.as_str()),
            _ => None,
        })
        .collect();
    let mut found = Vec::new();
    for c in &conjuncts {
        nullable(c, &guarded, &mut found);
    }
    found.sort();
    found.dedup();
    found
}

fn nullable(p: &Predicate, guarded: &[&str], found: &mut Vec<String>) {
    match p {
        Predicate::And(parts) | Predicate::Or(parts) => {
            for q in parts {
                nullable(q, guarded, found);
            }
        }
        Predicate::Not(inner) => nullable(inner, guarded, found),
        Predicate::IsNull { .. } => {}
        Predicate::Compare { lhs, rhs, .. } => {
            for operand in [lhs, rhs] {
                // A guarded operand (`price * 2 IS NOT NULL`) as a whole.
                if guarded.contains(&operand.as_str()) {
                    continue;
                }
                for column in null_propagating_columns(operand) {
                    if !guarded.contains(&column.as_str()) {
                        found.push(column);
                    }
                }
            }
        }
        // What the normaliser does not see into (`IN`, `LIKE`, a function
        // call) may be guarded in ways it cannot tell: no NULL gap is
        // claimed for it.
        Predicate::Atom(_) => {}
    }
}

/// The columns through which an operand (normalised SQL text) is NULL:
/// every column under operators and functions that are NULL exactly when
/// an input is (arithmetic, `-x`, `length`, `upper`, `abs`, ...), so
/// `price * 2` is NULL when `price` is. A null-safe form (`coalesce`,
/// `nvl`, `ifnull`) or anything else (a cast, another function, a
/// division, which is NULL on a zero divisor too) gives none: no gap is
/// claimed through it.
fn null_propagating_columns(operand: &str) -> Vec<String> {
    let Some(expr) = Parser::new(&DatabricksDialect {})
        .try_with_sql(operand)
        .ok()
        .and_then(|mut p| p.parse_expr().ok())
    else {
        return Vec::new();
    };
    let mut columns = Vec::new();
    if !strict_columns(&expr, &mut columns) {
        return Vec::new();
    }
    columns.sort();
    columns.dedup();
    columns
}

/// Collects the columns of `expr`; false when some part is not strict
/// (NULL on a non-NULL input, or not NULL on a NULL one).
fn strict_columns(expr: &Expr, out: &mut Vec<String>) -> bool {
    use sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
    match expr {
        Expr::Nested(inner) => strict_columns(inner, out),
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => {
            out.push(text(expr));
            true
        }
        Expr::Value(_) => true,
        Expr::UnaryOp {
            op: UnaryOperator::Minus | UnaryOperator::Plus,
            expr,
        } => strict_columns(expr, out),
        Expr::BinaryOp { left, op, right } => {
            matches!(
                op,
                BinaryOperator::Plus
                    | BinaryOperator::Minus
                    | BinaryOperator::Multiply
                    | BinaryOperator::StringConcat
            ) && strict_columns(left, out)
                && strict_columns(right, out)
        }
        Expr::Function(f) => {
            const STRICT: [&str; 11] = [
                "length",
                "char_length",
                "character_length",
                "upper",
                "lower",
                "ucase",
                "lcase",
                "trim",
                "ltrim",
                "rtrim",
                "abs",
            ];
            let name = f.name.to_string().to_ascii_lowercase();
            let FunctionArguments::List(list) = &f.args else {
                return false;
            };
            STRICT.contains(&name.as_str())
                && f.filter.is_none()
                && f.over.is_none()
                && list.args.iter().all(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => strict_columns(e, out),
                    _ => false,
                })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_002_exact_negation_is_equivalent() {
        let rule = "price IS NOT NULL AND price > 0";
        assert_eq!(
            is_negation_of_all(&format!("NOT ({rule})"), &[rule]),
            Some(true)
        );
        assert_eq!(
            is_negation_of_all("price IS NULL OR price <= 0", &[rule]),
            Some(true)
        );
    }

    #[test]
    fn one_rule_of_several_is_not_the_negation() {
        let rules = ["price > 0", "qty >= 1"];
        assert_eq!(is_negation_of_all("NOT (price > 0)", &rules), Some(false));
        assert_eq!(
            is_negation_of_all("NOT (price > 0) AND NOT (qty >= 1)", &rules),
            Some(false),
            "keeps only rows failing all rules"
        );
        assert_eq!(
            is_negation_of_all("NOT(price > 0 AND qty >= 1)", &rules),
            Some(true)
        );
        assert_eq!(
            is_negation_of_all("qty < 1 OR price <= 0", &rules),
            Some(true)
        );
    }

    #[test]
    fn predicates_above_the_limit_are_not_analysed_and_the_limit_fits_a_small_stack() {
        let chain = |n: usize| {
            (0..n)
                .map(|i| format!("c{i} > {i}"))
                .collect::<Vec<_>>()
                .join(" AND ")
        };
        let at_limit = chain(MAX_OPERATORS + 1);
        let normalised = std::thread::Builder::new()
            .stack_size(2 * 1024 * 1024)
            .spawn(move || normalise(&at_limit).is_some())
            .unwrap()
            .join()
            .expect("no stack overflow");
        assert!(normalised);
        assert_eq!(normalise(&chain(4000)), None);
        assert_eq!(equivalent(&chain(4000), &chain(4000)), None);
    }

    #[test]
    fn written_negations_and_function_forms() {
        for (a, b) in [
            (
                "NOT (status IN ('OPEN','CLOSED'))",
                "status NOT IN ('OPEN', 'CLOSED')",
            ),
            ("NOT (x BETWEEN 1 AND 5)", "x NOT BETWEEN 1 AND 5"),
            ("NOT (name LIKE 'a%')", "name NOT LIKE 'a%'"),
            ("NOT (name ILIKE 'a%')", "name NOT ILIKE 'a%'"),
            ("NOT (`price` > 0)", "price <= 0"),
            ("NOT (a IS NOT NULL)", "isnull(a)"),
            ("a IS NOT NULL", "isnotnull(A)"),
            ("NOT (a IS TRUE)", "a IS NOT TRUE"),
        ] {
            assert_eq!(equivalent(a, b), Some(true), "{a} vs {b}");
        }
        assert_eq!(equivalent("NOT (x IN (1))", "x IN (1)"), Some(false));
    }

    #[test]
    fn null_gap() {
        assert_eq!(can_be_null("price > 0"), Some(true));
        assert_eq!(can_be_null("price IS NOT NULL AND price > 0"), Some(false));
        assert_eq!(can_be_null("coalesce(price, 0) > 0"), Some(false));
        assert_eq!(can_be_null("currency_code IS NOT NULL"), Some(false));
        for never_null in [
            "coalesce(price > 0, false)",
            "nvl(price > 0, false)",
            "isnotnull(price) AND price > 0",
            "NOT isnull(price) AND price > 0",
            "(price > 0) IS TRUE",
            "CASE WHEN price IS NULL THEN false ELSE price > 0 END",
        ] {
            assert_eq!(can_be_null(never_null), Some(false), "{never_null}");
        }
    }

    // Property test: a hand-rolled generator of predicates over two
    // nullable integer columns and a nullable string column (whose literals
    // differ only in case), evaluated under three-valued logic.
    #[derive(Clone, Debug)]
    enum G {
        Cmp(&'static str, &'static str, i64),
        /// `s = 'A'` (0) or `s <> 'a'` (1): string equality is case-sensitive.
        Str(&'static str, i64),
        IsNull(&'static str, bool),
        /// `isnull(c)` (false) or `isnotnull(c)` (true).
        FnNull(&'static str, bool),
        /// `c [NOT] IN (1, 2)`, `c [NOT] BETWEEN 1 AND 2`, `(c > 1) IS [NOT] TRUE`.
        In(&'static str, bool),
        Between(&'static str, bool),
        IsTrue(&'static str, bool),
        Not(Box<G>),
        And(Box<G>, Box<G>),
        Or(Box<G>, Box<G>),
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn pick(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    const COLS: [&str; 2] = ["a", "b"];
    const OPS: [&str; 6] = ["=", "<>", "<", "<=", ">", ">="];

    fn gen(rng: &mut Rng, depth: u32) -> G {
        let leaf = depth == 0 || rng.pick(3) == 0;
        if leaf {
            let col = COLS[rng.pick(2) as usize];
            if rng.pick(5) == 0 {
                G::Str(["=", "<>"][rng.pick(2) as usize], rng.pick(2) as i64)
            } else if rng.pick(4) == 0 {
                G::IsNull(col, rng.pick(2) == 0)
            } else if rng.pick(3) == 0 {
                let negated = rng.pick(2) == 0;
                match rng.pick(4) {
                    0 => G::FnNull(col, negated),
                    1 => G::In(col, negated),
                    2 => G::Between(col, negated),
                    _ => G::IsTrue(col, negated),
                }
            } else {
                G::Cmp(col, OPS[rng.pick(6) as usize], rng.pick(3) as i64)
            }
        } else {
            match rng.pick(3) {
                0 => G::Not(Box::new(gen(rng, depth - 1))),
                1 => G::And(Box::new(gen(rng, depth - 1)), Box::new(gen(rng, depth - 1))),
                _ => G::Or(Box::new(gen(rng, depth - 1)), Box::new(gen(rng, depth - 1))),
            }
        }
    }

    fn sql(g: &G) -> String {
        match g {
            G::Cmp(c, op, v) => format!("{c} {op} {v}"),
            G::Str(op, v) => format!("s {op} '{}'", ["A", "a"][*v as usize]),
            G::IsNull(c, true) => format!("{c} IS NOT NULL"),
            G::IsNull(c, false) => format!("{c} IS NULL"),
            G::FnNull(c, true) => format!("isnotnull(`{c}`)"),
            G::FnNull(c, false) => format!("isnull({c})"),
            G::In(c, n) => format!("{c} {}IN (1, 2)", if *n { "NOT " } else { "" }),
            G::Between(c, n) => format!("`{c}` {}BETWEEN 1 AND 2", if *n { "NOT " } else { "" }),
            G::IsTrue(c, n) => format!("({c} > 1) IS {}TRUE", if *n { "NOT " } else { "" }),
            G::Not(x) => format!("NOT ({})", sql(x)),
            G::And(x, y) => format!("({}) AND ({})", sql(x), sql(y)),
            G::Or(x, y) => format!("({}) OR ({})", sql(x), sql(y)),
        }
    }

    /// Rewrites that keep the meaning: De Morgan, commuting, double negation.
    fn rewrite(g: &G, rng: &mut Rng) -> G {
        match g {
            G::And(x, y) => match rng.pick(3) {
                0 => G::Not(Box::new(G::Or(
                    Box::new(G::Not(Box::new(rewrite(x, rng)))),
                    Box::new(G::Not(Box::new(rewrite(y, rng)))),
                ))),
                1 => G::And(Box::new(rewrite(y, rng)), Box::new(rewrite(x, rng))),
                _ => G::And(Box::new(rewrite(x, rng)), Box::new(rewrite(y, rng))),
            },
            G::Or(x, y) => match rng.pick(2) {
                0 => G::Not(Box::new(G::And(
                    Box::new(G::Not(Box::new(rewrite(x, rng)))),
                    Box::new(G::Not(Box::new(rewrite(y, rng)))),
                ))),
                _ => G::Or(Box::new(rewrite(y, rng)), Box::new(rewrite(x, rng))),
            },
            G::Not(x) => {
                if rng.pick(2) == 0 {
                    G::Not(Box::new(G::Not(Box::new(G::Not(Box::new(rewrite(
                        x, rng,
                    )))))))
                } else {
                    G::Not(Box::new(rewrite(x, rng)))
                }
            }
            leaf => leaf.clone(),
        }
    }

    /// Three-valued evaluation: `None` is NULL.
    fn eval(g: &G, row: [Option<f64>; 3]) -> Option<bool> {
        let col = |c: &str| row[if c == "a" { 0 } else { 1 }];
        match g {
            G::Cmp(c, op, v) => col(c).map(|x| match *op {
                "=" => x == *v as f64,
                "<>" => x != *v as f64,
                "<" => x < *v as f64,
                "<=" => x <= *v as f64,
                ">" => x > *v as f64,
                _ => x >= *v as f64,
            }),
            G::Str(op, v) => row[2].map(|x| (x == *v as f64) == (*op == "=")),
            G::IsNull(c, negated) | G::FnNull(c, negated) => Some(col(c).is_none() != *negated),
            G::In(c, n) => col(c).map(|x| (x == 1.0 || x == 2.0) != *n),
            G::Between(c, n) => col(c).map(|x| (1.0..=2.0).contains(&x) != *n),
            G::IsTrue(c, n) => Some((col(c).map(|x| x > 1.0) == Some(true)) != *n),
            G::Not(x) => eval(x, row).map(|b| !b),
            G::And(x, y) => match (eval(x, row), eval(y, row)) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            G::Or(x, y) => match (eval(x, row), eval(y, row)) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
        }
    }

    fn rows() -> Vec<[Option<f64>; 3]> {
        let values = [None, Some(0.0), Some(1.0), Some(2.0), Some(3.0)];
        let strings = [None, Some(0.0), Some(1.0)];
        values
            .iter()
            .flat_map(|a| values.iter().map(move |b| (*a, *b)))
            .flat_map(|(a, b)| strings.iter().map(move |s| [a, b, *s]))
            .collect()
    }

    #[test]
    fn string_literals_keep_their_case() {
        assert_eq!(equivalent("STATUS = 'A'", "status = 'A'"), Some(true));
        assert_eq!(equivalent("status = 'A'", "status = 'a'"), Some(false));
    }

    #[test]
    fn nullable_operands_of_a_rule() {
        assert_eq!(
            nullable_operands("price > 0 AND qty IS NOT NULL AND qty >= 1"),
            Some(vec!["price".to_string()])
        );
        // A computed operand is NULL through its columns.
        assert_eq!(
            nullable_operands("price * 2 > qty"),
            Some(vec!["price".to_string(), "qty".to_string()])
        );
        assert_eq!(
            nullable_operands("-price < length(code)"),
            Some(vec!["code".to_string(), "price".to_string()])
        );
        for guarded in [
            "price IS NOT NULL AND price * 2 > 0",
            "price * 2 IS NOT NULL AND price * 2 > 0",
            "id IS NOT NULL AND length(id) = 10",
            "coalesce(price, 0) * 2 > 0",
            // Not claimed: NULL on a zero divisor or a failed cast as well.
            "price / qty > 0",
            "CAST(code AS INT) > 0",
        ] {
            assert_eq!(nullable_operands(guarded), Some(vec![]), "{guarded}");
        }
    }

    #[test]
    fn equivalent_rewrites_normalise_equal() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..500 {
            let g = gen(&mut rng, 4);
            let h = rewrite(&g, &mut rng);
            assert!(
                rows().iter().all(|r| eval(&g, *r) == eval(&h, *r)),
                "the rewrite itself keeps the meaning"
            );
            assert_eq!(
                equivalent(&sql(&g), &sql(&h)),
                Some(true),
                "{} vs {}",
                sql(&g),
                sql(&h)
            );
        }
    }

    #[test]
    fn predicates_differing_on_a_row_are_never_equivalent() {
        let mut rng = Rng(0xD1B5_4A32_D192_ED03);
        let mut called_equal = 0;
        for _ in 0..3000 {
            let g = gen(&mut rng, 3);
            let h = if rng.pick(2) == 0 {
                gen(&mut rng, 3)
            } else {
                rewrite(&g, &mut rng)
            };
            if equivalent(&sql(&g), &sql(&h)) == Some(true) {
                called_equal += 1;
                for row in rows() {
                    assert_eq!(
                        eval(&g, row),
                        eval(&h, row),
                        "{} vs {} on {row:?}",
                        sql(&g),
                        sql(&h)
                    );
                }
            }
        }
        assert!(called_equal > 100, "the generator exercises the equal case");
    }

    /// A witness row in the property test's terms: `s` is 0 for 'A', 1
    /// for 'a', 2 for any other text; a column only tested for NULL is 0.
    fn as_test_row(row: &crate::witness::Row) -> [Option<f64>; 3] {
        use crate::witness::Cell;
        let mut out = [None; 3];
        for cell in &row.cells {
            let at = match cell.name.as_str() {
                "a" => 0,
                "b" => 1,
                "s" => 2,
                other => panic!("unexpected slot {other}"),
            };
            out[at] = match &cell.value {
                Cell::Null => None,
                Cell::Number(n) => Some(*n),
                Cell::Text(t) if t == "A" => Some(0.0),
                Cell::Text(t) if t == "a" => Some(1.0),
                Cell::Text(_) => Some(2.0),
                Cell::Present => Some(0.0),
                Cell::Bool(b) => panic!("no boolean column, got {b}"),
            };
        }
        out
    }

    #[test]
    fn a_witness_row_is_real_and_found_whenever_one_exists() {
        let mut rng = Rng(0x5851_F42D_4C95_7F2D);
        let (mut different, mut shown_equal_by_search) = (0, 0);
        for _ in 0..1500 {
            let g = gen(&mut rng, 3);
            let h = if rng.pick(2) == 0 {
                gen(&mut rng, 3)
            } else {
                rewrite(&g, &mut rng)
            };
            let (gs, hs) = (sql(&g), sql(&h));
            let found = crate::witness::find_row(&[&gs, &hs], |v| v[0] != v[1]);
            let differs_on_test_rows = rows().iter().any(|r| eval(&g, *r) != eval(&h, *r));
            match &found {
                Some(row) => {
                    different += 1;
                    let r = as_test_row(row);
                    assert_ne!(eval(&g, r), eval(&h, r), "{gs} vs {hs}: {row}");
                    assert_eq!(row.values, vec![eval(&g, r), eval(&h, r)], "{gs} vs {hs}");
                }
                None => {
                    shown_equal_by_search += 1;
                    assert!(!differs_on_test_rows, "{gs} vs {hs}: no witness found");
                }
            }
            if equivalent(&gs, &hs) == Some(true) {
                assert!(
                    found.is_none(),
                    "{gs} vs {hs}: normalised equal, row {found:?}"
                );
            }
        }
        assert!(different > 100 && shown_equal_by_search > 100);
    }

    #[test]
    fn plain_comparisons_that_keep_the_same_rows_have_no_witness() {
        use crate::witness::find_row;
        let differ = |a: &str, b: &str| find_row(&[a, b], |v| v[0] != v[1]).map(|r| r.to_string());
        assert_eq!(differ("a > 0 AND a > 1", "a > 1"), None);
        assert_eq!(differ("a < 1 OR a > 5", "NOT (a BETWEEN 1 AND 5)"), None);
        assert_eq!(
            differ("NOT coalesce(a > 0, false)", "a IS NULL OR a <= 0"),
            None
        );
        // On integers the same rows, not on decimals: a = 0.5 tells them apart.
        assert_eq!(differ("a >= 1", "a > 0"), Some("a = 0.5".to_string()));
        assert_eq!(differ("price * 2 > 0", "price > 0"), None);
        // An unmodelled part on its own columns is a free atom.
        assert!(differ("length(id) = 10 AND price > 0", "price > 0").is_some());
        // Sharing a column with a modelled part, it is not searched.
        assert_eq!(
            differ("id IS NOT NULL AND length(id) = 10", "id IS NOT NULL"),
            None
        );
    }
}
