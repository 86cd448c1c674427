import Foundation
import Testing

@testable import CallAlertQemu

#if canImport(Glibc)
  import Glibc
#endif

/// What QEMU inherits from the process that starts it.
@Suite("QEMU's child process")
struct ChildProcessTests {
  /// A descriptor this process holds without close-on-exec (a library's socket, another test's connection)
  /// stays out of the child: inherited, it kept a connection its owner had closed open for the child's life.
  @Test func aChildGetsItsStandardDescriptorsAndNothingElse() throws {
    // No O_CLOEXEC, on purpose; moved to 100 or above, since the child's `ls` opens /proc/self/fd as its lowest
    // free descriptor (often 3), which must not be taken for the stray one (flake-hunt saw that once).
    let opened = open("/dev/null", O_RDONLY)
    try #require(opened > 2)
    let stray = fcntl(opened, F_DUPFD, 100)
    close(opened)
    try #require(stray >= 100)
    defer { close(stray) }
    let (process, output) = try ChildProcess.spawn(
      "/bin/sh", arguments: ["-c", "ls /proc/self/fd"], capturingOutput: true, ownProcessGroup: false)
    let descriptor = try #require(output)
    // A few short lines from a child that exits at once: read to the end here.
    let listing = String(
      decoding: FileHandle(fileDescriptor: descriptor, closeOnDealloc: true).readDataToEndOfFile(), as: UTF8.self)
    _ = process
    let open = Set(listing.split(separator: "\n").compactMap { Int32($0) })
    #expect(!open.contains(stray), "the child holds descriptor \(stray): \(open.sorted())")
    #expect(open.isSuperset(of: [0, 1, 2]))
  }
}
