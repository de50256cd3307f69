//! Rows that tell predicates apart. The normaliser ([`crate::predicate`])
//! shows two predicates equivalent when their normal forms are equal; when
//! they differ, they may still keep the same rows (`a > 0 AND a > 1` and
//! `a > 1`). [`find_row`] evaluates the predicates on candidate rows under
//! SQL's three-valued logic, as Spark does, and returns a row on which
//! they behave as the caller asks (a row in neither table, a row in both),
//! so a finding can name it.
//!
//! A row found is a real row: every value is one a column of its type can
//! hold, and every operator evaluated is evaluated as Spark does. What the
//! evaluator does not model (a function it does not know, a cast) is a
//! boolean atom of its own, free to be true, false or NULL, but only when
//! it shares no column with the rest: `length(id) = 10` beside `price > 0`
//! is free, beside `id IS NOT NULL` it is not, and nothing is searched.
//! Candidates per column come from the literals of the predicates (each
//! literal, its neighbours, the points between two literals, NULL), so
//! comparisons of a column with literals are decided on every class of
//! values; a value no candidate reaches is not claimed either way: no row
//! found means "not shown different", never "equivalent".

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use sqlparser::ast::{
    BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, InTarget, UnaryOperator,
    Value as SqlValue,
};

/// At most this many rows are evaluated per search: all of them when the
/// candidates of every column multiply to no more, a fixed sample otherwise.
pub const ROW_BUDGET: usize = 20_000;

/// A value of a column on a witness row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Number(f64),
    Text(String),
    Bool(bool),
    /// A non-NULL value the predicates only test for NULL.
    Present,
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Null => f.write_str("NULL"),
            Cell::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => write!(f, "{}", *n as i64),
            Cell::Number(n) => write!(f, "{n}"),
            Cell::Text(s) => write!(f, "'{}'", s.replace('\'', "\\'")),
            Cell::Bool(b) => write!(f, "{b}"),
            Cell::Present => f.write_str("a non-NULL value"),
        }
    }
}

/// A row found by [`find_row`]: the columns (and free atoms) with their
/// values, and what each predicate evaluated to on it.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The columns and free atoms in the order the predicates mention them.
    pub cells: Vec<RowCell>,
    /// Each predicate's value on the row, in the order given; `None` is NULL.
    pub values: Vec<Option<bool>>,
}

/// One column of a witness row, or one free atom with its truth value.
#[derive(Debug, Clone, PartialEq)]
pub struct RowCell {
    /// The column name (lower case) or the atom's SQL text.
    pub name: String,
    pub value: Cell,
    /// An unmodelled boolean part (`length(id) = 10`), not a column.
    pub atom: bool,
}

impl fmt::Display for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .cells
            .iter()
            .map(|c| match (&c.value, c.atom) {
                (Cell::Bool(b), true) => format!("`{}` {b}", c.name),
                (_, true) => format!("`{}` NULL", c.name),
                (Cell::Present, false) => format!("{} not NULL", c.name),
                (value, false) => format!("{} = {value}", c.name),
            })
            .collect();
        f.write_str(&parts.join(", "))
    }
}

