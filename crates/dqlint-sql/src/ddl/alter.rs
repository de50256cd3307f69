//! `ALTER TABLE ... SET/UNSET TBLPROPERTIES | CLUSTER BY`.

use super::statement::{PResult, Stmt};
use super::{AlterOp, AlterTable};

impl Stmt<'_> {
    pub(super) fn parse_alter(&self) -> PResult<Option<AlterTable>> {
        const CTX: &str = "ALTER TABLE";
        let mut k = 2; // ALTER TABLE
        if self.is_kw(k, "IF") && self.is_kw(k + 1, "EXISTS") {
            k += 2;
        }
        let (name, name_range, next) = self.object_name(k, CTX)?;
        k = next;
        let mut ops = Vec::new();
        if self.is_kw(k, "SET") && self.is_kw(k + 1, "TBLPROPERTIES") {
            let (entries, _, _) = self.property_list(k + 2, true, CTX)?;
            ops.push(AlterOp::SetProperties(entries));
        } else if self.is_kw(k, "UNSET") && self.is_kw(k + 1, "TBLPROPERTIES") {
            let mut j = k + 2;
            if self.is_kw(j, "IF") && self.is_kw(j + 1, "EXISTS") {
                j += 2;
            }
            let (entries, _, _) = self.property_list(j, false, CTX)?;
            ops.push(AlterOp::UnsetProperties(
                entries.into_iter().map(|p| p.key).collect(),
            ));
        } else if self.is_kw(k, "CLUSTER") {
            let (cols, _) = self.cluster_by(k + 1, CTX)?;
            ops.push(AlterOp::ClusterBy(cols));
        }
        Ok(Some(AlterTable {
            name,
            name_range,
            statement_range: self.statement_range(),
            ops,
        }))
    }
}
