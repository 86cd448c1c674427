import CallAlertBridges
import CallAlertClient
import CallAlertControl
import CallAlertDaemon
import CallAlertHID
import CallAlertProtocol
import CallAlertSerial
import CallAlertTransport

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

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
  /// Opens a TCP connection to a phone system and closes it again, giving up after `timeout`.
  public var connectTCP:
    @Sendable (_ host: String, _ port: Int, _ timeout: Duration) async -> Result<Void, ProbeFailure>
  /// Whether an AMI secret file may be used: there, its owner's only (0600 or 0400), with a secret in it.
  public var checkSecretFile: @Sendable (_ path: String) -> Result<Void, ProbeFailure>
  /// The USB lights hidapi finds.
  public var listLights: @Sendable () -> [HIDLightInfo]

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
    probeBoard: @escaping @Sendable (String) async -> Result<BoardInfo, ProbeFailure>,
    connectTCP: @escaping @Sendable (String, Int, Duration) async -> Result<Void, ProbeFailure>,
    checkSecretFile: @escaping @Sendable (String) -> Result<Void, ProbeFailure>,
    listLights: @escaping @Sendable () -> [HIDLightInfo] = { HIDLights.discover() }
  ) {
    self.listLights = listLights
    self.daemonStatus = daemonStatus
    self.listPorts = listPorts
    self.probeBoard = probeBoard
    self.connectTCP = connectTCP
    self.checkSecretFile = checkSecretFile
  }

  /// The real daemon (a `status` request on its socket), libserialport's port list, a HELLO, the bridges'
  /// TCP connect and their secret-file check.
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
    },
    connectTCP: { host, port, timeout in await connectOnce(host: host, port: port, timeout: timeout) },
    checkSecretFile: { path in
      do throws(BridgeConnectError) {
        _ = try SecretFile.read(path)
        return .success(())
      } catch {
        return .failure(ProbeFailure(error.description))
      }
    })

  /// Connects with ``TCPConnector`` (as the daemon would) and closes at once; a timeout cancels the attempt.
  private static func connectOnce(host: String, port: Int, timeout: Duration) async -> Result<Void, ProbeFailure> {
    await withTaskGroup(of: Result<Void, ProbeFailure>.self) { group in
      group.addTask {
        do throws(BridgeConnectError) {
          let channel = try await TCPConnector.connect(host: host, port: port)
          channel.close()
          await channel.waitUntilReleased()
          return .success(())
        } catch {
          return .failure(ProbeFailure(error.description))
        }
      }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return .failure(ProbeFailure("\(host):\(port): no answer within \(timeout)"))
      }
      let first = await group.next() ?? .failure(ProbeFailure("\(host):\(port): not tried"))
      group.cancelAll()
      return first
    }
  }
}
