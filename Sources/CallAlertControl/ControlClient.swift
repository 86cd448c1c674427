import CallAlertText
import CallAlertValues

/// Talks the control protocol with typed values: a ``ControlRequest`` goes out as one line, the answer line
/// comes back as a ``ControlResponse``. What carries the lines (the Unix socket, a test's in-memory handler)
/// is injected, so the CLI never builds or reads JSON itself.
public struct ControlClient: Sendable {
  /// Sends one request line and returns the answer line.
  public typealias Exchange = @Sendable (String) async throws(ControlClientError) -> String

  private let exchange: Exchange

  /// A client over `exchange`.
  public init(exchange: @escaping Exchange) {
    self.exchange = exchange
  }

  /// Sends `request` and returns the answer, failures included.
  public func send(_ request: ControlRequest) async throws(ControlClientError) -> ControlResponse {
    let line: String
    do {
      line = try request.line()
    } catch {
      throw .notSent(error.description)
    }
    let answer = try await exchange(line)
    do {
      return try ControlResponse(line: answer)
    } catch {
      throw .unexpectedAnswer(error.description)
    }
  }

  /// Sends a caller's request (`call`, `hangup`, `answered`, `ack`, `push`, `dnd`, `silent`, `reload`) and
  /// returns what it did; a failure answer is thrown as ``ControlClientError/refused(_:)``.
  public func perform(_ request: ControlRequest) async throws(ControlClientError) -> RequestOutcome {
    switch try await send(request) {
    case .ok: return RequestOutcome(.ok)
    case .outcome(let outcome): return outcome
    case .failure(let failure): throw .refused(failure)
    case let other: throw .unexpectedAnswer("\(other.line) to \(Self.describe(request))")
    }
  }

  /// The daemon's status.
  public func status() async throws(ControlClientError) -> StatusReport {
    switch try await send(.status) {
    case .status(let report): return report
    case .failure(let failure): throw .refused(failure)
    case let other: throw .unexpectedAnswer("\(other.line) to status")
    }
  }

  /// Recent calls, newest first, and what is missing when the history is not whole.
  public func history(
    missedOnly: Bool, limit: Int
  ) async throws(ControlClientError) -> (
    calls: [CallRecord], problem: HistoryProblem?
  ) {
    switch try await send(.history(missedOnly: missedOnly, limit: limit)) {
    case .history(let calls, let problem): return (calls, problem)
    case .failure(let failure): throw .refused(failure)
    case let other: throw .unexpectedAnswer("\(other.line) to history")
    }
  }

  private static func describe(_ request: ControlRequest) -> String {
    (try? request.line()) ?? "the request"
  }
}

/// Why a ``ControlClient`` request got no answer it could use.
public enum ControlClientError: Error, Equatable, Sendable, CustomStringConvertible {
  /// No daemon listens where the client looked (nothing was sent); the reason says where.
  case noDaemon(String)
  /// The socket is there but refuses this user; the reason says where.
  case permissionDenied(String)
  /// The daemon could not be reached or stopped answering; the reason says why.
  case unreachable(String)
  /// The request cannot be written (an engine input that only the daemon makes).
  case notSent(String)
  /// The daemon answered with a failure.
  case refused(ControlFailure)
  /// The daemon answered something this client did not ask for, or cannot read.
  case unexpectedAnswer(String)

  /// A message for the user; text from the daemon is shown safely.
  public var description: String {
    switch self {
    case .noDaemon(let reason), .permissionDenied(let reason), .unreachable(let reason), .notSent(let reason):
      reason
    case .refused(let failure): DisplayText.safe(failure.error)
    case .unexpectedAnswer(let what): "unexpected answer from the daemon: \(DisplayText.excerpt(what))"
    }
  }
}
