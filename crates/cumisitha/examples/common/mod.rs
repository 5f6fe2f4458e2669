//! Argument checks the examples share (each example compiles this module
//! on its own, and not every one uses every check).
#![allow(dead_code)]

use std::str::FromStr;

/// A whole number above zero.
pub fn at_least_one<T: FromStr + PartialOrd + From<u8>>(s: &str) -> Result<T, String> {
    match s.parse::<T>() {
        Ok(v) if v >= T::from(1) => Ok(v),
        _ => Err(format!("'{s}' is not a whole number above zero")),
    }
}

/// A number between 0 and 1.
pub fn unit_interval<T: FromStr + PartialOrd + From<u8>>(s: &str) -> Result<T, String> {
    match s.parse::<T>() {
        Ok(v) if v >= T::from(0) && v <= T::from(1) => Ok(v),
        _ => Err(format!("'{s}' is not a number between 0 and 1")),
    }
}

/// A number above zero.
pub fn positive<T: FromStr + PartialOrd + From<u8>>(s: &str) -> Result<T, String> {
    match s.parse::<T>() {
        Ok(v) if v > T::from(0) => Ok(v),
        _ => Err(format!("'{s}' is not a number above zero")),
    }
}