/// A row on which the predicates' values satisfy `wanted`, or `None` when
/// a text does not parse, cannot be searched (an unmodelled part sharing a
/// column with the rest) or no candidate row satisfies it.
pub fn find_row(predicates: &[&str], wanted: impl Fn(&[Option<bool>]) -> bool) -> Option<Row> {
    let mut compiler = Compiler::default();
    let mut trees = Vec::new();
    for sql in predicates {
        let expr = crate::predicate::parse_bounded(sql)?;
        trees.push(compiler.boolean(&expr));
    }
    let slots = compiler.slots()?;
    let total = slots
        .iter()
        .try_fold(1usize, |n, s| n.checked_mul(s.candidates.len()))
        .unwrap_or(usize::MAX);
    let mut row: Vec<usize> = vec![0; slots.len()];
    let mut values = vec![None; trees.len()];
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut cells: Vec<&Cell> = Vec::with_capacity(slots.len());
    for n in 0..total.min(ROW_BUDGET) {
        if total <= ROW_BUDGET {
            // Odometer order: the last slot turns fastest.
            let mut rest = n;
            for (i, slot) in slots.iter().enumerate().rev() {
                row[i] = rest % slot.candidates.len();
                rest /= slot.candidates.len();
            }
        } else {
            for (i, slot) in slots.iter().enumerate() {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                row[i] = (rng % slot.candidates.len() as u64) as usize;
            }
        }
        cells.clear();
        cells.extend(slots.iter().zip(&row).map(|(s, &i)| &s.candidates[i]));
        let evaluated = trees.iter().zip(values.iter_mut()).all(|(tree, value)| {
            match truth(&tree.eval(&cells)) {
                Ok(v) => {
                    *value = v;
                    true
                }
                Err(Mismatch) => false,
            }
        });
        if evaluated && wanted(&values) {
            return Some(Row {
                cells: slots
                    .iter()
                    .zip(&cells)
                    .map(|(s, c)| RowCell {
                        name: s.name.clone(),
                        value: (*c).clone(),
                        atom: s.atom,
                    })
                    .collect(),
                values,
            });
        }
    }
    None
}

/// A type error on a row (a text compared with a number): the row is not
/// one Spark would evaluate this way, so it is no witness.
#[derive(Debug)]
struct Mismatch;

fn truth(v: &Result<Cell, Mismatch>) -> Result<Option<bool>, Mismatch> {
    match v {
        Ok(Cell::Bool(b)) => Ok(Some(*b)),
        Ok(Cell::Null) => Ok(None),
        _ => Err(Mismatch),
    }
}

/// An expression compiled for evaluation; columns and free atoms are slots.
#[derive(Debug)]
enum Node {
    Slot(usize),
    Const(Cell),
    Not(Box<Node>),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Compare(Box<Node>, BinaryOperator, Box<Node>),
    /// `<=>` / `IS NOT DISTINCT FROM` (true when both are NULL); negated
    /// for `IS DISTINCT FROM`.
    NullSafeEq(Box<Node>, Box<Node>, bool),
    Arith(Box<Node>, BinaryOperator, Box<Node>),
    Neg(Box<Node>),
    IsNull(Box<Node>, bool),
    /// `x IS [NOT] TRUE` / `x IS [NOT] FALSE`: (operand, tested value, negated).
    IsBool(Box<Node>, bool, bool),
    In(Box<Node>, Vec<Node>, bool),
    Between(Box<Node>, Box<Node>, Box<Node>, bool),
    Like(Box<Node>, Box<Node>, bool, bool),
    /// The first non-NULL argument.
    Coalesce(Vec<Node>),
    Case(Vec<(Node, Node)>, Box<Node>),
    Upper(Box<Node>, bool),
    Abs(Box<Node>),
}

/// What the compiler learnt of a column.
#[derive(Debug, Default, Clone)]
struct Evidence {
    number: bool,
    text: bool,
    boolean: bool,
    /// Compared or computed with: it holds values, not only NULL or not.
    ordered: bool,
}

#[derive(Default)]
struct Compiler {
    /// Slot names: columns (lower case) and free atoms (SQL text).
    names: Vec<String>,
    evidence: Vec<Evidence>,
    /// For a free atom, the columns it mentions.
    free: BTreeMap<usize, BTreeSet<String>>,
    numbers: BTreeSet<OrderedNumber>,
    texts: BTreeSet<String>,
    /// Columns mentioned by modelled parts (a free atom may not share one).
    modelled_columns: BTreeSet<String>,
}

