import CallAlertText
import CallAlertValues
internal import Yams

extension ConfigParser {
  /// The keys of the `http:` section.
  static let httpKeys = [
    "listen", "token_file", "twilio_auth_token_file", "vonage_signature_secret_file", "public_url", "allowed_hosts",
  ]

  /// `http:`: where the HTTP API listens and its secrets' files. Listening beyond loopback without a
  /// `token_file` is an error at `listen`: anyone who can reach the port could ring the boards.
  mutating func http(_ node: Node) -> HTTPSettings? {
    guard let fields = mapping(node, "http", example: "'listen: 127.0.0.1:8080'") else { return nil }
    checkKeys(fields, allowed: Self.httpKeys, "http")
    guard let listenNode = fields.value("listen") else {
      error(node, "http.listen", "missing; say where to listen, e.g. 'listen: 127.0.0.1:8080'")
      return nil
    }
    guard let text = nonEmptyText(listenNode, "http.listen") else { return nil }
    let listen: HTTPListenAddress
    switch HTTPListenAddress.parse(text) {
    case .success(let address): listen = address
    case .failure(let problem):
      error(listenNode, "http.listen", problem.description)
      return nil
    }
    var settings = HTTPSettings(listen: listen)
    for key in ["token_file", "twilio_auth_token_file", "vonage_signature_secret_file"] {
      if let value = fields.value(key) { settings.places[key] = location(of: value).0 }
    }
    settings.tokenFile = fields.value("token_file").flatMap { path($0, "http.token_file") }
    settings.twilioAuthTokenFile = fields.value("twilio_auth_token_file").flatMap {
      path($0, "http.twilio_auth_token_file")
    }
    settings.vonageSignatureSecretFile = fields.value("vonage_signature_secret_file").flatMap {
      path($0, "http.vonage_signature_secret_file")
    }
    if let urlNode = fields.value("public_url"), let url = nonEmptyText(urlNode, "http.public_url") {
      if (url.hasPrefix("http://") || url.hasPrefix("https://")) && !url.contains(" ") && !url.contains("?") {
        settings.publicURL = url.hasSuffix("/") ? String(url.dropLast()) : url
      } else {
        error(
          urlNode, "http.public_url",
          "'\(DisplayText.excerpt(url))' is not an http:// or https:// URL without a query, "
            + "e.g. https://example.org/callalert")
      }
    }
    if let hostsNode = fields.value("allowed_hosts") {
      if let items = hostsNode.sequence {
        for item in items {
          guard let name = nonEmptyText(item, "http.allowed_hosts") else { continue }
          if name.contains(where: { $0 == " " || $0 == "/" || $0 == ":" }) && !name.hasPrefix("[") {
            error(
              item, "http.allowed_hosts",
              "'\(DisplayText.excerpt(name))' is not a host name; give a name such as "
                + "callalert.home.arpa, without scheme, port or path")
          } else {
            settings.allowedHosts.append(name.lowercased())
          }
        }
      } else {
        error(hostsNode, "http.allowed_hosts", "a list of host names, e.g. [callalert.home.arpa]")
      }
    }
    if !listen.isLoopback && fields.value("token_file") == nil {
      error(
        listenNode, "http.listen",
        "\(listen) is reachable beyond this machine: add 'token_file:' (a 0600 file holding the bearer token), "
          + "or listen on 127.0.0.1")
    }
    return settings
  }
}
