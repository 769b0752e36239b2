//! A protocol generated through a renamed runtime dependency (`wire`, not `contracts`).

/// The protocol, reached through `wire::protocol!`.
pub mod pings {
    wire::protocol! { name: "pings", dir: "schema" }
}

#[cfg(test)]
mod tests {
    use super::pings;

    #[test]
    fn the_generated_tables_work_through_the_renamed_dependency() {
        let ok = pings::RequestPayload::parse("ping", r#"{"id":"p1"}"#);
        assert!(ok.is_ok(), "{ok:?}");
        let refused = pings::RequestPayload::parse("ping", r#"{"id":""}"#);
        assert!(refused.is_err());
        assert_eq!(pings::REQUEST_NAMES, ["ping"]);
    }
}
