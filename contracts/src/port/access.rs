//! Who may open a WebSocket on a server: the client token it must present and the browser
//! origins it allows, checked on the upgrade request before the upgrade.
//!
//! A client presents the token as `Authorization: Bearer TOKEN` or as the `token` query
//! parameter of the URL (a browser cannot set headers on a WebSocket). A request without the
//! right token is answered 401. A request with an `Origin` header (every browser sends one)
//! is answered 403 unless that origin was allowed: any web page the user opens can try a
//! WebSocket to a loopback address, and the browser tells which page asks. A request without
//! `Origin` comes from a program that is no browser, which the token alone admits.
//!
//! Tokens are compared in constant time, and no token is ever shown (`Debug` hides it).

use std::fmt;
use std::sync::Arc;

use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request};
use tokio_tungstenite::tungstenite::http::StatusCode;

/// A secret that `Debug` never shows.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Secret(pub(crate) Arc<str>);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// The token a client must present and the origins allowed.
#[derive(Clone, Debug)]
pub struct Access {
    token: Secret,
    origins: Vec<String>,
}

/// Why a request was refused: the status and a short text for the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No token, or not the right one: 401.
    Unauthorized,
    /// An `Origin` that is not allowed: 403.
    ForbiddenOrigin,
}

impl Refusal {
    /// The HTTP status of the refusal.
    pub fn status(self) -> StatusCode {
        match self {
            Refusal::Unauthorized => StatusCode::UNAUTHORIZED,
            Refusal::ForbiddenOrigin => StatusCode::FORBIDDEN,
        }
    }

    /// The body of the refusal.
    pub fn text(self) -> &'static str {
        match self {
            Refusal::Unauthorized => {
                "a token is needed: Authorization: Bearer TOKEN or ?token=TOKEN\n"
            }
            Refusal::ForbiddenOrigin => "this origin is not allowed\n",
        }
    }

    /// The refusal as tungstenite's handshake answer.
    pub(crate) fn response(self) -> ErrorResponse {
        let mut response = ErrorResponse::new(Some(self.text().to_owned()));
        *response.status_mut() = self.status();
        response
    }
}

impl Access {
    /// Admits a client that presents `token`, from no browser page unless allowed.
    pub fn token(token: impl Into<String>) -> Access {
        Access {
            token: Secret(token.into().into()),
            origins: Vec::new(),
        }
    }

    /// Admits browser pages of `origin` too (`http://localhost:5173`, say), as the browser
    /// spells it: scheme, host and port (a trailing `/` and the case of letters do not matter).
    pub fn allow_origin(mut self, origin: impl AsRef<str>) -> Access {
        self.origins.push(normal_origin(origin.as_ref()));
        self
    }

    /// Checks an upgrade request: its `Origin` first, then its token.
    pub fn check(&self, request: &Request) -> Result<(), Refusal> {
        let headers = request.headers();
        if let Some(origin) = headers.get("origin") {
            let allowed = origin
                .to_str()
                .is_ok_and(|o| self.origins.contains(&normal_origin(o)));
            if !allowed {
                return Err(Refusal::ForbiddenOrigin);
            }
        }
        let bearer = headers
            .get_all("authorization")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .filter_map(bearer_of);
        let query = request
            .uri()
            .query()
            .into_iter()
            .flat_map(|q| q.split('&'))
            .filter_map(|pair| pair.strip_prefix("token="))
            .filter_map(percent_decode);
        // Every token presented is compared, so the time taken says nothing of which one.
        let mut admitted = false;
        for presented in bearer.map(str::to_owned).chain(query) {
            admitted |= same(presented.as_bytes(), self.token.0.as_bytes());
        }
        if admitted {
            Ok(())
        } else {
            Err(Refusal::Unauthorized)
        }
    }
}

/// The token of an `Authorization: Bearer TOKEN` header.
fn bearer_of(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim())
}

/// An origin as compared: lower case, without a trailing `/`.
fn normal_origin(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

/// Whether two byte strings are equal, in a time that depends on their lengths only.
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// A query value percent-decoded (`+` is a space); `None` when it is not UTF-8 or badly
/// escaped.
fn percent_decode(value: &str) -> Option<String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(uri: &str, headers: &[(&str, &str)]) -> Request {
        let mut builder = Request::builder().uri(uri);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(()).unwrap()
    }

    #[test]
    fn a_token_in_the_query_or_as_bearer_admits_and_nothing_else_does() {
        let access = Access::token("s3cret/+");
        let ok = |uri: &str, headers: &[(&str, &str)]| access.check(&request(uri, headers));
        assert_eq!(ok("/?token=s3cret%2F%2B", &[]), Ok(()));
        assert_eq!(ok("/?a=1&token=s3cret%2f%2B&b", &[]), Ok(()));
        assert_eq!(ok("/", &[("authorization", "Bearer s3cret/+")]), Ok(()));
        assert_eq!(ok("/", &[("authorization", "bearer  s3cret/+ ")]), Ok(()));
        assert_eq!(ok("/", &[]), Err(Refusal::Unauthorized));
        assert_eq!(ok("/?token=s3cret", &[]), Err(Refusal::Unauthorized));
        assert_eq!(ok("/?token=%zz", &[]), Err(Refusal::Unauthorized));
        assert_eq!(
            ok("/", &[("authorization", "Basic s3cret/+")]),
            Err(Refusal::Unauthorized)
        );
        assert_eq!(ok("/?tokens=s3cret%2F%2B", &[]), Err(Refusal::Unauthorized));
    }

    #[test]
    fn an_origin_must_be_allowed_and_none_is_a_program() {
        let access = Access::token("t").allow_origin("http://localhost:5173/");
        let ok = |origin: &str| access.check(&request("/?token=t", &[("origin", origin)]));
        assert_eq!(ok("http://LOCALHOST:5173"), Ok(()));
        assert_eq!(ok("http://localhost:5174"), Err(Refusal::ForbiddenOrigin));
        assert_eq!(ok("null"), Err(Refusal::ForbiddenOrigin));
        let no_origin = access.check(&request("/?token=t", &[]));
        assert_eq!(no_origin, Ok(()));
        // The origin is checked first: a foreign page learns nothing of the token.
        let foreign = access.check(&request("/", &[("origin", "https://evil.example")]));
        assert_eq!(foreign, Err(Refusal::ForbiddenOrigin));
    }

    #[test]
    fn debug_never_shows_the_token() {
        let shown = format!("{:?}", Access::token("hunter2"));
        assert!(!shown.contains("hunter2"), "{shown}");
    }
}
