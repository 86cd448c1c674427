import CallAlertControl
import CallAlertTestSupport
import CallAlertValues
import Foundation
import Logging
import Synchronization
import Testing

@testable import CallAlertDaemon

#if canImport(Glibc)
  import Glibc
#endif

/// Who may talk over the control socket: the socket's directory is the user's alone, the
/// daemon answers only its user (or a configured group), and the client talks only to its own user's daemon.
@Suite("Control socket access", .timeLimit(.minutes(1)))
struct ControlSocketAccessTests {
  // MARK: - The daemon checks its peers

  @Test(arguments: [
    (PeerCredentials(userID: 1000, groupID: 1000), true),  // the daemon's user
    (PeerCredentials(userID: 0, groupID: 0), true),  // root
    (PeerCredentials(userID: 1001, groupID: 1001), false),  // someone else
    (PeerCredentials(userID: 1002, groupID: 50), false),  // in a group that was not configured
  ])
  func withoutAGroupOnlyTheUserAndRootAreAdmitted(peer: PeerCredentials, admitted: Bool) {
    #expect(PeerPolicy(ownerID: 1000).admits(peer) == admitted)
  }

  @Test(arguments: [
    (PeerCredentials(userID: 1002, groupID: 50), true),  // the group is the peer's primary group
    (PeerCredentials(userID: 1003, groupID: 1003), true),  // a listed member of the group
    (PeerCredentials(userID: 1004, groupID: 1004), false),  // neither
  ])
  func aConfiguredGroupLetsItsMembersIn(peer: PeerCredentials, admitted: Bool) {
    #expect(PeerPolicy(ownerID: 1000, groupID: 50, groupMemberIDs: [1003]).admits(peer) == admitted)
  }

  @Test func unknownCredentialsAreRefused() {
    #expect(!PeerPolicy(ownerID: 1000).admits(nil))
  }

  @Test func theDaemonAnswersItsOwnUserOverARealSocket() async throws {
    let folder = SocketFolder()
    let server = try RunningServer(at: folder.socket)
    let answer = try await ControlSocketClient.request("ping", path: folder.socket)
    #expect(answer == #"{"echo":"ping"}"#)
    await server.stop()
  }

  @Test func theDaemonRefusesAPeerItsPolicyDoesNotAdmitWithAClearErrorLine() async throws {
    let folder = SocketFolder()
    // The test's own user plays the stranger: the daemon is told it belongs to uid 4242 only.
    let handled = Atomic<Bool>(false)
    let server = try RunningServer(at: folder.socket, policy: PeerPolicy(ownerID: 4242, admitsRoot: false)) {
      _, _, _ in
      handled.store(true, ordering: .relaxed)
      return "{}"
    }
    let answer = try await ControlSocketClient.request("ping", path: folder.socket)
    #expect(Answer.of(answer)?.isSuccess == false)
    #expect(answer.contains("uid \(geteuid()) may not use this socket (only uid 4242 may; see socket.group)"))
    let handledAnything = handled.load(ordering: .relaxed)
    #expect(!handledAnything)
    await server.stop()
  }

  /// The daemon may refuse and close before the request is even sent: the client still shows the reason.
  @Test func aRefusedClientShowsTheReasonEvenWhenTheDaemonClosedBeforeItSent() async throws {
    let folder = SocketFolder()
    let server = try RunningServer(at: folder.socket, policy: PeerPolicy(ownerID: 4242, admitsRoot: false))
    let descriptor = try ControlSocketClient.connect(folder.socket)
    let closed = await onThread { () -> Bool in
      let readHangUp: Int16 = 0x2000  // POLLRDHUP, which Glibc declares only under _GNU_SOURCE
      var entry = pollfd(fd: descriptor, events: readHangUp, revents: 0)
      for _ in 0..<100 where poll(&entry, 1, 100) >= 0 {
        if entry.revents & (readHangUp | Int16(POLLHUP)) != 0 { return true }
      }
      return false
    }
    #expect(closed, "the daemon did not close the refused connection")
    let answer = try ControlSocketClient.exchange(descriptor, #"{"type":"status"}"#, path: folder.socket)
    #expect(answer.contains("may not use this socket"))
    await server.stop()
  }

  // MARK: - The client checks the daemon

  @Test(arguments: [(uid_t(1000), true), (0, true), (1001, false)])
  func theClientTrustsOnlyItsOwnUsersOrRootsDaemon(listener: uid_t, trusted: Bool) {
    #expect(ControlSocketClient.trusts(PeerCredentials(userID: listener, groupID: listener), userID: 1000) == trusted)
  }

  /// Another user listening first on the socket's name gets nothing: the client refuses before sending, and
  /// the daemon refuses to start there.
  @Test(.enabled(if: geteuid() == 0, "needs root to listen as another user"))
  func theClientSendsNothingToAnotherUsersListener() async throws {
    let folder = SocketFolder()
    chmod(folder.path, 0o1777)  // shared like /tmp: anyone may create a name, nobody may remove another's
    let squatter = try await SpawnedProcess(
      "/usr/bin/setpriv",
      [
        "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
        """
        import socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind(sys.argv[1]); s.listen(8)
        print("ready", flush=True)
        sys.stdin.readline()  # the test is done: read what every queued connection sent
        s.settimeout(0.5); data = b""
        try:
            while True: data += s.accept()[0].recv(1000)
        except OSError: pass
        print("got:" + data.decode(errors="replace"), flush=True)
        """, folder.socket,
      ], input: .pipe, errors: .separate)
    defer { squatter.kill(SIGTERM) }
    let ready = await SpawnedProcess.first(in: squatter.lines, within: 20) { _ in true }
    #expect(ready?.hasPrefix("ready") == true)
    // A daemon starting there neither replaces the squatter's socket nor talks to it.
    #expect(throws: ControlSocketError.foreignDaemon(path: folder.socket, userID: 65534)) {
      _ = try ControlSocketServer(path: folder.socket, logger: Logger(label: "test"))
    }
    #expect(FileManager.default.fileExists(atPath: folder.socket))
    await #expect(throws: ControlSocketError.foreignDaemon(path: folder.socket, userID: 65534)) {
      _ = try await ControlSocketClient.request(#"{"type":"call","caller":"+14155550101"}"#, path: folder.socket)
    }
    squatter.write("done\n")
    let got = await SpawnedProcess.first(in: squatter.lines, within: 20) { $0.hasPrefix("got:") } ?? ""
    #expect(got == "got:", "the squatter received: \(got)")
  }

