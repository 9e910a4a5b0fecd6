//! The town's front door in the process that holds the world: logins checked against the
//! store, characters made, connections brought in through the world task's queue. A world
//! process serves hosts from the same door (see `broker`), so a login is checked the same way
//! whichever process holds the socket, and guesses through every host count together.

use std::net::IpAddr;
use std::sync::Arc;

use crate::logins::{CreateRefused, Logins, Refused};
use moot_kernel::identity::{self, Directory};
use moot_kernel::store::{AgentRow, CreateError, Origin, Store};
use moot_kernel::world::{self, ConnId, Request, Sink, Source, WorldHandle};

#[derive(Clone)]
pub struct Door {
    pub world: WorldHandle,
    pub store: Arc<Store>,
    pub directory: Arc<Directory>,
    pub logins: Arc<Logins>,
    /// Where new characters appear (a room id).
    pub start_room: String,
    /// Characters made from one address this close together are one owner's, for ratings.
    pub owner_window: std::time::Duration,
    /// The token `/metrics` asks for (`--metrics-token`); `None` turns it off.
    pub metrics_token: Option<Arc<str>>,
    /// How many agents one address may make (`--agent-rate`), whichever host it asks.
    pub agents_by_address: Arc<moot_kernel::limits::Limiter<moot_kernel::limits::Address>>,
    /// Who is signed in on the web, and OAuth's grants in flight, for every host.
    pub visits: Arc<super::signed::Visits>,
    /// The game worlds this town has heard from (none in one process).
    pub game_worlds: Arc<super::game_worlds::GameWorlds>,
}

impl Door {
    pub fn banned(&self, ip: IpAddr) -> bool {
        self.directory.is_banned(&ip.to_string())
    }

    pub async fn connect(
        &self,
        ip: IpAddr,
        name: &str,
        password: &str,
    ) -> Result<AgentRow, Refused> {
        self.logins
            .check(&self.store, &self.directory, ip, name, password)
            .await
    }

    pub async fn create(
        &self,
        ip: IpAddr,
        name: &str,
        password: &str,
    ) -> Result<AgentRow, CreateRefused> {
        identity::validate_name(name)
            .and_then(|()| identity::validate_password(password))
            .map_err(CreateRefused::Invalid)?;
        if let Ok(Some(_)) = self.store.agent_by_name(name).await {
            return Err(CreateRefused::Taken);
        }
        let password = password.to_owned();
        let hash = self
            .logins
            .password_work(move || identity::hash_password(&password))
            .await
            .ok_or(CreateRefused::Unavailable)?;
        match self
            .store
            .create_character(
                name,
                hash,
                &self.start_room,
                Some(Origin::of(ip, self.owner_window)),
            )
            .await
        {
            Ok((row, owner)) => {
                self.directory
                    .insert(&row.agent_id, &row.name, None, identity::Kind::Person);
                self.directory.set_owner(&row.agent_id, owner);
                tracing::info!(target: moot_kernel::logging::AUDIT, event = "character_created", name = %row.name, %ip);
                Ok(row)
            }
            Err(CreateError::NameTaken) => Err(CreateRefused::Taken),
            Err(CreateError::Store(e)) => {
                tracing::error!(error = %e, "cannot create a character");
                Err(CreateRefused::Unavailable)
            }
        }
    }

    pub async fn enter(&self, row: AgentRow, created: bool, conn: ConnId) -> Option<Source> {
        let (sink, source) = world::channel();
        self.enter_with(row, created, conn, sink, false)
            .await
            .then_some(source)
    }

    /// Brings a connection in with a queue of its own making (a host's, across the broker);
    /// `again`: see [`Request::Enter`].
    pub async fn enter_with(
        &self,
        row: AgentRow,
        created: bool,
        conn: ConnId,
        sink: Sink,
        again: bool,
    ) -> bool {
        self.world
            .send(Request::Enter {
                row,
                created,
                conn,
                sink,
                again,
            })
            .await
    }
}
