//! Circuit breakers read statically: a bound on the share of a batch that
//! goes to quarantine, written as a comparison of two counts (seed 004: "if
//! the number of records in the quarantine table exceeds 5% of the total
//! record count of the batch, the pipeline is configured to fail").
//!
//! Two dialects write one:
//!
//! - DLT: a view or materialized view reading the clean and the quarantine
//!   datasets, with a fail expectation comparing their counts
//!   (`quarantined <= 0.05 * total`, `q / t <= 0.05`,
//!   `q * 100 <= 5 * t`). The expectation *holds* on a good batch.
//! - DQX (0.16+, `actions/`): `DQAction(condition=..., action=FailPipeline())`
//!   on the engine, whose condition over the observer's metrics
//!   (`input_row_count`, `error_row_count`, `warning_row_count`,
//!   `valid_row_count`, and custom metrics by alias) *fires* on a bad
//!   batch (`error_row_count / input_row_count > 0.05`).
//!
//! [`count_bound`] reads either text into one [`CountBound`]: the counts
//! compared, the largest share of bad rows that passes, and the division by
//! a count, if any, with whether a zero count is guarded. An empty batch
//! makes an unguarded `q / t` a division by zero: Spark under ANSI mode
//! fails the update, without it the expectation sees NULL; DQX's condition
//! evaluator turns the `ZeroDivisionError` into `InvalidConditionError`.
//! Texts this reader does not follow are no breaker (`None`), never a guess.

use std::ops::Range;

use crate::model::{Constraint, Dataset, DatasetKind, ExpectAction, PipelineExpectation};
use crate::predicate::Cmp;
use crate::quarantine::{dataset_key, InFile};

/// Which way a comparison reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sense {
    /// True on a good batch: a DLT expectation.
    Holds,
    /// True on a bad batch: a DQX action condition.
    Fires,
}

/// A bound on the share of bad rows: `bad / total <= max_ratio` (or `<`)
/// passes.
#[derive(Clone, Debug, PartialEq)]
pub struct CountBound {
    /// The names summed into the bad count (`quarantined`, `error_row_count`).
    pub bad: Vec<String>,
    /// The names summed into the total it is compared with.
    pub total: Vec<String>,
    /// The largest share of bad rows that passes.
    pub max_ratio: f64,
    /// Whether exactly `max_ratio` passes (`<=`) or not (`<`).
    pub inclusive: bool,
    /// The division by a count, when the text divides.
    pub division: Option<Division>,
}

/// A division by a count in a breaker's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Division {
    /// The divisor, as bytes of the text.
    pub divisor: Range<usize>,
    /// A zero count cannot reach the division: an alternative for it
    /// (`t = 0 OR q / t <= r`; DQX: `input_row_count > 0 and ...`),
    /// `nullif(t, 0)` under `coalesce`, `greatest(t, 1)`, `t + 1`.
    pub guarded: bool,
}

/// The longest text read (a breaker is one comparison, not a rule set).
const MAX_TEXT: usize = 4096;
/// The deepest nesting followed.
const MAX_DEPTH: usize = 48;

/// The bound `text` puts on a bad count against a total, read in `sense`.
/// `None` when the text is no comparison of two counts this reader follows.
pub fn count_bound(text: &str, sense: Sense) -> Option<CountBound> {
    if text.len() > MAX_TEXT {
        return None;
    }
    let expr = Parser::new(text)?.parse()?;
    bound_in(&expr, sense, &[])
}

/// [`count_bound`] of a DQX condition whose names may be custom metrics:
/// `aliases` gives each alias's SQL (`error_row_count * 1.0 /
/// input_row_count`), read in its place.
pub fn count_bound_with_aliases(
    text: &str,
    sense: Sense,
    aliases: &[(String, String)],
) -> Option<CountBound> {
    if text.len() > MAX_TEXT {
        return None;
    }
    let mut expr = Parser::new(text)?.parse()?;
    for (alias, sql) in aliases {
        if sql.len() > MAX_TEXT {
            continue;
        }
        if let Some(replacement) = Parser::new(sql).and_then(|p| p.parse()) {
            expr = substitute(expr, alias, &replacement, 0);
        }
    }
    bound_in(&expr, sense, &[])
}

/// A DLT breaker: a dataset reading other datasets with a fail expectation
/// that bounds one count against another.
#[derive(Debug)]
pub struct DltBreaker<'a> {
    pub dataset: InFile<'a, Dataset>,
    pub expectation: &'a PipelineExpectation,
    pub bound: CountBound,
}

impl DltBreaker<'_> {
    /// Whether the breaker reads the dataset named `name` (compared as
    /// [`dataset_key`]s).
    pub fn reads(&self, name: &str) -> bool {
        let key = dataset_key(name);
        self.dataset
            .1
            .reads
            .iter()
            .any(|r| dataset_key(&r.source.name) == key)
    }
}

