//! Glicko-2, as Glickman's "Example of the Glicko-2 system" (2013) gives it: a rating, its
//! deviation (how unsure we are of it) and its volatility (how erratic the player is). Pure
//! arithmetic on numbers; which games count and in what order is the ledger's business.

/// Glicko-2's scale factor between the public scale (1500-centred) and its internal one.
const SCALE: f64 = 173.7178;
/// The system constant: how much volatility may change in one period. Glickman suggests
/// 0.3–1.2; his example uses 0.5.
pub const TAU: f64 = 0.5;
/// Where the volatility iteration stops (the paper's ε).
const EPSILON: f64 = 0.000_001;

/// A newcomer's rating, as the paper's step 1 suggests.
pub const START: Rating = Rating {
    rating: 1500.0,
    deviation: 350.0,
    volatility: 0.06,
};

/// Above this deviation a rating is provisional (lichess's mark, `?`): too few games to trust.
pub const PROVISIONAL_ABOVE: f64 = 110.0;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

/// One game of a rating period, from the rated player's side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Game {
    pub opponent: Rating,
    /// 1 a win, 0.5 a draw, 0 a loss (or the share of a team's result).
    pub score: f64,
}

impl Rating {
    pub fn provisional(&self) -> bool {
        self.deviation > PROVISIONAL_ABOVE
    }

    /// As every face shows it beside a name: "1623", or "1500?" while provisional.
    pub fn shown(&self) -> String {
        format!(
            "{:.0}{}",
            self.rating,
            if self.provisional() { "?" } else { "" }
        )
    }

    /// This rating after one rating period in which these games were played (none: only the
    /// deviation grows, as time passes without evidence).
    pub fn after(&self, games: &[Game]) -> Rating {
        let mu = (self.rating - 1500.0) / SCALE;
        let phi = self.deviation / SCALE;
        let sigma = self.volatility;
        if games.is_empty() {
            let phi_star = (phi * phi + sigma * sigma).sqrt();
            return Rating {
                deviation: (phi_star * SCALE).min(START.deviation),
                ..*self
            };
        }
        // Steps 3 and 4: the estimated variance from the games alone, and the improvement
        // they suggest.
        let mut inverse_v = 0.0;
        let mut sum = 0.0;
        for game in games {
            let mu_j = (game.opponent.rating - 1500.0) / SCALE;
            let g = g(game.opponent.deviation / SCALE);
            let e = expected(mu, mu_j, g);
            inverse_v += g * g * e * (1.0 - e);
            sum += g * (game.score - e);
        }
        let v = 1.0 / inverse_v;
        let delta = v * sum;
        // Step 5: the new volatility, by the Illinois algorithm.
        let sigma = new_volatility(phi, sigma, v, delta);
        // Steps 6–8.
        let phi_star = (phi * phi + sigma * sigma).sqrt();
        let phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu = mu + phi * phi * sum;
        Rating {
            rating: mu * SCALE + 1500.0,
            deviation: (phi * SCALE).min(START.deviation),
            volatility: sigma,
        }
    }
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

fn expected(mu: f64, mu_j: f64, g: f64) -> f64 {
    1.0 / (1.0 + (-g * (mu - mu_j)).exp())
}

fn new_volatility(phi: f64, sigma: f64, v: f64, delta: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + v + ex;
        ex * (delta * delta - d) / (2.0 * d * d) - (x - a) / (TAU * TAU)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * TAU) < 0.0 && k < 1000.0 {
            k += 1.0;
        }
        a - k * TAU
    };
    let (mut f_a, mut f_b) = (f(big_a), f(big_b));
    // Bounded: the interval halves at least every other step, and f is continuous.
    for _ in 0..200 {
        if (big_b - big_a).abs() <= EPSILON {
            break;
        }
        let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = c;
        f_b = f_c;
    }
    (big_a / 2.0).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(rating: f64, deviation: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    /// Glickman's worked example: 1500/200/0.06 beats 1400/30, loses to 1550/100 and to
    /// 1700/300 in one period (τ = 0.5): 1464.06, RD 151.52, σ 0.05999.
    #[test]
    fn the_papers_worked_example() {
        let after = r(1500.0, 200.0).after(&[
            Game {
                opponent: r(1400.0, 30.0),
                score: 1.0,
            },
            Game {
                opponent: r(1550.0, 100.0),
                score: 0.0,
            },
            Game {
                opponent: r(1700.0, 300.0),
                score: 0.0,
            },
        ]);
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.000_01, "{after:?}");
    }

    #[test]
    fn a_period_without_games_only_widens_the_deviation_and_never_past_a_newcomers() {
        let idle = r(1600.0, 80.0).after(&[]);
        assert_eq!(idle.rating, 1600.0);
        assert!(idle.deviation > 80.0 && idle.deviation < 81.0, "{idle:?}");
        assert_eq!(START.after(&[]).deviation, START.deviation);
    }

    #[test]
    fn a_win_raises_a_loss_lowers_and_a_draw_between_equals_moves_nothing() {
        let even = Game {
            opponent: START,
            score: 0.5,
        };
        let won = START.after(&[Game { score: 1.0, ..even }]);
        let lost = START.after(&[Game { score: 0.0, ..even }]);
        let drawn = START.after(&[even]);
        assert!(won.rating > 1500.0 && lost.rating < 1500.0);
        assert!((drawn.rating - 1500.0).abs() < 1e-9);
        assert!(won.deviation < START.deviation && won.provisional());
    }
}
