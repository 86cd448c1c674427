/// The API's routes: what `docs/openapi.yaml` documents, and what a wrong method on a known path is told to
/// use (405 with `Allow`).
enum HTTPRoutes {
  /// Each path (with `{id}` for a call id) and the methods it takes.
  static let all: [(path: String, methods: [String])] = [
    ("/healthz", ["GET"]),
    ("/metrics", ["GET"]),
    ("/v1/calls", ["POST"]),
    ("/v1/calls/{id}/hangup", ["POST"]),
    ("/v1/calls/{id}/answered", ["POST"]),
    ("/v1/ack", ["POST"]),
    ("/v1/status", ["GET"]),
    ("/v1/dnd", ["GET", "PUT"]),
    ("/v1/history", ["GET"]),
    ("/v1/push", ["POST"]),
    ("/v1/events", ["GET"]),
    ("/v1/webhooks/sipgate", ["POST"]),
    ("/v1/webhooks/twilio", ["POST"]),
    ("/v1/webhooks/vonage", ["POST"]),
    ("/v1/webhooks/json", ["POST"]),
  ]

  /// The route a path matches (its pattern), or nil.
  static func route(of path: String) -> (path: String, methods: [String])? {
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    return all.first { route in
      let pattern = route.path.split(separator: "/", omittingEmptySubsequences: false)
      return pattern.count == parts.count
        && zip(pattern, parts).allSatisfy { $0 == $1 || ($0 == "{id}" && !$1.isEmpty) }
    }
  }
}
