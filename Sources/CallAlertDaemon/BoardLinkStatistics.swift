import CallAlertProtocol

/// A board link's counters on its current connection (they start again from zero when the daemon
/// reconnects): frames sent again because no answer came, commands resent after the board restarted under
/// them (a resync), and frames the decoder dropped (bad CRC, bad framing, too long).
public struct BoardLinkStatistics: Equatable, Sendable {
  /// Retransmissions made.
  public var retransmissions: UInt64
  /// Commands resent because the board had restarted (a resync of the link's sequence).
  public var resyncs: UInt64
  /// Frames dropped by the decoder.
  public var decodeErrors: UInt64

  /// Creates counters.
  public init(retransmissions: UInt64, resyncs: UInt64, decodeErrors: UInt64) {
    self.retransmissions = retransmissions
    self.resyncs = resyncs
    self.decodeErrors = decodeErrors
  }

  init(_ statistics: (retransmissions: UInt32, decoder: DecoderCounters, resentAfterRestart: Int)) {
    retransmissions = UInt64(statistics.retransmissions)
    resyncs = UInt64(max(0, statistics.resentAfterRestart))
    decodeErrors =
      UInt64(statistics.decoder.crc) + UInt64(statistics.decoder.framing)
      + UInt64(statistics.decoder.overlong)
  }
}
