//! Cold War has no options: one board, one set of rules.

/// Cold War's options: none.
pub type ColdWarOptions = tabula_core::NoOptions;