#[derive(Debug, Clone, Copy)]
struct OrderedNumber(f64);
impl PartialEq for OrderedNumber {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl Eq for OrderedNumber {}
impl PartialOrd for OrderedNumber {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OrderedNumber {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

struct Slot {
    name: String,
    candidates: Vec<Cell>,
    atom: bool,
}

impl Compiler {
    fn slot(&mut self, name: String) -> usize {
        if let Some(i) = self.names.iter().position(|n| *n == name) {
            return i;
        }
        self.names.push(name);
        self.evidence.push(Evidence::default());
        self.names.len() - 1
    }

    fn column(&mut self, name: String) -> usize {
        self.modelled_columns.insert(name.clone());
        self.slot(name)
    }

    /// A predicate position: modelled when it can be, a free atom otherwise.
    fn boolean(&mut self, expr: &Expr) -> Node {
        let before = (self.names.len(), self.modelled_columns.clone());
        match self.compile(expr) {
            Some(node) => {
                if let Node::Slot(i) = node {
                    if !self.free.contains_key(&i) {
                        self.evidence[i].boolean = true;
                    }
                }
                node
            }
            None => {
                // Forget what the failed attempt recorded, then make the
                // whole expression one free atom.
                self.names.truncate(before.0);
                self.evidence.truncate(before.0);
                self.modelled_columns = before.1;
                let text = crate::predicate::text_of(expr);
                let columns = mentioned_columns(&text);
                let i = self.slot(text);
                self.free.insert(i, columns);
                Node::Slot(i)
            }
        }
    }