/// Every DLT breaker among `datasets`: a view or materialized view (not a
/// streaming table) that reads at least two datasets and has a fail
/// expectation [`count_bound`] reads.
pub fn dlt_breakers<'a>(datasets: &[InFile<'a, Dataset>]) -> Vec<DltBreaker<'a>> {
    let mut found = Vec::new();
    for &(file, dataset) in datasets {
        if dataset.kind == DatasetKind::StreamingTable || distinct_reads(dataset) < 2 {
            continue;
        }
        for expectation in &dataset.expectations {
            if expectation.action != ExpectAction::Fail {
                continue;
            }
            let Constraint::Known(text) = &expectation.constraint else {
                continue;
            };
            if let Some(bound) = count_bound(&text.text, Sense::Holds) {
                found.push(DltBreaker {
                    dataset: (file, dataset),
                    expectation,
                    bound,
                });
            }
        }
    }
    found
}

fn distinct_reads(dataset: &Dataset) -> usize {
    let mut keys: Vec<String> = dataset
        .reads
        .iter()
        .map(|r| dataset_key(&r.source.name))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys.len()
}

// ---------------------------------------------------------------------------
// The expression: the arithmetic and boolean subset both dialects share.
// ---------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Expr {
    Number(f64),
    Name(String),
    Call {
        name: String,
        args: Vec<Node>,
    },
    Neg(Box<Node>),
    Arith {
        op: Arith,
        lhs: Box<Node>,
        rhs: Box<Node>,
    },
    Compare {
        op: Cmp,
        lhs: Box<Node>,
        rhs: Box<Node>,
    },
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Not(Box<Node>),
}

