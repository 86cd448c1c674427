import CallAlertClient
import CallAlertControl
import CallAlertDaemon
import CallAlertProtocol
import CallAlertSerial
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why the daemon did not answer.
public enum DaemonProbeFailure: Error, Equatable, Sendable {
  /// Nothing listens at the socket (no file, or a stale one).
  case notRunning
  /// The socket is there but this user may not connect.
  case permissionDenied
  /// Anything else, described.
  case failed(String)
}

/// What the doctor asks of the outside world that takes time: the daemon, the serial ports, the boards.
/// ``live`` does it for real; tests answer from a script.
public struct DoctorProbes: Sendable {
  /// Asks the daemon listening at a socket path for its status.
  public var daemonStatus: @Sendable (_ socketPath: String) async -> Result<StatusReport, DaemonProbeFailure>
  /// The serial ports the system lists.
  public var listPorts: @Sendable () -> [SerialPortInfo]
  /// Opens a port and asks the board behind it for its INFO; the error's description on failure.
  public var probeBoard: @Sendable (_ path: String) async -> Result<BoardInfo, ProbeFailure>

  /// Why a board did not answer.
  public struct ProbeFailure: Error, Equatable, Sendable {
    /// The error, described.
    public var description: String
    /// A failure.
    public init(_ description: String) { self.description = description }
  }

  /// Probes.
  public init(
    daemonStatus: @escaping @Sendable (String) async -> Result<StatusReport, DaemonProbeFailure>,
    listPorts: @escaping @Sendable () -> [SerialPortInfo],
    probeBoard: @escaping @Sendable (String) async -> Result<BoardInfo, ProbeFailure>
  ) {
    self.daemonStatus = daemonStatus
    self.listPorts = listPorts
    self.probeBoard = probeBoard
  }

  /// The real daemon (a `status` request on its socket), libserialport's port list and a HELLO.
  public static let live = DoctorProbes(
    daemonStatus: { path in
      let answer: Result<StatusReport, ControlClientError>
      do throws(ControlClientError) {
        answer = .success(try await ControlClient.socket(path: path).status())
      } catch {
        answer = .failure(error)
      }
      switch answer {
      case .success(let status): return .success(status)
      case .failure(.noDaemon): return .failure(.notRunning)
      case .failure(.permissionDenied): return .failure(.permissionDenied)
      case .failure(let error): return .failure(.failed(error.description))
      }
    },
    listPorts: { (try? SerialPortInfo.list()) ?? [] },
    probeBoard: { path in
      do { return .success(try await BoardLocator.probe(path)) } catch { return .failure(ProbeFailure("\(error)")) }
    })
}
