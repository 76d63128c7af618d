//! A cell named by its place in a table too big to read whole.
//!
//! A read of such a table (marked `truncated`) holds only the cells on
//! screen, so a `cell(row, column)` step that finds nothing there asks the
//! driver for that one cell (`cellAt`, the toolkit's own lookup) and adds it
//! to the read under its table before the steps are applied.

use super::matching::{Step, TreeIndex};
use crate::driver::Driver;
use crate::error::{ErrorCode, Result};
use crate::protocol::{CellAtParams, Tree};

/// Adds to `tree` the cells that `steps` name by place and the read lacks.
pub(crate) fn fill_in(
    driver: &dyn Driver,
    steps: &[Step],
    include_hidden: bool,
    tree: &mut Tree,
) -> Result<()> {
    for (at, step) in steps.iter().enumerate() {
        let Step::Cell { row, column } = *step else {
            continue;
        };
        let asks: Vec<CellAtParams> = {
            let index = TreeIndex::new(tree);
            let tables = match at {
                0 => (0..tree.nodes.len()).collect(),
                _ => index.select(&steps[..at], include_hidden),
            };
            tables
                .into_iter()
                .filter(|&table| {
                    tree.nodes[table].truncated
                        && index.cells(Some(&[table]), row, column).is_empty()
                })
                .map(|table| CellAtParams {
                    window: Some(tree.window),
                    table: tree.nodes[table].id,
                    row: i64::from(row),
                    column: i64::from(column),
                })
                .collect()
        };
        for ask in asks {
            match driver.cell_at(&ask) {
                Ok(nodes) => tree.nodes.extend(nodes),
                // A driver without the lookup finds only the cells it read.
                Err(e) if e.code == ErrorCode::Unsupported => return Ok(()),
                Err(e) => return Err(e),
            }
        }
    }
    Ok(())
}
