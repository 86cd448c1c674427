import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What the test against Debian's kdeconnectd needs from this machine, and where the built `callalert` is.
enum DebianKDEConnect {
  static var isPossible: Bool {
    let files = FileManager.default
    let kdeconnectd = (try? files.contentsOfDirectory(atPath: "/usr/lib")).map { folders in
      folders.contains { files.isExecutableFile(atPath: "/usr/lib/\($0)/libexec/kdeconnectd") }
    }
    return getuid() == 0 && kdeconnectd == true && files.isExecutableFile(atPath: "/usr/sbin/ip")
      && files.isExecutableFile(atPath: "/usr/bin/dbus-run-session")
      && files.isExecutableFile(atPath: "/usr/bin/kdeconnect-cli")
  }

  /// The built `callalert` beside the test bundle (`.build/debug`).
  static func binary() -> String? {
    let folders = [
      URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path,
      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path,
      FileManager.default.currentDirectoryPath + "/.build/debug",
    ]
    return folders.map { $0 + "/callalert" }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }
}
