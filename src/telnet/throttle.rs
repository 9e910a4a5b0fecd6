//! A token bucket per connection: a burst of commands goes through at once, a sustained flood is
//! slowed to the configured rate by not reading the socket, so TCP itself pushes back.

use std::time::Duration;

use tokio::time::Instant;

#[derive(Debug)]
pub struct Throttle {
    /// Commands per second; 0 means no limit.
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl Throttle {
    pub fn new(rate: f64, burst: u32) -> Throttle {
        let burst = f64::from(burst.max(1));
        Throttle {
            rate,
            burst,
            tokens: burst,
            last: Instant::now(),
        }
    }

    /// Takes a token for one command; if there is none, says how long to wait first.
    pub fn take(&mut self, now: Instant) -> Option<Duration> {
        if self.rate <= 0.0 {
            return None;
        }
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        self.tokens -= 1.0;
        if self.tokens >= 0.0 {
            None
        } else {
            Some(Duration::from_secs_f64(-self.tokens / self.rate))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_the_rate_holds() {
        let t0 = Instant::now();
        let mut t = Throttle::new(10.0, 3);
        assert_eq!(t.take(t0), None);
        assert_eq!(t.take(t0), None);
        assert_eq!(t.take(t0), None);
        let wait = t.take(t0).expect("the fourth waits");
        assert!((wait.as_secs_f64() - 0.1).abs() < 1e-9);
        // Half a second later, five more tokens have come (minus the one owed).
        let later = t0 + Duration::from_millis(600);
        for _ in 0..3 {
            assert_eq!(t.take(later), None);
        }
    }

    #[test]
    fn zero_rate_never_waits() {
        let mut t = Throttle::new(0.0, 1);
        let now = Instant::now();
        assert!((0..1000).all(|_| t.take(now).is_none()));
    }
}
