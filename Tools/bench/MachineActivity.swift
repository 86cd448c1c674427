import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What else the machine did while a section ran: the load average at its start and end, and the CPU the rest of
/// the machine used (every CPU's busy time from /proc/stat, minus this process's and its children's own).
struct MachineActivity: Sendable {
  /// One reading.
  struct Sample: Sendable {
    let at: ContinuousClock.Instant
    /// Busy CPU time of the whole machine since boot (user, nice, system, irq, softirq, steal), s.
    let machineBusySeconds: Double
    /// CPU time of this process and of its reaped children, s.
    let ownSeconds: Double
    /// The 1-minute load average.
    let load: Double

    /// Reads the counters now.
    static func now() -> Sample {
      var loads = [Double](repeating: 0, count: 3)
      _ = getloadavg(&loads, 3)
      return Sample(
        at: .now, machineBusySeconds: busySeconds(), ownSeconds: ownSeconds(RUSAGE_SELF) + ownSeconds(RUSAGE_CHILDREN),
        load: loads[0])
    }

    private static func busySeconds() -> Double {
      guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") })
      else { return 0 }
      // user nice system idle iowait irq softirq steal (guest time is already counted in user).
      let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
      guard fields.count >= 8 else { return 0 }
      let busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7]
      return busy / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func ownSeconds(_ who: __rusage_who) -> Double {
      var usage = rusage()
      getrusage(who.rawValue, &usage)
      func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
      return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
  }

  let start: Sample
  let end: Sample

  /// Wall-clock seconds between the readings.
  var seconds: Double { start.at.duration(to: end.at).seconds }
  /// The CPU the rest of the machine used, in cores (1.0: one core busy all the time).
  var otherCores: Double {
    let other = (end.machineBusySeconds - start.machineBusySeconds) - (end.ownSeconds - start.ownSeconds)
    return max(0, other) / max(seconds, 1e-9)
  }

  /// As a table cell.
  var text: String {
    String(format: "load %.2f → %.2f; the rest of the machine used %.2f cores", start.load, end.load, otherCores)
  }

  var json: JSONValue {
    .object([
      ("seconds", .number(seconds)), ("load_average_1m_start", .number(start.load)),
      ("load_average_1m_end", .number(end.load)), ("other_cpu_cores", .number(otherCores)),
    ])
  }
}