    fn compile(&mut self, expr: &Expr) -> Option<Node> {
        Some(match expr {
            Expr::Nested(inner) => return self.compile(inner),
            Expr::Identifier(ident) if ident.quote_style.is_none_or(|q| q == '`') => {
                Node::Slot(self.column(ident.value.to_ascii_lowercase()))
            }
            Expr::CompoundIdentifier(parts) if parts.iter().all(|p| p.quote_style != Some('"')) => {
                let name = parts
                    .iter()
                    .map(|p| p.value.to_ascii_lowercase())
                    .collect::<Vec<_>>()
                    .join(".");
                Node::Slot(self.column(name))
            }
            Expr::Value(v) => match &v.value {
                SqlValue::Number(n, _) => {
                    let n: f64 = n.to_string().parse().ok()?;
                    self.numbers.insert(OrderedNumber(n));
                    Node::Const(Cell::Number(n))
                }
                SqlValue::SingleQuotedString(s) | SqlValue::DoubleQuotedString(s) => {
                    self.texts.insert(s.clone());
                    Node::Const(Cell::Text(s.clone()))
                }
                SqlValue::Boolean(b) => Node::Const(Cell::Bool(*b)),
                SqlValue::Null => Node::Const(Cell::Null),
                _ => return None,
            },
            Expr::UnaryOp { op, expr } => match op {
                UnaryOperator::Not => Node::Not(Box::new(self.boolean(expr))),
                UnaryOperator::Minus => {
                    let inner = self.compile(expr)?;
                    if let Node::Const(Cell::Number(n)) = inner {
                        self.numbers.insert(OrderedNumber(-n));
                        Node::Const(Cell::Number(-n))
                    } else {
                        self.mark(&inner, |e| e.number = true);
                        Node::Neg(Box::new(inner))
                    }
                }
                UnaryOperator::Plus => self.compile(expr)?,
                _ => return None,
            },
            Expr::BinaryOp { left, op, right } => match op {
                BinaryOperator::And => {
                    Node::And(Box::new(self.boolean(left)), Box::new(self.boolean(right)))
                }
                BinaryOperator::Or => {
                    Node::Or(Box::new(self.boolean(left)), Box::new(self.boolean(right)))
                }
                BinaryOperator::Eq
                | BinaryOperator::NotEq
                | BinaryOperator::Lt
                | BinaryOperator::LtEq
                | BinaryOperator::Gt
                | BinaryOperator::GtEq => {
                    let (l, r) = (self.compile(left)?, self.compile(right)?);
                    self.same_type(&l, &r);
                    Node::Compare(Box::new(l), op.clone(), Box::new(r))
                }
                BinaryOperator::Spaceship => {
                    let (l, r) = (self.compile(left)?, self.compile(right)?);
                    self.same_type(&l, &r);
                    Node::NullSafeEq(Box::new(l), Box::new(r), false)
                }
                BinaryOperator::Plus | BinaryOperator::Minus | BinaryOperator::Multiply => {
                    let (l, r) = (self.compile(left)?, self.compile(right)?);
                    self.mark(&l, |e| e.number = true);
                    self.mark(&r, |e| e.number = true);
                    Node::Arith(Box::new(l), op.clone(), Box::new(r))
                }
                _ => return None,
            },
            Expr::IsDistinctFrom(a, b) | Expr::IsNotDistinctFrom(a, b) => {
                let (l, r) = (self.compile(a)?, self.compile(b)?);
                self.same_type(&l, &r);
                Node::NullSafeEq(
                    Box::new(l),
                    Box::new(r),
                    matches!(expr, Expr::IsDistinctFrom(..)),
                )
            }
            Expr::IsNull(x) => Node::IsNull(Box::new(self.compile(x)?), false),
            Expr::IsNotNull(x) => Node::IsNull(Box::new(self.compile(x)?), true),
            Expr::IsTrue(x) => Node::IsBool(Box::new(self.boolean(x)), true, false),
            Expr::IsNotTrue(x) => Node::IsBool(Box::new(self.boolean(x)), true, true),
            Expr::IsFalse(x) => Node::IsBool(Box::new(self.boolean(x)), false, false),
            Expr::IsNotFalse(x) => Node::IsBool(Box::new(self.boolean(x)), false, true),
            Expr::In {
                expr,
                target: InTarget::List(list),
                negated,
                ..
            } => {
                let x = self.compile(expr)?;
                let items = list
                    .iter()
                    .map(|e| self.compile(e))
                    .collect::<Option<Vec<_>>>()?;
                for item in &items {
                    self.same_type(&x, item);
                }
                Node::In(Box::new(x), items, *negated)
            }
            Expr::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let (x, lo, hi) = (self.compile(expr)?, self.compile(low)?, self.compile(high)?);
                self.same_type(&x, &lo);
                self.same_type(&x, &hi);
                Node::Between(Box::new(x), Box::new(lo), Box::new(hi), *negated)
            }
            Expr::Like {
                negated,
                any: false,
                expr: x,
                pattern,
                escape_char: None,
            } => self.like(x, pattern, *negated, false)?,
            Expr::ILike {
                negated,
                any: false,
                expr: x,
                pattern,
                escape_char: None,
            } => self.like(x, pattern, *negated, true)?,
            Expr::Case {
                operand: None,
                conditions,
                else_result,
                ..
            } => {
                let mut arms = Vec::new();
                for when in conditions {
                    arms.push((self.boolean(&when.condition), self.compile(&when.result)?));
                }
                let otherwise = match else_result {
                    Some(e) => self.compile(e)?,
                    None => Node::Const(Cell::Null),
                };
                Node::Case(arms, Box::new(otherwise))
            }
            Expr::Function(f) => {
                if f.filter.is_some() || f.over.is_some() || !f.within_group.is_empty() {
                    return None;
                }
                let FunctionArguments::List(list) = &f.args else {
                    return None;
                };
                if list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
                    return None;
                }
                let args = list
                    .args
                    .iter()
                    .map(|a| match a {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()?;
                let name = f.name.to_string().to_ascii_lowercase();
                match (name.as_str(), args.as_slice()) {
                    ("coalesce", [_, ..]) | ("nvl" | "ifnull", [_, _]) => {
                        let nodes = args
                            .iter()
                            .map(|e| self.compile(e))
                            .collect::<Option<Vec<_>>>()?;
                        for pair in nodes.windows(2) {
                            self.same_type(&pair[0], &pair[1]);
                        }
                        Node::Coalesce(nodes)
                    }
                    ("isnull", [x]) => Node::IsNull(Box::new(self.compile(x)?), false),
                    ("isnotnull", [x]) => Node::IsNull(Box::new(self.compile(x)?), true),
                    ("upper" | "ucase" | "lower" | "lcase", [x]) => {
                        let inner = self.compile(x)?;
                        self.mark(&inner, |e| e.text = true);
                        Node::Upper(Box::new(inner), name.starts_with('u'))
                    }
                    ("abs", [x]) => {
                        let inner = self.compile(x)?;
                        self.mark(&inner, |e| e.number = true);
                        Node::Abs(Box::new(inner))
                    }
                    _ => return None,
                }
            }
            _ => return None,
        })
    }

