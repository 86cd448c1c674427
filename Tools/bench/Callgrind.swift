import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// valgrind's callgrind, which counts the instructions a process executes in user space (Ir): the same program
/// doing the same work gives nearly the same count on any machine of the architecture, whatever its speed or
/// load. A running program's counters are dumped (and zeroed) on request through `vgdb`, so that a dump holds
/// exactly the work between two points of the bench.
enum Callgrind {
  /// What running a Swift program under callgrind takes here.
  struct Setup: Sendable {
    let valgrind: String
    let vgdb: String
    /// The sigsuspend shim to preload (``shimSource``).
    let shim: String
    let directory: String

    /// The arguments that put a program under callgrind, its dumps named `prefix.PID[.N]` in ``directory``.
    func wrapper(prefix: String, separateThreads: Bool = false) -> [String] {
      [
        "/usr/bin/env", "LD_PRELOAD=\(shim)", valgrind, "--tool=callgrind",
        "--callgrind-out-file=\(directory)/\(prefix).%p", "--separate-threads=\(separateThreads ? "yes" : "no")",
        // Every dump names its functions in full: compressed names refer to the dump that first used them,
        // and a dump read alone (or after the earlier ones were removed) would name none.
        "--compress-strings=no", "--compress-pos=no", "--vgdb=yes",
      ]
    }

    /// A copy of `executable` in ``directory`` without its DWARF (valgrind 3.19 gives up on the DWARF 5 the Swift
    /// toolchain writes); the symbol table stays, so the dumps still name every function. The executable itself
    /// when objcopy is missing or fails.
    func withoutDebugInfo(_ executable: String) -> String {
      guard let objcopy = which("objcopy") else { return executable }
      let copy = "\(directory)/\(URL(fileURLWithPath: executable).lastPathComponent)-symbols-only"
      if FileManager.default.fileExists(atPath: copy) { return copy }
      return runToEnd([objcopy, "--strip-debug", executable, copy]) == 0 ? copy : executable
    }
  }

  /// libdispatch parks the main thread of an async `main` in `sigsuspend` with a mask in read-only memory, and
  /// valgrind 3.19 writes to the mask it is given (its own signals taken out): the process dies at start under
  /// valgrind. This preloaded shim hands the kernel a copy on the stack instead; it runs once per process.
  static let shimSource = """
    #define _GNU_SOURCE
    #include <dlfcn.h>
    #include <signal.h>
    int sigsuspend(const sigset_t *mask) {
      sigset_t copy = *mask;
      int (*next)(const sigset_t *) = (int (*)(const sigset_t *))dlsym(RTLD_NEXT, "sigsuspend");
      return next(&copy);
    }

    """

  /// Finds valgrind, vgdb and a C compiler, and builds the shim in `directory`; or why callgrind cannot run.
  static func setUp(directory: String) -> Result<Setup, BenchError> {
    guard let valgrind = which("valgrind"), let vgdb = which("vgdb") else {
      return .failure(BenchError("valgrind is not installed (apt-get install valgrind)"))
    }
    guard let cc = which("cc") else { return .failure(BenchError("no C compiler (cc) for the sigsuspend shim")) }
    let source = "\(directory)/sigsuspend-shim.c"
    let shim = "\(directory)/sigsuspend-shim.so"
    guard (try? shimSource.write(toFile: source, atomically: true, encoding: .utf8)) != nil,
      runToEnd([cc, "-shared", "-fPIC", "-O2", "-o", shim, source, "-ldl"]) == 0
    else { return .failure(BenchError("could not build the sigsuspend shim with \(cc)")) }
    return .success(Setup(valgrind: valgrind, vgdb: vgdb, shim: shim, directory: directory))
  }

  /// Asks the callgrind of `pid` to dump its counters (which zeroes them) with `hint` as the dump's reason; the
  /// path of the new dump file, found among `directory`'s files, or nil when none appeared within 60 s.
  static func dump(vgdb: String, pid: pid_t, hint: String, directory: String, prefix: String) -> String? {
    let before = Set(dumpFiles(directory: directory, prefix: "\(prefix).\(pid)."))
    // A daemon blocked in epoll_wait is interrupted after 1 ms instead of the default 100: the dump lands
    // between two requests either way, and the series is not stretched by 0.1 s a request.
    guard runToEnd([vgdb, "--pid=\(pid)", "--max-invoke-ms=1", "dump \(hint)"]) == 0 else { return nil }
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .seconds(60))
    while clock.now < deadline {
      let added = Set(dumpFiles(directory: directory, prefix: "\(prefix).\(pid).")).subtracting(before)
      // callgrind writes the file, then the next dump's number; the totals line is the last it writes.
      if let path = added.sorted().last, totals(ofDumpAt: path) != nil { return path }
      usleep(1_000)
    }
    return nil
  }

  /// The dump files in `directory` whose names start with `prefix`, as paths.
  static func dumpFiles(directory: String, prefix: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(prefix) }.map {
      "\(directory)/\($0)"
    }
  }

  /// The instructions counted in a dump: its `totals:` line (or `summary:`), nil while it is not written yet.
  static func totals(ofDumpAt path: String) -> Int? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n").reversed() where line.hasPrefix("totals:") || line.hasPrefix("summary:") {
      return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
    return nil
  }

  /// Each function's own instructions in a dump (not its callees'), the largest first: the cost lines under each
  /// `fn=`, leaving out the line after each `calls=` (a call's inclusive cost, which belongs to the callee). Computed
  /// here because callgrind_annotate 3.19 charges calls still running at a mid-run dump to their callers' own cost.
  static func selfCost(ofDumpAt path: String) -> [(function: String, instructions: Int)] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
    var costs: [String: Int] = [:]
    var function = ""
    var afterCall = false
    for line in text.split(separator: "\n") {
      if line.hasPrefix("fn=") {
        function = String(line.dropFirst(3))
      } else if line.hasPrefix("calls=") {
        afterCall = true
      } else if let first = line.first, first.isNumber || first == "+" || first == "-" || first == "*" {
        if afterCall {
          afterCall = false
        } else if let cost = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) {
          costs[function, default: 0] += cost
        }
      }
    }
    return costs.sorted { $0.value > $1.value }.map { ($0.key, $0.value) }
  }

  /// `names` demangled by the toolchain's `swift-demangle` (simplified), or as they are when it is missing.
  static func demangled(_ names: [String]) -> [String] {
    guard let demangler = which("swift-demangle") else { return names }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: demangler)
    process.arguments = ["--simplified"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    guard (try? process.run()) != nil else { return names }
    input.fileHandleForWriting.write(Data((names.joined(separator: "\n") + "\n").utf8))
    try? input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
    return lines.count >= names.count ? lines.prefix(names.count).map(String.init) : names
  }

  /// Whether a dump counted a function named `name` (its `fn=` lines), to find one thread's file.
  static func dump(at path: String, names function: String) -> Bool {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return false }
    // "fn=name", or "fn=(id) name" where names are compressed; a name is spelled out once, where it first
    // appears, which may be as a callee ("cfn=").
    return text.split(separator: "\n").contains { line in
      (line.hasPrefix("fn=") || line.hasPrefix("cfn="))
        && (line.hasSuffix("=\(function)") || line.hasSuffix(") \(function)"))
    }
  }

  /// The version valgrind reports.
  static func version(valgrind: String) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: valgrind)
    process.arguments = ["--version"]
    let output = Pipe()
    process.standardOutput = output
    guard (try? process.run()) != nil else { return "unknown" }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