#[derive(Clone, Debug, PartialEq)]
struct Node {
    expr: Expr,
    span: Range<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arith {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Number(f64),
    Word(String),
    Op(&'static str),
    Open,
    Close,
    Comma,
}

fn tokenize(text: &str) -> Option<Vec<(Token, Range<usize>)>> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            if i < bytes.len() && matches!(bytes[i], b'e' | b'E') {
                let mut j = i + 1;
                if j < bytes.len() && matches!(bytes[j], b'+' | b'-') {
                    j += 1;
                }
                if j < bytes.len() && bytes[j].is_ascii_digit() {
                    i = j;
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let number: f64 = text[start..i].parse().ok()?;
            // SQL's typed literals (`0.05D`, `100L`, `5BD`).
            while i < bytes.len() && matches!(bytes[i], b'D' | b'd' | b'L' | b'l' | b'B' | b'F') {
                i += 1;
            }
            tokens.push((Token::Number(number), start..i));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'`' {
            let mut word = String::new();
            loop {
                if i < bytes.len() && bytes[i] == b'`' {
                    let close = text[i + 1..].find('`')? + i + 1;
                    word.push_str(&text[i + 1..close]);
                    i = close + 1;
                } else if i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_')
                {
                    word.push(bytes[i] as char);
                    i += 1;
                } else {
                    break;
                }
                // A qualified name (`q.cnt`) is one name.
                if i + 1 < bytes.len()
                    && bytes[i] == b'.'
                    && (bytes[i + 1].is_ascii_alphabetic()
                        || bytes[i + 1] == b'_'
                        || bytes[i + 1] == b'`')
                {
                    word.push('.');
                    i += 1;
                }
            }
            tokens.push((Token::Word(word), start..i));
            continue;
        }
        let two = text.get(i..i + 2).unwrap_or("");
        let (op, len): (&'static str, usize) = match two {
            "<=" => ("<=", 2),
            ">=" => (">=", 2),
            "==" => ("=", 2),
            "!=" | "<>" => ("<>", 2),
            // `**`, `//`, `||` are not followed.
            "**" | "//" | "||" => return None,
            _ => match c {
                b'<' => ("<", 1),
                b'>' => (">", 1),
                b'=' => ("=", 1),
                b'+' => ("+", 1),
                b'-' => ("-", 1),
                b'*' => ("*", 1),
                b'/' => ("/", 1),
                b'(' | b')' | b',' => {
                    let token = match c {
                        b'(' => Token::Open,
                        b')' => Token::Close,
                        _ => Token::Comma,
                    };
                    tokens.push((token, start..i + 1));
                    i += 1;
                    continue;
                }
                // Anything else (strings, `%`, parameters) is not followed.
                _ => return None,
            },
        };
        i += len;
        tokens.push((Token::Op(op), start..i));
    }
    Some(tokens)
}

struct Parser {
    tokens: Vec<(Token, Range<usize>)>,
    at: usize,
    depth: usize,
}

impl Parser {
    fn new(text: &str) -> Option<Parser> {
        Some(Parser {
            tokens: tokenize(text)?,
            at: 0,
            depth: 0,
        })
    }

    fn parse(mut self) -> Option<Node> {
        let node = self.or()?;
        (self.at == self.tokens.len()).then_some(node)
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at).map(|(t, _)| t)
    }

    fn keyword(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Token::Word(w)) if w.eq_ignore_ascii_case(word))
            || matches!(self.peek(), Some(Token::Op(o)) if *o == word)
    }

    fn end_of_previous(&self) -> usize {
        self.tokens
            .get(self.at.wrapping_sub(1))
            .map_or(0, |(_, s)| s.end)
    }

    fn start(&self) -> usize {
        self.tokens.get(self.at).map_or(0, |(_, s)| s.start)
    }

    fn deeper(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    fn or(&mut self) -> Option<Node> {
        self.deeper()?;
        let start = self.start();
        let mut lhs = self.and()?;
        while self.keyword("or") {
            self.at += 1;
            let rhs = self.and()?;
            lhs = Node {
                expr: Expr::Or(Box::new(lhs), Box::new(rhs)),
                span: start..self.end_of_previous(),
            };
        }
        self.depth -= 1;
        Some(lhs)
    }

    fn and(&mut self) -> Option<Node> {
        let start = self.start();
        let mut lhs = self.not()?;
        while self.keyword("and") {
            self.at += 1;
            let rhs = self.not()?;
            lhs = Node {
                expr: Expr::And(Box::new(lhs), Box::new(rhs)),
                span: start..self.end_of_previous(),
            };
        }
        Some(lhs)
    }

    fn not(&mut self) -> Option<Node> {
        let start = self.start();
        if self.keyword("not") {
            self.at += 1;
            self.deeper()?;
            let inner = self.not()?;
            self.depth -= 1;
            return Some(Node {
                expr: Expr::Not(Box::new(inner)),
                span: start..self.end_of_previous(),
            });
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Option<Node> {
        let start = self.start();
        let lhs = self.sum()?;
        let op = match self.peek() {
            Some(Token::Op("<")) => Cmp::Lt,
            Some(Token::Op("<=")) => Cmp::LtEq,
            Some(Token::Op(">")) => Cmp::Gt,
            Some(Token::Op(">=")) => Cmp::GtEq,
            Some(Token::Op("=")) => Cmp::Eq,
            Some(Token::Op("<>")) => Cmp::NotEq,
            _ => return Some(lhs),
        };
        self.at += 1;
        let rhs = self.sum()?;
        // A chained comparison (`0 < a < b`) is not followed.
        if matches!(
            self.peek(),
            Some(Token::Op("<" | "<=" | ">" | ">=" | "=" | "<>"))
        ) {
            return None;
        }
        Some(Node {
            expr: Expr::Compare {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            span: start..self.end_of_previous(),
        })
    }

    fn sum(&mut self) -> Option<Node> {
        self.left_associative(Self::product, |token| match token {
            Token::Op("+") => Some(Arith::Add),
            Token::Op("-") => Some(Arith::Sub),
            _ => None,
        })
    }

    fn product(&mut self) -> Option<Node> {
        self.left_associative(Self::unary, |token| match token {
            Token::Op("*") => Some(Arith::Mul),
            Token::Op("/") => Some(Arith::Div),
            _ => None,
        })
    }

    /// `operand (op operand)*`, folded to the left: one precedence level.
    fn left_associative(
        &mut self,
        operand: fn(&mut Self) -> Option<Node>,
        op_of: fn(&Token) -> Option<Arith>,
    ) -> Option<Node> {
        let start = self.start();
        let mut lhs = operand(self)?;
        while let Some(op) = self.peek().and_then(op_of) {
            self.at += 1;
            let rhs = operand(self)?;
            lhs = Node {
                expr: Expr::Arith {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span: start..self.end_of_previous(),
            };
        }
        Some(lhs)
    }

    fn unary(&mut self) -> Option<Node> {
        let start = self.start();
        match self.peek() {
            Some(Token::Op("-")) => {
                self.at += 1;
                self.deeper()?;
                let inner = self.unary()?;
                self.depth -= 1;
                Some(Node {
                    expr: Expr::Neg(Box::new(inner)),
                    span: start..self.end_of_previous(),
                })
            }
            Some(Token::Op("+")) => {
                self.at += 1;
                self.unary()
            }
            _ => self.primary(),
        }
    }

    fn primary(&mut self) -> Option<Node> {
        let (token, span) = self.tokens.get(self.at)?.clone();
        self.at += 1;
        match token {
            Token::Number(n) => Some(Node {
                expr: Expr::Number(n),
                span,
            }),
            Token::Open => {
                let inner = self.or()?;
                if self.peek() != Some(&Token::Close) {
                    return None;
                }
                self.at += 1;
                Some(inner)
            }
            Token::Word(word) => {
                if ["and", "or", "not"]
                    .iter()
                    .any(|k| word.eq_ignore_ascii_case(k))
                {
                    return None;
                }
                if self.peek() != Some(&Token::Open) {
                    return Some(Node {
                        expr: Expr::Name(word),
                        span,
                    });
                }
                self.at += 1;
                self.deeper()?;
                let mut args = Vec::new();
                if self.peek() == Some(&Token::Close) {
                    self.at += 1;
                } else {
                    loop {
                        // `count(*)`.
                        if self.peek() == Some(&Token::Op("*"))
                            && matches!(self.tokens.get(self.at + 1), Some((Token::Close, _)))
                        {
                            let star = self.tokens[self.at].1.clone();
                            self.at += 1;
                            args.push(Node {
                                expr: Expr::Name("*".to_string()),
                                span: star,
                            });
                        } else {
                            args.push(self.or()?);
                        }
                        match self.peek() {
                            Some(Token::Comma) => self.at += 1,
                            Some(Token::Close) => {
                                self.at += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                self.depth -= 1;
                Some(Node {
                    expr: Expr::Call {
                        name: word.to_ascii_lowercase(),
                        args,
                    },
                    span: span.start..self.end_of_previous(),
                })
            }
            _ => None,
        }
    }
}

fn substitute(node: Node, alias: &str, by: &Node, depth: usize) -> Node {
    if depth > MAX_DEPTH {
        return node;
    }
    let go = |n: Box<Node>| Box::new(substitute(*n, alias, by, depth + 1));
    let expr = match node.expr {
        Expr::Name(ref n) if n.eq_ignore_ascii_case(alias) => {
            // The alias's text is elsewhere: the divisor's span is the alias.
            return relocate(by.clone(), &node.span);
        }
        Expr::Call { name, args } => Expr::Call {
            name,
            args: args
                .into_iter()
                .map(|a| substitute(a, alias, by, depth + 1))
                .collect(),
        },
        Expr::Neg(a) => Expr::Neg(go(a)),
        Expr::Arith { op, lhs, rhs } => Expr::Arith {
            op,
            lhs: go(lhs),
            rhs: go(rhs),
        },
        Expr::Compare { op, lhs, rhs } => Expr::Compare {
            op,
            lhs: go(lhs),
            rhs: go(rhs),
        },
        Expr::And(a, b) => Expr::And(go(a), go(b)),
        Expr::Or(a, b) => Expr::Or(go(a), go(b)),
        Expr::Not(a) => Expr::Not(go(a)),
        other => other,
    };
    Node {
        expr,
        span: node.span,
    }
}

/// Every span of `node` set to `span` (a substituted alias).
fn relocate(node: Node, span: &Range<usize>) -> Node {
    let go = |n: Box<Node>| Box::new(relocate(*n, span));
    let expr = match node.expr {
        Expr::Call { name, args } => Expr::Call {
            name,
            args: args.into_iter().map(|a| relocate(a, span)).collect(),
        },
        Expr::Neg(a) => Expr::Neg(go(a)),
        Expr::Arith { op, lhs, rhs } => Expr::Arith {
            op,
            lhs: go(lhs),
            rhs: go(rhs),
        },
        Expr::Compare { op, lhs, rhs } => Expr::Compare {
            op,
            lhs: go(lhs),
            rhs: go(rhs),
        },
        Expr::And(a, b) => Expr::And(go(a), go(b)),
        Expr::Or(a, b) => Expr::Or(go(a), go(b)),
        Expr::Not(a) => Expr::Not(go(a)),
        other => other,
    };
    Node {
        expr,
        span: span.clone(),
    }
}

// ---------------------------------------------------------------------------
// Reading the bound.
// ---------------------------------------------------------------------------

/// The bound in `node`, read in `sense`; `guards` are the comparisons that
/// hold wherever `node` is evaluated for a bad batch (the other side of an
/// `OR` for `Holds`, of an `AND` for `Fires`).
fn bound_in(node: &Node, sense: Sense, guards: &[&Node]) -> Option<CountBound> {
    match (&node.expr, sense) {
        (Expr::Compare { op, lhs, rhs }, _) => compare_bound(*op, lhs, rhs, sense, guards),
        // `t = 0 OR q / t <= r`: the bound is the alternative that compares counts.
        (Expr::Or(a, b), Sense::Holds) | (Expr::And(a, b), Sense::Fires) => {
            let with_b: Vec<&Node> = guards.iter().copied().chain([b.as_ref()]).collect();
            let with_a: Vec<&Node> = guards.iter().copied().chain([a.as_ref()]).collect();
            match (bound_in(a, sense, &with_b), bound_in(b, sense, &with_a)) {
                (Some(x), None) | (None, Some(x)) => Some(x),
                _ => None,
            }
        }
        (Expr::Not(inner), _) => {
            let flipped = match sense {
                Sense::Holds => Sense::Fires,
                Sense::Fires => Sense::Holds,
            };
            // A guard is read in the sense of its own position; under NOT
            // the guards above no longer apply as written.
            bound_in(inner, flipped, &[])
        }
        _ => None,
    }
}

fn compare_bound(
    op: Cmp,
    lhs: &Node,
    rhs: &Node,
    sense: Sense,
    guards: &[&Node],
) -> Option<CountBound> {
    // The comparison as it passes a good batch.
    let op = match sense {
        Sense::Holds => op,
        Sense::Fires => op.inverse(),
    };
    let (op, left, right) = match op {
        Cmp::Lt | Cmp::LtEq => (op, lhs, rhs),
        Cmp::Gt | Cmp::GtEq => (op.flipped(), rhs, lhs),
        Cmp::Eq | Cmp::NotEq => return None,
    };
    // `small <= big`: small = k1 * A / D1, big = k2 * B / D2.
    let small = linear(left, 0)?;
    let big = linear(right, 0)?;
    let (bad, total, ratio, divisor) = match (small.den, big.den) {
        // `k1 * A <= k2 * B`: A / B <= k2 / k1.
        (None, None) => {
            if small.names.is_empty() || big.names.is_empty() {
                return None;
            }
            (small.names, big.names, big.coef / small.coef, None)
        }
        // `k1 * A / B <= k2`.
        (Some(d), None) => {
            if small.names.is_empty() || !big.names.is_empty() || d.names.is_empty() {
                return None;
            }
            (small.names, d.names.clone(), big.coef / small.coef, Some(d))
        }
        // `k1 <= k2 * B / A`, i.e. `A / B <= k2 / k1` read from the other side.
        (None, Some(d)) => {
            if !small.names.is_empty() || big.names.is_empty() || d.names.is_empty() {
                return None;
            }
            (d.names.clone(), big.names, big.coef / small.coef, Some(d))
        }
        (Some(_), Some(_)) => return None,
    };
    if !ratio.is_finite() || ratio <= 0.0 || bad == total {
        return None;
    }
    // `a <= b` compares two counts without a share: no breaker (a
    // reconciliation of silver against bronze reads like it).
    if divisor.is_none() && small.coef == 1.0 && big.coef == 1.0 {
        return None;
    }
    let division = divisor.map(|d| Division {
        guarded: d.guarded || guards.iter().any(|g| excludes_zero(g, &d.names, sense)),
        divisor: d.span,
    });
    Some(CountBound {
        bad,
        total,
        max_ratio: ratio,
        inclusive: op == Cmp::LtEq,
        division,
    })
}

/// `coef * (sum of names) / divisor`.
struct Linear {
    coef: f64,
    names: Vec<String>,
    den: Option<Divisor>,
}

#[derive(Clone)]
struct Divisor {
    names: Vec<String>,
    span: Range<usize>,
    guarded: bool,
    /// The quotient is NULL, not an error, on a zero count (`nullif(t,
    /// 0)`, `try_divide`).
    null_on_zero: bool,
}

fn linear(node: &Node, depth: usize) -> Option<Linear> {
    if depth > MAX_DEPTH {
        return None;
    }
    match &node.expr {
        Expr::Number(n) => Some(Linear {
            coef: *n,
            names: Vec::new(),
            den: None,
        }),
        // `coalesce(q / nullif(t, 0), 0)`: an empty batch gives the
        // default, so the division is guarded when it gives NULL on zero.
        Expr::Call { name, args }
            if matches!(name.as_str(), "coalesce" | "nvl" | "ifnull")
                && args.len() == 2
                && matches!(args[1].expr, Expr::Number(_)) =>
        {
            let mut inner = linear(&args[0], depth + 1)?;
            if let Some(d) = &mut inner.den {
                d.guarded |= d.null_on_zero;
            } else {
                return linear_sum(node, depth);
            }
            Some(inner)
        }
        // `try_divide(q, t)`: NULL on a zero divisor.
        Expr::Call { name, args } if name == "try_divide" && args.len() == 2 => {
            let a = linear(&args[0], depth + 1)?;
            if a.den.is_some() || matches!(args[1].expr, Expr::Number(_)) {
                return None;
            }
            let (mut d, factor) = divisor(&args[1], depth + 1)?;
            d.null_on_zero = true;
            d.span = args[1].span.clone();
            Some(Linear {
                coef: a.coef * factor,
                names: a.names,
                den: Some(d),
            })
        }
        Expr::Name(_) | Expr::Call { .. } | Expr::Arith { op: Arith::Add, .. } => {
            linear_sum(node, depth)
        }
        Expr::Arith {
            op: Arith::Mul,
            lhs,
            rhs,
        } => {
            let a = linear(lhs, depth + 1)?;
            let b = linear(rhs, depth + 1)?;
            match (
                a.names.is_empty() && a.den.is_none(),
                b.names.is_empty() && b.den.is_none(),
            ) {
                (true, _) => Some(Linear {
                    coef: a.coef * b.coef,
                    ..b
                }),
                (_, true) => Some(Linear {
                    coef: a.coef * b.coef,
                    ..a
                }),
                _ => None,
            }
        }
        Expr::Arith {
            op: Arith::Div,
            lhs,
            rhs,
        } => {
            let a = linear(lhs, depth + 1)?;
            if a.den.is_some() {
                return None;
            }
            if let Expr::Number(n) = rhs.expr {
                if n == 0.0 {
                    return None;
                }
                return Some(Linear {
                    coef: a.coef / n,
                    ..a
                });
            }
            let divisor = divisor(rhs, depth + 1)?;
            Some(Linear {
                coef: a.coef * divisor.1,
                names: a.names,
                den: Some(divisor.0),
            })
        }
        _ => None,
    }
}

/// A count sum as a linear term. A constant in it (`t + 1`) matters only
/// as a divisor, where it keeps the divisor from zero.
fn linear_sum(node: &Node, depth: usize) -> Option<Linear> {
    let (names, _) = count_sum(node, depth)?;
    Some(Linear {
        coef: 1.0,
        names,
        den: None,
    })
}

/// A divisor: a count sum, possibly scaled (`t * 1.0`), and whether a
/// zero count is kept from it (`greatest(t, 1)`, `t + 1`, `nullif(t, 0)`
/// under a `coalesce` the caller sees). Returns the divisor and the factor
/// its scale contributes to the quotient.
fn divisor(node: &Node, depth: usize) -> Option<(Divisor, f64)> {
    if depth > MAX_DEPTH {
        return None;
    }
    match &node.expr {
        Expr::Arith {
            op: Arith::Mul,
            lhs,
            rhs,
        } => {
            if let Expr::Number(n) = lhs.expr {
                let (d, f) = divisor(rhs, depth + 1)?;
                return (n != 0.0).then_some((d, f / n));
            }
            if let Expr::Number(n) = rhs.expr {
                let (d, f) = divisor(lhs, depth + 1)?;
                return (n != 0.0).then_some((d, f / n));
            }
            None
        }
        Expr::Call { name, args } if name == "greatest" && args.len() == 2 => {
            let (count, floor) = match (&args[0].expr, &args[1].expr) {
                (_, Expr::Number(n)) => (&args[0], *n),
                (Expr::Number(n), _) => (&args[1], *n),
                _ => return None,
            };
            let (names, _) = count_sum(count, depth + 1)?;
            Some((
                Divisor {
                    names,
                    span: node.span.clone(),
                    guarded: floor > 0.0,
                    null_on_zero: false,
                },
                1.0,
            ))
        }
        Expr::Call { name, args } if name == "nullif" && args.len() == 2 => {
            // `nullif(t, 0)` gives NULL, not an error, on an empty batch:
            // guarded only where a `coalesce` above gives the NULL a value.
            let (names, _) = count_sum(&args[0], depth + 1)?;
            Some((
                Divisor {
                    names,
                    span: node.span.clone(),
                    guarded: false,
                    null_on_zero: true,
                },
                1.0,
            ))
        }
        _ => {
            let (names, constant) = count_sum(node, depth)?;
            Some((
                Divisor {
                    names,
                    span: node.span.clone(),
                    guarded: constant > 0.0,
                    null_on_zero: false,
                },
                1.0,
            ))
        }
    }
}

/// A sum of counts: names (or `count(...)` calls, by their text), with the
/// positive constant added, if any.
fn count_sum(node: &Node, depth: usize) -> Option<(Vec<String>, f64)> {
    if depth > MAX_DEPTH {
        return None;
    }
    match &node.expr {
        Expr::Name(name) => Some((vec![name.clone()], 0.0)),
        Expr::Number(n) => Some((Vec::new(), *n)),
        Expr::Call { name, args } if matches!(name.as_str(), "count" | "sum") => {
            let inner: Vec<String> = args.iter().map(describe).collect();
            Some((vec![format!("{name}({})", inner.join(", "))], 0.0))
        }
        // `coalesce(c, 0)`: the count itself.
        Expr::Call { name, args }
            if (name == "coalesce" || name == "nvl" || name == "ifnull") && args.len() == 2 =>
        {
            count_sum(&args[0], depth + 1)
        }
        Expr::Arith {
            op: Arith::Add,
            lhs,
            rhs,
        } => {
            let (mut a, x) = count_sum(lhs, depth + 1)?;
            let (b, y) = count_sum(rhs, depth + 1)?;
            a.extend(b);
            a.sort();
            Some((a, x + y))
        }
        _ => None,
    }
}

fn describe(node: &Node) -> String {
    match &node.expr {
        Expr::Name(n) => n.clone(),
        Expr::Number(n) => n.to_string(),
        _ => "*".to_string(),
    }
}

/// Whether `guard`, true where the bound is read, rules out a zero divisor
/// `names`: for `Holds`, the other side of the `OR` catches zero (`t = 0`,
/// `t <= 0`, `t < 1`); for `Fires`, the other side of the `AND` requires
/// a positive count (`t > 0`, `t <> 0`, `t >= 1`).
fn excludes_zero(guard: &Node, names: &[String], sense: Sense) -> bool {
    let Expr::Compare { op, lhs, rhs } = &guard.expr else {
        return false;
    };
    let (op, count, limit) = match (&lhs.expr, &rhs.expr) {
        (_, Expr::Number(n)) => (*op, lhs.as_ref(), *n),
        (Expr::Number(n), _) => (op.flipped(), rhs.as_ref(), *n),
        _ => return false,
    };
    let Some((mut counted, 0.0)) = count_sum(count, 0) else {
        return false;
    };
    counted.sort();
    let mut wanted = names.to_vec();
    wanted.sort();
    if counted != wanted {
        return false;
    }
    match sense {
        // True when the count is zero.
        Sense::Holds => match op {
            Cmp::Eq => limit == 0.0,
            Cmp::LtEq => (0.0..1.0).contains(&limit),
            Cmp::Lt => limit > 0.0 && limit <= 1.0,
            _ => false,
        },
        // False when the count is zero.
        Sense::Fires => match op {
            Cmp::NotEq => limit == 0.0,
            Cmp::Gt => limit >= 0.0,
            Cmp::GtEq => limit > 0.0,
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(text: &str) -> CountBound {
        count_bound(text, Sense::Holds).unwrap_or_else(|| panic!("no bound in {text:?}"))
    }

    fn fires(text: &str) -> CountBound {
        count_bound(text, Sense::Fires).unwrap_or_else(|| panic!("no bound in {text:?}"))
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    const PYTHON: &str = r#"from pyspark import pipelines as dp
from pyspark.sql import functions as F

@dp.materialized_view
@dp.expect_or_fail("quarantine_within_5_percent", "quarantined <= 0.05 * total")
def ledger_breaker():
    q = spark.read.table("quarantine_ledger").agg(F.count("*").alias("quarantined"))
    c = spark.read.table("silver_ledger").agg(F.count("*").alias("clean"))
    return q.crossJoin(c).withColumn("total", F.col("quarantined") + F.col("clean"))

@dp.materialized_view
@dp.expect("warn_only", "quarantined <= 0.05 * total")
def warn_breaker():
    q = spark.read.table("quarantine_ledger").agg(F.count("*").alias("quarantined"))
    c = spark.read.table("silver_ledger").agg(F.count("*").alias("total"))
    return q.crossJoin(c)

@dp.table
@dp.expect_or_fail("positive", "amount > 0")
def silver_other():
    return spark.read.table("a").join(spark.read.table("b"), "id")
"#;

    const SQL: &str = "CREATE MATERIALIZED VIEW ledger_breaker (
  CONSTRAINT quarantine_share EXPECT (quarantined / (quarantined + clean) <= 0.05) ON VIOLATION FAIL UPDATE
) AS SELECT q.n AS quarantined, c.n AS clean
FROM (SELECT count(*) AS n FROM quarantine_ledger) q
CROSS JOIN (SELECT count(*) AS n FROM silver_ledger) c;
";

    fn breakers_of(file: &crate::model::PipelineFile) -> Vec<DltBreaker<'_>> {
        let datasets: Vec<InFile<Dataset>> = file.datasets.iter().map(|d| (0, d)).collect();
        dlt_breakers(&datasets)
    }

    #[test]
    fn dlt_breakers_in_python_and_sql() {
        let python = crate::python_model::read(PYTHON, &|_| None);
        let found = breakers_of(&python);
        assert_eq!(found.len(), 1, "{found:?}");
        let breaker = &found[0];
        assert_eq!(breaker.dataset.1.name.name, "ledger_breaker");
        assert!(breaker.reads("quarantine_ledger") && breaker.reads("silver_ledger"));
        assert!(!breaker.reads("bronze_ledger"));
        assert!(close(breaker.bound.max_ratio, 0.05));
        assert_eq!(breaker.bound.division, None);

        let sql = crate::sql::read(SQL);
        let found = breakers_of(&sql);
        assert_eq!(found.len(), 1, "{:?}", sql.datasets);
        let breaker = &found[0];
        assert!(breaker.reads("quarantine_ledger") && breaker.reads("silver_ledger"));
        assert_eq!(breaker.bound.total, ["clean", "quarantined"]);
        let division = breaker.bound.division.as_ref().expect("divides");
        assert!(!division.guarded, "an empty batch divides by zero");
        let Constraint::Known(text) = &breaker.expectation.constraint else {
            panic!("known")
        };
        let at = text.source_span(division.divisor.clone()).expect("mapped");
        assert_eq!(&SQL[at], "quarantined + clean");
    }

    #[test]
    fn dlt_forms_of_five_percent() {
        for text in [
            "quarantined <= 0.05 * total",
            "quarantined <= total * 0.05",
            "0.05 * total >= quarantined",
            "quarantined * 100 <= 5 * total",
            "total >= 20 * quarantined",
            "(quarantined) <= 5 * total / 100",
        ] {
            let b = holds(text);
            assert!(close(b.max_ratio, 0.05), "{text}: {b:?}");
            assert_eq!(b.bad, ["quarantined"], "{text}");
            assert_eq!(b.total, ["total"], "{text}");
            assert!(b.inclusive, "{text}");
            assert_eq!(b.division, None, "{text}: no division");
        }
        let strict = holds("quarantined < 0.05 * total");
        assert!(!strict.inclusive);
    }

    #[test]
    fn a_division_is_found_and_its_guard() {
        let b = holds("q / t <= 0.05");
        assert!(close(b.max_ratio, 0.05));
        let d = b.division.expect("divides");
        assert_eq!(&"q / t <= 0.05"[d.divisor.clone()], "t");
        assert!(!d.guarded);
        for guarded in [
            "t = 0 OR q / t <= 0.05",
            "q / t <= 0.05 OR t <= 0",
            "coalesce(q / nullif(t, 0), 0) <= 0.05",
            "coalesce(try_divide(q, t), 0) <= 0.05",
            "q / greatest(t, 1) <= 0.05",
            "q / (q + c + 1) <= 0.05",
        ] {
            let b = holds(guarded);
            assert!(close(b.max_ratio, 0.05), "{guarded}");
            assert!(b.division.expect("divides").guarded, "{guarded}");
        }
        for unguarded in [
            "q / nullif(t, 0) <= 0.05",
            "coalesce(q / t, 0) <= 0.05",
            "20 <= t / q",
        ] {
            let b = holds(unguarded);
            assert!(!b.division.expect("divides").guarded, "{unguarded}");
        }
        assert_eq!(holds("20 <= t / q").bad, ["q"]);
        let sum = holds("q * 100.0 / (q + c) <= 5");
        assert_eq!(sum.total, ["c", "q"]);
        assert!(close(sum.max_ratio, 0.05));
    }

    #[test]
    fn dqx_conditions_fire_on_a_bad_batch() {
        let b = fires("error_row_count / input_row_count > 0.05");
        assert!(close(b.max_ratio, 0.05));
        assert!(b.inclusive, "> fires, so = passes");
        assert_eq!(b.bad, ["error_row_count"]);
        assert!(!b.division.expect("divides").guarded);
        let guarded = fires("input_row_count > 0 and error_row_count / input_row_count > 0.05");
        assert!(guarded.division.expect("divides").guarded);
        let multiplied = fires("error_row_count > 0.1 * input_row_count");
        assert!(close(multiplied.max_ratio, 0.1));
        assert!(multiplied.division.is_none());
        let aliased = count_bound_with_aliases(
            "error_row_ratio > 0.10",
            Sense::Fires,
            &[(
                "error_row_ratio".to_string(),
                "error_row_count * 1.0 / input_row_count".to_string(),
            )],
        )
        .expect("alias expanded");
        assert!(close(aliased.max_ratio, 0.10));
        assert_eq!(aliased.division.expect("divides").divisor, 0..15);
    }

    #[test]
    fn other_texts_are_no_breaker() {
        for text in [
            "error_row_count > 0",
            "price > 0",
            "id IS NOT NULL",
            "q = t",
            "silver_count <= bronze_count",
            "a * 2 <= 2 * b + 1 + c * 3",
            "0 < error_row_count < 100",
            "name LIKE 'x%'",
            "q / t / u <= 0.05",
            "",
            "((((",
        ] {
            assert_eq!(count_bound(text, Sense::Holds), None, "{text}");
            assert_eq!(count_bound(text, Sense::Fires), None, "{text}");
        }
        let deep = format!("{}q <= 0.05 * t{}", "(".repeat(500), ")".repeat(500));
        assert_eq!(count_bound(&deep, Sense::Holds), None, "too deep: not read");
    }
}
