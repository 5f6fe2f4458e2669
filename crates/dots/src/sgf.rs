//! SGF records (GM[40]).

use crate::Dots;
use tabula_core::{GameLog, Replayed};

pub fn export(log: &GameLog) -> Result<String, String> {
    tabula_core::record::export_text::<Dots>(log)
}

pub fn import(text: &str) -> Result<Vec<Replayed<Dots>>, String> {
    tabula_core::record::import_text::<Dots>(text)
}
