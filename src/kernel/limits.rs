//! What one key may use: how often one identity may act, one address may try to log in or make
//! agents, one name may be guessed at ([`Limiter`]); and how many connections one address may
//! hold open at once ([`Occupancy`]). Every face asks the same limiter, so that opening more
//! connections, or using another face, buys nobody more turns.
//!
//! A token bucket per key: a burst goes through at once, then one action per `1/rate` seconds.
//! The map of keys is bounded: past its size, keys whose buckets have refilled (whom the limiter
//! has nothing to hold against) are forgotten, and if that is not enough the newcomer is
//! refused, so a stranger with many addresses cannot make the limiter itself grow without end.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

/// How many keys one limiter remembers at most.
const MAX_KEYS: usize = 100_000;

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    last: Instant,
}

/// A rate limit per key.
#[derive(Debug)]
pub struct Limiter<K> {
    /// Actions per second; 0 means no limit.
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<K, Bucket>>,
}

impl<K: Hash + Eq + Clone> Limiter<K> {
    pub fn new(rate: f64, burst: u32) -> Limiter<K> {
        Limiter {
            rate,
            burst: f64::from(burst.max(1)),
            buckets: Mutex::default(),
        }
    }

    /// Takes one action's token for `key`, or says how long until one is there.
    pub fn take(&self, key: &K, now: Instant) -> Result<(), Duration> {
        if self.rate <= 0.0 {
            return Ok(());
        }
        let mut map = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if !map.contains_key(key) && map.len() >= MAX_KEYS {
            let full = self.burst;
            let rate = self.rate;
            map.retain(|_, b| {
                b.tokens + now.saturating_duration_since(b.last).as_secs_f64() * rate < full
            });
            if map.len() >= MAX_KEYS {
                return Err(Duration::from_secs_f64(1.0 / self.rate));
            }
        }
        let b = map.entry(key.clone()).or_insert(Bucket {
            tokens: self.burst,
            last: now,
        });
        let elapsed = now.saturating_duration_since(b.last).as_secs_f64();
        b.tokens = (b.tokens + elapsed * self.rate).min(self.burst);
        b.last = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - b.tokens) / self.rate))
        }
    }

    /// Forgets what `key` has used (a successful login clears its own name's count).
    pub fn forgive(&self, key: &K) {
        self.buckets
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(key);
    }
}

/// Whom a limit per address counts: an IPv4 address, or an IPv6 address's /64. One home or one
/// machine is given a whole /64, so counting its single addresses would give a stranger 2^64
/// fresh keys; an IPv4-mapped IPv6 address is the IPv4 address it maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Address {
    V4(Ipv4Addr),
    /// The first four segments: the network a /64 names.
    V6([u16; 4]),
}

impl Address {
    pub fn of(ip: IpAddr) -> Address {
        match ip {
            IpAddr::V4(v4) => Address::V4(v4),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Address::V4(v4),
                None => {
                    let s = v6.segments();
                    Address::V6([s[0], s[1], s[2], s[3]])
                }
            },
        }
    }
}

impl From<IpAddr> for Address {
    fn from(ip: IpAddr) -> Address {
        Address::of(ip)
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Address::V4(v4) => v4.fmt(f),
            Address::V6(s) => write!(f, "{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3]),
        }
    }
}

/// How many connections each address holds open, against a cap per address: so that one
/// address cannot take every slot a listener has (nginx's and HAProxy's per-address connection
/// limits). The map holds only addresses with a connection open, so it is no larger than the
/// listener's own cap.
#[derive(Debug, Clone)]
pub struct Occupancy {
    /// Connections one address may hold; 0 means no limit.
    cap: usize,
    held: Arc<Mutex<HashMap<Address, usize>>>,
}

/// One connection's place in an [`Occupancy`]; given back when dropped.
#[derive(Debug)]
pub struct Seat {
    held: Arc<Mutex<HashMap<Address, usize>>>,
    address: Address,
}

impl Occupancy {
    pub fn new(cap: usize) -> Occupancy {
        Occupancy {
            cap,
            held: Arc::default(),
        }
    }

    /// A place for one more connection from `ip`, unless its address already holds the cap.
    pub fn take(&self, ip: IpAddr) -> Option<Seat> {
        let address = Address::of(ip);
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let n = held.entry(address).or_insert(0);
        if self.cap > 0 && *n >= self.cap {
            return None;
        }
        *n += 1;
        Some(Seat {
            held: self.held.clone(),
            address,
        })
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = held.get_mut(&self.address) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.address);
            }
        }
    }
}

/// Says `answer` to a connection turned away at a limit, and closes it, within a second. What
/// the client had already sent is read and dropped first: closing a socket with unread input
/// resets it, and the reset can destroy the answer before the client reads it.
pub async fn turn_away(mut stream: tokio::net::TcpStream, answer: &[u8]) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let farewell = async {
        stream.write_all(answer).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 1024];
        while stream.read(&mut sink).await? > 0 {}
        Ok::<_, std::io::Error>(())
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), farewell).await;
}

/// "0.4 s", "12 s": a wait as a person reads it.
pub fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 {
        format!("{:.1} s", s.max(0.1))
    } else {
        format!("{} s", s.ceil() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_the_rate_holds() {
        let l = Limiter::new(2.0, 3);
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(l.take(&"a", t0), Ok(()));
        }
        let wait = l.take(&"a", t0).unwrap_err();
        assert!(wait > Duration::from_millis(400) && wait <= Duration::from_millis(500));
        // Another key is not held back by the first.
        assert_eq!(l.take(&"b", t0), Ok(()));
        // Half a second later one more token is there.
        assert_eq!(l.take(&"a", t0 + Duration::from_millis(500)), Ok(()));
        assert!(l.take(&"a", t0 + Duration::from_millis(500)).is_err());
        l.forgive(&"a");
        assert_eq!(l.take(&"a", t0 + Duration::from_millis(500)), Ok(()));
    }

    #[test]
    fn a_zero_rate_is_no_limit() {
        let l = Limiter::new(0.0, 1);
        let t0 = Instant::now();
        for _ in 0..100 {
            assert_eq!(l.take(&1, t0), Ok(()));
        }
    }
    #[test]
    fn an_address_holds_at_most_its_cap_and_gets_places_back() {
        let o = Occupancy::new(2);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let (s1, _s2) = (o.take(a).unwrap(), o.take(a).unwrap());
        assert!(o.take(a).is_none());
        assert!(o.take(b).is_some(), "another address is not held back");
        drop(s1);
        assert!(o.take(a).is_some());
        // An IPv6 /64 is one address, and a mapped IPv4 address is the address it maps.
        let o = Occupancy::new(1);
        let _x = o.take("2001:db8:1:2::1".parse().unwrap()).unwrap();
        assert!(o.take("2001:db8:1:2:ffff::9".parse().unwrap()).is_none());
        assert!(o.take("2001:db8:1:3::1".parse().unwrap()).is_some());
        let _y = o.take(a).unwrap();
        assert!(o.take("::ffff:192.0.2.1".parse().unwrap()).is_none());
        assert_eq!(
            Address::of("2001:db8:1:2::1".parse().unwrap()).to_string(),
            "2001:db8:1:2::/64"
        );
    }

    #[test]
    fn the_occupancy_map_forgets_addresses_with_nothing_open() {
        let o = Occupancy::new(0);
        let seats: Vec<_> = (0..100u8)
            .map(|i| o.take(IpAddr::from([10, 0, 0, i])).unwrap())
            .collect();
        assert_eq!(o.held.lock().unwrap().len(), 100);
        drop(seats);
        assert!(o.held.lock().unwrap().is_empty());
    }
}
