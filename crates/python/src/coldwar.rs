//! Cold War's solution as numpy arrays (`tabula.coldwar`).

use crate::errors::TabulaError;
use crate::state::{PyState, Typed};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rayon::prelude::*;
use tabula_coldwar::encoding::{table_entry, table_index};
use tabula_coldwar::{ColdWar, Value, BOARDS};

/// `(value, distance)`: int8 and uint8 arrays of 7^9 entries, one per board
/// index, for X to move. `value` is 1 (the side to move wins), 0 (draw) or
/// -1 (it loses); `distance` the plies to the end under perfect play (0 for
/// a draw). The solution is read from Tabula's cache or solved on first use
/// (about 20 s), then cached on disk.
#[pyfunction]
pub(crate) fn coldwar_solved_table<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
    let n = BOARDS as usize;
    let value = PyArray1::<i8>::zeros(py, n, false);
    let distance = PyArray1::<u8>::zeros(py, n, false);
    {
        // Safety: both arrays were just made here and nothing else sees them.
        let v = unsafe { value.as_slice_mut() }.expect("contiguous");
        let d = unsafe { distance.as_slice_mut() }.expect("contiguous");
        py.detach(|| {
            let table = tabula_coldwar::solve::cache::shared_table();
            const CHUNK: usize = 1 << 16;
            v.par_chunks_mut(CHUNK).zip(d.par_chunks_mut(CHUNK)).enumerate().for_each(|(c, (v, d))| {
                for (j, (v, d)) in v.iter_mut().zip(d.iter_mut()).enumerate() {
                    let e = table_entry(table, (c * CHUNK + j) as u32).expect("index below BOARDS");
                    *v = match e.value {
                        Value::Win => 1,
                        Value::Draw => 0,
                        Value::Loss => -1,
                    };
                    *d = e.plies.min(u8::MAX as u32) as u8;
                }
            });
        });
    }
    PyTuple::new(py, [value.into_any(), distance.into_any()])
}

/// The index into the solved table that holds the value of `state` for its
/// side to move: the board index with X to move, else the index of the
/// colour-swapped board.
#[pyfunction]
pub(crate) fn coldwar_table_index(state: PyRef<'_, PyState>) -> PyResult<u32> {
    let typed =
        state.inner.as_any().downcast_ref::<Typed<ColdWar>>().ok_or_else(|| {
            TabulaError::new_err(format!("a Cold War state is needed, not a {} state", state.game.id()))
        })?;
    Ok(table_index(&typed.state))
}
