//! The native module of the `tabula` Python package (`tabula._tabula`).
//!
//! Python sees four classes: `game::PyGame`, `state::PyState`,
//! `vecenv::PyVecEnv` and `agents::PyAgent`, plus the Cold War table
//! functions. Behind them sit three object-safe traits (`GameOps`,
//! `StateOps`, `VecOps`) implemented once, generically, for every game that
//! is `GameMeta + Encoding`; `games` is the one place that names the four
//! games. Hot loops (a `VecEnv` step, random rollouts) run inside the
//! generic code, statically dispatched, with the GIL released.

mod agents;
mod coldwar;
mod errors;
mod game;
mod games;
mod state;
mod vecenv;

use pyo3::prelude::*;

/// The `tabula._tabula` module.
#[pymodule]
fn _tabula(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<game::PyGame>()?;
    m.add_class::<state::PyState>()?;
    m.add_class::<vecenv::PyVecEnv>()?;
    m.add_class::<agents::PyAgent>()?;
    m.add_function(wrap_pyfunction!(game::load_game, m)?)?;
    m.add_function(wrap_pyfunction!(game::registered_games, m)?)?;
    m.add_function(wrap_pyfunction!(state::restore_state, m)?)?;
    m.add_function(wrap_pyfunction!(coldwar::coldwar_solved_table, m)?)?;
    m.add_function(wrap_pyfunction!(coldwar::coldwar_table_index, m)?)?;
    m.add("TabulaError", py.get_type::<errors::TabulaError>())?;
    m.add("IllegalActionError", py.get_type::<errors::IllegalActionError>())?;
    m.add("OptionError", py.get_type::<errors::OptionError>())?;
    m.add("NotationError", py.get_type::<errors::NotationError>())?;
    Ok(())
}
