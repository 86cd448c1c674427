import CallAlertControl

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension ControlClient {
  /// A client of the daemon listening on the Unix socket at `path`: one connection per request.
  public static func socket(path: String) -> ControlClient {
    ControlClient { line async throws(ControlClientError) in
      let answer: Result<String, ControlSocketError>
      do throws(ControlSocketError) {
        answer = .success(try await ControlSocketClient.request(line, path: path))
      } catch {
        answer = .failure(error)
      }
      return try answer.mapError(ControlClientError.init).get()
    }
  }
}

extension ControlClientError {
  /// The client's error for a socket's.
  init(_ error: ControlSocketError) {
    switch error {
    case .noDaemon: self = .noDaemon(error.description)
    case .system(_, _, let number) where number == EACCES || number == EPERM:
      self = .permissionDenied(error.description)
    default: self = .unreachable(error.description)
    }
  }
}
