//! Cumisitha has no options: the standard chess start and Ludii's rules.

/// Cumisitha's options: none.
pub type CumisithaOptions = tabula_core::NoOptions;