    fn like(
        &mut self,
        x: &Expr,
        pattern: &Expr,
        negated: bool,
        case_insensitive: bool,
    ) -> Option<Node> {
        let (x, p) = (self.compile(x)?, self.compile(pattern)?);
        self.mark(&x, |e| e.text = true);
        if let Node::Const(Cell::Text(p)) = &p {
            // A text the pattern matches is a candidate.
            self.texts.insert(like_example(p));
        }
        Some(Node::Like(
            Box::new(x),
            Box::new(p),
            negated,
            case_insensitive,
        ))
    }

    /// Records on the columns of `node` what a literal beside them says of
    /// their type.
    fn same_type(&mut self, a: &Node, b: &Node) {
        self.mark(a, |e| e.ordered = true);
        self.mark(b, |e| e.ordered = true);
        for (this, other) in [(a, b), (b, a)] {
            match this {
                Node::Const(Cell::Number(_)) => self.mark(other, |e| e.number = true),
                Node::Const(Cell::Text(_)) => self.mark(other, |e| e.text = true),
                Node::Const(Cell::Bool(_)) => self.mark(other, |e| e.boolean = true),
                _ => {}
            }
        }
    }

    fn mark(&mut self, node: &Node, set: impl Fn(&mut Evidence) + Copy) {
        match node {
            Node::Slot(i) => set(&mut self.evidence[*i]),
            Node::Arith(a, _, b) => {
                self.mark(a, set);
                self.mark(b, set);
            }
            Node::Neg(a) | Node::Abs(a) | Node::Upper(a, _) => self.mark(a, set),
            Node::Coalesce(items) => {
                for item in items {
                    self.mark(item, set);
                }
            }
            _ => {}
        }
    }

