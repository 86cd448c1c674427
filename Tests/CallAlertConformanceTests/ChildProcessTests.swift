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
    let stray = open("/dev/null", O_RDONLY)  // no O_CLOEXEC, on purpose
    try #require(stray > 2)
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
