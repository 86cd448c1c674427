import CallAlertControl
import Logging

/// The edge of the control protocol in the daemon: a line's bytes are decoded once into a
/// ``ControlRequest``, the handler's ``ControlResponse`` is encoded once into the answer's bytes. The
/// control socket and standard input both answer through it.
struct ControlLineEndpoint: Sendable {
  /// Answers a typed request.
  let handle: @Sendable (ControlRequest, _ source: String, _ lineNumber: Int) async -> ControlResponse
  let logger: Logger

  /// Answers one line as the bytes that arrived (invalid UTF-8 is refused, never replaced).
  func answer(_ line: [UInt8], lineNumber: Int, source: String) async -> ControlResponse {
    let request: ControlRequest
    do {
      request = try ControlRequest.parse(bytes: line, source: source, lineNumber: lineNumber)
    } catch {
      logger.notice("rejected \(error)")
      return .failure(error)
    }
    return await handle(request, source, lineNumber)
  }

  /// The answer's bytes, a line with its newline.
  static func bytes(of response: ControlResponse) -> [UInt8] { Array((response.line + "\n").utf8) }
}
