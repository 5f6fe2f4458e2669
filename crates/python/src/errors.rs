//! The exceptions Python sees. Every one is a `ValueError`, so code that
//! catches bad input generically keeps working.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;

create_exception!(tabula, TabulaError, PyValueError, "Base class of Tabula's errors (a ValueError).");
create_exception!(
    tabula,
    IllegalActionError,
    TabulaError,
    "An action that is out of range, not legal in the position, or played after the game ended."
);
create_exception!(tabula, OptionError, TabulaError, "An unknown game option or a bad value for one.");
create_exception!(
    tabula,
    NotationError,
    TabulaError,
    "A move or a position that cannot be read in the game's notation."
);
