import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The process's own resource use: CPU time from getrusage(RUSAGE_SELF), memory from /proc/self/status.
enum ProcessStats {
  /// User plus system CPU time of every thread of this process so far.
  static var cpuTime: Duration {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func duration(_ time: timeval) -> Duration { .seconds(Int64(time.tv_sec)) + .microseconds(Int64(time.tv_usec)) }
    return duration(usage.ru_utime) + duration(usage.ru_stime)
  }

  /// Resident set size now, in KiB (VmRSS); 0 where /proc is missing.
  static var residentKiB: Int { statusField("VmRSS") }

  /// The largest resident set size so far, in KiB (VmHWM).
  static var peakResidentKiB: Int { statusField("VmHWM") }

  /// Threads in the process now.
  static var threads: Int { statusField("Threads") }

  /// Context switches (voluntary and not) of each thread now, by thread id, with the thread's name.
  static func contextSwitchesByThread() -> [Int: (name: String, count: Int)] {
    var result: [Int: (name: String, count: Int)] = [:]
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    for task in tasks {
      guard let id = Int(task) else { continue }
      let name =
        (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines) ?? task
      let status = (try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)) ?? ""
      var count = 0
      for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
        count += Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
      }
      result[id] = (name, count)
    }
    return result
  }

  /// Context switches since `earlier`, per thread name (threads born since count from zero).
  static func wakeUps(since earlier: [Int: (name: String, count: Int)]) -> [(name: String, count: Int)] {
    var byName: [String: Int] = [:]
    for (id, now) in contextSwitchesByThread() {
      byName[now.name, default: 0] += now.count - (earlier[id]?.count ?? 0)
    }
    return byName.map { (name: $0.key, count: $0.value) }
  }

  /// Resident set size of another process now, in KiB (its VmRSS); 0 when it cannot be read.
  static func residentKiB(of pid: pid_t) -> Int { statusField("VmRSS", process: "\(pid)") }

  /// Descriptors another process holds open now (the entries of /proc/PID/fd); -1 when they cannot be listed.
  static func openDescriptors(of pid: pid_t) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
  }

  private static func statusField(_ name: String, process: String = "self") -> Int {
    guard let text = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
      let digits = line.dropFirst(name.count + 1).filter(\.isNumber)
      return Int(digits) ?? 0
    }
    return 0
  }
}

/// What the figures were measured on.
struct Machine: Sendable {
  /// Online processors.
  let processors: Int
  /// The CPU's model name from /proc/cpuinfo.
  let cpuModel: String
  /// Total memory in MiB (MemTotal).
  let memoryMiB: Int
  /// The 1-minute load average when the bench started: other work disturbs the timing figures.
  let loadAverage: Double
  /// The kernel, from uname.
  let kernel: String

  /// Reads the machine's description.
  static func current() -> Machine {
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model =
      cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }.map {
        $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
      } ?? "unknown"
    let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
    let totalKiB =
      meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }.map { Int($0.filter(\.isNumber)) ?? 0 } ?? 0
    var loads = [Double](repeating: 0, count: 3)
    _ = getloadavg(&loads, 3)
    var names = utsname()
    uname(&names)
    let release = withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    return Machine(
      processors: ProcessInfo.processInfo.activeProcessorCount, cpuModel: model, memoryMiB: totalKiB / 1_024,
      loadAverage: loads[0], kernel: release)
  }

  /// The description as JSON.
  var json: JSONValue {
    .object([
      ("processors", .int(processors)), ("cpu_model", .string(cpuModel)), ("memory_mib", .int(memoryMiB)),
      ("load_average_1m", .number(loadAverage)), ("kernel", .string(kernel)),
    ])
  }
}
