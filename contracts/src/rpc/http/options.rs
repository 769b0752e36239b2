//! How a Streamable HTTP server runs ([`HttpOptions`]): its endpoint, who may reach it (the
//! `Host` and `Origin` allow lists that stop DNS rebinding), its caps, and the revisions it
//! speaks.

use std::time::Duration;

use crate::port::DEFAULT_MAX_FRAME_SIZE;
use crate::rpc::Options;

/// The revisions of MCP a server accepts in `MCP-Protocol-Version`, newest first.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The host names a local server answers by default (any port): a page that a DNS rebinding
/// sends to 127.0.0.1 still names its own host, and is refused.
pub const LOCAL_HOSTS: &[&str] = &["localhost", "127.0.0.1", "[::1]"];

/// The settings of a Streamable HTTP server.
///
/// ```
/// use contracts::rpc::{Options, http::HttpOptions};
/// use std::time::Duration;
///
/// let options = HttpOptions::default()
///     .path("/mcp")
///     .allow_hosts(["localhost", "127.0.0.1", "[::1]", "mcp.internal"])
///     .retry(Duration::from_secs(2))
///     .rpc(Options::mcp().max_in_flight(16));
/// # let _ = options;
/// ```
#[derive(Clone, Debug)]
pub struct HttpOptions {
    pub(crate) path: String,
    pub(crate) allowed_hosts: Option<Vec<String>>,
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) max_body: usize,
    pub(crate) max_sessions: usize,
    pub(crate) max_connections: usize,
    pub(crate) idle_timeout: Duration,
    pub(crate) retry: Duration,
    pub(crate) replay: usize,
    pub(crate) protocol_versions: Vec<String>,
    pub(crate) rpc: Options,
}

impl Default for HttpOptions {
    /// `/mcp`; local host names only ([`LOCAL_HOSTS`]); a body of 1 MiB; 1024 sessions, each
    /// ended after an hour without a request; 1024 connections; `retry` 1 s; 256 events kept
    /// per stream; [`PROTOCOL_VERSIONS`]; [`Options::mcp`].
    fn default() -> Self {
        HttpOptions {
            path: "/mcp".into(),
            allowed_hosts: Some(LOCAL_HOSTS.iter().map(|h| (*h).to_owned()).collect()),
            allowed_origins: Vec::new(),
            max_body: DEFAULT_MAX_FRAME_SIZE,
            max_sessions: 1024,
            max_connections: 1024,
            idle_timeout: Duration::from_secs(3600),
            retry: Duration::from_secs(1),
            replay: 256,
            protocol_versions: PROTOCOL_VERSIONS.iter().map(|v| (*v).to_owned()).collect(),
            rpc: Options::mcp(),
        }
    }
}

impl HttpOptions {
    /// The MCP endpoint's path (`/mcp`).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// The host names (without port; IPv6 in brackets) a request's `Host` may name, and an
    /// `Origin` may have. Any other is refused with 403.
    pub fn allow_hosts<I: IntoIterator<Item = S>, S: Into<String>>(mut self, hosts: I) -> Self {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// No check of `Host` (a server behind a proxy that checks it). `Origin` is still
    /// checked against [`allow_origins`](Self::allow_origins).
    pub fn allow_any_host(mut self) -> Self {
        self.allowed_hosts = None;
        self
    }

    /// Origins (`https://app.example`) allowed besides those on an allowed host.
    pub fn allow_origins<I: IntoIterator<Item = S>, S: Into<String>>(mut self, origins: I) -> Self {
        self.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The largest POST body, in bytes (413 over it).
    pub fn max_body(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// The most sessions at once (503 for an initialize over it).
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions.max(1);
        self
    }

    /// The most HTTP connections at once; more wait to be accepted.
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// How long a session lives without a request and without a stream read. The server
    /// looks for idle sessions every quarter of it (between 10 ms and a minute) while it
    /// runs, and ends them (their handlers stop); a session a connection still uses (a
    /// stream read, a POST waiting for its answer) is not idle.
    pub fn idle_timeout(mut self, idle: Duration) -> Self {
        self.idle_timeout = idle;
        self
    }

    /// The `retry` a stream's priming event tells the client: how long it waits before it
    /// reconnects when the server ends a stream early (SSE polling).
    pub fn retry(mut self, retry: Duration) -> Self {
        self.retry = retry;
        self
    }

    /// The events kept per stream for a client that resumes with `Last-Event-ID`.
    pub fn replay(mut self, events: usize) -> Self {
        self.replay = events.max(1);
        self
    }

    /// The revisions accepted in `MCP-Protocol-Version` (400 for another).
    pub fn protocol_versions<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        versions: I,
    ) -> Self {
        self.protocol_versions = versions.into_iter().map(Into::into).collect();
        self
    }

    /// Each session's connection: its bounds (requests served at once) and cancel
    /// notification ([`Options::mcp`] by default).
    pub fn rpc(mut self, options: Options) -> Self {
        self.rpc = options;
        self
    }

    /// Whether a request's `Host` header is allowed.
    pub(crate) fn host_allowed(&self, host: Option<&str>) -> bool {
        let Some(allowed) = &self.allowed_hosts else {
            return true;
        };
        host.and_then(host_name)
            .is_some_and(|name| allowed.iter().any(|a| a.eq_ignore_ascii_case(name)))
    }

    /// Whether a request's `Origin` header (when present) is allowed.
    pub(crate) fn origin_allowed(&self, origin: &str) -> bool {
        if self
            .allowed_origins
            .iter()
            .any(|o| o.eq_ignore_ascii_case(origin))
        {
            return true;
        }
        let host = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"));
        match (host, &self.allowed_hosts) {
            (Some(host), Some(allowed)) => host_name(host)
                .is_some_and(|name| allowed.iter().any(|a| a.eq_ignore_ascii_case(name))),
            // Hosts unchecked: only the origins listed.
            _ => false,
        }
    }
}

/// The host name of `host[:port]` (`[v6]:port` keeps its brackets); `None` if malformed.
fn host_name(authority: &str) -> Option<&str> {
    let name = if authority.starts_with('[') {
        let end = authority.find(']')?;
        let rest = &authority[end + 1..];
        if !(rest.is_empty() || rest.strip_prefix(':').is_some_and(is_port)) {
            return None;
        }
        &authority[..=end]
    } else {
        match authority.split_once(':') {
            Some((name, port)) if is_port(port) => name,
            Some(_) => return None,
            None => authority,
        }
    };
    (!name.is_empty() && !name.contains(['/', '@', ' '])).then_some(name)
}

fn is_port(s: &str) -> bool {
    !s.is_empty() && s.len() <= 5 && s.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_hosts_pass_and_others_are_refused() {
        let o = HttpOptions::default();
        for host in ["127.0.0.1:8080", "localhost", "LOCALHOST:1", "[::1]:3000"] {
            assert!(o.host_allowed(Some(host)), "{host}");
        }
        for host in [
            "evil.example.com",
            "127.0.0.1.evil:80",
            "[::1",
            "a@localhost",
        ] {
            assert!(!o.host_allowed(Some(host)), "{host}");
        }
        assert!(!o.host_allowed(None));
        assert!(o.origin_allowed("http://127.0.0.1:5173"));
        assert!(!o.origin_allowed("http://evil.example.com"));
        assert!(!o.origin_allowed("null"));
        let listed = o.allow_origins(["https://app.example"]);
        assert!(listed.origin_allowed("https://app.example"));
    }
}