    /// The slots with their candidate values; `None` when a free atom
    /// shares a column with a modelled part or another free atom.
    fn slots(&self) -> Option<Vec<Slot>> {
        let mut seen: BTreeSet<&String> = self.modelled_columns.iter().collect();
        for columns in self.free.values() {
            for c in columns {
                if !seen.insert(c) {
                    return None;
                }
            }
        }
        let numbers = number_candidates(&self.numbers);
        let texts = text_candidates(&self.texts);
        let slots: Vec<Slot> = self
            .names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let mut candidates = Vec::new();
                if let Some(columns) = self.free.get(&i) {
                    candidates.extend([Cell::Bool(true), Cell::Bool(false)]);
                    if !columns.is_empty() {
                        candidates.push(Cell::Null);
                    }
                    return Slot {
                        name: name.clone(),
                        candidates,
                        atom: true,
                    };
                }
                let e = &self.evidence[i];
                // A column compared with other columns only: numbers stand
                // for any ordered type.
                if e.number || e.ordered && !(e.text || e.boolean) {
                    candidates.extend(numbers.iter().map(|n| Cell::Number(*n)));
                }
                if e.text {
                    candidates.extend(texts.iter().cloned().map(Cell::Text));
                }
                if e.boolean {
                    candidates.extend([Cell::Bool(true), Cell::Bool(false)]);
                }
                if candidates.is_empty() {
                    candidates.push(Cell::Present);
                }
                candidates.push(Cell::Null);
                Slot {
                    name: name.clone(),
                    candidates,
                    atom: false,
                }
            })
            .collect();
        Some(slots)
    }
}

/// Each literal, one below and above it, and the point between two
/// neighbours; `0` and `1` when there is no literal.
fn number_candidates(literals: &BTreeSet<OrderedNumber>) -> Vec<f64> {
    let values: Vec<f64> = literals.iter().map(|n| n.0).collect();
    if values.is_empty() {
        return vec![0.0, 1.0];
    }
    let mut out: BTreeSet<OrderedNumber> = BTreeSet::new();
    for (i, &v) in values.iter().enumerate() {
        out.insert(OrderedNumber(v));
        out.insert(OrderedNumber(v - 1.0));
        out.insert(OrderedNumber(v + 1.0));
        if let Some(&next) = values.get(i + 1) {
            out.insert(OrderedNumber((v + next) / 2.0));
        }
    }
    out.into_iter().map(|n| n.0).collect()
}

/// Each literal, its other case, the empty text and one text equal to none.
fn text_candidates(literals: &BTreeSet<String>) -> Vec<String> {
    let mut out: BTreeSet<String> = literals.clone();
    for t in literals {
        out.insert(t.to_uppercase());
        out.insert(t.to_lowercase());
    }
    out.insert(String::new());
    let mut other = "zz".to_string();
    while out.contains(&other) {
        other.push('z');
    }
    out.insert(other);
    out.into_iter().collect()
}

/// A text a LIKE pattern matches: `%` matches nothing, `_` one `x`.
fn like_example(pattern: &str) -> String {
    let mut out = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '%' => {}
            '_' => out.push('x'),
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

/// Spark's LIKE: `%` any run, `_` one character, `\` escapes.
fn like_matches(text: &[char], pattern: &[char]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some(('%', rest)) => (0..=text.len()).any(|i| like_matches(&text[i..], rest)),
        Some(('_', rest)) => !text.is_empty() && like_matches(&text[1..], rest),
        Some(('\\', rest)) if !rest.is_empty() => {
            text.first() == Some(&rest[0]) && like_matches(&text[1..], &rest[1..])
        }
        Some((c, rest)) => text.first() == Some(c) && like_matches(&text[1..], rest),
    }
}

/// The words of an SQL text that name columns (no keyword, number, string
/// or function name).
fn mentioned_columns(sql: &str) -> BTreeSet<String> {
    crate::quarantine::columns(sql)
}

impl Node {
    fn eval(&self, row: &[&Cell]) -> Result<Cell, Mismatch> {
        use Cell::*;
        Ok(match self {
            Node::Slot(i) => row[*i].clone(),
            Node::Const(c) => c.clone(),
            Node::Not(x) => match x.eval(row)? {
                Bool(b) => Bool(!b),
                Null => Null,
                _ => return Err(Mismatch),
            },
            Node::And(a, b) => match (truth(&a.eval(row))?, truth(&b.eval(row))?) {
                (Some(false), _) | (_, Some(false)) => Bool(false),
                (Some(true), Some(true)) => Bool(true),
                _ => Null,
            },
            Node::Or(a, b) => match (truth(&a.eval(row))?, truth(&b.eval(row))?) {
                (Some(true), _) | (_, Some(true)) => Bool(true),
                (Some(false), Some(false)) => Bool(false),
                _ => Null,
            },
            Node::Compare(a, op, b) => {
                let (a, b) = (a.eval(row)?, b.eval(row)?);
                match order(&a, &b)? {
                    None => Null,
                    Some(ord) => Bool(match op {
                        BinaryOperator::Eq => ord.is_eq(),
                        BinaryOperator::NotEq => ord.is_ne(),
                        BinaryOperator::Lt => ord.is_lt(),
                        BinaryOperator::LtEq => ord.is_le(),
                        BinaryOperator::Gt => ord.is_gt(),
                        _ => ord.is_ge(),
                    }),
                }
            }
            Node::NullSafeEq(a, b, negated) => {
                let (a, b) = (a.eval(row)?, b.eval(row)?);
                let same = match (&a, &b) {
                    (Null, Null) => true,
                    (Null, _) | (_, Null) => false,
                    _ => order(&a, &b)?.is_some_and(|o| o.is_eq()),
                };
                Bool(same != *negated)
            }
            Node::Arith(a, op, b) => match (a.eval(row)?, b.eval(row)?) {
                (Number(x), Number(y)) => Number(match op {
                    BinaryOperator::Plus => x + y,
                    BinaryOperator::Minus => x - y,
                    _ => x * y,
                }),
                (Null, Number(_) | Null) | (Number(_), Null) => Null,
                _ => return Err(Mismatch),
            },
            Node::Neg(x) => match x.eval(row)? {
                Number(n) => Number(-n),
                Null => Null,
                _ => return Err(Mismatch),
            },
            Node::Abs(x) => match x.eval(row)? {
                Number(n) => Number(n.abs()),
                Null => Null,
                _ => return Err(Mismatch),
            },
            Node::Upper(x, upper) => match x.eval(row)? {
                Text(s) if *upper => Text(s.to_uppercase()),
                Text(s) => Text(s.to_lowercase()),
                Null => Null,
                _ => return Err(Mismatch),
            },
            Node::IsNull(x, negated) => {
                let v = x.eval(row)?;
                Bool((v == Null) != *negated)
            }
            Node::IsBool(x, tested, negated) => {
                let v = truth(&x.eval(row))?;
                Bool((v == Some(*tested)) != *negated)
            }
            Node::In(x, items, negated) => {
                let v = x.eval(row)?;
                if v == Null {
                    return Ok(Null);
                }
                let mut saw_null = false;
                let mut found = false;
                for item in items {
                    match order(&v, &item.eval(row)?)? {
                        None => saw_null = true,
                        Some(o) if o.is_eq() => found = true,
                        Some(_) => {}
                    }
                }
                match (found, saw_null) {
                    (true, _) => Bool(!negated),
                    (false, true) => Null,
                    (false, false) => Bool(*negated),
                }
            }
            Node::Between(x, lo, hi, negated) => {
                let v = x.eval(row)?;
                let low = order(&v, &lo.eval(row)?)?.map(|o| o.is_ge());
                let high = order(&v, &hi.eval(row)?)?.map(|o| o.is_le());
                let inside = match (low, high) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                };
                match inside {
                    Some(b) => Bool(b != *negated),
                    None => Null,
                }
            }
            Node::Like(x, p, negated, case_insensitive) => match (x.eval(row)?, p.eval(row)?) {
                (Text(s), Text(p)) => {
                    let (s, p) = if *case_insensitive {
                        (s.to_lowercase(), p.to_lowercase())
                    } else {
                        (s, p)
                    };
                    let s: Vec<char> = s.chars().collect();
                    let p: Vec<char> = p.chars().collect();
                    Bool(like_matches(&s, &p) != *negated)
                }
                (Null, Text(_) | Null) | (Text(_), Null) => Null,
                _ => return Err(Mismatch),
            },
            Node::Coalesce(items) => {
                for item in items {
                    let v = item.eval(row)?;
                    if v != Null {
                        return Ok(v);
                    }
                }
                Null
            }
            Node::Case(arms, otherwise) => {
                for (when, then) in arms {
                    if truth(&when.eval(row))? == Some(true) {
                        return then.eval(row);
                    }
                }
                otherwise.eval(row)?
            }
        })
    }
}

/// The order of two values of one type; `None` when either is NULL.
fn order(a: &Cell, b: &Cell) -> Result<Option<std::cmp::Ordering>, Mismatch> {
    use Cell::*;
    match (a, b) {
        (Null, _) | (_, Null) => Ok(None),
        (Number(x), Number(y)) => Ok(x.partial_cmp(y)),
        // Spark compares strings by their UTF-8 bytes, as Rust does.
        (Text(x), Text(y)) => Ok(Some(x.cmp(y))),
        (Bool(x), Bool(y)) => Ok(Some(x.cmp(y))),
        _ => Err(Mismatch),
    }
}
