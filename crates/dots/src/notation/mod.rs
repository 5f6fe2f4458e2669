//! Dots notation: a point is `x-y`, 1-based, with y counted from the bottom
//! (`20-16`). Dots has no position notation; games are recorded as SGF
//! ([`sgf`]).

pub mod sgf;

use crate::rules::{Dots, Point};
use tabula_core::NotationError;

/// Read a point in `x-y` notation, checked against the board's size.
pub fn parse_point(d: &Dots, text: &str) -> Result<Point, NotationError> {
    let t = text.trim();
    let (xs, ys) =
        t.split_once('-').ok_or_else(|| NotationError::new(format!("'{t}' is not a point: write x-y, e.g. 20-16")))?;
    let num = |s: &str, what: &str, max: usize| -> Result<usize, NotationError> {
        let s = s.trim();
        let n = tabula_core::options::parse_number(s)
            .ok_or_else(|| NotationError::new(format!("'{t}': {what} '{s}' is not a whole number")))?;
        if n < 1 || n > max as u64 {
            return Err(NotationError::new(format!("'{t}': {what} {n} is off the board (1..{max})")));
        }
        Ok(n as usize)
    };
    let x = num(xs, "x", d.width())?;
    let y = num(ys, "y", d.height())?;
    Ok(d.point(x, y).expect("checked on the board"))
}

/// A point in `x-y` notation.
pub fn point_name(d: &Dots, p: Point) -> String {
    let (x, y) = d.xy(p);
    format!("{x}-{y}")
}
