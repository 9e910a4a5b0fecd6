//! What only moot's tests use, kept out of the server: a release cannot contain it because no
//! crate of the server names this one. The deliberate faults (`@fault`) and the drill's hands on
//! the world's clock stay behind the kernel's `testing` feature, which this crate turns on for the
//! builds that link it (the integration tests, the fuzz targets) and only for them.

#![warn(clippy::unwrap_used, clippy::expect_used)]

pub mod drill;
