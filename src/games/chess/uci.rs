//! An external engine that speaks UCI (Debian's Stockfish, say), for the computer's higher
//! levels when `--uci-engine` is given. One process per move keeps it simple and robust: a
//! crashed or hung engine costs one move (the built-in engine answers instead), never the game.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct UciEngine {
    pub path: PathBuf,
}

/// Stockfish's playing strength for our levels 8 to 10 (UCI_Elo).
pub fn elo_for(level: u8) -> Option<u32> {
    match level {
        8 => Some(1600),
        9 => Some(2000),
        10 => Some(2400),
        _ => None,
    }
}

impl UciEngine {
    /// The engine's move (UCI) in the position `fen`, thinking `movetime`, with `options` set
    /// first. Errors if the engine cannot be run or says nothing sensible in time.
    pub fn best_move(
        &self,
        fen: &str,
        options: &[(&str, String)],
        movetime: Duration,
    ) -> std::io::Result<String> {
        let mut child = Command::new(&self.path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other("the engine's pipes were not opened"));
        };
        let pid = child.id();
        // A watchdog: an engine that has not answered in time is killed. (It waits on a
        // channel, so once we are done it goes away without touching the pid.)
        let limit = movetime + Duration::from_secs(3);
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let watchdog = std::thread::spawn(move || {
            if finished.recv_timeout(limit) == Err(std::sync::mpsc::RecvTimeoutError::Timeout) {
                let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            }
        });
        let mut script = String::from("uci\n");
        for (name, value) in options {
            script.push_str(&format!("setoption name {name} value {value}\n"));
        }
        script.push_str(&format!(
            "isready\nposition fen {fen}\ngo movetime {}\n",
            movetime.as_millis()
        ));
        stdin.write_all(script.as_bytes())?;
        stdin.flush()?;
        let mut best = None;
        for line in BufReader::new(stdout).lines() {
            let line = line?;
            if let Some(rest) = line.strip_prefix("bestmove ") {
                best = rest.split_whitespace().next().map(str::to_owned);
                break;
            }
        }
        let _ = stdin.write_all(b"quit\n");
        drop(stdin);
        let _ = child.wait();
        drop(done);
        let _ = watchdog.join();
        best.filter(|m| m != "(none)")
            .ok_or_else(|| std::io::Error::other("the engine gave no move"))
    }

    /// Best move at one of our levels (8 to 10), playing at that level's strength.
    pub fn level_move(&self, fen: &str, level: u8, movetime: Duration) -> std::io::Result<String> {
        let elo = elo_for(level)
            .ok_or_else(|| std::io::Error::other("no UCI strength for this level"))?;
        self.best_move(
            fen,
            &[
                ("UCI_LimitStrength", "true".into()),
                ("UCI_Elo", elo.to_string()),
            ],
            movetime,
        )
    }
}

/// The computer's chess player asks the external engine through this port; a level it does not
/// play, or a failure, is no answer (the built-in engine then plays).
impl moot_kernel::game_api::ExternalEngine for UciEngine {
    fn best_move(&self, fen: &str, level: u8) -> Option<String> {
        elo_for(level)?;
        let time = crate::games::chess::rules::engine::Level::new(level).time;
        match self.level_move(fen, level, time) {
            Ok(m) => Some(m),
            Err(e) => {
                tracing::warn!(error = %e, "the UCI engine failed; the built-in engine answers");
                None
            }
        }
    }
}
