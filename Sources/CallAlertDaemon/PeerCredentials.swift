#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Who is at the other end of a connected Unix socket, as the kernel vouches for it.
public struct PeerCredentials: Equatable, Sendable {
  /// The peer's process, when the system says (Linux); 0 otherwise.
  public var processID: pid_t
  /// The peer's effective user id.
  public var userID: uid_t
  /// The peer's effective group id.
  public var groupID: gid_t

  /// Creates credentials (tests fake other users with it).
  public init(processID: pid_t = 0, userID: uid_t, groupID: gid_t) {
    self.processID = processID
    self.userID = userID
    self.groupID = groupID
  }

  /// The credentials of the process at the other end of `descriptor`, a connected Unix socket; nil when the
  /// system cannot tell.
  ///
  /// The corresponding C function is `getsockopt(SO_PEERCRED)` on Linux, `getpeereid` on Darwin.
  public static func of(_ descriptor: CInt) -> PeerCredentials? {
    #if canImport(Glibc)
      // struct ucred { pid_t pid; uid_t uid; gid_t gid; }, which Glibc declares only under _GNU_SOURCE.
      var credentials: [UInt32] = [0, 0, 0]
      var length = socklen_t(3 * MemoryLayout<UInt32>.size)
      let status = credentials.withUnsafeMutableBytes {
        getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, $0.baseAddress, &length)
      }
      guard status == 0, length == 3 * MemoryLayout<UInt32>.size else { return nil }
      return PeerCredentials(
        processID: pid_t(bitPattern: credentials[0]), userID: credentials[1], groupID: credentials[2])
    #else
      var user = uid_t()
      var group = gid_t()
      guard getpeereid(descriptor, &user, &group) == 0 else { return nil }
      return PeerCredentials(userID: user, groupID: group)
    #endif
  }
}

/// Which peers the daemon answers: its own user, root, and the members of an optional group
/// (`socket.group`). Everyone else is refused before a byte of their request is read.
public struct PeerPolicy: Equatable, Sendable {
  /// The daemon's user.
  public var ownerID: uid_t
  /// Whether root may connect (it can read the daemon's memory anyway).
  public var admitsRoot: Bool
  /// The group allowed in besides the owner (`socket.group`), if any.
  public var groupID: gid_t?
  /// Users allowed through a supplementary membership of the group (the kernel reports only the primary group).
  public var groupMemberIDs: [uid_t]

  /// Creates a policy.
  public init(ownerID: uid_t, admitsRoot: Bool = true, groupID: gid_t? = nil, groupMemberIDs: [uid_t] = []) {
    self.ownerID = ownerID
    self.admitsRoot = admitsRoot
    self.groupID = groupID
    self.groupMemberIDs = groupMemberIDs
  }

  /// The daemon's own user, root, and the members of `group` (looked up now) when given.
  public static func current(group: gid_t? = nil) -> PeerPolicy {
    PeerPolicy(ownerID: geteuid(), groupID: group, groupMemberIDs: group.map(memberIDs(ofGroup:)) ?? [])
  }

  /// Whether `peer` may talk to the daemon; a peer whose credentials are unknown may not.
  public func admits(_ peer: PeerCredentials?) -> Bool {
    guard let peer else { return false }
    if peer.userID == ownerID || (admitsRoot && peer.userID == 0) { return true }
    guard let groupID else { return false }
    return peer.groupID == groupID || groupMemberIDs.contains(peer.userID)
  }

  /// The one-line reason given to a refused peer.
  public func refusal(of peer: PeerCredentials?) -> String {
    guard let peer else { return "the daemon cannot tell who you are; refusing the connection" }
    let allowed = groupID.map { "uid \(ownerID) or group \($0)" } ?? "uid \(ownerID)"
    return "uid \(peer.userID) may not use this socket (only \(allowed) may; see socket.group)"
  }

  /// The users listed as members of a group in the group database.
  private static func memberIDs(ofGroup group: gid_t) -> [uid_t] {
    guard let entry = getgrgid(group), var member = entry.pointee.gr_mem else { return [] }
    var ids: [uid_t] = []
    while let name = member.pointee {
      if let user = getpwnam(name) { ids.append(user.pointee.pw_uid) }
      member += 1
    }
    return ids
  }
}
