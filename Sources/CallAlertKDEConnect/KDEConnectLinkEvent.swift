import NIOCore

/// What the network saw, for ``KDEConnectService`` to act on, in the order it happened on each link.
enum KDEConnectLinkEvent: Sendable {
  /// A device announced itself over UDP (from `host`).
  case announced(KDEConnectIdentity, host: String)
  /// A TLS link to a device is up: its identity (the one inside TLS, for protocol 8), its certificate (DER),
  /// where it is, and the channel to write to.
  case linked(link: Int, KDEConnectIdentity, certificate: [UInt8], address: String, channel: any Channel)
  /// A packet line arrived on a link (the line's number on the link, from 1).
  case line(link: Int, [UInt8], number: Int)
  /// A link ended; `reason` when it failed.
  case closed(link: Int, reason: String?)
  /// A connection to a device that announced itself could not be opened (it left, a firewall).
  case unreachable(name: String, address: String, reason: String)
  /// A device was refused before its link came up (a changed certificate, a bad identity): who, from where, why.
  case refused(deviceID: String?, name: String?, address: String, reason: String)
}
