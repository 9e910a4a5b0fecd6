//! Reaching the NATS broker, for the world and for hosts alike: the connection's options from
//! its URL (credentials, a host's own reply inbox), what the world demands of a broker before
//! it serves through it, and the errors of the link.

#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("cannot read or keep the key of hosts' passes: {0}")]
    Passes(moot_kernel::store::StoreError),
    #[error("cannot reach the NATS broker at {url}: {error}")]
    Connect { url: String, error: String },
    #[error("the broker would not take a subscription: {0}")]
    Subscribe(String),
    #[error(
        "no world answers on {url} (start `moot world --nats {url}` first; on a broker with a \
         user for each host, name this host as its permissions do with --host-name)"
    )]
    NoWorld { url: String },
    #[error(
        "the world on {url} answers, but not this host's greeting as `{host}`: the broker must \
         let this host publish on {from} and read {inbox}.> (--host-name names the host)"
    )]
    NotLetIn {
        url: String,
        host: String,
        from: String,
        inbox: String,
    },
    #[error(
        "the NATS broker at {url} lets anyone in without credentials, and whoever can reach it \
         reads every password typed at a host and can log in as anyone: give the broker a user \
         for the world and one for each host (see \"The broker\" in docs/operating.md), or, if \
         nothing but this town's own processes can reach it, say so with --broker-is-private"
    )]
    OpenBroker { url: String },
    #[error("`{0}` cannot name a host: use letters, digits, `-` and `_` (at most 64)")]
    HostName(String),
    #[error("{0}")]
    Mismatch(String),
    #[error("the world's greeting could not be read: {0}")]
    Garbled(String),
}

/// Whether a world may serve through a broker that lets anyone in. Whoever reaches such a
/// broker reads every password typed at a host and can say it is any host, so the world
/// serves through one only when its operator says nobody else can reach it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Broker {
    /// The broker must ask who connects (the default).
    Authenticated,
    /// Nothing but the town's own processes can reach it (`--broker-is-private`).
    Private,
}

/// Connects the world to the broker at `url`, unless the broker lets anyone in and `broker`
/// does not say that will do. Told by the broker itself (its greeting's `auth_required`),
/// not guessed from the URL: a URL without credentials may meet a broker that trusts TLS
/// client certificates, and one with them a broker that ignores them.
///
/// A world or a game world (`who`, for the broker's monitoring) asks its own questions with
/// the answers under `inbox`, a subject under `moot.`, which the broker's world user may read.
pub async fn connect_world(
    url: &str,
    broker: Broker,
    who: &str,
    inbox: &str,
) -> Result<async_nats::Client, LinkError> {
    let client = connect(url, who, Some(inbox)).await?;
    if broker == Broker::Authenticated && !client.server_info().auth_required {
        return Err(LinkError::OpenBroker { url: redacted(url) });
    }
    if broker == Broker::Private {
        tracing::info!("serving through a broker said to be private (--broker-is-private)");
    }
    Ok(client)
}

/// Connects to the broker at `url`, naming the connection for the broker's monitoring, with
/// the answers to its requests under `inbox` where given (a host's own, which a broker can
/// let that host alone read). A broker that asks who connects is answered from the URL:
/// `nats://USER:PASSWORD@HOST:PORT`, or `nats://TOKEN@HOST:PORT`.
pub async fn connect(
    url: &str,
    name: &str,
    inbox: Option<&str>,
) -> Result<async_nats::Client, LinkError> {
    let refused = |error: String| LinkError::Connect {
        url: redacted(url),
        error,
    };
    let addr: async_nats::ServerAddr = url.parse().map_err(|e| refused(format!("{e}")))?;
    // In a URL, a password's `@`, `:` or `/` is written %40, %3A, %2F: the broker is told the
    // password itself.
    let decoded = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8()
            .map(|s| s.into_owned())
            .map_err(|_| refused("its user or password is not UTF-8 once decoded".into()))
    };
    let mut options = async_nats::ConnectOptions::new().name(name);
    if let Some(inbox) = inbox {
        options = options.custom_inbox_prefix(inbox);
    }
    if let Some(user) = addr.username() {
        options = match addr.password() {
            Some(password) => options.user_and_password(decoded(user)?, decoded(password)?),
            None => options.token(decoded(user)?),
        };
    }
    options
        .connect(addr)
        .await
        .map_err(|e| refused(e.to_string()))
}

/// `url` without its password or token, for messages and logs (a URL without a scheme too:
/// the client takes `USER:PASSWORD@HOST:PORT`).
pub fn redacted(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let authority_ends = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_ends);
    match authority.rsplit_once('@') {
        Some((_, host)) if scheme.is_empty() => format!("…@{host}{tail}"),
        Some((_, host)) => format!("{scheme}://…@{host}{tail}"),
        None => url.to_owned(),
    }
}

/// Takes what is published on `subject`.
pub(super) async fn subscribe(
    client: &async_nats::Client,
    subject: String,
) -> Result<async_nats::Subscriber, LinkError> {
    client
        .subscribe(subject)
        .await
        .map_err(|e| LinkError::Subscribe(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_brokers_password_is_never_said() {
        assert_eq!(
            redacted("nats://moot:s3cret@10.0.0.1:4222"),
            "nats://…@10.0.0.1:4222"
        );
        assert_eq!(redacted("nats://tok@host:1"), "nats://…@host:1");
        assert_eq!(redacted("nats://127.0.0.1:4222"), "nats://127.0.0.1:4222");
        assert_eq!(redacted("moot:pw@host:4222"), "…@host:4222");
        assert_eq!(redacted("nats://u:p%40ss@h:1/x"), "nats://…@h:1/x");
    }
}
