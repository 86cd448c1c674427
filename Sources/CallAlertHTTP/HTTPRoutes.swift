import CallAlertText

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

  /// The route a caller who sent `path` probably meant, for a 404's "did you mean": the path with the `/v1`
  /// prefix it lacks or without a trailing `/`, else the closest route within a few edits (a route with an id
  /// is compared with the caller's own segment in its place, so `/v1/call/c1/hangup` finds its route).
  static func suggestion(for path: String) -> String? {
    let bare = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    if bare != path, route(of: bare) != nil { return bare }
    if !bare.hasPrefix("/v1/"), route(of: "/v1" + bare) != nil { return "/v1" + bare }
    let parts = bare.split(separator: "/", omittingEmptySubsequences: false)
    let candidates = all.map { route -> String in
      let pattern = route.path.split(separator: "/", omittingEmptySubsequences: false)
      guard pattern.count == parts.count else { return route.path }
      return zip(pattern, parts).map { $0 == "{id}" ? $1 : $0 }.joined(separator: "/")
    }
    return Suggestion.closest(to: bare, in: candidates)
  }
}
