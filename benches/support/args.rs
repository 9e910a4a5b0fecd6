//! A benchmark's numeric flags (`--games 20000`), read from its command line.

/// The number after flag `name` on the command line, or `default`.
pub fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
