import CallAlertControl
import CallAlertDaemon
import CallAlertDoctor
import CallAlertHID
import CallAlertProtocol
import CallAlertSerial
import Synchronization

/// A machine described by the test: files with their modes and groups, what the user may open, processes.
struct FakeSystem: DoctorSystem {
  var user = DoctorUser(name: "alice", id: 1000, groups: [1000, 27])
  var isLinux = true
  var files: [String: FileFacts] = [:]
  var texts: [String: String] = [:]
  /// Paths this user may read and write; every other existing path is refused.
  var readWrite: Set<String> = []
  var writable: Set<String> = []
  var groups: [UInt32: String] = [1000: "alice", 20: "dialout", 27: "sudo", 998: "callalert"]
  var running: Set<String> = []

  func facts(_ path: String) -> FileFacts? {
    files[path] ?? (texts[path] != nil ? FileFacts(kind: .regular, mode: 0o644) : nil)
  }
  func canReadWrite(_ path: String) -> Bool { readWrite.contains(path) }
  func canWrite(_ path: String) -> Bool { writable.contains(path) || readWrite.contains(path) }
  func readText(_ path: String) -> String? { texts[path] }
  func entries(of folder: String) -> [String] {
    Set(
      (Array(files.keys) + Array(texts.keys)).compactMap { path -> String? in
        guard path.hasPrefix(folder + "/") else { return nil }
        let rest = path.dropFirst(folder.count + 1)
        return rest.contains("/") ? nil : String(rest)
      }
    ).sorted()
  }
  func groupName(_ id: UInt32) -> String? { groups[id] }
  func isRunning(_ processName: String) -> Bool { running.contains(processName) }
}

/// Probes answering from the test's script.
struct Script: Sendable {
  var daemon: Result<StatusReport, DaemonProbeFailure> = .failure(.notRunning)
  var ports: [SerialPortInfo] = []
  var boards: [String: Result<BoardInfo, DoctorProbes.ProbeFailure>] = [:]
  /// TCP connects by `host:port`; any other is refused.
  var connects: [String: Result<Void, DoctorProbes.ProbeFailure>] = [:]
  /// Secret-file checks by path; any other passes.
  var secrets: [String: Result<Void, DoctorProbes.ProbeFailure>] = [:]
  /// The USB lights plugged in.
  var lights: [HIDLightInfo] = []
  /// Every TCP connect the doctor asked for, with its timeout.
  let connectLog = ConnectLog()

  var probes: DoctorProbes {
    let script = self
    return DoctorProbes(
      daemonStatus: { _ in script.daemon }, listPorts: { script.ports },
      probeBoard: { path in script.boards[path] ?? .failure(.init("no answer from \(path)")) },
      connectTCP: { host, port, timeout in
        script.connectLog.append("\(host):\(port)", timeout)
        return script.connects["\(host):\(port)"] ?? .failure(.init("\(host):\(port): Connection refused"))
      },
      checkSecretFile: { path in script.secrets[path] ?? .success(()) }, listLights: { script.lights })
  }
}

/// The TCP connects a doctor asked for.
final class ConnectLog: Sendable {
  private let entries = Mutex<[(address: String, timeout: Duration)]>([])
  func append(_ address: String, _ timeout: Duration) { entries.withLock { $0.append((address, timeout)) } }
  var all: [(address: String, timeout: Duration)] { entries.withLock { $0 } }
}