  // MARK: - The socket's directory

  @Test func theDefaultSocketIsInAPerUserDirectoryNotInSharedTmp() {
    let path = DaemonConfiguration.defaultSocketPath(environment: ["HOME": "/home/bob"], userID: 501)
    #expect(path == "/tmp/callalert-501/callalert.sock")
    #expect(SocketDirectory.parent(of: path) == DaemonConfiguration.privateSocketDirectory(userID: 501))
  }

  @Test func aMissingPrivateDirectoryIsCreatedWithMode0700() throws {
    let folder = SocketFolder()
    let directory = folder.path + "/private"
    try SocketDirectory.prepare(
      forSocketAt: directory + "/control.sock", userID: geteuid(), privateDirectory: directory)
    var status = stat()
    #expect(lstat(directory, &status) == 0)
    #expect(status.st_mode & S_IFMT == S_IFDIR)
    #expect(status.st_mode & 0o777 == 0o700)
    #expect(status.st_uid == geteuid())
  }

  @Test func aWorldWritablePrivateDirectoryIsRefused() throws {
    let folder = SocketFolder()
    let directory = folder.path + "/private"
    mkdir(directory, 0o700)
    chmod(directory, 0o777)
    #expect(
      throws: ControlSocketError.unsafeDirectory(
        path: directory, reason: "its mode is 0777; it must be 0700 (chmod 700 it)")
    ) {
      try SocketDirectory.prepare(
        forSocketAt: directory + "/control.sock", userID: geteuid(), privateDirectory: directory)
    }
  }

  @Test func aSymbolicLinkInPlaceOfThePrivateDirectoryIsRefused() throws {
    let folder = SocketFolder()
    let directory = folder.path + "/private"
    symlink(folder.path, directory)
    #expect(throws: ControlSocketError.unsafeDirectory(path: directory, reason: "it is a symbolic link; remove it")) {
      try SocketDirectory.prepare(
        forSocketAt: directory + "/control.sock", userID: geteuid(), privateDirectory: directory)
    }
  }

  @Test func aDirectoryOwnedBySomeoneElseIsRefused() {
    var status = stat()
    status.st_mode = S_IFDIR | 0o700
    status.st_uid = 4242
    #expect(
      SocketDirectory.problem(with: status, userID: 1000, strict: true)
        == "it belongs to uid 4242, not to you (uid 1000)")
    #expect(
      SocketDirectory.problem(with: status, userID: 1000, strict: false)
        == "it belongs to uid 4242, not to you (uid 1000) or root")
  }

  @Test(.enabled(if: geteuid() == 0, "needs root to give a directory away"))
  func aRealForeignOwnedPrivateDirectoryIsRefused() throws {
    let folder = SocketFolder()
    let directory = folder.path + "/private"
    mkdir(directory, 0o700)
    chown(directory, 65534, 65534)
    #expect(
      throws: ControlSocketError.unsafeDirectory(path: directory, reason: "it belongs to uid 65534, not to you (uid 0)")
    ) {
      try SocketDirectory.prepare(forSocketAt: directory + "/control.sock", userID: 0, privateDirectory: directory)
    }
  }

  @Test func aSharedDirectoryThatOthersMayWriteWithoutTheStickyBitIsRefused() throws {
    let folder = SocketFolder()
    chmod(folder.path, 0o777)
    let reason = "its mode is 0777: other users could replace the socket; use a directory only you can write"
    #expect(throws: ControlSocketError.unsafeDirectory(path: folder.path, reason: reason)) {
      _ = try ControlSocketServer(path: folder.socket, logger: .init(label: "test"))
    }
    #expect(!FileManager.default.fileExists(atPath: folder.socket))
  }
}
